# SPDX-License-Identifier: GPL-2.0
"""Memory hot-added after the balloon is bound is tracked like boot
memory: a pc-dimm plugged through QMP while guestmm_balloon (default
chunk_order=9) runs grows its per-block arrays (blocks.c), the balloon
inflates whole 2 MiB blocks there, compaction leaves those blocks whole,
the counts add up, and everything deflates and unloads cleanly.  Without
the growth, the DIMM's blocks were untracked: debugfs showed none of
them, and their pages counted as strays that compaction could move."""
import time

from balloonlib import DBG, MIB, block_counts, state
import integrity

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[], hotplug=[512],
             host_thp=False, append="memhp_default_state=online_movable")
KERNELS = ("6.1", "6.12")
TIMEOUT = 600
LIGHT = True

MEM = "/sys/devices/system/memory"
INFLATE_MIB = 384


def counted(g, first, end):
    """Balloon pages per block in [first, end), and its complete blocks."""
    blocks = {p: n for p, n in block_counts(g).items() if first <= p < end}
    return blocks, sum(1 for n in blocks.values() if n == 512)


def run(g):
    g.sh("modprobe guestmm_balloon")
    st0 = state(g)
    assert st0["chunk_order"] == 9, st0

    first, end = g.plug_dimm(0)
    bs = int(g.sh("cat %s/block_size_bytes" % MEM).strip(), 16) >> 12
    names = ["memory%d" % i for i in range(first // bs, end // bs)]
    deadline = time.monotonic() + 60
    while True:
        states = g.sh("cat " + " ".join(
            "%s/%s/state 2>/dev/null" % (MEM, b) for b in names) + "; true")
        if states.split() == ["online"] * len(names):
            break
        assert time.monotonic() < deadline, (names, states)
        time.sleep(1)
    st1 = state(g)
    print("KEY hotplug_add dimm_pfns=0x%x-0x%x tracked_blocks=%d->%d "
          "blocks_grown=%d" % (first, end, st0["tracked_blocks"],
                               st1["tracked_blocks"], st1["blocks_grown"]))
    assert st1["tracked_blocks"] << 9 >= end, (hex(end), st1)
    assert st1["blocks_grown"] >= 1, st1

    # Movable allocations fill ZONE_MOVABLE, the DIMM, first: the pattern
    # and the balloon both land there.
    integrity.hold(g)
    total = g.query_balloon()
    target = total - INFLATE_MIB * MIB
    g.balloon(target)
    g.wait_balloon(target, timeout=300)
    blocks, complete = counted(g, first, end)
    st2 = state(g)
    print("KEY hotplug_add inflated blocks_in_dimm=%d complete=%d "
          "pages_in_dimm=%d complete_blocks=%d" % (
              len(blocks), complete, sum(blocks.values()),
              st2["complete_blocks"]))
    assert complete >= 64, blocks
    # Every complete block is counted once, wherever it lies.
    all_complete = sum(1 for n in block_counts(g).values() if n == 512)
    assert st2["complete_blocks"] == all_complete, (st2, all_complete)

    # Compaction leaves the DIMM's complete blocks whole: their pages are
    # refused at isolation, as boot memory's are.
    for _ in range(3):
        g.sh("echo 1 > /proc/sys/vm/compact_memory")
    _, after = counted(g, first, end)
    st3 = state(g)
    print("KEY hotplug_add compacted complete=%d->%d migrate_refused=%d" % (
        complete, after, st3["migrate_refused"]))
    assert after >= complete, (complete, after)
    integrity.settled(g, "inflated", twice=False)

    g.balloon(total)
    g.wait_balloon(total, timeout=300)
    st4 = state(g)
    assert st4["num_pages"] == 0 and st4["complete_blocks"] == 0, st4
    assert not block_counts(g), g.sh("cat %s/blocks" % DBG)
    g.sh("rmmod guestmm_balloon")
    integrity.verify_pattern(g, "deflated")
    integrity.stop_pattern(g)

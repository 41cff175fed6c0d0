# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon chunk_order=9 in a guest whose free memory has no free
2 MiB block but many nearly free ones: with chunk_make_pages=0 every step
falls back to 4 KiB strays; by default (64) the driver makes blocks with
alloc_contig_range() (each migrating at most 64 pages) and inflates almost
everything as complete blocks, and the host backs none of them."""
from balloonlib import MIB, state
from residency import check
from workloads import free_huge_blocks, frag_start, frag_stop

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[], host_thp=False)
KERNELS = ("6.1", "6.12")
TIMEOUT = 900
LIGHT = True

EXTRA_MIB = 64            # inflated beyond the free 2 MiB blocks
KEEP_STRIDE = 32          # frag keeps one page in 32: 16 in use per block


def inflate(g, make_pages):
    """Inflate EXTRA_MIB beyond the free 2 MiB blocks there are now (the
    balloon takes those whole first): what it gets beyond them is made
    blocks or strays."""
    ram = g.mem * MIB
    free2m = free_huge_blocks(g)
    mib = 2 * free2m + EXTRA_MIB
    g.sh("modprobe guestmm_balloon chunk_order=9 chunk_make_pages=%d"
         % make_pages)
    g.balloon(ram - mib * MIB)
    g.wait_balloon(ram - mib * MIB, timeout=300)
    st = state(g)
    print("KEY chunk_fragmented chunk_make_pages=%d free_2m_blocks=%d "
          "inflate_mib=%d complete_blocks=%d stray_pages=%d "
          "chunk_blocks_made=%d chunk_make_failed=%d chunk_fallback=%d" % (
              make_pages, free2m, mib, st["complete_blocks"],
              st["stray_pages"], st["chunk_blocks_made"],
              st["chunk_make_failed"], st["chunk_fallback"]))
    return st


def deflate(g):
    g.balloon(g.mem * MIB)
    g.wait_balloon(g.mem * MIB, timeout=300)
    g.sh("rmmod guestmm_balloon")


def run(g):
    extra_pages = EXTRA_MIB * 256
    # No compaction between the runs: proactive compaction would rebuild
    # free blocks out of frag's nearly free ones.
    g.sh("echo 0 > /proc/sys/vm/compaction_proactiveness")
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    avail = g.meminfo()["MemAvailable"] // 1024
    # frag holds its pages throughout: both runs see the same layout.
    frag_start(g, avail - 64, stride=KEEP_STRIDE, keep=True)
    print("KEY chunk_fragmented %s" % g.sh("cat /tmp/frag.out").strip())

    st = inflate(g, 0)
    assert st["chunk_blocks_made"] == 0 and st["chunk_fallback"] > 0, st
    assert st["stray_pages"] >= extra_pages // 2, st
    deflate(g)

    # Free lists undercount free blocks (deflated pages on per-CPU lists
    # merge later), so the balloon may find more free ones than counted;
    # the rest it makes, and it needs (almost) no stray.
    st = inflate(g, 64)
    assert st["chunk_blocks_made"] >= EXTRA_MIB // 2 // 4, st
    assert st["stray_pages"] <= extra_pages // 4, st
    res = check(g, "made_blocks")
    assert res["balloon"] == st["num_pages"], (res, st)
    deflate(g)
    frag_stop(g)
    g.sh("echo 20 > /proc/sys/vm/compaction_proactiveness")

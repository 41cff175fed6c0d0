# SPDX-License-Identifier: GPL-2.0
"""Host-side proof for guestmm_balloon (chunk_order=9): QEMU backs no page
the balloon holds and every page the guest uses (its page tables read
from /proc/PID/pagemap, the guest's pages from /proc/kpageflags), after a
scattered inflate, after compact_memory migrated balloon pages with batched
messages and with migrate_batch=1, after defrag, after a deflate on OOM,
and after unload."""
import time

from balloonlib import DBG, MIB, state
from residency import check
from workloads import FRAG_KEEP_ALL, frag_start, frag_stop, scattered_inflate

GUEST = dict(mem=1024, smp=2, balloon={"deflate-on-oom": "on"}, mods=[],
             host_thp=False)
KERNELS = ("6.1", "6.12")
TIMEOUT = 900
LIGHT = True

P = "/sys/module/guestmm_balloon/parameters"
INFLATE_MIB = 256
FRAG_MIB = 800


def settled(g, label):
    """Wait until no migration waits to be told to the host, then check."""
    deadline = time.monotonic() + 30
    while True:
        st = state(g)
        if not st["migrate_queued_in"] and not st["migrate_queued_out"]:
            break
        assert time.monotonic() < deadline, st
        time.sleep(0.2)
    res = check(g, label)
    assert res["balloon"] == st["num_pages"], (label, res, st)
    return st


def compact_round(g, label):
    """Scatter balloon pages, then let compact_memory migrate them."""
    ram = g.mem * MIB
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    scattered_inflate(g, INFLATE_MIB, frag_mib=FRAG_MIB)
    m0 = state(g)["migrated"]
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=600)
    st = settled(g, label)
    print("KEY residency %s migrated=%d" % (label, st["migrated"] - m0))
    assert st["migrated"] > m0, st


def run(g):
    ram = g.mem * MIB
    check(g, "boot")
    g.sh("modprobe guestmm_balloon chunk_order=9 defrag_interval_ms=0 "
         "defrag_min_pages=128")

    scattered_inflate(g, INFLATE_MIB, frag_mib=FRAG_MIB)
    settled(g, "inflated")

    compact_round(g, "compacted_batched")
    g.sh("echo 1 > %s/migrate_batch" % P)
    compact_round(g, "compacted_batch1")
    g.sh("echo 256 > %s/migrate_batch" % P)

    d0 = state(g)["defrag_blocks"]
    g.sh("echo 8 > %s/defrag" % DBG, timeout=300)
    st = settled(g, "defragged")
    assert st["defrag_blocks"] > d0, st

    # Deflate on OOM: a hog takes more than is available.  Check while
    # it still holds the memory: the balloon re-inflates once it is gone
    # (after its back-off), and pages in flight would race the snapshot.
    target = g.query_balloon()
    want = g.meminfo()["MemAvailable"] // 1024 + 100
    frag_start(g, want, stride=FRAG_KEEP_ALL)
    st = settled(g, "oom_deflated")
    assert st["oom_deflated_pages"] > 0, st
    frag_stop(g)
    g.wait_balloon(target, timeout=300)
    settled(g, "reinflated")

    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    g.sh("rmmod guestmm_balloon")
    res = check(g, "unloaded")
    assert res["balloon"] == 0, res

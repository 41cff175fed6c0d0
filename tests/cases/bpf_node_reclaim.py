# SPDX-License-Identifier: GPL-2.0
"""BPF probes, node reclaim: with zone_reclaim_mode=1, page cache on node 0 is reclaimed locally; passes, pages and zone_reclaim_failed are counted."""

import bpfcheck

GUEST = dict(mem=1024, smp=2, numa=2, disk_mb=512, balloon=None)
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
TIMEOUT = 600
LIGHT = True


def run(g):
    g.sh("guestmm-stat load")
    bpfcheck.quiesce(g)
    g.sh("echo 1 > /proc/sys/vm/zone_reclaim_mode")
    before = bpfcheck.snapshot(g)
    # CPU 0 is node 0: fill node 0 with clean page cache, then allocate
    # there; node reclaim frees local cache instead of going to node 1.
    g.sh("taskset 1 dd if=/dev/zero of=/mnt/f bs=1M count=380 2>/dev/null; "
         "sync", timeout=300)
    g.sh("taskset 1 frag 300 > /tmp/frag.out 2>&1 & "
         "while ! grep -q ready /tmp/frag.out; do sleep 0.5; done")
    # Node reclaim off before the second snapshot: on 6.12 the passes keep
    # failing while node 0 is full, and the snapshot's own allocations
    # started 14 more between its vmstat read and its map read.
    g.sh("echo 0 > /proc/sys/vm/zone_reclaim_mode; sleep 1")
    after = bpfcheck.snapshot(g)
    g.sh("kill $(pidof frag)")
    bpfcheck.assert_exact(before, after, ["zone_reclaim_failed"])

    r0, r1 = before[0]["node_reclaim"], after[0]["node_reclaim"]
    passes = r1["end"] - r0["end"]
    print("KEY node_reclaim passes=%d reclaimed=%d failed=%d" %
          (passes, r1["nr_reclaimed"] - r0["nr_reclaimed"],
           r1["failed"] - r0["failed"]))
    assert passes > 0 and r1["begin"] - r0["begin"] == passes, (r0, r1)
    # Every pass either freed 2^order pages or counts as failed, exactly.
    assert r1["failed"] - r0["failed"] <= passes
    if g.sh("uname -r").startswith("6.1."):
        # 6.1 frees the clean cache.  Debian's 6.12 (MGLRU on by default)
        # was seen running the passes without freeing anything (cause not
        # investigated); the counters report that faithfully.
        assert r1["nr_reclaimed"] > r0["nr_reclaimed"], (r0, r1)
    h0 = before[0]["histograms"]["node_reclaim"]["count"]
    h1 = after[0]["histograms"]["node_reclaim"]["count"]
    assert h1 - h0 == passes, (h0, h1, passes)
    g.sh("guestmm-stat unload")

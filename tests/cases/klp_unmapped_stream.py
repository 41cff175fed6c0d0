"""guestmm_klp unmapped page cache control on (max_unmapped_ratio=10, set
at load): while a file larger than half of RAM is stream-read from the
ext4 disk, unmapped page cache stays at or below the ratio + 2 % of RAM,
plus what the reader adds while the policy rests between two passes
(klplib.READER_LAG_S at the read's own rate), at every sample, kswapd does the work (pgsteal_kswapd, the policy's passes
and counters), direct reclaim does not move, no thread of ours exists,
and a process that mmaps and touched a file keeps every page of it
resident throughout (mincore)."""
import re
import time

from klplib import (SAMPLER, modprobe_klp, timed_read, um_stats,
                    unmapped_samples)

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=800, tcg_single=True)
KERNELS = ("6.1", "6.12")
# Beside another light case (tests/run -j): every assertion compares the
# guest's own counters, none a host-time bound.
LIGHT = True
TIMEOUT = 1800

RATIO = 10
SLACK = 2           # % of RAM allowed above the ratio
BIG_MIB = 600       # > half of RAM
MAP_MIB = 64
DIRECT = ("pgscan_direct", "pgsteal_direct", "allocstall_normal",
          "allocstall_dma32", "allocstall_movable")


def make_files(g):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "dd if=/dev/urandom of=/mnt/map bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % (BIG_MIB, MAP_MIB),
         timeout=900)



def stream_read(g):
    g.sh(SAMPLER)
    lag, secs = timed_read(g, "/mnt/big")
    time.sleep(1)
    g.sh("touch /tmp/stop; sleep 1")
    return unmapped_samples(g.sh("cat /tmp/samples")), secs, lag


def run(g):
    make_files(g)
    modprobe_klp(g, "unmapped_page_control=1 "
         "max_unmapped_ratio=%d" % RATIO)
    assert "unmapped page cache control on" in g.dmesg()
    ram_pages = g.meminfo()["MemTotal"] // 4
    TR = "/sys/kernel/tracing"
    g.sh("echo 1 > %s/events/guestmm_klp/guestmm_klp_unmapped_pass/enable"
         " 2>/dev/null; echo > %s/trace; true" % (TR, TR))

    g.sh("mincore_hold /mnt/map /tmp/mc.out 500 > /tmp/mc.err 2>&1 &")
    deadline = time.monotonic() + 120
    while "MINCORE ready" not in g.sh("cat /tmp/mc.out 2>/dev/null; true"):
        assert time.monotonic() < deadline, g.sh("cat /tmp/mc.err")
        time.sleep(0.5)
    time.sleep(1)

    s0, vm0 = um_stats(g), g.vmstat()
    samples, secs, lag = stream_read(g)
    s1, vm1 = um_stats(g), g.vmstat()
    g.sh("killall mincore_hold; sleep 1; true")
    ps = g.sh("ps")
    mglru = int(g.sh("cat /sys/kernel/mm/lru_gen/enabled 2>/dev/null || "
                     "echo 0").strip(), 16) & 1
    trace_passes = len(re.findall(
        r"guestmm_klp_unmapped_pass:", g.sh("cat %s/trace" % TR)))

    mc = [tuple(map(int, m)) for m in re.findall(
        r"MINCORE t_ms=\d+ resident=(\d+) total=(\d+)",
        g.sh("cat /tmp/mc.out"))]
    worst = max(samples)
    d = {k: s1[k] - s0[k] for k in (
        "passes", "pages_reclaimed", "pages_scanned", "time_ns",
        "wakeups_pagecache", "wakeups_timer", "predicate_wake",
        "rewakes", "skipped_mapped", "stop_target", "stop_exhausted",
        "stop_budget", "stop_watermark", "backoffs")}
    dv = {k: vm1.get(k, 0) - vm0.get(k, 0) for k in
          DIRECT + ("pgsteal_kswapd", "pgscan_kswapd", "nr_vmscan_write")}
    print("KEY klp_unmapped_stream ratio=%d samples=%d max_unmapped_pages=%d "
          "max_unmapped_pct=%.1f limit_pct=%d read_s=%.1f "
          "mincore_samples=%d min_resident=%d total=%d trace_passes=%d "
          "mglru=%d lag_pages=%d %s %s"
          % (RATIO, len(samples), worst, 100.0 * worst / ram_pages,
             RATIO + SLACK, secs, len(mc),
             min(r for r, _ in mc), mc[0][1], trace_passes, mglru, lag,
             " ".join("%s=%d" % kv for kv in sorted(d.items())),
             " ".join("%s=%d" % kv for kv in sorted(dv.items()))))

    assert len(samples) >= 10, samples
    limit = (RATIO + SLACK) * ram_pages // 100 + lag
    over = [s for s in samples if s > limit]
    assert not over, (limit, len(over), over[:20])
    # kswapd did the work, through the policy: most of the file.
    need = (BIG_MIB - 2 * RATIO * 10) * 256 // 2
    assert d["passes"] > 0 and d["pages_reclaimed"] >= need, d
    assert d["wakeups_pagecache"] > 0, d
    assert d["stop_target"] + d["stop_exhausted"] > 0, d
    if not mglru:
        # Classic LRU: the mapped file sits at the inactive tail, in place;
        # every pass walks past it.  MGLRU puts faulted folios into the
        # youngest generation, which the pass never walks.
        assert d["skipped_mapped"] > 0, d
    assert trace_passes > 0
    assert dv["pgsteal_kswapd"] >= d["pages_reclaimed"], (dv, d)
    # Not direct reclaim, and nothing written by reclaim.
    for k in DIRECT + ("nr_vmscan_write",):
        assert dv[k] == 0, (k, dv)
    assert "gmm_unmapped" not in ps, ps
    # The mapped file stayed resident, every page at every sample.
    assert len(mc) >= 5, mc
    assert all(r == t for r, t in mc), [m for m in mc if m[0] != m[1]][:10]

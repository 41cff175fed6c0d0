"""The control case for klp_unmapped_stream: guestmm_klp loaded with
unmapped_page_control off (the default), the same stream read of a file
larger than half of RAM lets unmapped page cache grow far past
max_unmapped_ratio, and the policy does nothing: no pass, no wakeup, the
patched pgdat_balanced() answers as the kernel's."""
import time

from klplib import SAMPLER, modprobe_klp, um_stats, unmapped_samples

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=800, tcg_single=True)
KERNELS = ("6.1", "6.12")
# Beside another light case (tests/run -j): every assertion compares the
# guest's own counters, none a host-time bound.
LIGHT = True
TIMEOUT = 1800

PAR = "/sys/module/guestmm_klp/parameters"
RATIO = 10
BIG_MIB = 600



def run(g):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % BIG_MIB, timeout=900)
    modprobe_klp(g, "max_unmapped_ratio=%d" % RATIO)
    assert g.sh("cat %s/unmapped_page_control" % PAR).strip() == "N"
    ram_pages = g.meminfo()["MemTotal"] // 4
    s0, vm0 = um_stats(g), g.vmstat()
    g.sh(SAMPLER)
    g.sh("dd if=/mnt/big of=/dev/null bs=1M 2>&1", timeout=900)
    time.sleep(1)
    g.sh("touch /tmp/stop; sleep 1")
    samples = unmapped_samples(g.sh("cat /tmp/samples"))
    s1, vm1 = um_stats(g), g.vmstat()
    worst = max(samples)
    keys = ("passes", "pages_reclaimed", "pages_scanned", "wakeups_pagecache",
            "wakeups_timer", "wakeups_param", "predicate_wake",
            "predicate_other", "rewakes", "backoffs")
    d = {k: s1[k] - s0[k] for k in keys}
    # For comparison with klp_unmapped_stream (control on): the direct
    # reclaim counters of the same workload without the policy.
    dv = {k: vm1.get(k, 0) - vm0.get(k, 0) for k in (
        "pgscan_direct", "pgsteal_direct", "pgscan_kswapd", "pgsteal_kswapd")}
    print("KEY klp_unmapped_off ratio=%d samples=%d max_unmapped_pages=%d "
          "max_unmapped_pct=%.1f %s %s" % (
              RATIO, len(samples), worst, 100.0 * worst / ram_pages,
              " ".join("%s=%d" % kv for kv in sorted(d.items())),
              " ".join("%s=%d" % kv for kv in sorted(dv.items()))))
    # Most of the file stays cached: far above the ratio.
    assert worst > 3 * RATIO * ram_pages // 100, worst
    assert d == dict.fromkeys(keys, 0), d

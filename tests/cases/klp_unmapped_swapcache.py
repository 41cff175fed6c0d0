"""guestmm_klp unmapped page cache control on, with a swap device and
swapped-out anonymous memory of which part sits in the swap cache: while a
file larger than half of RAM is stream-read, the policy keeps unmapped
page cache under the ratio (plus what the reader adds between two
passes, klplib.READER_LAG_S) and leaves the swap cache alone (SwapCached
does not fall, nothing is swapped out or in, no direct reclaim)."""
import time

from klplib import (SAMPLER, modprobe_klp, timed_read, um_stats,
                    unmapped_samples)

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=900, tcg_single=True)
KERNELS = ("6.1", "6.12")
# Beside another light case (tests/run -j): every assertion compares the
# guest's own counters, none a host-time bound.
LIGHT = True
TIMEOUT = 1800

RATIO = 10
SLACK = 2
BIG_MIB = 600
SWAP_MIB = 192
ANON_MIB = 64
TOLERANCE_KB = 256  # SwapCached may dip by this much (rounding, races)



def run(g):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "dd if=/dev/zero of=/mnt/swap bs=1M count=%d conv=fsync 2>&1 && "
         "chmod 600 /mnt/swap && mkswap /mnt/swap && swapon /mnt/swap && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % (BIG_MIB, SWAP_MIB),
         timeout=900)
    g.sh("anon_swap %d /tmp/as.out > /tmp/as.err 2>&1 &" % ANON_MIB)
    deadline = time.monotonic() + 120
    while "ANONSWAP ready" not in g.sh("cat /tmp/as.out 2>/dev/null; true"):
        assert time.monotonic() < deadline, g.sh("cat /tmp/as.err")
        time.sleep(0.5)
    modprobe_klp(g, "unmapped_page_control=1 max_unmapped_ratio=%d" % RATIO)
    ram_pages = g.meminfo()["MemTotal"] // 4
    time.sleep(2)

    m0, vm0, s0 = g.meminfo(), g.vmstat(), um_stats(g)
    g.sh(SAMPLER)
    lag, _ = timed_read(g, "/mnt/big")
    time.sleep(1)
    g.sh("touch /tmp/stop; sleep 1")
    samples = unmapped_samples(g.sh("cat /tmp/samples"))
    m1, vm1, s1 = g.meminfo(), g.vmstat(), um_stats(g)
    g.sh("killall anon_swap; sleep 1; swapoff /mnt/swap; true", timeout=300)

    worst = max(samples)
    d = {k: s1[k] - s0[k] for k in ("passes", "pages_reclaimed")}
    dv = {k: vm1.get(k, 0) - vm0.get(k, 0) for k in (
        "pswpin", "pswpout", "pgscan_anon", "pgsteal_anon", "pgscan_direct",
        "pgsteal_direct", "pgsteal_kswapd")}
    print("KEY klp_unmapped_swapcache swapcached_kb_before=%d "
          "swapcached_kb_after=%d swap_used_kb=%d max_unmapped_pct=%.1f "
          "anon_thp_kb=%d samples=%d %s %s" % (
              m0["SwapCached"], m1["SwapCached"],
              m0["SwapTotal"] - m0["SwapFree"], 100.0 * worst / ram_pages,
              m1.get("AnonHugePages", 0), len(samples),
              " ".join("%s=%d" % kv for kv in sorted(d.items())),
              " ".join("%s=%d" % kv for kv in sorted(dv.items()))))

    # The setup worked: anonymous memory in swap and in the swap cache.
    assert m0["SwapTotal"] - m0["SwapFree"] >= ANON_MIB * 1024 // 2, m0
    assert m0["SwapCached"] >= 4096, m0
    # The policy ran and kept its bound.
    assert d["passes"] > 0 and d["pages_reclaimed"] > 0, d
    limit = (RATIO + SLACK) * ram_pages // 100 + lag
    assert len(samples) >= 10 and worst <= limit, (limit, worst, lag)
    # The swap cache stayed; nothing swapped, no anon reclaim.
    assert m1["SwapCached"] >= m0["SwapCached"] - TOLERANCE_KB, (m0, m1)
    for k in ("pswpout", "pgscan_anon", "pgsteal_anon", "pgscan_direct",
              "pgsteal_direct"):
        assert dv[k] == 0, (k, dv)

"""Compaction's migrate scanner: THP fault latency and scanning per THP, stock vs guestmm_klp alternating in one boot (seed 003)

mmtests' thpscale/thpfioscale method in a 1 GiB TCG guest with an ext4
virtio disk.  A page cache + slab filler (`filler`: random whole-file
reads over 24,000 files of 64 KiB, 1.5 GiB, about 1.5x RAM) runs the whole
time.  Each run is `thpscale 2 760`: two threads fault 760 MiB in base
pages, punch a 1 MiB hole in every 2 MiB, refill the holes with page cache
from a file, then fault an MADV_HUGEPAGE region 2 MiB at a time and time
every fault (THP defrag=always, so every fault compacts directly).  After
a warm-up run, the stock scanner and guestmm_klp's alternate ROUNDS times
each in the same boot (the patch is loaded, and disabled and removed,
around every klp run), so both see the same memory history.  Scanned
pages per THP are given two ways: the median over runs of each run's
vmstat delta divided by its THPs, and pooled (all runs' scanned pages
over all their THPs; a run gets 15-140 THPs, so per-run ratios are
noisy).
Fault latency is also pooled: every fault of every run (thpscale's
THPSCALE_LAT line), p95 of all, huge and base faults, and for guestmm_klp
the p95 it would have at stock's mix of huge and base faults
(`klp_pooled_p95_at_stock_mix`: its own huge and base latency
distributions, weighted by stock's huge fraction).  More THPs means more
of the slower huge faults, which moves the p95 of all faults by itself;
that figure separates the mix from the scanner.
COMPACTION_SCANNER_ROUNDS shortens a boot (default 15).
Goal: >= 30 % fewer migrate-scanned pages per THP than stock, at
an equal or better huge-page percentage and no worse latency.
"""
import bisect
import os
import statistics

import workloads

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=2048)
ROUNDS = int(os.environ.get("COMPACTION_SCANNER_ROUNDS", 15))
REPS = 1            # the repetitions are the ROUNDS inside one boot
FILES, FILE_KIB = 24000, 64
LP = workloads.KLP_SYSFS

VARIANTS = [dict(name="stock-vs-klp-same-boot", guest=GUEST,
                 needs=["guestmm_klp"])]

# The modes that alternate in the boot: name, guestmm_klp parameters
# (None: stock, no livepatch).
MODES = [("stock", None), ("klp", "")]

KEYS = ["huge_pct", "fault_us_mean", "fault_us_p50", "fault_us_p95",
        "huge_us_p50", "huge_us_p95", "base_us_p50", "base_us_p95",
        "migrate_scanned_per_thp", "free_scanned_per_thp"]
BETTER = {"huge_pct": "higher"}

METRICS = [("%s_%s" % (mode, k), "%s: %s" % (mode, k.replace("_", " ")),
            BETTER.get(k, "lower")) for k in KEYS
           for mode, _ in MODES] + [
    ("%s_pooled_migrate_per_thp" % mode,
     "%s: all runs' migrate-scanned pages / all their THPs" % mode, "lower")
    for mode, _ in MODES] + [
    ("%s_migrate_per_thp_change_pct" % mode,
     "%s vs stock, migrate-scanned pages per THP (medians), %%" % mode,
     "lower") for mode, _ in MODES[1:]] + [
    ("%s_pooled_change_pct" % mode,
     "%s vs stock, pooled migrate-scanned pages per THP, %%" % mode,
     "lower") for mode, _ in MODES[1:]] + [
    ("%s_huge_pct_change" % mode,
     "%s - stock, huge-page percentage points (medians)" % mode, "higher")
    for mode, _ in MODES[1:]]


def klp_on(g, params):
    workloads.modprobe_klp(g, params)
    g.sh("while [ \"$(cat %s/transition)\" != 0 ]; do sleep 0.2; done"
         % LP, timeout=120)


def klp_off(g):
    g.sh("echo 0 > %s/enabled; while [ -d %s ] && "
         "[ \"$(cat %s/transition)\" != 0 ]; do sleep 0.2; done; sleep 1; "
         "rmmod guestmm_klp && rmmod guestmm_klp_trace" % (LP, LP, LP),
         timeout=120)


def one_run(g):
    v0 = g.vmstat()
    out = g.sh("THPSCALE_LAT=1 thpscale 2 760 /mnt/data", timeout=1800)
    d = workloads.delta(v0, g.vmstat())
    line = [l for l in out.splitlines() if l.startswith("THPSCALE ")][0]
    res = {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    lat = [l for l in out.splitlines() if l.startswith("THPSCALE_LAT ")][0]
    for kv in lat.split()[1:]:
        kind, vals = kv.split("=")
        res["lat_" + kind] = [float(v) for v in vals.split(",") if v]
    thp = max(res["huge"], 1)
    res["migrate_scanned_per_thp"] = d["compact_migrate_scanned"] / thp
    res["migrate_scanned"] = d["compact_migrate_scanned"]
    res["free_scanned_per_thp"] = d["compact_free_scanned"] / thp
    return res


def p95(values):
    """Nearest-rank 95th percentile, as thpscale computes it; 0 if empty."""
    v = sorted(values)
    if not v:
        return 0.0
    return v[max(0, -(-95 * len(v) // 100) - 1)]


def p95_of_mix(huge, base, w_huge):
    """The 95th percentile of a mixture: a fault is huge with probability
    w_huge and then drawn from `huge`, else from `base`."""
    huge, base = sorted(huge), sorted(base)

    def cdf(x, v):
        return bisect.bisect_right(v, x) / len(v) if v else 0.0
    for x in sorted(set(huge) | set(base)):
        if w_huge * cdf(x, huge) + (1 - w_huge) * cdf(x, base) >= 0.95:
            return x
    return 0.0


def pool_latency(res, runs):
    """Every fault of every run: p95 of all, huge and base, per mode, and
    each patched mode's p95 at stock's share of huge faults."""
    pooled = {}
    for mode, rs in runs.items():
        huge = [x for r in rs for x in r["lat_huge"]]
        base = [x for r in rs for x in r["lat_base"]]
        pooled[mode] = (huge, base)
        res["%s_pooled_fault_p95" % mode] = p95(huge + base)
        res["%s_pooled_huge_p95" % mode] = p95(huge)
        res["%s_pooled_base_p95" % mode] = p95(base)
    sh, sb = pooled["stock"]
    w = len(sh) / max(1, len(sh) + len(sb))
    for mode, _ in MODES[1:]:
        res["%s_pooled_p95_at_stock_mix" % mode] = p95_of_mix(
            *pooled[mode], w)


def measure(g, variant):
    g.sh("echo always > /sys/kernel/mm/transparent_hugepage/defrag")
    g.sh("dd if=/dev/zero of=/mnt/data bs=1M count=400 2>/dev/null && "
         "mkdir -p /mnt/small && filler create /mnt/small %d %d && sync"
         % (FILES, FILE_KIB), timeout=3600)
    g.sh("filler read /mnt/small %d > /dev/null 2>&1 & "
         "echo $! > /tmp/filler.pid" % FILES)
    one_run(g)                          # warm-up, not counted
    runs = {mode: [] for mode, _ in MODES}
    for _ in range(ROUNDS):
        for mode, params in MODES:
            if params is not None:
                klp_on(g, params)
            runs[mode].append(one_run(g))
            if params is not None:
                klp_off(g)
    g.sh("kill $(cat /tmp/filler.pid)")
    res = {}
    for mode, rs in runs.items():
        for k in KEYS:
            res["%s_%s" % (mode, k)] = statistics.median(r[k] for r in rs)
        # Runs with few THPs make per-run ratios noisy: weigh every THP
        # the same.
        res["%s_pooled_migrate_per_thp" % mode] = sum(
            r["migrate_scanned"] for r in rs) / max(1, sum(
                r["huge"] for r in rs))
    pool_latency(res, runs)
    for mode, _ in MODES[1:]:
        res["%s_migrate_per_thp_change_pct" % mode] = 100.0 * (
            res["%s_migrate_scanned_per_thp" % mode] /
            max(res["stock_migrate_scanned_per_thp"], 1) - 1)
        res["%s_pooled_change_pct" % mode] = 100.0 * (
            res["%s_pooled_migrate_per_thp" % mode] /
            max(res["stock_pooled_migrate_per_thp"], 1) - 1)
        res["%s_huge_pct_change" % mode] = \
            res["%s_huge_pct" % mode] - res["stock_huge_pct"]
    return res

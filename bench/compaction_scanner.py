"""Compaction's migrate scanner: THP fault latency on fragmented memory (seed 003)

mmtests' thpscale method in a 1 GiB TCG guest with an ext4 disk: two
threads fault 760 MiB in base pages, punch a 1 MiB hole in every 2 MiB,
refill the holes with page cache from a file on the disk, then fault an
MADV_HUGEPAGE region 2 MiB at a time (THP defrag=always, so every fault
compacts directly).  Compared: the stock 6.1 scanner and guestmm_klp's.
Scanned-page counts are the vmstat deltas over the run.
"""

import workloads

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=1024)

VARIANTS = [
    dict(name="stock", guest=GUEST),
    dict(name="guestmm_klp", guest=GUEST, needs=["guestmm_klp"],
         load="modprobe guestmm_klp && "
              "while [ \"$(cat /sys/kernel/livepatch/guestmm_klp/transition)\""
              " != 0 ]; do sleep 0.2; done"),
]

METRICS = [
    ("huge_pct", "faults served by a THP, %", "higher"),
    ("fault_us_mean", "mean 2 MiB fault latency, us", "lower"),
    ("huge_us_mean", "mean THP fault latency, us", "lower"),
    ("compact_migrate_scanned", "pages scanned by the migrate scanner",
     "lower"),
    ("compact_free_scanned", "pages scanned by the free scanner", "lower"),
    ("compact_stall", "direct compaction stalls", "info"),
    ("compact_success", "direct compactions that succeeded", "higher"),
]


def measure(g, variant):
    if variant.get("load"):
        g.sh(variant["load"], timeout=120)
    g.sh("echo always > /sys/kernel/mm/transparent_hugepage/defrag")
    g.sh("dd if=/dev/zero of=/mnt/data bs=1M count=700 2>/dev/null && sync "
         "&& echo 3 > /proc/sys/vm/drop_caches", timeout=600)
    v0 = g.vmstat()
    out = g.sh("thpscale 2 760 /mnt/data", timeout=1200)
    d = workloads.delta(v0, g.vmstat())
    line = [l for l in out.splitlines() if l.startswith("THPSCALE ")][0]
    res = {k: float(v) for k, v in (kv.split("=") for kv in line.split()[1:])}
    res.update({k: d[k] for k in ("compact_migrate_scanned",
                                  "compact_free_scanned", "compact_stall",
                                  "compact_success")})
    return res

"""Balloon compaction: 2 MiB blocks regained when the balloon is scattered (seed 000)

Aquini's method, scaled to a 1 GiB TCG guest: a fragmenting program leaves
4 KiB holes in nearly every pageblock, the host inflates the balloon by
256 MiB over QMP so balloon pages fill those holes, the program exits.  Then
`compact_memory` runs once, and the stress-highalloc probe
(guestmm_highalloc.ko: order-9 GFP_HIGHUSER_MOVABLE|__GFP_RETRY_MAYFAIL,
kept until the end) asks for 95% of the free memory in 2 MiB blocks.
Movable balloon pages can be migrated out of the way; unmovable ones pin
their pageblocks.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "scripts", "guest"))

import workloads  # noqa: E402

GUEST = dict(mem=1024, smp=2, balloon={})

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"]),
         needs=["guestmm_highalloc"]),
    dict(name="guestmm", guest=dict(GUEST, mods=["guestmm_balloon"]),
         needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-movable0", guest=dict(GUEST, mods=[]),
         load="modprobe guestmm_balloon movable=0",
         needs=["guestmm_balloon", "guestmm_highalloc"]),
]

METRICS = [
    ("highalloc_pct", "order-9 allocations that succeeded, %", "higher"),
    ("highalloc_mean_us", "mean order-9 allocation latency, us", "lower"),
    ("free_2m_after", "free 2 MiB blocks after compact_memory", "higher"),
    ("balloon_migrate", "balloon pages migrated", "info"),
    ("compact_stall", "direct compaction stalls", "lower"),
    ("compact_migrate_scanned", "pages scanned by the migrate scanner",
     "lower"),
]


def measure(g, variant):
    if variant.get("load"):
        g.sh(variant["load"])
    g.sh("modprobe guestmm_highalloc")
    workloads.scattered_inflate(g, 256)
    v0 = g.vmstat()
    comp = workloads.compact(g)
    free_kb = g.meminfo()["MemFree"]
    attempts = int(free_kb // 2048 * 0.95)
    g.sh("echo %d > /sys/kernel/debug/guestmm_highalloc/alloc" % attempts,
         timeout=900)
    res = dict(kv.split("=") for kv in g.sh(
        "cat /sys/kernel/debug/guestmm_highalloc/alloc").split())
    d = workloads.delta(v0, g.vmstat())
    g.sh("echo 0 > /sys/kernel/debug/guestmm_highalloc/alloc")
    success = int(res["success"])
    return {
        "highalloc_pct": 100.0 * success / max(1, int(res["attempts"])),
        "highalloc_mean_us": int(res["total_us"]) / max(1, int(
            res["attempts"])),
        "free_2m_after": comp["free_2m_after"],
        "balloon_migrate": d["balloon_migrate"],
        "compact_stall": d["compact_stall"],
        "compact_migrate_scanned": d["compact_migrate_scanned"],
    }

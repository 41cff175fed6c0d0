"""Balloon compaction: order-9 allocations after a scattered inflate (seed 000)

Aquini's stress-highalloc method, scaled to a 1 GiB TCG guest: a
fragmenting program (800 MiB, every other page freed) leaves 4 KiB holes in nearly every pageblock, the host
inflates the balloon by a third of RAM over QMP so balloon pages fill those
holes, the program exits.  The stress-highalloc probe (guestmm_highalloc.ko:
order-9 GFP_HIGHUSER_MOVABLE|__GFP_RETRY_MAYFAIL, kept until the pass ends)
then asks for 80% of the free memory in 2 MiB blocks (mmtests asked for
95% of RAM; in a 1 GiB guest whose root is a tmpfs that leaves too little
for anything else, and the OOM killer fires): "pass 1" directly,
"rested" again after `compact_memory`.  Movable balloon pages can be
migrated out of the way; unmovable ones (movable=0, the pre-3.8 behaviour)
pin their pageblocks.  Goal: guestmm >= stock, movable=0 clearly worse.
guestmm tells the host about migrations in batches (migrate_batch=256);
guestmm-batch1 tells it at once, two messages per page, as stock does:
compare the compact_memory time and migrations per second.
guestmm-defrag uses 2 MiB chunks and, after the inflate, defrag until no
block qualifies (debugfs defrag, defrag_min_pages=1): its cost is
defrag_s and the migrations it made per completed block.
"""
import time

import workloads

GUEST = dict(mem=1024, smp=2, balloon={})
INFLATE_MIB = 340
# The filler spans nearly all memory so that holes, and the balloon pages
# in them, lie in both halves of the zone (compaction only moves pages
# from the low half); with half of RAM the result was bimodal.
FRAG_MIB = 800

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"]),
         needs=["guestmm_highalloc"]),
    dict(name="guestmm", guest=dict(GUEST, mods=["guestmm_balloon"]),
         needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-batch1", guest=GUEST,
         load="modprobe guestmm_balloon migrate_batch=1",
         needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-defrag", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9 defrag_min_pages=1",
         defrag=True, needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-movable0", guest=GUEST,
         load="modprobe guestmm_balloon movable=0",
         needs=["guestmm_balloon", "guestmm_highalloc"]),
]

METRICS = [
    ("pass1_pct", "pass 1: order-9 allocations that succeeded, %", "higher"),
    ("rested_pct", "rested: order-9 allocations that succeeded, %",
     "higher"),
    ("pass1_mean_us", "pass 1: mean order-9 allocation latency, us",
     "lower"),
    ("free_2m_after", "free 2 MiB blocks after compact_memory", "higher"),
    ("balloon_migrate", "balloon pages migrated", "info"),
    ("compact_s", "compact_memory wall time, s", "lower"),
    ("migrate_per_s", "balloon pages migrated per second of "
     "compact_memory", "higher"),
    ("compact_stall", "direct compaction stalls", "info"),
    ("compact_migrate_scanned", "pages scanned by the migrate scanner",
     "lower"),
    ("defrag_blocks", "guestmm-defrag: blocks defrag completed", "info"),
    ("defrag_s", "guestmm-defrag: defrag wall time, s", "info"),
    ("defrag_migrations_per_block", "guestmm-defrag: balloon pages "
     "migrated per completed block", "info"),
]
DBG = "/sys/kernel/debug/guestmm_balloon"

PROBE = "/sys/kernel/debug/guestmm_highalloc/alloc"


def highalloc_pass(g):
    """Ask for 80% of free memory in order-9 blocks; return (success %,
    mean latency in us) and free them again."""
    attempts = int(g.meminfo()["MemFree"] // 2048 * 0.8)
    g.sh("echo %d > %s" % (attempts, PROBE), timeout=900)
    res = dict(kv.split("=") for kv in g.sh("cat " + PROBE).split())
    g.sh("echo 0 > " + PROBE)
    n = max(1, int(res["attempts"]))
    return 100.0 * int(res["success"]) / n, int(res["total_us"]) / n


def measure(g, variant):
    if variant.get("load"):
        g.sh(variant["load"])
    g.sh("modprobe guestmm_highalloc")
    workloads.scattered_inflate(g, INFLATE_MIB, frag_mib=FRAG_MIB)
    extra = dict(defrag_blocks=0, defrag_s=0,
                 defrag_migrations_per_block=0)
    if variant.get("defrag"):
        m0 = int(g.sh("cat %s/migrated" % DBG))
        t0 = time.monotonic()
        g.sh("echo 1000000 > %s/defrag" % DBG, timeout=900)
        blocks = int(g.sh("cat %s/defrag_blocks" % DBG))
        extra = dict(defrag_blocks=blocks,
                     defrag_s=time.monotonic() - t0,
                     defrag_migrations_per_block=(
                         int(g.sh("cat %s/migrated" % DBG)) - m0) /
                     max(blocks, 1))
    v0 = g.vmstat()
    pass1_pct, pass1_us = highalloc_pass(g)
    t0 = time.monotonic()
    comp = workloads.compact(g)
    compact_s = time.monotonic() - t0
    rested_pct, _ = highalloc_pass(g)
    d = workloads.delta(v0, g.vmstat())
    return {
        "pass1_pct": pass1_pct,
        "rested_pct": rested_pct,
        "pass1_mean_us": pass1_us,
        "free_2m_after": comp["free_2m_after"],
        "balloon_migrate": d["balloon_migrate"],
        "compact_s": compact_s,
        "migrate_per_s": comp["balloon_migrate"] / max(compact_s, 0.01),
        "compact_stall": d["compact_stall"],
        "compact_migrate_scanned": d["compact_migrate_scanned"],
        **extra,
    }

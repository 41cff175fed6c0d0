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
defrag_s, defrag_cpu_s and the migrations it made per completed block.
guestmm runs guestmm_balloon's defaults: 2 MiB chunks with background
defrag (defrag_interval_ms=1000, default budget and defrag_min_pages),
no debugfs call; guestmm-4k is the 4 KiB balloon (chunk_order=0),
guestmm-batch1 and guestmm-movable0 are 4 KiB too.  Every variant rests 45 s (SETTLE_S) after the inflate
before pass 1, since background defrag needs time: at its default budget
it completes a few blocks a second under TCG.  settle_busy_s is the
guest's busy CPU time in that rest, so the candidate's minus guestmm's
is what background defrag cost for the settle_blocks it completed then;
defrag_blocks counts its blocks from the inflate on, strays_at_pass1
what it (or debugfs defrag) left.
"""
import time

import workloads
from workloads import cpu_ticks

GUEST = dict(mem=1024, smp=2, balloon={})
INFLATE_MIB = 340
# The filler spans nearly all memory so that holes, and the balloon pages
# in them, lie in both halves of the zone (compaction only moves pages
# from the low half); with half of RAM the result was bimodal.
FRAG_MIB = 800
# The rest between the inflate and pass 1, the same for every variant:
# background defrag at its defaults needed about 37 s for the ~120 blocks
# a scattered inflate leaves (6.1, TCG).
SETTLE_S = 45
USER_HZ = 100

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"]),
         needs=["guestmm_highalloc"]),
    # guestmm_balloon's defaults: 2 MiB chunks with background defrag.
    dict(name="guestmm", guest=dict(GUEST, mods=["guestmm_balloon"]),
         bg_defrag=True, needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-4k", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-batch1", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0 migrate_batch=1",
         needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-defrag", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9 defrag_interval_ms=0 "
         "defrag_min_pages=1",
         defrag=True, needs=["guestmm_balloon", "guestmm_highalloc"]),
    dict(name="guestmm-movable0", guest=GUEST,
         load="modprobe guestmm_balloon movable=0 chunk_order=0",
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
    ("defrag_blocks", "defrag: blocks completed before pass 1", "info"),
    ("defrag_s", "guestmm-defrag: defrag wall time, s", "info"),
    ("defrag_cpu_s", "guestmm-defrag: guest CPU busy during defrag, s",
     "info"),
    ("defrag_migrations_per_block", "defrag: pages migrated per completed "
     "block", "info"),
    ("settle_busy_s", "guest CPU busy in the %d s rest before pass 1, s"
     % SETTLE_S, "info"),
    ("settle_blocks", "guestmm: blocks background defrag completed in the "
     "rest", "info"),
    ("strays_at_pass1", "chunk variants: stray balloon pages at pass 1",
     "info"),
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


def busy_s(g, script):
    """Run script in the guest; the guest's busy CPU seconds meanwhile."""
    out = g.sh("head -1 /proc/stat; %s; head -1 /proc/stat" % script,
               timeout=900).splitlines()
    return (cpu_ticks(out[-1])[0] - cpu_ticks(out[0])[0]) / USER_HZ


def measure(g, variant):
    if variant.get("load"):
        g.sh(variant["load"])
    g.sh("modprobe guestmm_highalloc")
    workloads.scattered_inflate(g, INFLATE_MIB, frag_mib=FRAG_MIB)
    chunks = variant.get("defrag") or variant.get("bg_defrag")
    if chunks:
        blocks0 = int(g.sh("cat %s/defrag_blocks" % DBG))
    settle_busy = busy_s(g, "sleep %d" % SETTLE_S)
    extra = dict(defrag_blocks=0, defrag_s=0, defrag_cpu_s=0,
                 defrag_migrations_per_block=0, settle_busy_s=settle_busy,
                 settle_blocks=0, strays_at_pass1=0)
    if variant.get("defrag"):
        m0 = int(g.sh("cat %s/migrated" % DBG))
        t0 = time.monotonic()
        cpu = busy_s(g, "echo 1000000 > %s/defrag" % DBG)
        secs = time.monotonic() - t0
        blocks = int(g.sh("cat %s/defrag_blocks" % DBG))
        extra.update(defrag_blocks=blocks, defrag_s=secs, defrag_cpu_s=cpu,
                     defrag_migrations_per_block=(
                         int(g.sh("cat %s/migrated" % DBG)) - m0) /
                     max(blocks, 1))
    elif variant.get("bg_defrag"):
        # Background defrag ran during the inflate and the rest.  Its
        # defrag_pages_moved counts the in-use pages of the blocks it took
        # (our own strays in them too); `migrated` would also count what
        # proactive compaction moved meanwhile.
        blocks = int(g.sh("cat %s/defrag_blocks" % DBG))
        extra.update(defrag_blocks=blocks, settle_blocks=blocks - blocks0,
                     defrag_migrations_per_block=int(
                         g.sh("cat %s/defrag_pages_moved" % DBG)) /
                     max(blocks, 1))
    if chunks:
        extra["strays_at_pass1"] = int(g.sh(
            "sed -n 's/^stray_pages //p' %s/state" % DBG))
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

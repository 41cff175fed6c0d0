"""eBPF probe overhead on a compaction workload, probes loaded vs not

Two workloads, each run with and without probes in alternation (off, on,
off, on, ...) ROUNDS times in the same boot, after an untimed warm-up:
- compaction: `frag 700` (fragment 700 MiB, keep every other page),
  `compact_memory`, then 100 order-9 allocations through
  guestmm_highalloc (direct compaction), timed inside the guest;
- migration, a fixed amount of work: `thp_move 100 base512` and
  `thp_move 100 thp` (51,200 base pages and 100 THPs moved between the
  guest's two NUMA nodes), timed inside the guest.
How much work a compaction run does depends on the layout frag leaves,
which varies from run to run by far more than 2 %, so its wall-time ratio
is indicative only.  The probes' own CPU time (`run_time_ns` of every
guestmm program, `kernel.bpf_stats_enabled=1`) over the timed work does
not depend on the layout: that is the figure held against the goal,
<= 2 %.  The migration workload is the same every time, so its wall-time
ratio is meaningful too.

Variants: `load` (the default: every probe but per-folio timing) and
`load -f` (also time every migrated folio: two probes and two clock reads
per folio; under TCG the clock is HPET, an emulated MMIO read).
"""
import json
import statistics

import workloads


GUEST = dict(mem=1024, smp=2, numa=2, balloon=None)
ROUNDS = 3
FRAG_MIB = 700
ALLOCS = 100
HA = "/sys/kernel/debug/guestmm_highalloc/alloc"

VARIANTS = [
    dict(name="load", guest=GUEST, load="guestmm-stat load",
         needs=["guestmm_highalloc"]),
    dict(name="load-f", guest=GUEST, load="guestmm-stat load -f",
         needs=["guestmm_highalloc"]),
]

METRICS = [
    ("compaction_bpf_pct", "compaction: probes' run time / wall time, %",
     "lower"),
    ("compaction_pct", "compaction: wall time on vs off (indicative), %",
     "lower"),
    ("migration_bpf_pct", "migration: probes' run time / wall time, %",
     "lower"),
    ("migration_pct", "migration: wall time on vs off, %", "lower"),
    ("compaction_off_s", "compaction: wall time, probes off, s", "info"),
    ("migration_off_s", "migration: wall time, probes off, s", "info"),
    ("pgmigrate_success", "compaction: pages migrated per run", "info"),
]


def compaction_run(g):
    """frag, compact_memory, ALLOCS order-9 allocations: guest seconds and
    pages migrated."""
    g.sh("echo 3 > /proc/sys/vm/drop_caches; echo 0 > " + HA)
    workloads.frag_start(g, FRAG_MIB)
    v0 = g.vmstat()
    s = workloads.guest_seconds(
        g, "echo 1 > /proc/sys/vm/compact_memory; echo %d > %s" % (ALLOCS,
                                                                   HA))
    pages = g.vmstat()["pgmigrate_success"] - v0["pgmigrate_success"]
    g.sh("echo 0 > " + HA)
    workloads.frag_stop(g)
    return s, pages


def migration_run(g):
    return workloads.guest_seconds(g, "thp_move 100 base512 >/dev/null && "
                                   "thp_move 100 thp >/dev/null"), 0


def bpf_run_ns(g):
    progs = json.loads(g.sh("bpftool prog show -j"))
    return sum(p.get("run_time_ns", 0) for p in progs
               if p.get("name", "").startswith("guestmm"))


def ab(g, variant, work):
    """ROUNDS alternations of work() without and with probes: median wall
    time off and on, probes' run time over wall time on, median pages."""
    off, on, pages, bpf_ns = [], [], [], 0
    for _ in range(ROUNDS):
        s, n = work(g)
        off.append(s)
        pages.append(n)
        g.sh(variant["load"])
        ns0 = bpf_run_ns(g)
        s, n = work(g)
        bpf_ns += bpf_run_ns(g) - ns0
        g.sh("guestmm-stat unload")
        on.append(s)
        pages.append(n)
    off_m, on_m = statistics.median(off), statistics.median(on)
    return (off_m, 100.0 * (on_m / off_m - 1),
            100.0 * bpf_ns / 1e9 / sum(on), statistics.median(pages))


def measure(g, variant):
    g.sh("modprobe guestmm_highalloc; "
         "echo 1 > /proc/sys/kernel/bpf_stats_enabled")
    compaction_run(g)                   # warm-ups, not counted
    migration_run(g)
    c_off, c_pct, c_bpf, pages = ab(g, variant, compaction_run)
    m_off, m_pct, m_bpf, _ = ab(g, variant, migration_run)
    return {"compaction_bpf_pct": c_bpf, "compaction_pct": c_pct,
            "migration_bpf_pct": m_bpf, "migration_pct": m_pct,
            "compaction_off_s": c_off, "migration_off_s": m_off,
            "pgmigrate_success": pages}

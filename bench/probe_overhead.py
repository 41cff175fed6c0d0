"""eBPF probe overhead on a compaction workload

The seed-000 workload (fragment, scattered balloon inflate, release, then
`compact_memory` and 100 order-9 allocations through guestmm_highalloc)
with guestmm's probes loaded (`guestmm-stat load`) and not.  The metric is
the guest-side wall time of the compaction phase; the goal is <= 2 %.
Under TCG the clock source is HPET (the TSC is marked unstable), so the
probes' per-folio clock reads cost far more than on hardware; `-x
move_folio` drops them and is measured as a third variant.
"""

import workloads

GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"])

VARIANTS = [
    dict(name="no-probes", guest=GUEST, needs=["guestmm_highalloc"]),
    dict(name="probes", guest=GUEST, load="guestmm-stat load",
         needs=["guestmm_highalloc"]),
    dict(name="probes-x-move_folio", guest=GUEST,
         load="guestmm-stat load -x move_folio",
         needs=["guestmm_highalloc"]),
]

METRICS = [
    ("compaction_s", "compact_memory + 100 order-9 allocations, s",
     "lower"),
    ("pgmigrate_success", "pages migrated", "info"),
]

PROBE = "/sys/kernel/debug/guestmm_highalloc/alloc"

def measure(g, variant):
    g.sh("modprobe guestmm_highalloc")
    if variant.get("load"):
        g.sh(variant["load"])
    workloads.scattered_inflate(g, 256)
    v0 = g.vmstat()
    # Timed inside the guest: the command channel's latency stays out.
    out = g.sh("t0=$(cut -d' ' -f1 /proc/uptime); "
               "echo 1 > /proc/sys/vm/compact_memory; "
               "echo 100 > %s; t1=$(cut -d' ' -f1 /proc/uptime); "
               "echo \"$t0 $t1\"; echo 0 > %s" % (PROBE, PROBE), timeout=900)
    t0, t1 = (float(x) for x in out.split()[-2:])
    return {"compaction_s": t1 - t0,
            "pgmigrate_success": g.vmstat()["pgmigrate_success"] -
            v0["pgmigrate_success"]}

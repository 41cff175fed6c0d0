"""Live migration of a ballooned, busy guest: time, downtime, RAM sent, what the destination backs

The steps of balloon_live_migration (tests/lib/migration.py): a 1 GiB
and 8 KiB, 2-vCPU guest with deflate-on-oom and free page reporting, a
200 MiB pattern held, 300 MiB scattered by frag, the balloon 256 MiB
down and settled; then a migration to a second QEMU on this host over
a unix socket (max-bandwidth 256 MiB/s) while the guest runs
compact_memory five times and writes a 100 MiB pattern, and the host
lowers the target by 64 MiB more.  Measured from the source's
query-migrate: total time, downtime, RAM transferred; on the
destination, once the balloon is at its target: the balloon pages the
host backs (from QEMU's page table, the host's zero page not counted:
tests/lib/residency.py), as a count and as a share of the balloon, and
the destination QEMU's Rss.  The -hint variants add free-page-hint=on
(with an iothread).  QEMU runs without host THP (residency needs it),
so the Rss is what the guest's pages cost in 4 KiB pages.  The RAM size
is 8 KiB over 1 GiB because QEMU 7.2 under TCG corrupts migrations of
RAM of a multiple of 256 KiB (docs/balloon.md, "Live migration").
"""
import migration  # tests/lib: bench/run puts it on sys.path
import residency

MIB = 1 << 20
BALLOON = {"deflate-on-oom": "on", "free-page-reporting": "on"}
HINT = dict(BALLOON, **{"free-page-hint": "on", "iothread": "io0"})
GUEST = dict(mem=1024, ram_extra_kb=8, smp=2, balloon=BALLOON, mods=[],
             host_thp=False)
GUEST_HINT = dict(GUEST, balloon=HINT, objects=["iothread,id=io0"])
REPS = 3

VARIANTS = [
    dict(name="stock", guest=GUEST, load="modprobe virtio_balloon"),
    dict(name="guestmm", guest=GUEST, load="modprobe guestmm_balloon",
         needs=["guestmm_balloon"]),
    dict(name="guestmm-chunk0", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon"]),
    dict(name="stock-hint", guest=GUEST_HINT, load="modprobe virtio_balloon"),
    dict(name="guestmm-hint", guest=GUEST_HINT,
         load="modprobe guestmm_balloon", needs=["guestmm_balloon"]),
    dict(name="guestmm-chunk0-hint", guest=GUEST_HINT,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon"]),
]

METRICS = [
    ("total_ms", "migration total time, ms", "lower"),
    ("downtime_ms", "downtime, ms", "lower"),
    ("sent_mib", "RAM transferred, MiB", "lower"),
    ("balloon_backed", "balloon pages backed on the destination", "lower"),
    ("balloon_backed_pct", "... as % of the balloon", "lower"),
    ("dest_rss_mib", "destination QEMU Rss, MiB", "lower"),
    ("source_rss_mib", "source QEMU Rss before the migration, MiB", "info"),
    ("entered", "pages that entered the balloon during the migration",
     "info"),
    ("used_unbacked", "used guest pages the destination does not back",
     "lower"),
    ("compactions_on_source", "compact_memory runs begun before the switch",
     "info"),
]


def measure(g, variant):
    target = migration.prepare(g, variant["load"])
    source_rss = g.qemu_memory()["Rss"] / 1024.0
    mig, target = migration.migrate_busy(g, target, label=variant["name"])
    migration.settle(g, target)
    res, _, _ = residency.compare(g, twice=True)
    migration.verify_pattern(g, variant["name"])
    return {
        "total_ms": mig["total_ms"],
        "downtime_ms": mig["downtime_ms"],
        "sent_mib": mig["ram_transferred"] / float(MIB),
        "balloon_backed": res["balloon_backed"],
        "balloon_backed_pct": 100.0 * res["balloon_backed"] /
        max(1, res["balloon"]),
        "dest_rss_mib": g.qemu_memory()["Rss"] / 1024.0,
        "source_rss_mib": source_rss,
        "entered": mig["balloon_entered"],
        "used_unbacked": res["used_unbacked"],
        "compactions_on_source": mig["compactions_on_source"],
    }

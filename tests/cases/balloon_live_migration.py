# SPDX-License-Identifier: GPL-2.0
"""Live migration of a ballooned, busy guest to a second QEMU: on the destination no page of a 200 MiB pattern (nor of 100 MiB written during the migration) is lost, the balloon is exactly at its target, the host backs every used page and no balloon page but those taken during the migration, and a full deflate works (guestmm default, chunk_order=0, free page hinting; stock virtio_balloon as the control).

Only on guests whose RAM is not a multiple of 256 KiB (1 GiB + 8 KiB):
this machine's QEMU 7.2 under TCG loses guest writes when it migrates
such RAM, with or without a balloon, on one TCG thread or several
(docs/balloon.md, "Live migration"; Guest.migrate() refuses it)."""
import os

import migration
from balloonlib import state

BALLOON = {"deflate-on-oom": "on", "free-page-reporting": "on"}
# 1 GiB and 8 KiB: QEMU 7.2 under TCG loses guest writes when it migrates
# RAM of a multiple of 256 KiB (Guest.migrate(), docs/balloon.md "Live
# migration"); the 8 KiB make it track every page.
GUEST = dict(mem=1024, ram_extra_kb=8, smp=2, balloon=BALLOON, mods=[],
             host_thp=False)
KERNELS = ("6.1", "6.12")
SOAK = os.environ.get("GUESTMM_SOAK") == "1"
# make soak: this many migrations per kernel, spread over the variants.
SOAK_MIGRATIONS = 20
TIMEOUT = 3600 if SOAK else 600

# The first runs in the guest tests/run booted (GUEST); each other in a
# guest of its own, booted here the same way with its own device.
VARIANTS = [
    dict(name="guestmm", load="modprobe guestmm_balloon"),
    dict(name="guestmm_chunk0", load="modprobe guestmm_balloon chunk_order=0"),
    dict(name="guestmm_hint", load="modprobe guestmm_balloon",
         balloon=dict(BALLOON, **{"free-page-hint": "on", "iothread": "io0"}),
         objects=["iothread,id=io0"]),
    dict(name="stock", load="modprobe virtio_balloon"),
]


def one(g, v, migrations):
    """The variant's steps in g, with `migrations` migrations in a row
    (the destination of one is the source of the next)."""
    target = migration.prepare(g, v["load"])
    migration.residency.check(g, "%s_source" % v["name"])
    for n in range(migrations):
        label = "%s_%d" % (v["name"], n + 1)
        mig, target = migration.migrate_busy(g, target, label=label)
        # The compactions began while the source still ran.
        assert mig["compactions_on_source"] >= 1, mig
        migration.check(g, target, mig, label=label)
        if n + 1 < migrations:
            # Back to the variant's starting point for the next one.
            target = g.ram_bytes() - migration.INFLATE_MIB * migration.MIB
            g.balloon(target)
            migration.settle(g, target)
    migration.stop_pattern(g)
    if v["name"] == "guestmm_hint":
        # Every migration ran a hinting round, and DONE gave all back.
        st = state(g)
        print("KEY migration %s %s" % (v["name"], " ".join(
            "%s=%d" % kv for kv in sorted(st.items())
            if kv[0].startswith("hint_"))))
        assert st["hint_runs"] >= migrations and st["hint_blocks"] > 0, st
        assert st["hint_blocks_held"] == 0, st
        assert st["hint_blocks_returned"] == st["hint_blocks"], st


def run(g):
    per = max(1, SOAK_MIGRATIONS // len(VARIANTS)) if SOAK else 1
    failed = []
    for i, v in enumerate(VARIANTS):
        if i == 0:
            one(g, v, per)
            continue
        other = migration.boot_like(g, v["name"], balloon=v.get("balloon"),
                                    objects=v.get("objects"))
        try:
            one(other, v, per)
            problems = other.problems()
            assert not problems, "%s: kernel log problems:\n  %s" % (
                v["name"], "\n  ".join(problems[:20]))
        except Exception as e:
            failed.append("%s: %s" % (v["name"], str(e)[:3000]))
        finally:
            other.stop()
    assert not failed, "\n".join(failed)

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon under load: inflate/deflate cycles and rmmod while compaction keeps migrating balloon pages; no page lost (a 64 MiB pattern checked page by page, the host's residency at every settled target), no kernel warning."""
import integrity
from workloads import frag_start

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[], host_thp=False)
TIMEOUT = 900
LIGHT = True

MIB = 1 << 20
# 4 KiB pages; balloon_chunk_stress runs the same procedure with
# chunk_order=9 (the default).
LOAD = "modprobe guestmm_balloon chunk_order=0 batch_pages=64"
FRAG_MIB = 300
MIN_MIGRATED = 1


def run(g):
    ram = g.mem * MIB
    g.sh(LOAD)
    boot_total = g.meminfo()["MemTotal"]
    vm0 = g.vmstat()
    integrity.hold(g)
    frag_start(g, FRAG_MIB)
    g.sh("(while :; do echo 1 > /proc/sys/vm/compact_memory; done) "
         ">/dev/null 2>&1 & echo $! > /tmp/compact.pid")

    for mib in (100, 300, 50, 250, 0, 200):
        g.balloon(ram - mib * MIB)
        g.wait_balloon(ram - mib * MIB, timeout=300)
        integrity.settled(g, "target_%d" % mib)
        if mib == 250:
            # Free the filler mid-run so compaction has room to work.
            g.sh("kill $(cat /tmp/frag.pid)")

    # Unload with 200 MiB inflated while compaction is still running.
    g.sh("rmmod guestmm_balloon", timeout=300)
    g.sh("kill $(cat /tmp/compact.pid); sleep 2")
    integrity.settled(g, "unloaded")
    integrity.stop_pattern(g)
    vm1 = g.vmstat()
    infl = vm1["balloon_inflate"] - vm0["balloon_inflate"]
    defl = vm1["balloon_deflate"] - vm0["balloon_deflate"]
    migr = vm1["balloon_migrate"] - vm0["balloon_migrate"]
    print("KEY balloon_stress inflated=%d deflated=%d migrated=%d" %
          (infl, defl, migr))
    assert infl == defl, (infl, defl)
    assert migr >= MIN_MIGRATED, "compaction never migrated a balloon page"
    assert g.meminfo()["MemTotal"] == boot_total
    assert g.query_balloon() == ram

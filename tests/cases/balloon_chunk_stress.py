# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon chunk_order=9 under load: inflate/deflate cycles and rmmod while compaction keeps migrating strays; every page leaves the driver's movable_operations before unload, no page lost (a pattern checked page by page, the host's residency at every settled target), no kernel warning."""
from balloonlib import sibling_case

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[], host_thp=False)
TIMEOUT = 900
LIGHT = True

# Same procedure as balloon_stress_migrate; more filler, so that part of
# the balloon has to be strays that compaction can move.
_stress = sibling_case("balloon_stress_migrate")


def run(g):
    _stress.LOAD = "modprobe guestmm_balloon chunk_order=9"
    _stress.FRAG_MIB = 700
    # Most of the balloon is complete blocks, which compaction may not
    # move; how many strays it meets depends on the layout (0-20 seen), so
    # this variant is about safety, not about the count.
    _stress.MIN_MIGRATED = 0
    _stress.run(g)
    # Compaction kept running up to the unload: it must not have touched
    # freed module text.  Load again and check a fresh instance works.
    g.sh("echo 1 > /proc/sys/vm/compact_memory")
    g.sh("modprobe guestmm_balloon chunk_order=9")
    g.sh("rmmod guestmm_balloon")

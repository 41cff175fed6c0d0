# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon movable=0: pinned balloon pages in fragmented memory are never migrated by compact_memory (the pre-3.8 behaviour)."""
from balloonlib import sibling_case

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
LIGHT = True
MOVABLE = 0

# Same procedure as the movable case; only the parameter differs.
_movable = sibling_case("balloon_compaction_movable")


def run(g):
    _movable.MOVABLE = MOVABLE
    _movable.run(g)

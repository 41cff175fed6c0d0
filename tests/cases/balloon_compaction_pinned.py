# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon movable=0: pinned balloon pages in fragmented memory are never migrated by compact_memory (the pre-3.8 behaviour)."""
import importlib.util
import os

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
MOVABLE = 0

# Same procedure as the movable case; only the parameter differs.
_spec = importlib.util.spec_from_file_location(
    "balloon_compaction_movable",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "balloon_compaction_movable.py"))
_movable = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_movable)


def run(g):
    _movable.MOVABLE = MOVABLE
    _movable.run(g)

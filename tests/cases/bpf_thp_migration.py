# SPDX-License-Identifier: GPL-2.0
"""BPF probes, THP migration (seed 004): move_pages of 1x4K, 1 THP and 512x4K between two nodes; the THP moves whole and the probes match vmstat."""
import json
import re

import bpfcheck

GUEST = dict(mem=1024, smp=2, numa=2, balloon=None)
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
TIMEOUT = 600
LIGHT = True

ITERS = 8


def move(g, case):
    before = bpfcheck.snapshot(g)
    out = g.sh("thp_move %d %s" % (ITERS, case), timeout=300)
    after = bpfcheck.snapshot(g)
    m = re.search(r"THPMOVE case=%s .*" % case, out)
    assert m, out
    res = dict(kv.split("=") for kv in m.group(0).split()[1:])
    print("KEY thp_move " + m.group(0)[len("THPMOVE "):])
    assert int(res["ok"]) == ITERS, out
    d = bpfcheck.assert_exact(before, after, bpfcheck.MIGRATION)
    return before[0], after[0], d, res


def run(g):
    # -f: the folio counts and histograms below need per-folio timing.
    g.sh("guestmm-stat load -f")
    assert json.loads(g.sh("guestmm-stat show -j"))["thp_migration"][
        "folio_timing"] is True
    bpfcheck.quiesce(g)

    b0, b1, d, _ = move(g, "thp")
    # Moved whole: one THP per iteration, nothing split or failed.
    assert d["thp_migration_success"] == (ITERS, ITERS), d
    assert d["thp_migration_split"] == (0, 0), d
    assert d["thp_migration_fail"] == (0, 0), d
    assert d["pgmigrate_success"][0] == ITERS * 512, d
    t0, t1 = b0["thp_migration"], b1["thp_migration"]
    assert t1["folios_moved_thp"] - t0["folios_moved_thp"] == ITERS, (t0, t1)
    assert t1["set_migration_pmd"] - t0["set_migration_pmd"] == ITERS, (t0, t1)
    assert t1["remove_migration_pmd"] - t0["remove_migration_pmd"] == ITERS
    # MR_SYSCALL: move_pages(2), migrate_pages(2), cpusets
    sc = [m for m in b1["migrate"] if m["reason"] == "syscall"][0]
    sc0 = [m for m in b0["migrate"] if m["reason"] == "syscall"][0]
    assert sc["thp_succeeded"] - sc0["thp_succeeded"] == ITERS, (sc0, sc)
    thp_hist = (b1["histograms"]["folio_migration"]["thp"]["count"] -
                b0["histograms"]["folio_migration"]["thp"]["count"])
    assert thp_hist == ITERS, thp_hist

    b0, b1, d, _ = move(g, "base512")
    assert d["pgmigrate_success"] == (ITERS * 512, ITERS * 512), d
    assert d["thp_migration_success"] == (0, 0), d
    base = (b1["thp_migration"]["folios_moved_base"] -
            b0["thp_migration"]["folios_moved_base"])
    assert base == ITERS * 512, base

    b0, b1, d, _ = move(g, "base1")
    assert d["pgmigrate_success"] == (ITERS, ITERS), d
    g.sh("guestmm-stat unload")

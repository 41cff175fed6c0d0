# SPDX-License-Identifier: GPL-2.0
"""BPF probes: over fragmentation, direct compaction, compact_memory and a stock-balloon inflate/deflate, every counter equals its /proc/vmstat delta exactly."""

import bpfcheck

GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"])
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
TIMEOUT = 900
LIGHT = True


def run(g):
    out = g.sh("guestmm-stat load")
    assert "guestmm probes loaded" in out, out
    bpfcheck.quiesce(g)
    before = bpfcheck.snapshot(g)

    # Direct compaction that succeeds and fails, and compact_memory.
    bpfcheck.direct_compaction_workload(g, compact=True)

    after = bpfcheck.snapshot(g)
    d = bpfcheck.assert_exact(before, after, bpfcheck.COMPACTION +
                              bpfcheck.MIGRATION + bpfcheck.BALLOON)

    # The workload really exercised what is compared.
    assert d["compact_stall"][1] > 0, d
    assert d["compact_migrate_scanned"][1] > 0, d
    assert d["compact_free_scanned"][1] > 0, d
    assert d["pgmigrate_success"][1] > 0, d
    assert d["balloon_inflate"][1] == 128 * 256, d
    assert d["balloon_deflate"][1] == 128 * 256, d

    # Internal consistency: one direct-stall histogram sample per stall,
    # one pass-latency sample per compaction pass.
    b0, b1 = before[0], after[0]
    hd = lambda j: sum(h["count"] for h in
                       j["histograms"]["direct_compaction_stall"].values())
    assert hd(b1) - hd(b0) == d["compact_stall"][0], (hd(b0), hd(b1))
    hp = lambda j: sum(h["count"] for h in
                       j["histograms"]["compaction_pass"].values())
    assert hp(b1) - hp(b0) == b1["compact"]["end"] - b0["compact"]["end"]
    assert b1["compact"]["kind"]["direct"] > b0["compact"]["kind"]["direct"]
    assert b1["compact"]["kind"]["manual"] > b0["compact"]["kind"]["manual"]

    # bpftool prints the maps with their BTF field names.
    dump = g.sh("bpftool map dump pinned /sys/fs/bpf/guestmm/compact")
    for field in ("\"migrate_scanned\"", "\"free_scanned\"", "\"status\"",
                  "\"kind\""):
        assert field in dump, dump
    dump = g.sh("bpftool map dump pinned /sys/fs/bpf/guestmm/balloon")
    assert "\"inflate\": %d" % b1["balloon"]["inflate"] in dump, dump

    human = g.sh("guestmm-stat show")
    assert "direct compaction stall, order 9" in human, human
    g.sh("guestmm-stat unload")

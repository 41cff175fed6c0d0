# SPDX-License-Identifier: GPL-2.0
"""BPF probes with guestmm_balloon: its tracepoints are attached when loaded; balloon counters (movable=1, 4 KiB) and tracepoint sums (4 KiB movable=1 and 0, and the default 2 MiB chunks) equal /proc/vmstat."""

import bpfcheck

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
KERNELS = ("6.1", "6.12")
TIMEOUT = 900
LIGHT = True

MIB = 1 << 20
EV = "guestmm_balloon:guestmm_balloon_"


def unload_then_rmmod(g):
    # A link's module reference is dropped after an RCU grace period
    # (6.12 defers it), so rmmod may need a moment after the unload.
    g.sh("guestmm-stat unload && for i in $(seq 50); do "
         "rmmod guestmm_balloon 2>/dev/null && exit 0; sleep 0.1; done; "
         "rmmod guestmm_balloon")


def run(g):
    ram = g.mem * MIB
    # Loaded before the module: module tracepoints are skipped, and say so.
    out = g.sh("guestmm-stat load -m")
    assert "module tracepoints: skipped" in out, out
    g.sh("modprobe guestmm_balloon chunk_order=0")
    # A second load attaches the tracepoints that appeared.
    out = g.sh("guestmm-stat load -m")
    assert "4 newly attached" in out, out
    bpfcheck.quiesce(g)
    before = bpfcheck.snapshot(g)

    bpfcheck.balloon_workload(g, 128)

    after = bpfcheck.snapshot(g)
    d = bpfcheck.assert_exact(before, after, bpfcheck.BALLOON +
                              bpfcheck.COMPACTION + bpfcheck.MIGRATION)
    assert d["balloon_inflate"][1] == 128 * 256, d

    m0, m1 = before[0]["module_events"], after[0]["module_events"]
    for ev, key in (("inflate", "balloon_inflate"),
                    ("deflate", "balloon_deflate")):
        got = m1[EV + ev]["sum"] - m0[EV + ev]["sum"]
        assert got == d[key][1], (ev, got, d[key])
    migrated = m1[EV + "migrate"]["count"] - m0[EV + "migrate"]["count"]
    assert migrated >= d["balloon_migrate"][1], (migrated, d)

    # The links hold the module; unload releases it.
    g.sh("rmmod guestmm_balloon", check=False)
    assert g.last_rc != 0
    unload_then_rmmod(g)

    # movable=0, and 2 MiB chunks (the default): pages bypass
    # balloon_compaction's enqueue and dequeue (chunks have their own
    # movable_ops), so only the module's own tracepoints see them, and
    # their sums still equal vmstat.
    for params in ("movable=0 chunk_order=0", ""):
        g.sh("modprobe guestmm_balloon %s" % params)
        assert "4 newly attached" in g.sh("guestmm-stat load -m")
        before = bpfcheck.snapshot(g)
        g.balloon(ram - 64 * MIB)
        g.wait_balloon(ram - 64 * MIB, timeout=300)
        g.balloon(ram)
        g.wait_balloon(ram, timeout=300)
        after = bpfcheck.snapshot(g)
        d = bpfcheck.deltas(before, after, bpfcheck.BALLOON)
        assert d["balloon_inflate"] == (0, 64 * 256), (params, d)
        m0, m1 = before[0]["module_events"], after[0]["module_events"]
        for ev, key in (("inflate", "balloon_inflate"),
                        ("deflate", "balloon_deflate")):
            got = m1[EV + ev]["sum"] - m0[EV + ev]["sum"]
            assert got == d[key][1], (params, ev, got, d[key])
        unload_then_rmmod(g)

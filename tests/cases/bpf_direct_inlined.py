# SPDX-License-Identifier: GPL-2.0
"""BPF probes: the direct-compaction figures counted around try_to_compact_pages() and get_page_from_freelist(), as on kernels that inline __alloc_pages_direct_compact() (7.2+), forced here with load -x direct_compact: compact_stall/success/fail equal their /proc/vmstat deltas exactly, one histogram sample per stall, and status and show name the source."""

import bpfcheck

GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"])
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
TIMEOUT = 900
LIGHT = True
# Workload rounds at most (see run()).
ROUNDS = 3

DIRECT = ["compact_stall", "compact_success", "compact_fail"]
TC_PROGS = ("direct_tc_entry", "direct_tc_exit", "direct_tc_freelist")
ADC_PROGS = ("direct_compact_entry", "direct_compact_exit",
             "try_to_compact_exit")


def run(g):
    out = g.sh("guestmm-stat load -x direct_compact")
    assert "guestmm probes loaded" in out, out
    links = g.sh("ls /sys/fs/bpf/guestmm/links").split()
    assert all(p in links for p in TC_PROGS), links
    assert not any(p in links for p in ADC_PROGS), links
    status = g.sh("guestmm-stat status")
    assert "direct compaction: try_to_compact_pages" in status, status
    bpfcheck.quiesce(g)
    before = bpfcheck.snapshot(g)

    # As bpf_counters_vmstat, without its compact_memory.  One round
    # sometimes ends with every stall a success (about 60 of them, the
    # rest of the allocations skipped compaction); it is run again, up to
    # ROUNDS times, until the stalls include a failure as well.
    for rounds in range(1, ROUNDS + 1):
        bpfcheck.direct_compaction_workload(g)
        vm = g.vmstat()
        if vm["compact_fail"] > before[1]["compact_fail"] and \
                vm["compact_success"] > before[1]["compact_success"]:
            break
    print("KEY bpf_direct_inlined rounds=%d" % rounds)

    after = bpfcheck.snapshot(g)
    d = bpfcheck.assert_exact(before, after, DIRECT)
    assert d["compact_stall"][1] > 0, d
    assert d["compact_success"][1] > 0 and d["compact_fail"][1] > 0, d

    b0, b1 = before[0], after[0]
    hd = lambda j: sum(h["count"] for h in
                       j["histograms"]["direct_compaction_stall"].values())
    assert hd(b1) - hd(b0) == d["compact_stall"][0], (hd(b0), hd(b1))
    human = g.sh("guestmm-stat show")
    assert "direct compaction by order (try_to_compact_pages)" in human, human
    g.sh("guestmm-stat unload")

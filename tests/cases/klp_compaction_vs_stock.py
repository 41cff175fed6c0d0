"""Compaction under a fragmenting workload goes through guestmm_klp (its
counters move) and frees 2 MiB blocks as stock does (6.1, 6.12): the same boot
alternates stock and patched runs (six each) of frag + compact_memory and
frag + order-9 allocations (direct compaction, where the free-list search
works); the patched runs must not lie below the stock ones as a whole
(one-sided Mann-Whitney, p < 0.005), and the best patched run must reach
half of stock's best."""
import re

from abstats import mann_whitney_u, not_systematically_below
from klplib import LP, klp_stats, modprobe_klp, wait_transition

import workloads
from workloads import free_huge_blocks

# One TCG thread: every livepatch transition on 6.12 re-points the
# cond_resched() static call at each of its inline call sites and back
# (sched_dynamic_klp_enable()), text_poke_bp() on code the other vCPU is
# running.  QEMU 7.2's multi-threaded TCG has let a vCPU take the int3 of
# such a site after the patching ended (6.12, force_qs_rnp(): "Fatal
# exception in interrupt"); see tcg_single in scripts/guest/guest.py.
GUEST = dict(mem=1024, smp=2, balloon=None,
             mods=["guestmm_highalloc"], tcg_single=True)
KERNELS = ("6.1", "6.12")
TIMEOUT = 1500

HA = "/sys/kernel/debug/guestmm_highalloc/alloc"
T = "/sys/kernel/tracing"
END = T + "/events/compaction/mm_compaction_end"
ROUNDS = 6
FRAG_MIB = 700
ALLOCS = 200


def klp_on(g):
    modprobe_klp(g)
    wait_transition(g, timeout=60)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"


def klp_off(g):
    g.sh("echo 0 > %s/enabled" % LP)
    wait_transition(g, timeout=60)
    g.sh("rmmod guestmm_klp && rmmod guestmm_klp_trace")
    assert g.sh("test -d %s; echo $?" % LP).strip() == "1"


def frag_start(g):
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    workloads.frag_start(g, FRAG_MIB)


def one_run(g):
    """Two phases, each on a layout of its own so neither inherits the
    other's work: frag + compact_memory, then frag + ALLOCS order-9
    allocations (direct compaction, where the free-list search works).
    Returns the numbers."""
    vm_first = g.vmstat()
    frag_start(g)
    vm0, huge0 = g.vmstat(), free_huge_blocks(g)
    g.sh("echo > %s/trace" % T)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=600)
    vm1, huge1 = g.vmstat(), free_huge_blocks(g)
    ends = re.findall(r"status=(\w+)", g.sh("cat %s/trace" % T))
    workloads.frag_stop(g)

    frag_start(g)
    g.sh("echo 0 > " + HA)
    vm2 = g.vmstat()
    g.sh("echo %d > %s" % (ALLOCS, HA), timeout=900)
    ha = dict(kv.split("=") for kv in g.sh("cat " + HA).split())
    vm3 = g.vmstat()
    g.sh("echo 0 > " + HA)
    workloads.frag_stop(g)
    vm_last = g.vmstat()

    def delta(a, b, key):
        return b[key] - a[key]
    return dict(
        cm_free2m_before=huge0, cm_free2m_after=huge1,
        cm_ends="/".join(ends),
        cm_free2m_gain=huge1 - huge0,
        cm_migrate_scanned=delta(vm0, vm1, "compact_migrate_scanned"),
        cm_free_scanned=delta(vm0, vm1, "compact_free_scanned"),
        ha_success=int(ha["success"]), ha_attempts=int(ha["attempts"]),
        ha_total_us=int(ha["total_us"]),
        ha_migrate_scanned=delta(vm2, vm3, "compact_migrate_scanned"),
        ha_free_scanned=delta(vm2, vm3, "compact_free_scanned"),
        all_migrate_scanned=delta(vm_first, vm_last,
                                  "compact_migrate_scanned"))


def run(g):
    # On for the whole case, switched on while the guest is idle: turning
    # a trace event on or off patches kernel text (text_poke_bp), and
    # doing that while the other vCPU compacts has hung this 2-vCPU TCG
    # guest (one vCPU stuck entering the int3 handler, the other waiting
    # for it in smp_call_function_many_cond(): soft lockup, 6.1).
    g.sh("echo 1 > %s/enable" % END)
    # Warm-up, not counted: the first layout after boot is the boot's.
    print("KEY klp_vs_stock warmup %s" % " ".join(
        "%s=%s" % kv for kv in sorted(one_run(g).items())))
    res = {"stock": [], "klp": []}
    for r in range(ROUNDS):
        # Alternate which mode goes first: each inherits the other's
        # memory history as often.
        for mode in (("stock", "klp"), ("klp", "stock"))[r % 2]:
            if mode == "klp":
                klp_on(g)
                s0 = klp_stats(g)
            d = one_run(g)
            if mode == "klp":
                s1 = klp_stats(g)
                d["klp_runs"] = s1["runs"] - s0["runs"]
                for k in ("fast_hit", "fast_miss", "score_scanned",
                          "finish_rescans", "blocks_isolated"):
                    d["klp_" + k] = s1[k] - s0[k]
                d["klp_migrate_scanned"] = (s1["migrate_scanned"] -
                                            s0["migrate_scanned"])
                d["klp_vm_migrate_scanned"] = d["all_migrate_scanned"]
                klp_off(g)
            res[mode].append(d)
            print("KEY klp_vs_stock round=%d mode=%s %s" % (
                r, mode, " ".join("%s=%s" % kv for kv in sorted(d.items()))))

    def total(mode, key):
        return sum(d[key] for d in res[mode])

    def best(mode, key):
        return max(d[key] for d in res[mode])

    # compact_memory ends once per populated zone, patched or not: the
    # kernel's mm_compaction_end still fires from our compact_zone.
    n_ends = {len(d["cm_ends"].split("/")) for d in res["stock"] + res["klp"]}
    assert len(n_ends) == 1 and "" not in {d["cm_ends"] for d in
                                           res["stock"] + res["klp"]}, res
    for d in res["klp"]:
        # Everything went through our compact_zone: it ran, and all of
        # compact_migrate_scanned came from it.
        assert d["klp_runs"] > 0, d
        assert d["klp_migrate_scanned"] == d["klp_vm_migrate_scanned"], d
    for key in ("cm_free2m_after", "cm_free2m_gain", "ha_success",
                "cm_migrate_scanned", "cm_free_scanned",
                "ha_migrate_scanned", "ha_free_scanned", "ha_total_us"):
        print("KEY klp_vs_stock_total key=%s stock=%d klp=%d "
              "best_stock=%d best_klp=%d" % (
                  key, total("stock", key), total("klp", key),
                  best("stock", key), best("klp", key)))
    # Comparable results.  A single run is noisy, and compact_memory's is
    # bimodal on stock and patched kernels alike: in about one run in four
    # the scanners meet early and it gains almost nothing (docs/balloon.md,
    # "Where compaction reaches"; 6.12, ten rounds each on a quiet host,
    # 2026-12-01: stock gained 5..132 blocks, klp 0..138, order-9 successes
    # 169..193 and 153..190).  Comparing the best run of each mode within
    # 15 % fails on such noise (6.12: klp's best 164, stock's 193,
    # where the two modes run the same code with candidates=1).  So: the
    # patched runs must not lie below stock's as a whole, by the rank test
    # that two samples of one distribution fail with probability 0.005
    # (with six runs each: at most one of 36 pairs has klp ahead), and a
    # patch that frees nothing must fail outright: klp's best reaches half
    # of stock's.  How far apart they are is bench/compaction_scanner's job.
    for key in ("cm_free2m_gain", "ha_success"):
        k = [d[key] for d in res["klp"]]
        s = [d[key] for d in res["stock"]]
        print("KEY klp_vs_stock_rank key=%s u=%.1f of %d" % (
            key, mann_whitney_u(k, s), len(k) * len(s)))
        assert not_systematically_below(k, s), (key, res)
        assert max(k) >= 0.5 * max(s), (key, res)

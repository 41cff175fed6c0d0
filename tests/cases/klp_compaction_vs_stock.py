"""Compaction under a fragmenting workload goes through guestmm_klp (its
counters move) and frees as many 2 MiB blocks as stock 6.1: the same boot
alternates stock and patched runs of frag + compact_memory + order-9
allocations (direct compaction, where the free-list search works)."""
import time

from klplib import LP, klp_stats, wait_transition

from workloads import free_huge_blocks

GUEST = dict(mem=1024, smp=2, balloon=None,
             mods=["guestmm_highalloc"])
KERNELS = ("6.1",)
TIMEOUT = 1500

HA = "/sys/kernel/debug/guestmm_highalloc/alloc"
ROUNDS = 2
FRAG_MIB = 700
ALLOCS = 200


def klp_on(g):
    g.sh("modprobe guestmm_klp")
    wait_transition(g, timeout=60)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"


def klp_off(g):
    g.sh("echo 0 > %s/enabled" % LP)
    wait_transition(g, timeout=60)
    g.sh("rmmod guestmm_klp && rmmod guestmm_klp_trace")
    assert g.sh("test -d %s; echo $?" % LP).strip() == "1"


def one_run(g):
    """frag, order-9 allocations (direct compaction), then compact_memory;
    returns the numbers."""
    g.sh("echo 3 > /proc/sys/vm/drop_caches; echo 0 > " + HA)
    g.sh("frag %d > /tmp/frag.out 2>&1 &" % FRAG_MIB)
    deadline = time.monotonic() + 300
    while "FRAG ready" not in g.sh("cat /tmp/frag.out"):
        assert time.monotonic() < deadline, "frag did not get ready"
        time.sleep(1)
    vm0, huge0 = g.vmstat(), free_huge_blocks(g)
    g.sh("echo %d > %s" % (ALLOCS, HA), timeout=900)
    ha = dict(kv.split("=") for kv in g.sh("cat " + HA).split())
    g.sh("echo 0 > " + HA)
    vm1, huge1 = g.vmstat(), free_huge_blocks(g)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=600)
    vm2, huge2 = g.vmstat(), free_huge_blocks(g)
    g.sh("killall frag; sleep 1; true")
    return dict(
        free2m_start=huge0, free2m_before_cm=huge1, free2m_after=huge2,
        ha_success=int(ha["success"]), ha_attempts=int(ha["attempts"]),
        ha_total_us=int(ha["total_us"]),
        ha_migrate_scanned=vm1["compact_migrate_scanned"] -
        vm0["compact_migrate_scanned"],
        ha_free_scanned=vm1["compact_free_scanned"] -
        vm0["compact_free_scanned"],
        cm_migrate_scanned=vm2["compact_migrate_scanned"] -
        vm1["compact_migrate_scanned"],
        cm_free_scanned=vm2["compact_free_scanned"] -
        vm1["compact_free_scanned"])


def run(g):
    res = {"stock": [], "klp": []}
    for r in range(ROUNDS):
        for mode in ("stock", "klp"):
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
                d["klp_vm_migrate_scanned"] = (d["cm_migrate_scanned"] +
                                               d["ha_migrate_scanned"])
                klp_off(g)
            res[mode].append(d)
            print("KEY klp_vs_stock round=%d mode=%s %s" % (
                r, mode, " ".join("%s=%s" % kv for kv in sorted(d.items()))))

    def total(mode, key):
        return sum(d[key] for d in res[mode])

    for d in res["klp"]:
        # Everything went through our compact_zone: it ran, and all of
        # compact_migrate_scanned came from it.
        assert d["klp_runs"] > 0, d
        assert d["klp_migrate_scanned"] == d["klp_vm_migrate_scanned"], d
    for key in ("free2m_after", "ha_success", "cm_migrate_scanned",
                "cm_free_scanned", "ha_migrate_scanned", "ha_free_scanned",
                "ha_total_us"):
        print("KEY klp_vs_stock_total key=%s stock=%d klp=%d" % (
            key, total("stock", key), total("klp", key)))
    # Comparable results: free 2 MiB blocks after compact_memory and
    # order-9 allocation successes within 15 % of stock (or better).
    assert total("klp", "free2m_after") >= 0.85 * total("stock",
                                                        "free2m_after"), res
    assert total("klp", "ha_success") >= 0.85 * total("stock",
                                                      "ha_success"), res

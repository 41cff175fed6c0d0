"""The 2011 review of the unmapped page cache control, answered with data (seed 001)

KOSAKI's review of Balbir Singh's patch raised three objections.  Each
phase below measures one, in one boot per variant: a 1 GiB, 2-vCPU TCG
guest split into two NUMA nodes of 512 MiB (vCPU 0 on node 0, vCPU 1 on
node 1), an ext4 virtio disk, no balloon.  guestmm_klp is loaded in both
variants; only unmapped_page_control differs.

1. The allocator fast path.  The control adds no code to the allocator;
   what it adds on a hot path is its probe on page cache insertion (the
   mm_filemap_add_to_page_cache tracepoint, which looks at the node's
   counters).  With max_unmapped_ratio=90 the node never goes over, so
   the policy never runs, and what is left is the probe and the patched
   kswapd predicates.  The control is turned off and on alternately,
   FAST_ROUNDS times in each boot (both variants' boots do this phase
   alike), on the guest's clock:
   - anon: 5 x 200 MiB written to tmpfs and removed (page allocations and
     frees, no page cache);
   - cache: a 300 MiB file read after drop_caches (page cache insertions,
     the probe's path).
2. may_unmap scanning.  The policy reclaims with may_unmap off, so mapped
   folios are skipped, not reclaimed; the objection is the cost of
   walking past them.  A 200 MiB file is mapped and touched (mincore_hold,
   kept resident), then a 600 MiB file is stream-read twice with
   max_unmapped_ratio=10: the mapped folios are the oldest, at the
   inactive tail.  Figures: the policy's pages scanned, reclaimed and
   skipped as mapped, its time in reclaim (time_ns), and the mapped file's
   residency at the end (must stay 100 %).
3. Multi-node behaviour (zone_reclaim_mode's pathology: an allocation
   reclaims its local node's cache while the other node has free memory,
   in the allocating task).  With ratio 10, a reader pinned to vCPU 0
   reads 400 MiB.  Figures: direct reclaim (allocstall), numa_miss (local
   allocations that fell back to node 1), node 1's file pages before and
   after (left alone?), and node 0's at the end.
"""
import re
import statistics

from klplib import um_stats, wait_transition
from workloads import guest_seconds, modprobe_klp


GUEST = dict(mem=1024, smp=2, numa=2, balloon=None, disk_mb=1400,
             tcg_single=True)
VARIANTS = [
    dict(name="control-off", guest=GUEST, control=0,
         needs=["guestmm_klp", "guestmm_klp_trace"]),
    dict(name="control-on", guest=GUEST, control=1,
         needs=["guestmm_klp", "guestmm_klp_trace"]),
]
REPS = 1
FAST_ROUNDS = 4

METRICS = [
    ("anon_off_mib_s", "1: tmpfs write+remove, control off, MiB/s "
     "(page allocator)", "info"),
    ("anon_on_mib_s", "1: ... control on (ratio 90), MiB/s", "info"),
    ("cache_off_mib_s", "1: cold file read, control off, MiB/s (page "
     "cache insertions)", "info"),
    ("cache_on_mib_s", "1: ... control on (ratio 90), MiB/s", "info"),
    ("fast_passes", "1: the policy's passes during phase 1", "info"),
    ("map_scanned", "2: pages the policy scanned", "info"),
    ("map_reclaimed", "2: pages the policy reclaimed", "info"),
    ("map_skipped_mapped", "2: pages the policy skipped as mapped",
     "info"),
    ("map_scan_per_reclaim", "2: scanned per page reclaimed", "lower"),
    ("map_policy_ms", "2: the policy's time in reclaim, ms", "info"),
    ("map_kswapd_scanned", "2: kswapd's own pgscan (all policies)",
     "info"),
    ("map_resident_pct", "2: the mapped file still resident, %",
     "higher"),
    ("map_read_mib_s", "2: the stream read, MiB/s", "higher"),
    ("numa_allocstall", "3: direct reclaim stalls", "lower"),
    ("numa_miss", "3: allocations that fell back to node 1", "info"),
    ("numa_node1_file_before_mib", "3: node 1 file pages before, MiB",
     "info"),
    ("numa_node1_file_after_mib", "3: node 1 file pages after, MiB",
     "info"),
    ("numa_node0_file_mib", "3: node 0 file pages at the end, MiB", "info"),
    ("numa_read_mib_s", "3: the pinned read, MiB/s", "higher"),
]

PAR = "/sys/module/guestmm_klp/parameters"


def node_file_mib(g, node):
    """Node @node's file pages (active + inactive), MiB."""
    out = g.sh("cat /sys/devices/system/node/node%d/meminfo" % node)
    kb = sum(int(m) for m in re.findall(
        r"(?:Active|Inactive)\(file\):\s+(\d+) kB", out))
    return kb // 1024


def drop(g):
    g.sh("sync; echo 3 > /proc/sys/vm/drop_caches")


def fast_rates(g):
    """(tmpfs write+remove MiB/s, cold read MiB/s) on the guest's clock."""
    s = guest_seconds(g, "for i in 1 2 3 4 5; do dd if=/dev/zero "
                         "of=/mnt/t/x bs=1M count=200 2>/dev/null; "
                         "rm /mnt/t/x; done")
    drop(g)
    c = guest_seconds(g, "cat /mnt/f300 > /dev/null")
    return 1000 / s, 300 / c


def fast_path(g, res):
    """The control off and on alternately, FAST_ROUNDS times in this boot
    (the host's load changes between boots, and these rates are what it
    changes most), ratio 90 so that the policy never runs."""
    g.sh("echo 90 > %s/max_unmapped_ratio" % PAR)
    g.sh("mkdir -p /mnt/t && mount -t tmpfs -o size=300m t /mnt/t")
    u0 = um_stats(g)
    rates = {0: [], 1: []}
    for i in range(FAST_ROUNDS):
        # Each state first in half of the rounds: no order effect.
        for control in ((0, 1), (1, 0))[i % 2]:
            g.sh("echo %d > %s/unmapped_page_control" % (control, PAR))
            drop(g)
            rates[control].append(fast_rates(g))
    for control, name in ((0, "off"), (1, "on")):
        res["anon_%s_mib_s" % name] = round(statistics.median(
            a for a, _ in rates[control]), 1)
        res["cache_%s_mib_s" % name] = round(statistics.median(
            c for _, c in rates[control]), 1)
    res["fast_passes"] = um_stats(g)["passes"] - u0["passes"]
    g.sh("umount /mnt/t")


def may_unmap(g, res):
    g.sh("echo 10 > %s/max_unmapped_ratio" % PAR)
    drop(g)
    g.sh("mincore_hold /mnt/map /tmp/mc.out 500 > /tmp/mc.err 2>&1 &")
    g.sh("i=0; until grep -q ready /tmp/mc.out 2>/dev/null; do sleep 1; "
         "i=$((i+1)); [ $i -lt 300 ] || exit 1; done", timeout=330)
    u0, vm0 = um_stats(g), g.vmstat()
    s = guest_seconds(g, "cat /mnt/big > /dev/null; "
                         "cat /mnt/big > /dev/null")
    u1, vm1 = um_stats(g), g.vmstat()
    g.sh("killall -USR1 mincore_hold; sleep 1")
    last = g.sh("grep resident= /tmp/mc.out | tail -1")
    g.sh("killall mincore_hold; sleep 1; true")
    m = re.search(r"resident=(\d+) total=(\d+)", last)
    res["map_resident_pct"] = (round(100.0 * int(m.group(1)) /
                                     int(m.group(2)), 1) if m else -1)
    d = {k: u1[k] - u0[k] for k in ("pages_scanned", "pages_reclaimed",
                                     "skipped_mapped", "time_ns")}
    res.update(map_scanned=d["pages_scanned"],
               map_reclaimed=d["pages_reclaimed"],
               map_skipped_mapped=d["skipped_mapped"],
               map_scan_per_reclaim=round(d["pages_scanned"] /
                                          max(d["pages_reclaimed"], 1), 2),
               map_policy_ms=d["time_ns"] // 1000000,
               map_kswapd_scanned=vm1["pgscan_kswapd"] -
               vm0["pgscan_kswapd"],
               map_read_mib_s=round(1200 / s, 1))


def numa(g, res):
    drop(g)
    # Node 1's own cache: a file read from vCPU 1 (local allocation).
    g.sh("taskset 2 cat /mnt/n1 > /dev/null")
    vm0 = g.vmstat()
    res["numa_node1_file_before_mib"] = node_file_mib(g, 1)
    s = guest_seconds(g, "taskset 1 cat /mnt/big > /dev/null; "
                         "taskset 1 dd if=/mnt/f300 of=/dev/null bs=1M "
                         "count=100 2>/dev/null")
    vm1 = g.vmstat()
    res["numa_node1_file_after_mib"] = node_file_mib(g, 1)
    res["numa_node0_file_mib"] = node_file_mib(g, 0)
    res["numa_allocstall"] = sum(vm1[k] - vm0[k] for k in vm1
                                 if k.startswith("allocstall_"))
    res["numa_miss"] = vm1["numa_miss"] - vm0["numa_miss"]
    res["numa_read_mib_s"] = round(700 / s, 1)


def measure(g, variant):
    g.sh("for f in big:600 f300:300 map:200 n1:40; do "
         "dd if=/dev/zero of=/mnt/${f%%:*} bs=1M count=${f#*:} "
         "conv=fsync 2>/dev/null; done; sync", timeout=900)
    modprobe_klp(g)
    wait_transition(g, timeout=120)
    res = {}
    fast_path(g, res)
    g.sh("echo %d > %s/unmapped_page_control" % (variant["control"], PAR))
    may_unmap(g, res)
    numa(g, res)
    return res

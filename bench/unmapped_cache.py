"""Unmapped page cache control: free memory after IO, balloon inflate, stalls, overhead (seed 001)

A 1 GiB TCG guest with an ext4 virtio disk and the stock virtio_balloon.
guestmm_klp is loaded in both variants; only unmapped_page_control
differs (max_unmapped_ratio=10).  The IO phase is a read-heavy stand-in
for seed 001's kernbench, because the guest has no gcc: a 600 MiB cold
stream read, then five re-reads of a 48 MiB hot set that fits under the
ratio (what a build re-reads).  Its elapsed time and the guest's user and
system CPU are the overhead metrics.  Then, after 6 s to settle, MemFree
is taken, and the host asks the balloon to inflate by 640 MiB.  The
metrics are how much of it arrived within 30 s, how long it took, and
what the guest paid in reclaim: allocstall, direct and kswapd scans, and
PSI memory "some" time.  PSI and pgscan_direct also count the policy
thread's own passes (__node_reclaim() enters a memstall, and its scans
are not kswapd's); allocstall counts only allocations that stalled.
The cold stream read is this policy's worst case: every page read has
to be reclaimed again, and under TCG reclaiming a page costs more than
reading it from the host's cache.
"""
import time

from klplib import um_stats

MIB = 1 << 20

GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"],
             disk_mb=800)

VARIANTS = [
    dict(name="control-off", guest=GUEST,
         load="modprobe guestmm_klp", needs=["guestmm_klp"]),
    dict(name="control-on", guest=GUEST,
         load="modprobe guestmm_klp unmapped_page_control=1 "
              "max_unmapped_ratio=10", needs=["guestmm_klp"]),
]

METRICS = [
    ("memfree_mib", "guest MemFree after the IO phase, MiB", "higher"),
    ("balloon_mib", "balloon inflated within 30 s (asked 640), MiB",
     "higher"),
    ("balloon_s", "seconds until the balloon stopped growing", "lower"),
    ("allocstall", "direct reclaim stalls (allocstall_*)", "lower"),
    ("pgscan_direct", "pages scanned outside kswapd (includes the policy "
     "thread's own scans)", "info"),
    ("pgscan_kswapd", "pages scanned by kswapd", "info"),
    ("psi_some_ms", "PSI memory some, ms (IO phase + inflate)", "lower"),
    ("io_s", "IO phase elapsed, s (read-heavy stand-in for a build)",
     "lower"),
    ("stream_s", "... of which the 600 MiB cold stream read, s", "lower"),
    ("hot_s", "... of which the five hot-set re-reads, s", "lower"),
    ("io_user_ticks", "guest user CPU in the IO phase, ticks", "lower"),
    ("io_sys_ticks", "guest system CPU in the IO phase, ticks", "lower"),
    ("policy_pages", "pages the policy reclaimed", "info"),
    ("policy_ms", "time the policy spent in __node_reclaim, ms", "info"),
]

BIG_MIB = 600
HOT_MIB = 48
INFLATE_MIB = 640


def cpu_ticks(g):
    f = g.sh("head -1 /proc/stat").split()
    return int(f[1]) + int(f[2]), int(f[3])     # user+nice, system


def psi_some_us(g):
    for line in g.sh("cat /proc/pressure/memory").splitlines():
        if line.startswith("some"):
            return int(line.split("total=")[1])
    return 0


def allocstall(vm):
    return sum(v for k, v in vm.items() if k.startswith("allocstall_"))


def measure(g, variant):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "dd if=/dev/zero of=/mnt/hot bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % (BIG_MIB, HOT_MIB),
         timeout=900)
    g.sh(variant["load"])
    um0, vm0, psi0 = um_stats(g), g.vmstat(), psi_some_us(g)
    (u0, s0), t0 = cpu_ticks(g), time.monotonic()
    g.sh("cat /mnt/big > /dev/null", timeout=900)
    stream_s = time.monotonic() - t0
    g.sh("for i in 1 2 3 4 5; do cat /mnt/hot > /dev/null; done",
         timeout=900)
    io_s = time.monotonic() - t0
    u1, s1 = cpu_ticks(g)
    time.sleep(6)
    memfree = g.meminfo()["MemFree"] // 1024

    ram = g.mem * MIB
    target = ram - INFLATE_MIB * MIB
    g.balloon(target)
    t0, last, last_change = time.monotonic(), ram, time.monotonic()
    while time.monotonic() - t0 < 30:
        actual = g.query_balloon()
        if actual != last:
            last, last_change = actual, time.monotonic()
        if actual <= target:
            break
        time.sleep(0.5)
    vm1, psi1, um1 = g.vmstat(), psi_some_us(g), um_stats(g)
    g.balloon(ram)
    return {
        "memfree_mib": memfree,
        "balloon_mib": (ram - last) // MIB,
        "balloon_s": round(last_change - t0, 1),
        "allocstall": allocstall(vm1) - allocstall(vm0),
        "pgscan_direct": vm1["pgscan_direct"] - vm0["pgscan_direct"],
        "pgscan_kswapd": vm1["pgscan_kswapd"] - vm0["pgscan_kswapd"],
        "psi_some_ms": (psi1 - psi0) // 1000,
        "io_s": round(io_s, 2),
        "stream_s": round(stream_s, 2),
        "hot_s": round(io_s - stream_s, 2),
        "io_user_ticks": u1 - u0,
        "io_sys_ticks": s1 - s0,
        "policy_pages": um1["pages_reclaimed"] - um0["pages_reclaimed"],
        "policy_ms": (um1["time_ns"] - um0["time_ns"]) // 1000000,
    }

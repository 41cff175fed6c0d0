# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon stats vq: QMP guest-stats match the guest's /proc/meminfo and /proc/vmstat, and follow the balloon."""

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])

LIGHT = True
MIB = 1 << 20


def snapshot(g):
    """Fresh guest-stats plus the guest's own view right after it."""
    st = g.guest_stats(interval=1)
    return st, g.meminfo(), g.vmstat()


def close(a, b, tol):
    return abs(a - b) <= tol


def check(st, mi, vm):
    kib = 1024
    assert st["stat-total-memory"] == mi["MemTotal"] * kib, (st, mi)
    # These move a little between the stats update and our read.
    assert close(st["stat-free-memory"], mi["MemFree"] * kib, 32 * MIB), \
        (st, mi)
    assert close(st["stat-available-memory"], mi["MemAvailable"] * kib,
                 32 * MIB), (st, mi)
    assert close(st["stat-disk-caches"], vm["nr_file_pages"] * 4096,
                 8 * MIB), (st, vm)
    assert st["stat-swap-in"] == vm["pswpin"] * 4096
    assert st["stat-swap-out"] == vm["pswpout"] * 4096
    assert st["stat-major-faults"] <= vm["pgmajfault"]
    assert close(st["stat-minor-faults"], vm["pgfault"], 200000), (st, vm)
    assert st["stat-minor-faults"] <= vm["pgfault"]
    assert st["stat-htlb-pgalloc"] == vm["htlb_buddy_alloc_success"]
    assert st["stat-htlb-pgfail"] == vm["htlb_buddy_alloc_fail"]


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    st, mi, vm = snapshot(g)
    check(st, mi, vm)
    # QEMU 7.2 knows tags 0-9 only; all ten must be real values (-1 = unset).
    assert len(st) == 10 and all(v >= 0 for v in st.values()), st

    # Inflate 200 MiB: total-memory must follow, so the stats are live.
    g.balloon(ram - 200 * MIB)
    g.wait_balloon(ram - 200 * MIB)
    st2, mi2, vm2 = snapshot(g)
    check(st2, mi2, vm2)
    assert st["stat-total-memory"] - st2["stat-total-memory"] == 200 * MIB

    # Page cache shows up as disk-caches (tmpfs pages are file pages).
    g.sh("dd if=/dev/zero of=/tmp/f bs=1M count=64 2>/dev/null")
    st3, mi3, vm3 = snapshot(g)
    check(st3, mi3, vm3)
    assert st3["stat-disk-caches"] - st2["stat-disk-caches"] >= 60 * MIB
    n = g.sh("cat /sys/kernel/debug/guestmm_balloon/stats_requests").strip()
    assert int(n) >= 3, n
    print("KEY balloon_stats total=%d free=%d avail=%d caches=%d" %
          (st3["stat-total-memory"], st3["stat-free-memory"],
           st3["stat-available-memory"], st3["stat-disk-caches"]))

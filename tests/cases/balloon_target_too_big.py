# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon: a host target larger than the guest stops at the floor (no OOM kill, guest responsive) and is undone by the next target; floor_mb is honoured."""
import time

from balloonlib import MIB, state

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])


LIGHT = True
def settle(g, timeout=120):
    """Wait until the balloon size stops changing; return the state."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        st = state(g)
        if last is not None and st["num_pages"] == last["num_pages"]:
            return st
        last = st
        time.sleep(3)
    raise AssertionError("balloon never settled: %s" % last)


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    boot_total = g.meminfo()["MemTotal"]
    vm0 = g.vmstat()

    # The host asks for all but 1 MiB of the guest.
    g.balloon(1 * MIB)
    st = settle(g)
    kept_kib = g.meminfo()["MemTotal"]
    floor_kib = st["floor_pages"] * 4
    print("KEY balloon_target_too_big balloon_mib=%d kept_kib=%d "
          "floor_kib=%d floor_limited=%d" %
          (st["num_pages"] // 256, kept_kib, floor_kib,
           st["floor_limited"]))
    assert st["target"] == (ram - MIB) // 4096, st
    assert st["floor_limited"] > 0, st
    assert kept_kib >= floor_kib and kept_kib < floor_kib + 8 * 1024, \
        (kept_kib, floor_kib)
    assert g.vmstat()["oom_kill"] == vm0["oom_kill"]
    assert g.sh("echo alive").strip() == "alive"
    assert g.query_balloon() == ram - st["num_pages"] * 4096

    # The next target wins at once.
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    assert g.meminfo()["MemTotal"] == boot_total

    # An explicit floor: keep 800 MiB, the host asks for 512 MiB out.
    g.sh("echo 800 > /sys/module/guestmm_balloon/parameters/floor_mb")
    g.balloon(ram - 512 * MIB)
    st = settle(g)
    assert st["floor_pages"] == 800 * 256, st
    assert abs(g.meminfo()["MemTotal"] - 800 * 1024) <= 4, g.meminfo()
    # floor_mb=0 restores stock semantics: the exact target is reached.
    g.sh("echo 0 > /sys/module/guestmm_balloon/parameters/floor_mb")
    g.balloon(ram - 511 * MIB)
    g.wait_balloon(ram - 511 * MIB, timeout=120)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    g.sh("rmmod guestmm_balloon")
    assert g.meminfo()["MemTotal"] == boot_total

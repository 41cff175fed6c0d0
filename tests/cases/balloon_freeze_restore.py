# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon freeze/restore (hibernation with pm_test=devices): the balloon is emptied for the image, then re-inflated to the host target."""

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])

LIGHT = True
MIB = 1 << 20


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    boot_total = g.meminfo()["MemTotal"]
    g.balloon(ram - 200 * MIB)
    g.wait_balloon(ram - 200 * MIB)
    vm0 = g.vmstat()

    # "devices" runs the freeze callbacks, waits, then thaws (restore).
    g.sh("echo devices > /sys/power/pm_test && echo disk > /sys/power/state",
         timeout=300)
    assert "hibernation exit" in g.sh("dmesg")
    g.sh("echo none > /sys/power/pm_test")

    g.wait_balloon(ram - 200 * MIB, timeout=120)
    assert boot_total - g.meminfo()["MemTotal"] == 200 * 1024
    vm1 = g.vmstat()
    # Freeze gave all 200 MiB back, restore took them again.
    assert vm1["balloon_deflate"] - vm0["balloon_deflate"] == 200 * 256, (
        vm0, vm1, g.sh("cat /sys/kernel/debug/guestmm_balloon/state"))
    assert vm1["balloon_inflate"] - vm0["balloon_inflate"] == 200 * 256, (
        vm0, vm1, g.sh("cat /sys/kernel/debug/guestmm_balloon/state"))

    # The device still works after restore.
    g.balloon(ram - 100 * MIB)
    g.wait_balloon(ram - 100 * MIB)
    g.balloon(ram)
    g.wait_balloon(ram)
    g.sh("rmmod guestmm_balloon")
    assert g.meminfo()["MemTotal"] == boot_total

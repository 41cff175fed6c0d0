# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon: inflate/deflate to exact QMP targets; query-balloon, MemTotal, vmstat and debugfs follow; a target changed mid-inflation is honoured."""
from balloonlib import MIB, state

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])


LIGHT = True
def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon chunk_order=0")
    assert g.sh("ls /sys/bus/virtio/drivers/guestmm_balloon/ | "
                "grep -c '^virtio'").strip() == "1", "driver not bound"
    boot_total = g.meminfo()["MemTotal"]
    vm0 = g.vmstat()
    assert g.query_balloon() == ram, "balloon not empty at boot"

    # 256 MiB out: the host sees it, MemTotal drops by exactly as much.
    g.balloon(ram - 256 * MIB)
    assert g.wait_balloon(ram - 256 * MIB, timeout=120) == ram - 256 * MIB
    total = g.meminfo()["MemTotal"]
    assert boot_total - total == 256 * 1024, (boot_total, total)
    vm1 = g.vmstat()
    assert vm1["balloon_inflate"] - vm0["balloon_inflate"] == 256 * 256, vm1
    st = state(g)
    assert st["num_pages"] == 256 * 256 and st["target"] == 256 * 256, st
    assert st["inflated_pages"] == 256 * 256, st
    # Default batch: 256 pages (1 MiB) per host message.
    assert st["host_msgs_inflate"] == 256, st
    # Debian's kernels zero every allocated page unless booted with
    # init_on_alloc=0; state says which, as the kernel reports it at boot.
    auto_init = g.sh("dmesg | grep 'mem auto-init:'")
    assert ("heap alloc:on" in auto_init) == (st["init_on_alloc"] == 1), \
        (auto_init, st)

    # A target that changes while the balloon is moving: 512 MiB out, then
    # at once only 128 MiB out.  The driver must end at the second one.
    g.balloon(ram - 512 * MIB)
    g.balloon(ram - 128 * MIB)
    assert g.wait_balloon(ram - 128 * MIB, timeout=180) == ram - 128 * MIB
    assert boot_total - g.meminfo()["MemTotal"] == 128 * 1024

    # All the way back.
    g.balloon(ram)
    assert g.wait_balloon(ram, timeout=120) == ram
    assert g.meminfo()["MemTotal"] == boot_total
    vm2 = g.vmstat()
    infl = vm2["balloon_inflate"] - vm0["balloon_inflate"]
    defl = vm2["balloon_deflate"] - vm0["balloon_deflate"]
    assert infl == defl and infl >= 256 * 256, (infl, defl)
    st = state(g)
    assert st["num_pages"] == 0, st
    assert st["inflated_pages"] == infl and st["deflated_pages"] == defl, st
    print("KEY balloon_inflate_deflate inflated=%d deflated=%d "
          "boot_total_kib=%d" % (infl, defl, boot_total))

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon: rmmod with 256 MiB inflated gives every page back, tells the host, restores MemTotal exactly; a reload re-inflates."""

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])

LIGHT = True
MIB = 1 << 20


def free_kib(g):
    """Free memory including the per-cpu page lists (which MemFree leaves
    out, and which 6.12 lets grow to tens of MiB), in kB."""
    pages = 0
    for line in g.sh("cat /proc/zoneinfo").splitlines():
        w = line.split()
        if len(w) == 2 and w[0] in ("nr_free_pages", "count:"):
            pages += int(w[1])
    return pages * 4


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    boot = g.meminfo()
    boot_free = free_kib(g)
    vm0 = g.vmstat()

    g.balloon(ram - 256 * MIB)
    g.wait_balloon(ram - 256 * MIB, timeout=120)
    assert boot["MemTotal"] - g.meminfo()["MemTotal"] == 256 * 1024

    g.sh("rmmod guestmm_balloon")
    assert "guestmm_balloon" not in g.sh("cat /proc/modules")
    after = g.meminfo()
    after_free = free_kib(g)
    vm1 = g.vmstat()
    # MemTotal is back to the byte, and the host was told (actual = 0).
    assert after["MemTotal"] == boot["MemTotal"], (boot, after)
    assert g.query_balloon() == ram
    infl = vm1["balloon_inflate"] - vm0["balloon_inflate"]
    defl = vm1["balloon_deflate"] - vm0["balloon_deflate"]
    assert infl == defl == 256 * 256, (infl, defl)
    # No page went missing: free memory is back near its boot value.
    assert after_free > boot_free - 16 * 1024, (boot_free, after_free)

    # The host still wants 256 MiB: a new driver instance inflates again.
    g.sh("modprobe guestmm_balloon")
    g.wait_balloon(ram - 256 * MIB, timeout=120)
    assert boot["MemTotal"] - g.meminfo()["MemTotal"] == 256 * 1024
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    g.sh("rmmod guestmm_balloon")
    assert g.meminfo()["MemTotal"] == boot["MemTotal"]
    print("KEY balloon_rmmod_inflated memtotal_kib=%d free_boot_kib=%d "
          "free_after_kib=%d" % (after["MemTotal"], boot_free, after_free))

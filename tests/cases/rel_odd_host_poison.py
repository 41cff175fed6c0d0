# SPDX-License-Identifier: GPL-2.0
"""Odd host: a balloon with free-page-reporting and page-poison in a page_poison=1 guest negotiates both, reports free pages without corrupting poisoned memory, inflates and deflates exactly; a second balloon device is refused by QEMU and the guest does not notice."""
import re
import time

from balloonlib import state

from qmp import QMPError

MIB = 1 << 20
# deflate-on-oom stays off (QEMU's default): inflated pages leave MemTotal.
GUEST = dict(mem=1024, smp=2,
             balloon={"free-page-reporting": "on", "page-poison": "on"},
             mods=["guestmm_balloon"], append="page_poison=1")
TIMEOUT = 300
LIGHT = True
# page_poison=1 does nothing without it (Debian's cloud-amd64 flavour).
NEEDS_CONFIG = ("CONFIG_PAGE_POISONING",)

BITS = {0: "MUST_TELL_HOST", 1: "STATS_VQ", 2: "DEFLATE_ON_OOM",
        3: "FREE_PAGE_HINT", 4: "PAGE_POISON", 5: "REPORTING"}


def run(g):
    ram = g.mem * MIB
    assert "page_poison=1" in g.sh("cat /proc/cmdline")
    bound = [l for l in g.dmesg().splitlines() if "guestmm_balloon bound" in l]
    assert len(bound) == 1, bound
    feat = int(re.search(r"features (0x[0-9a-f]+)", bound[0]).group(1), 16)
    names = [n for b, n in sorted(BITS.items()) if feat & (1 << b)]
    st = state(g)
    assert st["features"] == feat, (st["features"], feat)
    assert "PAGE_POISON" in names and "REPORTING" in names, names
    assert "DEFLATE_ON_OOM" not in names, names
    assert st["reporting"] == 1 and st["adjust_managed"] == 1, st
    assert "NOT enabled" not in g.dmesg()

    # Free page reporting with poisoned free pages: allocate, free, wait for
    # reports; poison checks on later allocations must find no corruption.
    boot_total = g.meminfo()["MemTotal"]
    g.sh("dd if=/dev/zero of=/dev/null bs=400M count=1")
    t0 = time.monotonic()
    while state(g)["reports"] == 0:
        assert time.monotonic() - t0 < 60, "no free page report in 60 s"
        time.sleep(1)
    g.sh("dd if=/dev/zero of=/dev/null bs=400M count=1")   # reuse them
    st = state(g)

    # Inflate and deflate exactly.
    g.balloon(ram - 128 * MIB)
    g.wait_balloon(ram - 128 * MIB)
    mid = state(g)
    assert mid["num_pages"] == 32768, mid
    assert g.meminfo()["MemTotal"] == boot_total - 131072
    g.sh("dd if=/dev/zero of=/dev/null bs=300M count=1")
    g.balloon(ram)
    g.wait_balloon(ram)
    assert state(g)["num_pages"] == 0
    assert g.meminfo()["MemTotal"] == boot_total
    g.sh("dd if=/dev/zero of=/dev/null bs=600M count=1")

    # A second balloon device: QEMU 7.2 allows one per machine.
    err = ""
    try:
        g.qmp.cmd("device_add", driver="virtio-balloon-pci", id="balloon1")
    except QMPError as e:
        err = str(e)
    assert "Only one balloon device is supported" in err, err
    g.balloon(ram - 64 * MIB)
    g.wait_balloon(ram - 64 * MIB)
    g.balloon(ram)
    g.wait_balloon(ram)

    log = g.dmesg()
    # page_poison's checker: "pagealloc: memory corruption" /
    # "pagealloc: single bit error" (not in guest.KERNEL_PROBLEMS).
    corrupt = [l for l in log.splitlines() if "pagealloc:" in l]
    assert not corrupt, corrupt
    print("KEY rel_odd_host_poison features=%#x negotiated=%s reports=%d "
          "reported_pages=%d second_device=%r" %
          (feat, "+".join(names), st["reports"], st["reported_pages"],
           err.split(": ", 1)[-1][:80]))

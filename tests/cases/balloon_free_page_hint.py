# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon free page hinting: during a live migration the driver hands free 4 MiB blocks to the host and takes every one back at DONE."""
import time

from balloonlib import state

# free-page-hint needs an iothread object.  The device is there at boot
# rather than hot-plugged: the debug kernel boots with pci=noacpi (tests/run,
# DEBUG_APPEND), which has no ACPI PCI hot-plug.
GUEST = dict(mem=1024, smp=2, objects=["iothread,id=io0"],
             balloon={"free-page-hint": "on", "iothread": "io0"}, mods=[])


LIGHT = True
def run(g):
    g.sh("modprobe guestmm_balloon")
    st = state(g)
    assert st["features"] & (1 << 3), "FREE_PAGE_HINT not negotiated: %s" % st
    free0 = g.meminfo()["MemFree"]

    # A migration to nowhere makes QEMU publish a hint command id.
    g.qmp.cmd("migrate", uri="exec:cat > /dev/null")
    deadline = time.monotonic() + 300
    while True:
        status = g.qmp.cmd("query-migrate").get("status")
        if status in ("completed", "failed", "cancelled"):
            break
        assert time.monotonic() < deadline, "migration never finished"
        time.sleep(1)
    assert status == "completed", status
    g.qmp.cmd("cont")

    st = state(g)
    print("KEY balloon_free_page_hint runs=%d blocks=%d returned=%d" %
          (st["hint_runs"], st["hint_blocks"], st["hint_blocks_returned"]))
    assert st["hint_runs"] >= 1 and st["hint_blocks"] > 0, st
    # DONE gave every block back; none is still held.
    deadline = time.monotonic() + 30
    while state(g)["hint_blocks_held"] and time.monotonic() < deadline:
        time.sleep(1)
    st = state(g)
    assert st["hint_blocks_held"] == 0, st
    assert st["hint_blocks_returned"] == st["hint_blocks"], st
    assert g.meminfo()["MemFree"] > free0 - 32 * 1024
    g.sh("rmmod guestmm_balloon")

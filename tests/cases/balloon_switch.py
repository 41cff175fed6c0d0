# SPDX-License-Identifier: GPL-2.0
"""scripts/guestmm-switch moves an inflated balloon device from virtio_balloon to guestmm_balloon and back; the host target is kept throughout."""
import base64
import os

GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"])

LIGHT = True
MIB = 1 << 20
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "scripts", "guestmm-switch")


def driver(g):
    out = g.sh("sh /tmp/guestmm-switch status")
    assert out.startswith("KEY guestmm_switch "), out
    return dict(kv.split("=") for kv in out.split()[2:])["driver"]


def run(g):
    ram = g.mem * MIB
    with open(SCRIPT, "rb") as f:
        g.sh("echo %s | base64 -d > /tmp/guestmm-switch" %
             base64.b64encode(f.read()).decode())
    boot_total = g.meminfo()["MemTotal"]
    assert driver(g) == "virtio_balloon"
    g.balloon(ram - 128 * MIB)
    g.wait_balloon(ram - 128 * MIB)

    # stock -> guestmm (module not loaded yet: loaded with a parameter)
    out = g.sh("sh /tmp/guestmm-switch guestmm movable=1")
    assert "driver=guestmm_balloon" in out, out
    assert driver(g) == "guestmm_balloon"
    assert g.sh("ls /sys/bus/virtio/drivers/virtio_balloon/ | "
                "grep -c '^virtio' || true").strip() == "0"
    g.wait_balloon(ram - 128 * MIB)
    assert boot_total - g.meminfo()["MemTotal"] == 128 * 1024
    assert "num_pages 32768" in g.sh(
        "cat /sys/kernel/debug/guestmm_balloon/state")

    # guestmm -> stock (both loaded now: bind file path)
    g.sh("sh /tmp/guestmm-switch stock")
    assert driver(g) == "virtio_balloon"
    g.wait_balloon(ram - 128 * MIB)
    assert boot_total - g.meminfo()["MemTotal"] == 128 * 1024

    # and back once more, now through guestmm_balloon's bind file
    g.sh("sh /tmp/guestmm-switch guestmm")
    assert driver(g) == "guestmm_balloon"
    g.wait_balloon(ram - 128 * MIB)
    # parameters cannot be applied to an already loaded module
    g.sh("sh /tmp/guestmm-switch guestmm movable=0", check=False)
    assert g.last_rc != 0

    g.balloon(ram)
    g.wait_balloon(ram)
    assert g.meminfo()["MemTotal"] == boot_total

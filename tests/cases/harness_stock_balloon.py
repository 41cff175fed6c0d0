"""Stock virtio_balloon: a 256 MiB inflate and deflate over QMP, followed by query-balloon and MemTotal."""

GUEST = dict(mem=1024, balloon={}, mods=["virtio_balloon"])
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
LIGHT = True

MIB = 1 << 20


def run(g):
    ram = g.mem * MIB
    boot_total = g.meminfo()["MemTotal"]
    assert g.query_balloon() == ram, "balloon not empty at boot"

    g.balloon(ram - 256 * MIB)
    assert g.wait_balloon(ram - 256 * MIB, timeout=120) == ram - 256 * MIB
    # Without deflate-on-oom the driver takes the pages out of MemTotal.
    total = g.meminfo()["MemTotal"]
    assert boot_total - total == 256 * 1024, (boot_total, total)
    assert g.vmstat()["balloon_inflate"] == 256 * 256

    g.balloon(ram)
    assert g.wait_balloon(ram, timeout=120) == ram
    assert g.meminfo()["MemTotal"] == boot_total
    assert g.vmstat()["balloon_deflate"] == 256 * 256

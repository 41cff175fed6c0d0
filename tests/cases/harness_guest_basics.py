"""The test guest has what cases rely on: mounts, bpftool, an ext4 virtio disk, 2 NUMA nodes, QMP guest-stats."""

GUEST = dict(mem=1024, smp=2, numa=2, disk_mb=128, balloon={},
             mods=["virtio_balloon"])
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
LIGHT = True


def run(g):
    mounts = g.sh("cat /proc/mounts")
    for fs, where in (("proc", "/proc"), ("sysfs", "/sys"),
                      ("devtmpfs", "/dev"), ("debugfs", "/sys/kernel/debug"),
                      ("tracefs", "/sys/kernel/tracing"),
                      ("bpf", "/sys/fs/bpf"), ("ext4", "/mnt")):
        assert " %s %s " % (where, fs) in mounts, (fs, mounts)

    assert "libbpf" in g.sh("bpftool version")
    assert g.sh("bpftool btf list | head -n1").strip(), "no BTF in guest"

    # Real page cache: a file written to the disk is cached, then dropped.
    g.sh("dd if=/dev/zero of=/mnt/f bs=1M count=32 2>/dev/null && sync")
    assert g.meminfo()["Cached"] >= 32 * 1024
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    assert g.sh("cat /mnt/f | wc -c").strip() == str(32 << 20)

    nodes = g.sh("ls -d /sys/devices/system/node/node*").split()
    assert len(nodes) == 2, nodes

    # A failing command is reported as such, with its exit code.
    g.sh("exit 3", check=False)
    assert g.last_rc == 3

    stats = g.guest_stats()
    assert stats["stat-total-memory"] > 0, stats

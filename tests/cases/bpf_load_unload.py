# SPDX-License-Identifier: GPL-2.0
"""guestmm-stat: load/unload/reload are idempotent, pins are root-only, counting survives the loader, and missing root, BTF or bpffs give clear errors."""
import json

GUEST = dict(mem=1024, smp=2, balloon=None)
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
LIGHT = True

PIN = "/sys/fs/bpf/guestmm"


def nlinks(g):
    return int(g.sh("ls %s/links | wc -l" % PIN).strip())


def run(g):
    assert "COMMAND" in g.sh("guestmm-stat -h 2>&1")

    # Nothing loaded yet.
    out = g.sh("guestmm-stat show 2>&1", check=False)
    assert g.last_rc == 1 and "not loaded" in out, out

    # bpffs not mounted: load mounts it.
    g.sh("umount /sys/fs/bpf")
    out = g.sh("guestmm-stat show 2>&1", check=False)
    assert g.last_rc == 1 and "bpffs is not mounted" in out, out
    out = g.sh("guestmm-stat load 2>&1")
    assert "mounted bpffs" in out and "guestmm probes loaded" in out, out
    assert " /sys/fs/bpf bpf " in g.sh("cat /proc/mounts")

    # Root-only pins.
    assert g.sh("stat -c %%a %s %s/links" % (PIN, PIN)).split() == ["700", "700"]
    n = nlinks(g)
    assert n >= 30, n
    assert int(g.sh("bpftool link list | grep -c '^[0-9]*:'").strip()) == n

    # The loader has exited; the probes still count.
    before = json.loads(g.sh("guestmm-stat show -j"))["compact"]["end"]
    g.sh("echo 1 > /proc/sys/vm/compact_memory")
    after = json.loads(g.sh("guestmm-stat show -j"))["compact"]["end"]
    assert after > before, (before, after)

    # A second load changes nothing and keeps the counts.
    out = g.sh("guestmm-stat load")
    assert "already loaded" in out, out
    assert nlinks(g) == n
    assert json.loads(g.sh("guestmm-stat show -j"))["compact"]["end"] == after

    # reset zeroes, watch prints deltas.
    g.sh("guestmm-stat reset")
    j = json.loads(g.sh("guestmm-stat show -j"))
    assert j["compact"]["end"] == 0 and sum(j["vmstat"].values()) == 0, j
    w = g.sh("guestmm-stat watch -i 1 -c 2 -j").strip().splitlines()
    assert len(w) == 2 and "compact_stall" in json.loads(w[0]), w

    # Not root.
    g.sh("grep -q ^nobody: /etc/passwd 2>/dev/null || "
         "echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd; "
         "chmod go+rx / /bin /bin/busybox /usr /usr/bin "
         "$(command -v guestmm-stat)")
    out = g.sh("su nobody -s /bin/sh -c 'guestmm-stat show' 2>&1",
               check=False)
    assert g.last_rc == 1 and "must be run as root" in out, out

    # Unload twice, then nothing of ours is left in the kernel.
    assert "unloaded" in g.sh("guestmm-stat unload")
    assert "not loaded" in g.sh("guestmm-stat unload")
    assert g.sh("ls /sys/fs/bpf").strip() == ""
    # Links, programs and maps are freed asynchronously (RCU, workqueues).
    left = g.sh("for i in $(seq 50); do "
                "l=$(bpftool link list; bpftool prog list; bpftool map list); "
                "echo \"$l\" | grep -q guestmm || break; sleep 0.2; done; "
                "bpftool link list; bpftool prog list; bpftool map list")
    assert "guestmm" not in left, left

    # Reload after unload.
    assert "guestmm probes loaded" in g.sh("guestmm-stat load")
    assert nlinks(g) == n
    g.sh("guestmm-stat unload")

    # No kernel BTF (hidden under a tmpfs): a clear error, nothing pinned.
    g.sh("mount -t tmpfs tmpfs /sys/kernel/btf")
    out = g.sh("guestmm-stat load 2>&1", check=False)
    rc = g.last_rc
    g.sh("umount /sys/kernel/btf")
    assert rc == 1 and "no kernel BTF" in out, (rc, out)
    assert g.sh("ls /sys/fs/bpf").strip() == ""

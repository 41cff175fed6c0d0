# SPDX-License-Identifier: GPL-2.0
"""DKMS from a source tree, end to end, in a stock Debian 12 guest on bookworm-backports' 6.12 booted from its own disk: make dkms-install, dkms build/install, the balloon taken over and inflated, the livepatch on where a variant serves the kernel (smoke-tested) or not built, guestmm-stat + bpftool, the modules back after a reboot, dkms-remove leaves no trace.

This is the second route of docs/install.md, `scripts/install.sh`; the
Debian packages, the first, have their own case on Debian 12's 6.1 and
Debian 13's 6.12 (deb_upgrade), so this one runs once, on the third
kernel line a guest runs.  It runs in `make check-kernels`,
not in `make check` (NAMED_ONLY): deb_upgrade proves DKMS in real
Debian 12 and 13 guests there, and make check has a 75-minute
budget.  The guest is scripts/rootfs/build.sh's image
with its own kernel and initramfs, booted from a qcow2 overlay; the
`scripts/install.sh dist` tarball is a second, read-only disk.  Whether
the livepatch is built is what the tree's livepatch/select-variant
answers in the guest for /lib/modules/$(uname -r)/build, the question
dkms.conf asks (checked against the host's answer, which has the same
headers).

Expected duration on the 2-core CI machine (TCG, shared with other
guests): 5 to 9 minutes with the image cached (392 s alone; dkms build
90-240 s, the reboot, a power cycle, 20-40 s), plus 1 to 4 minutes for
the image when the cache is cold.
"""
import re
import time

import debimage
from dkmslib import (BALLOON_DRIVER, balloon_driver, dkms_add, dkms_build,
                     dkms_install, guest_variant, inflate_deflate, klp_smoke,
                     make_log, wait_for)

GUEST = dict(mem=1536, smp=2, balloon={}, boot_timeout=600)
KERNELS = ("6.12",)
NAMED_ONLY = True
TIMEOUT = 2400          # seconds, image build excluded (see guest_config)

LP = "/sys/kernel/livepatch/guestmm_klp"
VER = None
SERIES = None


def guest_config(abi):
    """The Debian image of the runner's kernel series, an overlay on it and
    the dist tarball (tests/run calls this before booting)."""
    global VER, SERIES
    SERIES = debimage.series_of(abi)
    VER = debimage.dist_version()
    return debimage.debian_guest(debimage.image_kernel(abi), tag="dkms_e2e")


def step(name, t0):
    print("KEY dkms_e2e_step %s seconds=%.0f" % (name, time.monotonic() - t0),
          flush=True)
    return time.monotonic()


def run(g):
    t_all = t = time.monotonic()
    abi = g.sh("uname -r").strip()
    assert debimage.series_of(abi) == SERIES, (abi, SERIES)
    print("KEY dkms_e2e_boot abi=%s seconds=%.0f" % (abi, g.boot_seconds))
    # udev loads the stock driver (coldplug is not over when systemd is).
    debimage.wait_booted(g)
    wait_for(g, BALLOON_DRIVER, "virtio_balloon", timeout=60)

    # The source tree, as a user downloads it.
    src = dkms_add(g, VER)
    # A variant serves this build: DKMS builds the livepatch (dkms.conf).
    klp = bool(guest_variant(g, VER, abi, "dkms_e2e", SERIES))
    assert g.sh("dkms status guestmm 2>/dev/null").strip().endswith(": added"), \
        g.sh("dkms status 2>&1")
    t = step("install_add", t)

    dkms_build(g, VER)
    t = step("dkms_build", t)
    # The livepatch and its tracepoints only where a variant serves the
    # kernel: elsewhere DKMS builds and installs neither (nothing taints).
    dkms_install(g, VER, abi, klp)
    t = step("dkms_install", t)

    # The balloon: the stock driver has it since boot; take it over.
    g.sh("modprobe -r virtio_balloon && modprobe guestmm_balloon")
    assert balloon_driver(g) == "guestmm_balloon", balloon_driver(g)
    inflate_deflate(g, 512)
    t = step("balloon", t)

    # The livepatch: on where supported, a clean refusal elsewhere.
    if klp:
        klp_smoke(g, "dkms_e2e")
    else:
        out = g.sh("modprobe guestmm_klp 2>&1", check=False)
        assert g.last_rc != 0, out
        assert "not found" in out, out
        assert g.sh("ls -d %s 2>/dev/null; lsmod | grep -c ^guestmm_klp; "
                    "true" % LP).split() == ["0"]
        tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
        assert not tainted & (1 << 15), tainted     # K: livepatch
        log = make_log(g, VER)
        assert "livepatch not built" in log, log[-2000:]
        print("KEY dkms_e2e_klp not_built=%r" % out.strip()[-200:])
    t = step("livepatch", t)

    # BPF statistics, read back through the loader and through bpftool.
    has_stat = g.sh("test -x /usr/sbin/guestmm-stat && echo y || echo n").strip() == "y"
    if has_stat:
        g.sh("guestmm-stat load 2>&1", timeout=300)
        g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
        dump = g.sh("bpftool map dump pinned /sys/fs/bpf/guestmm/compact")
        assert re.search(r"[1-9]", re.sub(r'"key":\s*\d+|\[\d+\]', "", dump)), dump
        show = g.sh("guestmm-stat show")
        assert show.strip(), show
        g.sh("guestmm-stat unload")
    else:
        print("KEY dkms_e2e_bpf skipped=guestmm-stat-not-built")
    t = step("bpf", t)

    # Configure boot (guestmm_balloon is listed by install; the livepatch
    # is opt-in) and reboot.
    conf = g.sh("cat /etc/modules-load.d/guestmm.conf")
    assert re.search(r"^guestmm_balloon$", conf, re.M), conf
    assert "blacklist virtio_balloon" in g.sh("cat /etc/modprobe.d/guestmm.conf")
    if klp:
        g.sh("sed -i 's/^#guestmm_klp$/guestmm_klp/' "
             "/etc/modules-load.d/guestmm.conf")
    # A power cycle (poweroff, a fresh QEMU on the same disks): an
    # in-guest reboot re-runs QEMU's firmware, 40-580 s under one TCG
    # thread (deb_upgrade's docstring).
    g.shutdown()
    g.start()
    print("KEY dkms_e2e_reboot seconds=%.0f" % g.boot_seconds)
    assert g.sh("uname -r").strip() == abi
    debimage.wait_booted(g)
    wait_for(g, "lsmod | awk '$1 ~ /^(guestmm_balloon|virtio_balloon)$/ "
             "{print $1}'", "guestmm_balloon")
    assert balloon_driver(g) == "guestmm_balloon", balloon_driver(g)
    if klp:
        assert g.sh("cat %s/enabled" % LP).strip() == "1"
        wait_for(g, "cat %s/transition" % LP, "0", timeout=120)
    inflate_deflate(g, 256)
    t = step("reboot", t)

    # Remove: nothing named guestmm is left (but the test's own agent, its
    # files in /tmp and the unpacked download in /root).
    out = g.sh("cd %s && make dkms-remove 2>&1" % src, timeout=600)
    assert "guestmm removed" in out, out
    assert g.sh("lsmod | grep ^guestmm; true").strip() == "", out
    assert balloon_driver(g) == "virtio_balloon", balloon_driver(g)
    assert g.sh("dkms status 2>/dev/null").strip() == "", g.sh("dkms status")
    assert g.sh("find /lib/modules/*/updates/dkms -type f 2>/dev/null; "
                "ls -d /usr/src/guestmm-* /var/lib/dkms/guestmm 2>/dev/null; "
                "true").strip() == ""
    left = g.sh("find / -xdev -name '*guestmm*' "
                "! -path '/root/guestmm-*' "
                "! -path /usr/local/sbin/guestmm-agent "
                "! -path '/etc/systemd/system/*guestmm-agent.service' "
                "! -path '/tmp/.guestmm-*' "
                "2>/dev/null; true").strip()
    assert left == "", left
    assert g.sh("modinfo guestmm_balloon 2>&1", check=False) and g.last_rc != 0
    t = step("remove", t)
    print("KEY dkms_e2e total_seconds=%.0f" % (time.monotonic() - t_all))

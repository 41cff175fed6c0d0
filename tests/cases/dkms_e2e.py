# SPDX-License-Identifier: GPL-2.0
"""DKMS end to end in a stock Debian 12 or 13 guest booted from its own disk: make dkms-install, dkms build/install, the balloon taken over and inflated, the livepatch on where a variant serves the kernel (smoke-tested) or not built, guestmm-stat + bpftool, the modules back after a reboot, dkms-remove leaves no trace.

The guest is scripts/rootfs/build.sh's image with its own kernel and
initramfs, booted from a qcow2 overlay; the `scripts/install.sh dist`
tarball is a second, read-only disk.  On "trixie" (Debian 13, its own
6.12 kernel built with gcc-14) this is the only way guestmm is built for
that kernel: by DKMS in the guest, as a user does.  Whether the livepatch
is built is what the tree's livepatch/select-variant answers in the guest
for /lib/modules/$(uname -r)/build, the question dkms.conf asks (checked
against the host's answer where the host has the same headers).  The
static guestmm-stat does not link on trixie (elfutils 0.192's libelf.a),
so there the tarball carries none and the BPF step is skipped, saying so.

Expected duration on the 2-core CI machine (TCG, shared with other
guests): 5 to 9 minutes with the image cached (6.1: 357 s, 6.12: 392 s,
trixie: 277 s alone, 548 s beside other work; dkms build 90-240 s, the
reboot 25-180 s of which most is the firmware reloading kernel and initrd
after the reset), plus 1 to 4 minutes for the image when the cache is cold
(trixie's: 73 s, of which debootstrap 27 s and apt 40 s).
"""
import re
import time

import debimage
from dkmslib import (dkms_add, dkms_build, dkms_install, guest_variant,
                     klp_smoke, make_log)

GUEST = dict(mem=1536, smp=2, balloon={}, reboot=True, boot_timeout=600)
KERNELS = ("6.1", "6.12", "trixie")
TIMEOUT = 2400          # seconds, image build excluded (see guest_config)

MIB = 1 << 20
LP = "/sys/kernel/livepatch/guestmm_klp"
VER = None
SERIES = None


# Where the static guestmm-stat cannot be built: why.
NO_STAT = {"trixie": "static-guestmm-stat-does-not-link-on-trixie"
                     "(elfutils-0.192-libelf.a-wants-eu_search_tree-and-zstd)"}


def guest_config(abi):
    """The Debian image of the runner's kernel series, an overlay on it and
    the dist tarball (tests/run calls this before booting)."""
    global VER, SERIES
    SERIES = debimage.series_of(abi)
    VER = debimage.dist_version()
    return debimage.debian_guest(debimage.image_kernel(abi), tag="dkms_e2e",
                                 stat=SERIES not in NO_STAT)


def step(name, t0):
    print("KEY dkms_e2e_step %s seconds=%.0f" % (name, time.monotonic() - t0),
          flush=True)
    return time.monotonic()


# The driver bound to the virtio balloon device ("none" when unbound).
BALLOON_DRIVER = ("for d in /sys/bus/virtio/devices/*; do "
                  "[ \"$(cat $d/device)\" = 0x0005 ] || continue; "
                  "if [ -e $d/driver ]; then "
                  "basename \"$(readlink $d/driver)\"; "
                  "else echo none; fi; done")


def balloon_driver(g):
    return g.sh(BALLOON_DRIVER).strip()


def wait_for(g, script, want, timeout=120):
    """Poll a guest command until its output is `want`."""
    deadline = time.monotonic() + timeout
    while True:
        out = g.sh(script, check=False).strip()
        if out == want:
            return
        assert time.monotonic() < deadline, (script, out, want)
        time.sleep(1)


def inflate_deflate(g, out_mib):
    ram = g.mem * MIB
    total0 = g.meminfo()["MemTotal"]
    g.balloon(ram - out_mib * MIB)
    g.wait_balloon(ram - out_mib * MIB, timeout=300)
    total1 = g.meminfo()["MemTotal"]
    assert total0 - total1 == out_mib * 1024, (total0, total1)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    assert g.meminfo()["MemTotal"] == total0


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
    if SERIES in NO_STAT:
        assert not has_stat      # the tarball carries none (guest_config)
        print("KEY dkms_e2e_bpf skipped=%s" % NO_STAT[SERIES])
    elif has_stat:
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
    g.sh("sync; (sleep 1; systemctl reboot) >/dev/null 2>&1 &")
    g.wait_ready(timeout=600)
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

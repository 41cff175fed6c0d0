# SPDX-License-Identifier: GPL-2.0
"""DKMS end to end in a stock Debian 12 guest booted from its own disk: make dkms-install, dkms build/install, the balloon taken over and inflated, the livepatch on (6.1) or refused (6.12), guestmm-stat + bpftool, the modules back after a reboot, dkms-remove leaves no trace.

The guest is scripts/rootfs/build.sh's image with its own kernel and
initramfs, booted from a qcow2 overlay; the `scripts/install.sh dist`
tarball is a second, read-only disk.  Expected duration on the 2-core CI
machine (TCG, shared with other guests): 6 to 8 minutes with the image
cached (6.1: 357 s, 6.12: 392 s; dkms build 90-240 s, the reboot 25-180 s
of which most is the firmware reloading kernel and initrd after the
reset), plus 2 to 4 minutes for the image when the cache is cold.
"""
import re
import time

import debimage
from klplib import klp_variant

GUEST = dict(mem=1536, smp=2, balloon={}, reboot=True, boot_timeout=600)
KERNELS = ("6.1", "6.12")
TIMEOUT = 2400          # seconds, image build excluded (see guest_config)

MIB = 1 << 20
LP = "/sys/kernel/livepatch/guestmm_klp"
VER = None
SERIES = None


def series_of(abi):
    return ".".join(abi.split(".")[:2])


def guest_config(abi):
    """The Debian image of the runner's kernel series, an overlay on it and
    the dist tarball (tests/run calls this before booting)."""
    global VER, SERIES
    SERIES = series_of(abi)
    VER = debimage.dist_version()
    return debimage.debian_guest(SERIES, tag="dkms_e2e")


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


def modules_of_kernel(g):
    return g.sh("ls /lib/modules/$(uname -r)/updates/dkms/ 2>/dev/null; true").split()


def run(g):
    t_all = t = time.monotonic()
    abi = g.sh("uname -r").strip()
    klp = bool(klp_variant(abi))     # a variant serves this build
    print("KEY dkms_e2e_boot abi=%s seconds=%.0f" % (abi, g.boot_seconds))
    # udev loads the stock driver (coldplug is not over when systemd is).
    debimage.wait_booted(g)
    wait_for(g, BALLOON_DRIVER, "virtio_balloon", timeout=60)

    # The source tree, as a user downloads it.
    g.sh("tar -xf /dev/vdb -C /root")
    src = "/root/guestmm-%s" % VER
    out = g.sh("cd %s && make dkms-install DKMS_BUILD=0 2>&1" % src,
               timeout=300)
    assert "Creating symlink /var/lib/dkms/guestmm/%s/source" % VER in out or \
        "added" in out.lower(), out
    assert g.sh("ls /usr/src/guestmm-%s/dkms.conf" % VER)
    assert "testmods" not in g.sh("find /usr/src/guestmm-%s" % VER)
    assert g.sh("dkms status guestmm 2>/dev/null").strip().endswith(": added"), \
        g.sh("dkms status 2>&1")
    t = step("install_add", t)

    out = g.sh("dkms build -m guestmm -v %s 2>&1" % VER, timeout=2400,
               check=False)
    if g.last_rc:
        log = g.sh("cat /var/lib/dkms/guestmm/%s/build/make.log; true" % VER)
        raise AssertionError("dkms build failed:\n%s\n%s" % (out, log[-4000:]))
    assert "Signing module" in out, out       # dkms made and used its MOK key
    t = step("dkms_build", t)
    g.sh("dkms install -m guestmm -v %s 2>&1" % VER, timeout=300)
    st = g.sh("dkms status guestmm 2>/dev/null").strip()
    assert re.search(r"guestmm/%s, %s, x86_64: installed" %
                     (re.escape(VER), re.escape(abi)), st), st
    mods = modules_of_kernel(g)
    # The livepatch and its tracepoints only where a variant serves the
    # kernel: elsewhere DKMS builds and installs neither (nothing taints).
    want = ["guestmm_balloon"]
    if klp:
        want += ["guestmm_klp", "guestmm_klp_trace"]
    assert sorted(m.split(".")[0] for m in mods) == want, mods
    assert g.sh("modinfo -F signer guestmm_balloon").strip() == \
        "DKMS module signing key"
    if klp:
        assert "/updates/dkms/" in g.sh("modinfo -n guestmm_klp")
        assert g.sh("modinfo -F signer guestmm_klp").strip() == \
            "DKMS module signing key"
    t = step("dkms_install", t)

    # The balloon: the stock driver has it since boot; take it over.
    g.sh("modprobe -r virtio_balloon && modprobe guestmm_balloon")
    assert balloon_driver(g) == "guestmm_balloon", balloon_driver(g)
    inflate_deflate(g, 512)
    t = step("balloon", t)

    # The livepatch: on where supported, a clean refusal elsewhere.
    out = g.sh("modprobe guestmm_klp 2>&1", check=False)
    if klp:
        assert g.last_rc == 0, out
        assert g.sh("cat %s/enabled" % LP).strip() == "1"
        wait_for(g, "cat %s/transition" % LP, "0", timeout=120)
    else:
        assert g.last_rc != 0, out
        assert "not found" in out, out
        assert g.sh("ls -d %s 2>/dev/null; lsmod | grep -c ^guestmm_klp; "
                    "true" % LP).split() == ["0"]
        tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
        assert not tainted & (1 << 15), tainted     # K: livepatch
        log = g.sh("cat /var/lib/dkms/guestmm/%s/build/make.log "
                   "/var/lib/dkms/guestmm/%s/*/*/log/make.log 2>/dev/null; "
                   "true" % (VER, VER))
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
    g.sh("sync; (sleep 1; systemctl reboot) >/dev/null 2>&1 &")
    g.wait_ready(timeout=600)
    print("KEY dkms_e2e_reboot seconds=%.0f" % g.boot_seconds)
    assert g.sh("uname -r").strip() == abi
    state = g.sh("systemctl is-system-running --wait", timeout=300,
                 check=False).strip()
    failed = g.sh("systemctl --failed --no-legend --plain")
    assert state == "running", (state, failed)
    g.sh("udevadm settle", timeout=120)
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

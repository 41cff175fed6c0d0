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
import os
import re
import time

import debimage
from klplib import STATS, klp_stats, klp_variant, wait_transition

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
    return debimage.debian_guest(SERIES, tag="dkms_e2e",
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


def modules_of_kernel(g):
    return g.sh("ls /lib/modules/$(uname -r)/updates/dkms/ 2>/dev/null; true").split()


def make_log(g):
    """DKMS's build log: build/make.log (dkms 3.0, Debian 12) or
    <kver>/<arch>/log/make.log (dkms 3.2, Debian 13)."""
    return g.sh("cat /var/lib/dkms/guestmm/%s/build/make.log "
                "/var/lib/dkms/guestmm/%s/*/*/log/make.log 2>/dev/null; "
                "true" % (VER, VER))


def guest_variant(g, abi):
    """The livepatch variant for the guest's kernel: the tree's own
    select-variant on the guest's headers, as dkms.conf runs it.  Where
    the host has the same headers, its answer (klp_variant) must agree."""
    out = g.sh("/usr/src/guestmm-%s/livepatch/select-variant "
               "/lib/modules/$(uname -r)/build 2>/tmp/select-variant.err"
               % VER).strip()
    why = g.sh("cat /tmp/select-variant.err").strip()
    host = None
    if os.path.exists("/usr/src/linux-headers-%s/Makefile" % abi):
        host = klp_variant(abi)
        assert host == out, (host, out, why)
    print("KEY dkms_e2e_klp_variant series=%s variant=%s host=%s%s" % (
        SERIES, out or "none", "same" if host is not None else "no-headers",
        "" if out else " why=%r" % why[:200]), flush=True)
    return out


def tracing_dir(g):
    return g.sh("d=/sys/kernel/tracing; [ -e $d/events ] || "
                "d=/sys/kernel/debug/tracing; echo $d").strip()


def klp_smoke(g):
    """The livepatch as a user would try it, with kmod's modprobe (the
    trace module comes first by MODULE_SOFTDEP): enabled, the transition
    over, compaction running through it (counters and tracepoint), then
    disabled and both modules removed."""
    t0 = time.monotonic()
    out = g.sh("modprobe guestmm_klp 2>&1")
    mods = g.sh("lsmod | awk '{print $1}'").split()
    assert "guestmm_klp" in mods and "guestmm_klp_trace" in mods, (out, mods)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"
    secs = wait_transition(g, timeout=120)
    assert "compact_zone replaced" in g.dmesg()
    tr = tracing_dir(g)
    events = ("guestmm_klp/guestmm_klp_run", "compaction/mm_compaction_begin")
    g.sh(" && ".join("echo 1 > %s/events/%s/enable" % (tr, e)
                     for e in events) + " && echo > %s/trace" % tr)
    before = klp_stats(g)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    after = klp_stats(g)
    trace = g.sh("cat %s/trace" % tr, timeout=120)
    g.sh(" && ".join("echo 0 > %s/events/%s/enable" % (tr, e)
                     for e in events))
    runs = after["runs"] - before["runs"]
    ours = trace.count("guestmm_klp_run:")
    begins = trace.count("mm_compaction_begin:")
    print("KEY dkms_e2e_klp_smoke transition_seconds=%.1f runs=%d "
          "migrate_scanned=%d klp_run_lines=%d compaction_begin_lines=%d" % (
              secs, runs, after["migrate_scanned"] - before["migrate_scanned"],
              ours, begins), flush=True)
    assert runs >= 2, (before, after)       # DMA and DMA32 at least
    assert ours >= 1 and begins >= 1, trace[-2000:]
    assert g.sh("stat -c %a " + STATS).strip() == "400"
    g.sh("echo 0 > %s/enabled" % LP)
    secs = wait_transition(g, timeout=120)
    g.sh("rmmod guestmm_klp guestmm_klp_trace")
    assert g.sh("lsmod | grep ^guestmm_klp; ls -d %s 2>/dev/null; true"
                % LP).strip() == ""
    print("KEY dkms_e2e_klp_off transition_seconds=%.1f total_seconds=%.0f"
          % (secs, time.monotonic() - t0), flush=True)


def run(g):
    t_all = t = time.monotonic()
    abi = g.sh("uname -r").strip()
    assert debimage.series_of(abi) == SERIES, (abi, SERIES)
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
    # A variant serves this build: DKMS builds the livepatch (dkms.conf).
    klp = bool(guest_variant(g, abi))
    assert "testmods" not in g.sh("find /usr/src/guestmm-%s" % VER)
    assert g.sh("dkms status guestmm 2>/dev/null").strip().endswith(": added"), \
        g.sh("dkms status 2>&1")
    t = step("install_add", t)

    out = g.sh("dkms build -m guestmm -v %s 2>&1" % VER, timeout=2400,
               check=False)
    if g.last_rc:
        log = make_log(g)
        first = [l for l in log.splitlines() if re.search(
            r"error:|\*\*\* |Error ", l)][:12]
        raise AssertionError("dkms build failed:\n%s\nfirst errors:\n%s\n"
                             "make.log's end:\n%s" % (out, "\n".join(first),
                                                       log[-3000:]))
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
    if klp:
        klp_smoke(g)
    else:
        out = g.sh("modprobe guestmm_klp 2>&1", check=False)
        assert g.last_rc != 0, out
        assert "not found" in out, out
        assert g.sh("ls -d %s 2>/dev/null; lsmod | grep -c ^guestmm_klp; "
                    "true" % LP).split() == ["0"]
        tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
        assert not tainted & (1 << 15), tainted     # K: livepatch
        log = make_log(g)
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

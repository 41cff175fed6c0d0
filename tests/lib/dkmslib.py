# SPDX-License-Identifier: GPL-2.0
"""Helpers for the cases that build guestmm with DKMS inside a stock Debian
guest booted from its own image (scripts/guest/debimage.py): dkms_e2e,
deb_upgrade and klp_dkms_smoke.  `ver` is guestmm's version (debimage.dist_version()),
`tag` the prefix of the KEY lines a helper prints (the case's name)."""
import os
import re
import time

from klplib import LP, STATS, klp_stats, klp_variant, wait_transition

# Taint flags (/proc/sys/kernel/tainted bits) a guest with guestmm loaded by
# DKMS may carry: O out-of-tree modules, E modules signed with DKMS's own
# key, which the kernel does not trust, K a livepatch was loaded (kept
# after it is removed).  Anything else (W a warning, D a die, ...) is a
# problem.
TAINT_LETTERS = "PFSRMBUDAWCIOELKXTN"
EXPECTED_TAINT = set("OEK")


MIB = 1 << 20

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
    """The host inflates the balloon by out_mib over QMP and deflates it:
    MemTotal follows exactly, both ways."""
    ram = g.mem * MIB
    total0 = g.meminfo()["MemTotal"]
    g.balloon(ram - out_mib * MIB)
    g.wait_balloon(ram - out_mib * MIB, timeout=300)
    total1 = g.meminfo()["MemTotal"]
    assert total0 - total1 == out_mib * 1024, (total0, total1)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    assert g.meminfo()["MemTotal"] == total0


def taint_flags(g):
    """The kernel's taint flags, as letters ("OEK")."""
    tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
    return "".join(c for i, c in enumerate(TAINT_LETTERS) if tainted >> i & 1)


def make_log(g, ver):
    """DKMS's build log: build/make.log (dkms 3.0, Debian 12) or
    <kver>/<arch>/log/make.log (dkms 3.2, Debian 13)."""
    return g.sh("cat /var/lib/dkms/guestmm/%s/build/make.log "
                "/var/lib/dkms/guestmm/%s/*/*/log/make.log 2>/dev/null; "
                "true" % (ver, ver))


def dkms_add(g, ver):
    """Unpack the dist tarball (/dev/vdb) as a user downloads it and
    `make dkms-install DKMS_BUILD=0` (dkms add only); return the unpacked
    source directory."""
    g.sh("tar -xf /dev/vdb -C /root")
    src = "/root/guestmm-%s" % ver
    out = g.sh("cd %s && make dkms-install DKMS_BUILD=0 2>&1" % src,
               timeout=300)
    assert "Creating symlink /var/lib/dkms/guestmm/%s/source" % ver in out or \
        "added" in out.lower(), out
    assert g.sh("ls /usr/src/guestmm-%s/dkms.conf" % ver)
    assert "testmods" not in g.sh("find /usr/src/guestmm-%s" % ver)
    return src


def guest_variant(g, ver, abi, tag, series):
    """The livepatch variant for the guest's kernel: the tree's own
    select-variant on the guest's headers, as dkms.conf runs it.  Where
    the host has the same headers, its answer (klp_variant) must agree."""
    out = g.sh("/usr/src/guestmm-%s/livepatch/select-variant "
               "/lib/modules/$(uname -r)/build 2>/tmp/select-variant.err"
               % ver).strip()
    why = g.sh("cat /tmp/select-variant.err").strip()
    host = None
    if os.path.exists("/usr/src/linux-headers-%s/Makefile" % abi):
        host = klp_variant(abi)
        assert host == out, (host, out, why)
    print("KEY %s_klp_variant series=%s variant=%s host=%s%s" % (
        tag, series, out.replace(" ", ",") or "none", "same" if host is not None else
        "no-headers", "" if out else " why=%r" % why[:200]), flush=True)
    return out


def dkms_build(g, ver):
    """`dkms build` for the running kernel; on failure, the first errors
    of make.log and its end."""
    out = g.sh("dkms build -m guestmm -v %s 2>&1" % ver, timeout=2400,
               check=False)
    if g.last_rc:
        log = make_log(g, ver)
        first = [l for l in log.splitlines() if re.search(
            r"error:|\*\*\* |Error ", l)][:12]
        raise AssertionError("dkms build failed:\n%s\nfirst errors:\n%s\n"
                             "make.log's end:\n%s" % (out, "\n".join(first),
                                                       log[-3000:]))
    assert "Signing module" in out, out       # dkms made and used its MOK key
    return out


def modules_of_kernel(g):
    return g.sh("ls /lib/modules/$(uname -r)/updates/dkms/ 2>/dev/null; "
                "true").split()


def dkms_install(g, ver, abi, klp):
    """`dkms install`; the modules are the running kernel's, signed by
    DKMS, the livepatch and its tracepoints among them exactly when a
    variant serves the kernel (klp)."""
    g.sh("dkms install -m guestmm -v %s 2>&1" % ver, timeout=300)
    st = g.sh("dkms status guestmm 2>/dev/null").strip()
    assert re.search(r"guestmm/%s, %s, x86_64: installed" %
                     (re.escape(ver), re.escape(abi)), st), st
    mods = modules_of_kernel(g)
    # Elsewhere DKMS builds and installs neither (nothing taints).
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


def tracing_dir(g):
    return g.sh("d=/sys/kernel/tracing; [ -e $d/events ] || "
                "d=/sys/kernel/debug/tracing; echo $d").strip()


def klp_smoke(g, tag):
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
    print("KEY %s_klp_smoke transition_seconds=%.1f runs=%d "
          "migrate_scanned=%d klp_run_lines=%d compaction_begin_lines=%d" % (
              tag, secs, runs,
              after["migrate_scanned"] - before["migrate_scanned"],
              ours, begins), flush=True)
    assert runs >= 2, (before, after)       # DMA and DMA32 at least
    assert ours >= 1 and begins >= 1, trace[-2000:]
    assert g.sh("stat -c %a " + STATS).strip() == "400"
    g.sh("echo 0 > %s/enabled" % LP)
    secs = wait_transition(g, timeout=120)
    g.sh("rmmod guestmm_klp guestmm_klp_trace")
    assert g.sh("lsmod | grep ^guestmm_klp; ls -d %s 2>/dev/null; true"
                % LP).strip() == ""
    print("KEY %s_klp_off transition_seconds=%.1f total_seconds=%.0f"
          % (tag, secs, time.monotonic() - t0), flush=True)

# SPDX-License-Identifier: GPL-2.0
"""Debian packages end to end, one release per case (deb_upgrade: Debian
12, deb_upgrade_trixie: Debian 13): guestmm-dkms and guestmm-tools
installed on the release's older kernel build, reboot (balloon bound,
livepatch on), apt install the newer kernel (DKMS builds for it), boot it
(the same holds, the balloon inflates and deflates over QMP), node_exporter
serves guestmm-stat's series, DKMS's build for that kernel removed (as on a
kernel guestmm is not built for: the stock driver has the device after the
next boot and nothing fails), apt remove --purge (nothing left, the stock
driver back after the next boot).

Each release's guest runs the flavour debimage.RELEASE_FLAVOUR names.
Debian 12's is a cloud image: the cloud-amd64 kernel, upgraded to the
next cloud-amd64 build, with Debian's cloud-init (layer.sh installs it
with a cloud kernel), which installs the packages at the first boot from
a NoCloud seed disk (USER_DATA) and enables the probes' units, as a
cloud operator deploys it.  Debian 13's is an installation on the amd64
kernel, where an administrator runs apt install by hand.

The packages are `make deb`'s, each release's own: Debian 12's built on
this host, Debian 13's in a Debian 13 build root with its toolchain
(`make deb DIST=trixie`), both checked by lintian (make check's background
prewarm builds them first; a second make deb of the same tree builds
nothing).  Each guest boots its release's image on an older kernel build
(scripts/rootfs/layer.sh: Debian 12 on bookworm's own oldest build of the
support matrix, Debian 13 on trixie's) and gets, as a read-only disk, the
two packages, the newer kernel's packages (scripts/rootfs/kernel-debs.sh:
what `apt install linux-image-amd64 linux-headers-amd64` fetches) and
what the image lacks of guestmm-tools' dependencies (libbpf1 on Debian
12), all from the archive through the release's private apt view: the
guests are offline, so `apt install ./*.deb` stands for apt with a mirror.

The images boot their kernel through QEMU's -kernel (they have no
bootloader): to boot the kernel apt installed, the guest writes its
vmlinuz and initrd.img to a scratch disk, powers off, and the host boots
those (Guest.shutdown/start), which is what the firmware and GRUB would
do.  Each guest runs on one TCG thread (debimage), so the cases are
ONE_CORE: a case beside another (tests/run -j 2).  make check runs
deb_upgrade, make check-kernels deb_upgrade_trixie.

Each guest first sets MODULES=dep in /etc/initramfs-tools/conf.d
(INITRAMFS_CONF), as an image made for one kind of virtual machine is
configured: the initramfs that the new kernel's postinst builds then
holds the modules this machine's root needs (virtio_blk, ext4, ...)
instead of every disk and file system driver. With Debian's
MODULES=most, that build was most of Debian 12's kernel upgrade: its
initramfs-tools (0.142) copies each of about a thousand modules through
a shell function (modinfo, realpath, readlink, mkdir, cp: several
processes per module, slow under TCG), and mkinitramfs took 995 s of the
postinst's 1350 s, DKMS's build for the new kernel 345 s (built once, by
the postinst.d hook; the headers' hook found it installed). Debian 13's
(0.148) hands the list to one dracut-install, so less is saved there.
Neither initramfs carries a balloon driver (guestmm-dkms's postinst asks
for no rebuild, see debian/), so nothing the case checks depends on it.

Measured (a cold cache, both side by side after the light
cases, when make check ran both): DKMS's build at install 475 s (Debian 12) and 518 s (Debian 13),
the kernel upgrade 577 s and about 650 s, each whole case 25-31 minutes.
"""
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time

import debimage
import promfmt
from dkmslib import (BALLOON_DRIVER, MIB, inflate_deflate, make_log,
                     wait_for)
from klplib import klp_stats

# The cases' GUEST and TIMEOUT.
GUEST = dict(mem=1536, smp=2, balloon={}, boot_timeout=600)
TIMEOUT = 3600          # seconds, images and packages excluded (guest_config)

TOP = debimage.TOP
LP = "/sys/kernel/livepatch/guestmm_klp"
# release name -> (image series, make deb's DIST: None built on this host)
RELEASES = {"debian12": ("6.1", None), "debian13": ("trixie", "trixie")}
EXPORTER = ("prometheus-node-exporter", "curl")
TEXTFILE = "/var/lib/prometheus/node-exporter/guestmm.prom"
# The test image's initramfs-tools setting (see the docstring); the
# file is the image's, not guestmm's, so the purge check (nothing named
# *guestmm* left) must not find it.
INITRAMFS_CONF = "/etc/initramfs-tools/conf.d/modules-dep.conf"

APT = ("DEBIAN_FRONTEND=noninteractive apt-get -q -y "
       "-o Dpkg::Use-Pty=0 --no-install-recommends")

# A cloud image's guest (debimage.RELEASE_FLAVOUR cloud-amd64) gets
# guestmm through cloud-init at its first boot, from this NoCloud seed on
# a disk labelled CIDATA (docs/install.md shows the same with the
# packages from a repository).  The packages come on the case's disk
# /dev/vdc, a tar.  The test image has no locale but C.UTF-8, and
# cloud-init's default, en_US.UTF-8, would be an error.
USER_DATA = """#cloud-config
locale: C.UTF-8
runcmd:
  - [sh, -c, "mkdir -p /root/debs && tar -xf /dev/vdc -C /root/debs"]
  - [sh, -c, "DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install /root/debs/guestmm/*.deb"]
  - [systemctl, enable, --now, guestmm-stat.service]
"""
# (An instance ID without "guestmm" in it: cloud-init names a directory
# after it, and the purge check finds every file named *guestmm*.)
META_DATA = "instance-id: iid-deb-upgrade\n"


def run_out(cmd):
    return subprocess.run(cmd, check=True, text=True,
                          stdout=subprocess.PIPE).stdout


def build_packages(dist=None):
    """make deb (dpkg-buildpackage, then lintian --fail-on warning): the
    two packages a guest installs.  dist="trixie": built in a Debian 13
    build root with Debian 13's toolchain (scripts/rootfs/deb-build.sh),
    else on this Debian 12 host."""
    t0 = time.monotonic()
    cmd = ["make", "-s", "--no-print-directory", "deb"]
    if dist:
        cmd.append("DIST=" + dist)
    p = subprocess.run(cmd, cwd=TOP, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    assert p.returncode == 0, "make deb %s failed:\n%s" % (
        dist or "", p.stdout[-4000:])
    d = os.path.join(TOP, "build/deb", dist or "")
    debs = sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".deb") and "-dbgsym_" not in f)
    names = [os.path.basename(f).split("_")[0] for f in debs]
    assert names == ["guestmm-dkms", "guestmm-tools"], debs
    print("KEY deb_upgrade_make_deb dist=%s seconds=%.0f lintian=clean" %
          (dist or "host", time.monotonic() - t0), flush=True)
    return debs


def missing_depends(series, image_dir, debs):
    """Of the packages' plain dependencies, those the image lacks:
    downloaded through the series' apt view (kernel-debs.sh --pkgs)."""
    have = set()
    with open(os.path.join(image_dir, "packages.txt")) as f:
        for line in f:
            have.add(line.split()[0].split(":")[0])
    want = set()
    for d in debs:
        dep = run_out(["dpkg-deb", "-f", d, "Depends"])
        for alt in dep.split(","):
            alt = alt.strip()
            if alt and "|" not in alt:
                want.add(alt.split()[0])
    return sorted(want - have - {"guestmm-dkms", "guestmm-tools"})


def seed_disk(path):
    """The NoCloud seed: a FAT file system labelled CIDATA holding
    user-data and meta-data, as cloud-localds makes one."""
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("user-data", USER_DATA),
                           ("meta-data", META_DATA)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        run_out(["mkfs.vfat", "-n", "CIDATA", "-C", path, "1024"])
        run_out(["mcopy", "-i", path, os.path.join(d, "user-data"),
                 os.path.join(d, "meta-data"), "::"])


def plan(rel, series, debs):
    """Images, packages and disks of one release's run."""
    flavour = debimage.RELEASE_FLAVOUR[series]
    old = debimage.release_kernel(series)
    keys = debimage.debian_guest(old, tag="deb_upgrade_" + rel)
    image = os.path.dirname(keys["kernel"])
    tmp = tempfile.mkdtemp(prefix="guestmm-deb.")
    kdir = os.path.join(tmp, "kernel")
    run_out([os.path.join(TOP, "scripts/rootfs/kernel-debs.sh"),
             "--flavour", flavour, series, kdir])
    # The build the flavour's metapackage brings.
    new, = [m.group(1) for m in (re.match(r"linux-image-([0-9][^_]*)_", f)
                                 for f in os.listdir(kdir)) if m]
    assert old != new and debimage.flavour_of(new) == flavour, (old, new)
    extra = missing_depends(series, image, debs)
    ddir = os.path.join(tmp, "deps")
    if extra:
        run_out([os.path.join(TOP, "scripts/rootfs/kernel-debs.sh"),
                 "--pkgs", " ".join(extra), series, ddir])
    # Debian's node_exporter, and curl to scrape it.
    run_out([os.path.join(TOP, "scripts/rootfs/kernel-debs.sh"), "--pkgs",
             " ".join(EXPORTER), series, os.path.join(tmp, "exporter")])
    pack = os.path.join(tmp, "debs.tar")
    cloud = flavour == "cloud-amd64"
    # Where each set goes: a cloud image's seed installs guestmm/*.deb,
    # so the dependencies the image lacks go beside the packages, as a
    # repository would have them.
    where = {"kernel": "kernel", "exporter": "exporter",
             "deps": "guestmm" if cloud else "deps"}
    with tarfile.open(pack, "w") as t:
        for d in debs:
            t.add(d, "guestmm/" + os.path.basename(d))
        for sub in ("kernel", "deps", "exporter"):
            d = os.path.join(tmp, sub)
            if os.path.isdir(d):
                for f in sorted(os.listdir(d)):
                    if f.endswith(".deb"):
                        t.add(os.path.join(d, f), "%s/%s" % (where[sub], f))
    scratch = os.path.join(tmp, "boot.raw")
    with open(scratch, "wb") as f:
        f.truncate(256 * MIB)
    keys["drives"] = keys["drives"] + [
        {"file": pack, "readonly": True}, {"file": scratch}]
    if cloud:
        seed = os.path.join(tmp, "seed.img")
        seed_disk(seed)
        keys["drives"].append({"file": seed, "readonly": True})
    print("KEY deb_upgrade_plan release=%s flavour=%s old=%s new=%s "
          "kernel_debs=%d deps=%s install=%s" % (
              rel, flavour, old, new,
              len([f for f in os.listdir(kdir) if f.endswith(".deb")]),
              ",".join(extra) or "none", "cloud-init" if cloud else "apt"),
          flush=True)
    return dict(rel=rel, series=series, old=old, new=new, keys=keys,
                tmp=tmp, scratch=scratch, cloud=cloud)


# ---- checks ---------------------------------------------------------------
def variant_for(g, p, abi):
    """What dkms.conf asks: does a livepatch variant serve kernel abi?"""
    return g.sh("/usr/src/guestmm-%s/livepatch/select-variant "
                "/lib/modules/%s/build 2>/dev/null; true" % (p["ver"], abi)).strip()


def built_for(g, p, abi):
    """DKMS built and installed guestmm for abi: the balloon always, the
    livepatch and its tracepoints exactly where a variant serves it;
    returns whether the livepatch is there."""
    st = g.sh("dkms status guestmm 2>/dev/null")
    assert re.search(r"guestmm/%s, %s, x86_64: installed" %
                     (re.escape(p["ver"]), re.escape(abi)), st), \
        (p["rel"], abi, st, make_log(g, p["ver"])[-3000:])
    klp = bool(variant_for(g, p, abi))
    mods = sorted(m.split(".")[0] for m in g.sh(
        "ls /lib/modules/%s/updates/dkms/" % abi).split())
    want = ["guestmm_balloon"] + (["guestmm_klp", "guestmm_klp_trace"]
                                  if klp else [])
    assert mods == want, (p["rel"], abi, mods, want)
    # Signed with DKMS's own key (what Secure Boot needs once it is
    # enrolled, docs/install.md): the signature's key serial is that of
    # /var/lib/dkms/mok.pub.
    serial = g.sh("openssl x509 -inform DER -in /var/lib/dkms/mok.pub "
                  "-noout -serial").strip().split("=")[1].lower()
    for m in want:
        f = g.sh("modinfo -k %s -n %s" % (abi, m)).strip()
        signer = g.sh("modinfo -F signer %s" % f).strip()
        key = g.sh("modinfo -F sig_key %s" % f).strip().replace(":", "")
        assert signer == "DKMS module signing key", (m, signer)
        assert key.lower().lstrip("0") == serial.lstrip("0"), (m, key, serial)
    return klp


def check_boot(g, p, abi, klp):
    """After a boot on abi with the packages installed: guestmm_balloon
    has the device, the livepatch is on (where built) or absent and the
    kernel untainted by it."""
    assert g.sh("uname -r").strip() == abi, (p["rel"], abi)
    debimage.wait_booted(g)
    wait_for(g, BALLOON_DRIVER, "guestmm_balloon", timeout=120)
    assert "virtio_balloon" not in g.sh("lsmod | awk '{print $1}'").split()
    state = g.sh("systemctl show -p ActiveState -p Result "
                 "guestmm-klp.service")
    if klp:
        assert g.sh("cat %s/enabled" % LP).strip() == "1", state
        wait_for(g, "cat %s/transition" % LP, "0", timeout=180)
        assert "ActiveState=active" in state, state
        # Compaction runs through the patched scanner.
        before = klp_stats(g)
        g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
        runs = klp_stats(g)["runs"] - before["runs"]
        assert runs >= 2, (p["rel"], abi, runs)     # DMA and DMA32 at least
    else:
        assert not g.sh("ls -d %s 2>/dev/null; true" % LP).strip()
        # ExecCondition (modinfo) found no module: skipped, not failed.
        assert "ActiveState=inactive" in state and \
            "Result=exec-condition" in state, state
        tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
        assert not tainted & (1 << 15), tainted     # K: livepatch
    print("KEY deb_upgrade_boot release=%s abi=%s klp=%d seconds=%.0f" % (
        p["rel"], abi, klp, g.boot_seconds), flush=True)


def without_module(g, p, abi):
    """A kernel guestmm is not built for (a 7.x kernel, which dkms.conf
    excludes, or a DKMS build that failed), as the running kernel abi
    becomes by `dkms remove` of its build: at the next boot the stock
    virtio_balloon has the device (modprobe.d's install command, which
    says why in the kernel log), systemd-modules-load does not fail on
    the missing guestmm_balloon, the livepatch's unit is skipped, the
    probes load, and the host can still take memory back."""
    g.sh("dkms remove guestmm/%s -k %s 2>&1" % (p["ver"], abi), timeout=300)
    assert not g.sh("modinfo -k %s -F filename guestmm_balloon "
                    "2>/dev/null; true" % abi).strip()
    power_cycle(g)
    assert g.sh("uname -r").strip() == abi
    debimage.wait_booted(g)         # no failed unit
    wait_for(g, BALLOON_DRIVER, "virtio_balloon", timeout=120)
    assert "ActiveState=active" in g.sh(
        "systemctl show -p ActiveState systemd-modules-load.service")
    state = g.sh("systemctl show -p ActiveState -p Result "
                 "guestmm-klp.service")
    assert "Result=exec-condition" in state, state
    assert ("guestmm: no guestmm_balloon module for %s" % abi) in \
        g.sh("dmesg"), g.sh("dmesg | tail -n 20")
    # The probes (enabled by node_exporter()) load without the balloon.
    assert g.sh("systemctl is-active guestmm-stat.service; true"
                ).strip() == "active"
    inflate_deflate(g, 256)


def dpkg_mark(g):
    """Where /var/log/dpkg.log ends now (for dpkg_times)."""
    return int(g.sh("cat /var/log/dpkg.log 2>/dev/null | wc -l"))


def dpkg_times(g, p, what, mark):
    """Seconds each package's configuration (and each trigger) took since
    dpkg_mark(), from /var/log/dpkg.log: where an install's time goes."""
    log = g.sh("tail -n +%d /var/log/dpkg.log" % (mark + 1))
    start, took = {}, {}
    for line in log.splitlines():
        f = line.split()
        if len(f) < 4:
            continue
        t = time.mktime(time.strptime(f[0] + " " + f[1], "%Y-%m-%d %H:%M:%S"))
        if f[2] in ("configure", "trigproc"):
            start[(f[2], f[3].split(":")[0])] = t
        elif f[2] == "status" and f[3] == "installed" and len(f) > 4:
            name = f[4].split(":")[0]
            for k in (("configure", name), ("trigproc", name)):
                if k in start:
                    took["%s:%s" % k] = t - start.pop(k)
    slow = sorted(((v, k) for k, v in took.items() if v >= 5), reverse=True)
    print("KEY deb_upgrade_dpkg release=%s %s %s" % (
        p["rel"], what, " ".join("%s=%.0f" % (k, v) for v, k in slow[:8])),
        flush=True)


def step(p, name, t0):
    print("KEY deb_upgrade_step release=%s %s seconds=%.0f" % (
        p["rel"], name, time.monotonic() - t0), flush=True)
    return time.monotonic()


def power_cycle(g):
    """Reboot as a power cycle: systemctl poweroff, then a fresh QEMU on
    the same disks.  An in-guest reboot re-runs QEMU's firmware, which
    under one TCG thread took 580 s to load this kernel and initramfs
    again (a fresh start: 20 s)."""
    g.shutdown()
    g.start()


def boot_installed_kernel(g, p, abi):
    """Boot the kernel apt installed: its vmlinuz and initrd.img go to
    the scratch disk, the guest powers off, the host boots them."""
    g.sh("tar -cf /dev/vdd -C /boot vmlinuz-%s initrd.img-%s && sync"
         % (abi, abi), timeout=300)
    g.shutdown()
    out = os.path.join(p["tmp"], "boot-" + abi)
    os.makedirs(out)
    with tarfile.open(p["scratch"]) as t:
        t.extractall(out)
    g.kernel = os.path.join(out, "vmlinuz-" + abi)
    g.initrd = os.path.join(out, "initrd.img-" + abi)
    g.start()


def guestmm_lines(text):
    """The guestmm_ families of a /metrics page (node_exporter's own are
    left out: promfmt checks only what guestmm writes)."""
    keep = []
    for line in text.splitlines():
        name = line.split()[2] if line.startswith("# ") and \
            len(line.split()) > 2 else line
        if name.startswith("guestmm_"):
            keep.append(line)
    return "\n".join(keep) + "\n"


def as_float(samples):
    """Prometheus samples with float values and numeric `le` labels."""
    res = {}
    for (name, labels), v in samples.items():
        labels = frozenset((k, float(x) if k == "le" else x)
                           for k, x in labels)
        res[(name, labels)] = float(v)
    return res


def differ(a, b):
    """What two sample sets do not share (the first few)."""
    return dict(only_a=sorted(set(a) - set(b), key=str)[:5],
                only_b=sorted(set(b) - set(a), key=str)[:5],
                values=sorted(((k, a[k], b[k]) for k in set(a) & set(b)
                               if a[k] != b[k]), key=str)[:5])


def node_exporter(g, p):
    """Debian's prometheus-node-exporter serves the series
    guestmm-prometheus.timer writes, with the values of guestmm-stat
    show -j; the timer keeps the file fresh."""
    g.sh("%s install /root/debs/exporter/*.deb 2>&1" % APT, timeout=900)
    g.sh("systemctl enable --now guestmm-stat.service "
         "guestmm-prometheus.timer 2>&1", timeout=300)
    assert g.sh("ls /sys/fs/bpf/guestmm | wc -l").strip() != "0"
    wait_for(g, "systemctl is-active prometheus-node-exporter", "active")
    # One write of the file, with the timer stopped, between two reads of
    # show -j: each value must lie between the two reads' (the counters
    # may move meanwhile: khugepaged compacts and migrates), and /metrics
    # must carry the file's guestmm series exactly.
    g.sh("systemctl stop guestmm-prometheus.timer")
    j0 = json.loads(g.sh("guestmm-stat show -j"))
    g.sh("systemctl start guestmm-prometheus.service")
    j1 = json.loads(g.sh("guestmm-stat show -j"))
    page = g.sh("curl -sf http://127.0.0.1:9100/metrics", timeout=120)
    assert re.search(r"^node_textfile_scrape_error 0$", page, re.M), \
        [l for l in page.splitlines() if "textfile" in l]
    # node_exporter re-renders what it read: values as float64, `le`
    # labels in Go's float syntax ("1.024e-06" for "0.000001024").
    got = as_float(promfmt.parse(guestmm_lines(page)))
    fil = as_float(promfmt.parse(g.sh("cat " + TEXTFILE)))
    assert got == fil, "/metrics vs %s: %s" % (TEXTFILE, differ(got, fil))
    lo = as_float(promfmt.json_to_prom(j0))
    hi = as_float(promfmt.json_to_prom(j1))
    assert set(got) == set(lo) == set(hi), (
        sorted(set(lo) ^ set(got))[:10], sorted(set(hi) ^ set(got))[:10])
    off = sorted((k, lo[k], got[k], hi[k]) for k in got
                 if not min(lo[k], hi[k]) <= got[k] <= max(lo[k], hi[k]))
    assert not off, "node_exporter outside show -j's two reads: %s" % off[:10]
    same = sum(1 for k in got if lo[k] == got[k] == hi[k])
    g.sh("systemctl start guestmm-prometheus.timer")
    # The timer rewrites the file (every 15 s): a newer mtime within 45 s.
    m0 = g.sh("stat -c %%Y %s" % TEXTFILE).strip()
    deadline = time.monotonic() + 45
    while g.sh("stat -c %%Y %s" % TEXTFILE).strip() == m0:
        assert time.monotonic() < deadline, "the timer did not rewrite " + \
            TEXTFILE
        time.sleep(2)
    assert g.sh("stat -c %%a %s" % TEXTFILE).strip() == "644"
    print("KEY deb_upgrade_node_exporter release=%s series=%d "
          "unchanged_between_reads=%d" % (p["rel"], len(got), same),
          flush=True)


def install_by_apt(g):
    """apt install of the two packages, by hand; what it printed."""
    g.sh("mkdir -p /root/debs && tar -xf /dev/vdc -C /root/debs")
    if g.sh("ls /root/debs/deps 2>/dev/null; true").strip():
        g.sh("%s install /root/debs/deps/*.deb 2>&1" % APT, timeout=600)
    return g.sh("%s install /root/debs/guestmm/*.deb 2>&1" % APT,
                timeout=2400)


def install_by_cloud_init(g, p):
    """cloud-init, at this first boot, runs the seed (USER_DATA): the
    packages installed, the probes' units enabled.  Waits for it to end;
    what its runcmd printed."""
    # result.json is written as the last stage ends (`status --wait`
    # returns at a stage's first error, while the rest still runs).
    wait_for(g, "test -e /run/cloud-init/result.json && echo done", "done",
             timeout=3000)
    res = json.loads(g.sh("cat /run/cloud-init/result.json"))["v1"]
    out = g.sh("cat /var/log/cloud-init-output.log")
    assert "NoCloud" in res["datasource"] and not res["errors"], (res, out[-3000:])
    print("KEY deb_upgrade_cloud_init release=%s datasource=%s version=%s" % (
        p["rel"], res["datasource"].split()[0],
        g.sh("cloud-init --version 2>&1").split()[-1]), flush=True)
    return out


# ---- one release's run ----------------------------------------------------
def upgrade(g, p):
    t_all = t = time.monotonic()
    old, new = p["old"], p["new"]
    assert g.sh("uname -r").strip() == old
    # The packages: DKMS builds for the running kernel; nothing switches
    # live (the balloon keeps its driver until the next boot).  A cloud
    # image installs them through cloud-init at this first boot (the
    # image's dpkg.log starts empty), whose seed also enables the probes'
    # units; by hand they stay off.
    if p["cloud"]:
        mark, out = 0, install_by_cloud_init(g, p)
    debimage.wait_booted(g)
    wait_for(g, BALLOON_DRIVER, "virtio_balloon", timeout=60)
    if not p["cloud"]:
        mark = dpkg_mark(g)
        out = install_by_apt(g)
    g.sh("echo MODULES=dep > " + INITRAMFS_CONF)
    assert "guestmm" in g.sh("dpkg-query -W -f '${Status} ${Package}\\n' "
                             "guestmm-dkms guestmm-tools"), out[-3000:]
    dpkg_times(g, p, "install", mark)
    klp_old = built_for(g, p, old)
    assert g.sh(BALLOON_DRIVER).strip() == "virtio_balloon"
    enabled = g.sh("systemctl is-enabled guestmm-klp.service "
                   "guestmm-stat.service guestmm-prometheus.timer; true"
                   ).split()
    # The seed enables the probes; the metrics' timer waits for
    # node_exporter (node_exporter()), whose directory it writes to.
    probes = "enabled" if p["cloud"] else "disabled"
    assert enabled == ["enabled", probes, "disabled"], enabled
    t = step(p, "install", t)

    power_cycle(g)
    check_boot(g, p, old, klp_old)
    inflate_deflate(g, 256)
    t = step(p, "reboot", t)

    # The newer kernel from the archive: its postinst runs DKMS for it.
    mark = dpkg_mark(g)
    g.sh("%s install /root/debs/kernel/*.deb 2>&1" % APT, timeout=2400)
    dpkg_times(g, p, "kernel_upgrade", mark)
    klp_new = built_for(g, p, new)
    t = step(p, "kernel_upgrade", t)

    boot_installed_kernel(g, p, new)
    check_boot(g, p, new, klp_new)
    inflate_deflate(g, 512)
    t = step(p, "new_kernel", t)

    node_exporter(g, p)
    t = step(p, "node_exporter", t)

    without_module(g, p, new)
    t = step(p, "without_module", t)

    # Purge: the probes unpinned (guestmm-stat.service loaded them), the
    # metrics file, DKMS's builds, every file gone; the stock driver has
    # the device after the next boot.
    mark = dpkg_mark(g)
    g.sh("%s remove --purge guestmm-dkms guestmm-tools 2>&1" % APT,
         timeout=1200)
    dpkg_times(g, p, "purge", mark)
    assert g.sh("ls -d /sys/fs/bpf/guestmm 2>/dev/null; true").strip() == ""
    assert g.sh("dkms status 2>/dev/null").strip() == ""
    assert g.sh("dpkg-query -W -f '${db:Status-Abbrev}\\n' guestmm-dkms "
                "guestmm-tools 2>/dev/null | grep -v '^un'; true"
                ).strip() == ""
    left = g.sh("find / -xdev -name '*guestmm*' "
                "! -path '/root/debs/*' "
                "! -path /usr/local/sbin/guestmm-agent "
                "! -path '/etc/systemd/system/*guestmm-agent.service' "
                "! -path '/tmp/.guestmm-*' 2>/dev/null; true").strip()
    assert left == "", left
    power_cycle(g)
    assert g.sh("uname -r").strip() == new
    debimage.wait_booted(g)
    wait_for(g, BALLOON_DRIVER, "virtio_balloon", timeout=120)
    assert not [m for m in g.sh("lsmod | awk '{print $1}'").split()
                if m.startswith("guestmm")]
    t = step(p, "purge", t)
    print("KEY deb_upgrade release=%s total_seconds=%.0f" % (
        p["rel"], time.monotonic() - t_all), flush=True)


def release_case(rel):
    """guest_config and run of the case for one release (RELEASES)."""
    box = {}

    def guest_config(abi):
        """The release's image, packages and disks; its guest's keys
        (tests/run calls this before booting)."""
        series, dist = RELEASES[rel]
        box["plan"] = plan(rel, series, build_packages(dist))
        box["plan"]["ver"] = debimage.dist_version()
        return box["plan"]["keys"]

    def run(g):
        try:
            upgrade(g, box["plan"])
        finally:
            shutil.rmtree(box["plan"]["tmp"], ignore_errors=True)
    return guest_config, run

# SPDX-License-Identifier: GPL-2.0
"""A stock Debian guest booted from its own disk, for the cases and
benchmarks that need more than the busybox initramfs (dkms, gcc, systemd).

debian_guest(series) builds (or reuses) scripts/rootfs/build.sh's image,
puts a throw-away qcow2 overlay on it and the `scripts/install.sh dist`
tarball beside it, and returns the Guest keys to boot it: the image's own
kernel and initramfs, root=/dev/vda, the tarball as /dev/vdb (read-only;
`tar -xf /dev/vdb` unpacks guestmm-<version>/).  The overlay and tarball
are removed when the process exits.

Series: "6.1" (Debian 12), "6.12" (bookworm-backports' kernel on Debian
12) and "trixie" (Debian 13 and its own 6.12 kernel, built with gcc-14:
nothing is built for it on a Debian 12 host; DKMS builds in the guest).
debian_guest() also takes a Debian kernel ABI, Debian 13's
(6.12.107+deb13-amd64) or Debian 12's (6.1.0-50-amd64, or
6.12.95+deb12-amd64 of bookworm-backports): its series' image running
exactly that build, a qcow2 layer on that image (scripts/rootfs/layer.sh;
the image itself for its own kernel).  image_kernel() tells what to pass
for an ABI: the build itself on Debian 13, on Debian 12 the series name
when the ABI is the series image's own kernel (as before layers took
Debian 12 builds), else the build.
"""
import atexit
import functools
import os
import re
import shutil
import subprocess
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def dist_version():
    """guestmm's version, as the dist tarball's directory names it."""
    return subprocess.run([os.path.join(TOP, "scripts/install.sh"),
                           "version"], check=True, text=True,
                          stdout=subprocess.PIPE).stdout.strip()


# Series of scripts/rootfs/build.sh images whose kernel the host cannot
# build modules for (no initramfs guest, no host-side headers).
IMAGE_ONLY = ("trixie",)

# The series scripts/rootfs/build.sh builds an image for.
SERIES = ("6.1", "6.12", "trixie")

# Debian 12 kernel ABIs scripts/rootfs/layer.sh takes: bookworm's
# (6.1.0-50-amd64) and bookworm-backports' (6.12.95+deb12-amd64), in
# either flavour of the support matrix (6.1.0-57-cloud-amd64).
DEB12_ABI = re.compile(r"6\.1\.0-[0-9]+-(?:cloud-)?amd64"
                       r"|6\.12\.[0-9]+\+deb12[.0-9]*-(?:cloud-)?amd64")


def series_of(abi):
    """The build.sh series of a Debian kernel ABI: "trixie" for Debian
    13's own kernels (6.12.118+deb13-amd64), else major.minor ("6.1",
    "6.12", and "7.3" for trixie-backports' 7.3.4+deb13-amd64, which no
    Debian 13 image boots)."""
    if re.match(r"6\.12\.\d+\+deb13[.-]", abi):
        return "trixie"
    return ".".join(abi.split(".")[:2])


def image_kernel(abi):
    """What to pass debian_guest() to boot a kernel ABI (or a series name,
    which it returns): on Debian 13 that very build; on Debian 12 the image
    of its series when the ABI is that image's own kernel (the series'
    newest, image_abi()), else that very build (a layer.sh layer); any
    other ABI (the debug kernel's), the image of its series."""
    series = series_of(abi)
    if abi in SERIES or series == "trixie":
        return abi
    if DEB12_ABI.fullmatch(abi) and abi != image_abi(series):
        return abi
    return series


@functools.lru_cache(maxsize=None)
def image_abi(series):
    """The kernel ABI of series' image, resolved from its package lists
    (build.sh --abi: a private apt view, nothing built)."""
    return subprocess.run([os.path.join(TOP, "scripts/rootfs/build.sh"),
                           "--kernel", series, "--abi"], check=True,
                          text=True, stdout=subprocess.PIPE
                          ).stdout.strip().splitlines()[-1]


def image_cmd(series):
    """The command that builds (or finds) the image debian_guest() boots
    for `series` (a series name or a Debian kernel ABI) and prints its
    directory: build.sh for a series, layer.sh for a build."""
    if series in SERIES:
        return [os.path.join(TOP, "scripts/rootfs/build.sh"), "--kernel",
                series]
    return [os.path.join(TOP, "scripts/rootfs/layer.sh"), series]


def debian_guest(series, tag="debimage", stat=True):
    """Guest keys for the Debian image of kernel series `series` (or of a
    Debian 12 or 13 kernel ABI: layer.sh's image of that build, the series'
    image for its own kernel); prints a KEY line with the image build time
    (0 when cached).  stat=False: the tarball without the host's static
    guestmm-stat (what a user of a release whose static loader does not
    link has)."""
    t0 = time.monotonic()
    img = subprocess.run(image_cmd(series), check=True, text=True,
                         stdout=subprocess.PIPE).stdout.strip().splitlines()[-1]
    print("KEY %s_image seconds=%.0f dir=%s" %
          (tag, time.monotonic() - t0, img), flush=True)
    tmp = tempfile.mkdtemp(prefix="guestmm-debimage.")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    overlay = os.path.join(tmp, "root.qcow2")
    # A layer.sh image is a qcow2 layer on its series image's ext4.
    disk, fmt = os.path.join(img, "rootfs.qcow2"), "qcow2"
    if not os.path.exists(disk):
        disk, fmt = os.path.join(img, "rootfs.ext4"), "raw"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", fmt,
                    "-b", disk, overlay], check=True)
    tarball = os.path.join(tmp, "guestmm.tar")
    subprocess.run([os.path.join(TOP, "scripts/install.sh"), "dist",
                    tarball], check=True)
    if not stat:
        names = subprocess.run(["tar", "-tf", tarball], check=True, text=True,
                               stdout=subprocess.PIPE).stdout.split()
        drop = [n for n in names if n.endswith("/bpf/guestmm-stat.static")]
        if drop:
            subprocess.run(["tar", "--delete", "-f", tarball] + drop,
                           check=True)
    # One TCG thread for both vCPUs: these guests boot a whole Debian
    # system, and Debian 13's kernel patches static keys in early boot
    # while the other vCPU runs them.  Under multi-threaded TCG that once
    # ended in "Oops: int3" in sched_clock_cpu, no module loaded, twice in
    # a row on a loaded host; see Guest's tcg_single.
    return dict(kernel=os.path.join(img, "vmlinuz"),
                initrd=os.path.join(img, "initrd.img"),
                append="root=/dev/vda rw", tcg_single=True,
                drives=[{"file": overlay, "format": "qcow2"},
                        {"file": tarball, "readonly": True}])


def wait_booted(g, timeout=300):
    """systemd is up and udev's coldplug is over.

    Polled, not `is-system-running --wait`: that waits for the
    StartupFinished bus signal and has hung past a finished boot in CI.
    On a timeout the assertion names the jobs still queued."""
    deadline = time.monotonic() + timeout
    while True:
        state = g.sh("systemctl is-system-running", check=False).strip()
        if state not in ("initializing", "starting") or \
                time.monotonic() > deadline:
            break
        time.sleep(2)
    assert state == "running", (state, g.sh("systemctl --failed --plain; "
                                            "systemctl list-jobs --plain",
                                            check=False))
    g.sh("udevadm settle", timeout=120)


# The suite each release's own kernels come from (not -security), by
# image series: where deb_upgrade's guests start.
RELEASE_SUITE = {"6.1": "bookworm", "trixie": "trixie"}
# The flavour each release's deb_upgrade guest runs: Debian 12 a cloud
# image, whose kernel is cloud-amd64 (Debian's genericcloud and nocloud
# images), Debian 13 an installation on the amd64 flavour.  (Debian 13's
# cloud-amd64 builds are not booted in make check: under this QEMU's TCG,
# 6.12.107+deb13-cloud-amd64 called NULL while patching a static key in
# early boot, timer_update_keys(), in 3 of 14 boots with nothing of
# guestmm loaded, where Debian 12's cloud kernel booted 8 of 8 times.)
RELEASE_FLAVOUR = {"6.1": "cloud-amd64", "trixie": "amd64"}


# A kernel release's flavour, the part after the ABI's version.
FLAVOURS = ("amd64", "cloud-amd64")


def flavour_of(abi):
    """"cloud-amd64" for 6.12.107+deb13-cloud-amd64, else "amd64"."""
    return "cloud-amd64" if abi.endswith("-cloud-amd64") else "amd64"


def release_kernel(series, flavour=None):
    """The oldest build of the support matrix (livepatch/kernels.tsv) that
    series' release itself shipped (RELEASE_SUITE): what an installation
    that never took the security updates runs.  In the flavour asked
    for, else in the release's (RELEASE_FLAVOUR): amd64, the images' own,
    or cloud-amd64, what Debian's cloud images boot (the other flavour's
    row of the same version is another kernel)."""
    flavour = flavour or RELEASE_FLAVOUR[series]
    assert flavour in FLAVOURS, flavour
    suite = RELEASE_SUITE[series]
    rows = []
    col = {}
    with open(os.path.join(TOP, "livepatch", "kernels.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if line.startswith("# ") and not col:
                # the columns by the names of the header line
                col = {c: i for i, c in enumerate(line[2:].rstrip("\n").split("\t"))}
            elif not line.startswith("#") and len(cols) == len(col) and \
                    cols[col["suite"]] == suite and \
                    flavour_of(cols[0]) == flavour:
                key = [int(x) for x in re.findall(r"\d+", cols[col["package_version"]])]
                rows.append((key, cols[0]))
    assert rows, "kernels.tsv has no %s build" % suite
    return min(rows)[1]


# make deb's build (DIST) for each release: the packages deb_upgrade
# installs.
DEB_BUILDS = {"6.1": None, "trixie": "trixie"}


def prewarm(releases=None):
    """Build (or find) the images deb_upgrade boots and the packages it
    installs, for @releases (series of RELEASE_SUITE; default all),
    before it needs them: make check runs this in the background
    beside its light cases, so a cold cache does not put 10-15 minutes of
    debootstrap and apt, and the package builds, on the critical path.
    build.sh and layer.sh hold the rootfs lock while they build, and make
    deb its own lock, so a case that gets there first simply waits; a
    second make deb of the same tree builds nothing.  Prints a line per
    image and package build and a closing line; returns 0 when all were
    built."""
    t_all, bad = time.monotonic(), 0
    # A release at a time, its image, kernel layer and packages, so that
    # the first deb_upgrade case has all it needs before the second
    # release's builds begin.
    steps = []
    for series in releases or RELEASE_SUITE:
        steps += [(what, image_cmd(what))
                  for what in (series, release_kernel(series))]
        d = DEB_BUILDS[series]
        steps.append(("make deb%s" % (" DIST=" + d if d else ""),
                      ["make", "-s", "--no-print-directory", "-C", TOP,
                       "deb"] + (["DIST=" + d] if d else [])))
    for what, cmd in steps:
        t0 = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        bad += p.returncode != 0
        print("prewarm: %s %s in %.0f s" % (
            what, "ready" if p.returncode == 0 else
            "FAILED (exit %d)" % p.returncode,
            time.monotonic() - t0), flush=True)
    print("images and packages prewarmed in %.0f s%s" % (
        time.monotonic() - t_all, ", %d failed" % bad if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] != ["prewarm"] or \
            not set(sys.argv[2:]) <= set(RELEASE_SUITE):
        sys.exit("usage: debimage.py prewarm [%s ...]" %
                 "|".join(RELEASE_SUITE))
    sys.exit(prewarm(sys.argv[2:]))

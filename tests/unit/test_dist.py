"""Host-side unit tests: the DKMS source (`scripts/install.sh dist`, the
tree `make dkms-install` copies to /usr/src) carries every file the Kbuild
files and dkms.conf read; the Debian image series of an ABI."""
import glob
import os
import re
import subprocess
import tarfile
import tempfile

import debimage

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def dist_names():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "d.tar")
        subprocess.run([os.path.join(TOP, "scripts", "install.sh"), "dist",
                        out], check=True)
        with tarfile.open(out) as t:
            names = t.getnames()
    top = names[0].split("/")[0]
    return {n[len(top) + 1:] for n in names if n.startswith(top + "/")}


def kbuild_reads():
    """Files named as $(src)/... in the Kbuild files (a feature's variant
    directory expanded for every variant of it), and the scripts dkms.conf
    runs."""
    res = set()
    # livepatch/Kbuild's names for the chosen variant directory of each
    # feature, and the variants there are
    vdirs = {"$(gmm-cv)": "compaction", "$(gmm-rv)": "reclaim"}
    variants = {feature: sorted(
        "%s/variants/%s" % (feature, os.path.basename(d)) for d in
        glob.glob(os.path.join(TOP, "livepatch", feature, "variants", "*"))
        if os.path.isdir(d)) for feature in vdirs.values()}
    assert all(variants.values()), variants
    for kb in (glob.glob(os.path.join(TOP, "livepatch", "Kbuild")) +
               glob.glob(os.path.join(TOP, "modules", "balloon", "Kbuild")) +
               glob.glob(os.path.join(TOP, "livepatch", "*", "variants", "*",
                                      "Kbuild.inc"))):
        d = os.path.relpath(os.path.dirname(kb), TOP)
        if "/variants/" in kb:
            d = "livepatch"     # included from livepatch/Kbuild: $(src) is there
        with open(kb) as f:
            text = f.read()
        for m in re.finditer(r"\$\(src\)/([A-Za-z0-9_./$()-]+)", text):
            path = m.group(1).rstrip(")")
            paths = [path]
            for name, feature in vdirs.items():
                if name in path:
                    paths = [path.replace(name, v) for v in variants[feature]]
            for p in paths:
                if "$" in p:
                    continue
                # $(src)/ names sources ($(obj)/ what the build makes);
                # directories (-I$(src)/...) are not files to carry.
                full = os.path.normpath(os.path.join(d, p))
                if os.path.isfile(os.path.join(TOP, full)):
                    res.add(full)
    with open(os.path.join(TOP, "dkms.conf")) as f:
        for m in re.finditer(r"/(livepatch/[A-Za-z0-9_/-]+)", f.read()):
            if os.path.isfile(os.path.join(TOP, m.group(1))):
                res.add(m.group(1))
    return res


def test_dist_carries_what_kbuild_and_dkms_read():
    names = dist_names()
    need = kbuild_reads()
    # Sanity: the scan finds the scripts the livepatch build runs.
    assert {"livepatch/select-variant", "livepatch/builds-h",
            "livepatch/kernels.tsv", "livepatch/postlink/run"} <= need, need
    missing = sorted(need - names)
    assert not missing, "not in the DKMS source (scripts/install.sh " \
        "dkms_files): %s" % missing


def test_dist_has_no_build_outputs():
    names = dist_names()
    bad = [n for n in names if re.search(
        r"(\.o|\.ko|\.mod\.c|\.cmd|/builds\.h|/protos\.h)$", n)]
    assert not bad, bad


def test_image_series_of_abi():
    assert debimage.series_of("6.1.0-57-amd64") == "6.1"
    assert debimage.series_of("6.12.95+deb12-amd64") == "6.12"
    assert debimage.series_of("6.12.118+deb13-amd64") == "trixie"
    assert debimage.series_of("6.12.115+deb13.1-amd64") == "trixie"
    assert debimage.series_of("6.12.118+deb13-cloud-amd64") == "trixie"
    # trixie-backports' 7.x builds are +deb13 too, but no trixie image's.
    assert debimage.series_of("7.3.4+deb13-amd64") == "7.3"
    assert debimage.series_of("7.2.12+deb14-amd64") == "7.2"
    assert "trixie" in debimage.IMAGE_ONLY


def test_image_kernel_of_abi():
    """A Debian 13 ABI boots that very build (scripts/rootfs/layer.sh);
    a Debian 12 one its series' image when that is the image's own kernel,
    else that very build too.  (The images' ABIs are stand-ins here:
    build.sh --abi needs root and the package lists.)"""
    own = {"6.1": "6.1.0-57-amd64", "6.12": "6.12.95+deb12-amd64"}
    real = debimage.image_abi
    debimage.image_abi = own.__getitem__
    try:
        assert debimage.image_kernel("6.12.107+deb13-amd64") == \
            "6.12.107+deb13-amd64"
        assert debimage.image_kernel("6.12.115+deb13.1-amd64") == \
            "6.12.115+deb13.1-amd64"
        assert debimage.image_kernel("6.1.0-57-amd64") == "6.1"
        assert debimage.image_kernel("6.12.95+deb12-amd64") == "6.12"
        assert debimage.image_kernel("6.1.0-50-amd64") == "6.1.0-50-amd64"
        assert debimage.image_kernel("6.12.94+deb12-amd64") == \
            "6.12.94+deb12-amd64"
        # the cloud-amd64 flavour is never an image's own kernel
        for abi in ("6.1.0-57-cloud-amd64", "6.12.95+deb12-cloud-amd64",
                    "6.12.107+deb13-cloud-amd64"):
            assert debimage.image_kernel(abi) == abi, abi
        for series in debimage.SERIES:
            assert debimage.image_kernel(series) == series
        assert debimage.image_kernel("6.1.192-gmmdebug") == "6.1"
    finally:
        debimage.image_abi = real


def test_every_trixie_row_is_a_layer_abi():
    """Every gcc-14 row of kernels.tsv is an ABI layer.sh and tests/run
    take as Debian 13 (what make check-kernels-trixie passes them)."""
    with open(os.path.join(TOP, "livepatch", "kernels.tsv")) as f:
        rows = [l.split("\t") for l in f.read().splitlines()
                if not l.startswith("#")]
    trixie = [r[0] for r in rows if re.search(r"gcc-1[3-9]", r[5])]
    assert trixie, rows
    for abi in trixie:
        assert re.fullmatch(r"[0-9][^ ]*\+deb13[^ ]*-amd64", abi), abi
        assert debimage.series_of(abi) == "trixie", abi


def test_release_kernel_is_the_releases_flavour():
    """deb_upgrade starts from the oldest build its release shipped, in
    the flavour of its guest (cloud-amd64 on Debian 12, amd64 on Debian
    13), not the other flavour's row of the same version; either flavour
    can be asked for."""
    with open(os.path.join(TOP, "livepatch", "kernels.tsv")) as f:
        rows = [l.split("\t") for l in f.read().splitlines()
                if not l.startswith("#")]
    assert debimage.RELEASE_FLAVOUR == {"6.1": "cloud-amd64",
                                        "trixie": "amd64"}
    for series, suite in debimage.RELEASE_SUITE.items():
        abi = debimage.release_kernel(series)
        assert debimage.flavour_of(abi) == \
            debimage.RELEASE_FLAVOUR[series], abi
        assert [r for r in rows if r[0] == abi and r[6] == suite], abi
        other = debimage.release_kernel(series, "amd64") \
            if abi.endswith("-cloud-amd64") else \
            debimage.release_kernel(series, "cloud-amd64")
        assert other.replace("-cloud-amd64", "-amd64") == \
            abi.replace("-cloud-amd64", "-amd64"), (abi, other)


def test_one_version():
    """debian/changelog holds the version; dkms.conf only its placeholder,
    which the dist tarball and the DKMS tree carry filled in."""
    with open(os.path.join(TOP, "debian", "changelog")) as f:
        m = re.match(r"guestmm \((?:\d+:)?([^)-]+)(?:-[^)]*)?\) ", f.readline())
    assert m, "debian/changelog's first line"
    assert debimage.dist_version() == m.group(1)
    with open(os.path.join(TOP, "dkms.conf")) as f:
        assert 'PACKAGE_VERSION="#MODULE_VERSION#"' in f.read()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([os.path.join(TOP, "scripts", "install.sh"),
                        "dkms-tree", tmp], check=True)
        with open(os.path.join(tmp, "dkms.conf")) as f:
            assert 'PACKAGE_VERSION="%s"' % m.group(1) in f.read()
        # The DKMS tree is the dist tarball's DKMS part.
        tree = {os.path.relpath(os.path.join(d, n), tmp)
                for d, _, ns in os.walk(tmp) for n in ns}
    assert tree <= dist_names(), sorted(tree - dist_names())

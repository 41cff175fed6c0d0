# SPDX-License-Identifier: GPL-2.0
"""guestmm_klp's smoke test on one Debian 13 kernel build, built by DKMS in a Debian 13 guest running exactly that build: the variant decided in the guest, modprobe, the transition, compaction through the patch (counters, tracepoints), disable, rmmod, no taint but the modules' own.

make check-kernels runs it on every gcc-14 row of livepatch/kernels.tsv
(a Debian 12 host cannot build for those kernels), one guest per build:

    tests/run --kernel 6.12.107+deb13-amd64 -k klp_dkms_smoke

The guest is scripts/rootfs/layer.sh's image for that ABI (the trixie
image of scripts/rootfs/build.sh with its kernel and headers swapped for
the build's; for the trixie image's own kernel, that image), booted from a
qcow2 overlay with the `scripts/install.sh dist` tarball as /dev/vdb, as
dkms_e2e does (whose helpers, tests/lib/dkmslib.py, this case shares).
The guest's uname -r and uname -v must be the row's release and
uts_version, and select-variant in the guest must give the row's features
and variants.
Not part of `make check` (NAMED_ONLY: dkms_e2e covers the trixie image's
kernel there); it runs when -k names it.

Expected duration on the 2-core CI machine (TCG, shared with other work):
4 to 7 minutes a build (measured 238-428 s: boot 17-41 s, dkms build
122-264 s, the livepatch steps 5-14 s), of which 30-70 s build the layer
when it is not cached; all eight Debian 13 builds about 48 minutes.
"""
import os
import time

import debimage
from dkmslib import (EXPECTED_TAINT, dkms_add, dkms_build, dkms_install,
                     guest_variant, klp_smoke, taint_flags)

GUEST = dict(mem=1536, smp=2, balloon=None, boot_timeout=600)
KERNELS = ("trixie",)
NAMED_ONLY = True
# Two builds side by side (one TCG thread each), once make
# check-kernels-trixie has built every layer.
LIGHT = True
TIMEOUT = 2400          # seconds, image build excluded (see guest_config)

TAG = "klp_dkms_smoke"
TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TABLE = os.path.join(TOP, "livepatch", "kernels.tsv")
ABI = VER = None


def table_row(abi):
    """kernels.tsv's row for release @abi, as a dict of its columns."""
    with open(TABLE) as f:
        lines = f.read().splitlines()
    cols = lines[0].lstrip("# ").split("\t")
    for line in lines[1:]:
        vals = line.split("\t")
        if not line.startswith("#") and vals[0] == abi:
            return dict(zip(cols, vals))
    raise AssertionError("%s is not a row of livepatch/kernels.tsv" % abi)


def guest_config(abi):
    """The Debian 13 image running build @abi, an overlay on it and the
    dist tarball (tests/run calls this before booting)."""
    global ABI, VER
    ABI = abi
    table_row(abi)
    VER = debimage.dist_version()
    return debimage.debian_guest(abi, tag=TAG, stat=False)


def run(g):
    t0 = time.monotonic()
    row = table_row(ABI)
    abi = g.sh("uname -r").strip()
    uts = g.sh("uname -v").strip()
    print("KEY %s_boot abi=%s seconds=%.0f" % (TAG, abi, g.boot_seconds),
          flush=True)
    assert abi == ABI, (abi, ABI)
    assert uts == row["uts_version"], (uts, row["uts_version"])
    assert debimage.series_of(abi) == "trixie", abi
    debimage.wait_booted(g)

    dkms_add(g, VER)
    variant = guest_variant(g, VER, abi, TAG, "trixie")
    want = "compaction=%s reclaim=%s" % (row["compaction"], row["reclaim"])
    assert variant == want, (variant, want)
    t = time.monotonic()
    dkms_build(g, VER)
    build_secs = time.monotonic() - t
    dkms_install(g, VER, abi, klp=True)

    klp_smoke(g, TAG)
    taint = taint_flags(g)
    print("KEY %s abi=%s variant=%s uts_ok=1 dkms_build_seconds=%.0f "
          "taint=%s total_seconds=%.0f" % (TAG, abi, variant.replace(" ", ","), build_secs,
                                           taint or "-",
                                           time.monotonic() - t0), flush=True)
    # K stays once a livepatch was loaded; nothing but the expected flags.
    assert "K" in taint, taint
    assert set(taint) <= EXPECTED_TAINT, \
        "unexpected taint flags %s (expected only %s)" % (
            taint, "".join(sorted(EXPECTED_TAINT)))

# SPDX-License-Identifier: GPL-2.0
"""A Debian 12 cloud image end to end: cloud-init (a NoCloud seed disk) installs guestmm-dkms and guestmm-tools at the first boot of bookworm's oldest cloud-amd64 build of the matrix and enables the probes, reboot (balloon bound, livepatch on), apt install bookworm-security's newest cloud kernel (DKMS builds for it), boot it, node_exporter, apt remove --purge (nothing left, the stock driver back).

tests/lib/debupgrade.py has the steps, shared with deb_upgrade_trixie
(Debian 13).  The guest boots its own image and kernel (guest_config);
KERNELS names the series whose run includes it.
"""
import debupgrade

KERNELS = ("6.1",)
GUEST = debupgrade.GUEST
TIMEOUT = debupgrade.TIMEOUT
# One guest on one TCG thread (debimage), no host-time bound: beside
# another case (tests/run -j 2), from the start of the run: it waits for
# the image and packages that make check builds beside it (debimage.py
# prewarm), then runs through the light cases.
ONE_CORE = True

guest_config, run = debupgrade.release_case("debian12")

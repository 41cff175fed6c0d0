# SPDX-License-Identifier: GPL-2.0
"""Debian 13 packages end to end: apt install guestmm-dkms and guestmm-tools (built with trixie's toolchain) on trixie's oldest build of the matrix, reboot (balloon bound, livepatch on), apt install trixie's newest kernel (DKMS builds for it with gcc-14), boot it, node_exporter, apt remove --purge (nothing left, the stock driver back).

tests/lib/debupgrade.py has the steps, shared with deb_upgrade (Debian
12).  The guest boots its own image and kernel (guest_config); KERNELS
names the series whose run includes it (make check's kernels are 6.1 and
6.12; Debian 13 has no initramfs guest of its own).
"""
import debupgrade

KERNELS = ("6.1",)
GUEST = debupgrade.GUEST
TIMEOUT = debupgrade.TIMEOUT
# One guest on one TCG thread (debimage), no host-time bound: beside
# another case (tests/run -j 2).
ONE_CORE = True
# make check-kernels runs it, with the Debian 13 builds of the matrix:
# with deb_upgrade's Debian 12 beside it, make check's critical path was
# both releases' images and packages built from a cold cache and then the
# longer of the two upgrades (CI: 86 minutes of a 90-minute limit).
NAMED_ONLY = True

guest_config, run = debupgrade.release_case("debian13")

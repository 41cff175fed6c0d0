#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install, from Debian's archive, whatever guestmm's build, tests, demo and
# benchmarks need and this machine lacks.  Kernel headers and images are
# handled per ABI by scripts/guest/kernel.sh.  libvirt is for
# tests/cases/libvirt_balloon.py: libvirt-daemon-system rather than
# libvirt-daemon + libvirt-daemon-driver-qemu, which lack the libvirt-qemu
# user (libvirtd's qemu driver then refuses to start); nothing is started
# here, the case starts libvirtd itself when it is not running.
# dosfstools and mtools make deb_upgrade's cloud-init seed disk (a FAT
# file system labelled CIDATA, tests/lib/debupgrade.py).
set -eu
PKGS="make gcc libc6-dev bc kmod cpio xz-utils zstd lz4 e2fsprogs python3
busybox-static qemu-system-x86 qemu-utils clang clang-19 llvm libbpf-dev bpftool
libelf-dev zlib1g-dev libjson-c-dev sparse gnuplot-nox dkms debootstrap
debhelper dh-dkms lintian libvirt-daemon-system libvirt-clients dosfstools mtools"

missing=""
for p in $PKGS; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "guestmm: missing packages:$missing (run as root, or apt-get install them)" >&2
	exit 1
fi
echo "guestmm: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get -q -y install --no-install-recommends $missing >/dev/null 2>&1 || {
	apt-get -q update >/dev/null
	apt-get -q -y install --no-install-recommends $missing >/dev/null
}

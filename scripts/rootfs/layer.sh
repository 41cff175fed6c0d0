#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian image running one given kernel build: a qcow2 layer on one of
# scripts/rootfs/build.sh's images that swaps its kernel (the newest of its
# suites) for the build named, with that build's headers, so that DKMS
# builds guestmm for exactly that kernel in the guest (make check-kernels
# boots every gcc-14 row of livepatch/kernels.tsv this way; an older
# Debian 12 build is where a test upgrades the kernel with apt,
# scripts/rootfs/kernel-debs.sh).
#
#   scripts/rootfs/layer.sh ABI [--force] [--key]
#
# ABI is a Debian kernel release; its form names the base image:
#   6.12.107+deb13-amd64   Debian 13: build.sh --kernel trixie (trixie,
#                          trixie-updates, trixie-security)
#   6.1.0-50-amd64         Debian 12: build.sh --kernel 6.1 (bookworm,
#                          bookworm-updates, bookworm-security)
#   6.12.95+deb12-amd64    Debian 12's 6.12: build.sh --kernel 6.12 (the
#                          same plus bookworm-backports)
# A cloud-amd64 build's layer also has Debian's cloud-init, as the cloud
# images that boot that flavour have.
# Prints the image directory (built first when missing), laid out as
# build.sh's:
#   rootfs.qcow2   the root file system (backing file ../../rootfs.ext4,
#                  the base image's): boot it with root=/dev/vda
#   vmlinuz        that build's kernel and its initramfs, made in the image
#   initrd.img
#   abi            ABI
#   packages.txt   the image's dpkg -l
# For the base image's own kernel it prints build.sh's directory.
#
# The build comes from the package lists of the base image's private apt
# view (whose suites carry each build's own linux-image-ABI packages until
# the archive drops them); nothing here names a version.
# linux-image-ABI-unsigned is installed where the lists have it: the
# vmlinuz of the signed package without the signature (same vmlinux build
# ID, the one livepatch/kernels.tsv records), and the .deb
# scripts/klp-variant has already downloaded for that build, which is
# reused when present.  Where they do not (older Debian 12 builds keep only
# the signed package), linux-image-ABI.  The base image's kernel packages
# are purged, so the guest has one kernel.
#
# The layer is built on the host: the base image behind a fresh qcow2
# overlay, exported as a raw file by qemu-storage-daemon (FUSE), loop
# mounted, apt-get in a chroot.  It lives in the base image's directory
# (kernels/ABI-KEY), so a new base image drops every layer; its key is made
# from the base image's name, the kernel packages' versions and this
# script.  --key prints the image's name and builds nothing; --force
# rebuilds the layer (not the base).  Runs as root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "rootfs/layer.sh: $*" >&2; exit 1; }
log() { echo "rootfs: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$here/root.sh"

pin="" force=0 keyonly=0
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--key) keyonly=1 ;;
	-h|--help) sed -n '3,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown argument '$1'" ;;
	*) [ -z "$pin" ] || die "one ABI only"; pin=$1 ;;
	esac
	shift
done
# The base image's series (build.sh --kernel) and the suites it reads.
case $pin in
6.12.[0-9]*+deb13*-amd64)
	series=trixie suites="Debian 13's package lists (trixie, trixie-updates, trixie-security)" ;;
6.1.0-[0-9]*-amd64)
	series=6.1 suites="Debian 12's package lists (bookworm, bookworm-updates, bookworm-security)" ;;
6.12.[0-9]*+deb12*-amd64)
	series=6.12 suites="Debian 12's package lists (bookworm, bookworm-updates, bookworm-security, bookworm-backports)" ;;
"") die "usage: layer.sh ABI (a Debian kernel release, e.g. 6.12.107+deb13-amd64, 6.1.0-50-amd64, 6.12.95+deb12-amd64)" ;;
*) die "'$pin' is not a Debian 12 or 13 amd64 kernel release (like 6.12.107+deb13-amd64, 6.1.0-50-amd64, 6.12.95+deb12-amd64)" ;;
esac
APTD=$RDIR/apt/$series
[ "$(id -u)" = 0 ] || die "must run as root (mount, chroot)"

# The base image (and, by the way, a fresh private apt view of its series).
if [ $keyonly = 1 ]; then
	base_name=$("$top/scripts/rootfs/build.sh" --kernel $series --key)
	base=$RDIR/$base_name
	base_abi=$("$top/scripts/rootfs/build.sh" --kernel $series --abi)
else
	base=$("$top/scripts/rootfs/build.sh" --kernel $series | tail -n1)
	base_name=$(basename "$base")
	base_abi=$(cat "$base/abi")
fi
if [ "$pin" = "$base_abi" ]; then
	if [ $keyonly = 1 ]; then echo "$base_name"; else echo "$base"; fi
	exit 0
fi

apt_opts() { view_opts "$APTD" "$APTD/status"; }

exec 9>"$RDIR/.lock"
flock 9
[ $keyonly = 1 ] || [ -f "$base/ok" ] || die "the base image $base went away"
# The unsigned image where the lists have it (a package, not only a name
# something provides), else the signed one.
image=linux-image-$pin-unsigned
# shellcheck disable=SC2046
case $(apt-cache $(apt_opts) policy "$image" 2>/dev/null | sed -n 's/^  Candidate: //p') in
[0-9]*) ;;
*) image=linux-image-$pin ;;
esac
PKGS="$image linux-headers-$pin"
# A cloud-amd64 build runs as Debian's cloud images do, with cloud-init
# (which does nothing at a boot without a datasource: ds-identify turns
# it off).
case $pin in
*-cloud-amd64) PKGS="$PKGS cloud-init" ;;
esac
resolved=$APTD/resolved-$pin.txt
# shellcheck disable=SC2046,SC2086
apt-get $(apt_opts) -s -q install --no-install-recommends $PKGS \
	>"$resolved" 2>&1 || {
	tail -n 5 "$resolved" >&2
	die "$suites have no $PKGS"
}
key=$({
	echo "layer $pin on $base_name"
	sed -n 's/^Inst \(linux-[^ ]*\) (\([^ ]*\) .*/\1 \2/p' "$resolved" | sort
	sha256sum "$0" "$here/root.sh" "$here/aptview.sh" | cut -d' ' -f1
} | sha256sum | cut -c1-12)
name=$pin-$key
out=$base/kernels/$name
if [ $keyonly = 1 ]; then
	echo "$base_name/kernels/$name"
	exit 0
fi
if [ $force = 0 ] && [ -f "$out/ok" ]; then
	echo "$out"
	exit 0
fi

# ---- build --------------------------------------------------------------
t0=$(date +%s)
mkdir -p "$base/kernels" "$DEBS/partial"
work=$(mktemp -d "$base/kernels/tmp.XXXXXX")
root=$work/root
trap root_cleanup EXIT

# The downloads scripts/klp-variant made for this build, where present
# (the same files as the archive's; apt checks their hashes).
version=$(sed -n "s/^Inst $image (\([^ ]*\) .*/\1/p" "$resolved")
for f in "$CACHE/klp-variant/$version/${image}_"*.deb; do
	[ -f "$f" ] && [ ! -f "$DEBS/$(basename "$f")" ] &&
		{ ln "$f" "$DEBS/" 2>/dev/null || cp "$f" "$DEBS/"; }
done

log "building $series layer $name (kernel $pin, $image) on $base_name"
# The layer's backing file is named relative to it: work/ and kernels/NAME
# are at the same depth.
(cd "$work" && qemu-img create -q -f qcow2 -F raw -b ../../rootfs.ext4 \
	layer.qcow2) || die "qemu-img create failed"
root_open "$work/layer.qcow2" "$root"
# The base image's sources are build.sh's (its private view's): lend the
# view's lists, so nothing of them is written into the layer.
cmp -s "$root/etc/apt/sources.list" "$APTD/sources.list" ||
	die "the base image's apt sources differ from $APTD/sources.list"
mnt "$root/var/lib/apt/lists" --bind "$APTD/lists"
root_no_services "$root"

old=$base_abi
log "apt-get install $PKGS; purge $old"
# shellcheck disable=SC2086
{
	in_root apt-get -q -y --no-install-recommends install $PKGS &&
	in_root apt-get -q -y purge linux-image-amd64 linux-headers-amd64 \
		"linux-image-$old" "linux-headers-$old" &&
	in_root apt-get -q -y --purge autoremove
} >"$work/apt.log" 2>&1 || {
	tail -n 40 "$work/apt.log" >&2
	die "apt-get in the image failed"
}
t1=$(date +%s)
if [ ! -f "$root/boot/vmlinuz-$pin" ] || [ ! -f "$root/boot/initrd.img-$pin" ]; then
	die "the image has no vmlinuz/initrd.img for $pin (see $work/apt.log)"
fi
kernels=$(ls "$root/lib/modules")
[ "$kernels" = "$pin" ] || die "the image has other kernels besides $pin: $kernels"
[ -f "$root/usr/src/linux-headers-$pin/Makefile" ] ||
	die "the image has no headers for $pin"

mkdir -p "$work/img"
root_seal "$root" "$work/img/packages.txt"
cp "$root/boot/vmlinuz-$pin" "$work/img/vmlinuz"
cp "$root/boot/initrd.img-$pin" "$work/img/initrd.img"
root_close
qemu-img check -q "$work/layer.qcow2" || die "the layer is damaged"
mv "$work/layer.qcow2" "$work/img/rootfs.qcow2"
echo "$pin" >"$work/img/abi"
echo "$base_name" >"$work/img/base"
cp "$work/apt.log" "$work/img/"
t2=$(date +%s)
printf 'apt %ds, total %ds, layer %s\n' $((t1 - t0)) $((t2 - t0)) \
	"$(du -h "$work/img/rootfs.qcow2" | cut -f1)" >"$work/img/build-time.txt"
root_replace "$work/img" "$out" "$base/kernels/$pin-"
log "built $name in $((t2 - t0))s ($(cat "$out/build-time.txt"))"
echo "$out"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages (guestmm-dkms, guestmm-tools) built for another
# Debian release than the host's, in a build root of that release: `make
# deb DIST=trixie` builds them for Debian 13 on a Debian 12 host, with
# trixie's own toolchain and libraries (clang 19, gcc-14, libbpf 1.5,
# json-c 0.18, debhelper, dh-dkms), and checks them with trixie's lintian.
#
#   scripts/rootfs/deb-build.sh DIST DIR
#
# DIST is trixie (Debian 13; 13 says the same).  DIR holds src/, a copy of
# the tree (the Makefile's deb target makes it); dpkg-buildpackage writes
# its results one directory up, into DIR:
#   *.deb, *.changes, *.buildinfo   what `make deb` leaves in build/deb/
#   build.log      dpkg-buildpackage's output
#   lintian.txt    lintian --fail-on warning,error --display-info
#   ldd.txt        ldd of the package's guestmm-stat in the build root
#   apt.log        the build dependencies' installation
#   build-time.txt how long each step took
# It fails when the build, lintian or ldd does.
#
# The build root is the release's scripts/rootfs/build.sh image (built
# first when missing) behind a throw-away qcow2 overlay, made as
# scripts/rootfs/layer.sh makes its layers (qemu-storage-daemon FUSE
# export, loop mount, chroot); the image itself is never written.  apt
# reads the package lists of the image's private apt view (copied in) and
# keeps its downloads in the image builds' cache, rootfs/debs/, so a second
# build downloads nothing.  The Build-Depends come from debian/control
# (apt-get build-dep on the source directory), with no recommends.
# dpkg-buildpackage and lintian run with no network at all (unshare -n);
# only apt reaches the mirror.  The BPF probes are compiled against the
# host's kernel BTF (/sys/kernel/btf/vmlinux, sysfs in the root): CO-RE
# relocates them at load.  Runs as root (mounts, chroot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
die() { echo "rootfs/deb-build.sh: $*" >&2; exit 1; }
log() { echo "deb-build: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$here/root.sh"

case ${1:-} in
-h|--help) sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ $# = 2 ] || die "usage: deb-build.sh DIST DIR (DIST: trixie)"
case $1 in
trixie|13) dist=trixie series=trixie ;;
*) die "unknown DIST '$1' (trixie; the host's own release is plain make deb)" ;;
esac
dir=$(cd "$2" && pwd) || die "no directory $2"
[ -f "$dir/src/debian/control" ] || die "$dir/src is not a copy of the tree (no debian/control)"
[ "$(id -u)" = 0 ] || die "must run as root (mount, chroot)"
APTD=$RDIR/apt/$series

t0=$(date +%s)
base=$("$top/scripts/rootfs/build.sh" --kernel $series | tail -n1)
[ -f "$base/ok" ] || die "no $series image at $base"

mkdir -p "$DEBS/partial"
work=$(mktemp -d "$RDIR/deb-build.XXXXXX")
root=$work/root
trap root_cleanup EXIT

log "$dist build root: an overlay on $(basename "$base")"
qemu-img create -q -f qcow2 -F raw -b "$base/rootfs.ext4" "$work/root.qcow2" ||
	die "qemu-img create failed"
root_open "$work/root.qcow2" "$root" ",cache.no-flush=on"
mnt "$root/build" --bind "$dir"
cmp -s "$root/etc/apt/sources.list" "$APTD/sources.list" ||
	die "the $series image's apt sources differ from $APTD/sources.list"
# The private view's lists, copied under the lock build.sh refreshes them
# under (the image has none of its own).
(
	flock 9
	cp -a "$APTD/lists/." "$root/var/lib/apt/lists/"
) 9>"$RDIR/.lock"
root_no_services "$root"

# The build and lintian: no network.  (in_root, root.sh's, runs its
# command in a clean environment: nothing of the caller's, MAKEFLAGS from
# make deb or DEB_BUILD_OPTIONS, reaches the build root's tools.)
in_root_offline() {
	unshare -n chroot "$root" "${ROOT_ENV[@]}" "$@"
}
t1=$(date +%s)

log "apt-get build-dep (debian/control's Build-Depends), lintian"
# dpkg without fsync, qemu-storage-daemon without flushes, no man-db
# index: the root is thrown away after the build.
APT=(apt-get -q -y --no-install-recommends -o Dpkg::Use-Pty=0
	-o DPkg::Options::=--force-unsafe-io)
# Under the rootfs lock: apt downloads into rootfs/debs/ (the root's
# archives), as build.sh, layer.sh and kernel-debs.sh do under it; apt's
# own lock there fails at once instead of waiting (seen when deb_upgrade
# and deb_upgrade_trixie prepared side by side).
(
	flock 9
	echo 'man-db man-db/auto-update boolean false' | in_root debconf-set-selections &&
	in_root sh -c 'cd /build/src && "$@" build-dep ./' sh "${APT[@]}" &&
	in_root "${APT[@]}" install lintian
) 9>"$RDIR/.lock" >"$dir/apt.log" 2>&1 || {
	tail -n 40 "$dir/apt.log" >&2
	die "apt-get in the $dist build root failed (see $dir/apt.log)"
}
in_root sh -c 'cd /build/src && dpkg-checkbuilddeps' >>"$dir/apt.log" 2>&1 ||
	die "the Build-Depends are not met after apt-get build-dep (see $dir/apt.log)"
t2=$(date +%s)

log "dpkg-buildpackage -us -uc -b ($dist)"
in_root_offline sh -c 'cd /build/src && DEB_BUILD_OPTIONS=terse dpkg-buildpackage -us -uc -b' \
	>"$dir/build.log" 2>&1 || {
	tail -n 40 "$dir/build.log" >&2
	die "dpkg-buildpackage failed in the $dist build root (see $dir/build.log)"
}
t3=$(date +%s)

# The loader as the package ships it, against the release's libraries:
# ldd, and --help (linked with -z now, so every symbol is bound at start).
tools=$(cd "$dir" && ls guestmm-tools_*_amd64.deb)
in_root sh -c "rm -rf /tmp/x && dpkg-deb -x /build/$tools /tmp/x &&
	ldd /tmp/x/usr/sbin/guestmm-stat" >"$dir/ldd.txt" 2>&1 ||
	die "ldd of guestmm-stat failed: $(cat "$dir/ldd.txt")"
! grep -q 'not found' "$dir/ldd.txt" ||
	die "guestmm-stat has unresolved libraries in $dist: $(grep 'not found' "$dir/ldd.txt")"
in_root_offline /tmp/x/usr/sbin/guestmm-stat --help >/dev/null 2>"$work/help.err" ||
	die "guestmm-stat --help failed in the $dist build root: $(cat "$work/help.err")"

# shellcheck disable=SC2016
log "lintian ($dist's $(in_root dpkg-query -W -f '${Version}' lintian))"
rc=0
in_root_offline sh -c 'lintian --fail-on warning,error --display-info /build/*.changes' \
	>"$dir/lintian.txt" 2>&1 || rc=$?
grep -v '^running with root' "$dir/lintian.txt" >&2 || true
[ $rc = 0 ] || die "lintian failed: see $dir/lintian.txt"
t4=$(date +%s)
printf 'root %ds, apt %ds, build %ds, lintian %ds, total %ds\n' \
	$((t1 - t0)) $((t2 - t1)) $((t3 - t2)) $((t4 - t3)) $(($(date +%s) - t0)) \
	>"$dir/build-time.txt"
log "built for $dist in $(cat "$dir/build-time.txt")"

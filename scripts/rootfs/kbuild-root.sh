#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian build root for kbuild of Debian's Linux 7.x kernels, whose
# headers a Debian 12 host cannot use (their modpost and objtool need
# glibc >= 2.38; they name gcc-14 or gcc-16): scripts/lint-next.sh builds
# the modules in a throw-away overlay of it.
#
#   scripts/rootfs/kbuild-root.sh SUITE [--force] [--key]
#
# SUITE is trixie-backports (Debian 13 with its backports: the +deb13
# 7.x builds) or forky (Debian 14 testing: the +deb14 builds, sid's too).
# Prints the root's directory (built first when missing), which holds
#   rootfs.ext4    the root file system (no kernel: a chroot, not a guest)
#   packages.txt   its dpkg -l
#   compiler       the gcc-N-for-host it has (from the suite's newest
#                  linux-headers-<abi>'s Depends)
#   apt-view       the private apt view whose sources.list the root has,
#                  $GUESTMM_CACHE/apt/<suite>/: copy its lists/ in to use apt
#
# debootstrap (minbase) of the suite's release, then build-essential,
# make, bc, kmod, dwarves (pahole), linux-base and the compiler the
# suite's kernel headers depend on, from the archive with no recommends.
# Like scripts/rootfs/build.sh's images it lives in
# ${GUESTMM_CACHE:-~/.cache/guestmm}/rootfs/, under a key made from the
# package versions apt resolves for it now and this script; a new key
# means a rebuild, and older roots of the suite are removed.  The lists
# come from scripts/guest/kernel-next.sh's private view of the suite; the
# .debs are kept in rootfs/debs/ with the images'.  --key prints the key
# and builds nothing; --force rebuilds.  Runs as root (debootstrap,
# chroot, mounts).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
KNEXT=$top/scripts/guest/kernel-next.sh

PKGS="build-essential make bc kmod dwarves linux-base"

die() { echo "rootfs/kbuild-root.sh: $*" >&2; exit 1; }
log() { echo "kbuild-root: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$here/root.sh"

suite="" force=0 keyonly=0
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1 ;;
	--key) keyonly=1 ;;
	-h|--help) sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown argument '$1'" ;;
	*) [ -z "$suite" ] || die "one SUITE"; suite=$1 ;;
	esac
	shift
done
# The release debootstrap lays down, and its debootstrap script (the
# host's debootstrap may predate the release: sid's script serves any
# release of the usrmerged era).
case $suite in
trixie-backports) release=trixie script=trixie ;;
forky) release=forky script=sid ;;
*) die "usage: kbuild-root.sh trixie-backports|forky [--force] [--key]" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"
[ -f "/usr/share/debootstrap/scripts/$script" ] || script=sid

# The private view (refreshed by kernel-next.sh) and the compiler its
# newest 7.x headers name.
abi=$("$KNEXT" abi "$suite")
APTD=$CACHE/apt/$suite
[ -s "$APTD/sources.list" ] || die "no apt view at $APTD"
MIRROR=$(sed -n "s/^deb \[[^]]*\] \([^ ]*\) $release main\$/\1/p" "$APTD/sources.list")
[ -n "$MIRROR" ] || die "$APTD/sources.list has no $release line"

mkdir -p "$RDIR" "$DEBS/partial"
work=""
exec 9>"$RDIR/.lock"
flock 9
status=$(mktemp "$RDIR/status.XXXXXX")
apt_opts() { view_opts "$APTD" "$status"; }
# shellcheck disable=SC2046
compiler=$(apt-cache $(apt_opts) show --no-all-versions "linux-headers-$abi" |
	sed -n 's/^Depends: //p' | tr ',' '\n' |
	sed -n 's/^ *\(gcc-[0-9]*-for-host\).*/\1/p' | head -n1)
[ -n "$compiler" ] || die "linux-headers-$abi names no gcc-N-for-host"
pkgs="$PKGS $compiler"

# shellcheck disable=SC2046,SC2086
apt-get $(apt_opts) -s -q install --no-install-recommends $pkgs \
	>"$status.resolved" 2>&1 || {
	cat "$status.resolved" >&2
	rm -f "$status" "$status.resolved"
	die "cannot resolve the root's packages"
}
key=$({
	echo "suite $suite"
	sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p' "$status.resolved" | sort
	sha256sum "$0" "$here/root.sh" "$here/aptview.sh" | cut -d' ' -f1
} | sha256sum | cut -c1-12)
rm -f "$status" "$status.resolved"
name=kbuild-$suite-$key
out=$RDIR/$name
if [ $keyonly = 1 ]; then
	echo "$name"
	exit 0
fi
if [ $force = 0 ] && [ -f "$out/ok" ]; then
	echo "$out"
	exit 0
fi

# ---- build ------------------------------------------------------------------
t0=$(date +%s)
work=$(mktemp -d "$RDIR/tmp.XXXXXX")
root=$work/root
trap root_cleanup EXIT

log "building $name ($release, $compiler) in $work"
root_bootstrap "$release" "$root" "$MIRROR" "$script"
t1=$(date +%s)
root_prepare "$root" "$APTD/sources.list"
log "apt-get install $pkgs"
# shellcheck disable=SC2086
{
	in_root apt-get -q update &&
	in_root apt-get -q -y -o DPkg::Options::=--force-unsafe-io dist-upgrade &&
	in_root apt-get -q -y --no-install-recommends \
		-o DPkg::Options::=--force-unsafe-io install $pkgs
} >"$work/apt.log" 2>&1 || {
	tail -n 40 "$work/apt.log" >&2
	die "apt-get in the $suite root failed"
}
t2=$(date +%s)
mkdir -p "$work/img"
root_seal "$root" "$work/img/packages.txt"
root_close
rm -rf "$root"/var/lib/apt/lists/*
# Room for several kernels' headers and the objects.
root_mkfs "$root" "$work/img/rootfs.ext4" guestmm-kbuild 4096
echo "$compiler" >"$work/img/compiler"
echo "$APTD" >"$work/img/apt-view"
t3=$(date +%s)
root_publish "$work/img" "$out" "$RDIR/kbuild-$suite-" "$t0" "$t1" "$t2" "$t3"

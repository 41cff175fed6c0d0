#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian guest kernels for guestmm: resolve the current ABI from the package
# lists, fetch the image (no install), make sure its headers are installed.
#
#   kernel.sh abi     [SERIES]   print the ABI, e.g. 6.1.0-57-amd64
#   kernel.sh fetch   ABI        unpack linux-image-ABI-unsigned into the cache, print its root
#   kernel.sh headers ABI        install linux-headers-ABI when missing, print the KDIR
#   kernel.sh vmlinux ABI        print the path of the uncompressed vmlinux ELF (extracted once)
#
# SERIES is 6.1 (Debian 12, the default) or 6.12 (bookworm-backports; the
# 6.12 builds of bookworm-security are reached by their ABI).  An
# argument that already looks like an ABI (digits, dots, dash, "amd64") is
# passed through.  "debug" is the local debug build of debugkernel.sh (ABI
# e.g. 6.1.192-gmmdebug): it must have been built, as it lays out the same
# cache and header directories, and is never fetched from apt.  The
# backports suite is read through a private apt state
# directory so the machine's own sources are never changed.  A Linux 7.x
# series, suite or ABI (7.3, forky, 7.2.12+deb14-amd64) is handed to
# kernel-next.sh beside this script (its fetch lays out the same root;
# headers prints a KDIR for a build root, not the host).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${GUESTMM_CACHE:-$HOME/.cache/guestmm}

die() { echo "kernel.sh: $*" >&2; exit 1; }

# shellcheck source=scripts/rootfs/aptview.sh
. "$here/../rootfs/aptview.sh"

# apt options for the private view of bookworm + bookworm-backports, and
# its lists refreshed at most daily: the ABI moves, but not by the minute.
bpo_opts() { view_opts "$(suite_view bookworm-backports)"; }
bpo_update() { view_update "$(suite_view bookworm-backports)" 1440; }

# apt options for the suite an ABI comes from.  A "+deb12" ABI is 6.12
# for Debian 12: bookworm-security's linux-6.12 (6.12.107+deb12-amd64 on)
# is in the machine's own lists; bookworm-backports' (6.12.95+deb12-amd64)
# only in the private view.
opts_for_abi() {
	case $1 in
	*+deb12-*|*bpo*)
		ensure_lists
		apt-cache show "linux-image-$1-unsigned" 2>/dev/null | grep -q '^Package:' ||
			{ bpo_update; bpo_opts; } ;;
	*) echo "" ;;
	esac
}

ensure_lists() {
	[ -n "$(find /var/lib/apt/lists -name '*_Packages*' -print -quit 2>/dev/null)" ] ||
		apt-get -q update >&2
}

cmd_abi() {
	local series=${1:-6.1} opts="" dep
	case $series in
	6.1|bookworm|default) ensure_lists ;;
	6.12|bpo|bookworm-backports) bpo_update; opts="$(bpo_opts) -t bookworm-backports" ;;
	[0-9]*-amd64) echo "$series"; return ;;
	debug) "$here/debugkernel.sh" abi; return ;;
	[0-9]*-gmmdebug) echo "$series"; return ;;
	*) die "unknown kernel series '$series' (use 6.1, 6.12, debug or an ABI like 6.1.0-57-amd64)" ;;
	esac
	# shellcheck disable=SC2086
	dep=$(apt-cache $opts depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | head -n1)
	[ -n "$dep" ] || die "cannot resolve linux-image-amd64 for $series"
	echo "$dep"
}

cmd_fetch() {
	local abi=$1 dir=$CACHE/kernels/$1 opts tmp
	if [ ! -f "$dir/ok" ]; then
		case $abi in *-gmmdebug) die "$abi is built locally: run scripts/guest/debugkernel.sh" ;; esac
		opts=$(opts_for_abi "$abi")
		tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
		# shellcheck disable=SC2086
		(cd "$tmp" && apt-get $opts -o APT::Sandbox::User=root -q download "linux-image-$abi-unsigned" >&2) ||
			die "apt-get download linux-image-$abi-unsigned failed"
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg -x "$tmp"/linux-image-*.deb "$dir/root"
		rm -rf "$tmp"
		[ -f "$dir/root/boot/vmlinuz-$abi" ] || die "no vmlinuz in linux-image-$abi-unsigned"
		depmod -b "$dir/root" "$abi" 2>/dev/null || true
		touch "$dir/ok"
	fi
	echo "$dir/root"
}

cmd_headers() {
	local abi=$1 kdir=/usr/src/linux-headers-$1 opts
	if [ ! -f "$kdir/Makefile" ]; then
		case $abi in *-gmmdebug) die "$abi is built locally: run scripts/guest/debugkernel.sh" ;; esac
		opts=$(opts_for_abi "$abi")
		ensure_lists
		# The headers depend on the image; INITRD=No skips the host
		# initramfs the image's postinst would build (and the trigger
		# then rebuild): minutes per kernel, for a kernel this host
		# never boots.
		# shellcheck disable=SC2086
		INITRD=No DEBIAN_FRONTEND=noninteractive apt-get $opts -q -y install \
			--no-install-recommends "linux-headers-$abi" >&2 ||
			die "cannot install linux-headers-$abi"
	fi
	echo "$kdir"
}

cmd_vmlinux() {
	local abi=$1 root out
	root=$(cmd_fetch "$abi")
	out=$CACHE/kernels/$abi/vmlinux
	if [ ! -s "$out" ]; then
		python3 "$here/extract_vmlinux.py" "$root/boot/vmlinuz-$abi" "$out.tmp" ||
			die "cannot extract vmlinux from vmlinuz-$abi"
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

mkdir -p "$CACHE"
[ $# -ge 1 ] || die "usage: kernel.sh abi|fetch|headers|vmlinux ARG"
cmd=$1
shift
# Linux 7.x (trixie-backports, forky, sid; series, suite or ABI):
# kernel-next.sh, which knows their packages.
case ${1:-} in
[7-9].*|forky|sid|trixie-backports) exec "$here/kernel-next.sh" "$cmd" "$@" ;;
esac
case $cmd in
abi) cmd_abi "$@" ;;
fetch|headers|vmlinux)
	[ $# -eq 1 ] || die "usage: kernel.sh $cmd ABI"
	"cmd_$cmd" "$(cmd_abi "$1")" ;;
*) die "unknown command '$cmd'" ;;
esac

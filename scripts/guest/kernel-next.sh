#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's Linux 7.x kernels (trixie-backports' +deb13 builds, forky's and
# sid's +deb14 ones) for guestmm: what kernel.sh is for 6.1 and 6.12.
# Everything is resolved from the package lists; no ABI is written here.
#
#   kernel-next.sh list [FLAVOUR...]          every linux-headers-<abi> of the
#                                             suites below, one per line:
#                                             "suite abi flavour version series"
#   kernel-next.sh abi SERIES|SUITE|ABI [FLAVOUR]
#                                             print one ABI, e.g. 7.3.4+deb13-amd64
#   kernel-next.sh suite ABI                  the suite whose lists have it
#   kernel-next.sh debs ABI image|headers     download the package set (kept
#                                             in the cache), print the .deb paths
#   kernel-next.sh fetch ABI                  unpack image, modules and headers
#                                             into the cache, print the root
#   kernel-next.sh headers ABI                fetch, print the root's KDIR
#   kernel-next.sh vmlinux ABI                print the uncompressed vmlinux
#
# Suites: trixie-backports, forky and sid (NEXT_SUITES overrides the list);
# FLAVOUR: amd64 (the default) or cloud-amd64 (list: both unless named).
# SERIES is e.g. 7.3 or 7.2: the newest build of that series in any of
# the suites (by package version), or SERIES/SUITE (7.2/forky) in one;
# a SUITE alone names its newest 7.x build.  An argument that looks like
# an ABI (7.3.4+deb13-amd64) is passed through.
#
# 7.x has no linux-image-<abi>-unsigned: linux-image-<abi> is a meta
# package whose Depends name linux-binary-<abi> (vmlinuz at
# /usr/lib/modules/<abi>/vmlinuz), linux-modules-<abi> and
# linux-base-<abi>; the headers' Depends name linux-headers-*-common,
# linux-kbuild-* and the same linux-base-<abi>.  The sets are read from
# those Depends.  The fetched root lays the files out as kernel.sh's does
# (boot/vmlinuz-<abi>, lib/modules/<abi>, through symlinks into usr/), so
# scripts/guest/mkinitramfs.py and guest.py can use it; the headers'
# symlinks are absolute (/usr/src, /usr/lib/linux-kbuild-*), valid in a
# chroot of that root, not on the host (kbuild of 7.x needs glibc >= 2.38
# and gcc-14/16 anyway: scripts/lint-next.sh builds in a build root).
#
# The lists are read through a private apt state per suite,
# $GUESTMM_CACHE/apt/<suite>/ (trixie-backports with trixie beside it),
# aptview.sh's, which scripts/klp-variant uses too, refreshed at most
# daily; the machine's own apt sources are never changed.  This lists
# the builds whose headers the archive has; scripts/klp-variant matrix
# lists every image (trixie-backports keeps the images of 6.19 to 7.1
# without their headers or source).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CACHE=${GUESTMM_CACHE:-$HOME/.cache/guestmm}
SUITES=${NEXT_SUITES:-trixie-backports forky sid}

die() { echo "kernel-next.sh: $*" >&2; exit 1; }

# shellcheck source=scripts/rootfs/aptview.sh
. "$here/../rootfs/aptview.sh"

# apt options for the private view of SUITE (a -backports suite with its
# base suite), and its lists refreshed at most daily.
next_opts() { view_opts "$(suite_view "$1")"; }
next_update() { view_update "$(suite_view "$1")" 1440; }

# "suite abi flavour version series" for every linux-headers-<abi> of
# one suite (not of a -backports view's base suite).
list_suite() {
	local s=$1 opts names
	next_update "$s"
	opts=$(next_opts "$s")
	# shellcheck disable=SC2086
	names=$(apt-cache $opts pkgnames linux-headers- |
		grep -E '^linux-headers-[0-9][^ ]*-(amd64|cloud-amd64)$' |
		grep -v -e '-rt-amd64$' | sort) || true
	[ -n "$names" ] || return 0
	# shellcheck disable=SC2086
	apt-cache $opts madison $names |
		awk -v s="$s" -F ' *[|] *' '
		$3 ~ (" " s "/") {
			abi = $1; sub(/^ *linux-headers-/, "", abi)
			fl = abi ~ /-cloud-amd64$/ ? "cloud-amd64" : "amd64"
			split(abi, v, "."); series = v[1] "." v[2]
			print s, abi, fl, $2, series
		}' | sort -k5,5V -k4,4V
}

cmd_list() {
	local s want="${*:-amd64 cloud-amd64}"
	for s in $SUITES; do
		list_suite "$s"
	done | awk -v want=" $want " 'index(want, " " $3 " ")'
}

# newest: the line of stdin ("suite abi flavour version series") with the
# highest package version; the first one wins a tie.
newest() {
	local best="" bv="" s a f v r
	while read -r s a f v r; do
		if [ -z "$bv" ] || dpkg --compare-versions "$v" gt "$bv"; then
			best="$s $a $f $v $r" bv=$v
		fi
	done
	[ -n "$best" ] && echo "$best"
}

cmd_abi() {
	local arg=${1:?usage: kernel-next.sh abi SERIES|SUITE|ABI [FLAVOUR]} fl=${2:-amd64}
	local series suite line
	case $arg in
	[0-9]*.[0-9]*-amd64) echo "$arg"; return ;;
	[0-9]*.[0-9]*/*) series=${arg%%/*} suite=${arg#*/} ;;
	[0-9]*.[0-9]*) series=$arg suite="" ;;
	*[a-z]*) series="" suite=$arg ;;
	*) die "unknown kernel '$arg' (a series like 7.3, SERIES/SUITE, a suite, or an ABI)" ;;
	esac
	line=$(cmd_list "$fl" | awk -v se="$series" -v su="$suite" '
		(se == "" ? $5 + 0 >= 7 : $5 == se) && (su == "" || $1 == su)' | newest) ||
		die "no $fl kernel for '$arg' in the lists of: $SUITES"
	echo "$line" | cut -d' ' -f2
}

# The suite whose lists have linux-headers-ABI (the first of SUITES).
cmd_suite() {
	local abi=$1 s opts
	for s in $SUITES; do
		next_update "$s"
		opts=$(next_opts "$s")
		# shellcheck disable=SC2086
		if apt-cache $opts madison "linux-headers-$abi" 2>/dev/null |
			grep -q " $s/"; then
			echo "$s"
			return
		fi
	done
	die "linux-headers-$abi is in none of: $SUITES"
}

# The package set of one ABI, as "name=version": image (linux-image-ABI's
# Depends: linux-binary, linux-modules, linux-base) or headers
# (linux-headers-ABI and its Depends that name a kernel build).
pkg_set() {
	local abi=$1 what=$2 opts=$3 meta ver
	case $what in
	image) meta=linux-image-$abi ;;
	headers) meta=linux-headers-$abi ;;
	*) die "debs ABI image|headers" ;;
	esac
	# shellcheck disable=SC2086
	apt-cache $opts show --no-all-versions "$meta" >"$tmp/record" 2>/dev/null ||
		die "no $meta in the lists"
	ver=$(sed -n 's/^Version: //p' "$tmp/record")
	[ "$what" = image ] || echo "$meta=$ver"
	sed -n 's/^Depends: //p' "$tmp/record" | tr ',' '\n' |
		sed -n -E 's/^ *(linux-[a-z-]+-[0-9][^ ]*)( \((= )?([^)]*)\))?$/\1 \4/p' |
		while read -r n v; do
			# Unversioned (linux-kbuild-*): the version the lists have.
			if [ -z "$v" ]; then
				# shellcheck disable=SC2086
				v=$(apt-cache $opts show --no-all-versions "$n" |
					sed -n 's/^Version: //p')
			fi
			echo "$n=$v"
		done
}

cmd_debs() {
	local abi=$1 what=${2:-} suite opts dir=$CACHE/kernels/$1/debs p f
	suite=$(cmd_suite "$abi")
	opts=$(next_opts "$suite")
	tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$dir"
	pkg_set "$abi" "$what" "$opts" >"$tmp/set"
	[ -s "$tmp/set" ] || die "linux-$what-$abi names no packages"
	while IFS='=' read -r p v; do
		# (apt writes an epoch's colon as %3a in file names.)
		f=$(find "$dir" -maxdepth 1 -name "${p}_${v/:/%3a}_*.deb" | head -n1)
		if [ -z "$f" ]; then
			# shellcheck disable=SC2086
			(cd "$tmp" && apt-get $opts -qq download "$p=$v" >&2) ||
				die "apt-get download $p=$v ($suite) failed"
			mv "$tmp"/*.deb "$dir/"
			f=$(find "$dir" -maxdepth 1 -name "${p}_${v/:/%3a}_*.deb" | head -n1)
		fi
		echo "$f"
	done <"$tmp/set"
}

cmd_fetch() {
	local abi=$1 dir=$CACHE/kernels/$1 r f
	r=$dir/root
	if [ ! -f "$dir/ok" ]; then
		rm -rf "$r"
		mkdir -p "$r"
		for f in $(cmd_debs "$abi" image) $(cmd_debs "$abi" headers); do
			dpkg -x "$f" "$r"
		done
		[ -f "$r/usr/lib/modules/$abi/vmlinuz" ] ||
			die "no usr/lib/modules/$abi/vmlinuz in linux-binary-$abi"
		# kernel.sh's layout: boot/vmlinuz-ABI, lib/modules/ABI.
		[ -e "$r/lib" ] || ln -s usr/lib "$r/lib"
		mkdir -p "$r/boot"
		ln -sf "../usr/lib/modules/$abi/vmlinuz" "$r/boot/vmlinuz-$abi"
		depmod -b "$r" "$abi" 2>/dev/null || true
		touch "$dir/ok"
	fi
	echo "$r"
}

cmd_headers() {
	echo "$(cmd_fetch "$1")/usr/src/linux-headers-$1"
}

cmd_vmlinux() {
	local abi=$1 root out
	root=$(cmd_fetch "$abi")
	out=$CACHE/kernels/$abi/vmlinux
	if [ ! -s "$out" ]; then
		python3 "$here/extract_vmlinux.py" "$root/usr/lib/modules/$abi/vmlinuz" "$out.tmp" ||
			die "cannot extract vmlinux from $abi's vmlinuz"
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

mkdir -p "$CACHE"
[ $# -ge 1 ] || die "usage: kernel-next.sh list|abi|suite|debs|fetch|headers|vmlinux ARG"
cmd=$1
shift
case $cmd in
list) cmd_list "$@" ;;
abi) cmd_abi "$@" ;;
suite)
	[ $# -eq 1 ] || die "usage: kernel-next.sh suite ABI"
	cmd_suite "$(cmd_abi "$1")" ;;
debs)
	[ $# -eq 2 ] || die "usage: kernel-next.sh debs ABI image|headers"
	cmd_debs "$(cmd_abi "$1")" "$2" ;;
fetch|headers|vmlinux)
	case $# in
	1|2) ;;
	*) die "usage: kernel-next.sh $cmd ABI|SERIES [FLAVOUR]" ;;
	esac
	"cmd_$cmd" "$(cmd_abi "$@")" ;;
*) die "unknown command '$cmd'" ;;
esac

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An early warning for Debian's next kernels (`make lint-next`): a real
# kbuild of the kernel modules against the headers of every Linux 7.x
# build in trixie-backports, forky and sid, in a build root of the
# release that built it, and one line per build: OK, or FAIL with the
# first compiler errors (file:line).  Not part of make check.
#
#   scripts/lint-next.sh [DIR...]    DIRs: the Kbuild directories to build
#                                    (default: modules/*/ and livepatch/,
#                                    what the top Makefile builds)
#
# Environment:
#   LINT_NEXT_FLAVOURS      flavours to build for (default "amd64"; also
#                           "cloud-amd64")
#   LINT_NEXT_KERNELS       only these builds: ABIs, series (7.3), suites
#   LINT_NEXT_IGNORE_GUARD  1: compile past modules/compat.h's refusal of
#                           kernels >= 6.17 (-DGMM_LINT_NEXT), to see
#                           the real API errors behind it
#   LINT_NEXT_ERRORS        errors shown per build (default 5)
#
# The builds come from scripts/guest/kernel-next.sh list (the package
# lists, nothing written here).  A +deb13 build (trixie-backports) builds
# in the trixie-backports root (gcc-14), a +deb14 one (forky, sid) in the
# forky root (gcc-16): scripts/rootfs/kbuild-root.sh, cached.  Each root
# gets a throw-away qcow2 overlay (scripts/rootfs/root.sh), the headers'
# .debs (kernel-next.sh debs, cached) are installed there with apt, and
# each build compiles its own copy of the tree (git ls-files: tracked and
# untracked, not ignored) with make -k, so every failing file shows.
# Logs: build/lint-next/<abi>.log; the summary also in
# build/lint-next/summary.txt.
#
# The livepatch builds only for the kernel builds livepatch/kernels.tsv
# lists (livepatch/select-variant); for any other its Kbuild builds
# nothing and says why, which the line reports without failing.  Exit
# status 1 when any build fails.  Runs as root (mounts, chroot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
KNEXT=$top/scripts/guest/kernel-next.sh
OUT=$top/build/lint-next
FLAVOURS=${LINT_NEXT_FLAVOURS:-amd64}
NERR=${LINT_NEXT_ERRORS:-5}

die() { echo "lint-next: $*" >&2; exit 2; }
log() { echo "lint-next: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$top/scripts/rootfs/root.sh"

[ "$(id -u)" = 0 ] || die "must run as root (mount, chroot)"
dirs=$*
if [ -z "$dirs" ]; then
	for d in "$top"/modules/*/Kbuild "$top"/livepatch/Kbuild; do
		[ -f "$d" ] && d=${d%/Kbuild} && dirs="$dirs ${d#"$top"/}"
	done
fi
# "modules/balloon/ livepatch" -> "modules/balloon livepatch"
# shellcheck disable=SC2001
dirs=$(echo "$dirs" | sed 's#/\( \|$\)#\1#g; s/^ *//')
kcflags=""
[ "${LINT_NEXT_IGNORE_GUARD:-0}" = 0 ] || kcflags=-DGMM_LINT_NEXT

mkdir -p "$OUT" "$DEBS/partial"
exec 8>"$OUT/.lock"
flock -n 8 || die "another lint-next runs on this tree"

# The builds: "suite abi flavour version series", 7.x only.
# shellcheck disable=SC2086
"$KNEXT" list $FLAVOURS | awk -v only=" ${LINT_NEXT_KERNELS:-} " '
	$5 + 0 >= 7 && (only ~ /^ *$/ || index(only, " " $2 " ") ||
		index(only, " " $5 " ") || index(only, " " $1 " "))' >"$OUT/releases.txt"
[ -s "$OUT/releases.txt" ] || die "no 7.x kernel headers in the lists (kernel-next.sh list)"
log "$(wc -l <"$OUT/releases.txt") builds: $(awk '{ printf "%s%s", s, $2; s = " " }' "$OUT/releases.txt")"
: >"$OUT/summary.txt"
[ -z "$kcflags" ] || echo "lint-next: LINT_NEXT_IGNORE_GUARD=1: -DGMM_LINT_NEXT turns off" \
	"modules/compat.h's refusal of kernels >= 6.17" |
	fold -s -w 78 | sed 's/ *$//' | tee -a "$OUT/summary.txt"

# The root a build compiles in.
root_suite() {
	case $1 in
	trixie-backports) echo trixie-backports ;;
	forky|sid) echo forky ;;
	*) die "no build root for suite $1" ;;
	esac
}

# summarise ABI SUITE VERSION: the build's line and its first errors,
# from the per-directory logs and exit codes; returns 1 when it failed.
summarise() {
	local abi=$1 suite=$2 ver=$3 lg=$OUT/$1.log cc status="" ok=1 d n why ea
	ea=$(printf '%s' "$abi" | sed 's/[.+]/\\&/g')
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' \
		"$root/usr/src/linux-headers-$abi/.config" | sed 's/^x86_64-linux-gnu-//')
	# Distinct errors, as "file:line: message", paths relative to the tree.
	sed -n -E "s#^(/build/$ea/)?([^ :]+):([0-9]+):([0-9]+:)? (fatal )?error: (.*)#\\2:\\3: \\6#p;
		s#^ERROR: (modpost: .*)#\\1#p" "$lg" |
		sed -E "s#/build/$ea/##g" | awk '!seen[$0]++' >"$OUT/$abi.errors"
	n=$(wc -l <"$OUT/$abi.errors")
	for d in $dirs; do
		why=$(sed -n 's/^guestmm_klp: //p' "$OUT/$abi.${d//\//_}.log" | head -n1)
		if [ "$(cat "$OUT/$abi.${d//\//_}.rc")" != 0 ]; then
			status="$status, ${d##*/} FAIL"
			ok=0
		elif [ -n "$(find "$root/build/$abi/$d" -maxdepth 1 -name '*.ko' -print -quit)" ]; then
			status="$status, ${d##*/} built"
		elif [ -n "$why" ]; then
			# The livepatch's own refusal (livepatch/select-variant).
			why=$(echo "$why" | sed "s/^kernel [^ ]* '[^']*' //; s/^is //; s/; livepatch not built.*//")
			status="$status, ${d##*/} not built ($why)"
		else
			status="$status, ${d##*/} built nothing"
			ok=0
		fi
	done
	status=${status#, }
	[ "$n" = 0 ] || ok=0
	if [ $ok = 1 ]; then
		printf '%-26s OK    %s %s, %s: %s%s\n' "$abi" "$suite" "$ver" "$cc" "$status" "$guard"
		return 0
	fi
	printf '%-26s FAIL  %s %s, %s: %s%s; %d distinct errors in %d files\n' \
		"$abi" "$suite" "$ver" "$cc" "$status" "$guard" "$n" \
		"$(cut -d: -f1 "$OUT/$abi.errors" | sort -u | wc -l)"
	if [ "$n" = 0 ]; then
		grep -v '^make' "$lg" | tail -n "$NERR" | sed 's/^/    /'
	else
		head -n "$NERR" "$OUT/$abi.errors" | sed 's/^/    /'
	fi
	return 1
}

failed=0
work=""
for rs in trixie-backports forky; do
	rel=$(while read -r s a f v r; do
		[ "$(root_suite "$s")" != "$rs" ] || echo "$s $a $f $v $r"
	done <"$OUT/releases.txt")
	[ -n "$rel" ] || continue
	img=$("$top/scripts/rootfs/kbuild-root.sh" "$rs" | tail -n1)
	[ -f "$img/ok" ] || die "no $rs build root at $img"
	aptd=$(cat "$img/apt-view")

	# The headers' .debs, downloaded (once) through their suites' views.
	work=$(mktemp -d "$RDIR/lint-next.XXXXXX")
	root=$work/root
	trap root_cleanup EXIT
	mkdir -p "$work/debs"
	while read -r s a f v r; do
		mkdir -p "$work/debs/$a"
		for deb in $("$KNEXT" debs "$a" headers); do
			ln -f "$deb" "$work/debs/$a/" 2>/dev/null || cp "$deb" "$work/debs/$a/"
		done
	done <<<"$rel"

	log "$rs build root: an overlay on $(basename "$img")"
	qemu-img create -q -f qcow2 -F raw -b "$img/rootfs.ext4" "$work/root.qcow2" ||
		die "qemu-img create failed"
	root_open "$work/root.qcow2" "$root" ",cache.no-flush=on"
	cmp -s "$root/etc/apt/sources.list" "$aptd/sources.list" ||
		die "the $rs root's apt sources differ from $aptd/sources.list"
	mkdir -p "$root/tmp/debs"
	cp -a "$work/debs/." "$root/tmp/debs/"
	# The headers with what they depend on (the root's compiler, linux-base):
	# apt downloads into rootfs/debs/, under the lock the image builds take.
	log "installing the headers of $(echo "$rel" | wc -l) builds"
	(
		flock 9
		cp -a "$aptd/lists/." "$root/var/lib/apt/lists/"
		chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			sh -c 'apt-get -q -y --no-install-recommends -o Dpkg::Use-Pty=0 \
				-o DPkg::Options::=--force-unsafe-io install /tmp/debs/*/*.deb'
	) 9>"$RDIR/.lock" >"$OUT/apt-$rs.log" 2>&1 || {
		tail -n 30 "$OUT/apt-$rs.log" >&2
		die "installing the headers in the $rs root failed (see $OUT/apt-$rs.log)"
	}

	while read -r s a f v r; do
		mkdir -p "$root/build/$a"
		(cd "$top" && git ls-files -z -co --exclude-standard |
			tar --null --ignore-failed-read -T - -cf - 2>/dev/null) |
			tar -C "$root/build/$a" -xf -
		flags=$kcflags guard=""
		[ -z "$kcflags" ] || guard=" [past the guard]"
		: >"$OUT/$a.log"
		# One directory at a time (a failing one stops kbuild before the
		# others link), one job: the machine's cores are shared.
		for d in $dirs; do
			log "$a: make -C /usr/src/linux-headers-$a M=... GUESTMM_DIRS=$d modules${flags:+ KCFLAGS=\"$flags\"}"
			rc=0
			nice -n 10 chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				HOME=/root LC_ALL=C.UTF-8 make -k -j1 -C "/usr/src/linux-headers-$a" \
				M="/build/$a" GUESTMM_DIRS="$d" ${flags:+KCFLAGS="$flags"} modules \
				>"$OUT/$a.${d//\//_}.log" 2>&1 || rc=$?
			echo "$rc" >"$OUT/$a.${d//\//_}.rc"
			cat "$OUT/$a.${d//\//_}.log" >>"$OUT/$a.log"
		done
		summarise "$a" "$s" "$v" | tee -a "$OUT/summary.txt" || failed=1
	done <<<"$rel"
	root_close
	rm -rf "$work"
	trap - EXIT
	work=""
done
exit $failed

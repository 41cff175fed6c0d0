#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The .deb files that move a scripts/rootfs image to the newest kernel of
# its suites, for a test that upgrades the kernel of an offline guest: boot
# scripts/rootfs/layer.sh's image of an older build, copy these in, `apt
# install ./*.deb`, and DKMS builds guestmm for the new kernel.
#
#   scripts/rootfs/kernel-debs.sh SERIES-OR-ABI OUTDIR [--check IMAGEDIR]
#                                 [--flavour FLAVOUR]
#   scripts/rootfs/kernel-debs.sh --pkgs "PKG..." SERIES-OR-ABI OUTDIR
#
# SERIES-OR-ABI is a build.sh series (6.1, 6.12, trixie) or a kernel ABI
# layer.sh takes (6.1.0-50-amd64, 6.12.95+deb12-amd64,
# 6.12.107+deb13-amd64), which names its series.  OUTDIR gets what a
# user's `apt install linux-image-amd64 linux-headers-amd64` fetches on an
# image of that series whose kernel packages are older or gone (the
# metapackages from bookworm-backports for 6.12, as build.sh installs
# them):
#   linux-image-amd64, linux-headers-amd64    the metapackages
#   linux-image-ABI                           the newest build, signed
#   linux-headers-ABI, linux-headers-*-common, linux-kbuild-*,
#   linux-compiler-*                          what its headers depend on
# and anything else those need beyond the image (none so far; named on
# stderr when there is), plus index.txt: "package version file sha256"
# --flavour cloud-amd64: the same for Debian's cloud kernel
# (linux-image-cloud-amd64, linux-headers-cloud-amd64), what a cloud
# image upgrades to; amd64 is the default.
# for each.  It prints OUTDIR's .deb files.  --pkgs: the same for other
# packages than the kernel's (what a test's .debs depend on and the image
# lacks, e.g. libbpf1 on Debian 12), resolved and checked the same way.
#
# Everything is resolved from the package lists of the series' private apt
# view (build.sh's, refreshed by it), against the dpkg status of the
# series' image (build.sh's, built first when missing) with its kernel
# packages (linux-image-*, linux-headers-*, linux-kbuild-*,
# linux-compiler-*) taken out; nothing here names a version.  The files
# are downloaded (apt-get --download-only: apt checks every hash) into
# the image builds' own cache, rootfs/debs/, reusing what is there, and
# hard-linked (else copied) into OUTDIR.
#
# Then the set is checked offline: `apt-get install -s ./OUTDIR/*.deb`
# with no package lists at all (as in the guest, whose lists build.sh
# removes) must install exactly OUTDIR's packages, on the image's status
# without its kernel packages and on the status of the layer the ABI names
# when layer.sh has built it (or of IMAGEDIR, --check: a build.sh or
# layer.sh image directory).  Runs as root (build.sh; a layer's disk is
# read through qemu-storage-daemon's FUSE export, nothing is mounted).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# The kernel packages: the image's that the status loses, the set's names.
KPKG='linux-(image|headers|kbuild|compiler)-'

die() { echo "rootfs/kernel-debs.sh: $*" >&2; exit 1; }
log() { echo "rootfs: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$here/root.sh"

arg="" outdir="" checks=() pkgs="" flavour=amd64
while [ $# -gt 0 ]; do
	case $1 in
	--pkgs) pkgs=${2:?}; shift ;;
	--flavour) flavour=${2:?}; shift ;;
	--check) checks+=("${2:?}"); shift ;;
	--check=*) checks+=("${1#*=}") ;;
	-h|--help) sed -n '3,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown argument '$1'" ;;
	*)
		if [ -z "$arg" ]; then arg=$1
		elif [ -z "$outdir" ]; then outdir=$1
		else die "one SERIES-OR-ABI and one OUTDIR"
		fi ;;
	esac
	shift
done
[ -n "$outdir" ] || die "usage: kernel-debs.sh SERIES-OR-ABI OUTDIR [--check IMAGEDIR]"
# The series, as build.sh and layer.sh name it; pin: the ABI given.
pin=""
case $arg in
6.1|bookworm) series=6.1 ;;
6.12|bpo|bookworm-backports) series=6.12 ;;
trixie|13) series=trixie ;;
6.12.[0-9]*+deb13*-amd64) series=trixie pin=$arg ;;
6.1.0-[0-9]*-amd64) series=6.1 pin=$arg ;;
6.12.[0-9]*+deb12*-amd64) series=6.12 pin=$arg ;;
*) die "'$arg' is neither a series (6.1, 6.12, trixie) nor a Debian 12 or 13 amd64 kernel release" ;;
esac
case $flavour in
amd64|cloud-amd64) ;;
*) die "--flavour $flavour: the flavours are amd64 and cloud-amd64" ;;
esac
metas="linux-image-$flavour linux-headers-$flavour"
[ $series != 6.12 ] ||
	metas="linux-image-$flavour/bookworm-backports linux-headers-$flavour/bookworm-backports"
[ -z "$pkgs" ] || metas=$pkgs
[ "$(id -u)" = 0 ] || die "must run as root (build.sh, qemu-storage-daemon)"
for d in "${checks[@]}"; do
	[ -f "$d/ok" ] || die "--check $d: not a built image directory"
done

# The base image (built when missing; its apt view refreshed) and the
# layer of the ABI given, when built.
base=$("$top/scripts/rootfs/build.sh" --kernel $series | tail -n1)
if [ -n "$pin" ]; then
	layer=$RDIR/$("$top/scripts/rootfs/layer.sh" "$pin" --key | tail -n1)
	if [ -f "$layer/ok" ]; then
		checks+=("$layer")
	else
		log "no layer for $pin is built ($layer): checking on the image only"
	fi
fi

APTD=$RDIR/apt/$series
apt_opts() { view_opts "$APTD" "$1"; }	# apt_opts STATUS

exec 9>"$RDIR/.lock"
flock 9
[ -f "$base/ok" ] || die "the base image $base went away"
work=$(mktemp -d "$RDIR/tmp.XXXXXX")
trap root_cleanup EXIT

# image_status IMAGEDIR OUT: the image's /var/lib/dpkg/status, read with
# debugfs from its ext4 (a layer's through a read-only FUSE export).
image_status() {
	local img=$1 out=$2 disk
	if [ -f "$img/rootfs.qcow2" ]; then
		disk=$work/disk.raw
		qsd_export "$img/rootfs.qcow2" "$disk"
	else
		disk=$img/rootfs.ext4
	fi
	debugfs -R "cat /var/lib/dpkg/status" "$disk" >"$out" 2>"$work/debugfs.log" || true
	qsd_stop
	grep -q '^Package: base-files$' "$out" ||
		die "cannot read the dpkg status of $img ($(head -c 300 "$work/debugfs.log"))"
}

# The image without its kernel packages: an image of the series whose
# kernel is older, or was purged (layer.sh), both as far as apt can tell.
image_status "$base" "$work/status.image"
awk -v re="^Package: $KPKG" 'BEGIN { RS = ""; ORS = "\n\n" } $0 !~ re' \
	"$work/status.image" >"$work/status"
awk -v re="^Package: $KPKG" 'BEGIN { RS = "" } $0 ~ re { n++ } END { exit n == 0 }' \
	"$work/status.image" || die "the image $base has no kernel packages"

# What apt would fetch there.
# shellcheck disable=SC2046,SC2086
apt-get $(apt_opts "$work/status") -s -q install --no-install-recommends $metas \
	>"$work/resolved.txt" 2>&1 || {
	tail -n 20 "$work/resolved.txt" >&2
	die "cannot resolve $metas for $series"
}
sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p' "$work/resolved.txt" | sort >"$work/set"
if [ -z "$pkgs" ]; then
	abi=$(sed -n 's/^linux-image-\([0-9][^ ]*-amd64\) .*/\1/p' "$work/set" | head -n1)
	[ -n "$abi" ] || die "linux-image-$flavour of $series names no kernel build"
	extra=$(grep -Ev "^$KPKG" "$work/set" || true)
	[ -z "$extra" ] ||
		log "besides kernel packages, the image needs: $(echo "$extra" | tr '\n' ' ')"
	log "$series: kernel $abi, $(wc -l <"$work/set") packages"
else
	abi="(--pkgs $pkgs)"
	log "$series: $pkgs, $(wc -l <"$work/set") packages"
fi

# The files (their names from apt's own URIs: nothing is in an empty
# archive cache, so every file is listed), then the download into DEBS.
mkdir -p "$work/empty/partial" "$DEBS/partial"
# shellcheck disable=SC2046,SC2086
apt-get $(apt_opts "$work/status") -o Dir::Cache::archives="$work/empty" -q -y \
	--no-install-recommends --print-uris install $metas >"$work/uris.txt" ||
	die "apt-get --print-uris failed"
# shellcheck disable=SC2046,SC2086
apt-get $(apt_opts "$work/status") -o Dir::Cache::archives="$DEBS" -q -y \
	--no-install-recommends --download-only install $metas >"$work/download.log" 2>&1 || {
	tail -n 20 "$work/download.log" >&2
	die "apt-get --download-only failed"
}
sed -n "s/^'[^']*' \([^ ]*\.deb\) [0-9].*/\1/p" "$work/uris.txt" | sort >"$work/files"
[ "$(wc -l <"$work/files")" = "$(wc -l <"$work/set")" ] || {
	cat "$work/uris.txt" >&2
	die "apt's URIs do not match the resolved packages"
}

# OUTDIR: what an earlier run put there (its index.txt) goes first.
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
if [ -f "$outdir/index.txt" ]; then
	awk '!/^#/ && NF >= 3 { print $3 }' "$outdir/index.txt" | while read -r f; do
		case $f in */*|"") ;; *) rm -f "$outdir/$f" ;; esac
	done
	rm -f "$outdir/index.txt"
fi
for f in "$outdir"/*.deb; do
	[ -e "$f" ] && die "$outdir has .deb files this script did not put there ($f)"
done
{
	echo "# scripts/rootfs/kernel-debs.sh: series $series, kernel $abi"
	echo "# package version file sha256"
} >"$outdir/index.txt"
# (apt checked the hashes; so does this, against the lists, once more.)
while read -r f; do
	[ -f "$DEBS/$f" ] || die "apt did not leave $f in $DEBS"
	# shellcheck disable=SC2016
	pv=$(dpkg-deb -W --showformat='${Package} ${Version}' "$DEBS/$f")
	sum=$(sha256sum "$DEBS/$f" | cut -d' ' -f1)
	# (Twice more, 2 s apart, when the lists do not show it: seen twice
	# while other work on the machine ran apt, never alone.)
	for try in 1 2 3; do
		# shellcheck disable=SC2046
		apt-cache $(apt_opts "$work/status") show --no-all-versions "${pv/ /=}" \
			>"$work/record" 2>&1 || true
		grep -qx "SHA256: $sum" "$work/record" && break
		[ $try = 3 ] && {
			grep -E '^(Package|Version|SHA256):' "$work/record" >&2
			die "$DEBS/$f ($sum) does not match the lists' SHA256"
		}
		sleep 2
	done
	grep -qx "$pv" "$work/set" || die "$f ($pv) is not one of the resolved packages"
	ln -f "$DEBS/$f" "$outdir/$f" 2>/dev/null || cp "$DEBS/$f" "$outdir/$f"
	echo "$pv $f $sum" >>"$outdir/index.txt"
done <"$work/files"

# The offline check: no lists, the image's status (without its kernel, and
# each image checked), OUTDIR's files alone.
mkdir -p "$work/nolists/partial"
offline() {	# offline STATUS NAME
	local st=$1 name=$2
	# shellcheck disable=SC2046
	apt-get $(apt_opts "$st") -o Dir::State::Lists="$work/nolists" \
		-o Dir::Cache::archives="$work/empty" -s -q \
		install --no-install-recommends "$outdir"/*.deb >"$work/offline.txt" 2>&1 || {
		tail -n 20 "$work/offline.txt" >&2
		die "OUTDIR's .debs do not install offline on $name"
	}
	sed -n 's/^Inst \([^ ]*\) .*/\1/p' "$work/offline.txt" | sort >"$work/offline.inst"
	awk '!/^#/ { print $1 }' "$outdir/index.txt" | sort >"$work/offline.want"
	# Packages the image has at the newest version already are not
	# installed again (comm -13: installed but not in OUTDIR).
	if [ -n "$(comm -13 "$work/offline.want" "$work/offline.inst")" ] ||
		grep -q '^Remv ' "$work/offline.txt"; then
		cat "$work/offline.txt" >&2
		die "installing OUTDIR's .debs on $name needs more than they are"
	fi
	log "offline check on $name: $(wc -l <"$work/offline.inst") to install, nothing to download"
}
offline "$work/status" "$(basename "$base") without its kernel"
for d in "${checks[@]}"; do
	image_status "$d" "$work/status.check"
	offline "$work/status.check" "${d#"$RDIR"/}"
done

(cd "$outdir" && ls -1 -- *.deb)

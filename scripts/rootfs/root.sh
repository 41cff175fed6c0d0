# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The steps of a Debian root file system built on the host, for a chroot:
# sourced by scripts/rootfs/build.sh (the guest images), kbuild-root.sh
# (the 7.x build roots), layer.sh (a kernel layer on an image),
# deb-build.sh (a throw-away Debian 13 build root), kernel-debs.sh and
# scripts/lint-next.sh.  It sources aptview.sh (the private apt views).
#
#   root_bootstrap RELEASE ROOT MIRROR [SCRIPT]
#                                 debootstrap (minbase) from the images'
#                                 .deb cache, with debootstrap's SCRIPT
#                                 for the release when the host's lacks it
#   root_prepare ROOT SOURCES     apt in ROOT: SOURCES as its sources.list,
#                                 no recommends, Release files' Valid-Until
#                                 checked as the host's apt does, no
#                                 service started (policy-rc.d); then
#                                 root_mounts
#   root_no_services ROOT         no service started (policy-rc.d)
#   root_mounts ROOT              proc, sys, dev, dev/pts and $DEBS as
#                                 apt's archives
#   in_root CMD...                CMD in the chroot $root, in a clean
#                                 environment
#   root_seal ROOT PACKAGES       the policy-rc.d off, dpkg's package list
#                                 to PACKAGES, apt's caches and the logs
#                                 removed (apt's lists are the caller's:
#                                 a layer's are a view's, bind-mounted)
#   root_mkfs ROOT FILE LABEL MIB an ext4 image of ROOT with MIB to spare
#                                 (sparse: costs nothing unused)
#   root_publish IMG OUT PREFIX T0 T1 T2 T3
#                                 IMG, with its build times and logs, made
#                                 OUT (root_replace)
#   root_replace IMG OUT PREFIX   IMG marked complete and made OUT; the
#                                 older images PREFIX* removed
#   qsd_export QCOW2 FILE [OPTS [on]]
#                                 QCOW2 as a raw FILE, through
#                                 qemu-storage-daemon's FUSE export (OPTS:
#                                 more options of its file node, e.g.
#                                 ",cache.no-flush=on"); read-only unless
#                                 "on"
#   root_open QCOW2 ROOT [OPTS]   qsd_export writable, loop-mounted at
#                                 ROOT, then root_mounts
#   mnt TARGET MOUNT-ARGS...      one more mount, undone by root_close
#   root_close                    unmount all and stop the export; fails
#                                 when an unmount does (the qcow2 is then
#                                 not to be trusted)
#   root_cleanup                  the same, best effort, and rm -rf $work:
#                                 the caller's EXIT trap
#
# The caller sets work (a directory of its own, removed by root_cleanup)
# and root (for in_root), and defines die and log.  CACHE, RDIR (the
# images' directory) and DEBS (their .deb cache) have their defaults
# here.
# shellcheck disable=SC2154   # work and root are the caller's

rootfs_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/rootfs/aptview.sh
. "$rootfs_here/aptview.sh"
: "${RDIR:=$CACHE/rootfs}"
: "${DEBS:=$RDIR/debs}"
ROOT_ENV=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
	LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive)

mounts=()
qsd=""

mnt() {	# mnt TARGET mount-args...
	local t=$1
	shift
	mkdir -p "$t"
	mount "$@" "$t"
	mounts+=("$t")
}

root_bootstrap() {	# root_bootstrap RELEASE ROOT MIRROR [SCRIPT]
	local release=$1 r=$2 mirror=$3 script=${4:-}
	log "debootstrap $release (minbase) from $mirror"
	debootstrap --variant=minbase --cache-dir="$DEBS" --keyring="$KEYRING" \
		"$release" "$r" "$mirror" \
		${script:+"/usr/share/debootstrap/scripts/$script"} \
		>"$work/debootstrap.log" 2>&1 || {
		tail -n 30 "$work/debootstrap.log" >&2
		die "debootstrap $release failed"
	}
}

root_prepare() {	# root_prepare ROOT SOURCES
	local r=$1
	cp "$2" "$r/etc/apt/sources.list"
	cat >"$r/etc/apt/apt.conf.d/90no-recommends" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
EOF
	# The host's apt checks a Release file's Valid-Until or not, and read
	# the view's lists so: the root's apt the same (this machine's
	# archive may serve forky and sid past it).
	if [ "$(apt-config shell v Acquire::Check-Valid-Until)" = "v='false'" ]; then
		echo 'Acquire::Check-Valid-Until "false";' \
			>"$r/etc/apt/apt.conf.d/90valid-until"
	fi
	root_no_services "$r"
	root_mounts "$r"
}

# Packages' maintainer scripts start no service in the chroot, until
# root_seal.
root_no_services() {	# root_no_services ROOT
	printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
	chmod 755 "$1/usr/sbin/policy-rc.d"
}

root_mounts() {	# root_mounts ROOT
	local r=$1
	mnt "$r/proc" -t proc proc
	mnt "$r/sys" -t sysfs sysfs
	mnt "$r/dev" --bind /dev
	mnt "$r/dev/pts" --bind /dev/pts
	mnt "$r/var/cache/apt/archives" --bind "$DEBS"
}

in_root() {
	chroot "$root" "${ROOT_ENV[@]}" "$@"
}

root_seal() {	# root_seal ROOT PACKAGES
	local r=$1
	rm -f "$r/usr/sbin/policy-rc.d"
	# shellcheck disable=SC2016
	chroot "$r" "${ROOT_ENV[@]}" dpkg-query -W -f '${Package} ${Version}\n' |
		sort >"$2"
	rm -rf "$r"/var/cache/apt/*.bin "$r"/tmp/* "$r"/var/log/apt/* \
		"$r"/var/log/dpkg.log
}

root_mkfs() {	# root_mkfs ROOT FILE LABEL MIB
	local r=$1 file=$2 label=$3 spare=$4 used
	used=$(du -sm "$r" | cut -f1)
	log "mkfs.ext4 -d (${used} MiB used, $((used + spare)) MiB image)"
	truncate -s "$((used + spare))M" "$file"
	mkfs.ext4 -q -F -L "$label" -d "$r" "$file" || die "mkfs.ext4 -d failed"
}

# The finished image directory IMG becomes OUT: its build times (T0 the
# start, then after debootstrap, after apt, and now) and the debootstrap
# and apt logs go in, then root_replace.  Prints OUT.
root_publish() {	# root_publish IMG OUT PREFIX T0 T1 T2 T3
	printf 'debootstrap %ds, apt %ds, image %ds, total %ds\n' \
		$(($5 - $4)) $(($6 - $5)) $(($7 - $6)) $(($7 - $4)) >"$1/build-time.txt"
	cp "$work/debootstrap.log" "$work/apt.log" "$1/"
	root_replace "$1" "$2" "$3"
	log "built $(basename "$2") in $(($7 - $4))s ($(cat "$2/build-time.txt"))"
	echo "$2"
}

# IMG, marked complete ("ok"), becomes OUT; the images PREFIX* that OUT
# replaces are removed.
root_replace() {	# root_replace IMG OUT PREFIX
	local old
	touch "$1/ok"
	rm -rf "$2"
	mv "$1" "$2"
	for old in "$3"*; do
		[ "$old" = "$2" ] || rm -rf "$old"
	done
}

qsd_export() {	# qsd_export QCOW2 FILE [FILE-NODE-OPTS [on]]
	local qcow=$1 file=$2 opts=${3:-} writable=${4:-off} ro=""
	[ "$writable" = on ] || ro=,read-only=on
	: >"$file"
	qemu-storage-daemon \
		--blockdev driver=file,node-name=file,filename="$qcow$opts$ro" \
		--blockdev driver=qcow2,node-name=disk,file=file$ro \
		--export type=fuse,id=exp,node-name=disk,mountpoint="$file",writable="$writable" \
		--pidfile "$work/qsd.pid" --daemonize ||
		die "qemu-storage-daemon could not export $qcow (FUSE: /dev/fuse, fuse3)"
	qsd=$(cat "$work/qsd.pid")
}

root_open() {	# root_open QCOW2 ROOT [FILE-NODE-OPTS]
	qsd_export "$1" "$work/disk.raw" "${3:-}" on
	mnt "$2" -o loop "$work/disk.raw"
	root_mounts "$2"
}

qsd_stop() {
	[ -n "$qsd" ] || return 0
	kill "$qsd" 2>/dev/null || true
	while kill -0 "$qsd" 2>/dev/null; do sleep 0.2; done
	qsd=""
}

root_close() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[$i]}" || die "umount ${mounts[$i]} failed"
	done
	mounts=()
	qsd_stop
}

root_cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[$i]}" 2>/dev/null || true
	done
	mounts=()
	qsd_stop
	rm -rf "$work"
}

# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A writable root file system on a qcow2 file, for a chroot on the host:
# sourced by scripts/rootfs/layer.sh (a kernel layer on an image) and
# scripts/rootfs/deb-build.sh (a throw-away Debian 13 build root).
#
#   root_open QCOW2 ROOT [OPTS]   export QCOW2 through qemu-storage-daemon's
#                                 FUSE export (OPTS: more options of its
#                                 file node, e.g. ",cache.no-flush=on"),
#                                 loop-mount it at ROOT, then proc, sys,
#                                 dev, dev/pts and $DEBS as apt's archives
#   mnt TARGET MOUNT-ARGS...      one more mount, undone by root_close
#   root_close                    unmount all and stop the export; fails
#                                 when an unmount does (the qcow2 is then
#                                 not to be trusted)
#   root_cleanup                  the same, best effort, and rm -rf $work:
#                                 the caller's EXIT trap
#
# The caller sets work (a directory of its own, removed by root_cleanup)
# and DEBS (the .deb cache) and defines die.
# shellcheck disable=SC2154   # work and DEBS are the caller's

mounts=()
qsd=""

mnt() {	# mnt TARGET mount-args...
	local t=$1
	shift
	mkdir -p "$t"
	mount "$@" "$t"
	mounts+=("$t")
}

root_open() {	# root_open QCOW2 ROOT [FILE-NODE-OPTS]
	local qcow=$1 root=$2 opts=${3:-}
	: >"$work/disk.raw"
	qemu-storage-daemon \
		--blockdev driver=file,node-name=file,filename="$qcow$opts" \
		--blockdev driver=qcow2,node-name=disk,file=file \
		--export type=fuse,id=exp,node-name=disk,mountpoint="$work/disk.raw",writable=on \
		--pidfile "$work/qsd.pid" --daemonize ||
		die "qemu-storage-daemon could not export $qcow (FUSE: /dev/fuse, fuse3)"
	qsd=$(cat "$work/qsd.pid")
	mnt "$root" -o loop "$work/disk.raw"
	mnt "$root/proc" -t proc proc
	mnt "$root/sys" -t sysfs sysfs
	mnt "$root/dev" --bind /dev
	mnt "$root/dev/pts" --bind /dev/pts
	mnt "$root/var/cache/apt/archives" --bind "$DEBS"
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

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install guestmm on this machine with DKMS, or take it away again.
#
#   scripts/install.sh install [--no-build]   (make install, make dkms-install)
#   scripts/install.sh remove                 (make dkms-remove)
#   scripts/install.sh version
#   scripts/install.sh dist OUT.tar           the install tree as a tarball
#   scripts/install.sh dkms-tree DIR          the DKMS source into DIR
#
# install: copies the DKMS source (Kbuild, dkms.conf, modules/balloon,
# modules/compat.h, modules/gmm_param.[ch], livepatch, LICENSE) to /usr/src/guestmm-<version>,
# `dkms add`s it and, unless --no-build, `dkms install`s it for the running
# kernel (AUTOINSTALL rebuilds it for every kernel installed later); then
#   /etc/modprobe.d/guestmm.conf      from scripts/modprobe.d/ (virtio_balloon
#                                     blacklisted, guestmm_balloon options)
#   /etc/modules-load.d/guestmm.conf  guestmm_balloon at boot; guestmm_klp
#                                     listed, commented out (opt in)
#   /usr/sbin/guestmm-stat            the static BPF loader, if built
#   /usr/sbin/guestmm-switch          stock <-> guestmm balloon driver
# and regenerates the initramfs if it carries virtio_balloon.  Installing
# again replaces the previous installation; an edited modules-load.d file
# is kept.
#
# remove: unloads what is loaded (BPF pins, the livepatch, the balloon
# driver, which hands the device back to virtio_balloon), `dkms remove`s
# every guestmm version and deletes every file install created.  Only
# DKMS's own signing key (/var/lib/dkms/mok.*), shared by all DKMS
# modules, stays.
#
# dist: the tree `install` reads (plus this script, the Makefile and
# docs/install.md) as OUT.tar with one top directory guestmm-<version>/;
# the DKMS test unpacks it inside a guest.
#
# dkms-tree: the DKMS source alone, as /usr/src/guestmm-<version> holds it
# (debian/rules builds guestmm-dkms with it).
#
# The version is debian/changelog's (in a dist tarball, whose dkms.conf
# already carries it, dkms.conf's); every copy of dkms.conf made here has
# it in place of #MODULE_VERSION#.
#
# install and remove: root only, no DESTDIR: they change the running system.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
NAME=guestmm
MODPROBE_CONF=/etc/modprobe.d/guestmm.conf
LOAD_CONF=/etc/modules-load.d/guestmm.conf
SBIN=/usr/sbin
LP=/sys/kernel/livepatch/guestmm_klp

die() { echo "guestmm install: $*" >&2; exit 1; }
say() { echo "guestmm: $*"; }

# The upstream part of debian/changelog's first version (no epoch, no
# Debian revision); else a dkms.conf that was installed with its version.
version() {
	local v=""
	if [ -f "$top/debian/changelog" ]; then
		v=$(sed -n '1s/^[^ ]* (\([0-9]*:\)\{0,1\}\([^)]*\)).*/\2/p' \
			"$top/debian/changelog")
		case $v in *-*) v=${v%-*} ;; esac
	else
		v=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"#]*\)"\{0,1\}$/\1/p' \
			"$top/dkms.conf")
	fi
	echo "$v"
}
VERSION=$(version)
[ -n "$VERSION" ] || die "no version: neither debian/changelog nor dkms.conf in $top has one"

# The DKMS source, relative to the top: sources and build files only,
# never kbuild's outputs.
dkms_files() {
	(cd "$top" && {
		echo Kbuild
		echo dkms.conf
		echo LICENSE
		echo modules/compat.h
		echo modules/gmm_param.c
		echo modules/gmm_param.h
		find modules/balloon livepatch -type f \
			\( -name '*.c' -o -name '*.h' -o -name Kbuild -o -name Makefile \
			-o -name Kbuild.inc -o -name kernels.tsv -o -name select-variant \
			-o -name builds-h -o -name protos-h -o -path livepatch/postlink/run \) \
			! -name '*.mod.c' ! -name builds.h ! -name protos.h ! -name '.*' | sort
	})
}

# The guestmm-stat binary to install: the static build when there is one.
stat_binary() {
	local f
	for f in "$top/bpf/guestmm-stat.static" "$top"/build/*/bin/guestmm-stat; do
		if [ -x "$f" ]; then echo "$f"; return 0; fi
	done
	return 1
}

# copy_tree DEST: the files named on stdin (relative to the top) to DEST;
# a dkms.conf among them gets the version.
copy_tree() {
	mkdir -p "$1"
	tar -C "$top" -cf - --no-recursion -T - | tar -C "$1" -xf - --no-same-owner
	if [ -f "$1/dkms.conf" ]; then
		sed -i "s/#MODULE_VERSION#/$VERSION/" "$1/dkms.conf"
	fi
}

initramfs_has_virtio_balloon() {
	local img
	img=/boot/initrd.img-$(uname -r)
	[ -f "$img" ] && command -v lsinitramfs >/dev/null &&
		lsinitramfs "$img" 2>/dev/null | grep -q '/virtio_balloon\.ko'
}

dkms_versions() {
	[ -d /var/lib/dkms/$NAME ] || return 0
	find /var/lib/dkms/$NAME -mindepth 1 -maxdepth 1 -type d \
		-exec basename {} \; 2>/dev/null
}

need_root() {
	[ "$(id -u)" = 0 ] || die "$1 needs root (it changes /usr/src, /etc and /usr/sbin)"
}

cmd_install() {
	local build=1 src=/usr/src/$NAME-$VERSION f v kver
	case ${1:-} in
	--no-build) build=0 ;;
	"") ;;
	*) die "unknown option '$1'" ;;
	esac
	need_root install
	command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"
	for f in $(dkms_files); do
		[ -f "$top/$f" ] || die "missing $f: is $top a guestmm source tree?"
	done

	# Replace whatever version was there.
	for v in $(dkms_versions); do
		say "dkms remove $NAME/$v (replacing it)"
		dkms remove -m $NAME -v "$v" --all >/dev/null 2>&1 || true
	done
	rm -rf /var/lib/dkms/$NAME /usr/src/$NAME-*
	mkdir -p "$src"
	dkms_files | copy_tree "$src"
	say "source in $src"
	dkms add -m $NAME -v "$VERSION"

	if [ $build = 1 ]; then
		kver=$(uname -r)
		if [ -e "/lib/modules/$kver/build/Makefile" ]; then
			dkms install -m $NAME -v "$VERSION" -k "$kver"
		else
			say "no headers for $kver (apt-get install linux-headers-$kver):" \
				"dkms builds guestmm when they are installed"
		fi
	fi

	if [ -f "$top/scripts/modprobe.d/guestmm.conf" ]; then
		install -m 644 "$top/scripts/modprobe.d/guestmm.conf" $MODPROBE_CONF
		say "installed $MODPROBE_CONF"
	else
		say "no scripts/modprobe.d/guestmm.conf in this tree: $MODPROBE_CONF not installed"
	fi
	if [ ! -f $LOAD_CONF ]; then
		mkdir -p "$(dirname $LOAD_CONF)"
		cat >$LOAD_CONF <<'EOF'
# guestmm (installed by guestmm's scripts/install.sh; removed by
# `make dkms-remove`): modules systemd-modules-load loads at boot.
guestmm_balloon
# The compaction livepatch is opt-in: uncomment to apply it at every boot.
#guestmm_klp
EOF
		say "installed $LOAD_CONF"
	else
		say "kept the existing $LOAD_CONF"
	fi
	if f=$(stat_binary); then
		install -m 755 "$f" $SBIN/guestmm-stat
		say "installed $SBIN/guestmm-stat (from ${f#"$top"/})"
	else
		say "guestmm-stat is not built (make bpf): $SBIN/guestmm-stat not installed"
	fi
	if [ -f "$top/scripts/guestmm-switch" ]; then
		install -m 755 "$top/scripts/guestmm-switch" $SBIN/guestmm-switch
		say "installed $SBIN/guestmm-switch"
	fi
	if initramfs_has_virtio_balloon; then
		say "the initramfs loads virtio_balloon: update-initramfs -u"
		update-initramfs -u
	fi
	say "guestmm $VERSION installed; docs/install.md says how to switch the balloon over"
}

# Best effort: what is loaded goes, the balloon device goes back to the
# stock driver.
unload() {
	local m
	if [ -d /sys/fs/bpf/guestmm ] && [ -x $SBIN/guestmm-stat ]; then
		$SBIN/guestmm-stat unload || say "guestmm-stat unload failed"
	fi
	if [ -d $LP ]; then
		say "disabling the livepatch"
		echo 0 >$LP/enabled 2>/dev/null || true
		for _ in $(seq 1 60); do
			[ -d $LP ] || break
			sleep 1
		done
	fi
	# The livepatch, then whatever it needed (its tracepoint module).
	for m in guestmm_klp /sys/module/guestmm_*; do
		m=${m##*/}
		case $m in guestmm_balloon|"guestmm_*") continue ;; esac
		if [ -d "/sys/module/$m" ]; then
			rmmod "$m" 2>/dev/null || say "$m stays loaded until reboot"
		fi
	done
	if [ -d /sys/module/guestmm_balloon ]; then
		say "unloading guestmm_balloon (the balloon deflates)"
		if rmmod guestmm_balloon; then
			modprobe virtio_balloon 2>/dev/null || true
		else
			say "guestmm_balloon stays loaded until reboot"
		fi
	fi
}

cmd_remove() {
	local v had_conf=0 k
	need_root remove
	unload
	for v in $(dkms_versions); do
		say "dkms remove $NAME/$v"
		dkms remove -m $NAME -v "$v" --all || true
	done
	rm -rf /var/lib/dkms/$NAME /usr/src/$NAME-*
	# Module files dkms would have removed, should it have failed.
	for k in /lib/modules/*; do
		if ls "$k"/updates/dkms/guestmm_* >/dev/null 2>&1; then
			rm -f "$k"/updates/dkms/guestmm_*
			rmdir "$k/updates/dkms" "$k/updates" 2>/dev/null || true
			depmod "$(basename "$k")" 2>/dev/null || true
		fi
	done
	[ -f $MODPROBE_CONF ] && had_conf=1
	rm -f $MODPROBE_CONF $LOAD_CONF $SBIN/guestmm-stat $SBIN/guestmm-switch
	if [ $had_conf = 1 ] && initramfs_has_virtio_balloon; then
		update-initramfs -u
	fi
	say "guestmm removed"
}

cmd_dist() {
	local out=${1:?usage: install.sh dist OUT.tar} f
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	mkdir -p "$stage/$NAME-$VERSION"
	{
		dkms_files
		echo Makefile
		echo scripts/install.sh
		for f in scripts/modprobe.d/guestmm.conf scripts/guestmm-switch docs/install.md; do
			if [ -f "$top/$f" ]; then echo "$f"; fi
		done
	} | copy_tree "$stage/$NAME-$VERSION"
	if f=$(stat_binary); then
		mkdir -p "$stage/$NAME-$VERSION/bpf"
		cp "$f" "$stage/$NAME-$VERSION/bpf/guestmm-stat.static"
	fi
	tar -C "$stage" --owner=0 --group=0 -cf "$out" "$NAME-$VERSION"
}

cmd_dkms_tree() {
	local out=${1:?usage: install.sh dkms-tree DIR}
	dkms_files | copy_tree "$out"
}

case ${1:-} in
install) shift; cmd_install "$@" ;;
dkms-tree) shift; cmd_dkms_tree "$@" ;;
remove) cmd_remove ;;
version) echo "$VERSION" ;;
dist) shift; cmd_dist "$@" ;;
*) sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

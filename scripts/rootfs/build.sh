#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A stock Debian 12 (or 13) root filesystem image for the DKMS end-to-end
# test (tests/cases/dkms_e2e.py): debootstrap (minbase), then the stock
# kernel, its headers, dkms, build-essential and bpftool from the archive
# with no recommends, plus the guestmm test agent as a systemd service on
# ttyS1.
#
#   scripts/rootfs/build.sh [--kernel 6.1|6.12|trixie] [--force] [--key|--abi]
#
# Prints the image directory (built first when missing), which holds
#   rootfs.ext4    the root file system: boot it with root=/dev/vda
#   vmlinuz        the image's own kernel and initramfs, copied out of its
#   initrd.img     /boot for QEMU's -kernel / -initrd
#   abi            the kernel ABI (uname -r in the guest)
#   packages.txt   the image's dpkg -l
#
# The image lives in ${GUESTMM_CACHE:-~/.cache/guestmm}/rootfs/, never in
# git, under a key made from the package versions apt resolves for it now
# (a private apt view of the machine's own Debian mirror, nothing
# installed), this script and the agent.  A new kernel or dkms upload, or
# an edit here, means a new key and a rebuild; older images of the same
# series are removed.  --key prints the key and builds nothing; --force
# rebuilds; --abi prints the kernel ABI the image has (or would have) and
# builds nothing.  Downloaded .debs are kept in rootfs/debs/ for the next
# build.
#
# 6.12 is Debian's bookworm-backports kernel (and headers) on the same
# bookworm userland.  trixie is Debian 13 as its users get it: trixie,
# trixie-updates and trixie-security, its own 6.12 kernel, headers and
# gcc-14 (a Debian 12 host cannot build modules for that kernel: the image
# builds them itself, with DKMS).  The trixie suites come from the mirror
# the machine uses for its own release (the same archive), verified with
# the machine's debian-archive-keyring (Debian 12's carries the trixie
# keys since 2023.3+deb12u2).  Runs as root (debootstrap, chroot, mounts).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# What the image gets on top of minbase (dependencies, no recommends).
PKGS="linux-image-amd64 linux-headers-amd64 dkms build-essential bpftool
kmod systemd-sysv udev initramfs-tools openssl xz-utils zstd"

die() { echo "rootfs/build.sh: $*" >&2; exit 1; }
log() { echo "rootfs: $*" >&2; }
# shellcheck source=scripts/rootfs/root.sh
. "$here/root.sh"

series=6.1 force=0 keyonly=0 abionly=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) series=${2:?}; shift ;;
	--kernel=*) series=${1#*=} ;;
	--force) force=1 ;;
	--key) keyonly=1 ;;
	--abi) abionly=1 ;;
	-h|--help) sed -n '3,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done
case $series in
6.1|bookworm) series=6.1 SUITE=bookworm ;;
6.12|bpo|bookworm-backports) series=6.12 SUITE=bookworm ;;
trixie|13) series=trixie SUITE=trixie ;;
*) die "unknown kernel series '$series' (6.1, 6.12 or trixie)" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot)"

# The mirrors the machine uses for the suite (aptview.sh: for a suite it
# does not use itself, trixie on Debian 12, those of its own release: the
# same archive has them all); a -security mirror where there is one.
MIRROR=$(debian_mirror "$SUITE")
SECURITY=$(debian_mirror "$SUITE-security" 2>/dev/null) || SECURITY=""

sources_list() {
	local opt="[signed-by=$KEYRING]"
	echo "deb $opt $MIRROR $SUITE main"
	echo "deb $opt $MIRROR $SUITE-updates main"
	[ -z "$SECURITY" ] || echo "deb $opt $SECURITY $SUITE-security main"
	[ "$series" != 6.12 ] || echo "deb $opt $MIRROR $SUITE-backports main"
}

# The package arguments for apt: the kernel from backports for 6.12.
apt_pkgs() {
	local p
	for p in $PKGS; do
		case $series:$p in
		6.12:linux-image-amd64|6.12:linux-headers-amd64) echo "$p/$SUITE-backports" ;;
		*) echo "$p" ;;
		esac
	done
}

# A private apt view: the image's sources, nothing installed.  Refreshed
# at most hourly, and whenever the sources change.
APTD=$RDIR/apt/$series
apt_opts() { view_opts "$APTD" "$APTD/status"; }
apt_update() {
	sources_list | view_sources "$APTD"
	: >"$APTD/status"
	view_update "$APTD" 60
}

# The key: every package version apt would install for PKGS now, plus
# this script and the agent.
resolve_key() {
	# shellcheck disable=SC2046
	apt-get $(apt_opts) -s -q install --no-install-recommends $(apt_pkgs) \
		>"$APTD/resolved.txt" 2>&1 || {
		cat "$APTD/resolved.txt" >&2
		die "cannot resolve the image's packages"
	}
	{
		echo "series $series"
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p' "$APTD/resolved.txt" | sort
		sha256sum "$0" "$here/root.sh" "$here/aptview.sh" \
			"$top/scripts/guest/agent.sh" | cut -d' ' -f1
	} | sha256sum | cut -c1-12
}

mkdir -p "$RDIR"
exec 9>"$RDIR/.lock"
flock 9
apt_update
key=$(resolve_key)
abi=$(sed -n 's/^Inst linux-image-\([0-9][^ ]*-amd64\) .*/\1/p' "$APTD/resolved.txt" | head -n1)
[ -n "$abi" ] || die "cannot tell the kernel ABI from the resolved packages"
prefix=$SUITE-$series
[ "$series" != "$SUITE" ] || prefix=$SUITE
name=$prefix-$key
out=$RDIR/$name
if [ $keyonly = 1 ]; then
	echo "$name"
	exit 0
fi
if [ $abionly = 1 ]; then
	echo "$abi"
	exit 0
fi
if [ $force = 0 ] && [ -f "$out/ok" ]; then
	echo "$out"
	exit 0
fi

# ---- build --------------------------------------------------------------
t0=$(date +%s)
mkdir -p "$DEBS/partial"
work=$(mktemp -d "$RDIR/tmp.XXXXXX")
root=$work/root
trap root_cleanup EXIT

log "building $name (kernel $abi) in $work"
root_bootstrap "$SUITE" "$root" "$MIRROR"
t1=$(date +%s)
root_prepare "$root" "$APTD/sources.list"

# Two steps, so that the initramfs is generated once: first the boot
# userland (everything that brings initramfs hooks), then, with
# initramfs-tools' own trigger switched off, the kernel (whose postinst
# generates it) and the build tools.
conf=/etc/initramfs-tools/update-initramfs.conf
log "apt-get install $(echo "$PKGS" | tr '\n' ' ')"
# shellcheck disable=SC2046
{
	in_root apt-get -q update &&
	in_root apt-get -q -y dist-upgrade &&
	in_root apt-get -q -y --no-install-recommends install \
		initramfs-tools udev kmod systemd-sysv zstd xz-utils &&
	sed -i 's/^update_initramfs=.*/update_initramfs=no/' "$root$conf" &&
	in_root apt-get -q -y --no-install-recommends install $(apt_pkgs) &&
	sed -i 's/^update_initramfs=.*/update_initramfs=yes/' "$root$conf"
} >"$work/apt.log" 2>&1 || {
	tail -n 40 "$work/apt.log" >&2
	die "apt-get in the image failed"
}
t2=$(date +%s)
if [ ! -f "$root/boot/vmlinuz-$abi" ] || [ ! -f "$root/boot/initrd.img-$abi" ]; then
	die "the image has no vmlinuz/initrd.img for $abi (see $work/apt.log)"
fi

# ---- configuration --------------------------------------------------------
echo guestmm >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tguestmm\n' >"$root/etc/hosts"
# No fsck: every test boots a fresh overlay of this image.
echo "/dev/vda / ext4 rw,errors=remount-ro 0 0" >"$root/etc/fstab"
# A fixed machine-id: no first-boot logic (systemd-firstboot prompts).
echo 5c4e1de6a0f14f3c9a0b6b7d2d6a4e11 >"$root/etc/machine-id"
# Root logs in on the serial console without a password: a test VM only.
in_root passwd -d root >/dev/null

install -m 755 "$top/scripts/guest/agent.sh" "$root/usr/local/sbin/guestmm-agent"
cat >"$root/etc/systemd/system/guestmm-agent.service" <<'EOF'
[Unit]
Description=guestmm test agent (host command channel on ttyS1)
After=systemd-modules-load.service systemd-udev-trigger.service local-fs.target
ConditionPathExists=/dev/ttyS1

[Service]
ExecStart=/usr/local/sbin/guestmm-agent /dev/ttyS1
Restart=always
RestartSec=1
StandardInput=null
StandardOutput=journal

[Install]
WantedBy=multi-user.target
EOF
in_root systemctl enable guestmm-agent.service >/dev/null 2>&1
# Nothing periodic in a test guest.
in_root systemctl mask apt-daily.timer apt-daily-upgrade.timer \
	fstrim.timer e2scrub_all.timer e2scrub_reap.service >/dev/null 2>&1 || true

root_seal "$root" "$work/packages.txt"
root_close
rm -rf "$root"/var/lib/apt/lists/*

# ---- the image ------------------------------------------------------------
mkdir -p "$work/img"
cp "$root/boot/vmlinuz-$abi" "$work/img/vmlinuz"
cp "$root/boot/initrd.img-$abi" "$work/img/initrd.img"
echo "$abi" >"$work/img/abi"
mv "$work/packages.txt" "$work/img/"
# Room for dkms builds and their objects.
root_mkfs "$root" "$work/img/rootfs.ext4" guestmm-root 2048
t3=$(date +%s)
root_publish "$work/img" "$out" "$RDIR/$prefix-" "$t0" "$t1" "$t2" "$t3"

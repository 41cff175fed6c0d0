#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of a guestmm test guest.  Mounts what the tests and bpftool need,
# loads the stock modules named by gmm.mods= (comma separated), mounts the
# virtio disk when gmm.disk=1, then serves the host on ttyS1 (agent.sh).
/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
# Enabling the first trace event also hooks the scheduler's tracepoints to
# record task names, and that patches scheduler text (text_poke_bp) that
# the other vCPU runs all the time.  Under QEMU 7.2 TCG with 2 vCPUs that
# has hung a guest (one vCPU stuck entering the int3 handler, the other
# waiting for it: soft lockup, 6.1) and crashed one ("Fatal exception in
# interrupt", 6.12).  Tests read event fields, not task names.
echo 0 > /sys/kernel/tracing/options/record-cmd
echo 0 > /sys/kernel/tracing/options/record-tgid 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts

arg() {
	for w in $(cat /proc/cmdline); do
		case $w in "$1="*) echo "${w#*=}" ;; esac
	done
}

moddir=/lib/modules/$(uname -r)
for m in $(arg gmm.mods | tr , ' '); do
	# modules.dep and modules.builtin spell some names with "-".
	pat="/$(echo "$m" | sed 's/[-_]/[-_]/g')\.ko"
	# Built in on some kernels (virtio_pci on 6.12): nothing to load.
	grep -q "$pat" "$moddir/modules.builtin" 2>/dev/null && continue
	# Gone from others (crc32c_generic on 7.x: ext4 uses the crc32c
	# library), and left out of the initramfs (mkinitramfs.py).
	if ! grep -q "$pat:" "$moddir/modules.dep"; then
		echo "guestmm init: no module $m in this kernel" >/dev/ttyS0
		continue
	fi
	modprobe "$m" || echo "@@INIT modprobe $m failed" >/dev/ttyS0
done

if [ "$(arg gmm.disk)" = 1 ]; then
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	mount -t ext4 /dev/vda /mnt || echo "@@INIT mount /dev/vda failed" >/dev/ttyS0
fi

/bin/agent.sh /dev/ttyS1
echo "@@INIT agent exited" >/dev/ttyS0
poweroff -f

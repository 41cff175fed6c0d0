#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guestmm guest agent: serves the host's command channel on a serial port
# (default /dev/ttyS1; the kernel console stays on ttyS0).
#
#   host -> guest   "<nonce> <base64 of a shell script>\n"
#   guest -> host   the script's output, then "\n@@DONE <nonce> <exit code>\n"
#
# Used as the tail of the initramfs /init and as a systemd service in the
# DKMS test's Debian image.
port=${1:-/dev/ttyS1}
exec 3<>"$port"
stty -F "$port" raw -echo
echo "@@READY" >&3
while IFS= read -r line <&3; do
	nonce=${line%% *}
	echo "${line#* }" | base64 -d >/tmp/.guestmm-cmd
	(cd /root && sh /tmp/.guestmm-cmd) >/tmp/.guestmm-out 2>&1 </dev/null
	rc=$?
	cat /tmp/.guestmm-out >&3
	printf '\n@@DONE %s %s\n' "$nonce" "$rc" >&3
done

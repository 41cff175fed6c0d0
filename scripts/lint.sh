#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel-side lint: checkpatch.pl --no-tree (from Debian's linux-source-6.1)
# on every kernel C file and header, and sparse through kbuild (C=2 checks
# every file, built or not).  Exits non-zero on any finding.
#   scripts/lint.sh KDIR [DIR ...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
shift
dirs=$*
if [ -z "$dirs" ]; then
	for d in "$top"/modules/*/Kbuild "$top"/livepatch/Kbuild; do
		[ -f "$d" ] && dirs="$dirs ${d#"$top"/}"
	done
	dirs=$(echo "$dirs" | sed 's#/Kbuild#/#g')
fi
cache=${GUESTMM_CACHE:-$HOME/.cache/guestmm}/checkpatch
if [ ! -x "$cache/scripts/checkpatch.pl" ]; then
	[ -f /usr/src/linux-source-6.1.tar.xz ] ||
		DEBIAN_FRONTEND=noninteractive apt-get -q -y install linux-source-6.1 >/dev/null
	rm -rf "$cache" && mkdir -p "$cache"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cache" --strip-components=1 \
		linux-source-6.1/scripts linux-source-6.1/Documentation/process/deprecated.rst
fi
command -v sparse >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get -q -y install sparse >/dev/null

rc=0
cd "$top"
# shellcheck disable=SC2086
files=$(find $dirs -name '*.[ch]' ! -name '*.mod.c' | sort)
for f in $files; do
	out=$("$cache/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES -f "$f") || { echo "$out"; rc=1; }
done
out=$(make -s -C "$kdir" M="$top" GUESTMM_DIRS="$(echo $dirs | sed 's#/\( \|$\)#\1#g')" C=2 modules 2>&1 |
	grep -v -e 'Skipping BTF' -e '^make' \
		-e 'WARNING: modpost: "\.klp\.sym\.vmlinux\.[^"]*" \[.*\] undefined!' \
		-e 'WARNING: modpost: suppressed [0-9]* unresolved symbol warnings' || true)
# modpost only warns about undefined symbols (the livepatch's .klp.sym
# names, see Kbuild): the post-link step checks the others are exported.
out=$out$(livepatch/postlink/run "$kdir" $(sed 's/\.o$/.ko/' modules.order) 2>&1 >/dev/null || true)
if [ -n "$out" ]; then
	echo "$out"
	rc=1
fi
[ $rc = 0 ] && echo "lint: checkpatch and sparse clean ($(echo $files | wc -w) files)"
exit $rc

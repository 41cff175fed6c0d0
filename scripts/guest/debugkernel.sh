#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of `make check-debug`: Debian's own 6.1 source
# (linux-source-6.1) with Debian's config, trimmed to what the test guests
# load, plus KASAN, lockdep (PROVE_LOCKING), DEBUG_VM, DEBUG_LIST, kmemleak
# and DEBUG_OBJECTS.  Built once, outside git:
#
#   $GUESTMM_CACHE/debug-kernel/VERSION/linux-source-6.1   the built tree (the KDIR)
#   $GUESTMM_CACHE/kernels/ABI/root                         image + modules, laid out
#                                                           as kernel.sh fetch lays out
#                                                           a Debian image
#   $GUESTMM_CACHE/kernels/ABI/vmlinux                      vmlinux with BTF, no DWARF
#   /usr/src/linux-headers-ABI -> the built tree            so KERNEL=debug finds a KDIR
#
#   debugkernel.sh [build]   build (or find built) and print the ABI
#   debugkernel.sh abi       print the ABI of the built kernel, fail if not built
#   debugkernel.sh kdir      print the built tree
#   debugkernel.sh klp-table print the livepatch table of the built kernel
#                            (GMM_KLP_KERNELS): its one row if a variant
#                            of a feature serves it (scripts/klp-variant
#                            local), else none, so no livepatch module is
#                            built for it
#
# The ABI is the source's release plus LOCALVERSION, e.g. 6.1.192-gmmdebug;
# the uts version is "#gmmdebug ...", so the kernel's version string differs
# from every Debian build.  A second run with the same source version and the
# same config inputs does nothing.  Compiles run under nice.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top_src=$(cd "$here/../.." && pwd)
CACHE=${GUESTMM_CACHE:-$HOME/.cache/guestmm}
SRC_PKG=linux-source-6.1
SRC_TAR=/usr/src/$SRC_PKG.tar.xz
LOCALVERSION=-gmmdebug
JOBS=${GUESTMM_JOBS:-$(nproc)}

# What the debug kernel adds to Debian's config.  -e/-d/--set-str/--set-val
# arguments of the kernel's scripts/config.
OPTIONS=(
	-e KASAN -e KASAN_GENERIC
	-e PROVE_LOCKING -e DEBUG_LOCKDEP
	-e DEBUG_VM
	-e DEBUG_LIST
	-e DEBUG_KMEMLEAK -d DEBUG_KMEMLEAK_DEFAULT_OFF
	--set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 40000
	-e DEBUG_OBJECTS -e DEBUG_OBJECTS_FREE -e DEBUG_OBJECTS_TIMERS
	-e DEBUG_OBJECTS_WORK
	# What guestmm itself needs; Debian has them, keep them.
	-e DEBUG_INFO -e DEBUG_INFO_BTF -e DEBUG_INFO_BTF_MODULES
	-e LIVEPATCH -e BALLOON_COMPACTION -e KPROBES
	# No signing keys in a local build: unsigned modules, no key generation.
	-d MODULE_SIG -d MODULE_SIG_FORCE
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
	--set-str LOCALVERSION "$LOCALVERSION" -d LOCALVERSION_AUTO
)
# Must read =y in the final .config, or the build stops before compiling.
REQUIRED="KASAN KASAN_GENERIC PROVE_LOCKING DEBUG_VM DEBUG_LIST DEBUG_KMEMLEAK
DEBUG_OBJECTS DEBUG_INFO_BTF LIVEPATCH BALLOON_COMPACTION KPROBES MODULES"

die() { echo "debugkernel.sh: $*" >&2; exit 1; }
log() { echo "debugkernel.sh: $*" >&2; }

version=$(dpkg-query -W -f '${Version}' "$SRC_PKG" 2>/dev/null) ||
	die "$SRC_PKG is not installed (apt-get install $SRC_PKG)"
[ -f "$SRC_TAR" ] || die "no $SRC_TAR"
top=$CACHE/debug-kernel/$version
tree=$top/$SRC_PKG

built_abi() {
	[ -f "$top/ok" ] && [ -s "$top/abi" ] || return 1
	cat "$top/abi"
}

# The stock modules the test guests load (Makefile STOCK_MODULES) and their
# dependencies, as a fake lsmod for localmodconfig, from the Debian image.
write_lsmod() {
	local kroot=$1 abi=$2 out=$3 mods
	mods=$(sed -n 's/^STOCK_MODULES *:= *//p' "$top_src/Makefile")
	[ -n "$mods" ] || die "no STOCK_MODULES in the Makefile"
	{
		echo "Module                  Size  Used by"
		for m in $mods; do
			grep -E "/$m\.ko(\.[a-z]+)?:" "$kroot/lib/modules/$abi/modules.dep" ||
				die "stock module $m is not in $abi"
		done | tr ' :' '\n\n' | sed -n 's|.*/\([^/]*\)\.ko.*|\1|p' | tr - _ |
			sort -u | sed 's/$/ 16384 0/'
	} >"$out"
}

# The date of the source package, as Debian's uts version spells a date.
build_timestamp() {
	date -u -d "@$(stat -c %Y "$SRC_TAR")" +%Y-%m-%d
}

cmd_build() {
	local stock_abi kroot config key abi t0 dst
	stock_abi=$("$here/kernel.sh" abi 6.1)
	kroot=$("$here/kernel.sh" fetch "$stock_abi")
	config=$kroot/boot/config-$stock_abi
	[ -f "$config" ] || die "no $config"
	mkdir -p "$top"
	write_lsmod "$kroot" "$stock_abi" "$top/lsmod.new"
	# The cache key: source version (the directory) + every config input.
	key=$({ cat "$config" "$top/lsmod.new"; printf '%s\n' "${OPTIONS[@]}"; } |
		sha256sum | cut -d' ' -f1)
	if abi=$(built_abi) && [ "$(cat "$top/key" 2>/dev/null)" = "$key" ]; then
		rm -f "$top/lsmod.new"
		echo "$abi"
		return
	fi
	rm -f "$top/ok"
	mv "$top/lsmod.new" "$top/lsmod"

	if [ ! -f "$tree/Makefile" ]; then
		log "unpacking $SRC_TAR into $top"
		rm -rf "$tree"
		tar -C "$top" -xJf "$SRC_TAR"
	fi
	cd "$tree"
	t0=$(date +%s)
	# Configure only when an input changed: a fresh .config rebuilds more.
	if [ "$(cat "$top/config-key" 2>/dev/null)" != "$key" ] || [ ! -f .config ]; then
		cp "$config" .config
		log "localmodconfig against $(($(wc -l <"$top/lsmod") - 1)) modules"
		yes '' | make -s LSMOD="$top/lsmod" localmodconfig >"$top/config.log" 2>&1 ||
			die "localmodconfig failed, see $top/config.log"
		scripts/config "${OPTIONS[@]}"
		make -s olddefconfig >>"$top/config.log" 2>&1 || die "olddefconfig failed"
		echo "$key" >"$top/config-key"
	fi
	for o in $REQUIRED; do
		grep -q "^CONFIG_$o=y" .config || die "CONFIG_$o is not =y after olddefconfig"
	done
	log "building ($(grep -c '=m$' .config) modules), log in $top/build.log"
	# KBUILD_BUILD_VERSION: the "#..." of the uts version, distinct from
	# Debian's; KBUILD_BUILD_TIMESTAMP: the source's date, so the whole
	# `uname -v` string is the same on every rebuild (the livepatch's
	# identity row, klp-table).
	nice -n 10 make -j"$JOBS" KBUILD_BUILD_VERSION=gmmdebug \
		KBUILD_BUILD_TIMESTAMP="$(build_timestamp)" \
		bzImage modules >>"$top/build.log" 2>&1 ||
		die "build failed, see the end of $top/build.log"
	# Known only once the build has synced the config (auto.conf).
	abi=$(cat include/config/kernel.release)
	case $abi in *"$LOCALVERSION") ;; *) die "unexpected release '$abi'" ;; esac
	log "built $abi in $(($(date +%s) - t0)) s"

	dst=$CACHE/kernels/$abi
	rm -rf "$dst"
	mkdir -p "$dst/root/boot"
	cp arch/x86/boot/bzImage "$dst/root/boot/vmlinuz-$abi"
	cp .config "$dst/root/boot/config-$abi"
	cp System.map "$dst/root/boot/System.map-$abi"
	make -s INSTALL_MOD_PATH="$dst/root" INSTALL_MOD_STRIP=1 modules_install \
		>>"$top/build.log" 2>&1 || die "modules_install failed"
	depmod -b "$dst/root" "$abi"
	# kernel.sh vmlinux's file: the ELF for BTF (bpftool, libbpf), no DWARF.
	objcopy --strip-debug vmlinux "$dst/vmlinux"
	touch "$dst/ok"
	# The headers of a Debian kernel live here; make KERNEL=debug looks here.
	ln -sfn "$tree" "/usr/src/linux-headers-$abi" 2>/dev/null ||
		log "cannot link /usr/src/linux-headers-$abi (pass KDIR=$tree to make)"
	echo "$abi" >"$top/abi"
	echo "$key" >"$top/key"
	echo "$(($(date +%s) - t0))" >"$top/build-seconds"
	touch "$top/ok"
	echo "$abi"
}

# The livepatch's table for this build, written when missing, of an older
# layout (no column per feature) or older than the vmlinux or the features'
# MIRRORs; its path.  The build is checked like a Debian one: its sources
# against each feature's variants, its symbols.
cmd_klp_table() {
	local table=$top/kernels.tsv
	built_abi >/dev/null || die "the debug kernel is not built"
	if [ ! -f "$table" ] || [ "$tree/vmlinux" -nt "$table" ] ||
		! head -n 1 "$table" | grep -q "	compaction	reclaim	" ||
		[ -n "$(find "$top_src"/livepatch/*/variants -name MIRROR -newer "$table")" ]; then
		"$top_src/scripts/klp-variant" local "$tree" --table "$table" \
			--package-version "$version" >&2 ||
			log "no livepatch variant serves the debug kernel: the klp_ cases skip"
	fi
	echo "$table"
}

case ${1:-build} in
build) cmd_build ;;
abi) built_abi || die "the debug kernel is not built (scripts/guest/debugkernel.sh)" ;;
kdir) built_abi >/dev/null || die "the debug kernel is not built"; echo "$tree" ;;
klp-table) cmd_klp_table ;;
*) die "usage: debugkernel.sh [build|abi|kdir|klp-table]" ;;
esac

# SPDX-License-Identifier: GPL-2.0
#
# guestmm: out-of-tree kernel modules, a livepatch and eBPF probes that keep
# a ballooned guest's memory unfragmented and its page cache lean.
#
#   make                  modules + tools against KDIR (default: running kernel)
#   make KERNEL=6.1       ... against a Debian guest kernel's headers (6.1, 6.12 or an ABI)
#   make demo             boot a stock Debian guest with guestmm and show it working
#   make check            the whole test suite, in real guests
#   make check-debug      the suite on a KASAN/lockdep/kmemleak build of Debian's 6.1
#   make check-kernels    the livepatch smoke cases on every build of livepatch/kernels.tsv
#   make bench            benchmarks (stock vs guestmm), report in build/bench/
#   make deb              Debian packages in build/deb/ (DIST=trixie: Debian 13's, build/deb/trixie/)
#   make lint             checkpatch + sparse (make C=1) on the kernel code
#   make lint-next        kbuild against Debian's Linux 7.x headers (early warning)
#
# Kernel ABIs are resolved from Debian's package lists (scripts/guest/kernel.sh);
# caches live in $(GUESTMM_CACHE) (default ~/.cache/guestmm), outputs in build/.

TOP := $(CURDIR)
KSH := $(TOP)/scripts/guest/kernel.sh
PY := python3

# Directories with a Kbuild file; the top-level Kbuild lists the same.
KMOD_DIRS ?= $(patsubst %/Kbuild,%,$(wildcard modules/*/Kbuild livepatch/Kbuild))

# What the user asked for, before the fallback below may set KERNEL.
USER_KERNEL := $(KERNEL)

ifeq ($(KERNEL),)
KDIR ?= /lib/modules/$(shell uname -r)/build
ifeq ($(wildcard $(KDIR)/Makefile),)
$(info guestmm: no headers at $(KDIR); building for the Debian 6.1 guest kernel instead (KERNEL=6.1))
KERNEL := 6.1
endif
endif

# Debian 13 (trixie): its kernel's headers need gcc-14, which a Debian 12
# host lacks, so nothing is built for it here; `make check` runs the cases
# that boot their own trixie image, where DKMS builds (tests/run).  So do
# its kernel ABIs (6.12.107+deb13-amd64): the trixie image on that build.
# (trixie-backports' 7.x builds are +deb13 too: Linux 7.x, below.)
IMAGE_KERNELS := trixie
image_kernel = $(or $(filter $(IMAGE_KERNELS),$(1)),$(findstring +deb13,$(filter 6.12.%,$(1))))

ifneq ($(call image_kernel,$(KERNEL)),)
ifneq ($(filter-out check rootfs deps,$(or $(MAKECMDGOALS),all)),)
$(error guestmm: KERNEL=$(KERNEL) is for `make check` and `make rootfs` only: modules for its kernel are built by DKMS inside the guest (gcc-14))
endif
else ifneq ($(KERNEL),)
ABI := $(shell $(KSH) abi $(KERNEL))
ifeq ($(ABI),)
$(error guestmm: cannot resolve KERNEL=$(KERNEL) to a Debian kernel ABI)
endif
# Linux 7.x: its kbuild needs glibc >= 2.38 and gcc-14 or gcc-16, which a
# Debian 12 host lacks (make lint-next builds the modules for 7.x in a
# build root), and modules/compat.h does not serve it yet.  What needs
# no kbuild is built: `make guest` (and so `make check`) gives its
# initramfs guest the tools and the BPF probes (CO-RE, compiled against
# its vmlinux's BTF) without guestmm's kernel modules, and the cases that
# need them skip (tests/run, NEEDS_MODULES).
ifneq ($(filter 7.% 8.% 9.%,$(ABI)),)
NO_MODULES := $(ABI)
ifneq ($(filter-out guest tools progs bpf check deps,$(or $(MAKECMDGOALS),all)),)
$(error guestmm: KERNEL=$(KERNEL) is Linux $(ABI): this host cannot build modules for it (make lint-next builds them for 7.x in a build root); make guest and make check build its guest without them)
endif
else
KDIR := /usr/src/linux-headers-$(ABI)
endif
VMLINUX_BTF = $(shell $(KSH) vmlinux $(ABI))
else
ABI := $(shell uname -r)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
endif

OUT := $(TOP)/build/$(ABI)
PROGS := $(patsubst tests/progs/%.c,$(OUT)/bin/%,$(wildcard tests/progs/*.c))
STOCK_MODULES := virtio_pci virtio_balloon virtio_blk crc32c_generic ext4

.PHONY: all modules tools progs bpf headers guest check demo bench lint \
	deps clean distclean

all: modules tools

headers:
	@test -f $(KDIR)/Makefile || $(KSH) headers $(ABI) >/dev/null

# kbuild keeps its objects next to the sources, and its rebuild checks
# compare command lines, which are the same for two flavours of one
# release (both name the shared -common headers and a relative include/).
# So the tree remembers which kernel its objects are for, and a build for
# another kernel starts clean: one kernel's objects never link into
# another's module.  Only the module directories are cleaned: kbuild's
# own clean (M=) would delete every *.o below the tree, build/<abi>/bpf's
# BPF objects of the other kernels among them.
KBUILD_STAMP := $(TOP)/.kbuild-kernel

modules: headers
	@if [ "$$(cat $(KBUILD_STAMP) 2>/dev/null)" != "$(ABI) $(KDIR)" ]; then \
		find $(KMOD_DIRS) \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
			-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.a' \
			-o -name '.*.d' -o -name modules.order \) -delete && \
		rm -f modules.order Module.symvers && \
		echo "$(ABI) $(KDIR)" >$(KBUILD_STAMP); \
	fi
	$(MAKE) -C $(KDIR) M=$(TOP) GUESTMM_DIRS="$(KMOD_DIRS)" modules
	@livepatch/postlink/run $(KDIR) $$(sed 's/\.o$$/.ko/' modules.order)
	@rm -rf $(OUT)/modules && mkdir -p $(OUT)/modules
	@sed 's/\.o$$/.ko/' modules.order | xargs -I{} cp {} $(OUT)/modules/
	@livepatch/select-variant $(KDIR) > $(OUT)/klp-variant 2>/dev/null

tools: progs bpf

progs: $(PROGS)

$(OUT)/bin/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -static -pthread -O2 -Wall -Wextra -Werror -o $@ $<

# $(OUT)/bpf: the probes built by every clang on the host, for
# tests/cases/bpf_verifier_clangs.py (the guest has them in /usr/share/guestmm).
bpf:
	@if [ -f bpf/Makefile ]; then \
		$(MAKE) -C bpf VMLINUX_BTF=$(VMLINUX_BTF) && \
		mkdir -p $(OUT)/bin && cp bpf/guestmm-stat.static $(OUT)/bin/guestmm-stat && \
		rm -rf $(OUT)/bpf && \
		$(MAKE) -C bpf VMLINUX_BTF=$(VMLINUX_BTF) CLANG_OBJ_DIR=$(OUT)/bpf clang-objs; \
	fi

# The initramfs every test guest boots (scripts/guest/mkinitramfs.py);
# on a kernel guestmm builds no modules for (NO_MODULES), without them.
guest: $(if $(NO_MODULES),,modules) tools
	@$(if $(NO_MODULES),rm -rf $(OUT)/modules; echo "guestmm: Linux $(ABI): no guestmm kernel modules in this guest (this host cannot build them, nor does modules/compat.h serve 7.x yet): tools and BPF probes only")
	@$(KSH) fetch $(ABI) >/dev/null
	$(PY) scripts/guest/mkinitramfs.py --abi $(ABI) \
		--kroot $$($(KSH) fetch $(ABI)) -o $(OUT)/initramfs.cpio.gz \
		$(foreach m,$(STOCK_MODULES),--stock $(m)) \
		$(if $(NO_MODULES),,$(foreach k,$(wildcard $(OUT)/modules/*.ko),--module $(k))) \
		$(foreach b,$(wildcard $(OUT)/bin/*),--bin $(b)) \
		$(foreach f,$(wildcard $(OUT)/bpf/*.o),--data $(f)) \
		--dyn-bin /usr/sbin/bpftool

deps:
	@scripts/install-deps.sh

# The whole suite on Debian 12's 6.1 and on 6.12 (bookworm-backports),
# and on trixie-backports' newest 7.3 build (kernel-next.sh) the cases
# that need none of guestmm's modules, which are not built for 7.x:
# the harness, the stock balloon and the BPF probes (about 3 minutes
# from a cold cache: its guest's build 1, its 8 cases 2, one at a time).
# deb_upgrade's Debian 12 cloud image runs with 6.1, beside the light
# cases; Debian 13's deb_upgrade_trixie runs in make check-kernels.
# Debian 13 (trixie) has no initramfs guest: KERNEL=trixie runs the
# cases that name "trixie" (klp_dkms_smoke, by name only).  KERNEL=...
# narrows it to one kernel, TESTS="-k NAME" to some cases.
CHECK_KERNELS := $(or $(USER_KERNEL),6.1 6.12 7.3)
# Light cases (LIGHT = True) two at a time, the others alone (tests/run -j).
CHECK_JOBS ?= 2

# tests/run's closing timing line counts from here (GUESTMM_T0).  The
# whole suite also builds deb_upgrade's Debian 12 image, cloud kernel
# layer and packages in the background (debimage.py prewarm 6.1;
# build.sh's, layer.sh's and make deb's locks make the case, which starts
# first, wait for them): from a cold cache about 12 minutes, beside the
# first cases (seen: image 7, layer 3, make deb 2).
CHECK_T0 := $(shell date +%s)

check: deps
	@echo "guestmm check: dependencies ready after $$(( $$(date +%s) - $(CHECK_T0) )) s"
	@for k in $(foreach k,$(CHECK_KERNELS),$(if $(call image_kernel,$(k)),,$(k))); do \
		$(MAKE) --no-print-directory guest KERNEL=$$k || exit 1; \
		echo "guestmm check: guest for $$k ready after $$(( $$(date +%s) - $(CHECK_T0) )) s"; done
	@mkdir -p build; pw=; \
	if [ -z "$(strip $(TESTS))$(USER_KERNEL)" ]; then \
		nice -n 10 $(PY) scripts/guest/debimage.py prewarm 6.1 \
			>build/prewarm.log 2>&1 & pw=$$!; \
	fi; \
	GUESTMM_T0=$(CHECK_T0) tests/run -j $(CHECK_JOBS) \
		$(foreach k,$(CHECK_KERNELS),--kernel $(k)) $(TESTS); rc=$$?; \
	if [ -n "$$pw" ]; then wait $$pw; \
		echo "guestmm check: $$(tail -n 1 build/prewarm.log) (build/prewarm.log)"; fi; \
	exit $$rc

# The livepatch smoke cases on every build of the support matrix
# (livepatch/kernels.tsv).  The rows built with gcc-12: host-built, in the
# initramfs guest.  The gcc-14 rows (Debian 13), which this Debian 12 host
# cannot build for: check-kernels-trixie, klp_dkms_smoke in a Debian 13
# guest running exactly that build (scripts/rootfs/layer.sh: the trixie
# image with that build's kernel and headers, a qcow2 layer built once per
# build), where DKMS builds guestmm from the dist tarball; one tests/run
# for all of them, so one failing build does not hide the others.
KLP_SMOKE := -k klp_load_transition -k klp_refuse -k klp_refuse_build \
	-k klp_ibt_callbacks
# (kernels.tsv's columns: release uts_version build_id compaction reclaim
# compiler ...)
KLP_TRIXIE_ROWS = $(shell awk -F '\t' '!/^\#/ && $$6 ~ /gcc-1[3-9]/ { print $$1 }' \
	livepatch/kernels.tsv)
.PHONY: check-kernels check-kernels-trixie
check-kernels: deps
	@set -e; abis=$$(awk -F '\t' '!/^#/ && $$6 !~ /gcc-1[3-9]/ { print $$1 }' \
			livepatch/kernels.tsv); \
	for abi in $$abis; do \
		$(MAKE) --no-print-directory guest KERNEL=$$abi; done; \
	tests/run -j $(CHECK_JOBS) --no-unit $$(printf -- '--kernel %s ' $$abis) \
		$(KLP_SMOKE)
	@$(MAKE) --no-print-directory guest KERNEL=6.12
	@tests/run --no-unit --kernel 6.12 -k dkms_e2e
	@tests/run --no-unit -k 'deb_upgrade_trixie$$'
	@$(MAKE) --no-print-directory check-kernels-trixie

check-kernels-trixie: deps
	@set -e; for abi in $(KLP_TRIXIE_ROWS); do \
		scripts/rootfs/layer.sh $$abi >/dev/null; done
	@tests/run -j $(CHECK_JOBS) --no-unit \
		$(foreach abi,$(KLP_TRIXIE_ROWS),--kernel $(abi)) -k klp_dkms_smoke

demo: deps
	@$(MAKE) --no-print-directory guest KERNEL=$(or $(KERNEL),6.1)
	@$(PY) scripts/demo.py --kernel $(or $(KERNEL),6.1)

bench: deps
	@$(MAKE) --no-print-directory guest KERNEL=$(or $(KERNEL),6.1)
	@$(PY) bench/run --kernel $(or $(KERNEL),6.1) $(BENCH)

lint: headers
	@scripts/lint.sh $(KDIR)

# Debian's Linux 7.x builds (trixie-backports, forky, sid): a real kbuild
# of the modules against each build's headers, in a build root of its
# release (scripts/lint-next.sh, docs/kernels-next.md), one line per
# build.  An early warning: not part of check or check-kernels; fails
# when a build does.  LINT_NEXT_IGNORE_GUARD=1 compiles past compat.h's
# refusal of kernels >= 6.17; LINT_NEXT_FLAVOURS="amd64 cloud-amd64"
# adds the cloud flavour; LINT_NEXT_KERNELS=7.3 narrows the builds.
.PHONY: lint-next
lint-next:
	@scripts/lint-next.sh $(KMOD_DIRS)

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null
	rm -f $(KBUILD_STAMP)
	-@[ -f bpf/Makefile ] && $(MAKE) -C bpf clean
	rm -rf build

distclean: clean
	rm -rf $${GUESTMM_CACHE:-$$HOME/.cache/guestmm}

# ---- install (DKMS) and the DKMS test's Debian image -----------------------
# scripts/install.sh does the work; docs/install.md explains it.  Root only,
# into the running system (no DESTDIR).  DKMS_BUILD=0: `dkms add` only.
.PHONY: install dkms-install dkms-remove rootfs

install dkms-install:
	@scripts/install.sh install $(if $(filter 0,$(DKMS_BUILD)),--no-build)

dkms-remove:
	@scripts/install.sh remove

# The Debian 12 root filesystem image tests/cases/dkms_e2e.py boots
# (cached in $(GUESTMM_CACHE)/rootfs/); KERNEL=6.12 for the backports kernel,
# KERNEL=trixie for Debian 13, KERNEL=<a Debian 12 or 13 ABI> (6.1.0-50-amd64,
# 6.12.95+deb12-amd64, 6.12.107+deb13-amd64) for its series' image on that
# kernel build (scripts/rootfs/layer.sh).
rootfs:
	@$(if $(filter %-amd64,$(KERNEL)),scripts/rootfs/layer.sh $(KERNEL),\
		scripts/rootfs/build.sh --kernel $(or $(KERNEL),6.1))

# ---- Debian packages (docs/install.md) ------------------------------------
# guestmm-dkms and guestmm-tools, built by dpkg-buildpackage from a copy of
# the tracked tree in build/deb/src (it writes its results one directory
# up: build/deb/), then checked by lintian; the tests install them in
# Debian guests (tests/cases/deb_upgrade.py).  Needs debhelper, dh-dkms
# and lintian besides the BPF build's packages (make deps installs them).
# DIST=trixie builds them for Debian 13 instead, in build/deb/trixie/: in a
# throw-away trixie build root (scripts/rootfs/deb-build.sh: the trixie
# image of make rootfs KERNEL=trixie, trixie's Build-Depends and lintian);
# without DIST, the host's own release (Debian 12), on the host.
# A second make deb on the same tree (the same files, with the same
# mtimes) finds the packages it built and builds nothing: make check's
# background prewarm builds them before deb_upgrade asks.  One make deb
# at a time (build/deb.lock).
.PHONY: deb deb-locked deb-build
DEB_DISTS := trixie
ifneq ($(DIST),)
ifeq ($(filter $(DEB_DISTS),$(DIST)),)
$(error guestmm: DIST=$(DIST): make deb builds for DIST=trixie (Debian 13) or, without DIST, for the host's release)
endif
endif
DEB_DIR := $(TOP)/build/deb$(if $(DIST),/$(DIST))

DEB_TREE = git ls-files -z -co --exclude-standard | \
	tar --null --ignore-failed-read -T - -cf - 2>/dev/null

deb:
	@mkdir -p $(TOP)/build && flock $(TOP)/build/deb.lock \
		$(MAKE) --no-print-directory deb-locked

deb-locked:
	@stamp=$$($(DEB_TREE) | sha256sum | cut -c1-16); \
	if [ "$$(cat $(DEB_DIR)/stamp 2>/dev/null)" = "$$stamp" ] && \
			ls $(DEB_DIR)/*.deb >/dev/null 2>&1; then \
		echo "make deb: up to date (tree $$stamp)"; ls $(DEB_DIR)/*.deb; \
	else \
		$(MAKE) --no-print-directory deb-build && echo $$stamp >$(DEB_DIR)/stamp; \
	fi

deb-build:
	@mkdir -p $(DEB_DIR) && find $(DEB_DIR) -mindepth 1 -maxdepth 1 \
		$(foreach d,$(DEB_DISTS),! -name $(d)) -exec rm -rf {} + && \
		mkdir $(DEB_DIR)/src
	@$(DEB_TREE) | tar -C $(DEB_DIR)/src -xf -
ifneq ($(DIST),)
	@scripts/rootfs/deb-build.sh $(DIST) $(DEB_DIR)
else
	@cd $(DEB_DIR)/src && DEB_BUILD_OPTIONS=terse dpkg-buildpackage -us -uc -b \
		>$(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	@lintian --fail-on warning,error --display-info $(DEB_DIR)/*.changes \
		>$(DEB_DIR)/lintian.txt 2>&1; rc=$$?; \
		grep -v '^running with root' $(DEB_DIR)/lintian.txt; \
		[ $$rc = 0 ] || { echo "lintian: see $(DEB_DIR)/lintian.txt" >&2; exit 1; }
endif
	@ls $(DEB_DIR)/*.deb

# ---- soak: the reliability cases at full length ----------------------------
# GUESTMM_SOAK=1: 100 module cycles, a 10-minute QMP storm, 50 livepatch
# toggles (docs/reliability.md), 20 live migrations (balloon_live_migration:
# 5 in a row for each of its variants).
.PHONY: soak

soak: deps
	@$(MAKE) --no-print-directory guest KERNEL=$(or $(KERNEL),6.1)
	@GUESTMM_SOAK=1 tests/run --kernel $(or $(KERNEL),6.1) -k rel_ \
		-k klp_toggle_stress -k balloon_live_migration

# ---- debug kernel: KASAN, lockdep, kmemleak, DEBUG_VM/LIST/OBJECTS
# scripts/guest/debugkernel.sh builds Debian's 6.1 source with Debian's config
# plus the checkers, once, into $(GUESTMM_CACHE)/debug-kernel/ (about an hour
# the first time), then the suite runs on it with timeouts x$(DEBUG_SCALE).
# Our modules are built from a copy of the tree in build/debug-src, so the
# objects kbuild leaves in the tree for 6.1/6.12 are not touched.  KERNEL=debug
# works for the other targets too once the kernel is built.
# TESTS="-k NAME" narrows the cases.  Not part of `make check`.
.PHONY: debug-kernel check-debug
DEBUG_SCALE ?= 3
DEBUG_SRC := $(TOP)/build/debug-src

debug-kernel:
	@scripts/guest/debugkernel.sh build >/dev/null

# The livepatch is built for it from a table of its own (GMM_KLP_KERNELS,
# debugkernel.sh klp-table: scripts/klp-variant local checks the build),
# and the klp_ cases run where that table has a row.
check-debug: deps debug-kernel
	@abi=$$(scripts/guest/debugkernel.sh abi) && \
	table=$$(scripts/guest/debugkernel.sh klp-table) && \
	rm -rf $(DEBUG_SRC) && mkdir -p $(DEBUG_SRC) && \
	git ls-files -z -co --exclude-standard | \
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | \
		tar -C $(DEBUG_SRC) -xf - && \
	GMM_KLP_KERNELS=$$table $(MAKE) --no-print-directory -C $(DEBUG_SRC) \
		guest KERNEL=debug OUT=$(TOP)/build/$$abi && \
	GMM_KLP_KERNELS=$$table GUESTMM_TIMEOUT_SCALE=$(DEBUG_SCALE) \
		tests/run --kernel debug $(TESTS)

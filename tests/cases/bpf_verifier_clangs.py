# SPDX-License-Identifier: GPL-2.0
"""The probes built by every clang on the host (Debian 12's clang 14, Debian 13's clang 19) pass this kernel's verifier: every program of each object loads."""
import os
import re
import time

import elfmini

GUEST = dict(mem=512, smp=2, balloon=None)
KERNELS = ("6.1", "6.12")
TIMEOUT = 300
LIGHT = True

# `make bpf` builds guestmm.bpf.clangNN.o with each clang into build/<abi>/bpf
# and the initramfs carries them here (scripts/guest/mkinitramfs.py --data).
GUEST_DIR = "/usr/share/guestmm"
# Each distribution's clang: Debian 12's default and Debian 13's (the
# latter is clang-19 on Debian 12, installed by scripts/install-deps.sh).
REQUIRED = ("14", "19")
PIN = "/sys/fs/bpf/gmm_verifier"
LOG_TAIL = 12


def programs(path):
    """Names of the BPF programs in an object: its global functions outside
    .text (static subprograms are not programs)."""
    elf = elfmini.Elf(path)
    return sorted(s["name"] for s in elf.syms
                  if s["info"] & 0xF == 2 and s["info"] >> 4 == 1 and
                  0 < s["shndx"] < len(elf.secs) and
                  elf.secs[s["shndx"]]["flags"] & elfmini.SHF_EXECINSTR and
                  elf.secs[s["shndx"]]["name"] != ".text")


def verifier_tail(out):
    """The failing program and the last lines of its verifier log."""
    m = re.search(r"prog '(\w+)': (?:BPF program load failed|failed to load)",
                  out)
    prog = m.group(1) if m else "?"
    log = out
    m = re.search(r"-- BEGIN PROG LOAD LOG --\n(.*?)-- END PROG LOAD LOG --",
                  out, re.S)
    if m:
        log = m.group(1)
    lines = [l for l in log.strip().splitlines()
             if not l.startswith(("processed ", "verification time"))]
    return prog, "\n".join(lines[-LOG_TAIL:])


def run(g):
    host_dir = os.path.join(os.path.dirname(os.path.abspath(g.initrd)), "bpf")
    objs = sorted(f for f in os.listdir(host_dir) if f.endswith(".o")) \
        if os.path.isdir(host_dir) else []
    versions = [re.sub(r"^guestmm\.bpf\.clang(\d+)\.o$", r"\1", f)
                for f in objs]
    missing = [v for v in REQUIRED if v not in versions]
    assert not missing, ("no object built by clang %s in %s (have %s): "
                         "scripts/install-deps.sh, then make guest" %
                         ("/".join(missing), host_dir, objs))
    in_guest = g.sh("ls %s" % GUEST_DIR).split()
    assert sorted(f for f in in_guest if f.endswith(".o")) == objs, \
        ("initramfs is stale (make guest)", in_guest, objs)

    g.sh("grep -q ' /sys/fs/bpf bpf ' /proc/mounts || "
         "mount -t bpf bpf /sys/fs/bpf")
    failures = []
    for obj, ver in zip(objs, versions):
        want = programs(os.path.join(host_dir, obj))
        assert len(want) >= 30, (obj, want)
        t0 = time.monotonic()
        out = g.sh("bpftool prog loadall %s/%s %s 2>&1; echo rc=$?" %
                   (GUEST_DIR, obj, PIN), timeout=180)
        secs = time.monotonic() - t0
        ok = out.rstrip().endswith("rc=0")
        pinned = g.sh("ls %s 2>/dev/null; rm -rf /sys/fs/bpf/*" % PIN).split()
        print("KEY bpf_verifier clang=%s loaded=%s progs=%d/%d secs=%.1f" %
              (ver, ok, len(pinned), len(want), secs))
        if not ok:
            prog, tail = verifier_tail(out)
            failures.append("clang %s (%s): program %s rejected by the "
                            "verifier:\n%s" % (ver, obj, prog, tail))
        elif sorted(pinned) != want:
            failures.append("clang %s (%s): loaded %s, want %s" %
                            (ver, obj, sorted(pinned), want))
    assert not failures, "\n\n".join(failures)

# SPDX-License-Identifier: GPL-2.0
"""The probes built by every clang on the host (Debian 12's clang 14, Debian 13's clang 19) pass this kernel's verifier: every program of each object loads, but those whose function or tracepoint the kernel lacks."""
import base64
import gzip
import os
import re
import subprocess
import time

import elfmini

GUEST = dict(mem=512, smp=2, balloon=None)
KERNELS = ("6.1", "6.12", "7.3")
NEEDS_MODULES = False
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
# The programs' names in the objects; guestmm-stat prints them without it.
PROG_PREFIX = "guestmm_"
# What guestmm-stat's loader finds this kernel cannot take, a function or
# a tracepoint it lacks (7.2 on inline __alloc_pages_direct_compact()),
# as opposed to what it leaves out by choice (-x, -f, the direct
# compaction set it does not use), in its "skipped NAME WHY" lines.
LACKS = re.compile(r"^ *skipped (\w+) +((?:no function|no tracepoint|"
                   r"function \S+ not in kallsyms)[^\n]*)$", re.M)


def programs(path):
    """Names of the BPF programs in an object: its global functions outside
    .text (static subprograms are not programs)."""
    elf = elfmini.Elf(path)
    return sorted(s["name"] for s in elf.syms
                  if s["info"] & 0xF == 2 and s["info"] >> 4 == 1 and
                  0 < s["shndx"] < len(elf.secs) and
                  elf.secs[s["shndx"]]["flags"] & elfmini.SHF_EXECINSTR and
                  elf.secs[s["shndx"]]["name"] != ".text")


def kernel_lacks(g):
    """{program: why} of the programs this kernel cannot take."""
    out = g.sh("guestmm-stat load && guestmm-stat unload")
    return {PROG_PREFIX + n: why for n, why in LACKS.findall(out)}


def sections_of(path, progs):
    """The sections of an object that hold the programs progs, which
    must hold no other program."""
    elf = elfmini.Elf(path)
    where = {s["name"]: elf.secs[s["shndx"]]["name"] for s in elf.syms
             if s["name"] in programs(path)}
    secs = {where[p] for p in progs if p in where}
    others = [p for p, sec in where.items() if sec in secs and p not in progs]
    assert not others, ("sections %s hold other programs too" % secs, others)
    return sorted(secs)


def push_without(g, path, progs, dst):
    """The object at path, in the guest as dst, without the programs
    progs: their sections made data (no SHF_EXECINSTR), which libbpf
    skips with their relocations, so that bpftool prog loadall loads and
    pins the others."""
    tmp = os.path.join(os.path.dirname(os.path.abspath(g.console)),
                       os.path.basename(dst))
    subprocess.run(["llvm-objcopy"] +
                   ["--set-section-flags=%s=alloc,readonly,contents" % s
                    for s in sections_of(path, progs)] + [path, tmp],
                   check=True)
    assert not set(programs(tmp)) & set(progs), (tmp, progs)
    with open(tmp, "rb") as f:
        g.sh("echo %s | base64 -d | gunzip > %s" % (
            base64.b64encode(gzip.compress(f.read())).decode(), dst))


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
    lacks = kernel_lacks(g)
    for p, why in sorted(lacks.items()):
        print("KEY bpf_verifier_lacks prog=%s why=%r" % (p, why))
    failures = []
    for obj, ver in zip(objs, versions):
        want = programs(os.path.join(host_dir, obj))
        assert len(want) >= 30, (obj, want)
        path = "%s/%s" % (GUEST_DIR, obj)
        if set(want) & set(lacks):
            path = "/tmp/" + obj
            push_without(g, os.path.join(host_dir, obj), lacks, path)
            want = [p for p in want if p not in lacks]
        t0 = time.monotonic()
        out = g.sh("bpftool prog loadall %s %s 2>&1; echo rc=$?" %
                   (path, PIN), timeout=180)
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

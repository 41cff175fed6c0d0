#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Whether every CO-RE relocation of a BPF object resolves against a kernel.

    scripts/bpf-core-check.py OBJ VMLINUX...

For each VMLINUX (an ELF with .BTF, or raw BTF) libbpf's own matching is
run through `bpftool -d gen min_core_btf`, and each relocation of OBJ is
put in one of four classes:

  resolved    a target was found;
  answered    an existence test (field_exists, type_exists, type_matches,
              enumval_exists) found none: it evaluates to 0, as meant;
  guarded     a read that found no target, in a program that tests the
              same field for existence (the read is dead code there);
  unresolved  anything else: libbpf poisons the instruction, and the
              program fails to load if the verifier reaches it.

One line per kernel with the counts, then one line per unresolved
relocation.  Exit status 1 if any kernel has one.
"""
import re
import subprocess
import sys
import tempfile

EXISTS = {"field_exists", "type_exists", "type_matches", "enumval_exists"}
HEAD = re.compile(r"prog '([^']+)': relo #(\d+): <(\w+)> (.*)$")
MISS = re.compile(r"prog '([^']+)': relo #(\d+): no matching targets found")
CAND = re.compile(r"prog '([^']+)': relo #(\d+): matching candidate")


def relocations(obj, vmlinux):
    """[(prog, n, kind, spec, found)] from libbpf's debug log."""
    with tempfile.NamedTemporaryFile(suffix=".btf") as out:
        p = subprocess.run(["bpftool", "-d", "gen", "min_core_btf", vmlinux,
                            out.name, obj], capture_output=True, text=True)
    log = p.stdout + p.stderr
    if p.returncode:
        sys.exit("bpftool gen min_core_btf %s failed:\n%s" %
                 (vmlinux, log[-2000:]))
    relos, found = {}, set()
    for line in log.splitlines():
        m = HEAD.search(line)
        if m:
            relos.setdefault((m.group(1), int(m.group(2))),
                             (m.group(3), m.group(4)))
            continue
        m = CAND.search(line)
        if m:
            found.add((m.group(1), int(m.group(2))))
    return [(prog, n, kind, spec, (prog, n) in found)
            for (prog, n), (kind, spec) in sorted(relos.items())]


def classify(relos):
    absent_tests = {(prog, spec) for prog, _, kind, spec, ok in relos
                    if kind == "field_exists" and not ok}
    for prog, n, kind, spec, ok in relos:
        if ok:
            yield "resolved", prog, n, kind, spec
        elif kind in EXISTS:
            yield "answered", prog, n, kind, spec
        elif (prog, spec) in absent_tests:
            yield "guarded", prog, n, kind, spec
        else:
            yield "unresolved", prog, n, kind, spec


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1].strip())
    obj, bad = sys.argv[1], False
    for vmlinux in sys.argv[2:]:
        rows = list(classify(relocations(obj, vmlinux)))
        counts = {c: sum(r[0] == c for r in rows)
                  for c in ("resolved", "answered", "guarded", "unresolved")}
        print("%s: %d relocations: %s" % (vmlinux, len(rows), ", ".join(
            "%d %s" % (v, k) for k, v in counts.items())))
        for c, prog, n, kind, spec in rows:
            if c == "unresolved":
                bad = True
                print("  unresolved: %s relo #%d <%s> %s" %
                      (prog, n, kind, spec))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

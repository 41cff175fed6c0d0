# SPDX-License-Identifier: GPL-2.0
"""Reliability: every writable parameter of guestmm_balloon and guestmm_klp refuses out-of-range, negative, huge, non-numeric and empty values and keeps its value; no guestmm debugfs file but the balloon's defrag command is writable, and that one refuses bad numbers; guestmm-stat rejects bad arguments, is idempotent and mounts a missing bpffs."""

# guestmm_klp's bool parameters go through gmm_klp_parse_bool()
# (livepatch/main.c), strict and with a message, not kstrtobool(), which
# reads only the first character or two: '12abc' would turn
# unmapped_page_control on.
# Both vCPUs in one TCG thread: loading guestmm_klp patches kernel text
# (on 6.12 every transition re-patches the cond_resched static calls), and
# QEMU 7.2's multi-threaded TCG once left the other vCPU in the int3 of a
# finished text_poke_bp ("Oops: int3" in irqentry_exit, 6.12, a run of
# 2026-12-01; docs/reliability.md).
GUEST = dict(mem=1024, smp=2, balloon={}, mods=["guestmm_balloon"],
             tcg_single=True)
TIMEOUT = 300
LIGHT = True

# Invalid for every parameter, whatever its type.
COMMON = ["99999999999999999999999", "-99999999999999999999999",
          "18446744073709551616", "4294967296", "abc", "12abc", "0x",
          "--1", "1.5", "", " "]
# Out of range / negative, per parameter (docs/balloon.md, docs/livepatch.md).
RANGE = {
    "batch_pages": ["0", "513", "-1", "2147483648"],
    "oom_pages": ["0", "65537", "-1"],
    "migrate_batch": ["0", "513", "-1"],
    "report_delay_ms": ["600001", "-1"],
    "floor_mb": ["-2", "16777217", "-2147483649"],
    "numa_inflate": ["0", "0,0", "1,2,3", "1000001", "-1", "free,1", "1,,1",
                     "Free", "localx"],
    "search_depth": ["0", "5000", "-1"],
    "candidates": ["0", "17", "-1"],
    "balloon_cost": ["0", "-1"],
    "max_unmapped_ratio": ["0", "101", "-1", "1000"],
    "fast_search": ["2", "maybe", "-1", "x"],
    "unmapped_page_control": ["2", "maybe", "-1", "x"],
}


def params(g, mod):
    """{name: mode} of /sys/module/MOD/parameters."""
    out = g.sh("cd /sys/module/%s/parameters && stat -c '%%a %%n' *" % mod)
    return dict((l.split()[1], int(l.split()[0], 8)) for l in out.splitlines())


def sq(v):
    return "'" + v.replace("'", "'\\''") + "'"


def sweep(g, mod, tally, nomsg, bad):
    p = "/sys/module/%s/parameters" % mod
    modes = params(g, mod)
    for name, mode in sorted(modes.items()):
        before = g.sh("cat %s/%s" % (p, name))
        values = COMMON + RANGE.get(name, [])
        if not mode & 0o200:
            values = ["1", "0"]      # read-only: even good values bounce
        for v in values:
            g.sh("dmesg -c > /dev/null")
            g.sh("echo %s > %s/%s" % (sq(v), p, name), check=False)
            rc = g.last_rc
            after = g.sh("cat %s/%s" % (p, name))
            if rc == 0 or after != before:
                bad.append("%s.%s=%r rc=%d %s->%s" % (
                    mod, name, v, rc, before.strip(), after.strip()))
                g.sh("echo %s > %s/%s" % (before.strip(), p, name))
            else:
                tally[0] += 1
                # Refused: the log should name the parameter (reported, not
                # asserted: a plain `bool` module_param prints nothing).
                if mode & 0o200 and name not in g.sh("dmesg"):
                    nomsg.append("%s.%s=%r" % (mod, name, v))
        # A zero-length write is not a value: nothing may change.
        g.sh("printf '' > %s/%s" % (p, name), check=False)
        assert g.sh("cat %s/%s" % (p, name)) == before, (mod, name)
    return modes


def run(g):
    tally, nomsg, bad = [0], [], []
    bmodes = sweep(g, "guestmm_balloon", tally, nomsg, bad)
    kmodes = {}
    out = g.sh("modprobe guestmm_klp 2>&1", check=False)
    klp = g.last_rc == 0
    if klp:
        kmodes = sweep(g, "guestmm_klp", tally, nomsg, bad)
    else:
        # A kernel no livepatch variant serves has no guestmm_klp module.
        assert "not found" in out, out

    # The one writable guestmm debugfs file is the balloon's defrag
    # command (write N blocks, 1..1048576): bad numbers are refused with a
    # message; a good one is taken (2 MiB chunks are the default).
    defrag = "/sys/kernel/debug/guestmm_balloon/defrag"
    w = g.sh("find /sys/kernel/debug/guestmm_* -type f -perm -u=w")
    assert w.split() == [defrag], w
    for v in ("0", "-1", "abc", "99999999999999999999", "", "1048577"):
        out = g.sh("(echo '%s' > %s) 2>&1" % (v, defrag), check=False)
        assert g.last_rc != 0 and out.strip(), (v, out)
        tally[0] += 1
    g.sh("echo 1 > %s" % defrag)
    nfiles = int(g.sh("find /sys/kernel/debug/guestmm_* -type f | "
                      "wc -l").strip())
    for f in g.sh("find /sys/kernel/debug/guestmm_* -type f").split():
        if f == defrag:
            continue
        g.sh("echo 1 > %s" % f, check=False)
        assert g.last_rc != 0, f

    # guestmm-stat: wrong arguments exit non-zero and say something.
    bad_args = ["bogus", "show extra", "watch -i abc", "watch -i -1",
                "watch -i 0", "watch -c abc", "load -x", "--nope", "show -z",
                "-i", ""]
    for a in bad_args:
        out = g.sh("guestmm-stat %s 2>&1" % a, check=False)
        rc = g.last_rc
        assert rc != 0, "guestmm-stat %s: rc 0: %s" % (a, out)
        assert out.strip(), "guestmm-stat %s: no message" % a
    # Twice is the same as once.
    g.sh("umount /sys/fs/bpf 2>/dev/null; true")
    out = g.sh("guestmm-stat load 2>&1")
    assert "mounted bpffs" in out and "loaded" in out, out
    out = g.sh("guestmm-stat load 2>&1")
    assert "already loaded" in out, out
    n = g.sh("ls /sys/fs/bpf/guestmm/links | wc -l").strip()
    out = g.sh("guestmm-stat load 2>&1")
    assert g.sh("ls /sys/fs/bpf/guestmm/links | wc -l").strip() == n
    g.sh("guestmm-stat unload && guestmm-stat unload")
    g.sh("umount /sys/fs/bpf")
    out = g.sh("guestmm-stat show 2>&1", check=False)
    assert g.last_rc != 0 and "not mounted" in out, out
    print("KEY rel_bad_input writes_refused=%d balloon_params=%d "
          "balloon_writable=%d klp_params=%d klp_writable=%d "
          "debugfs_files=%d stat_bad_args=%d no_message=%d" %
          (tally[0], len(bmodes), sum(1 for m in bmodes.values() if m & 0o200),
           len(kmodes), sum(1 for m in kmodes.values() if m & 0o200), nfiles,
           len(bad_args), len(nomsg)))
    if nomsg:
        print("KEY rel_bad_input refused_without_message %s" % " ".join(nomsg))
    for b in bad:
        print("KEY rel_bad_input ACCEPTED %s" % b)
    assert not bad, "bad values accepted or state changed:\n  " + "\n  ".join(bad)

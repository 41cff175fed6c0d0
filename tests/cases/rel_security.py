# SPDX-License-Identifier: GPL-2.0
"""Security: guestmm's debugfs files, bpffs pins and behaviour-changing parameters are root-only; a non-root user can neither read them, write them nor run guestmm-stat; no kernel pointer is printed unhashed."""
import re

# One TCG thread (Guest's tcg_single): on 6.12 the livepatch's transition
# re-points the preemption static calls and keys (sched_dynamic_klp_*),
# and the probes' load patches text right after it; under multi-threaded
# TCG the other vCPU once took a stale int3 in irqentry_exit() there.
GUEST = dict(mem=1024, smp=2, balloon={"deflate-on-oom": "on"},
             mods=["guestmm_balloon"], tcg_single=True)
TIMEOUT = 300
LIGHT = True

MIB = 1 << 20
UID = 65534
# A kernel (direct-map, vmalloc, text) address printed raw: 0xffff... or
# ffff8... / ffffffff8... in the log of our modules.
KPTR = re.compile(r"(0x)?ffff[0-9a-f]{12}\b", re.I)


def modes(g, where, kind):
    out = g.sh("find %s -type %s -exec stat -c '%%a %%n' {} + 2>/dev/null; "
               "true" % (where, kind))
    return dict((l.split()[1], int(l.split()[0], 8))
                for l in out.splitlines() if l.strip())


def as_user(g, cmd):
    """Run cmd as nobody (uid/gid 65534) with busybox su (busybox's setpriv
    has no --reuid)."""
    out = g.sh("su nobody -s /bin/sh -c %s 2>&1"
               % ("'" + cmd.replace("'", "'\\''") + "'"), check=False)
    return g.last_rc, out


def run(g):
    ram = g.mem * MIB
    # Exercise everything that logs: inflate, deflate, unbind, rebind,
    # livepatch on/off (6.1), probes load/unload.
    g.balloon(ram - 64 * MIB)
    g.wait_balloon(ram - 64 * MIB)
    g.sh("rmmod guestmm_balloon && modprobe guestmm_balloon chunk_order=9")
    g.wait_balloon(ram - 64 * MIB)
    g.balloon(ram)
    g.wait_balloon(ram)
    g.sh("modprobe guestmm_klp", check=False)
    klp = g.last_rc == 0
    g.sh("guestmm-stat load -m")

    # --- modes -----------------------------------------------------------
    files = modes(g, "/sys/kernel/debug/guestmm_*", "f")
    dirs = modes(g, "/sys/kernel/debug/guestmm_*", "d")
    assert len(files) >= 20, files
    bad = {f: oct(m) for f, m in files.items() if m & 0o077}
    assert not bad, "debugfs files readable or writable by non-root: %s" % bad
    bad = {d: oct(m) for d, m in dirs.items() if m & 0o022}
    assert not bad, "debugfs dirs writable by non-root: %s" % bad
    root = int(g.sh("stat -c %a /sys/kernel/debug").strip(), 8)
    assert root & 0o077 == 0, oct(root)       # debugfs itself: 0700

    pins = modes(g, "/sys/fs/bpf/guestmm", "d")
    assert pins["/sys/fs/bpf/guestmm"] == 0o700, pins
    bad = {d: oct(m) for d, m in pins.items() if m != 0o700}
    assert not bad, bad
    pinf = modes(g, "/sys/fs/bpf/guestmm", "f")
    bad = {f: oct(m) for f, m in pinf.items() if m & 0o077}
    assert not bad, "bpffs pins open to non-root: %s" % bad

    params = {}
    for mod in ("guestmm_balloon", "guestmm_klp"):
        params.update(modes(g, "/sys/module/%s/parameters" % mod, "f"))
    bad = {p: oct(m) for p, m in params.items() if m & 0o022}
    assert not bad, "parameters writable by non-root: %s" % bad
    n_rw = sum(1 for m in params.values() if m & 0o200)

    # --- a non-root user -------------------------------------------------
    g.sh("grep -q ^nobody: /etc/passwd 2>/dev/null || echo "
         "'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd")
    g.sh("chmod go+rx / /bin /usr /usr/bin /usr/sbin /sbin 2>/dev/null; "
         "chmod go+rx /bin/busybox $(command -v guestmm-stat); true")
    rc, out = as_user(g, "id -u")
    assert rc == 0 and out.strip() == str(UID), out
    denied = {}
    for what, cmd in [
            ("list debugfs", "ls /sys/kernel/debug/guestmm_balloon"),
            ("read debugfs", "cat /sys/kernel/debug/guestmm_balloon/state"),
            ("read klp debugfs", "cat /sys/kernel/debug/guestmm_klp/stats"),
            ("list pins", "ls /sys/fs/bpf/guestmm"),
            ("guestmm-stat show", "guestmm-stat show"),
            ("guestmm-stat load", "guestmm-stat load"),
            ("guestmm-stat unload", "guestmm-stat unload"),
            ("write batch_pages",
             "echo 64 > /sys/module/guestmm_balloon/parameters/batch_pages"),
            ("write floor_mb",
             "echo 0 > /sys/module/guestmm_balloon/parameters/floor_mb"),
            ("unbind", "echo virtio0 > "
             "/sys/bus/virtio/drivers/guestmm_balloon/unbind")]:
        if "klp" in what and not klp:
            continue
        rc, out = as_user(g, cmd)
        assert rc != 0, "non-root could %s: %s" % (what, out)
        denied[what] = out.strip().splitlines()[-1] if out.strip() else ""
    assert "must be run as root" in denied["guestmm-stat show"], denied
    assert g.sh("cat /sys/module/guestmm_balloon/parameters/batch_pages"
                ).strip() == "256"
    assert "virtio0" in g.sh("ls /sys/bus/virtio/drivers/guestmm_balloon/")
    # What a non-root user can observe (documented in docs/reliability.md).
    rc, _ = as_user(g, "grep -q balloon_inflate /proc/vmstat && "
                    "grep -q MemTotal /proc/meminfo && "
                    "cat /sys/module/guestmm_balloon/parameters/batch_pages")
    assert rc == 0
    if klp:
        rc, out = as_user(g, "cat /sys/kernel/livepatch/guestmm_klp/enabled")
        assert rc == 0 and out.strip() == "1", out

    # A distribution that mounts debugfs 0755: names become listable, the
    # counters stay root-only (files are 0400).
    g.sh("mount -o remount,mode=755 /sys/kernel/debug")
    rc_ls, _ = as_user(g, "ls /sys/kernel/debug/guestmm_balloon")
    rc_cat, out = as_user(g, "cat /sys/kernel/debug/guestmm_balloon/state")
    g.sh("mount -o remount,mode=700 /sys/kernel/debug")
    assert rc_cat != 0, out

    # --- no raw kernel pointers in what our modules print ----------------
    g.sh("guestmm-stat unload")
    if klp:
        g.sh("echo 0 > /sys/kernel/livepatch/guestmm_klp/enabled; "
             "while [ -d /sys/kernel/livepatch/guestmm_klp ]; do sleep 0.3; "
             "done; rmmod guestmm_klp", timeout=120)
    # A link's module reference goes after an RCU grace period (6.12 defers
    # it), so rmmod may need a moment after the unload.
    g.sh("for i in $(seq 50); do rmmod guestmm_balloon 2>/dev/null && "
         "exit 0; sleep 0.1; done; rmmod guestmm_balloon")
    log = [l for l in g.dmesg().splitlines()
           if re.search(r"guestmm|virtio0", l)]
    assert len(log) >= 4, log
    leaks = [l for l in log if KPTR.search(l)]
    assert not leaks, "raw kernel pointers in the log: %s" % leaks
    print("KEY rel_security debugfs_files=%d debugfs_dirs=%s pin_dirs=%d "
          "pin_files=%d params=%d writable_params=%d denied=%d "
          "log_lines_checked=%d debugfs_0755_list_rc=%d klp=%d" %
          (len(files), ",".join("%s:%o" % (d.rsplit("/", 1)[1], m)
                                for d, m in sorted(dirs.items())),
           len(pins), len(pinf), len(params), n_rw, len(denied), len(log),
           rc_ls, klp))
    for k, v in denied.items():
        print("KEY rel_security denied %r: %s" % (k, v))

# SPDX-License-Identifier: GPL-2.0
"""Helpers for tests/cases/bpf_*.py: snapshots of the guestmm BPF counters
next to /proc/vmstat, and exact delta comparison.

    import bpfcheck
    before = bpfcheck.snapshot(g)
    ...workload...
    after = bpfcheck.snapshot(g)
    bpfcheck.assert_exact(before, after, bpfcheck.COMPACTION + bpfcheck.MIGRATION)
"""
import json


# guestmm-stat's "vmstat" object uses /proc/vmstat's names.
COMPACTION = ["compact_stall", "compact_success", "compact_fail",
              "compact_migrate_scanned", "compact_free_scanned",
              "compact_daemon_wake", "compact_daemon_migrate_scanned",
              "compact_daemon_free_scanned"]
MIGRATION = ["pgmigrate_success", "pgmigrate_fail", "thp_migration_success",
             "thp_migration_fail", "thp_migration_split"]
BALLOON = ["balloon_inflate", "balloon_deflate", "balloon_migrate"]

SEP = "@@GUESTMM_VMSTAT"


def quiesce(g):
    """Stop background compaction and NUMA balancing so that nothing but the
    workload moves the counters between two snapshots."""
    g.sh("echo 0 > /proc/sys/vm/compaction_proactiveness; "
         "echo 0 > /proc/sys/kernel/numa_balancing")


def balloon_workload(g, mib=128):
    """Balloon traffic with migrations in between: frag holds 600 MiB
    with holes, the balloon inflates mib MiB into them, compact_memory
    migrates balloon pages, the balloon deflates and frag goes."""
    ram = g.mem << 20
    g.sh("frag 600 2 > /tmp/frag.out 2>&1 & "
         "while ! grep -q ready /tmp/frag.out; do sleep 0.5; done")
    g.balloon(ram - (mib << 20))
    g.wait_balloon(ram - (mib << 20), timeout=300)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    g.sh("kill $(pidof frag); sleep 1")


def has_module(g, name):
    """The guest's kernel has the module (guestmm's own ones, its test
    modules among them, are not built for every kernel: Linux 7.x)."""
    return g.sh("grep -q '/%s\\.ko' /lib/modules/$(uname -r)/modules.dep "
                "&& echo yes || true" % name).strip() == "yes"


def direct_compaction_workload(g, compact=False):
    """Direct compaction that succeeds and that fails: frag holds every
    other 4 KiB page of 600 MiB, the balloon inflates 128 MiB into the
    holes (so compaction has balloon pages to move), then more order-9
    allocations than there are free 2 MiB blocks (200 are that in 1 GiB;
    a guest with more RAM, the debug kernel's, needs more); compact=True
    adds a compact_memory while they are held.  Everything is given back
    afterwards.  The allocations are guestmm_highalloc's where the guest
    has it; where it has none of guestmm's modules, thp_hold's huge-page
    faults (tests/progs/thp_hold.c), which compact directly the same way
    and hold what they got."""
    ram = g.mem << 20
    ha = "/sys/kernel/debug/guestmm_highalloc/alloc"
    g.sh("frag 600 2 > /tmp/frag.out 2>&1 & "
         "while ! grep -q ready /tmp/frag.out; do sleep 0.5; done")
    g.balloon(ram - (128 << 20))
    g.wait_balloon(ram - (128 << 20), timeout=300)
    n = max(200, g.meminfo()["MemFree"] // 2048 + 50)
    if has_module(g, "guestmm_highalloc"):
        g.sh("modprobe guestmm_highalloc && echo %d > %s && cat %s" % (
            n, ha, ha), timeout=600)
        release = "echo 0 > " + ha
    else:
        out = g.sh("thp_hold %d > /tmp/thp_hold.out 2>&1 & pid=$!; "
                   "while ! grep -q ready /tmp/thp_hold.out; do "
                   "kill -0 $pid || { cat /tmp/thp_hold.out; exit 1; }; "
                   "sleep 0.5; done; cat /tmp/thp_hold.out" % n, timeout=600)
        print("KEY direct_compaction_workload %s" % out.strip(), flush=True)
        release = ("kill $(pidof thp_hold); "
                   "while pidof thp_hold >/dev/null; do sleep 0.2; done")
    if compact:
        g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    g.sh(release)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    g.sh("kill $(pidof frag); sleep 1")


def snapshot(g):
    """(guestmm-stat show -j as a dict, /proc/vmstat as a dict), read back
    to back in one guest command."""
    out = g.sh("cat /proc/vmstat > /tmp/.vm; guestmm-stat show -j; "
               "echo %s; cat /tmp/.vm" % SEP)
    js, _, vm = out.partition(SEP)
    vmstat = {}
    for line in vm.strip().splitlines():
        k, _, v = line.partition(" ")
        vmstat[k] = int(v)
    return json.loads(js), vmstat


def deltas(before, after, keys):
    """{key: (bpf delta, vmstat delta)}"""
    (b0, v0), (b1, v1) = before, after
    return {k: (b1["vmstat"][k] - b0["vmstat"][k], v1[k] - v0[k])
            for k in keys}


def assert_exact(before, after, keys, report=print):
    d = deltas(before, after, keys)
    for k in keys:
        report("KEY bpf_vs_vmstat name=%s bpf=%d vmstat=%d" % (k, d[k][0], d[k][1]))
    bad = {k: v for k, v in d.items() if v[0] != v[1]}
    assert not bad, "BPF counters differ from /proc/vmstat deltas: %r" % bad
    return d

# SPDX-License-Identifier: GPL-2.0
"""Guest workloads shared by the demo, tests and benchmarks."""
import re
import time

MIB = 1 << 20

# vmstat counters that tell what compaction and the balloon did.
COMPACTION_COUNTERS = (
    "compact_stall", "compact_success", "compact_fail",
    "compact_migrate_scanned", "compact_free_scanned", "compact_isolated",
    "pgmigrate_success", "pgmigrate_fail",
    "balloon_inflate", "balloon_deflate", "balloon_migrate")


def cpu_ticks(line):
    """(busy, total) USER_HZ ticks in a /proc/stat "cpu" line: busy is all
    but idle and iowait; guest time is already counted in user."""
    f = [int(x) for x in line.split()[1:9]]
    return sum(f) - f[3] - f[4], sum(f)


def busy_fraction(line0, line1):
    """The share of CPU time that was busy between two "cpu" lines."""
    (b0, t0), (b1, t1) = cpu_ticks(line0), cpu_ticks(line1)
    return (b1 - b0) / float(t1 - t0)


def delta(before, after, keys=COMPACTION_COUNTERS):
    return {k: after.get(k, 0) - before.get(k, 0) for k in keys}


def free_huge_blocks(g):
    """Free blocks of order >= 9 (2 MiB on x86) in all zones, counted in
    2 MiB units, from /proc/buddyinfo."""
    total = 0
    for line in g.sh("cat /proc/buddyinfo").splitlines():
        counts = [int(x) for x in line.split()[4:]]
        total += sum(n << (order - 9) for order, n in enumerate(counts)
                     if order >= 9)
    return total


# frag's stride that gives (practically) nothing back: it just holds memory.
FRAG_KEEP_ALL = 1000000


def frag_start(g, mib, stride=2, timeout=300, keep=False):
    """Start `frag MIB STRIDE` in the background (it faults MIB MiB in and
    frees one page in every STRIDE; with keep, keeps one in every STRIDE
    and frees the rest) and wait until it holds its memory.  Its output is
    in /tmp/frag.out."""
    g.sh("frag %d %d %s> /tmp/frag.out 2>&1 & echo $! > /tmp/frag.pid"
         % (mib, stride, "keep " if keep else ""))
    deadline = time.monotonic() + timeout
    while True:
        # One round trip: its output, and whether it still runs.
        out = g.sh("cat /tmp/frag.out; kill -0 $(cat /tmp/frag.pid) "
                   "2>/dev/null || echo '@@frag gone'")
        if "FRAG ready" in out:
            return
        if "@@frag gone" in out:
            raise AssertionError("frag died: " + out)
        if time.monotonic() > deadline:
            raise AssertionError("frag did not get ready: " + out)
        time.sleep(0.5)


def frag_stop(g):
    """Kill frag and wait until its memory is back (a second for the
    freed pages to reach the free lists)."""
    g.sh("kill $(cat /tmp/frag.pid) 2>/dev/null; "
         "wait $(cat /tmp/frag.pid) 2>/dev/null; killall -q frag; sleep 1; "
         "true")


def touch_free(g, keep_mib=16):
    """Write the guest's free memory once, all but keep_mib of what is
    available, and free it again: a guest that ran for a while has no
    memory it never wrote, and the host backs all of it.  A second frag,
    beside the one frag_start() may hold."""
    avail = g.meminfo()["MemAvailable"] // 1024
    if avail <= keep_mib + 16:
        return
    g.sh("frag %d %d > /tmp/touch.out 2>&1 & pid=$!; "
         "while ! grep -q 'FRAG ready' /tmp/touch.out; do "
         "kill -0 $pid 2>/dev/null || { cat /tmp/touch.out; exit 1; }; "
         "sleep 0.2; done; kill $pid; wait $pid; sleep 1; true"
         % (avail - keep_mib, FRAG_KEEP_ALL), timeout=300)


def scattered_inflate(g, inflate_mib, frag_mib=None, timeout=300,
                      stride=2):
    """Fragment free memory with `frag` (one page in every `stride`
    freed), inflate the balloon by inflate_mib so its pages land in the
    holes, then free the rest.

    Returns the balloon target in bytes.  Afterwards the balloon pages are
    spread over many pageblocks that are otherwise free: the state where
    only migrating balloon pages can rebuild 2 MiB blocks.

    With guestmm_balloon's chunks that takes two settings of the host-
    return rule (modules/balloon/source.c) out of the way: the free memory
    frag leaves is written once (touch_free()), so that the free 2 MiB
    blocks hold data and count as backed (taken whole first, as a guest
    that ran for a while has them), and chunk_make_pages is 0 during the
    inflate, so that the balloon takes the holes as strays instead of
    making blocks of them."""
    ram = g.mem * MIB
    if frag_mib is None:
        frag_mib = g.mem // 2
    make = "/sys/module/guestmm_balloon/parameters/chunk_make_pages"
    make_was = g.sh("cat %s 2>/dev/null || true" % make).strip()
    # Proactive compaction (kcompactd, every 500 ms while the node is
    # fragmented) would rebuild free 2 MiB blocks out of frag's holes
    # while the balloon inflates, more of them the slower the guest runs:
    # on a loaded CI host a chunked inflate found 117 whole blocks and
    # left 11 blocks of strays.  Off until the balloon holds its pages.
    pro = "/proc/sys/vm/compaction_proactiveness"
    was = g.sh("cat %s" % pro).strip()
    g.sh("echo 0 > %s" % pro)
    if make_was:
        g.sh("echo 0 > %s" % make)
    try:
        frag_start(g, frag_mib, stride=stride, timeout=timeout)
        touch_free(g)
        target = ram - inflate_mib * MIB
        g.balloon(target)
        g.wait_balloon(target, timeout=timeout)
        frag_stop(g)
    finally:
        g.sh("echo %s > %s" % (was, pro))
        if make_was:
            g.sh("echo %s > %s" % (make_was, make))
    return target


# guestmm_klp's sysfs directory (the livepatch core's) and its counters.
KLP_SYSFS = "/sys/kernel/livepatch/guestmm_klp"
KLP_STATS = "/sys/kernel/debug/guestmm_klp/stats"


def klp_stats(g):
    """guestmm_klp's debugfs `stats` file as a dict of integers."""
    res = {}
    for line in g.sh("cat " + KLP_STATS).splitlines():
        k, _, v = line.partition(" ")
        res[k] = int(v)
    return res


def guest_seconds(g, cmd, timeout=900):
    """Seconds the guest's own clock (/proc/uptime) saw @cmd take: the
    command channel's latency stays out, and under TCG the guest's clock
    is what its work is paced by.  Tests and benchmarks share this."""
    out = g.sh("t0=$(cut -d' ' -f1 /proc/uptime); %s; "
               "t1=$(cut -d' ' -f1 /proc/uptime); echo \"@@T $t0 $t1\""
               % cmd, timeout=timeout)
    m = re.search(r"@@T ([\d.]+) ([\d.]+)", out)
    assert m, out
    return max(float(m.group(2)) - float(m.group(1)), 0.01)


def modprobe_klp(g, args="", check=True):
    """Load guestmm_klp with its tracepoints.  Debian's kmod modprobe
    loads guestmm_klp_trace first by itself (MODULE_SOFTDEP); the test
    guests' busybox modprobe ignores soft dependencies, so do it here.
    Tests (klplib) and benchmarks share this."""
    return g.sh("modprobe guestmm_klp_trace && modprobe guestmm_klp %s 2>&1"
                % args, check=check)


def compact(g):
    """Run full compaction of every node; return the vmstat deltas and the
    free 2 MiB blocks before and after."""
    before, huge_before = g.vmstat(), free_huge_blocks(g)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=600)
    after, huge_after = g.vmstat(), free_huge_blocks(g)
    d = delta(before, after)
    d["free_2m_before"], d["free_2m_after"] = huge_before, huge_after
    return d

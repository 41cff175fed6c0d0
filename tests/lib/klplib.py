# SPDX-License-Identifier: GPL-2.0
"""Helpers for the guestmm_klp cases (and its unit tests)."""
import os
import re
import shutil
import subprocess
import time

# Shared with the benchmarks; the cases import them from here.
from workloads import KLP_STATS as STATS  # noqa: F401
from workloads import KLP_SYSFS as LP  # noqa: F401
from workloads import guest_seconds, klp_stats, modprobe_klp  # noqa: F401

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

UM = "/sys/kernel/debug/guestmm_klp/unmapped"

# Kernel functions whose address the module may hand to the kernel: the
# kernel's own compact_zone() passes them to migrate_pages() as well, so
# objtool keeps their ENDBR.  Anything new here must pass the IBT check.
CALLBACKS = {"compaction_alloc", "compaction_free"}

# Kernel functions whose address the module only compares with, never
# calls through nor hands out: unmapped.c's caller gate (which of
# pgdat_balanced()'s three callers asked), from kallsyms at load.
# balance_pgdat and prepare_kswapd_sleep have no ENDBR on 6.12.
ADDRESS_ONLY = {"balance_pgdat", "prepare_kswapd_sleep", "wakeup_kswapd"}

# Guest-side sampler for the unmapped-cache cases: one line of file LRU
# and mapped counts per 0.1 s into /tmp/samples, until /tmp/stop exists.
SAMPLER = ("rm -f /tmp/stop; (while [ ! -e /tmp/stop ]; do "
           "grep -E '^nr_(active_file|inactive_file|mapped) ' /proc/vmstat"
           " | tr '\\n' ' '; echo; sleep 0.1; done) > /tmp/samples 2>&1 &")


def stuck_tasks(g, limit=8):
    """The tasks a livepatch transition waits for: those whose
    /proc/PID/patch_state is the rarer of the two states, each with its
    comm and kernel stack (at most `limit`)."""
    rows = [l.split(None, 2) for l in g.sh(
        "for p in /proc/[0-9]*; do s=$(cat $p/patch_state 2>/dev/null) && "
        "echo \"$s ${p#/proc/} $(cat $p/comm 2>/dev/null)\"; done; true"
    ).splitlines() if len(l.split(None, 2)) == 3]
    states = {}
    for st, pid, comm in rows:
        if st != "-1":
            states.setdefault(st, []).append((pid, comm))
    if len(states) < 2:
        return "patch_state: %s" % {k: len(v) for k, v in states.items()}
    rare = min(states.values(), key=len)
    return "\n".join("%s %s\n%s" % (pid, comm, g.sh(
        "cat /proc/%s/stack 2>/dev/null; true" % pid)) for pid, comm in
        rare[:limit])


def wait_transition(g, timeout=30, poll=0.2, slow=None):
    """Wait until the livepatch transition is over (or the patch is gone,
    after a disable); return the seconds it took.  The timeout is host
    time, scaled for slow kernels (Guest.time_scale); on a timeout the
    message names the tasks the transition still waits for.  slow
    (seconds, scaled too): once the transition has run that long, print
    those tasks in a KEY line, and go on waiting."""
    t0 = time.monotonic()
    told = slow is None
    while g.sh("cat %s/transition 2>/dev/null || echo 0" % LP).strip() != "0":
        took = time.monotonic() - t0
        if took >= timeout * g.time_scale:
            raise AssertionError("transition still running after %.0f s; "
                                 "waiting for:\n%s" % (took, stuck_tasks(g)))
        if not told and took >= slow * g.time_scale:
            told = True
            print("KEY klp_slow_transition after_s=%.0f waiting for: %s" % (
                took, stuck_tasks(g).replace("\n", " | ")), flush=True)
        time.sleep(poll)
    return time.monotonic() - t0


# How far the unmapped control may trail a reader: a rest after each pass
# (livepatch/reclaim/unmapped.c: GMM_UM_REST, 120 ms), the pass, and the
# sampler's 0.1 s.
READER_LAG_S = 0.25


def timed_read(g, path, timeout=900):
    """Read @path once (dd, 1 MiB blocks); return the 4 KiB pages a
    reader at that rate adds to the page cache in READER_LAG_S, the rate
    taken on the guest's own clock (/proc/uptime), and the seconds."""
    size = int(g.sh("stat -c %%s %s" % path).split()[-1])
    secs = guest_seconds(g, "dd if=%s of=/dev/null bs=1M 2>/dev/null" %
                         path, timeout=timeout)
    return int(size / secs * READER_LAG_S) // 4096, secs


def um_stats(g):
    """The unmapped page cache policy's debugfs counters."""
    return {k: int(v) for k, v in (l.split() for l in
                                   g.sh("cat " + UM).splitlines())}


def unmapped_samples(text):
    """Unmapped file pages (file LRU - mapped) of every line of a vmstat
    sampler's output that has nr_active_file, nr_inactive_file and
    nr_mapped: the measure the unmapped control keeps under its ratio."""
    res = []
    for line in text.splitlines():
        f = dict(re.findall(r"(nr_\w+) (\d+)", line))
        if len(f) == 3:
            lru = int(f["nr_active_file"]) + int(f["nr_inactive_file"])
            res.append(max(0, lru - int(f["nr_mapped"])))
    return res


def klp_variant(abi):
    """The livepatch's features for kernel @abi, "compaction=V reclaim=V"
    ("-" for a feature not built), or "" where none is built:
    livepatch/select-variant on its headers, the decision the Kbuild and
    dkms.conf take."""
    return subprocess.run(
        [os.path.join(TOP, "livepatch", "select-variant"),
         "/usr/src/linux-headers-" + abi],
        capture_output=True, text=True, check=True).stdout.strip()


def klp_features(abi):
    """klp_variant(@abi) as {feature: variant or "-"}; {} where none."""
    return dict(fv.split("=", 1) for fv in klp_variant(abi).split())


def build_livepatch_copy(kdir, tmp, table):
    """Build a copy of livepatch/ (sources only) in @tmp against the kernel
    headers at @kdir, with @table instead of kernels.tsv (GMM_KLP_KERNELS);
    return the copy's directory and make's CompletedProcess (not checked:
    the caller says what it expects)."""
    lp = os.path.join(tmp, "livepatch")
    shutil.copytree(os.path.join(TOP, "livepatch"), lp,
                    ignore=shutil.ignore_patterns("*.o", "*.ko", "*.mod*", ".*",
                                                  "builds.h", "protos.h",
                                                  "klp-postlink"))
    # The parameter parsing it shares with the balloon (livepatch/params.c).
    os.makedirs(os.path.join(tmp, "modules"), exist_ok=True)
    for f in ("gmm_param.c", "gmm_param.h"):
        shutil.copy(os.path.join(TOP, "modules", f),
                    os.path.join(tmp, "modules", f))
    p = subprocess.run(["make", "-C", kdir, "M=" + lp,
                        "GMM_KLP_KERNELS=" + table, "modules"],
                       capture_output=True, text=True)
    return lp, p

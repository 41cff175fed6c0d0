"""Unmapped page cache control: the cost to a compile workload (seed 001's kernbench)

A stock Debian 12 guest (scripts/rootfs/build.sh's image, booted from its
ext4 virtio disk; 1 GiB, 1 vCPU) builds guestmm_balloon.ko from its
source with the kernel's own kbuild and gcc (`make -j1 M=...`, after
`make clean`; the source is the `scripts/install.sh dist` tarball unpacked
on the root disk).  That is kernbench in small: gcc, make and modpost
reading kernel headers through the page cache.  guestmm_klp (built in
the guest by the first, untimed, build) is loaded once; between builds
unmapped_page_control is switched off, or on with max_unmapped_ratio 10
(the default), 5 or 2 (of 1 GiB: 100, 50 or 20 MiB of unmapped cache;
a pass starts above the ratio and stops 1 % of the node below it).  The
modes alternate ROUNDS times each in the same boot.

The policy runs in kswapd (the patched pgdat_balanced(), docs/livepatch.md):
it has no threads of its own, and its passes are kswapd's CPU time, which
the build's user + system time does not contain.  So each build also
records kswapd's CPU time (utime + stime of every kswapd thread,
/proc/<pid>/stat) and the guest's whole CPU busy time (/proc/stat), and
the policy's own counters (/sys/kernel/debug/guestmm_klp/unmapped):
passes, pages scanned and reclaimed, and time_ns, the time spent in its
passes.

The guest runs with QEMU's -icount (scripts/guest/guest.py): its clock
counts executed instructions, so a build's user and system time measure
the guest's work and not how fast this host happened to emulate it.
Without it, identical builds differed by 8 % here, which hides a 1 %
goal.  icount needs one TCG thread, and QEMU 7.2 hangs bringing up a
second vCPU with it, hence 1 vCPU and -j1.  Elapsed time also contains
the waits for the disk, in host time (the clock follows the host's while
the vCPU idles), so it is as noisy as the host's IO.

Metrics per mode: elapsed, user and system seconds of a build, kswapd's
CPU time and the guest's CPU busy time meanwhile, medians; the overhead
against "off" in build CPU (user + system), in build CPU + kswapd CPU,
in busy time and in elapsed time; the round-to-round spread of busy time
(the noise floor); what the policy did (passes, MiB scanned and
reclaimed, time in its passes) and the MiB the build read from the disk
(the cache the policy gave back, read again).  Goal: at most
1 % more build CPU at the default ratio.
"""
import os
import statistics

import debimage
import workloads
from klplib import um_stats

GUEST = dict(mem=1024, smp=1, icount=0, balloon={}, boot_timeout=900)
# UNMAPPED_COMPILE_ROUNDS / _MODES (e.g. "off,ratio10") run a shorter
# benchmark; the report's metrics then cover only those modes.
ROUNDS = int(os.environ.get("UNMAPPED_COMPILE_ROUNDS", 3))
REPS = 1            # the repetitions are the ROUNDS inside one boot
SRC = None          # the unpacked source in the guest (guest_config)
PAR = "/sys/module/guestmm_klp/parameters/"
# name, max_unmapped_ratio (None: control off)
MODES = [("off", None), ("ratio10", 10), ("ratio5", 5), ("ratio2", 2)]
if os.environ.get("UNMAPPED_COMPILE_MODES"):
    _only = os.environ["UNMAPPED_COMPILE_MODES"].split(",")
    assert _only[0] == "off" and set(_only) <= set(m for m, _ in MODES), \
        "UNMAPPED_COMPILE_MODES: off first, then some of %s" % MODES
    MODES = [m for m in MODES if m[0] in _only]

VARIANTS = [dict(name="off-on-same-boot", guest=GUEST, needs=["guestmm_klp"])]

METRICS = [(m + "_" + k, "%s: %s" % (m, what), better)
           for m, _ in MODES for k, what, better in (
               ("elapsed_s", "build elapsed, s", "lower"),
               ("user_s", "build user CPU, s", "lower"),
               ("sys_s", "build system CPU, s", "lower"),
               ("busy_s", "guest CPU busy during the build (all tasks), s",
                "lower"),
               ("busy_spread_pct", "busy: (max - min) / median over the "
                "rounds, %", "info"),
               ("read_mib", "read from disk per build, MiB", "lower"),
               ("kswapd_s", "kswapd CPU (utime + stime) during the build, s",
                "lower"),
               ("passes", "policy passes (in kswapd) per build", "info"),
               ("scanned_mib", "scanned by the policy per build, MiB",
                "info"),
               ("reclaimed_mib", "reclaimed by the policy per build, MiB",
                "info"),
               ("pass_s", "policy's time in its passes (time_ns) per "
                "build, s", "info"))] + [
    (m + "_" + k, "%s: %s vs off, %%" % (m, what), "lower")
    for m, r in MODES if r
    for k, what in (("busy_overhead_pct", "guest CPU busy"),
                    ("cpu_overhead_pct", "build user+system CPU"),
                    ("kcpu_overhead_pct", "build user+system + kswapd CPU"),
                    ("overhead_pct", "build elapsed"))]


def guest_config(abi):
    global SRC
    SRC = "/root/guestmm-%s" % debimage.dist_version()
    return debimage.debian_guest(".".join(abi.split(".")[:2]),
                                 tag="unmapped_compile")


def kbuild(dirs, target):
    return ("make -s -C /lib/modules/$(uname -r)/build M=%s "
            "GUESTMM_DIRS='%s' -j%d %s" % (SRC, dirs, GUEST["smp"], target))


KSWAPD = ("for c in $(grep -ls '^kswapd' /proc/[0-9]*/comm); do "
          "echo KSWAPD $(cat ${c%comm}stat); done")


def kswapd_ticks(lines):
    """utime + stime of all kswapd threads, in USER_HZ ticks, from the
    KSWAPD lines (/proc/<pid>/stat: fields 14 and 15; comm has no blank)."""
    n = 0
    for l in lines:
        f = l.split(")", 1)[1].split()
        n += int(f[11]) + int(f[12])
    return n


def timed_build(g):
    """(elapsed, user, sys, busy, kswapd) seconds of one clean build of
    the balloon; busy is the whole guest's CPU time meanwhile (it counts
    kswapd, where the policy runs, and the flusher), kswapd that of the
    kswapd threads alone."""
    g.sh(kbuild("modules/balloon", "clean"), timeout=300)
    out = g.sh("head -1 /proc/stat; %s; echo MARK; "
               "bash -c \"TIMEFORMAT='TIMES %%R %%U %%S'; "
               "time (%s >/dev/null)\" 2>&1; head -1 /proc/stat; %s" %
               (KSWAPD, kbuild("modules/balloon", "modules"), KSWAPD),
               timeout=1800)
    lines = out.splitlines()
    mark = lines.index("MARK")
    stat = [l for l in lines if l.startswith("cpu ")]
    line = [l for l in lines if l.startswith("TIMES ")][-1]
    times = tuple(float(x) for x in line.split()[1:])
    busy = workloads.cpu_ticks(stat[-1])[0] - workloads.cpu_ticks(stat[0])[0]
    ksw = (kswapd_ticks(l for l in lines[mark:] if l.startswith("KSWAPD ")) -
           kswapd_ticks(l for l in lines[:mark] if l.startswith("KSWAPD ")))
    return times + (busy / 100.0, ksw / 100.0)      # USER_HZ


def read_sectors(g):
    """Sectors read from the root disk so far (/proc/diskstats)."""
    for line in g.sh("cat /proc/diskstats").splitlines():
        f = line.split()
        if f[2] == "vda":
            return int(f[5])
    raise AssertionError("no vda in /proc/diskstats")


def measure(g, variant):
    debimage.wait_booted(g)
    g.sh("tar -xf /dev/vdb -C /root")
    # The untimed first build: the livepatch, and warm caches for all.
    g.sh(kbuild("livepatch", "modules"), timeout=2400)
    # As dkms.conf: the kernel references become livepatch relocations.
    g.sh("%s/livepatch/postlink/run /lib/modules/$(uname -r)/build" % SRC,
         timeout=600)
    g.sh("insmod %s/livepatch/guestmm_klp_trace.ko && insmod "
         "%s/livepatch/guestmm_klp.ko" % (SRC, SRC))
    g.sh("i=0; while [ \"$(cat /sys/kernel/livepatch/guestmm_klp/"
         "transition)\" = 1 ]; do sleep 1; i=$((i+1)); "
         "[ $i -lt 120 ] || exit 1; done", timeout=150)
    runs = {m: [] for m, _ in MODES}
    for _ in range(ROUNDS):
        for mode, ratio in MODES:
            if ratio:
                g.sh("echo %d > %smax_unmapped_ratio" % (ratio, PAR))
            g.sh("echo %d > %sunmapped_page_control" % (bool(ratio), PAR))
            s0, r0 = um_stats(g), read_sectors(g)
            el, us, sy, busy, ksw = timed_build(g)
            s1, r1 = um_stats(g), read_sectors(g)
            runs[mode].append({
                "elapsed_s": el, "user_s": us, "sys_s": sy,
                "busy_s": busy, "kswapd_s": ksw,
                "read_mib": (r1 - r0) / 2048.0,
                "passes": s1["passes"] - s0["passes"],
                "scanned_mib": (s1["pages_scanned"] -
                                s0["pages_scanned"]) / 256.0,
                "reclaimed_mib": (s1["pages_reclaimed"] -
                                  s0["pages_reclaimed"]) / 256.0,
                "pass_s": (s1["time_ns"] - s0["time_ns"]) / 1e9})
            print("KEY unmapped_compile_build mode=%s %s" % (mode, " ".join(
                "%s=%.3f" % kv for kv in sorted(runs[mode][-1].items()))),
                flush=True)
    g.sh("echo 0 > %sunmapped_page_control" % PAR)
    res = {}
    for mode, rs in runs.items():
        for k in rs[0]:
            res[mode + "_" + k] = statistics.median(r[k] for r in rs)
        busy = [r["busy_s"] for r in rs]
        res[mode + "_busy_spread_pct"] = 100.0 * (
            max(busy) - min(busy)) / statistics.median(busy)
    for mode, ratio in MODES:
        if ratio:
            res[mode + "_overhead_pct"] = 100.0 * (
                res[mode + "_elapsed_s"] / res["off_elapsed_s"] - 1)
            res[mode + "_busy_overhead_pct"] = 100.0 * (
                res[mode + "_busy_s"] / res["off_busy_s"] - 1)
            res[mode + "_cpu_overhead_pct"] = 100.0 * (
                (res[mode + "_user_s"] + res[mode + "_sys_s"]) /
                (res["off_user_s"] + res["off_sys_s"]) - 1)
            res[mode + "_kcpu_overhead_pct"] = 100.0 * (
                (res[mode + "_user_s"] + res[mode + "_sys_s"] +
                 res[mode + "_kswapd_s"]) /
                (res["off_user_s"] + res["off_sys_s"] + res["off_kswapd_s"])
                - 1)
    return res

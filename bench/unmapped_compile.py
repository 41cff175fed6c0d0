"""Unmapped page cache control: the cost to a compile workload (seed 001's kernbench)

A stock Debian 12 guest (scripts/rootfs/build.sh's image, booted from its
ext4 virtio disk; 1 GiB, 2 vCPUs) builds guestmm_balloon.ko from its
source with the kernel's own kbuild and gcc (`make -j2 M=...`, after
`make clean`; the source is the `scripts/install.sh dist` tarball unpacked
on the root disk).  That is kernbench in small: gcc, make and modpost
reading kernel headers through the page cache.  guestmm_klp (built in
the guest by the first, untimed, build) is loaded once; between builds
unmapped_page_control is switched off, or on with max_unmapped_ratio 5
or 2 (of 1 GiB: 50 or 20 MiB of unmapped cache; the policy reclaims
down to 1 % below, and node reclaim stops at vm.min_unmapped_ratio, 1 %).
At 10 the build's page cache stayed under the ratio and the policy never
ran.  The modes alternate ROUNDS times each in the same boot.
Metrics per mode: elapsed, user and system seconds of a build (medians),
the overhead in elapsed time against "off", what the policy did (passes,
pages reclaimed, its own time in __node_reclaim) and the sectors the
build read from the disk (the cache the policy gave back, read again).
Goal (issue 6): <= 1 % slower.
"""
import statistics

import debimage

GUEST = dict(mem=1024, smp=2, balloon={}, boot_timeout=600)
ROUNDS = 3
REPS = 1            # the repetitions are the ROUNDS inside one boot
SRC = None          # the unpacked source in the guest (guest_config)
PAR = "/sys/module/guestmm_klp/parameters/"
UM = "/sys/kernel/debug/guestmm_klp/unmapped"
# name, max_unmapped_ratio (None: control off)
MODES = [("off", None), ("ratio5", 5), ("ratio2", 2)]

VARIANTS = [dict(name="off-on-same-boot", guest=GUEST, needs=["guestmm_klp"])]

METRICS = [(m + "_" + k, "%s: %s" % (m, what), better)
           for m, _ in MODES for k, what, better in (
               ("elapsed_s", "build elapsed, s", "lower"),
               ("user_s", "build user CPU, s", "lower"),
               ("sys_s", "build system CPU, s", "lower"),
               ("read_mib", "read from disk per build, MiB", "lower"),
               ("passes", "policy passes per build", "info"),
               ("reclaimed_mib", "reclaimed by the policy per build, MiB",
                "info"),
               ("policy_s", "policy's time in __node_reclaim per build, s",
                "info"))] + [
    (m + "_overhead_pct", "%s: build elapsed vs off, %%" % m, "lower")
    for m, r in MODES if r]


def guest_config(abi):
    global SRC
    SRC = "/root/guestmm-%s" % debimage.dist_version()
    return debimage.debian_guest(".".join(abi.split(".")[:2]),
                                 tag="unmapped_compile")


def kbuild(dirs, target):
    return ("make -s -C /lib/modules/$(uname -r)/build M=%s "
            "GUESTMM_DIRS='%s' -j2 %s" % (SRC, dirs, target))


def timed_build(g):
    """(elapsed, user, sys) seconds of one clean build of the balloon."""
    g.sh(kbuild("modules/balloon", "clean"), timeout=300)
    out = g.sh("bash -c \"TIMEFORMAT='TIMES %%R %%U %%S'; time (%s "
               ">/dev/null)\" 2>&1" % kbuild("modules/balloon", "modules"),
               timeout=1800)
    line = [l for l in out.splitlines() if l.startswith("TIMES ")][-1]
    return tuple(float(x) for x in line.split()[1:])


def um(g):
    return {k: int(v) for k, v in (l.split() for l in
                                   g.sh("cat " + UM).splitlines())}


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
            s0, r0 = um(g), read_sectors(g)
            el, us, sy = timed_build(g)
            s1, r1 = um(g), read_sectors(g)
            runs[mode].append({
                "elapsed_s": el, "user_s": us, "sys_s": sy,
                "read_mib": (r1 - r0) / 2048.0,
                "passes": s1["passes"] - s0["passes"],
                "reclaimed_mib": (s1["pages_reclaimed"] -
                                  s0["pages_reclaimed"]) / 256.0,
                "policy_s": (s1["time_ns"] - s0["time_ns"]) / 1e9})
    g.sh("echo 0 > %sunmapped_page_control" % PAR)
    res = {}
    for mode, rs in runs.items():
        for k in rs[0]:
            res[mode + "_" + k] = statistics.median(r[k] for r in rs)
    for mode, ratio in MODES:
        if ratio:
            res[mode + "_overhead_pct"] = 100.0 * (
                res[mode + "_elapsed_s"] / res["off_elapsed_s"] - 1)
    return res

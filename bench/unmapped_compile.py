"""Unmapped page cache control: the cost to a compile workload (seed 001's kernbench)

A stock Debian 12 guest (scripts/rootfs/build.sh's image, booted from its
ext4 virtio disk; 1 GiB, 2 vCPUs) builds guestmm_balloon.ko from its
source with the kernel's own kbuild and gcc (`make -j2 M=...`, after
`make clean`; the source is the `scripts/install.sh dist` tarball unpacked
on the root disk).  That is kernbench in small: gcc, make and modpost
reading kernel headers through the page cache.  guestmm_klp (built in
the guest by the first, untimed, build) is loaded once with
max_unmapped_ratio=2 (reclaims down to 1 %, vm.min_unmapped_ratio, the
floor node reclaim stops at; at 10 the build's page cache stayed under
the ratio and the policy never ran); unmapped_page_control is switched off and on
between builds, alternating, ROUNDS times each, in the same boot.
Metrics: elapsed, user and system seconds of a build (medians per mode),
the overhead of "on" in elapsed time, and what the policy did meanwhile
(its passes and pages reclaimed).  Goal: <= 1 % slower.
"""
import statistics

import debimage

GUEST = dict(mem=1024, smp=2, balloon={}, boot_timeout=600)
ROUNDS = 5
REPS = 1            # the repetitions are the ROUNDS inside one boot
SRC = None          # the unpacked source in the guest (guest_config)
PARAM = "/sys/module/guestmm_klp/parameters/unmapped_page_control"
UM = "/sys/kernel/debug/guestmm_klp/unmapped"
RATIO = 2

VARIANTS = [dict(name="off-on-same-boot", guest=GUEST, needs=["guestmm_klp"])]

METRICS = [
    ("overhead_pct", "build elapsed, control on vs off, %", "lower"),
    ("off_elapsed_s", "control off: build elapsed, s", "lower"),
    ("on_elapsed_s", "control on: build elapsed, s", "lower"),
    ("off_user_s", "control off: build user CPU, s", "lower"),
    ("on_user_s", "control on: build user CPU, s", "lower"),
    ("off_sys_s", "control off: build system CPU, s", "lower"),
    ("on_sys_s", "control on: build system CPU, s", "lower"),
    ("on_passes", "policy passes during the 'on' builds", "info"),
    ("on_reclaimed_mib", "page cache the policy reclaimed then, MiB",
     "info"),
]


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


def measure(g, variant):
    debimage.wait_booted(g)
    g.sh("tar -xf /dev/vdb -C /root")
    # The untimed first build: the livepatch, and warm caches for all.
    g.sh(kbuild("livepatch", "modules"), timeout=2400)
    g.sh("insmod %s/livepatch/guestmm_klp_trace.ko && insmod "
         "%s/livepatch/guestmm_klp.ko max_unmapped_ratio=%d" % (SRC, SRC, RATIO))
    g.sh("i=0; while [ \"$(cat /sys/kernel/livepatch/guestmm_klp/"
         "transition)\" = 1 ]; do sleep 1; i=$((i+1)); "
         "[ $i -lt 120 ] || exit 1; done", timeout=150)
    res = {"off": [], "on": []}
    passes = reclaimed = 0
    for _ in range(ROUNDS):
        for mode in ("off", "on"):
            g.sh("echo %d > %s" % (mode == "on", PARAM))
            s0 = um(g)
            res[mode].append(timed_build(g))
            s1 = um(g)
            if mode == "on":
                passes += s1["passes"] - s0["passes"]
                reclaimed += s1["pages_reclaimed"] - s0["pages_reclaimed"]
    g.sh("echo 0 > %s" % PARAM)

    def med(mode, i):
        return statistics.median(t[i] for t in res[mode])
    return {"overhead_pct": 100.0 * (med("on", 0) / med("off", 0) - 1),
            "off_elapsed_s": med("off", 0), "on_elapsed_s": med("on", 0),
            "off_user_s": med("off", 1), "on_user_s": med("on", 1),
            "off_sys_s": med("off", 2), "on_sys_s": med("on", 2),
            "on_passes": passes, "on_reclaimed_mib": reclaimed * 4 / 1024}

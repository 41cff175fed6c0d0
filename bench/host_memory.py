"""Memory back to the host after a burst, measured from the host

The question a cloud operator asks: after a guest's burst of work, how
soon does the host get the memory back, and what does the guest pay?
A 1.5 GiB, 2-vCPU guest (one TCG thread) boots Debian's own image as
unmapped_compile does (scripts/rootfs/build.sh, its kernel, gcc and
kbuild), with free page reporting on (virtio-balloon
free-page-reporting=on) and an ext4 virtio scratch disk (/dev/vdc, made
afresh in every boot).  The modules are the host's build for the image's
kernel (the same ABI), handed in as a tar on /dev/vdd.

Workload, a burst then idle: (1) a clean build of guestmm_balloon.ko
with the image's gcc and kbuild (`make -j2 M=...`, the source from the
dist tarball), (2) a read of a 900 MiB file set (9 x 100 MiB, more than
half of RAM; written, synced and dropped from the cache before the
baseline), (3) an anonymous allocation of 400 MiB, touched and freed.
Before it QEMU's RSS is let settle (rss_base, the pre-burst baseline).
After it the host samples QEMU's RSS (smaps_rollup) and the guest's
MemFree, file cache, mapped pages and pgmajfault every 0.5 s for WATCH_S
seconds (120; GUESTMM_BENCH_WATCH_S overrides it for a quick run).  QEMU's
RSS is also sampled during the burst, from a host thread, for the plot
and the peak.  Then the same burst runs a second time: its build and read
times, major faults and pgpgin are the re-reads of what the idle phase
gave back.

Figures:
- rss_peak_mib: the burst's peak, the highest QEMU RSS from the burst's
  start to its end.  (The idle guest's RSS then still creeps up by tens
  of MiB as QEMU's TCG translation cache grows.)
- half_s, the time to halve the host working set: from the burst's end
  (the guest goes idle) to the first sample at or below halfway between
  the peak and rss_base, (peak + base) / 2; the watch's length, with
  half_reached 0, when it never gets there.
- held_10s/30s/60s_mib: QEMU's RSS above rss_base 10, 30, 60 s after the
  burst: what the burst left with the host.  A variant that keeps memory
  from reaching the host during the burst (the unmapped control) has a
  low peak and little to return; this figure compares all variants.
- returnable_mib: what the guest could give back at the end of the
  burst: MemFree + unmapped page cache above 10 % of MemTotal (unmapped
  = nr_active_file + nr_inactive_file - nr_mapped, as
  unmapped_host_return).  MemFree counts pages the host never backed (or
  had back already), so the share can stay below 100 % even when all
  was given back; returned_*_mib gives the absolute drop.
- returned_10s/30s/60s_pct: QEMU's RSS drop from the burst's peak 10, 30, 60 s
  after the burst's end, in % of returnable_mib (with a watch shorter
  than 60 s the last sample stands for the later points).
- The guest's cost: both bursts' build wall time and guest CPU busy time
  (/proc/stat, all tasks: it counts kswapd and DAMON's kdamond), major
  faults over the whole run; the second burst's read time, pgmajfault and
  pgpgin.  work_s = both builds' and both reads' wall time; the slowdown
  is work_s against stock's (TCG's speed noise is several %, so one
  boot cannot show 2 %).

Variants:
- stock: Debian's virtio_balloon, free page reporting.
- guestmm: guestmm_balloon with its defaults (chunk balloon, defrag,
  reporting); virtio_balloon is kept out from boot
  (modprobe.blacklist=virtio_balloon), as the package's modprobe.d does.
- guestmm-unmapped: guestmm_balloon + guestmm_klp_trace and guestmm_klp
  with unmapped_page_control=1 max_unmapped_ratio=10.
- guestmm-unmapped-late: as guestmm-unmapped, but the control is
  turned on only at the burst's end, when the guest goes idle (an
  operator's or an agent's switch): what comes back of a cache already
  in place.
- stock-proactive and guestmm-unmapped-proactive: stock, and guestmm
  with the unmapped control, with vm.compaction_proactiveness=90 (the
  default is 20).  Proactive compaction stops once the node's
  fragmentation score is below 100 - proactiveness, that is once 80 %
  (default) or 10 % (90) of free memory is outside whole 2 MiB blocks;
  free page reporting returns only whole blocks, so memory freed in 4 KiB
  holes after a burst stays with the host until compaction gathers it.
- damon-reclaim (6.12 only; Debian's 6.1 config lacks DAMON_RECLAIM):
  stock + /sys/module/damon_reclaim/parameters/ set before enabled=Y:
  min_age=10000000 (10 s without access; the default 120 s is the whole
  watch, so nothing would be reclaimed in it), quota_ms=100 and
  quota_sz=268435456 (at most 100 ms of CPU and 256 MiB per 1 s quota
  interval: ten times the default's CPU, which let it reclaim a burst's
  cache within the watch and bounds its cost at 10 % of one CPU),
  wmarks_high=1000, wmarks_mid=999, wmarks_low=0 (free-memory per-mille
  watermarks: active whatever the free memory, as a host-return policy
  must be; the defaults 500/400/200 turn it off while more than 50 % is
  free, which is exactly after the burst), wmarks_interval=1000000 (check
  them every second).
- memory-reclaim (6.12 only, for the comparison's sake): stock + a guest
  shell loop like WSL2's gradual mode: every second, while MemAvailable
  exceeds MemFree by more than 10 % of MemTotal (reclaimable memory
  above the same 10 % the unmapped control keeps), write 64M to the root
  cgroup's /sys/fs/cgroup/memory.reclaim.  Unlike WSL2 it does not wait
  for an idle CPU, so it also runs during the build.

Goals (report()): >= 80 % of the returnable memory back within 10 s;
half of stock's working set back in <= 1/3 of stock's time (the time
after the burst until RSS is at or below halfway between stock's peak
and the variant's own baseline); slowdown <= 2 %; less held at 60 s
(held_60s_mib) than DAMON_RECLAIM at equal or lower slowdown.
"""
import os
import statistics
import subprocess
import tempfile
import threading
import time

import debimage
import workloads
from hostreturn import rss_settled
from klplib import wait_transition

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1 << 20
WATCH_S = float(os.environ.get("GUESTMM_BENCH_WATCH_S", 120))
POLL_S = 0.5
RATIO = 10                  # % of MemTotal: the unmapped cache allowed
FILES, FILE_MIB = 9, 100    # the file set: 900 MiB of 1536
ANON_MIB = 400
SCRATCH_MIB = 1200
REPS = 1                    # one boot per variant unless --reps/REPS
SRC = None                  # the unpacked source in the guest
MNT = "/mnt/scratch"
KO = "/root/ko"
PAR = "/sys/module/guestmm_klp/parameters/"

GUEST = dict(mem=1536, smp=2, tcg_single=True, boot_timeout=900,
             balloon={"free-page-reporting": "on"})
KLP = ["guestmm_klp", "guestmm_klp_trace", "guestmm_balloon"]
# guestmm_balloon replaces virtio_balloon from boot, as the package's
# modprobe.d does: removing a bound virtio_balloon oopsed in the smoke
# run (6.12.95, vp_del_vq() from virtballoon_remove(), NULL list entry).
GMM_GUEST = dict(GUEST, append="modprobe.blacklist=virtio_balloon")

PROACTIVE = [("vm/compaction_proactiveness", 90)]

# Written in this order before enabled=Y (see the docstring for why).
DAMON = [("min_age", 10000000), ("quota_ms", 100),
         ("quota_sz", 256 * MIB), ("wmarks_interval", 1000000),
         ("wmarks_high", 1000), ("wmarks_mid", 999), ("wmarks_low", 0),
         ("enabled", "Y")]

# WSL2's gradual mode in a guest shell: 64M per second while the
# reclaimable part of MemAvailable is above RATIO % of MemTotal.
RECLAIM_LOOP = (
    "while :; do set -- $(awk '/^MemTotal/{t=$2} /^MemFree/{f=$2} "
    "/^MemAvailable/{a=$2} END{print t, f, a}' /proc/meminfo); "
    "[ $(($3 - $2)) -gt $(($1 * %d / 100)) ] && "
    "echo 64M > /sys/fs/cgroup/memory.reclaim 2>/dev/null; "
    "sleep 1; done" % RATIO)

VARIANTS = [
    dict(name="stock", guest=GUEST, balloon="virtio_balloon"),
    dict(name="guestmm", guest=GMM_GUEST, balloon="guestmm_balloon",
         needs=["guestmm_balloon"]),
    dict(name="guestmm-unmapped", guest=GMM_GUEST,
         balloon="guestmm_balloon",
         klp="unmapped_page_control=1 max_unmapped_ratio=%d" % RATIO,
         needs=KLP),
    dict(name="guestmm-unmapped-late", guest=GMM_GUEST,
         balloon="guestmm_balloon", late=True,
         klp="unmapped_page_control=0 max_unmapped_ratio=%d" % RATIO,
         needs=KLP),
    # The kernel's own compaction asked to keep 90 % of free memory in
    # whole 2 MiB blocks instead of 20 % (wmark_low = 100 - proactiveness):
    # free page reporting hands back only whole blocks.
    dict(name="stock-proactive", guest=GUEST, balloon="virtio_balloon",
         sysctl=PROACTIVE),
    dict(name="guestmm-unmapped-proactive", guest=GMM_GUEST,
         balloon="guestmm_balloon",
         klp="unmapped_page_control=1 max_unmapped_ratio=%d" % RATIO,
         sysctl=PROACTIVE, needs=KLP),
    dict(name="damon-reclaim", guest=GUEST, balloon="virtio_balloon",
         damon=DAMON, kernels=("6.12",)),
    dict(name="memory-reclaim", guest=GUEST, balloon="virtio_balloon",
         loop=RECLAIM_LOOP, kernels=("6.12",)),
]

METRICS = [
    ("rss_base_mib", "QEMU RSS before the burst, MiB", "info"),
    ("rss_peak_mib", "QEMU RSS peak, MiB", "info"),
    ("returnable_mib", "returnable at the burst's end (free + unmapped "
     "cache above 10 %), MiB", "info"),
    ("half_s", "s from the burst's end to half the burst's growth back "
     "(the watch's length if never)", "lower"),
    ("half_reached", "1 if half came back within the watch", "higher"),
    ("held_10s_mib", "RSS above the pre-burst baseline 10 s after the "
     "burst, MiB", "lower"),
    ("held_30s_mib", "... 30 s after, MiB", "lower"),
    ("held_60s_mib", "... 60 s after, MiB", "lower"),
    ("ram_base_mib", "guest RAM backed by the host before the burst "
     "(its mapping alone), MiB", "info"),
    ("ram_held_10s_mib", "guest RAM backed above that 10 s after the "
     "burst, MiB", "lower"),
    ("ram_held_60s_mib", "... 60 s after, MiB", "lower"),
    ("returned_10s_pct", "RSS drop from the burst's peak 10 s after it, "
     "% of returnable", "higher"),
    ("returned_30s_pct", "... 30 s after, %", "higher"),
    ("returned_60s_pct", "... 60 s after, %", "higher"),
    ("returned_60s_mib", "RSS drop 60 s after the burst, MiB", "higher"),
    ("rss_end_mib", "QEMU RSS at the end of the watch, MiB", "lower"),
    ("build1_s", "first build, wall s", "lower"),
    ("build2_s", "second build, wall s", "lower"),
    ("busy1_s", "guest CPU busy over the first burst, s", "lower"),
    ("busy2_s", "guest CPU busy over the second burst, s", "lower"),
    ("read1_s", "first read of the file set, s", "lower"),
    ("read2_s", "second read of the file set, s", "lower"),
    ("majflt2", "major faults in the second burst", "lower"),
    ("pgpgin2_mib", "read from disk in the second burst (pgpgin), MiB",
     "lower"),
    ("majflt_total", "major faults over both bursts and the watch",
     "lower"),
    ("work_s", "builds + reads, wall s (the slowdown's measure)",
     "lower"),
]


def guest_config(abi):
    """The Debian image of abi's series, plus a scratch disk (/dev/vdc)
    and the host's modules for this very kernel as a tar (/dev/vdd)."""
    global SRC
    SRC = "/root/guestmm-%s" % debimage.dist_version()
    keys = debimage.debian_guest(".".join(abi.split(".")[:2]),
                                 tag="host_memory")
    tmp = tempfile.mkdtemp(prefix="guestmm-host-memory.")
    scratch = os.path.join(tmp, "scratch.img")
    kotar = os.path.join(tmp, "ko.tar")
    moddir = os.path.join(TOP, "build", abi, "modules")
    subprocess.run(["tar", "-cf", kotar, "-C", moddir] +
                   sorted(f for f in os.listdir(moddir)
                          if f.endswith(".ko")), check=True)
    with open(scratch, "wb") as f:
        f.truncate(SCRATCH_MIB * MIB)
    keys["drives"] = keys["drives"] + [
        {"file": scratch}, {"file": kotar, "readonly": True}]
    return keys


def kbuild(target):
    return ("make -s -C /lib/modules/$(uname -r)/build M=%s "
            "GUESTMM_DIRS=modules/balloon -j%d %s" % (SRC, GUEST["smp"],
                                                       target))


ANON_C = r"""
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	size_t n = (size_t)atoi(argv[1]) << 20;
	char *p = malloc(n);

	if (!p)
		return 1;
	memset(p, 1, n);	/* touch every page */
	free(p);
	return 0;
}
"""


def setup(g, variant):
    """Boot-time preparation, untimed: source, scratch disk, the file
    set (written, synced, dropped), the balloon driver and the variant's
    reclaimer."""
    debimage.wait_booted(g)
    g.sh("tar -xf /dev/vdb -C /root && mkdir -p %s && tar -xf /dev/vdd "
         "-C %s" % (KO, KO))
    # lazy_*_init=0: no ext4lazyinit thread writing during the benchmark.
    g.sh("mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "
         "/dev/vdc && mkdir -p %s && mount /dev/vdc %s" % (MNT, MNT),
         timeout=300)
    g.sh("cat > /root/anon.c <<'EOF'\n%s\nEOF\n"
         "gcc -O2 -o /root/anon /root/anon.c" % ANON_C, timeout=300)
    g.sh("for i in $(seq %d); do dd if=/dev/zero of=%s/f$i bs=1M "
         "count=%d status=none; done; sync" % (FILES, MNT, FILE_MIB),
         timeout=1800)
    if variant["balloon"] == "virtio_balloon":
        g.sh("modprobe virtio_balloon")
    else:
        g.sh("insmod %s/guestmm_balloon.ko" % KO)
    drv = g.sh("for d in /sys/bus/virtio/devices/*/driver; do "
               "basename $(readlink $d); done | grep balloon").strip()
    assert drv == variant["balloon"], drv
    if variant.get("klp"):
        g.sh("insmod %s/guestmm_klp_trace.ko && insmod %s/guestmm_klp.ko "
             "%s" % (KO, KO, variant["klp"]))
        wait_transition(g, timeout=120)
    for k, v in variant.get("sysctl", ()):
        g.sh("echo %s > /proc/sys/%s" % (v, k))
    for k, v in variant.get("damon", ()):
        g.sh("echo %s > /sys/module/damon_reclaim/parameters/%s" % (v, k))
    if variant.get("loop"):
        g.sh("cat > /root/reclaim.sh <<'EOF'\n%s\nEOF\n"
             "setsid sh /root/reclaim.sh </dev/null >/dev/null 2>&1 & "
             "echo $! > /root/reclaim.pid" % variant["loop"])
    g.sh(kbuild("clean"), timeout=300)
    g.sh("sync; echo 3 > /proc/sys/vm/drop_caches")


def rss_mib(g):
    return g.qemu_memory()["Rss"] / 1024.0


def ram_mib(g):
    return g.ram_memory()["Rss"] / 1024.0


class RssSampler(threading.Thread):
    """QEMU's RSS every POLL_S s from the host (no guest involvement),
    as (host monotonic time, MiB), until stop(); and in ram, the same for
    the guest's RAM mapping alone (Guest.ram_memory())."""

    def __init__(self, g):
        super().__init__(daemon=True)
        self.g, self.samples, self.done = g, [], threading.Event()
        self.ram = []

    def run(self):
        t = time.monotonic()
        while not self.done.is_set():
            try:
                now = time.monotonic()
                self.samples.append((now, rss_mib(self.g)))
                self.ram.append((now, ram_mib(self.g)))
            except OSError:
                break                   # QEMU gone
            t += POLL_S
            self.done.wait(max(0.0, t - time.monotonic()))

    def stop(self):
        self.done.set()
        self.join()


GUEST_SAMPLE = ("grep -E '^(MemTotal|MemFree):' /proc/meminfo; "
                "grep -E '^(nr_active_file|nr_inactive_file|nr_mapped|"
                "pgmajfault|pgpgin) ' /proc/vmstat")


def counters(g):
    """MemTotal, MemFree (KiB) and the vmstat counters of GUEST_SAMPLE."""
    res = {}
    for line in g.sh(GUEST_SAMPLE).splitlines():
        k, v = line.replace(":", " ").split()[:2]
        res[k] = int(v)
    return res


def burst(g):
    """One burst: build, read, anonymous allocation.  Wall times, the
    guest's CPU busy time and the counters' deltas."""
    c0 = counters(g)
    out = g.sh("head -1 /proc/stat; "
               "bash -c \"TIMEFORMAT='BUILD %%R %%U %%S'; "
               "time (%s >/dev/null)\" 2>&1; "
               "bash -c \"TIMEFORMAT='READ %%R'; "
               "time (cat %s/f* >/dev/null)\" 2>&1; "
               "/root/anon %d; head -1 /proc/stat" %
               (kbuild("modules"), MNT, ANON_MIB), timeout=3600)
    c1 = counters(g)
    lines = out.splitlines()
    stat = [l for l in lines if l.startswith("cpu ")]
    build = [l for l in lines if l.startswith("BUILD ")][-1].split()
    read = [l for l in lines if l.startswith("READ ")][-1].split()
    return {"build_s": float(build[1]), "read_s": float(read[1]),
            "busy_s": (workloads.cpu_ticks(stat[-1])[0] -
                       workloads.cpu_ticks(stat[0])[0]) / 100.0,
            "majflt": c1["pgmajfault"] - c0["pgmajfault"],
            "pgpgin_mib": (c1["pgpgin"] - c0["pgpgin"]) / 1024.0}


def unmapped_mib(c):
    return (c["nr_active_file"] + c["nr_inactive_file"] -
            c["nr_mapped"]) * 4096 / MIB


def measure(g, variant):
    setup(g, variant)
    sampler = RssSampler(g)
    sampler.start()
    base = rss_settled(g, limit=90, quiet=5, tol_kib=4096)["Rss"] / 1024.0
    c_start = counters(g)
    t_burst = time.monotonic()
    b1 = burst(g)
    t_end = time.monotonic()
    if variant.get("late"):
        # The control turned on as the guest goes idle: what comes back of
        # a burst's cache once it is in place.
        g.sh("echo 1 > %sunmapped_page_control" % PAR)
    c_end = counters(g)
    total = c_end["MemTotal"] / 1024.0
    returnable = (c_end["MemFree"] / 1024.0 +
                  max(0.0, unmapped_mib(c_end) - total * RATIO / 100.0))
    guest = []          # (s after the burst, MemFree, file, mapped MiB,
    #                      pgmajfault)
    for i in range(1, int(WATCH_S / POLL_S) + 1):
        time.sleep(max(0.0, t_end + i * POLL_S - time.monotonic()))
        c = counters(g)
        guest.append((round(time.monotonic() - t_end, 2),
                      c["MemFree"] / 1024.0,
                      (c["nr_active_file"] + c["nr_inactive_file"]) / 256.0,
                      c["nr_mapped"] / 256.0, c["pgmajfault"]))
    t_watch = time.monotonic()
    g.sh(kbuild("clean"), timeout=300)
    b2 = burst(g)
    c_fin = counters(g)
    sampler.stop()
    if variant.get("loop") or variant.get("damon"):
        # Report what the reclaimer did, then stop it (the log says).
        g.sh("grep -H . /sys/module/damon_reclaim/parameters/* "
             "2>/dev/null; [ ! -f /root/reclaim.pid ] || "
             "kill $(cat /root/reclaim.pid); true")

    res = {"rss_base_mib": round(base), "returnable_mib": round(returnable),
           "build1_s": b1["build_s"], "build2_s": b2["build_s"],
           "busy1_s": b1["busy_s"], "busy2_s": b2["busy_s"],
           "read1_s": b1["read_s"], "read2_s": b2["read_s"],
           "majflt2": b2["majflt"], "pgpgin2_mib": round(b2["pgpgin_mib"]),
           "majflt_total": c_fin["pgmajfault"] - c_start["pgmajfault"],
           "work_s": round(b1["build_s"] + b2["build_s"] + b1["read_s"] +
                           b2["read_s"], 2)}
    # Not a metric: the time series for the plot and the .json (bench/run
    # prints and tabulates only numbers), and what figures() reads.
    res["series"] = {"burst_s": round(t_end - t_burst, 2),
                     "watch_s": round(t_watch - t_end, 2),
                     "rss": [(round(t - t_burst, 2), round(m, 1))
                             for t, m in sampler.samples],
                     "ram": [(round(t - t_burst, 2), round(m, 1))
                             for t, m in sampler.ram],
                     "guest": guest}
    refigure(res)
    return res


def refigure(res):
    """The RSS figures of a result, from its series (bench/run --rereport
    calls this again on a stored result).  t = 0 is the burst's start; the
    burst's peak is the highest RSS until the burst's end, and every
    'after' figure counts from the burst's end, when the guest goes idle.
    (The idle guest's RSS also creeps up by tens of MiB: QEMU's TCG
    translation cache grows.  So the highest RSS of the whole watch is not
    the burst's.)"""
    s = res["series"]
    end, watch = s["burst_s"], s.get("watch_s", WATCH_S)
    base = res["rss_base_mib"]
    peak = max(m for t, m in s["rss"] if 0 <= t <= end)
    half = below_s(res, (peak + base) / 2.0)
    # Not reached within the watch: the watch's length, and half_reached 0.
    res["half_s"] = round(watch, 1) if half is None else half
    res["half_reached"] = 0 if half is None else 1
    if s.get("ram"):
        # The guest's RAM alone: without QEMU's own growth (TCG's
        # translation buffer), which moves the RSS figures by hundreds
        # of MiB between boots.
        ram0 = sample_at(s["ram"], 0)
        res["ram_base_mib"] = round(ram0)
        for sec in (10, 60):
            res["ram_held_%ds_mib" % sec] = round(
                sample_at(s["ram"], end + min(sec, watch)) - ram0)
    res["rss_peak_mib"] = round(peak)
    res["rss_end_mib"] = round(sample_at(s["rss"], end + watch))
    res["returned_60s_mib"] = round(
        peak - sample_at(s["rss"], end + min(60, watch)))
    for sec in (10, 30, 60):
        rss = sample_at(s["rss"], end + min(sec, watch))
        res["returned_%ds_pct" % sec] = round(
            100.0 * (peak - rss) / max(res["returnable_mib"], 1.0), 1)
        res["held_%ds_mib" % sec] = round(rss - base)


def sample_at(points, t):
    """The MiB of the last (t, MiB) sample at or before t (the first
    sample if none is)."""
    before = [m for when, m in points if when <= t]
    return before[-1] if before else points[0][1]


def med(data, name, key):
    return statistics.median(r[key] for r in data[name])


def below_s(res, level):
    """Seconds from the burst's end until QEMU's RSS is at or below
    level MiB (0 if it already is), or None within the watch."""
    sr = res["series"]
    end, watch = sr["burst_s"], sr.get("watch_s", WATCH_S)
    after = [t for t, m in sr["rss"] if end <= t <= end + watch and
             m <= level]
    return round(after[0] - end, 1) if after else None


def goals(abi, names, data):
    """Markdown lines: which of the benchmark's goals each variant meets.
    'Half the working set' is stock's: the time after the burst until a
    variant's RSS is at or below halfway between stock's peak and its own
    baseline, so that a variant whose burst never reached the host counts
    as having halved it at once; stock's own time is half_s, the watch's
    length when it never got there.  'More returned than DAMON_RECLAIM'
    compares held_60s_mib: what the host still holds for the guest 60 s
    after the burst, lower is more memory with the host."""
    lines = ["Goals on %s (first repetition for times; stock is the "
             "baseline):" % abi, ""]
    damon = "damon-reclaim" if "damon-reclaim" in names else None
    sb = med(data, "stock", "work_s") if "stock" in names else None
    stock = data["stock"][0] if "stock" in names else None
    for n in names:
        slow = 100.0 * (med(data, n, "work_s") / sb - 1) if sb else None
        g = ["10 s: %.1f %% of returnable back (goal >= 80 %%): %s" % (
            med(data, n, "returned_10s_pct"),
            "met" if med(data, n, "returned_10s_pct") >= 80 else "not met")]
        if n == "stock":
            g.append("half its working set back %s" % (
                "in %.1f s" % stock["half_s"] if stock["half_reached"]
                else "not within the %.0f s watch" % stock["half_s"]))
            lines.append("- `%s`: %s" % (n, "; ".join(g)))
            continue
        if stock:
            r = data[n][0]
            t = below_s(r, (stock["rss_peak_mib"] + r["rss_base_mib"]) / 2.0)
            hs = stock["half_s"]
            g.append("half of stock's working set back %s, stock %s%.0f s "
                     "(goal <= 1/3 of stock's): %s" % (
                         "in %.1f s" % t if t is not None else "never",
                         "" if stock["half_reached"] else ">= ", hs,
                         "met" if t is not None and t <= hs / 3.0
                         else "not met"))
            g.append("slowdown %+.1f %% in builds + reads (goal <= 2 %%): "
                     "%s" % (slow, "met" if slow <= 2 else "not met"))
        if damon and n != damon and sb:
            ds = 100.0 * (med(data, damon, "work_s") / sb - 1)
            hn = med(data, n, "held_60s_mib")
            hd = med(data, damon, "held_60s_mib")
            g.append("held at 60 s %d MiB vs DAMON_RECLAIM's %d at "
                     "slowdown %+.1f %% vs %+.1f %%: %s" % (
                         hn, hd, slow, ds,
                         "met" if hn < hd and slow <= ds else "not met"))
        elif not damon:
            g.append("vs DAMON_RECLAIM: not measured (not run on this "
                     "kernel or not selected)")
        lines.append("- `%s`: %s" % (n, "; ".join(g)))
    return lines


def plot_rss(names, data):
    """Host RSS over time, all variants in one plot (first repetition),
    t = 0 at the burst's start; returns the PNG's name or None."""
    return plot_lines("host_memory_rss",
                      "QEMU RSS, burst from t = 0 (first repetition)",
                      [(n, data[n][0]["series"]["rss"]) for n in names])


def plot_lines(stem, title, lines):
    """One plot, MiB over s, a line per (title, [(t, MiB)]) in lines, as
    stem.png beside the report; returns the PNG's name or None."""
    out = os.environ["GUESTMM_BENCH_OUT"]      # set by bench/run
    dat = os.path.join(out, stem + ".dat")
    with open(dat, "w") as f:
        for _, points in lines:
            for t, m in points:
                f.write("%s %s\n" % (t, m))
            f.write("\n\n")
    png = stem + ".png"
    gp = ['set terminal pngcairo size 900,500 font ",9"',
          'set output "%s"' % os.path.join(out, png),
          'set title "%s"' % title,
          'set xlabel "s"', 'set ylabel "MiB"', "set grid",
          "set termoption noenhanced", "set key outside right"]
    gp.append("plot " + ", ".join(
        '"%s" index %d using 1:2 with lines title "%s"' % (dat, i, n)
        for i, (n, _) in enumerate(lines)))
    return gnuplot(gp, png)


def gnuplot(script, png):
    """Run a gnuplot script; png, or None when gnuplot is missing or fails."""
    try:
        subprocess.run(["gnuplot"], input="\n".join(script), text=True,
                       check=True, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return None
    return png


def report(abi, variants, data):
    names = [v["name"] for v in variants]
    lines = goals(abi, names, data)
    png = plot_rss(names, data)
    lines += [""]
    if png:
        lines.append("![host RSS over time](%s)" % png)
    lines.append("The RSS and guest time series (MemFree, file, mapped "
                 "MiB, pgmajfault every %.1f s) are in host_memory.json "
                 "(`series`)." % POLL_S)
    if WATCH_S < 60:
        lines.append("Watch shortened to %.0f s (GUESTMM_BENCH_WATCH_S): "
                     "the 30 and 60 s figures are the last sample's." %
                     WATCH_S)
    return lines

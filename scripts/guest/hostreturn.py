# SPDX-License-Identifier: GPL-2.0
"""What the host gets back when it lowers the balloon target: QEMU's Rss
and AnonHugePages (/proc/PID/smaps_rollup) before and after an inflate,
in a guest prepared the same way for every driver.  Shared by
tests/cases/balloon_host_return*.py (which assert) and
bench/balloon_host_return*.py (which measure, bench_spec()).

The guest first touches nearly all of its free memory once and frees it,
so the host backs it (with huge pages: QEMU madvises guest RAM).  Then:
- fragmented: `frag` holds FRAG_MIB MiB with every other page freed, so
  free memory is scattered 4 KiB holes in blocks the guest partly uses,
  plus what free 2 MiB blocks are left;
- unfragmented: `frag` holds FRAG_MIB / 2 MiB in whole pages.
With free page reporting on, the guest waits until reporting has handed
the free 2 MiB blocks to the host (the QEMU's Rss stops falling) before
the inflate: those blocks are then memory the host already has, and a
balloon that takes them gives the host nothing."""
import time

from workloads import (FRAG_KEEP_ALL, MIB, cpu_ticks, frag_start, frag_stop,
                       free_huge_blocks)

DBG = "/sys/kernel/debug/guestmm_balloon"

INFLATE_MIB = 256
FRAG_MIB = 800
REPORT_WAIT_S = 6
# guestmm's counters of where its pages came from (debugfs).
SOURCES = ("chunk_blocks_backed", "chunk_blocks_unbacked",
           "chunk_blocks_made", "chunk_make_moved", "stray_inflated",
           "chunk_fallback")


def rss_settled(g, limit=60, quiet=4.0, tol_kib=2048):
    """QEMU's smaps figures once Rss has not moved by more than tol_kib for
    `quiet` seconds (free page reporting runs 2 s after a free), or after
    `limit` seconds."""
    deadline = time.monotonic() + limit * getattr(g, "time_scale", 1)
    last = g.qemu_memory()
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        m = g.qemu_memory()
        if abs(m["Rss"] - last["Rss"]) > tol_kib:
            last, since = m, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return m
    return g.qemu_memory()


def prepare(g, fragmented):
    """Touch the guest's free memory once, then lay out free memory as the
    docstring says.  Proactive compaction is off while frag holds its
    pages, so that kcompactd does not rebuild free blocks out of the holes
    in some runs and not in others."""
    g.sh("echo 0 > /proc/sys/vm/compaction_proactiveness; "
         "echo 3 > /proc/sys/vm/drop_caches")
    avail = g.meminfo()["MemAvailable"] // 1024
    frag_start(g, max(64, avail - 48), stride=FRAG_KEEP_ALL)
    frag_stop(g)
    if fragmented:
        frag_start(g, FRAG_MIB, stride=2)
    else:
        frag_start(g, FRAG_MIB // 2, stride=FRAG_KEEP_ALL)


def guestmm_sources(g):
    """guestmm's page-source counters, or {} for another driver."""
    if "guestmm_balloon" not in g.sh("cat /proc/modules"):
        return {}
    st = dict(line.split() for line in
              g.sh("cat %s/state" % DBG).splitlines())
    return {k: int(st.get(k, 0)) for k in SOURCES}


def inflate(g, load, reporting, inflate_mib=INFLATE_MIB):
    """Load the driver (a shell command, or "" when it is loaded at boot),
    inflate by inflate_mib and return the host's figures: rss_freed_mib,
    thp_lost_mib, per-MiB ratios, the inflate's MiB/s, and the guest's
    free 2 MiB blocks before it."""
    if load:
        g.sh(load)
    if reporting:
        # Reporting starts 2 s after the driver registers, and takes a
        # few passes over the free lists.
        time.sleep(REPORT_WAIT_S)
        m0 = rss_settled(g)
    else:
        m0 = g.qemu_memory()
    free2m = free_huge_blocks(g)
    target = g.mem * MIB - inflate_mib * MIB
    cpu0 = g.sh("head -1 /proc/stat")
    t0 = time.monotonic()
    g.balloon(target)
    g.wait_balloon(target, timeout=600, poll=0.05)
    secs = time.monotonic() - t0
    cpu1 = g.sh("head -1 /proc/stat")
    if reporting:
        time.sleep(REPORT_WAIT_S)
        m1 = rss_settled(g)
    else:
        time.sleep(1)
        m1 = g.qemu_memory()
    rss = (m0["Rss"] - m1["Rss"]) / 1024.0
    thp = (m0["AnonHugePages"] - m1["AnonHugePages"]) / 1024.0
    res = dict(rss_freed_mib=rss, thp_lost_mib=thp,
               rss_per_ballooned=rss / inflate_mib,
               thp_lost_per_freed=thp / rss if rss > 1 else 0.0,
               inflate_mib_s=inflate_mib / secs, free_2m_before=free2m,
               guest_cpu_s=(cpu_ticks(cpu1)[0] - cpu_ticks(cpu0)[0]) / 100.0,
               rss_before_mib=m0["Rss"] / 1024.0,
               rss_after_mib=m1["Rss"] / 1024.0)
    res.update(guestmm_sources(g))
    return res


def deflate_all(g):
    g.balloon(g.mem * MIB)
    g.wait_balloon(g.mem * MIB, timeout=300)


def show(tag, res):
    print("KEY host_return %s %s" % (tag, " ".join(
        "%s=%s" % (k, ("%.2f" % v) if isinstance(v, float) else v)
        for k, v in sorted(res.items()))))
    return res


# ---- bench/balloon_host_return*.py: one cell of the matrix each ----

METRICS = [
    ("rss_per_ballooned", "host Rss freed per MiB ballooned", "higher"),
    ("thp_lost_per_freed", "host THP MiB lost per MiB freed", "lower"),
    ("inflate_mib_s", "inflate throughput, MiB/s", "higher"),
    ("rss_freed_mib", "host Rss freed, MiB", "higher"),
    ("thp_lost_mib", "host AnonHugePages lost, MiB", "lower"),
    ("guest_cpu_s", "guest CPU busy during the inflate, s (both vCPUs)",
     "lower"),
    ("free_2m_before", "free 2 MiB blocks in the guest before the inflate",
     "info"),
    ("chunk_blocks_backed", "guestmm: free blocks the host backed", "info"),
    ("chunk_blocks_made", "guestmm: blocks made", "info"),
    ("chunk_make_moved", "guestmm: pages migrated to make them", "info"),
    ("stray_inflated", "guestmm: 4 KiB strays", "info"),
    ("chunk_blocks_unbacked", "guestmm: free blocks the host did not back",
     "info"),
]

# Every driver is loaded after prepare(), as in the cases.
DRIVERS = (("stock", "modprobe virtio_balloon", []),
           ("guestmm", "modprobe guestmm_balloon", ["guestmm_balloon"]),
           ("guestmm-chunk0", "modprobe guestmm_balloon chunk_order=0",
            ["guestmm_balloon"]))


def bench_spec(fragmented, reporting):
    """(VARIANTS, METRICS, measure) of the cell {fragmented} x {reporting}
    of bench/balloon_host_return*.py: a 256 MiB inflate, and the QEMU
    process's Rss and AnonHugePages before and after it, for stock (the
    baseline), guestmm's default (2 MiB chunks, the host-return rule of
    modules/balloon/source.c) and chunk_order=0, each in a fresh 1 GiB
    guest.  Goals: Rss freed per MiB ballooned at least stock's, host THP
    lost at most 1.1 MiB per MiB freed, inflate at least 1.5x stock's."""
    balloon = {"free-page-reporting": "on"} if reporting else {}
    variants = [dict(name=name, load=load,
                     guest=dict(mem=1024, smp=2, balloon=balloon, mods=[]),
                     needs=needs)
                for name, load, needs in DRIVERS]

    def measure(g, variant):
        prepare(g, fragmented)
        res = inflate(g, variant["load"], reporting)
        for k, _, _ in METRICS:
            res.setdefault(k, 0)
        return res
    return variants, METRICS, measure


__all__ = ["prepare", "inflate", "deflate_all", "show", "rss_settled",
           "bench_spec", "INFLATE_MIB", "FRAG_MIB", "DBG", "frag_stop"]

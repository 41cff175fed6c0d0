"""Balloon chunks: host huge pages lost per MiB inflated (issue 4)

A 1 GiB guest first touches nearly all of its RAM, so the host backs it
with transparent huge pages (QEMU madvises guest RAM; host THP must be
"always" or "madvise").  A filler then holds 500 MiB with every other
4 KiB page freed: the guest's free memory is a mix of scattered 4 KiB
holes and free 2 MiB blocks.  The host inflates the balloon by 256 MiB
and we read the QEMU process's AnonHugePages and Rss (smaps_rollup)
before and after.  Stock virtio_balloon (and chunk_order=0) take the
4 KiB holes and split a host huge page for every 4 KiB they free;
chunk_order=9 takes whole aligned 2 MiB blocks and frees whole huge
pages.  Goal: with chunk_order=9, THP memory lost ~= RSS freed (>= 90 %
of the inflated memory leaves as whole huge pages).
"""
import time

from workloads import frag_start, frag_stop

GUEST = dict(mem=1024, smp=2, balloon={})
INFLATE_MIB = 256
HOLD_MIB = 500
MIB = 1 << 20

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"])),
    dict(name="guestmm-chunk0", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon"]),
    dict(name="guestmm-chunk9", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9",
         needs=["guestmm_balloon"]),
]

METRICS = [
    ("thp_lost_mib", "host AnonHugePages lost, MiB", "lower"),
    ("rss_freed_mib", "host Rss freed, MiB", "higher"),
    ("thp_lost_per_freed", "host THP MiB lost per MiB freed", "lower"),
    ("whole_huge_pct", "inflated memory that left as whole huge pages, %",
     "higher"),
    ("inflate_mib_s", "inflate throughput, MiB/s", "higher"),
]


def measure(g, variant):
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    frag_start(g, max(64, g.meminfo()["MemAvailable"] // 1024 - 64))
    frag_stop(g)
    frag_start(g, HOLD_MIB)
    if variant.get("load"):
        g.sh(variant["load"])
    m0 = g.qemu_memory()
    target = g.mem * MIB - INFLATE_MIB * MIB
    t0 = time.monotonic()
    g.balloon(target)
    g.wait_balloon(target, timeout=600, poll=0.05)
    secs = time.monotonic() - t0
    time.sleep(1)
    m1 = g.qemu_memory()
    thp = (m0["AnonHugePages"] - m1["AnonHugePages"]) / 1024.0
    rss = (m0["Rss"] - m1["Rss"]) / 1024.0
    # Freed memory that went as whole huge pages: at most what was freed,
    # and THP lost beyond the freed memory is splitting.
    whole = max(0.0, min(rss, 2 * rss - thp))
    return {
        "thp_lost_mib": thp,
        "rss_freed_mib": rss,
        "thp_lost_per_freed": thp / rss if rss > 0 else 0.0,
        "whole_huge_pct": 100.0 * whole / INFLATE_MIB,
        "inflate_mib_s": INFLATE_MIB / secs,
    }

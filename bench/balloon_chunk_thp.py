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

The -frag variants inflate in a fragmented guest instead: the filler
spans all but 64 MiB of the available memory and keeps one page in 32
(as balloon_chunk_fragmented), so free memory is plentiful but almost no
2 MiB block is free (free_2m_before); chunk_order=9 must make its blocks
(chunk_make_pages, default 64: each migrates the 16 pages in use).
Proactive compaction is off in these guests, so that it does not rebuild
free blocks under the balloon in some repetitions and not in others.
"""
import time

from workloads import frag_start, frag_stop, free_huge_blocks

GUEST = dict(mem=1024, smp=2, balloon={})
INFLATE_MIB = 256
HOLD_MIB = 500
KEEP_STRIDE = 32          # -frag: frag keeps one page in 32
MIB = 1 << 20

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"])),
    dict(name="guestmm-chunk0", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon"]),
    dict(name="guestmm-chunk9", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9",
         needs=["guestmm_balloon"]),
    dict(name="stock-frag", guest=dict(GUEST, mods=["virtio_balloon"]),
         fragmented=True),
    dict(name="guestmm-chunk9-frag", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9", fragmented=True,
         needs=["guestmm_balloon"]),
]

METRICS = [
    ("thp_lost_mib", "host AnonHugePages lost, MiB", "lower"),
    ("rss_freed_mib", "host Rss freed, MiB", "higher"),
    ("thp_lost_per_freed", "host THP MiB lost per MiB freed", "lower"),
    ("whole_huge_pct", "inflated memory that left as whole huge pages, %",
     "higher"),
    ("inflate_mib_s", "inflate throughput, MiB/s", "higher"),
    ("free_2m_before", "free 2 MiB blocks in the guest before the inflate",
     "info"),
    ("thp_lost_per_inflated", "host THP MiB lost per MiB inflated", "lower"),
    ("blocks_free", "guestmm: free 2 MiB blocks the balloon took", "info"),
    ("blocks_made", "guestmm: 2 MiB blocks the balloon made", "info"),
    ("stray_pages", "guestmm: 4 KiB pages that went as strays", "info"),
    ("fallback_steps", "guestmm: steps that found no block to take or make",
     "info"),
    ("make_failed", "guestmm: blocks it failed to make", "info"),
]
DBG = "/sys/kernel/debug/guestmm_balloon"


def balloon_counts(g):
    """guestmm's chunk counters and strays; 0 for stock."""
    if "guestmm_balloon" not in g.sh("cat /proc/modules"):
        return dict(blocks_free=0, blocks_made=0, stray_pages=0,
                    fallback_steps=0, make_failed=0)
    out = g.sh("cd %s && cat chunk_blocks_inflated chunk_blocks_made "
               "chunk_fallback chunk_make_failed && "
               "sed -n 's/^stray_pages //p' state" % DBG).split()
    inflated, made, fallback, failed, strays = (int(x) for x in out)
    return dict(blocks_free=inflated - made, blocks_made=made,
                stray_pages=strays, fallback_steps=fallback,
                make_failed=failed)


def measure(g, variant):
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    frag_start(g, max(64, g.meminfo()["MemAvailable"] // 1024 - 64))
    frag_stop(g)
    if variant.get("fragmented"):
        g.sh("echo 0 > /proc/sys/vm/compaction_proactiveness")
        frag_start(g, max(64, g.meminfo()["MemAvailable"] // 1024 - 64),
                   stride=KEEP_STRIDE, keep=True)
    else:
        frag_start(g, HOLD_MIB)
    free2m = free_huge_blocks(g)
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
        "free_2m_before": free2m,
        "thp_lost_per_inflated": thp / INFLATE_MIB,
        **balloon_counts(g),
    }

"""Unmapped page cache control: memory back to the host after a read (seed 001)

Seed 001's point measured from the host.  A 1 GiB TCG guest with an ext4
virtio disk and guestmm_balloon doing free page reporting (QEMU
virtio-balloon free-page-reporting=on, the kernel's 2 s report delay).
guestmm_klp is loaded in every variant; only unmapped_page_control
differs (max_unmapped_ratio=10).  A 600 MiB file is written, synced and
dropped from the cache; the variant is loaded and QEMU's RSS is let
settle (the dropped pages are reported back first: rss_base).  The guest
then reads the file once (cat > /dev/null) and idles.  QEMU's RSS is
taken right after the read (rss_peak) and every 0.5 s for 30 s.

The excess is the guest's unmapped page cache above the ratio at the end
of the read, from /proc/vmstat: nr_active_file + nr_inactive_file -
nr_mapped, minus 10 % of MemTotal.  The control should reclaim it, and
free page reporting hand it back to the host: QEMU's RSS falls.
returned_10s_pct is the RSS drop from rss_peak after 10 s in % of that
excess; seconds_to_80pct is when the drop first reached 80 % of it (30 =
never within 30 s).  An excess under NOISE_MIB (QEMU's RSS moves that
much on its own) counts as nothing left to return: 100 %, 0 s.  Goal:
>= 80 % within 10 s with the control on; with it off nothing
reclaims the cache, so little returns.
kswapd reclaims during the read already, and the read reuses the pages
it frees (they are still backed by the host), so with the control on the
cache never grows much above the ratio: excess_mib is ~0 and nothing is
left to return, the host never gave the memory.  The host-side measure
that covers both cases starts from the excess the read would leave if
nothing reclaimed, nominal_excess_mib = unmapped cache before the read +
600 MiB - 10 % of MemTotal, and counts the part of it QEMU still holds:
rss_held_10s_mib = RSS 10 s after the read - rss_base - the room the
ratio left before the read (10 % of MemTotal - unmapped cache before),
and gone_10s_pct = 100 * (1 - held / nominal excess), returned or never
taken.  Goal read as: gone_10s_pct >= 80 with the control on.

control-late turns the control on right after the read (before the first
sample), with the cache above the ratio in place: it times the way back
(kswapd reclaims, free page reporting returns) that control-on avoids.
"""
import time

from hostreturn import rss_settled

MIB = 1 << 20
BIG_MIB = 600
RATIO = 10
WATCH_S = 30
POLL_S = 0.5
NOISE_MIB = 16

GUEST = dict(mem=1024, smp=2, tcg_single=True, disk_mb=800,
             balloon={"free-page-reporting": "on"}, mods=["guestmm_balloon"])
NEEDS = ["guestmm_klp", "guestmm_balloon"]

VARIANTS = [
    dict(name="control-off", guest=GUEST,
         load="modprobe guestmm_klp", needs=NEEDS),
    dict(name="control-on", guest=GUEST,
         load="modprobe guestmm_klp unmapped_page_control=1 "
              "max_unmapped_ratio=%d" % RATIO, needs=NEEDS),
    dict(name="control-late", guest=GUEST,
         load="modprobe guestmm_klp max_unmapped_ratio=%d" % RATIO,
         late="echo 1 > /sys/module/guestmm_klp/parameters/"
              "unmapped_page_control", needs=NEEDS),
]

METRICS = [
    ("excess_mib", "unmapped cache above the ratio after the read, MiB",
     "info"),
    ("rss_returned_10s_mib", "QEMU RSS drop from peak after 10 s, MiB",
     "higher"),
    ("returned_10s_pct", "... in % of the excess", "higher"),
    ("rss_returned_30s_mib", "QEMU RSS drop from peak after 30 s, MiB",
     "higher"),
    ("seconds_to_80pct", "s until 80 % of the excess returned (30 = never)",
     "lower"),
    ("nominal_excess_mib", "unmapped cache the read would leave above the "
     "ratio without reclaim, MiB", "info"),
    ("rss_held_10s_mib", "host RSS still held for it 10 s after, MiB",
     "lower"),
    ("gone_10s_pct", "nominal excess returned or never taken at 10 s, %",
     "higher"),
    ("rss_read_rise_mib", "QEMU RSS rise over the read (peak - base), MiB",
     "lower"),
    ("read_s", "600 MiB read, s", "lower"),
    ("reported_mib", "guestmm_balloon reported in the 30 s, MiB", "info"),
]
DBG = "/sys/kernel/debug/guestmm_balloon"


def rss_mib(g):
    return g.qemu_memory()["Rss"] / 1024.0


def reported(g):
    return int(g.sh("cat %s/reported_pages" % DBG)) * 4096 // MIB


def unmapped_mib(vm):
    return (vm["nr_active_file"] + vm["nr_inactive_file"] -
            vm["nr_mapped"]) * 4096 / MIB


def measure(g, variant):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % BIG_MIB, timeout=900)
    g.sh(variant["load"])
    base = rss_settled(g, limit=60, quiet=4, tol_kib=4096)["Rss"] / 1024.0
    total_mib = g.meminfo()["MemTotal"] / 1024.0
    allowance = total_mib * RATIO / 100.0
    before = unmapped_mib(g.vmstat())
    rep0 = reported(g)
    t0 = time.monotonic()
    g.sh("cat /mnt/big > /dev/null", timeout=900)
    end = time.monotonic()
    peak = rss_mib(g)
    vm = g.vmstat()
    excess = unmapped_mib(vm) - allowance
    if variant.get("late"):
        g.sh(variant["late"])
    samples = []                        # (seconds after the read, drop)
    for i in range(1, int(WATCH_S / POLL_S) + 1):
        time.sleep(max(0.0, end + i * POLL_S - time.monotonic()))
        samples.append((i * POLL_S, peak - rss_mib(g)))

    ret10 = dict(samples)[10.0]
    if excess < NOISE_MIB:
        pct, t80 = 100.0, 0.0
    else:
        pct = round(100.0 * ret10 / excess, 1)
        t80 = next((t for t, d in samples if d >= 0.8 * excess), WATCH_S)
    nominal = before + BIG_MIB - allowance
    held = max(0.0, peak - ret10 - base - max(0.0, allowance - before))
    return {
        "excess_mib": round(excess),
        "rss_returned_10s_mib": round(ret10),
        "returned_10s_pct": pct,
        "rss_returned_30s_mib": round(samples[-1][1]),
        "seconds_to_80pct": t80,
        "nominal_excess_mib": round(nominal),
        "rss_held_10s_mib": round(held),
        "gone_10s_pct": round(100.0 * (1 - held / nominal), 1),
        "rss_read_rise_mib": round(peak - base),
        "read_s": round(end - t0, 1),
        "reported_mib": reported(g) - rep0,
    }

"""The unmapped page cache policy never writes a dirty page itself and
never drops one.  (a) Dirty data below the ratio, written after a stream
read: the policy reclaims the clean cache around it and nr_written does
not move, nr_dirty stays.  (b) Dirty data above the ratio (the flusher
held off by the dirty sysctls): the policy reclaims all the clean cache,
meets the dirty pages (skipped_dirty), wakes the flusher threads
(flusher_wakeups) and ends its passes on what it could take
(stop_exhausted/stop_budget), backing off while nothing is left to take;
reclaim itself writes nothing (nr_vmscan_write), and any writeback is the
flusher's, nudged by the policy (writeback reason "vmscan";
docs/livepatch.md)."""
import re
import time

from klplib import modprobe_klp, um_stats

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=800, tcg_single=True)
KERNELS = ("6.1", "6.12")
# Beside another light case (tests/run -j): every assertion compares the
# guest's own counters, none a host-time bound.
LIGHT = True
TIMEOUT = 1800

TR = "/sys/kernel/tracing"
RATIO = 10
BIG_MIB = 400
SMALL_DIRTY_MIB = 40    # below the ratio (about 100 MiB)
BIG_DIRTY_MIB = 150     # above it: the policy cannot get below the ratio


def deltas(s0, s1, keys):
    return {k: s1[k] - s0[k] for k in keys}


def run(g):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % BIG_MIB, timeout=900)
    # Keep the kernel's own writeback away: no periodic flush, no
    # background flush below 90 % dirty, no expiry within the test.
    g.sh("cd /proc/sys/vm && echo 90 > dirty_background_ratio && "
         "echo 95 > dirty_ratio && echo 360000 > dirty_expire_centisecs && "
         "echo 0 > dirty_writeback_centisecs")
    g.sh("echo 1 > %s/events/writeback/writeback_start/enable" % TR)
    modprobe_klp(g, "unmapped_page_control=1 "
         "max_unmapped_ratio=%d" % RATIO)
    keys = ("passes", "pages_reclaimed", "stop_target", "stop_exhausted",
            "stop_budget", "backoffs", "skipped_dirty", "flusher_wakeups")

    # (a) clean stream first, dirty data below the ratio after it.
    vm0, s0 = g.vmstat(), um_stats(g)
    g.sh("dd if=/mnt/big of=/dev/null bs=1M 2>&1", timeout=900)
    g.sh("dd if=/dev/zero of=/mnt/small bs=1M count=%d 2>&1" %
         SMALL_DIRTY_MIB, timeout=600)
    time.sleep(12)      # two timer periods
    vm1, s1 = g.vmstat(), um_stats(g)
    d = deltas(s0, s1, keys)
    print("KEY klp_unmapped_dirty phase=a dirty=%d written_delta=%d "
          "vmscan_write=%d unmapped=%d high=%d %s" % (
              vm1["nr_dirty"], vm1["nr_written"] - vm0["nr_written"],
              vm1["nr_vmscan_write"] - vm0["nr_vmscan_write"],
              s1["node0_unmapped"], s1["node0_high"],
              " ".join("%s=%d" % kv for kv in sorted(d.items()))))
    assert d["pages_reclaimed"] > BIG_MIB * 256 // 2, d
    assert vm1["nr_dirty"] >= 0.95 * SMALL_DIRTY_MIB * 256, vm1["nr_dirty"]
    assert vm1["nr_written"] - vm0["nr_written"] <= 64, (vm0, vm1)
    assert s1["node0_unmapped"] <= s1["node0_high"], s1

    # (b) dirty data above the ratio, then a clean stream.  The policy
    # may wake the flusher as soon as it meets the dirty pages, so what
    # was dirtied is counted by nr_dirtied, from before the write.
    g.sh("sync; echo 3 > /proc/sys/vm/drop_caches; echo > %s/trace" % TR)
    vm0, s0 = g.vmstat(), um_stats(g)
    g.sh("dd if=/dev/zero of=/mnt/dirty bs=1M count=%d 2>&1" % BIG_DIRTY_MIB,
         timeout=600)
    vmd = g.vmstat()
    g.sh("dd if=/mnt/big of=/dev/null bs=1M 2>&1", timeout=900)
    time.sleep(12)
    vm1, s1 = g.vmstat(), um_stats(g)
    d = deltas(s0, s1, keys)
    reasons = sorted(set(re.findall(r"writeback_start: .*reason=(\w+)",
                                    g.sh("cat %s/trace" % TR))))
    print("KEY klp_unmapped_dirty phase=b dirtied=%d dirty_after_write=%d "
          "dirty_after=%d written_delta=%d vmscan_write=%d wb_reasons=%s "
          "unmapped=%d high=%d %s" % (
              vm1["nr_dirtied"] - vm0["nr_dirtied"], vmd["nr_dirty"],
              vm1["nr_dirty"], vm1["nr_written"] - vm0["nr_written"],
              vm1["nr_vmscan_write"] - vm0["nr_vmscan_write"],
              ",".join(reasons) or "none", s1["node0_unmapped"],
              s1["node0_high"],
              " ".join("%s=%d" % kv for kv in sorted(d.items()))))
    assert vm1["nr_dirtied"] - vm0["nr_dirtied"] >= \
        0.95 * BIG_DIRTY_MIB * 256, (vm0["nr_dirtied"], vm1["nr_dirtied"])
    assert d["passes"] > 0 and d["pages_reclaimed"] > BIG_MIB * 256 // 2, d
    # The policy met the dirty pages, left them and woke the flusher.
    assert d["skipped_dirty"] > 0 and d["flusher_wakeups"] >= 1, d
    assert d["stop_exhausted"] + d["stop_budget"] >= 1, d
    # Reclaim never wrote a page itself (may_writepage=0).
    assert vm1["nr_vmscan_write"] == vm0["nr_vmscan_write"], (vm0, vm1)
    # Whatever was written, the flusher wrote, woken by reclaim.
    assert set(reasons) <= {"vmscan"}, reasons
    if vm1["nr_dirty"] >= 0.95 * BIG_DIRTY_MIB * 256:
        # Nothing written: the dirty data stays, above the ratio, and
        # the policy backed off from it.
        assert d["backoffs"] >= 1, d
        assert s1["node0_unmapped"] > s1["node0_high"], s1
    g.sh("sync")

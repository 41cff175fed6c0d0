# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon tells the host about balloon page migrations in batches (migrate_batch=256): far fewer messages than migrations, nothing left queued afterwards, host and guest agree on the balloon's size at every step; migrate_batch=1 is stock's two messages per migration; deflating everything leaves MemTotal and `actual` exact."""
import time

from balloonlib import MIB, state
from workloads import scattered_inflate

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
TIMEOUT = 900
LIGHT = True
PARAM = "/sys/module/guestmm_balloon/parameters/migrate_batch"


def compact_round(g, inflate_mib):
    """Scatter inflate_mib over fragmented memory, compact, and return the
    migrations and host messages it took, once the last batch is out."""
    scattered_inflate(g, inflate_mib, frag_mib=700)
    s0 = state(g)
    for _ in range(2):
        g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    time.sleep(0.5)             # > GMB_MIG_FLUSH_MS: the last batch is out
    s1 = state(g)
    d = {k: s1[k] - s0[k] for k in ("migrated", "host_msgs_inflate",
                                     "host_msgs_deflate", "migrate_batches",
                                     "migrate_collisions")}
    # Nothing waits in the queues, and the host has been told of exactly
    # the pages the balloon holds.
    assert s1["migrate_queued_in"] == 0 and s1["migrate_queued_out"] == 0, s1
    assert s1["host_told_in_pages"] - s1["host_told_out_pages"] == \
        s1["num_pages"], s1
    assert g.query_balloon() == g.mem * MIB - inflate_mib * MIB
    return d


def retry_layout(g, inflate_mib, d):
    """Compaction moves pages upwards only: when the balloon landed high
    (about one boot in three) few move.  Deflate and try a fresh layout."""
    for _ in range(2):
        if d["migrated"] >= 500:
            break
        print("KEY balloon_migrate_batched retry migrated=%d" % d["migrated"])
        g.balloon(g.mem * MIB)
        g.wait_balloon(g.mem * MIB, timeout=120)
        d = compact_round(g, inflate_mib)
    return d


def run(g):
    ram = g.mem * MIB
    boot_total = g.meminfo()["MemTotal"]
    g.sh("modprobe guestmm_balloon chunk_order=0")
    assert g.sh("cat " + PARAM).strip() == "256"
    assert state(g)["migrate_sync"] == 0    # QEMU offers no MUST_TELL_HOST

    d = retry_layout(g, 256, compact_round(g, 256))
    msgs = d["host_msgs_inflate"] + d["host_msgs_deflate"]
    print("KEY balloon_migrate_batched batch=256 migrated=%d messages=%d "
          "batches=%d collisions=%d" % (d["migrated"], msgs,
                                       d["migrate_batches"],
                                       d["migrate_collisions"]))
    assert d["migrated"] >= 500, d
    assert d["migrate_batches"] > 0, d
    # Two messages per batch at most, against two per page for stock.
    assert msgs <= 2 * d["migrate_batches"], d
    assert msgs * 20 <= 2 * d["migrated"], d

    # Back to empty, then stock's behaviour at run time: every migration
    # is its own inflate and deflate.
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    g.sh("echo 1 > " + PARAM)
    d = retry_layout(g, 128, compact_round(g, 128))
    msgs = d["host_msgs_inflate"] + d["host_msgs_deflate"]
    print("KEY balloon_migrate_batched batch=1 migrated=%d messages=%d" %
          (d["migrated"], msgs))
    assert d["migrated"] >= 500, d
    assert msgs == 2 * d["migrated"] and d["migrate_collisions"] == 0, d

    # Everything comes back: the host's count, MemTotal, vmstat.
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    st = state(g)
    assert st["num_pages"] == 0 and \
        st["host_told_in_pages"] == st["host_told_out_pages"], st
    g.sh("rmmod guestmm_balloon")
    assert g.query_balloon() == ram
    assert g.meminfo()["MemTotal"] == boot_total
    vm = g.vmstat()
    assert vm["balloon_inflate"] == vm["balloon_deflate"], vm

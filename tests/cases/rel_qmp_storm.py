# SPDX-License-Identifier: GPL-2.0
"""Reliability: a QMP storm of random balloon targets (above RAM, 0, below the floor, rapid reversals) against a memory hog with deflate-on-oom; the guest keeps answering, host and guest accounting agree exactly at the end, and no page is lost (a 64 MiB pattern, the host's residency at the final target) (GUESTMM_SOAK=1: 10 minutes)."""
import os
import random
import time

import integrity
import workloads
from qmp import QMPError

MIB = 1 << 20
SOAK = os.environ.get("GUESTMM_SOAK") == "1"
STORM_S = 600 if SOAK else 40
HEARTBEAT_S = 5          # the guest must answer within this, every round
GUEST = dict(mem=1024, smp=2, balloon={"deflate-on-oom": "on"},
             mods=["guestmm_balloon"], host_thp=False)
TIMEOUT = STORM_S + 300

DBG = "/sys/kernel/debug/guestmm_balloon"
# The hog: allocate and touch 240 MiB (busybox dd's buffer), free it, again.
# It is the OOM killer's first choice, never the agent.
HOG = ("(echo 1000 > /proc/self/oom_score_adj; while :; do "
       "dd if=/dev/zero of=/dev/null bs=240M count=2 2>/dev/null; "
       "done) >/dev/null 2>&1 & echo $! > /tmp/hog.pid")


def state(g):
    return dict((l.split()[0], int(l.split()[1], 0)) for l in
                g.sh("cat %s/state" % DBG).splitlines() if len(l.split()) == 2)


def cpu_busy(g, seconds=5):
    """Fraction of guest CPU time not idle/iowait over `seconds`."""
    out = g.sh("head -1 /proc/stat; sleep %d; head -1 /proc/stat" % seconds)
    return workloads.busy_fraction(*out.splitlines()[:2])


def run(g):
    rng = random.Random(int(os.environ.get("GUESTMM_SEED", "9")))
    ram = g.mem * MIB
    boot_total = g.meminfo()["MemTotal"]
    g.sh("echo -1000 > /proc/1/oom_score_adj; true")
    integrity.hold(g)
    g.sh(HOG)
    kinds = dict(rand=0, above_ram=0, zero=0, zero_refused=0, floor=0,
                 reversal=0)
    worst_hb = 0.0
    rounds = 0
    t_end = time.monotonic() + STORM_S
    last_hb = time.monotonic()
    worst_gap = 0.0
    while time.monotonic() < t_end:
        r = rng.random()
        if r < 0.10:
            target, kind = ram + rng.randrange(1, 2048) * MIB, "above_ram"
        elif r < 0.18:
            target, kind = 0, "zero"
        elif r < 0.30:
            target, kind = 64 * MIB, "floor"     # far below floor_mb=-1
        elif r < 0.55:
            kind = "reversal"
            target = ram - rng.randrange(0, 700) * MIB
        else:
            target, kind = ram - rng.randrange(0, 800) * MIB, "rand"
        try:
            g.balloon(target)
        except QMPError:
            # QEMU 7.2 refuses a target <= 0 ("expects a size").
            assert target == 0, target
            kinds["zero_refused"] += 1
        kinds[kind] += 1
        if kind == "reversal":
            # Back and forth within milliseconds.
            for _ in range(rng.randrange(2, 6)):
                g.balloon(ram - rng.randrange(0, 700) * MIB)
                g.balloon(ram)
        # Most targets change at once; a target at the floor is held long
        # enough for the balloon to get there and meet the hog.
        hold = 8.0 if kind == "floor" else rng.random() * 0.7
        t_hold = time.monotonic() + hold
        while True:
            t0 = time.monotonic()
            g.sh("true", timeout=HEARTBEAT_S)
            now = time.monotonic()
            worst_hb = max(worst_hb, now - t0)
            worst_gap = max(worst_gap, now - last_hb)
            last_hb = now
            if now >= t_hold:
                break
            time.sleep(min(0.5, t_hold - now))
        rounds += 1

    g.sh("kill $(cat /tmp/hog.pid); killall dd; true")
    g.sh("while pidof dd >/dev/null; do sleep 0.2; done", timeout=60)
    mid = state(g)
    # Settle on a final target and compare every account of the balloon.
    final = ram - 300 * MIB
    g.balloon(final)
    actual = g.wait_balloon(final, timeout=240, poll=0.5)
    time.sleep(1)
    st = state(g)
    vm = g.vmstat()
    total = g.meminfo()["MemTotal"]
    assert g.query_balloon() == actual == final
    assert st["num_pages"] * 4096 == ram - actual, (st["num_pages"], actual)
    assert st["target"] == st["num_pages"], st
    assert st["inflated_pages"] - st["deflated_pages"] == st["num_pages"], st
    assert st["isolated_pages"] == 0, st
    # movable=1: the core's vm events count the same pages.
    assert vm["balloon_inflate"] - vm["balloon_deflate"] == st["num_pages"], \
        (vm["balloon_inflate"], vm["balloon_deflate"], st["num_pages"])
    # deflate-on-oom: inflated pages stay in MemTotal (adjust_managed=0).
    assert st["adjust_managed"] == 0 and total == boot_total, \
        (st["adjust_managed"], total, boot_total)
    integrity.settled(g, "final")
    integrity.stop_pattern(g)
    busy = cpu_busy(g)
    # The driver must not spin once it reached the target.
    assert busy < 0.5, busy
    print("KEY rel_qmp_storm seconds=%d rounds=%d kinds=%s worst_heartbeat_s=%.2f "
          "worst_gap_s=%.2f oom_calls=%d oom_deflated=%d floor_limited=%d "
          "out_of_puff=%d inflated=%d deflated=%d final_pages=%d "
          "idle_busy=%.3f" %
          (STORM_S, rounds, kinds, worst_hb, worst_gap, st["oom_calls"],
           st["oom_deflated_pages"], st["floor_limited"], st["out_of_puff"],
           st["inflated_pages"], st["deflated_pages"], st["num_pages"], busy))
    print("KEY rel_qmp_storm mid_state num_pages=%d target=%d" %
          (mid["num_pages"], mid["target"]))

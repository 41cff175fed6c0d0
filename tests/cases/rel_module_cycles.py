# SPDX-License-Identifier: GPL-2.0
"""Reliability: N modprobe/rmmod cycles of guestmm_balloon while the host moves the target; MemTotal is exact after every unload (GUESTMM_SOAK=1: 100 cycles)."""
import os
import random
import time

MIB = 1 << 20
SOAK = os.environ.get("GUESTMM_SOAK") == "1"
CYCLES = 100 if SOAK else 10
# deflate-on-oom off: the driver takes inflated pages off MemTotal, so the
# exact MemTotal check after each unload proves the managed count is whole.
GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
TIMEOUT = 3600 if SOAK else 300
LIGHT = True

DBG = "/sys/kernel/debug/guestmm_balloon"


def state(g):
    return dict((l.split()[0], int(l.split()[1], 0)) for l in
                g.sh("cat %s/state" % DBG).splitlines() if len(l.split()) == 2)


def run(g):
    rng = random.Random(int(os.environ.get("GUESTMM_SEED", "9")))
    ram = g.mem * MIB
    boot_total = g.meminfo()["MemTotal"]
    v0 = g.vmstat()
    waited = 0
    worst_rmmod = 0.0
    t_start = time.monotonic()
    for i in range(CYCLES):
        # A target set while no driver is bound: the next load must follow it.
        g.balloon(ram - rng.randrange(0, 65) * 4 * MIB)
        g.sh("modprobe guestmm_balloon")
        # Move the target while the driver works on it (random reversals).
        for _ in range(rng.randrange(1, 4)):
            g.balloon(ram - rng.randrange(0, 65) * 4 * MIB)
            time.sleep(rng.random() * 0.5)
        if i % 3 == 0:
            # Every third cycle: settle, then check the accounting while
            # inflated (MemTotal drops by exactly the balloon).
            target = ram - rng.randrange(1, 33) * 4 * MIB
            g.balloon(target)
            g.wait_balloon(target, timeout=120, poll=0.3)
            st = state(g)
            total = g.meminfo()["MemTotal"]
            assert st["num_pages"] * 4096 == ram - target, (st, target)
            assert st["adjust_managed"] == 1, st
            assert total == boot_total - st["num_pages"] * 4, \
                (i, total, boot_total, st["num_pages"])
            waited += 1
        t0 = time.monotonic()
        g.sh("rmmod guestmm_balloon", timeout=120)
        worst_rmmod = max(worst_rmmod, time.monotonic() - t0)
        total = g.meminfo()["MemTotal"]
        assert total == boot_total, \
            "cycle %d: MemTotal %d kB after rmmod, %d at boot" % (
                i, total, boot_total)
        # The driver wrote actual = 0 on remove: the host sees all RAM.
        assert g.query_balloon() == ram, (i, g.query_balloon())
    v1 = g.vmstat()
    inf = v1["balloon_inflate"] - v0["balloon_inflate"]
    dfl = v1["balloon_deflate"] - v0["balloon_deflate"]
    assert inf == dfl and inf > 0, (inf, dfl)
    assert "guestmm_balloon" not in g.sh("cat /proc/modules")
    print("KEY rel_module_cycles cycles=%d settled=%d pages_in=%d pages_out=%d "
          "memtotal_kb=%d worst_rmmod_s=%.2f total_s=%.0f" %
          (CYCLES, waited, inf, dfl, boot_total, worst_rmmod,
           time.monotonic() - t_start))

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon deflate-on-oom: with 700 MiB inflated, a process allocating past free memory survives, nothing is OOM-killed, and the balloon shrinks."""
import integrity
from balloonlib import MIB, state
from workloads import FRAG_KEEP_ALL, frag_start

GUEST = dict(mem=1024, smp=2, balloon={"deflate-on-oom": "on"}, mods=[],
             host_thp=False)
LIGHT = True


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    integrity.hold(g)
    boot_total = g.meminfo()["MemTotal"]
    assert state(g)["adjust_managed"] == 0

    g.balloon(ram - 700 * MIB)
    g.wait_balloon(ram - 700 * MIB, timeout=180)
    # With DEFLATE_ON_OOM the balloon counts as used, not as removed.
    assert g.meminfo()["MemTotal"] == boot_total
    free_kib = g.meminfo()["MemAvailable"]
    want = free_kib // 1024 + 150
    vm0 = g.vmstat()

    # Touch 150 MiB more than is available; keep (almost) all of it.
    frag_start(g, want, stride=FRAG_KEEP_ALL)
    g.sh("kill -0 $(cat /tmp/frag.pid)")
    vm1 = g.vmstat()
    st = state(g)
    actual = g.query_balloon()
    print("KEY balloon_oom_deflate alloc_mib=%d oom_calls=%d "
          "oom_deflated_pages=%d balloon_mib=%d oom_kill=%d" %
          (want, st["oom_calls"], st["oom_deflated_pages"],
           (ram - actual) // MIB, vm1["oom_kill"] - vm0["oom_kill"]))
    assert vm1["oom_kill"] == vm0["oom_kill"], "a process was OOM-killed"
    assert st["oom_calls"] > 0 and st["oom_deflated_pages"] > 0, st
    # The host was told: its view of the balloon shrank accordingly.
    assert ram - actual == st["num_pages"] * 4096, (actual, st)
    assert ram - actual < 700 * MIB - 100 * MIB, actual
    integrity.verify_pattern(g, "oom_deflated")

    g.sh("kill $(cat /tmp/frag.pid)")
    g.balloon(ram)
    g.wait_balloon(ram)
    g.sh("rmmod guestmm_balloon")
    integrity.settled(g, "unloaded")
    integrity.stop_pattern(g)
    assert g.meminfo()["MemTotal"] == boot_total

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon tracepoints: inflate, deflate, migrate and oom_deflate exist in tracefs; inflate/deflate events add up to the pages moved."""
import re

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])

LIGHT = True
MIB = 1 << 20
T = "/sys/kernel/tracing"


def run(g):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon")
    for ev in ("inflate", "deflate", "migrate", "oom_deflate"):
        fmt = g.sh("cat %s/events/guestmm_balloon/guestmm_balloon_%s/format"
                   % (T, ev))
        assert "field:" in fmt, fmt
    fmt = g.sh("cat %s/events/guestmm_balloon/guestmm_balloon_migrate/format"
               % T)
    assert "old_pfn" in fmt and "new_pfn" in fmt, fmt

    g.sh("echo 8192 > %s/buffer_size_kb; echo > %s/trace; "
         "echo 1 > %s/events/guestmm_balloon/enable" % (T, T, T))
    g.balloon(ram - 64 * MIB)
    g.wait_balloon(ram - 64 * MIB)
    g.balloon(ram)
    g.wait_balloon(ram)
    g.sh("echo 0 > %s/events/guestmm_balloon/enable" % T)
    trace = g.sh("cat %s/trace" % T)
    infl = sum(int(n) for n in re.findall(
        r"guestmm_balloon_inflate: nr=(\d+)", trace))
    defl = sum(int(n) for n in re.findall(
        r"guestmm_balloon_deflate: nr=(\d+)", trace))
    assert infl == defl == 64 * 256, (infl, defl)
    g.sh("rmmod guestmm_balloon")

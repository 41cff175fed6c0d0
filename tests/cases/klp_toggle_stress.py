"""20 enable/disable cycles of guestmm_klp (load, transition, disable,
transition, rmmod) while frag, compaction and order-9 allocations run: no
WARN, Oops or hang, every transition completes within seconds."""
import time

from klplib import LP, wait_transition

GUEST = dict(mem=1024, smp=2, balloon=None, mods=["guestmm_highalloc"],
             append="transparent_hugepage=always")
KERNELS = ("6.1",)
TIMEOUT = 1800

CYCLES = 20


def run(g):
    g.sh("frag 400 > /tmp/frag.out 2>&1 &")
    while "FRAG ready" not in g.sh("cat /tmp/frag.out"):
        time.sleep(1)
    # Background load: compact_memory and order-9 allocations in a loop.
    g.sh("(while :; do echo 1 > /proc/sys/vm/compact_memory; "
         "echo 8 > /sys/kernel/debug/guestmm_highalloc/alloc; "
         "echo 0 > /sys/kernel/debug/guestmm_highalloc/alloc; "
         "done) > /dev/null 2>&1 & echo $! > /tmp/load.pid")
    worst = 0.0
    runs = 0
    for i in range(CYCLES):
        g.sh("modprobe guestmm_klp")
        worst = max(worst, wait_transition(g))
        time.sleep(1)
        st = dict(l.split() for l in
                  g.sh("cat /sys/kernel/debug/guestmm_klp/stats").splitlines())
        runs += int(st["runs"])
        g.sh("echo 0 > %s/enabled" % LP)
        worst = max(worst, wait_transition(g))
        g.sh("rmmod guestmm_klp")
    g.sh("kill $(cat /tmp/load.pid); killall frag; true")
    print("KEY klp_toggle cycles=%d worst_transition_s=%.1f klp_runs=%d" %
          (CYCLES, worst, runs))
    assert worst < 15, worst
    assert runs > 0, "compaction never ran through the patch"

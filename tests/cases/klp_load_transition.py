"""guestmm_klp loads as a livepatch on Debian 6.1 and 6.12: enabled=1, the
transition completes within seconds, and compaction then runs through our
compact_zone (its debugfs counters move, the kernel's mm_compaction_*
tracepoints still fire)."""
from klplib import LP, STATS, klp_stats, modprobe_klp, wait_transition

GUEST = dict(mem=1024, smp=2, balloon=None, tcg_single=True)
KERNELS = ("6.1", "6.12")
TIMEOUT = 600
LIGHT = True


def run(g):
    modprobe_klp(g)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"
    secs = wait_transition(g)
    print("KEY klp_transition seconds=%.1f" % secs)
    log = g.dmesg()
    assert "compact_zone replaced" in log, log[-2000:]
    assert "patching complete" in log or "guestmm_klp" in log

    tr = "/sys/kernel/tracing"
    g.sh("echo 1 > %s/events/compaction/mm_compaction_begin/enable && "
         "echo 1 > %s/events/compaction/mm_compaction_end/enable && "
         "echo 1 > %s/events/guestmm_klp/guestmm_klp_run/enable && "
         "echo > %s/trace" % (tr, tr, tr, tr))
    before = klp_stats(g)
    vm0 = g.vmstat()
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    after = klp_stats(g)
    vm1 = g.vmstat()
    runs = after["runs"] - before["runs"]
    assert runs >= 2, (before, after)   # DMA and DMA32 at least
    trace = g.sh("cat %s/trace" % tr)
    begins = trace.count("mm_compaction_begin:")
    ends = trace.count("mm_compaction_end:")
    ours = trace.count("guestmm_klp_run:")
    print("KEY klp_load runs=%d begin=%d end=%d klp_run=%d "
          "migrate_scanned=%d vm_migrate_scanned=%d" % (
              runs, begins, ends, ours,
              after["migrate_scanned"] - before["migrate_scanned"],
              vm1["compact_migrate_scanned"] - vm0["compact_migrate_scanned"]))
    # The kernel's tracepoints fire from our code, once per run that
    # passed compaction_suitable (as on stock).
    suitable = runs - (after["runs_not_suitable"] -
                       before["runs_not_suitable"])
    assert begins == ends == suitable, (begins, ends, suitable)
    assert ours == suitable, (ours, suitable)
    # What we add to compact_migrate_scanned is all of it (nothing else
    # compacts in this idle guest).
    assert (vm1["compact_migrate_scanned"] - vm0["compact_migrate_scanned"]
            == after["migrate_scanned"] - before["migrate_scanned"])
    # debugfs is root-only
    assert g.sh("stat -c %a " + STATS).strip() == "400"

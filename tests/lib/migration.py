# SPDX-License-Identifier: GPL-2.0
"""A ballooned guest with busy memory, live-migrated to a second QEMU on
this host (Guest.migrate), and what must hold on the other side: for
balloon_live_migration and bench/live_migration.

prepare(): a process holds PATTERN_MIB of anonymous memory with a
pattern (tests/progs/pattern), `frag`
scatters FRAG_MIB (one page in two freed) and the balloon inflates by
INFLATE_MIB into the holes (workloads.scattered_inflate).
migrate_busy(): while the migration runs, the guest runs compact_memory
COMPACTIONS times and a second pattern of LATE_MIB fills its pages, and
the host lowers the target by MORE_MIB.  check(): on the destination,
every page of both patterns, the balloon exactly at its target, the
host's residency, then a full deflate and all of it again."""
import os
import re
import time

import residency
from integrity import (start_pattern, stop_pattern, verify_pattern,
                       wait_pattern)
from balloonlib import MIB, settled_state
from workloads import scattered_inflate

PATTERN_MIB = 200
LATE_MIB = 100          # a second pattern, written while the migration runs
FRAG_MIB = 300
INFLATE_MIB = 256
MORE_MIB = 64
COMPACTIONS = 5
# Bytes/s.  Fast enough that the 1 GiB guest moves in a few seconds, slow
# enough that the compactions and the extra inflate overlap it.
BANDWIDTH = 256 << 20
# Seconds a migration may take before it fails with both consoles' tails:
# about 5 s here, and 1 GiB at BANDWIDTH is 4 s; what is left of the
# case's TIMEOUT is for the other variants.
MIGRATE_TIMEOUT_S = 120
PAGE = 4096


def guestmm(g):
    return "guestmm_balloon" in g.sh("cat /proc/modules")


def settle(g, target):
    """Wait until the balloon holds exactly target bytes less than RAM,
    as the device reports it and, for guestmm, as its own state says."""
    actual = g.wait_balloon(target, timeout=300)
    assert actual == target, (actual, target)
    if guestmm(g):
        settled_state(g, (g.ram_bytes() - target) // PAGE, timeout=120)
        deadline = time.monotonic() + 30
        while True:
            st = g.sh("cat /sys/kernel/debug/guestmm_balloon/state")
            if re.search(r"^migrate_queued_in 0$", st, re.M) and \
                    re.search(r"^migrate_queued_out 0$", st, re.M):
                break
            assert time.monotonic() < deadline, st
            time.sleep(0.2)


def prepare(g, load):
    """Load the balloon driver (load: a shell command), start the
    pattern, scatter the balloon; returns the target in bytes."""
    g.sh(load)
    start_pattern(g, PATTERN_MIB)
    wait_pattern(g)
    target = scattered_inflate(g, INFLATE_MIB, frag_mib=FRAG_MIB)
    settle(g, target)
    return target


def compactions_in(text):
    return len(re.findall(r"^@@compact \d", text, re.M))


def migrate_busy(g, target, label="migrated", bandwidth=BANDWIDTH,
                 compactions=COMPACTIONS, more_mib=MORE_MIB,
                 late_mib=LATE_MIB):
    """Migrate while the guest compacts, a second pattern of late_mib
    fills its pages, and the host lowers the target by more_mib; returns
    (the migration's figures, the new target).  The guest's work starts
    in the background just before the migration (a command must not be
    in flight across it); the compactions mark the console, so the
    source's console shows how many began before the switch.  check()
    verifies the late pattern and ends it."""
    if late_mib:
        start_pattern(g, late_mib, name="late", delay=0.5)
    if compactions:
        g.sh("rm -f /tmp/compact.done; (for i in $(seq %d); do "
             "echo \"@@compact $i $(cut -d' ' -f1 /proc/uptime)\" "
             ">/dev/ttyS0; echo 1 > /proc/sys/vm/compact_memory; done; "
             "touch /tmp/compact.done) >/dev/null 2>&1 &" % compactions)
    new_target = target - more_mib * MIB

    def during(g):
        if more_mib:
            g.balloon(new_target)
    before = g.console_text()
    entered0 = balloon_entered(g)
    mig = g.migrate(during=during, bandwidth=bandwidth,
                    timeout=MIGRATE_TIMEOUT_S * g.time_scale)
    # Read first thing on the destination: a bound, the few pages the
    # balloon took there since count too.
    mig["balloon_entered"] = balloon_entered(g) - entered0
    on_source = compactions_in(g.console_before[len(before):])
    if late_mib:
        wait_pattern(g, "late")
    if compactions:
        deadline = time.monotonic() + 300
        while True:
            g.sh("test -e /tmp/compact.done", check=False)
            if g.last_rc == 0:
                break
            assert time.monotonic() < deadline, "compactions never ended"
            time.sleep(0.5)
    mig["compactions_on_source"] = on_source
    print("KEY migration %s %s" % (label, " ".join(
        "%s=%s" % kv for kv in sorted(mig.items()))))
    return mig, new_target


def balloon_entered(g):
    """Pages that have entered the balloon since boot: inflated, or the
    new page of a balloon page migration (vmstat; both drivers count)."""
    vm = g.vmstat()
    return vm.get("balloon_inflate", 0) + vm.get("balloon_migrate", 0)


def check(g, target, mig, label="destination", host=True):
    """On the destination: the balloon exactly at target, the pattern,
    the host's residency; then a full deflate and the same again.
    Returns the residency counts after the migration (host: check it).

    QEMU discards a page the balloon takes during the migration on the
    source only: what the source had sent of it before stays on the
    destination.  So as many balloon pages as entered the balloon while
    the migration ran (mig["balloon_entered"], migrate_busy()) may be
    backed there, and no other.  Defrag goes on making blocks on the
    destination for a while, so residency reads the guest's side twice
    (residency.compare())."""
    settle(g, target)
    res = residency.check(g, label, balloon_backed_max=mig[
        "balloon_entered"], twice=True) if host else {}
    verify_pattern(g, label)
    late = g.sh("test -e /tmp/late.pid && echo yes; true").strip() == "yes"
    if late:
        verify_pattern(g, label, name="late")
    ram = g.ram_bytes()
    g.balloon(ram)
    settle(g, ram)
    if host:
        after = residency.check(g, label + "_deflated", twice=True)
        assert after["balloon"] == 0, after
    verify_pattern(g, label + "_deflated")
    if late:
        verify_pattern(g, label + "_deflated", name="late")
        stop_pattern(g, "late")
    return res


def boot_like(g, name, balloon=None, objects=None):
    """Another guest like g (its class, kernel, size), logging in
    g.logdir/name, with other balloon properties or objects."""
    cfg = dict(mem=g.mem, ram_extra_kb=g.ram_extra_kb, smp=g.smp, numa=g.numa, mods=g.mods,
               append=g.append, boot_timeout=g.boot_timeout,
               tcg_single=g.tcg_single, host_thp=g.host_thp,
               balloon=g.balloon_props if balloon is None else balloon,
               objects=g.objects if objects is None else objects)
    other = type(g)(kernel=g.kernel, initrd=g.initrd,
                    logdir=os.path.join(g.logdir, name), **cfg)
    return other.start()

# SPDX-License-Identifier: GPL-2.0
"""Guest memory integrity for the balloon's stress cases and for live
migration: a process holds anonymous memory with a known pattern
(tests/progs/pattern) while a case inflates, deflates, compacts, offlines,
runs out of memory or migrates, and at the end it checks every page of it.
Where the guest runs with host_thp=False, settled() also checks the host's
residency (tests/lib/residency.py) at the point where the balloon has
settled.

A page the balloon took without owning it, gave back while the guest still
used it, or that a migration (of the guest, or of a balloon page) lost,
reads as zeros, as an older generation or as garbage there."""
import re
import time

import residency

# Small enough to leave a 1 GiB guest's stress loads their room, large
# enough (16384 pages) that compaction and the balloon meet its pages.
HOLD_MIB = 64


def start_pattern(g, mib, name="pattern", delay=0, oom_adj=0):
    """Start `pattern MIB` in the background, its output in /tmp/NAME.out,
    its pid in /tmp/NAME.pid, after delay seconds.  Its pages are written
    once and never again (not `dirty`): a page rewritten round-robin would
    hide a loss older than one round by the time it is verified.  oom_adj:
    its oom_score_adj (-1000: the OOM killer never picks it, for cases
    whose own hog is meant to run out)."""
    g.sh("(sleep %s; echo %d > /proc/self/oom_score_adj; "
         "exec pattern %d /tmp/%s.out) >/dev/null 2>&1 & "
         "echo $! > /tmp/%s.pid" % (delay, oom_adj, mib, name, name))


def wait_pattern(g, name="pattern"):
    deadline = time.monotonic() + 120
    while "PATTERN ready" not in g.sh("cat /tmp/%s.out 2>/dev/null; true"
                                      % name):
        assert time.monotonic() < deadline, "%s did not get ready" % name
        time.sleep(0.5)


def hold(g, mib=HOLD_MIB, name="pattern"):
    """A pattern of mib MiB, written and ready, that no OOM kill takes."""
    start_pattern(g, mib, name=name, oom_adj=-1000)
    wait_pattern(g, name)


def verify_pattern(g, label, name="pattern"):
    """Have a pattern process check every page; return its counts.  Fails
    on any bad page, and when the process is gone."""
    out_file = "/tmp/%s.out" % name
    n = g.sh("grep -c 'PATTERN verify' %s; true" % out_file).strip()
    alive = g.sh("kill -USR1 $(cat /tmp/%s.pid) 2>&1 && echo sent; true"
                 % name)
    assert "sent" in alive, "%s: the %s process is gone: %s" % (
        label, name, alive.strip())
    deadline = time.monotonic() + 120
    while True:
        out = g.sh("cat %s" % out_file)
        done = re.findall(r"^PATTERN verify (.*)$", out, re.M)
        if len(done) > int(n or 0):
            break
        assert time.monotonic() < deadline, "%s did not verify" % name
        time.sleep(0.5)
    res = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", done[-1])}
    print("KEY pattern %s %s %s" % (label, name, done[-1]))
    bad = [l for l in out.splitlines() if l.startswith("PATTERN bad")]
    assert res["bad"] == 0, (label, name, res, bad[:32])
    return res


def stop_pattern(g, name="pattern"):
    g.sh("kill $(cat /tmp/{0}.pid); wait $(cat /tmp/{0}.pid) 2>/dev/null; "
         "rm -f /tmp/{0}.pid /tmp/{0}.out; true".format(name))


def settled(g, label, name="pattern", twice=True):
    """At a point where the balloon has settled: the host backs every page
    the guest uses and no balloon page (when the guest runs without host
    THP), and every page of the pattern holds what was written."""
    if not g.host_thp:
        residency.check(g, label, twice=twice)
    verify_pattern(g, label, name)

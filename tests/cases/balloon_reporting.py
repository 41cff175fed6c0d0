# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon free page reporting: after the guest frees a large buffer, the QEMU process's RSS drops; with report_delay_ms=12000 the report comes no sooner than the delay asks, and still comes."""
import time

from workloads import FRAG_KEEP_ALL, frag_start

GUEST = dict(mem=1024, smp=2, balloon={"free-page-reporting": "on"}, mods=[])

LIGHT = True
DBG = "/sys/kernel/debug/guestmm_balloon"


def run(g):
    g.sh("modprobe guestmm_balloon")
    st = g.sh("cat %s/state" % DBG)
    assert "reporting 1" in st, st
    assert "free page reporting enabled" in g.sh("dmesg")

    frag_start(g, 500, stride=FRAG_KEEP_ALL)
    time.sleep(3)
    high = g.qemu_memory()["Rss"]
    rep0 = int(g.sh("cat %s/reported_pages" % DBG))
    g.sh("kill $(cat /tmp/frag.pid); wait $(cat /tmp/frag.pid) 2>/dev/null;"
         " true")

    # Reporting runs 2 s after pages are freed; give it time under TCG.
    deadline = time.monotonic() + 60
    low = high
    while time.monotonic() < deadline:
        time.sleep(2)
        low = g.qemu_memory()["Rss"]
        if high - low >= 300 * 1024:
            break
    rep1 = int(g.sh("cat %s/reported_pages" % DBG))
    print("KEY balloon_reporting rss_high_kib=%d rss_low_kib=%d "
          "reported_pages=%d" % (high, low, rep1 - rep0))
    assert rep1 - rep0 >= 300 * 256, (rep0, rep1)
    assert high - low >= 300 * 1024, (high, low)
    g.sh("rmmod guestmm_balloon")

    # A 12 s delay: the pages freed now are reported no sooner than that.
    g.sh("modprobe guestmm_balloon report_delay_ms=12000")
    assert "delay 12000 ms" in g.sh("dmesg | grep 'reporting enabled' | tail -1")
    # The pages the kill frees must start a round of their own: a round
    # already held when they are freed reports them with it, early.  So
    # wait for a quiet moment (no hold pending, no pass running: a hold
    # reads 0 once it expired while the held pass may still be reporting,
    # under TCG for seconds, so the count of reported pages must stand
    # still too), and read the hold again in the command that kills.  A
    # hold that started in between (a round that the frees of our own
    # commands began, 2 s after them) spoils the try, and it is made
    # again, at most three times.
    for attempt in range(1, 4):
        frag_start(g, 300, stride=FRAG_KEEP_ALL)
        deadline = time.monotonic() + 90
        prev = None
        while time.monotonic() < deadline:
            time.sleep(3)
            st = g.sh("cat %s/state; cat %s/reported_pages" % (DBG, DBG))
            now = st.split()[-1]
            if "report_hold_ms 0\n" in st and now == prev:
                break
            prev = now
        else:
            raise AssertionError("reporting never went quiet: %s" % st)
        rep0 = int(g.sh("cat %s/reported_pages" % DBG))
        hold = g.sh("kill $(cat /tmp/frag.pid); grep '^report_hold_ms ' "
                    "%s/state; wait $(cat /tmp/frag.pid) 2>/dev/null; true"
                    % DBG).split()
        t0 = time.monotonic()
        if hold == ["report_hold_ms", "0"]:
            break
        print("KEY balloon_reporting attempt=%d held_at_kill=%s" %
              (attempt, hold), flush=True)
        time.sleep(14)          # let that round finish
    else:
        raise AssertionError("a round was held at every kill")
    first = None
    while time.monotonic() - t0 < 60:
        time.sleep(0.5)
        if int(g.sh("cat %s/reported_pages" % DBG)) - rep0 >= 200 * 256:
            first = time.monotonic() - t0
            break
    held = int(g.sh("cat %s/reports_held" % DBG))
    print("KEY balloon_reporting delay_ms=12000 reported_after_s=%s "
          "reports_held=%d" % (first, held))
    assert first is not None, "nothing reported within 60 s"
    # The first report call of the round starts the hold: at most 2 s
    # (the kernel's own delay) after the kill, and 10 s before the report.
    assert first >= 9, first
    assert held > 0, held
    g.sh("rmmod guestmm_balloon")

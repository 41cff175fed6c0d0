"""unmapped_page_control and max_unmapped_ratio at run time: bad values
(non-numeric, negative, 0, > 100, empty) are rejected with EINVAL and a
message and change nothing; turning the control on brings the unmapped
cache under the ratio within seconds, a lower ratio applies at once,
turning it off lets the cache grow again; zone_reclaim_mode != 0 set while
on makes the next pass stand down (stop_reclaim_mode, a message) and 0
again resumes; zone_reclaim_mode != 0 refuses to enable; the livepatch
disables and unloads with the control on; no thread of ours exists."""
import time

from klplib import UM, modprobe_klp, um_stats

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=400, tcg_single=True)
KERNELS = ("6.1", "6.12")
# Host-time bounds, so not light; one TCG thread, so beside one other
# one-core case (tests/run -j 2), each on a core of its own.
ONE_CORE = True
TIMEOUT = 1200

PAR = "/sys/module/guestmm_klp/parameters"
LP = "/sys/kernel/livepatch/guestmm_klp"
FILE_MIB = 300


def par(g, name):
    return g.sh("cat %s/%s" % (PAR, name)).strip()


def write_bad(g, name, value):
    g.sh("dmesg -c > /dev/null")
    out = g.sh("echo '%s' > %s/%s" % (value, PAR, name), check=False)
    assert g.last_rc != 0, (name, value, out)
    assert "Invalid argument" in out, out
    log = g.sh("dmesg")
    assert "guestmm_klp: invalid value '%s' for parameter '%s'" % (
        value, name) in log, log


def wait_under(g, timeout=30):
    """Seconds until node 0's unmapped cache is at or below its high mark."""
    t0 = time.monotonic()
    while True:
        s = um_stats(g)
        if s["node0_unmapped"] <= s["node0_high"]:
            return time.monotonic() - t0, s
        assert time.monotonic() - t0 < timeout, s
        time.sleep(0.5)


def read_file(g):
    g.sh("cat /mnt/f > /dev/null", timeout=600)


def run(g):
    g.sh("dd if=/dev/zero of=/mnt/f bs=1M count=%d conv=fsync 2>&1 && "
         "echo 3 > /proc/sys/vm/drop_caches" % FILE_MIB, timeout=600)
    modprobe_klp(g)
    assert par(g, "unmapped_page_control") == "N"
    assert par(g, "max_unmapped_ratio") == "10"
    assert g.sh("stat -c %%a %s/unmapped_page_control %s/max_unmapped_ratio"
                " %s" % (PAR, PAR, UM)).split() == ["644", "644", "400"]

    for bad in ("abc", "-5", "0", "101", "", "5x", "1000000000000"):
        write_bad(g, "max_unmapped_ratio", bad)
        assert par(g, "max_unmapped_ratio") == "10", bad
    for bad in ("maybe", "", "2", "-1"):
        write_bad(g, "unmapped_page_control", bad)
        assert par(g, "unmapped_page_control") == "N", bad

    # Off: the cache grows past the ratio and nothing runs.
    read_file(g)
    s = um_stats(g)
    assert s["node0_unmapped"] > 2 * s["node0_high"], s
    assert s["passes"] == 0, s
    assert s["wakeups_pagecache"] == s["wakeups_param"] == 0, s

    # On: the write itself wakes kswapd.
    g.sh("echo 1 > %s/unmapped_page_control" % PAR)
    assert par(g, "unmapped_page_control") == "Y"
    secs, s = wait_under(g)
    print("KEY klp_unmapped_params on_to_under_s=%.1f passes=%d "
          "pages_reclaimed=%d wakeups_param=%d" % (
              secs, s["passes"], s["pages_reclaimed"], s["wakeups_param"]))
    assert s["wakeups_param"] >= 1 and s["pages_reclaimed"] > 0, s

    # Bad values while on change nothing either.
    for bad in ("0", "x", ""):
        write_bad(g, "max_unmapped_ratio", bad)
    write_bad(g, "unmapped_page_control", "x")
    assert par(g, "unmapped_page_control") == "Y"
    assert par(g, "max_unmapped_ratio") == "10"

    # A lower ratio applies now.
    high10 = um_stats(g)["node0_high"]
    g.sh("echo 5 > %s/max_unmapped_ratio" % PAR)
    secs, s = wait_under(g)
    assert s["node0_high"] < 0.6 * high10, (high10, s)
    print("KEY klp_unmapped_params ratio5_to_under_s=%.1f high=%d" % (
        secs, s["node0_high"]))

    # zone_reclaim_mode set while on: the next pass stands down, visibly;
    # back to 0, the policy resumes (the timer ends the backoff).
    g.sh("dmesg -c > /dev/null; echo 1 > /proc/sys/vm/zone_reclaim_mode")
    m0 = um_stats(g)["stop_reclaim_mode"]
    read_file(g)
    t0 = time.monotonic()
    while um_stats(g)["stop_reclaim_mode"] == m0:
        assert time.monotonic() - t0 < 30, um_stats(g)
        time.sleep(0.5)
    assert "standing down: vm.zone_reclaim_mode is 1" in g.dmesg()
    s = um_stats(g)
    assert s["node0_unmapped"] > s["node0_high"], s
    g.sh("echo 0 > /proc/sys/vm/zone_reclaim_mode")
    secs, s = wait_under(g)
    print("KEY klp_unmapped_params reclaim_mode_stop=%d resume_to_under_s=%.1f"
          % (s["stop_reclaim_mode"] - m0, secs))

    # Off again: the cache grows, kswapd runs no pass.
    g.sh("echo 0 > %s/unmapped_page_control" % PAR)
    assert par(g, "unmapped_page_control") == "N"
    p0 = um_stats(g)["passes"]
    read_file(g)
    time.sleep(6)
    s = um_stats(g)
    assert s["passes"] == p0, s
    assert s["node0_unmapped"] > 2 * s["node0_high"], s

    # zone_reclaim_mode != 0: node reclaim would unmap or write; refused.
    g.sh("echo 1 > /proc/sys/vm/zone_reclaim_mode; dmesg -c > /dev/null")
    g.sh("echo 1 > %s/unmapped_page_control" % PAR, check=False)
    assert g.last_rc != 0
    assert "refusing to enable: vm.zone_reclaim_mode is 1" in g.dmesg()
    assert par(g, "unmapped_page_control") == "N"
    g.sh("echo 0 > /proc/sys/vm/zone_reclaim_mode")

    # On again, then unload while it runs.
    g.sh("echo 1 > %s/unmapped_page_control" % PAR)
    wait_under(g)
    assert "gmm_unmapped" not in g.sh("ps")
    g.sh("echo 0 > %s/enabled" % LP)
    t0 = time.monotonic()
    while g.sh("test -d %s && cat %s/transition || echo 0" %
               (LP, LP)).strip() != "0":
        assert time.monotonic() - t0 < 60
        time.sleep(0.5)
    g.sh("rmmod guestmm_klp")
    assert "gmm_unmapped" not in g.sh("ps")
    # Parameters given at load still work after that.
    modprobe_klp(g, "unmapped_page_control=1 max_unmapped_ratio=20")
    assert par(g, "unmapped_page_control") == "Y"
    assert par(g, "max_unmapped_ratio") == "20"

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon: every bad module parameter fails the load with EINVAL and a message naming it; bad runtime writes are refused too."""

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])

LIGHT = True
BAD = [
    ("movable", "2"),
    ("movable", "maybe"),
    ("batch_pages", "0"),
    ("batch_pages", "513"),
    ("batch_pages", "12abc"),
    ("oom_pages", "0"),
    ("migrate_batch", "0"),
    ("migrate_batch", "513"),
    ("oom_pages", "65537"),
    ("report_order", "11"),
    ("report_delay_ms", "600001"),
    ("report_delay_ms", "-5"),
    ("report_order", "-1"),
    ("floor_mb", "-2"),
    ("floor_mb", "16777217"),
    ("floor_mb", "lots"),
    ("chunk_order", "1"),
    ("chunk_order", "8"),
    ("chunk_order", "10"),
    ("chunk_order", "-1"),
    ("chunk_order", "huge"),
]


def run(g):
    ko = g.sh("modinfo -n guestmm_balloon").strip()
    for name, val in BAD:
        g.sh("dmesg -c >/dev/null")
        out = g.sh("insmod %s %s=%s" % (ko, name, val), check=False)
        assert g.last_rc != 0, "%s=%s was accepted" % (name, val)
        assert "guestmm_balloon" not in g.sh("cat /proc/modules"), (name, val)
        log = g.sh("dmesg")
        assert "invalid value '%s' for parameter '%s'" % (val, name) in log, \
            (name, val, log, out)
        # The load failed with EINVAL from the parameter parser.
        assert "Invalid argument" in out or "invalid" in out.lower(), out

    # Good values load, show up in sysfs, and bad runtime writes bounce.
    g.sh("insmod %s movable=0 batch_pages=512 oom_pages=1024 "
         "report_order=9 chunk_order=9" % ko)
    p = "/sys/module/guestmm_balloon/parameters"
    assert g.sh("cat %s/movable %s/batch_pages %s/oom_pages %s/report_order"
                " %s/chunk_order" % (p, p, p, p, p)).split() == \
        ["N", "512", "1024", "9", "9"]
    g.sh("echo 1000 > %s/batch_pages" % p, check=False)
    assert g.last_rc != 0
    assert g.sh("cat %s/batch_pages" % p).strip() == "512"
    g.sh("echo -5 > %s/floor_mb" % p, check=False)
    assert g.last_rc != 0
    assert g.sh("cat %s/floor_mb" % p).strip() == "-1"
    g.sh("echo 64 > %s/batch_pages" % p)
    assert g.sh("cat %s/batch_pages" % p).strip() == "64"
    # movable is fixed after load.
    g.sh("echo 1 > %s/movable" % p, check=False)
    assert g.last_rc != 0
    # So is chunk_order (read at probe).
    g.sh("echo 0 > %s/chunk_order" % p, check=False)
    assert g.last_rc != 0
    g.sh("rmmod guestmm_balloon")

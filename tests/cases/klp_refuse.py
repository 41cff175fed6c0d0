"""guestmm_klp refuses to load, with a clear message and an error, when the
kernel is not the exact build it was written for (simulated with the
expect_version and expect_compact_zone_size parameters); bad tunable
values are rejected with -EINVAL; after all that a normal load works."""
import time

GUEST = dict(mem=512, smp=2, balloon=None)
KERNELS = ("6.1",)

LP = "/sys/kernel/livepatch/guestmm_klp"
PAR = "/sys/module/guestmm_klp/parameters"


def refused(g, args, message):
    g.sh("dmesg -c > /dev/null")
    out = g.sh("modprobe guestmm_klp %s" % args, check=False)
    rc = g.last_rc
    assert rc != 0, "loaded with %s: %s" % (args, out)
    log = g.sh("dmesg")
    assert "guestmm_klp: refusing to load: " + message in log, log
    assert g.sh("test -d %s; echo $?" % LP).strip() == "1"
    assert "guestmm_klp " not in g.sh("cat /proc/modules")
    print("KEY klp_refuse args=%r rc=%d" % (args, rc))


def run(g):
    refused(g, 'expect_version="Debian 6.1.999-1"',
            "kernel version '")
    refused(g, "expect_compact_zone_size=0x100",
            "compact_zone is 3504 bytes, expected 256")

    # force: loads despite the mismatch, says so loudly.
    g.sh("dmesg -c > /dev/null")
    g.sh('modprobe guestmm_klp force=1 expect_version="Debian 6.1.999-1"')
    assert "FORCED: kernel version" in g.sh("dmesg")
    t0 = time.monotonic()
    while g.sh("cat %s/transition" % LP).strip() != "0":
        assert time.monotonic() - t0 < 60
        time.sleep(0.5)

    # Tunables: bad values give EINVAL and a message; good ones stick.
    for name, bad in (("search_depth", "0"), ("search_depth", "5000"),
                      ("candidates", "17"), ("candidates", "x"),
                      ("balloon_cost", "0"), ("fast_search", "maybe")):
        g.sh("echo %s > %s/%s" % (bad, PAR, name), check=False)
        assert g.last_rc != 0, (name, bad)
    assert "search_depth: invalid value '5000'" in g.sh("dmesg")
    g.sh("echo 64 > %s/search_depth && echo 4 > %s/candidates" % (PAR, PAR))
    assert g.sh("cat %s/search_depth" % PAR).strip() == "64"
    assert g.sh("cat %s/candidates" % PAR).strip() == "4"
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)

    g.sh("echo 0 > %s/enabled" % LP)
    t0 = time.monotonic()
    while g.sh("test -d %s && cat %s/transition || echo 0" %
               (LP, LP)).strip() != "0":
        assert time.monotonic() - t0 < 60
        time.sleep(0.5)
    g.sh("rmmod guestmm_klp")
    # A normal load still works afterwards.
    g.sh("modprobe guestmm_klp")
    assert g.sh("cat %s/enabled" % LP).strip() == "1"

"""guestmm_klp as a user meets it on a supported build: a plain `insmod`
of the module alone works (the tracepoints are a soft dependency, and it
says how to get them); bad tunable values are rejected with -EINVAL and a
message, and keep the old value; there is no parameter that skips the
identity checks (no force or expect_* knob)."""
from klplib import LP, klp_features, wait_transition

GUEST = dict(mem=512, smp=2, balloon=None, tcg_single=True)
KERNELS = ("6.1", "6.12")
LIGHT = True

PAR = "/sys/module/guestmm_klp/parameters"
KO = "/lib/modules/$(uname -r)/extra/guestmm_klp.ko"


def run(g):
    # insmod alone, no trace module: loads, patches, tells what is missing.
    g.sh("dmesg -c > /dev/null")
    g.sh("insmod " + KO)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"
    wait_transition(g)
    log = g.sh("dmesg")
    assert "0 of 4 tracepoints: load guestmm_klp_trace before guestmm_klp" \
        in log, log
    features = klp_features(g.sh("uname -r").strip())
    assert "compact_zone replaced (compaction variant %s," % \
        features["compaction"] in log, log
    assert "guestmm_klp_trace" not in g.sh("cat /proc/modules")
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)

    # No knob skips the checks.
    params = g.sh("ls %s" % PAR).split()
    for knob in ("force", "expect_version", "expect_compact_zone_size"):
        assert knob not in params, params

    # Tunables: bad values give EINVAL and a message; good ones stick.
    for name, bad in (("search_depth", "0"), ("search_depth", "5000"),
                      ("candidates", "17"), ("candidates", "x"),
                      ("balloon_cost", "0"), ("fast_search", "maybe")):
        before = g.sh("cat %s/%s" % (PAR, name))
        g.sh("echo %s > %s/%s" % (bad, PAR, name), check=False)
        assert g.last_rc != 0, (name, bad)
        assert g.sh("cat %s/%s" % (PAR, name)) == before, (name, bad)
    assert "guestmm_klp: invalid value '5000' for parameter 'search_depth'" \
        in g.sh("dmesg")
    g.sh("echo 64 > %s/search_depth && echo 4 > %s/candidates" % (PAR, PAR))
    assert g.sh("cat %s/search_depth" % PAR).strip() == "64"
    assert g.sh("cat %s/candidates" % PAR).strip() == "4"
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)

    g.sh("echo 0 > %s/enabled" % LP)
    wait_transition(g, timeout=60)
    g.sh("rmmod guestmm_klp")
    # With the trace module first (what kmod's modprobe does by the soft
    # dependency), every tracepoint is there.
    g.sh("dmesg -c > /dev/null")
    g.sh("modprobe guestmm_klp_trace && modprobe guestmm_klp")
    assert g.sh("cat %s/enabled" % LP).strip() == "1"
    assert "tracepoints" not in g.sh("dmesg")
    assert g.sh("ls /sys/kernel/tracing/events/guestmm_klp/ | "
                "grep -c guestmm_klp_").strip() == "4"

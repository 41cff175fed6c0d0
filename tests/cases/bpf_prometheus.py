# SPDX-License-Identifier: GPL-2.0
"""guestmm-stat show -o prometheus: after compaction, migration and balloon traffic it is valid text format 0.0.4 and carries exactly the numbers of show -j; -o json is -j, a bad -o value is refused."""
import json

import bpfcheck
import promfmt

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
KERNELS = ("6.1", "6.12")
TIMEOUT = 900
LIGHT = True

SEP = "@@GUESTMM_PROM"
TRIES = 5


def read_both(g):
    """(show -j dict, show -o prometheus text) of one snapshot: show -j,
    the Prometheus text, show -j again until both JSON reads agree (the
    counters may move in between).  g.sh() returns stdout and stderr: the
    latter goes to a file, which must stay empty."""
    for i in range(TRIES):
        out = g.sh("exec 2>/tmp/prom.err; guestmm-stat show -j; echo %s; "
                   "guestmm-stat show -o prometheus; echo %s; "
                   "guestmm-stat show -j" % (SEP, SEP))
        j1, prom, j2 = out.split(SEP + "\n")
        j1, j2 = json.loads(j1), json.loads(j2)
        err = g.sh("cat /tmp/prom.err")
        assert err == "", err
        if j1 == j2:
            print("KEY bpf_prometheus stable_read try=%d" % (i + 1))
            return j1, prom
    raise AssertionError("counters moved during each of %d reads" % TRIES)


def run(g):
    g.sh("modprobe guestmm_balloon")
    # -m: module events (labels from tracefs names); -f: folio histograms
    out = g.sh("guestmm-stat load -m -f")
    assert "guestmm probes loaded" in out and " newly attached" in out, out
    bpfcheck.quiesce(g)

    bpfcheck.balloon_workload(g, 128)

    j, text = read_both(g)
    samples = promfmt.parse(text)
    fams = promfmt.families(text)
    print("KEY bpf_prometheus families=%d samples=%d bytes=%d" %
          (len(fams), len(samples), len(text)))
    want = promfmt.json_to_prom(j)
    missing = sorted(set(want) - set(samples))[:10]
    extra = sorted(set(samples) - set(want))[:10]
    differ = sorted((k, want[k], samples[k]) for k in set(want) & set(samples)
                    if want[k] != samples[k])[:10]
    assert not missing and not extra and not differ, \
        "show -j vs -o prometheus: missing %s extra %s differ %s" % \
        (missing, extra, differ)

    # The workload reached what is compared.
    assert j["compact"]["end"] > 0 and j["vmstat"]["pgmigrate_success"] > 0, j
    assert j["thp_migration"]["folio_timing"] is True, j["thp_migration"]
    assert j["histograms"]["folio_migration"]["base"]["count"] > 0
    assert j["module_events"], j["module_events"]
    assert samples[("guestmm_compact_passes_ended_total", frozenset())] == \
        j["compact"]["end"]
    assert fams["guestmm_compact_pass_duration_seconds"] == "histogram"
    assert fams["guestmm_balloon_inflated_pages_total"] == "counter"
    assert sum(1 for k in samples if k[0] == "guestmm_probe_attached") == \
        len(j["links"]) > 0

    # -o json is -j (same keys, same shape); -o table is the default.
    oj = json.loads(g.sh("guestmm-stat show -o json"))
    assert sorted(oj) == sorted(j), (sorted(oj), sorted(j))
    assert g.sh("guestmm-stat show -o table").startswith("attached (links in")

    # A bad -o value: argp's error names the accepted ones, nonzero exit.
    out = g.sh("guestmm-stat show -o yaml 2>&1", check=False)
    assert g.last_rc != 0, (g.last_rc, out)
    assert "invalid output format 'yaml' (table, json, prometheus)" in out, out
    assert g.sh("guestmm-stat show -o yaml 2>/dev/null", check=False) == ""
    # watch prints deltas: no Prometheus there.
    out = g.sh("guestmm-stat watch -o prometheus -c 1 2>&1", check=False)
    assert g.last_rc == 1 and "show -o prometheus" in out, (g.last_rc, out)
    g.sh("guestmm-stat unload")

"""tests/lib/promfmt.py: the strict parser of the Prometheus text format
that `guestmm-stat show -o prometheus` prints, and json_to_prom(), which
bpf_prometheus compares it with."""
import math
import os
import re

import promfmt

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GOOD = """\
# HELP guestmm_compact_passes_ended_total Compaction passes ended
# TYPE guestmm_compact_passes_ended_total counter
guestmm_compact_passes_ended_total 12
# HELP guestmm_module_events_total Module events \\\\ with a\\nnewline
# TYPE guestmm_module_events_total counter
guestmm_module_events_total{event="a\\"b\\\\c\\nd"} 3
guestmm_module_events_total{event="x:y"} 0
# a comment

# HELP guestmm_probe_attached 1 per link
# TYPE guestmm_probe_attached gauge
guestmm_probe_attached{link="compaction_begin"} 1
# HELP guestmm_x_duration_seconds Latency
# TYPE guestmm_x_duration_seconds histogram
guestmm_x_duration_seconds_bucket{kind="direct",le="0.000000001"} 1
guestmm_x_duration_seconds_bucket{kind="direct",le="0.000000003"} 4
guestmm_x_duration_seconds_bucket{kind="direct",le="+Inf"} 5
guestmm_x_duration_seconds_sum{kind="direct"} 0.000000012
guestmm_x_duration_seconds_count{kind="direct"} 5
guestmm_x_duration_seconds_bucket{kind="manual",le="0.000000001"} 0
guestmm_x_duration_seconds_bucket{kind="manual",le="+Inf"} 0
guestmm_x_duration_seconds_sum{kind="manual"} 0.000000000
guestmm_x_duration_seconds_count{kind="manual"} 0
# HELP guestmm_x_duration_max_seconds Largest
# TYPE guestmm_x_duration_max_seconds gauge
guestmm_x_duration_max_seconds{kind="direct"} 1.5e-08 1700000000000
"""


def key(name, **labels):
    return (name, frozenset(labels.items()))


def rejected(text, why):
    try:
        promfmt.parse(text)
    except promfmt.PromError as e:
        assert re.search(why, str(e)), (why, str(e))
        return
    raise AssertionError("accepted: %r" % text)


def test_parse_good():
    s = promfmt.parse(GOOD)
    assert s[key("guestmm_compact_passes_ended_total")] == 12
    assert s[key("guestmm_module_events_total", event='a"b\\c\nd')] == 3
    assert s[key("guestmm_x_duration_seconds_bucket", kind="direct",
                 le="+Inf")] == 5
    assert s[key("guestmm_x_duration_seconds_sum", kind="direct")] == 12e-9
    assert s[key("guestmm_x_duration_max_seconds", kind="direct")] == 1.5e-8
    assert len(s) == 14
    assert isinstance(s[key("guestmm_compact_passes_ended_total")], int)
    assert promfmt.families(GOOD)["guestmm_x_duration_seconds"] == "histogram"
    assert promfmt.parse("") == {}


def test_values():
    assert promfmt.parse_value("18446744073709551615") == 2 ** 64 - 1
    assert promfmt.parse_value("+Inf") == math.inf
    assert math.isnan(promfmt.parse_value("NaN"))
    assert promfmt.parse_value("549.755813887") == ((1 << 39) - 1) / 10 ** 9
    for bad in ("1,5", "0x10", "inf", ""):
        try:
            promfmt.parse_value(bad)
        except ValueError:
            continue
        raise AssertionError(bad)


HDR = "# HELP m_total h\n# TYPE m_total counter\n"
G = "# HELP g h\n# TYPE g gauge\n"
H = "# HELP h_seconds h\n# TYPE h_seconds histogram\n"


def test_rejects_family_layout():
    rejected("m_total 1\n", "not in the group")
    rejected("# TYPE m_total counter\nm_total 1\n", "before its HELP")
    rejected("# HELP m_total h\nm_total 1\n", "before its TYPE")
    rejected("# HELP m_total h\n# HELP g h\n# TYPE g gauge\n", "has no TYPE")
    rejected(HDR + "# HELP m_total again\n", "after its samples|second HELP")
    rejected("# HELP m_total h\n# HELP m_total h\n", "second HELP")
    rejected(HDR + "# TYPE m_total counter\n", "second TYPE")
    rejected(HDR + "m_total 1\n# TYPE m_total counter\n", "after its samples")
    rejected(HDR + "m_total 1\n" + G + "g 1\n" + HDR, "declared again")
    rejected(HDR + "m_total 1\n" + G + "m_total 2\n", "not in the group")
    rejected("# HELP m h\n# TYPE m counter\nm 1\n", "does not end in _total")
    rejected("# HELP s h\n# TYPE s summary\ns 1\n", "not one of")
    rejected("# HELP m_total\n", "malformed HELP")
    rejected("# HELP 1m h\n", "malformed HELP")
    rejected("# HELP m_total bad \\t escape\n", "bad escape")
    rejected(H + "h_seconds_bucket{le=\"+Inf\"} 0\nh_seconds_sum 0\n"
             "h_seconds_count 0\n# HELP h_seconds_count h\n"
             "# TYPE h_seconds_count gauge\n", "another family")


def test_rejects_samples():
    rejected(HDR + "m_total 1", "newline")
    rejected(HDR + "m_total  1\n", "one space")
    rejected(HDR + "m_total 1 \n", "one space")
    rejected(HDR + "m_total\n", "one space")
    rejected(HDR + "m_total abc\n", "not a number")
    rejected(HDR + "m_total 1 1.5\n", "timestamp")
    rejected(HDR + "m_total -1\n", "counter m_total is -1")
    rejected(HDR + "m_total NaN\n", "counter m_total is nan")
    rejected(HDR + "m_total 1\nm_total 2\n", "twice")
    rejected(HDR + 'm_total{a="1"} 1\nm_total{a="1"} 2\n', "twice")
    rejected(HDR + 'm_total{a="1",a="2"} 1\n', "label a twice")
    rejected(HDR + 'm_total{1a="1"} 1\n', "bad label name")
    rejected(HDR + 'm_total{__a="1"} 1\n', "reserved label")
    rejected(HDR + 'm_total{a="1",} 1\n', "bad label name")
    rejected(HDR + 'm_total{a = "1"} 1\n', "expected =")
    rejected(HDR + 'm_total{a="1" 1\n', "expected , or }")
    rejected(HDR + 'm_total{a="1\\t"} 1\n', "bad escape")
    rejected(HDR + 'm_total{a="1} 1\n', "unterminated")
    rejected(G + 'g{le="1"} 1\n', "le is for histogram buckets")


def hist(*lines):
    return H + "".join(l + "\n" for l in lines)


def test_rejects_histograms():
    ok = ['h_seconds_bucket{le="1"} 1', 'h_seconds_bucket{le="+Inf"} 2',
          "h_seconds_sum 3", "h_seconds_count 2"]
    assert len(promfmt.parse(hist(*ok))) == 4
    rejected(hist(ok[0], ok[2], ok[3]), 'not le="\\+Inf"')
    rejected(hist(ok[1], ok[0], ok[2], ok[3]), 'not le="\\+Inf"|increase')
    rejected(hist('h_seconds_bucket{le="2"} 1', 'h_seconds_bucket{le="1"} 1',
                  *ok[1:]), "le does not increase")
    rejected(hist('h_seconds_bucket{le="1"} 3', *ok[1:]), "decreases")
    rejected(hist(ok[0], 'h_seconds_bucket{le="+Inf"} 3', *ok[2:]),
             '"\\+Inf" is 3, _count 2')
    rejected(hist(ok[0], ok[1], ok[3]), "no _sum")
    rejected(hist(ok[0], ok[1], ok[2]), "no _count")
    rejected(hist('h_seconds_bucket{le="x"} 1', *ok[1:]), "not a number")
    rejected(hist("h_seconds_bucket 1", *ok[1:]), "need it")
    rejected(hist(ok[0], ok[1], 'h_seconds_sum{le="1"} 3', ok[3]),
             "le is for histogram buckets")
    rejected(hist(*ok) + "h_seconds 1\n", "not in the group")


# ---------------------------------------------------------------------
# json_to_prom against a show -j object shaped as stat_json.c prints it

KINDS = ["direct", "kcompactd", "proactive", "manual"]
RESULTS = ["not_suitable_zone", "skipped", "deferred", "no_suitable_page",
           "continue", "complete", "partial_skipped", "contended", "success"]
REASONS = ["compaction", "memory_failure", "memory_hotplug",
           "syscall_or_cpuset", "mempolicy_mbind", "numa_misplaced",
           "contig_range", "longterm_pin", "demotion"]
MODES = ["async", "sync_light", "sync", "sync_no_copy"]
PRIOS = ["sync_full", "sync_light", "async"]
MTS = ["unmovable", "movable", "reclaimable", "highatomic", "cma", "isolate"]
LABELS = {"kind": KINDS, "status": RESULTS, "result": RESULTS,
          "prio": PRIOS, "migratetype": MTS, "mode": MODES}


def hist_json(count=0, sum_ns=0, max_ns=0, slots=None):
    s = [0] * 40
    for i, v in (slots or {}).items():
        s[i] = v
    return {"count": count, "sum_ns": sum_ns, "max_ns": max_ns,
            "log2_ns_slots": s}


def counters(table, **rest):
    """A zero show -j object of a guestmm.h table, with the keys in rest."""
    obj = {}
    for c in promfmt.TABLES[table]:
        if c.kind == "C":
            obj[c.member] = 0
        elif c.json == "named":
            obj[c.member] = {n: 0 for n in LABELS[c.label]}
        else:
            obj[c.member] = [0] * c.length
    obj.update(rest)
    return obj


def show_j():
    """A zero show -j object with 6.1's enum names."""
    return {
        "pin_dir": "/sys/fs/bpf/guestmm",
        "links": ["compaction_begin", "compaction_end"],
        "vmstat": {n: 0 for n in promfmt.VMSTAT},
        "compact": counters("COMPACT"),
        "compact_direct": [counters("COMPACT_DIRECT", order=o)
                           for o in range(16)],
        "extfrag": counters("EXTFRAG"),
        "migrate": [counters("MIGRATE", reason=r, reason_id=i)
                    for i, r in enumerate(REASONS)],
        "thp_migration": counters("THP_MIGRATION", folio_timing=False,
                                  folios_moved_base=0, folios_moved_thp=0),
        "node_reclaim": counters("NODE_RECLAIM"),
        "balloon": counters("BALLOON"),
        "module_events": {
            "guestmm_balloon:guestmm_balloon_inflate":
                {"count": 2, "sum_field": "nr", "sum": 1024},
            "guestmm_balloon:guestmm_balloon_migrate": {"count": 5}},
        "histograms": {
            "compaction_pass": {k: hist_json() for k in KINDS},
            "direct_compaction_stall": {str(o): hist_json() for o in range(16)},
            "folio_migration": {"base": hist_json(), "thp": hist_json()},
            "node_reclaim": hist_json()},
    }


def test_json_to_prom_values():
    j = show_j()
    j["compact"]["run_ns"] = 1234567891
    j["compact"]["kind_migrate_scanned"][1] = 77
    j["compact_direct"][9]["prio"]["async"] = 4
    j["migrate"][2]["mode"]["sync"] = 6
    j["thp_migration"]["folio_timing"] = True
    j["node_reclaim"]["order"][3] = 8
    # slots adding up to less than count: the rest is only in +Inf
    j["histograms"]["node_reclaim"] = hist_json(5, 10 ** 9 + 1, 7,
                                                {0: 1, 2: 2, 39: 1})
    # more than count (an unlocked per-CPU read): capped at count
    j["histograms"]["compaction_pass"]["manual"] = hist_json(2, 3, 3, {1: 3})
    p = promfmt.json_to_prom(j)
    assert p[key("guestmm_compact_run_seconds_total")] == 1.234567891
    assert p[key("guestmm_compact_migrate_scanned_pages_by_kind_total",
                 kind="kcompactd")] == 77
    assert p[key("guestmm_compact_direct_tries_by_prio_total", order="9",
                 prio="async")] == 4
    assert p[key("guestmm_migrate_calls_by_mode_total", reason="memory_hotplug",
                 mode="sync")] == 6
    assert p[key("guestmm_thp_migration_folio_timing_enabled")] == 1
    assert p[key("guestmm_node_reclaim_passes_by_order_total", order="3")] == 8
    assert p[key("guestmm_probe_attached", link="compaction_end")] == 1
    assert p[key("guestmm_probe_info", pin_dir="/sys/fs/bpf/guestmm")] == 1
    assert p[key("guestmm_vmstat_compact_stall_total")] == 0
    assert p[key("guestmm_module_event_field_sum_total",
                 event="guestmm_balloon:guestmm_balloon_inflate",
                 field="nr")] == 1024
    assert key("guestmm_module_event_field_sum_total",
               event="guestmm_balloon:guestmm_balloon_migrate",
               field="") not in p

    b = "guestmm_node_reclaim_pass_duration_seconds_bucket"
    assert p[key(b, le="0.000000001")] == 1
    assert p[key(b, le="0.000000003")] == 1
    assert p[key(b, le="0.000000007")] == 3
    assert p[key(b, le="549.755813887")] == 3
    assert p[key(b, le="+Inf")] == 5
    assert len([k for k in p if k[0] == b]) == 40
    assert p[key("guestmm_node_reclaim_pass_duration_seconds_sum")] == 1.000000001
    assert p[key("guestmm_node_reclaim_pass_duration_max_seconds")] == 7e-9
    b = "guestmm_compact_pass_duration_seconds_bucket"
    assert p[key(b, kind="manual", le="0.000000001")] == 0
    assert p[key(b, kind="manual", le="0.000000003")] == 2
    assert p[key(b, kind="manual", le="+Inf")] == 2


def test_json_to_prom_checks_folio_counts():
    j = show_j()
    j["thp_migration"]["folios_moved_thp"] = 1
    try:
        promfmt.json_to_prom(j)
    except ValueError as e:
        assert "folios_moved_thp" in str(e)
        return
    raise AssertionError("folios_moved_thp != the thp histogram's count")


def test_le_labels():
    assert promfmt.le_label(0) == "0.000000001"
    assert promfmt.le_label(9) == "0.000001023"
    assert promfmt.le_label(38) == "549.755813887"
    assert promfmt.seconds(2 ** 64 - 1) == float("18446744073.709551615")


def test_vmstat_names():
    assert promfmt.VMSTAT == [
        "compact_stall", "compact_success", "compact_fail",
        "compact_migrate_scanned", "compact_free_scanned",
        "compact_daemon_wake", "compact_daemon_migrate_scanned",
        "compact_daemon_free_scanned", "pgmigrate_success", "pgmigrate_fail",
        "thp_migration_success", "thp_migration_fail", "thp_migration_split",
        "balloon_inflate", "balloon_deflate", "balloon_migrate",
        "zone_reclaim_failed", "compact_daemon_wake_requests"]


def test_families_match_the_c_sources():
    """Every family json_to_prom() produces is one that bpf/guestmm.h's
    tables or stat_prom.c name, and the other way round (vmstat and
    histogram names are built in stat_prom.c)."""
    c_names = set()
    for f in ("stat_prom.c", "guestmm.h"):
        with open(os.path.join(TOP, "bpf", f)) as fh:
            src = fh.read()
        c_names |= set(re.findall(r'"(guestmm_[a-z0-9_]+)"', src))
        if f == "stat_prom.c":
            prom_c = src
    c_names -= {n for n in c_names if n.endswith("_duration")}
    hists = {name for _, name, _ in promfmt.HISTS}
    assert hists <= set(re.findall(r'"(guestmm_[a-z0-9_]+_duration)"', prom_c))
    c_names |= {n + s for n in hists for s in ("_seconds", "_max_seconds")}
    c_names |= {"guestmm_vmstat_%s_total" % v for v in promfmt.VMSTAT}
    assert 'snprintf(name, sizeof(name), "guestmm_vmstat_%s_total"' in prom_c

    py = set()
    for name, _ in promfmt.json_to_prom(show_j()):
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and name[:-len(suffix)] in c_names:
                name = name[:-len(suffix)]
        py.add(name)
    assert py == c_names, (sorted(py - c_names), sorted(c_names - py))

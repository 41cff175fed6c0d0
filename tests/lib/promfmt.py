# SPDX-License-Identifier: GPL-2.0
"""The Prometheus text exposition format 0.0.4 as `guestmm-stat show -o
prometheus` prints it: a strict parser, and json_to_prom(), the same
samples derived from `guestmm-stat show -j`.

    import promfmt
    samples = promfmt.parse(text)   # {(name, frozenset(labels.items())): value}
    assert promfmt.json_to_prom(json.loads(js)) == samples

parse() raises PromError (a ValueError naming the line) unless:
- every family has one `# HELP` and one `# TYPE` (counter, gauge or
  histogram), both before its first sample, and its samples follow them
  as one group (a family never comes back);
- metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  [a-zA-Z_][a-zA-Z0-9_]* (not __*), a label appears once per sample, and
  label values use only the escapes \\\\, \\" and \\n;
- counter names end in _total and their values are >= 0;
- each histogram series has _bucket samples with strictly increasing le,
  non-decreasing and ending with le="+Inf", which equals its _count, and a
  _sum; le appears on buckets only;
- no series (name and labels) appears twice, and no family's sample names
  (a histogram's _bucket, _sum, _count) collide with another family's;
- the text ends with a newline.
It is stricter than the format about layout, as guestmm-stat prints it:
one space between name, value and the optional timestamp, no spaces or
trailing comma inside the braces.  Values are int when written as an
integer, else float ("+Inf", "-Inf", "NaN" included).
"""
import math
import re

NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL_RE = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
INT_RE = re.compile(r"[+-]?[0-9]+\Z")
FLOAT_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")
TYPES = ("counter", "gauge", "histogram")
HIST_SUFFIXES = ("_bucket", "_sum", "_count")


class PromError(ValueError):
    pass


def parse_value(tok):
    """A sample value: int if written as one, else float."""
    if INT_RE.match(tok):
        return int(tok)
    if tok in ("+Inf", "Inf"):
        return math.inf
    if tok == "-Inf":
        return -math.inf
    if tok == "NaN":
        return math.nan
    if FLOAT_RE.match(tok):
        return float(tok)
    raise ValueError("not a number: %r" % tok)


def _label_value(line, i):
    """The escaped value starting after the opening quote at line[i - 1]:
    (value, index after the closing quote)."""
    out = []
    while i < len(line):
        c = line[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            e = line[i + 1:i + 2]
            if e not in ("\\", '"', "n"):
                raise ValueError("bad escape \\%s in a label value" % e)
            out.append("\n" if e == "n" else e)
            i += 2
            continue
        out.append(c)
        i += 1
    raise ValueError("unterminated label value")


def parse_sample(line):
    """(name, {label: value}, value) of one sample line."""
    m = NAME_RE.match(line)
    if not m:
        raise ValueError("no metric name")
    name, i = m.group(0), m.end()
    labels = {}
    if line[i:i + 1] == "{":
        i += 1
        while True:
            m = LABEL_RE.match(line, i)
            if not m:
                raise ValueError("bad label name at column %d" % (i + 1))
            key = m.group(0)
            if key.startswith("__"):
                raise ValueError("reserved label name %s" % key)
            if key in labels:
                raise ValueError("label %s twice" % key)
            i = m.end()
            if line[i:i + 2] != '="':
                raise ValueError("label %s: expected =\"" % key)
            labels[key], i = _label_value(line, i + 2)
            if line[i:i + 1] == ",":
                i += 1
                continue
            if line[i:i + 1] == "}":
                i += 1
                break
            raise ValueError("expected , or } after label %s" % key)
    if line[i:i + 1] != " ":
        raise ValueError("expected one space after the name and labels")
    rest = line[i + 1:].split(" ")
    if not 1 <= len(rest) <= 2 or "" in rest:
        raise ValueError("expected value [timestamp] separated by one space")
    value = parse_value(rest[0])
    if len(rest) == 2 and not INT_RE.match(rest[1]):
        raise ValueError("bad timestamp %r" % rest[1])
    return name, labels, value


def _unescape_help(doc):
    out, i = [], 0
    while i < len(doc):
        if doc[i] == "\\":
            e = doc[i + 1:i + 2]
            if e not in ("\\", "n"):
                raise ValueError("bad escape \\%s in HELP" % e)
            out.append("\n" if e == "n" else e)
            i += 2
        else:
            out.append(doc[i])
            i += 1
    return "".join(out)


class _Family:
    def __init__(self, name):
        self.name = name
        self.help = None
        self.type = None
        self.samples = []       # (name, labels, value, lineno)

    def sample_names(self):
        if self.type == "histogram":
            return {self.name + s for s in HIST_SUFFIXES}
        return {self.name}


def _check_histogram(fam):
    series = {}
    for name, labels, value, n in fam.samples:
        rest = frozenset((k, v) for k, v in labels.items() if k != "le")
        s = series.setdefault(rest, {"buckets": [], "sum": None,
                                     "count": None, "line": n})
        if name.endswith("_bucket"):
            try:
                le = parse_value(labels["le"])
            except ValueError:
                raise PromError("line %d: le=%r is not a number" %
                                (n, labels["le"]))
            s["buckets"].append((le, value, n))
        elif name.endswith("_sum"):
            s["sum"] = value
        else:
            s["count"] = value
    for rest, s in series.items():
        where = "histogram %s%s (line %d)" % (fam.name, dict(rest), s["line"])
        if s["count"] is None or s["sum"] is None:
            raise PromError("%s: no _count or no _sum" % where)
        if not s["buckets"] or s["buckets"][-1][0] != math.inf:
            raise PromError('%s: the last bucket is not le="+Inf"' % where)
        prev_le, prev_v = -math.inf, 0
        for le, v, n in s["buckets"]:
            if not le > prev_le:
                raise PromError("line %d: le does not increase" % n)
            if math.isnan(v) or v < prev_v:
                raise PromError("line %d: bucket count %r decreases" % (n, v))
            prev_le, prev_v = le, v
        if s["buckets"][-1][1] != s["count"]:
            raise PromError('%s: le="+Inf" is %r, _count %r' %
                            (where, s["buckets"][-1][1], s["count"]))


def _close(fam, n):
    if fam.help is None or fam.type is None:
        raise PromError("line %d: family %s has no %s" %
                        (n, fam.name, "HELP" if fam.help is None else "TYPE"))
    if fam.type == "histogram":
        _check_histogram(fam)


def parse(text):
    """{(name, frozenset(labels.items())): value} of a 0.0.4 text, checked
    as the module docstring says; raises PromError."""
    if text and not text.endswith("\n"):
        raise PromError("the text does not end with a newline")
    out = {}
    closed = set()          # family names seen and finished
    reserved = set()        # sample names of every family so far
    fam = None
    lines = text.split("\n")[:-1] if text else []
    for n, line in enumerate(lines, 1):
        if not line:
            continue
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if parts[0] != "#" or len(parts) < 2 or \
                    parts[1] not in ("HELP", "TYPE"):
                continue                    # a comment
            if len(parts) < 4 or not NAME_RE.fullmatch(parts[2]):
                raise PromError("line %d: malformed %s line" % (n, parts[1]))
            kind, name, arg = parts[1], parts[2], parts[3]
            if fam is None or fam.name != name:
                if fam is not None:
                    _close(fam, n)
                    closed.add(fam.name)
                if name in closed:
                    raise PromError("line %d: family %s declared again" % (n, name))
                fam = _Family(name)
            elif fam.samples:
                raise PromError("line %d: %s of %s after its samples" % (n, kind, name))
            if kind == "HELP":
                if fam.help is not None:
                    raise PromError("line %d: second HELP for %s" % (n, name))
                try:
                    fam.help = _unescape_help(arg)
                except ValueError as e:
                    raise PromError("line %d: %s" % (n, e))
            else:
                if fam.type is not None:
                    raise PromError("line %d: second TYPE for %s" % (n, name))
                if arg not in TYPES:
                    raise PromError("line %d: type %r is not one of %s" %
                                    (n, arg, ", ".join(TYPES)))
                if arg == "counter" and not name.endswith("_total"):
                    raise PromError("line %d: counter %s does not end in _total" %
                                    (n, name))
                fam.type = arg
                names = fam.sample_names()
                if names & reserved:
                    raise PromError("line %d: %s's sample names %s are another "
                                    "family's" % (n, name, sorted(names & reserved)))
                reserved |= names
            continue
        try:
            name, labels, value = parse_sample(line)
        except ValueError as e:
            raise PromError("line %d: %s: %r" % (n, e, line))
        if fam is None or name not in fam.sample_names():
            raise PromError("line %d: sample %s is not in the group of its "
                            "family (after its # HELP and # TYPE)" % (n, name))
        if fam.type is None or fam.help is None:
            raise PromError("line %d: sample of %s before its %s" %
                            (n, fam.name, "TYPE" if fam.type is None else "HELP"))
        bucket = fam.type == "histogram" and name.endswith("_bucket")
        if bucket != ("le" in labels):
            raise PromError("line %d: le is for histogram buckets, and they "
                            "need it" % n)
        if fam.type == "counter" and not value >= 0:
            raise PromError("line %d: counter %s is %r" % (n, name, value))
        key = (name, frozenset(labels.items()))
        if key in out:
            raise PromError("line %d: series %s%s twice" % (n, name, labels))
        out[key] = value
        fam.samples.append((name, labels, value, n))
    if fam is not None:
        _close(fam, len(lines))
    return out


# ---------------------------------------------------------------------
# show -j -> the samples show -o prometheus prints (bpf/stat_prom.c)

NSEC = 10 ** 9
KINDS = ("direct", "kcompactd", "proactive", "manual")

COMPACT = [
    ("begin", "guestmm_compact_passes_begun_total"),
    ("end", "guestmm_compact_passes_ended_total"),
    ("sync", "guestmm_compact_sync_passes_total"),
    ("async", "guestmm_compact_async_passes_total"),
    ("migrate_scanned", "guestmm_compact_migrate_scanned_pages_total"),
    ("free_scanned", "guestmm_compact_free_scanned_pages_total"),
    ("run_ns", "guestmm_compact_run_seconds_total"),
    ("migratepages", "guestmm_compact_migratepages_batches_total"),
    ("nr_migrated", "guestmm_compact_migrated_pages_total"),
    ("nr_failed", "guestmm_compact_migrate_failed_pages_total"),
    ("isolate_migrate", "guestmm_compact_isolate_migrate_blocks_total"),
    ("isolate_migrate_scanned",
     "guestmm_compact_isolate_migrate_scanned_pages_total"),
    ("isolate_migrate_taken", "guestmm_compact_isolate_migrate_taken_pages_total"),
    ("isolate_free", "guestmm_compact_isolate_free_blocks_total"),
    ("isolate_free_scanned", "guestmm_compact_isolate_free_scanned_pages_total"),
    ("isolate_free_taken", "guestmm_compact_isolate_free_taken_pages_total"),
    ("deferred", "guestmm_compact_deferred_total"),
    ("defer_compaction", "guestmm_compact_defer_compaction_total"),
    ("defer_reset", "guestmm_compact_defer_reset_total"),
    ("kcompactd_wake", "guestmm_compact_kcompactd_wakes_total"),
    ("kcompactd_sleep", "guestmm_compact_kcompactd_sleeps_total"),
    ("wakeup_kcompactd", "guestmm_compact_kcompactd_wake_requests_total"),
]
# (JSON key, family, label) of enum- or kind-keyed compact members
COMPACT_NAMED = [
    ("kind", "guestmm_compact_passes_by_kind_total", "kind"),
    ("status", "guestmm_compact_end_status_total", "status"),
    ("suitable", "guestmm_compact_suitable_total", "result"),
    ("finished", "guestmm_compact_finished_total", "result"),
]
COMPACT_BY_KIND = [
    ("kind_migrate_scanned", "guestmm_compact_migrate_scanned_pages_by_kind_total"),
    ("kind_free_scanned", "guestmm_compact_free_scanned_pages_by_kind_total"),
]
DIRECT = [
    ("try_to_compact", "guestmm_compact_direct_tries_total"),
    ("stall", "guestmm_compact_direct_stalls_total"),
    ("success", "guestmm_compact_direct_successes_total"),
    ("fail", "guestmm_compact_direct_failures_total"),
    ("skipped", "guestmm_compact_direct_skipped_total"),
    ("stall_ns", "guestmm_compact_direct_stall_seconds_total"),
]
EXTFRAG = [
    ("events", "guestmm_extfrag_events_total"),
    ("fragmenting", "guestmm_extfrag_fragmenting_total"),
    ("change_ownership", "guestmm_extfrag_change_ownership_total"),
]
EXTFRAG_NAMED = [
    ("alloc_migratetype", "guestmm_extfrag_alloc_migratetype_total"),
    ("fallback_migratetype", "guestmm_extfrag_fallback_migratetype_total"),
]
MIGRATE = [
    ("start", "guestmm_migrate_starts_total"),
    ("calls", "guestmm_migrate_calls_total"),
    ("succeeded", "guestmm_migrate_succeeded_pages_total"),
    ("failed", "guestmm_migrate_failed_pages_total"),
    ("thp_succeeded", "guestmm_migrate_thp_succeeded_total"),
    ("thp_failed", "guestmm_migrate_thp_failed_total"),
    ("thp_split", "guestmm_migrate_thp_split_total"),
    ("large_folio_split", "guestmm_migrate_large_folio_split_total"),
    ("call_ns", "guestmm_migrate_call_seconds_total"),
]
THP = [
    ("set_migration_pmd", "guestmm_thp_migration_set_pmd_total"),
    ("remove_migration_pmd", "guestmm_thp_migration_remove_pmd_total"),
    ("folios_move_failed", "guestmm_thp_migration_folios_move_failed_total"),
]
RECLAIM = [
    ("begin", "guestmm_node_reclaim_passes_begun_total"),
    ("end", "guestmm_node_reclaim_passes_ended_total"),
    ("nr_reclaimed", "guestmm_node_reclaim_reclaimed_pages_total"),
    ("empty", "guestmm_node_reclaim_empty_passes_total"),
    ("failed", "guestmm_node_reclaim_failed_passes_total"),
    ("run_ns", "guestmm_node_reclaim_run_seconds_total"),
]
BALLOON = [
    ("inflate", "guestmm_balloon_inflated_pages_total"),
    ("deflate", "guestmm_balloon_deflated_pages_total"),
    ("migrate", "guestmm_balloon_migrated_pages_total"),
    ("migrate_failed", "guestmm_balloon_migrate_failed_total"),
    ("dequeue_empty", "guestmm_balloon_dequeue_empty_total"),
]
# (JSON histograms key, family without _seconds, label or None)
HISTS = [
    ("compaction_pass", "guestmm_compact_pass_duration", "kind"),
    ("direct_compaction_stall", "guestmm_compact_direct_stall_duration", "order"),
    ("folio_migration", "guestmm_migrate_folio_duration", "folio"),
    ("node_reclaim", "guestmm_node_reclaim_pass_duration", None),
]


def seconds(ns):
    """ns as the float parse() reads from stat_prom.c's exact "%d.%09d"
    (int / int is correctly rounded, as float() of the decimal is)."""
    return ns / NSEC


def le_label(slot):
    """le of histogram slot i: 2^(i+1) - 1 ns, the largest integer number
    of nanoseconds slots 0..i hold, in seconds as stat_prom.c prints it."""
    return "%d.%09d" % divmod((1 << (slot + 1)) - 1, NSEC)


def json_to_prom(j):
    """The samples of `show -o prometheus` that go with `show -j` output j
    (a dict), keyed as parse() keys them."""
    out = {}

    def put(name, labels, v):
        key = (name, frozenset(labels.items()))
        if key in out:
            raise ValueError("series %s%s twice" % (name, labels))
        out[key] = v

    def fields(obj, table, labels):
        for key, name in table:
            v = obj[key]
            put(name, labels, seconds(v) if key.endswith("_ns") else v)

    put("guestmm_probe_info", {"pin_dir": j["pin_dir"]}, 1)
    for link in j["links"]:
        put("guestmm_probe_attached", {"link": link}, 1)
    for name, v in j["vmstat"].items():
        put("guestmm_vmstat_%s_total" % name, {}, v)

    c = j["compact"]
    fields(c, COMPACT, {})
    for key, name, label in COMPACT_NAMED:
        for k, v in c[key].items():
            put(name, {label: k}, v)
    for key, name in COMPACT_BY_KIND:
        if len(c[key]) != len(KINDS):
            raise ValueError("compact.%s has %d kinds" % (key, len(c[key])))
        for kind, v in zip(KINDS, c[key]):
            put(name, {"kind": kind}, v)

    for d in j["compact_direct"]:
        order = {"order": str(d["order"])}
        fields(d, DIRECT, order)
        for prio, v in d["prio"].items():
            put("guestmm_compact_direct_tries_by_prio_total",
                dict(order, prio=prio), v)

    e = j["extfrag"]
    fields(e, EXTFRAG, {})
    for key, name in EXTFRAG_NAMED:
        for mt, v in e[key].items():
            put(name, {"migratetype": mt}, v)

    for m in j["migrate"]:
        reason = {"reason": m["reason"]}
        fields(m, MIGRATE, reason)
        for mode, v in m["mode"].items():
            put("guestmm_migrate_calls_by_mode_total", dict(reason, mode=mode), v)

    t = j["thp_migration"]
    fields(t, THP, {})
    put("guestmm_thp_migration_folio_timing_enabled", {},
        1 if t["folio_timing"] else 0)
    # not exported: the folio_migration histograms' counts
    for kind in ("base", "thp"):
        h = j["histograms"]["folio_migration"][kind]["count"]
        if t["folios_moved_" + kind] != h:
            raise ValueError("folios_moved_%s %d != folio_migration %s count %d"
                             % (kind, t["folios_moved_" + kind], kind, h))

    r = j["node_reclaim"]
    fields(r, RECLAIM, {})
    for order, v in enumerate(r["order"]):
        put("guestmm_node_reclaim_passes_by_order_total", {"order": str(order)}, v)

    fields(j["balloon"], BALLOON, {})

    for event, ev in j["module_events"].items():
        put("guestmm_module_events_total", {"event": event}, ev["count"])
        if "sum" in ev:
            put("guestmm_module_event_field_sum_total",
                {"event": event, "field": ev["sum_field"]}, ev["sum"])

    for key, name, label in HISTS:
        hs = j["histograms"][key]
        rows = [({}, hs)] if label is None else \
            [({label: k}, h) for k, h in hs.items()]
        for labels, h in rows:
            _hist(put, name, labels, h)
    return out


def _hist(put, name, labels, h):
    """As stat_prom.c: cumulative slots capped at count; slot 39 (2^39 ns
    and up) only in +Inf."""
    fam = name + "_seconds"
    count, cum = h["count"], 0
    for i, n in enumerate(h["log2_ns_slots"][:-1]):
        cum += n
        put(fam + "_bucket", dict(labels, le=le_label(i)), min(cum, count))
    put(fam + "_bucket", dict(labels, le="+Inf"), count)
    put(fam + "_sum", labels, seconds(h["sum_ns"]))
    put(fam + "_count", labels, count)
    put(name + "_max_seconds", labels, seconds(h["max_ns"]))


def families(text):
    """{family: type} of a text that parse() accepts."""
    res = {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            res[name] = typ
    return res

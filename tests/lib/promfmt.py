# SPDX-License-Identifier: GPL-2.0
"""The Prometheus text exposition format 0.0.4 as `guestmm-stat show -o
prometheus` prints it: a strict parser, and json_to_prom(), the same
samples derived from `guestmm-stat show -j`.

    import promfmt
    samples = promfmt.parse(text)   # {(name, frozenset(labels.items())): value}
    assert promfmt.json_to_prom(json.loads(js)) == samples

json_to_prom() takes the counters from bpf/guestmm.h's tables, which it
reads at import (TABLES: the C(...)/A(...) entries of each
GUESTMM_<map>_COUNTERS), as stat_prom.c takes them from the same lines.

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
import collections
import math
import os
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
# The counter tables of bpf/guestmm.h, read from it: the one list of
# counters, which stat_show.c, stat_json.c and stat_prom.c print.

GUESTMM_H = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bpf", "guestmm.h")

# C(member, unit, family, help, show, vmstat) is a __u64; A(member, length,
# label, json, family, help, show, vmstat) an array of them (length: an
# int here).  show and vmstat are the C text of those columns.
Counter = collections.namedtuple(
    "Counter", "kind member unit length label json family help show vmstat")

_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/', re.S)
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def _string(arg):
    """The value of a C string literal argument (adjacent ones joined)."""
    parts = _STRING.findall(arg)
    if not parts or _STRING.sub("", arg).strip():
        raise ValueError("not a string literal: %s" % arg)
    return "".join(re.sub(r"\\(.)", r"\1", p) for p in parts)


def _args(text, i):
    """The arguments of the call whose "(" is just before text[i], split at
    the commas outside parentheses and strings: (args, index after ")")."""
    args, depth, start = [], 0, i
    while i < len(text):
        m = _STRING_OR_COMMENT.match(text, i)
        if m:
            i = m.end()
            continue
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c in ",)" and not depth:
            args.append(" ".join(text[start:i].split()))
            if c == ")":
                return args, i + 1
            start = i + 1
        i += 1
    raise ValueError("unterminated call in %s" % GUESTMM_H)


def read_tables(path=GUESTMM_H):
    """{"COMPACT": [Counter, ...], "COMPACT_DIRECT": ...} of the
    GUESTMM_<map>_COUNTERS(C, A) tables, in their order."""
    with open(path) as f:
        text = f.read()
    # comments out, continuation lines joined; strings kept as they are
    text = _STRING_OR_COMMENT.sub(
        lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)
    text = text.replace("\\\n", " ")
    consts = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^#define\s+(GUESTMM_\w+)\s+(\d+)\s*$", text, re.M)}
    tables = {}
    for m in re.finditer(r"^#define GUESTMM_(\w+)_COUNTERS\(C, A\)(.*)$",
                         text, re.M):
        body, i, rows = m.group(2), 0, []
        while body[i:].strip():
            call = re.compile(r"\s*([CA])\(").match(body, i)
            if not call:
                raise ValueError("GUESTMM_%s_COUNTERS: expected C( or A( at %r"
                                 % (m.group(1), body[i:i + 40]))
            kind = call.group(1)
            args, i = _args(body, call.end())
            want = 6 if kind == "C" else 8
            if len(args) != want:
                raise ValueError("%s(%s): %d arguments, not %d" %
                                 (kind, args[0], want, len(args)))
            if kind == "C":
                member, unit, family, help_, show, vm = args
                length = label = json = None
            else:
                member, length, label, json, family, help_, show, vm = args
                length, unit = int(consts.get(length, length)), "count"
            rows.append(Counter(kind, member, unit, length, label, json,
                                _string(family), _string(help_), show, vm))
        tables[m.group(1)] = rows
    return tables


TABLES = read_tables()

# (show -j key, table, label of the map's entries or None), in show -j's order
MAPS = [
    ("compact", "COMPACT", None),
    ("compact_direct", "COMPACT_DIRECT", "order"),
    ("extfrag", "EXTFRAG", None),
    ("migrate", "MIGRATE", "reason"),
    ("thp_migration", "THP_MIGRATION", None),
    ("node_reclaim", "NODE_RECLAIM", None),
    ("balloon", "BALLOON", None),
]


def _scalars(table):
    return [(c.member, c.family) for c in TABLES[table] if c.kind == "C"]


def _arrays(table, json):
    return [(c.member, c.family, c.label) for c in TABLES[table]
            if c.kind == "A" and c.json == json]


NSEC = 10 ** 9
KINDS = ("direct", "kcompactd", "proactive", "manual")

# (show -j key, family) of each map's __u64 counters
COMPACT = _scalars("COMPACT")
DIRECT = _scalars("COMPACT_DIRECT")
EXTFRAG = _scalars("EXTFRAG")
MIGRATE = _scalars("MIGRATE")
THP = _scalars("THP_MIGRATION")
RECLAIM = _scalars("NODE_RECLAIM")
BALLOON = _scalars("BALLOON")
# (JSON key, family, label) of enum- or kind-keyed compact members
COMPACT_NAMED = _arrays("COMPACT", "named")
COMPACT_BY_KIND = [(m, f) for m, f, _ in _arrays("COMPACT", "list")]
EXTFRAG_NAMED = [(m, f) for m, f, _ in _arrays("EXTFRAG", "named")]
# show -j's vmstat names, by VMSTAT() slot (guestmm_vmstat_<name>_total)
VMSTAT = [name for _, name in sorted(
    (int(m.group(1)), m.group(2)) for t in TABLES.values() for c in t
    for m in [re.match(r'VMSTAT(?:_AT)?\((\d+), "(\w+)"', c.vmstat)] if m)]
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

    put("guestmm_probe_info", {"pin_dir": j["pin_dir"]}, 1)
    for link in j["links"]:
        put("guestmm_probe_attached", {"link": link}, 1)
    for name, v in j["vmstat"].items():
        put("guestmm_vmstat_%s_total" % name, {}, v)

    for key, table, row in MAPS:
        for obj in [j[key]] if row is None else j[key]:
            labels = {} if row is None else {row: str(obj[row])}
            for c in TABLES[table]:
                _counter(put, "%s.%s" % (key, c.member), c, obj[c.member], labels)

    t = j["thp_migration"]
    put("guestmm_thp_migration_folio_timing_enabled", {},
        1 if t["folio_timing"] else 0)
    # not exported: the folio_migration histograms' counts
    for kind in ("base", "thp"):
        h = j["histograms"]["folio_migration"][kind]["count"]
        if t["folios_moved_" + kind] != h:
            raise ValueError("folios_moved_%s %d != folio_migration %s count %d"
                             % (kind, t["folios_moved_" + kind], kind, h))

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


def _counter(put, where, c, v, labels):
    """The samples of the guestmm.h counter c, whose show -j value is v."""
    if c.kind == "C":
        put(c.family, labels, seconds(v) if c.unit == "ns" else v)
        return
    if c.json == "named":
        items = v.items()
    elif c.label == "kind":
        if len(v) != len(KINDS):
            raise ValueError("%s has %d kinds" % (where, len(v)))
        items = zip(KINDS, v)
    else:
        items = ((str(i), x) for i, x in enumerate(v))
    for k, x in items:
        put(c.family, dict(labels, **{c.label: k}), x)


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

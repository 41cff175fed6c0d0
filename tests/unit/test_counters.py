"""bpf/guestmm.h's counter tables, the one list of the probes' counters:
their columns are consistent, docs/bpf.md lists every family, and the C
printers built from them (stat_printers.c) print every counter, show -o
prometheus exactly what tests/lib/promfmt.py derives from show -j."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import promfmt

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LABELS = ("kind", "status", "result", "order", "prio", "migratetype", "mode")
ROW_MAPS = {table: row for _, table, row in promfmt.MAPS if row}
# which SHOW_*() a one-entry map's counter may have, and a row map's
SHOWS = {
    ("C", False): ("SHOW_IN", "NO_SHOW"),
    ("A", False): ("SHOW_AT", "SHOW_NAMED", "SHOW_ALL", "NO_SHOW"),
    ("C", True): ("SHOW_COL", "SHOW_AVG", "NO_SHOW"),
    ("A", True): ("SHOW_COLS", "NO_SHOW"),
}


def call(text):
    """(macro, [args]) of a column such as SHOW_IN("passes", 0, "%s begun")."""
    m = re.match(r"(\w+)(\()?", text)
    if not m.group(2):
        return m.group(1), []
    args, end = promfmt._args(text, m.end())
    assert end == len(text), text
    return m.group(1), args


def constant(name):
    """The value of a #define NAME <number> in bpf/guestmm.h."""
    with open(promfmt.GUESTMM_H) as f:
        return int(re.search(r"^#define\s+%s\s+(\d+)" % name, f.read(),
                             re.M).group(1))


def counters():
    for table, rows in promfmt.TABLES.items():
        for c in rows:
            yield table, c


def test_tables_are_read():
    """promfmt reads every entry of every table (and MAPS names them all)."""
    with open(promfmt.GUESTMM_H) as f:
        entries = re.findall(r"^\s*[CA]\(", f.read(), re.M)
    assert len(list(counters())) == len(entries) >= 65
    assert [t for _, t, _ in promfmt.MAPS] == list(promfmt.TABLES)
    c = next(c for t, c in counters() if c.member == "kcompactd_wake")
    assert c.family == "guestmm_compact_kcompactd_wakes_total"
    assert c.help == "kcompactd wakeups (compact_daemon_wake)"


def test_columns():
    families = set()
    for table, c in counters():
        where = "%s.%s" % (table, c.member)
        assert c.family not in families, where
        families.add(c.family)
        assert re.fullmatch(r"guestmm_[a-z0-9_]+_total", c.family), where
        assert (c.unit == "ns") == c.family.endswith("_seconds_total"), where
        assert c.unit in ("count", "ns"), where
        if c.kind == "A":
            assert c.label in LABELS and c.json in ("named", "list"), where
            assert c.length > 0, where
        assert [m for t, m in counters() if t == table and
                m.member == c.member] == [c], where + " twice"

        how, args = call(c.show)
        assert how in SHOWS[c.kind, table in ROW_MAPS], (where, how)
        if how == "SHOW_AVG":
            over = [o for t, o in counters() if t == table and
                    o.member == args[2] and o.kind == "C"]
            assert over, (where, "SHOW_AVG of", args[2])
        if how in ("SHOW_IN", "SHOW_AT"):
            assert promfmt._string(args[2]).count("%s") == 1, where
        vm, _ = call(c.vmstat)
        assert vm == {"C": "VMSTAT", "A": "VMSTAT_AT"}[c.kind] or \
            vm == "NO_VMSTAT", (where, vm)


def test_show_lines():
    """The parts of a titled line have positions 0, 1, ...: none is lost."""
    lines = {}
    for table, c in counters():
        how, args = call(c.show)
        if how in ("SHOW_IN", "SHOW_AT"):
            lines.setdefault((table, promfmt._string(args[0])), []).append(
                int(args[1]))
    for line, pos in lines.items():
        assert sorted(pos) == list(range(len(pos))), (line, pos)


def test_vmstat_slots():
    with open(os.path.join(TOP, "bpf", "stat.h")) as f:
        n = int(re.search(r"#define N_VMSTAT (\d+)", f.read()).group(1))
    slots = []
    for _, c in counters():
        vm, args = call(c.vmstat)
        if vm != "NO_VMSTAT":
            slots.append(int(args[0]))
    assert sorted(slots) == list(range(n)), sorted(slots)
    assert len(promfmt.VMSTAT) == len(set(promfmt.VMSTAT)) == n


def test_docs_list_every_family():
    """docs/bpf.md's family table: a row per counter, with its labels,
    HELP text and show -j key."""
    with open(os.path.join(TOP, "docs", "bpf.md")) as f:
        doc = f.read()
    rows = {m.group(1): [c.strip() for c in m.group(2).split("|")]
            for m in re.finditer(r"^\| `(guestmm_\w+)` \| (.*) \|$", doc, re.M)}
    for key, table, row in promfmt.MAPS:
        for c in promfmt.TABLES[table]:
            labels = [l for l in (row, c.label) if l]
            json_key = "%s%s.%s" % (key, "[]" if row else "", c.member)
            assert rows.get(c.family) == [
                "counter", ", ".join("`%s`" % l for l in labels), c.help,
                "`%s`" % json_key], (c.family, rows.get(c.family))


def printers():
    """{"table": ..., "json": ..., "prometheus": ...} of stat_printers.c."""
    tmp = tempfile.mkdtemp()
    try:
        exe = os.path.join(tmp, "stat_printers")
        bpf = os.path.join(TOP, "bpf")
        subprocess.run(
            ["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-I", bpf, "-o", exe,
             os.path.join(TOP, "tests", "unit", "stat_printers.c")] +
            [os.path.join(bpf, f) for f in ("stat_show.c", "stat_json.c",
                                            "stat_prom.c", "stat_names.c")] +
            ["-ljson-c", "-lbpf", "-lelf", "-lz"], check=True)
        return {o: subprocess.run([exe, o], check=True, stdout=subprocess.PIPE,
                                  universal_newlines=True).stdout
                for o in ("table", "json", "prometheus")}
    finally:
        shutil.rmtree(tmp)


def test_printers_print_every_counter():
    out = printers()
    j = json.loads(out["json"])
    # show -o prometheus: exactly the samples show -j implies
    assert promfmt.parse(out["prometheus"]) == promfmt.json_to_prom(j)

    # show -j: every counter, every value its own (the snapshot's are)
    values = []
    for key, table, row in promfmt.MAPS:
        for obj in [j[key]] if row is None else j[key]:
            for c in promfmt.TABLES[table]:
                v = obj[c.member]
                v = [v] if c.kind == "C" else \
                    list(v.values()) if c.json == "named" else v
                assert all(x >= 100000000 for x in v), (key, c.member, v)
                values += v
    assert len(values) == len(set(values))

    # show: every value of a counter that has a SHOW_*() but a time
    for key, table, row in promfmt.MAPS:
        for obj in [j[key]] if row is None else j[key]:
            for c in promfmt.TABLES[table]:
                how, args = call(c.show)
                if how == "NO_SHOW" or c.unit == "ns":
                    continue
                v = obj[c.member]
                v = [v] if c.kind == "C" else \
                    list(v.values()) if c.json == "named" else v
                if how == "SHOW_AT":
                    v = [v[constant(args[3])]]
                for x in v:
                    assert re.search(r"\b%d\b" % x, out["table"]), (
                        key, c.member, x)

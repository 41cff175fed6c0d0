"""THP migration: move_pages of 1x4 KiB, one 2 MiB THP and 512x4 KiB between nodes (seed 004)

Zi Yan's measurement in a 2-node 1 GiB TCG guest: `thp_move` moves each
region to the other node and back, 20 times, timing every move_pages(2)
call.  The THP should move whole (thp_migration_success, no split) and
about 3x faster than 512 base pages.  One variant: this measures the stock
kernel that guestmm's probes observe; the ratio row is thp : base512.
"""
import re

GUEST = dict(mem=1024, smp=2, numa=2, balloon=None)
ITERS = 20

VARIANTS = [dict(name="stock-6.1", guest=GUEST)]

METRICS = [
    ("base1_us", "1 x 4 KiB: mean move, us", "lower"),
    ("thp_us", "1 x 2 MiB THP: mean move, us", "lower"),
    ("base512_us", "512 x 4 KiB: mean move, us", "lower"),
    ("thp_gbps", "THP move bandwidth, GB/s", "higher"),
    ("base512_gbps", "512 x 4 KiB move bandwidth, GB/s", "higher"),
    ("thp_speedup", "512 x 4 KiB time / THP time", "higher"),
    ("thp_split", "THPs split during the THP case", "lower"),
]


def measure(g, variant):
    v0 = g.vmstat()
    out = g.sh("thp_move %d all" % ITERS, timeout=600)
    v1 = g.vmstat()
    res = {}
    for line in out.splitlines():
        m = re.match(r"THPMOVE case=(\w+) (.*)", line)
        if m:
            kv = dict(x.split("=") for x in m.group(2).split())
            res[m.group(1) + "_us"] = float(kv["avg_us"])
            res[m.group(1) + "_gbps"] = float(kv["gbps"])
    res["thp_speedup"] = res["base512_us"] / res["thp_us"]
    res["thp_split"] = v1["thp_migration_split"] - v0["thp_migration_split"]
    return {k: res[k] for k, _, _ in METRICS}

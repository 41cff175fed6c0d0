"""Two guests take turns at a burst: the host's total RSS, and how many fit

host_memory's question for a host that runs several guests: when guests
burst one at a time and idle otherwise, what does the host hold in all,
and how many such guests fit in a given budget?  Two guests of
host_memory's configuration (1.5 GiB, Debian image, free page reporting,
the same variant in both) run at once, each in its own QEMU with one TCG
thread, so the host's two cores run one guest each.  Both are prepared as
host_memory prepares one (source, scratch disk, file set, driver,
reclaimer).  Once both RSS have settled, guest A runs host_memory's burst
(build, 900 MiB read, 400 MiB anonymous) while B idles; WATCH_S seconds
later B runs the same burst while A idles; then WATCH_S more seconds.
QEMU's RSS and RAM mapping of both are sampled every 0.5 s from the host
throughout.

Figures, from the guests' RAM mappings alone (Guest.ram_memory(): what
the host backs of each guest's RAM; QEMU's own memory is left out,
because under TCG its translation buffer grows to 1 GiB per guest, which
no guest policy returns and KVM does not have; the whole RSS is given
too, rss_total_*):
- total_peak_mib: the highest sum of the two.
- total_end_mib: the sum at the end (both idle, B WATCH_S after its burst).
- idle_mib: a guest's RAM backed WATCH_S after its own burst (the mean of A at
  B's start and B at the end): what an idle guest costs the host once
  its burst has been given back, as far as this variant gives it back.
- burst_peak_mib: the higher of the two guests' own peaks.
- fit_8g: guests that fit in an 8 GiB host budget if at most one bursts
  at a time: 1 + floor((8192 - burst_peak) / idle).  A model, stated as
  one: it assumes the idle figure holds for every guest and that bursts
  never overlap.

Variants: host_memory's (stock, guestmm, guestmm-unmapped, and on 6.12
damon-reclaim and memory-reclaim); `--variants` picks some.
"""
import importlib.util
import math
import os
import threading
import time

import guest

_spec = importlib.util.spec_from_file_location(
    "bench_host_memory_for_pair",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "host_memory.py"))
hm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hm)

WATCH_S = float(os.environ.get("GUESTMM_BENCH_WATCH_S", 90))
BUDGET_MIB = 8192
REPS = 1
VARIANTS = hm.VARIANTS
B_KEYS = None       # guest B's keys: its own overlay, scratch disk, ko tar

METRICS = [
    ("total_peak_mib", "both guests' RAM backed, highest sum, MiB",
     "lower"),
    ("total_end_mib", "both guests' RAM backed at the end, MiB", "lower"),
    ("idle_mib", "a guest's RAM backed %d s after its own burst, MiB" %
     WATCH_S, "lower"),
    ("burst_peak_mib", "a guest's RAM backed, peak, MiB", "lower"),
    ("fit_8g", "guests in an 8 GiB host budget, one bursting at a time",
     "higher"),
    ("rss_total_peak_mib", "both QEMUs' whole RSS, highest sum, MiB",
     "info"),
    ("rss_total_end_mib", "both QEMUs' whole RSS at the end, MiB", "info"),
    ("build_a_s", "guest A's build, wall s", "lower"),
    ("build_b_s", "guest B's build, wall s", "lower"),
]


def guest_config(abi):
    """Guest A's keys (what bench/run boots); B's are kept for measure()."""
    global B_KEYS
    a = hm.guest_config(abi)
    B_KEYS = hm.guest_config(abi)
    return a


def b_guest(g, variant):
    """Guest B: A's variant keys, B's own disks, the same kernel."""
    keys = dict(variant["guest"], **B_KEYS)
    keys.pop("kernel", None)
    keys.pop("initrd", None)
    if variant["guest"].get("append") and B_KEYS.get("append"):
        keys["append"] = "%s %s" % (B_KEYS["append"],
                                    variant["guest"]["append"])
    return guest.Guest(B_KEYS["kernel"], B_KEYS["initrd"],
                       g.logdir.rstrip("/") + ".b", **keys)


def in_parallel(*calls):
    """Run the calls in threads (one per guest); re-raise the first error."""
    errs = []

    def wrap(fn):
        try:
            fn()
        except BaseException as e:      # noqa: B902 - re-raised below
            errs.append(e)
    ts = [threading.Thread(target=wrap, args=(c,)) for c in calls]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errs:
        raise errs[0]


def at(samples, t):
    """The last sample's MiB at or before host time t."""
    return [m for s, m in samples if s <= t][-1]


def measure(g, variant):
    with b_guest(g, variant) as gb:
        in_parallel(lambda: hm.setup(g, variant),
                    lambda: hm.setup(gb, variant))
        sa, sb = hm.RssSampler(g), hm.RssSampler(gb)
        sa.start()
        sb.start()
        in_parallel(lambda: hm.rss_settled(g, limit=90, quiet=5,
                                           tol_kib=4096),
                    lambda: hm.rss_settled(gb, limit=90, quiet=5,
                                           tol_kib=4096))
        t0 = time.monotonic()
        ba = hm.burst(g)
        t_a = time.monotonic()
        time.sleep(WATCH_S)
        t_b0 = time.monotonic()
        bb = hm.burst(gb)
        t_b = time.monotonic()
        time.sleep(WATCH_S)
        t_end = time.monotonic()
        sa.stop()
        sb.stop()
        problems = gb.problems()
    if problems:
        raise SystemExit("guest B: kernel log problems:\n  %s" %
                         "\n  ".join(problems))
    a = [(t, m) for t, m in sa.ram if t >= t0]
    b = [(t, m) for t, m in sb.ram if t >= t0]
    total = [(t, m + at(b, t)) for t, m in a if t >= b[0][0]]
    rss_a = [(t, m) for t, m in sa.samples if t >= t0]
    rss_b = [(t, m) for t, m in sb.samples if t >= t0]
    rss_total = [m + at(rss_b, t) for t, m in rss_a if t >= rss_b[0][0]]
    idle = (at(a, t_b0) + at(b, t_end)) / 2.0
    peak = max(max(m for _, m in a), max(m for _, m in b))
    res = {"total_peak_mib": round(max(m for _, m in total)),
           "total_end_mib": round(total[-1][1]),
           "idle_mib": round(idle), "burst_peak_mib": round(peak),
           "fit_8g": 1 + math.floor((BUDGET_MIB - peak) / max(idle, 1.0)),
           "rss_total_peak_mib": round(max(rss_total)),
           "rss_total_end_mib": round(rss_total[-1]),
           "build_a_s": ba["build_s"], "build_b_s": bb["build_s"]}
    res["series"] = {"b_start_s": round(t_b0 - t0, 2),
                     "a_end_s": round(t_a - t0, 2),
                     "b_end_s": round(t_b - t0, 2),
                     "a": [(round(t - t0, 2), round(m, 1)) for t, m in a],
                     "b": [(round(t - t0, 2), round(m, 1)) for t, m in b]}
    return res


def plot_total(names, data):
    """Both guests' RAM backed, summed over time, one line per variant."""
    lines = []
    for n in names:
        s = data[n][0]["series"]
        lines.append((n, [(t, m + at(s["b"], t) if t >= s["b"][0][0]
                           else m) for t, m in s["a"]]))
    return hm.plot_lines("host_memory_pair", "RAM backed of two guests, "
                         "summed; A bursts at 0, B after A's watch (first "
                         "repetition)", lines)


def report(abi, variants, data):
    names = [v["name"] for v in variants]
    lines = ["Guests in an %d MiB host budget, one bursting at a time "
             "(medians):" % BUDGET_MIB, ""]
    for n in names:
        lines.append("- `%s`: %d guests (idle %d MiB each, burst peak %d "
                     "MiB)" % (n, hm.med(data, n, "fit_8g"),
                               hm.med(data, n, "idle_mib"),
                               hm.med(data, n, "burst_peak_mib")))
    png = plot_total(names, data)
    if png:
        lines += ["", "![both guests' RAM backed over time](%s)" % png]
    lines.append("Per-guest RAM series are in host_memory_pair.json "
                 "(`series`).")
    return lines

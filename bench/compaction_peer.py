"""Compaction for a peer: the kernel's own compaction_test selftest and order-9 __GFP_RETRY_MAYFAIL allocations, stock vs guestmm_klp (seed 003)

Not our workload but the kernel's: tools/testing/selftests/vm/compaction_test.c
(mm/ on 6.12), built on the host from the guest kernel's own
linux-source .deb (the one scripts/klp-variant caches; the C file is not
in our tree) and handed to the guest on a tar drive.  In a 1.5 GiB TCG
guest with an ext4 disk, 12,000 files of 64 KiB are written and every
other one deleted, so the page cache left has a 64 KiB hole next to
every file.  Then compaction_test runs as a new user would: it mlocks 80 %
of MemFree in 100 MiB mappings, unmaps every other one and asks
nr_hugepages for half of the rest.  hugetlb allocates each huge page
with __GFP_RETRY_MAYFAIL: async direct compaction first, then reclaim
and sync compaction (SYNC_LIGHT, then SYNC_FULL), beside kcompactd.
"hp" metrics: huge pages reached, compact_migrate_scanned and
compact_free_scanned during the test, migrate-scanned per huge page.

Second set ("ha"): caches dropped, `frag` faults 70 % of RAM and frees
every other page and holds the rest; guestmm_highalloc.ko then makes
HA_ALLOCS order-9 GFP_HIGHUSER_MOVABLE|__GFP_RETRY_MAYFAIL allocations
in one go.  Their number of successes differs from boot to boot (200 to
300): compare per success only where the successes are close.

Where the scanning happens (trace): the kernel's compaction events, and
ours on the patched kernel, are traced during each phase and summed in
the guest: pages the migrate scanner read per compaction mode (direct
async, SYNC_LIGHT, SYNC_FULL, kcompactd, other), the part of that spent
in blocks the free-list search chose (patched only), and the free-list
entries the search read (vmstat minus the isolation calls).
The migrate scanning of kcompactd (its order-9 runs and proactive
compaction, which starts when the fragmentation score is high) is timed
by the fragmentation, not by the requests, and changes a phase's total
by tens of thousands of pages from one boot to the next.  Proactive
runs (order -1, ignore the skip hints, whole zone) scan about 46,000
pages each on both kernels here, and how many there are (4 to 10 in the
allocation phase) follows the phase's length: "requests_per_huge" leaves
them out, "direct_per_huge" counts only direct compaction.  On 6.12,
where guestmm_klp runs 6.12's own scanner, three boots each had 4 / 6 /
10 proactive runs on stock and 10 / 10 / 10 on klp in the allocation
phase (then 10 at a time): 1048 against 1855 migrate-scanned pages per
success from the same code.
Goal: migrate-scanned per huge page no worse than stock at an
equal number of huge pages / successes.

GUESTMM_PEER_KLP_DIR=DIR (guestmm_klp.ko and guestmm_klp_trace.ko of
another build for the same kernel) adds a variant "klp-alt" (or
GUESTMM_PEER_KLP_NAME) that insmods those instead: a candidate change
measured against the built patch in the same run.
"""
import os
import subprocess
import tarfile

import workloads
from scriptmod import load_script

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUEST = dict(mem=1536, smp=2, balloon=None, disk_mb=2048,
             mods=["guestmm_highalloc"])
FILES, FILE_KIB = 12000, 64
HA_ALLOCS = 300
FRAG_PCT = 70
LP = workloads.KLP_SYSFS
HA = "/sys/kernel/debug/guestmm_highalloc/alloc"
T = "/sys/kernel/tracing"
EVENTS = ["compaction/mm_compaction_try_to_compact_pages",
          "compaction/mm_compaction_begin",
          "compaction/mm_compaction_finished",
          "compaction/mm_compaction_isolate_migratepages",
          "guestmm_klp/guestmm_klp_fast_search",
          "guestmm_klp/guestmm_klp_block"]
MODES = ("async", "light", "full", "kcompactd", "proactive", "other")
DIRECT = ("async", "light", "full")
ALT = os.environ.get("GUESTMM_PEER_KLP_DIR")
ALT_NAME = os.environ.get("GUESTMM_PEER_KLP_NAME", "klp-alt")

VARIANTS = [
    dict(name="stock", guest=GUEST, needs=["guestmm_highalloc"]),
    dict(name="klp", guest=GUEST, klp="modprobe",
         needs=["guestmm_klp", "guestmm_highalloc"]),
] + ([dict(name=ALT_NAME, guest=GUEST, klp="alt",
           needs=["guestmm_klp", "guestmm_highalloc"])] if ALT else [])

METRICS = []
for _p, _what in (("hp", "compaction_test"), ("ha", "order-9 allocations")):
    METRICS += [
        ("%s_requests_per_huge" % _p, "%s: migrate-scanned per huge page, "
         "without proactive compaction" % _what, "lower"),
        ("%s_direct_per_huge" % _p, "%s: direct compaction's "
         "isolation-scanned pages per huge page" % _what, "lower"),
        ("%s_direct_scanned" % _p, "%s: isolation-scanned in direct "
         "compaction (async, SYNC_LIGHT, SYNC_FULL)" % _what, "lower"),
        ("%s_background_scanned" % _p, "%s: isolation-scanned by kcompactd "
         "(order 9 and proactive)" % _what, "info"),
    ]
    METRICS += [
        ("%s_huge" % _p, "%s: huge pages reached" % _what
         if _p == "hp" else "%s: successes of %d" % (_what, HA_ALLOCS),
         "higher"),
        ("%s_migrate_scanned" % _p, "%s: compact_migrate_scanned" % _what,
         "lower"),
        ("%s_migrate_per_huge" % _p,
         "%s: migrate-scanned per huge page" % _what, "lower"),
        ("%s_free_scanned" % _p, "%s: compact_free_scanned" % _what,
         "lower"),
        ("%s_pgmigrate_success" % _p, "%s: pages migrated" % _what, "info"),
        ("%s_freelist_entries" % _p,
         "%s: free-list entries read by the search" % _what, "info"),
    ] + [("%s_scan_%s" % (_p, m), "%s: isolation-scanned, %s" % (_what, m),
          "info") for m in MODES] + [
        ("%s_fastblock_%s" % (_p, m),
         "%s: of that in blocks the search chose, %s" % (_what, m), "info")
        for m in ("async", "light", "kcompactd")]

# Sums the trace in the guest (a phase makes megabytes of it): per task,
# the mode of its current compaction run (the priority of its last
# try_to_compact_pages; kcompactd; "other" for compact_memory and
# proactive runs), isolated-scanned pages per mode, the part in blocks
# the free-list search chose in that run, and the search's entries.
# "proactive": order -1 runs outside direct compaction (kcompactd's
# proactive compaction; compact_memory is not run here).
AWK = r"""
function hex(s,  i, c, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c) break
		v = v * 16 + c - 1
	}
	return v
}
function val(key,  i) {
	for (i = 1; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}
/^#/ { next }
{
	ev = ""
	for (i = 2; i <= NF && i < 8; i++)
		if ($i ~ /^(mm_compaction_|guestmm_klp_)[a-z_]*:$/) {
			ev = substr($i, 1, length($i) - 1); break
		}
	if (ev == "") next
	pid = $1; sub(/.*-/, "", pid)
	if (ev == "mm_compaction_try_to_compact_pages") {
		p = val("priority")
		prio[pid] = p == 0 ? "full" : (p == 1 ? "light" : "async")
	} else if (ev == "mm_compaction_begin") {
		m = (pid in prio) ? prio[pid] : "other"
		if (index(" " kpids " ", " " pid " ")) m = "kcompactd"
		cur[pid] = m; gen[pid]++; first[pid] = 1
	} else if (ev == "mm_compaction_finished") {
		if (first[pid]) {
			first[pid] = 0
			if (val("order") == -1 && cur[pid] != "light" && \
			    cur[pid] != "full" && cur[pid] != "async")
				cur[pid] = "proactive"
			runs[cur[pid]]++
		}
	} else if (ev == "mm_compaction_isolate_migratepages") {
		m = (pid in cur) ? cur[pid] : "other"
		if (m == "other" && index(" " kpids " ", " " pid " "))
			m = "kcompactd"
		r = val("range"); sub(/^\(/, "", r)
		n = val("nr_scanned") + 0
		scan[m] += n
		b = int(hex(r) / 512)
		if ((pid SUBSEP gen[pid] SUBSEP b) in fast) fscan[m] += n
	} else if (ev == "guestmm_klp_block") {
		if (val("decision") == "isolate_fast")
			fast[pid, gen[pid], int(hex(val("pfn")) / 512)] = 1
	} else if (ev == "guestmm_klp_fast_search") {
		m = (pid in cur) ? cur[pid] : "other"
		ent[m] += val("scanned"); srch[m]++
		if (val("found") == 1) hit[m]++
	}
}
END {
	split("async light full kcompactd proactive other", ms, " ")
	for (i = 1; i <= 6; i++) {
		m = ms[i]
		printf "scan_%s=%d fastblock_%s=%d runs_%s=%d ",
			m, scan[m], m, fscan[m], m, runs[m]
		printf "entries_%s=%d searches_%s=%d hits_%s=%d ",
			m, ent[m], m, srch[m], m, hit[m]
	}
	printf "\n"
}
"""


def build_selftest(abi):
    """compaction_test for the kernel abi runs, built static from that
    build's linux-source (scripts/klp-variant extracts and caches the two
    files it needs); its path under build/ABI/peer/."""
    kv = load_script("scripts/klp-variant")
    row = [r for r in kv.read_table() if r["release"] == abi]
    if not row:
        raise SystemExit("compaction_peer: %s is not in livepatch/kernels.tsv"
                         % abi)
    version, suite = row[0]["package_version"], row[0]["suite"]
    sub = "vm" if kv.series_of(version) == "6.1" else "mm"
    rel = "tools/testing/selftests/%s/compaction_test.c" % sub
    src = kv.source_tree(version, suite,
                         [rel, "tools/testing/selftests/kselftest.h"])
    out = os.path.join(TOP, "build", abi, "peer", "compaction_test")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run(["gcc", "-static", "-O2", "-o", out,
                    os.path.join(src, rel)], check=True)
    return out


def guest_config(abi):
    """The selftest (and the klp-alt modules) as a tar on the second
    virtio disk (the ext4 disk is the first)."""
    tar = os.path.join(TOP, "build", abi, "peer", "peer.tar")
    ct = build_selftest(abi)
    with tarfile.open(tar, "w") as t:
        t.add(ct, "compaction_test")
        if ALT:
            for m in ("guestmm_klp_trace.ko", "guestmm_klp.ko"):
                t.add(os.path.join(ALT, m), "alt/" + m)
    # A raw drive is read in whole sectors.
    with open(tar, "ab") as f:
        f.truncate(-(-os.path.getsize(tar) // 512) * 512)
    return dict(drives=[tar])


def trace_on(g):
    g.sh("echo 0 > %s/tracing_on; echo > %s/trace; "
         "echo 16384 > %s/buffer_size_kb" % (T, T, T))
    for e in EVENTS:
        g.sh("if [ -e {t}/events/{e}/enable ]; then "
             "echo 1 > {t}/events/{e}/enable; fi".format(t=T, e=e))
    g.sh("echo 1 > %s/tracing_on" % T)


def trace_sum(g):
    """Stop the trace, sum it (AWK), clear it, restart it."""
    g.sh("echo 0 > %s/tracing_on" % T)
    over = sum(int(l.split()[-1]) for l in g.sh(
        "cat %s/per_cpu/cpu*/stats | grep ^overrun" % T).splitlines())
    g.sh("cat > /tmp/sum.awk <<'EOF'\n%s\nEOF" % AWK)
    # The trace names kernel threads "<...>" once its comm cache is
    # full: kcompactd goes by pid.
    line = g.sh("awk -v kpids=\"$(for p in /proc/[0-9]*; do "
                "grep -qs ^kcompactd $p/comm && echo ${p#/proc/}; done)\" "
                "-f /tmp/sum.awk %s/trace" % T, timeout=600).strip()
    g.sh("echo > %s/trace; echo 1 > %s/tracing_on" % (T, T))
    res = {k: int(v) for k, v in (kv.split("=") for kv in line.split())}
    res["trace_overrun"] = over
    return res


def phase(g, prefix, run, trace_keys):
    v0 = g.vmstat()
    huge = run()
    d = workloads.delta(v0, g.vmstat())
    tr = trace_sum(g)
    res = {
        prefix + "huge": huge,
        prefix + "migrate_scanned": d["compact_migrate_scanned"],
        prefix + "migrate_per_huge": d["compact_migrate_scanned"] /
        max(huge, 1),
        prefix + "free_scanned": d["compact_free_scanned"],
        prefix + "pgmigrate_success": d["pgmigrate_success"],
        prefix + "compact_stall": d["compact_stall"],
        prefix + "freelist_entries": d["compact_migrate_scanned"] - sum(
            tr["scan_" + m] for m in MODES),
    }
    # What the requests cost: everything but proactive compaction.
    res[prefix + "requests_scanned"] = (d["compact_migrate_scanned"] -
                                        tr["scan_proactive"])
    res[prefix + "requests_per_huge"] = res[prefix + "requests_scanned"] / \
        max(huge, 1)
    res[prefix + "direct_scanned"] = sum(tr["scan_" + m] for m in DIRECT)
    res[prefix + "direct_per_huge"] = res[prefix + "direct_scanned"] / max(
        huge, 1)
    res[prefix + "background_scanned"] = sum(
        tr["scan_" + m] for m in MODES if m not in DIRECT)
    for k in trace_keys:
        res[prefix + k] = tr[k]
    res[prefix + "trace_overrun"] = tr["trace_overrun"]
    return res


def measure(g, variant):
    g.sh("tar -xf /dev/vdb -C /tmp && chmod +x /tmp/compaction_test")
    if variant.get("klp") == "modprobe":
        workloads.modprobe_klp(g)
    elif variant.get("klp") == "alt":
        g.sh("insmod /tmp/alt/guestmm_klp_trace.ko && "
             "insmod /tmp/alt/guestmm_klp.ko")
    if variant.get("klp"):
        g.sh("while [ \"$(cat %s/transition)\" != 0 ]; do sleep 0.2; done"
             % LP, timeout=120)
        assert g.sh("cat %s/enabled" % LP).strip() == "1"
        s0 = workloads.klp_stats(g)
    trace_keys = sorted(
        "%s_%s" % (k, m) for k in ("scan", "fastblock", "runs", "entries",
                                   "searches", "hits") for m in MODES)
    # Tracing is switched on while the guest is idle (text patching
    # under load has hung 2-vCPU TCG guests, see klp_compaction_vs_stock).
    trace_on(g)

    g.sh("mkdir -p /mnt/small && filler create /mnt/small %d %d && sync"
         % (FILES, FILE_KIB), timeout=3600)
    # f000000 ... f011999: the even ones go.
    g.sh("rm -f /mnt/small/f*[02468] && sync && sleep 2", timeout=600)
    g.sh("echo > %s/trace" % T)
    hp_out = []

    def run_selftest():
        out = g.sh("/tmp/compaction_test 2>&1", timeout=3600, check=False)
        hp_out.append(out)
        n = [l for l in out.splitlines()
             if "Number of huge pages allocated" in l]
        assert n, "compaction_test: " + out[-2000:]
        return int(n[0].split("=")[-1])

    res = phase(g, "hp_", run_selftest, trace_keys)
    res["hp_selftest_ok"] = int(any(l.startswith("ok 1")
                                    for l in hp_out[0].splitlines()))

    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    workloads.frag_start(g, g.mem * FRAG_PCT // 100)
    g.sh("echo 0 > %s; echo > %s/trace" % (HA, T))

    def run_highalloc():
        # One write: all allocations back to back, so direct compaction
        # does the work.  (Ten at a time leave kcompactd's proactive
        # compaction time to do it between the writes: then over 90 % of
        # the scanning is proactive, the requests' own under 100 pages
        # per success on both kernels.)
        g.sh("echo %d > %s" % (HA_ALLOCS, HA), timeout=3600)
        ha = dict(kv.split("=") for kv in g.sh("cat " + HA).split())
        g.sh("echo 0 > " + HA)
        return int(ha["success"])

    res.update(phase(g, "ha_", run_highalloc, trace_keys))
    workloads.frag_stop(g)
    g.sh("echo 0 > %s/tracing_on" % T)
    if variant.get("klp"):
        s1 = workloads.klp_stats(g)
        for k in ("fast_search", "fast_hit", "fast_miss", "fast_scanned",
                  "blocks_isolated", "finish_rescans", "fast_block_skipped",
                  "sync_block_skipped", "migrate_scanned"):
            # .get: a klp-alt build may not have every counter
            res["klp_" + k] = s1.get(k, 0) - s0.get(k, 0)
    return res

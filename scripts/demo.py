#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make demo: boot a stock Debian guest with guestmm loaded and show what
it does.  First the host's view: in the same fragmented guest, stock
virtio_balloon and guestmm_balloon each inflate 256 MiB, and the demo
prints what the host got back (the QEMU process's Rss and AnonHugePages)
and how many 2 MiB allocations then succeed in the guest.  Then guestmm
alone: the balloon inflated over QMP while memory is fragmented, the
fragmenting memory freed, compaction forced, and what happened: balloon
pages migrated, 2 MiB blocks regained, compaction counters (via bpftool
when the probes are built), and the deflate back to boot size.

Uses whatever guestmm components are built; falls back to the stock
virtio_balloon driver when guestmm_balloon.ko is not there yet.
"""
import argparse
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts", "guest"))

import guest  # noqa: E402
import hostreturn  # noqa: E402
import workloads  # noqa: E402

MIB = workloads.MIB


def say(msg=""):
    print(msg, flush=True)


def has_module(abi, name):
    return os.path.exists(os.path.join(TOP, "build", abi, "modules",
                                       name + ".ko"))


HIGHALLOC = "/sys/kernel/debug/guestmm_highalloc/alloc"
HIGHALLOC_TRIES = 300


def order9_successes(g):
    """2 MiB allocations (reclaim and compaction allowed) that succeed out
    of HIGHALLOC_TRIES, with the balloon inflated; all freed again."""
    g.sh("modprobe guestmm_highalloc")
    g.sh("echo %d > %s" % (HIGHALLOC_TRIES, HIGHALLOC), timeout=600)
    out = g.sh("cat %s" % HIGHALLOC)
    g.sh("echo 0 > %s; rmmod guestmm_highalloc" % HIGHALLOC)
    fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
    return int(fields.get("success", 0))


def host_view(args, abi, kernel, initrd, logdir):
    """Stock and guestmm side by side in one fragmented guest."""
    say("== 0. the host's view: the same fragmented guest, %d MiB ballooned"
        " by each driver" % hostreturn.INFLATE_MIB)
    say("   (all free memory written once, then %d MiB held with every "
        "other page freed)" % hostreturn.FRAG_MIB)
    g = guest.Guest(kernel, initrd, os.path.join(logdir, "host_view"),
                    mem=args.mem, smp=2, balloon={}, mods=[])
    rows = []
    with g:
        # Stock is not unloaded: on Debian's 6.12.95 its unbind oopses
        # (docs/balloon.md, "Debian 6.12.95: virtio_pci crash").
        for name, load, unload in (
                ("guestmm_balloon", "modprobe guestmm_balloon",
                 "rmmod guestmm_balloon"),
                ("stock virtio_balloon", "modprobe virtio_balloon", "")):
            hostreturn.prepare(g, fragmented=True)
            res = hostreturn.inflate(g, load, reporting=False)
            hostreturn.frag_stop(g)
            g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
            ok = (order9_successes(g) if has_module(abi, "guestmm_highalloc")
                  else None)
            hostreturn.deflate_all(g)
            if unload:
                g.sh(unload)
            rows.append((name, res, ok))
        problems = g.problems()
    say("   %-22s %16s %16s %9s %14s" % ("driver", "host Rss freed",
                                          "host THP lost", "MiB/s",
                                          "2 MiB allocs"))
    for name, res, ok in rows:
        say("   %-22s %9.0f MiB %s %9.0f MiB %9.0f %14s" % (
            name, res["rss_freed_mib"],
            "(%4.2f)" % res["rss_per_ballooned"], res["thp_lost_mib"],
            res["inflate_mib_s"],
            "-" if ok is None else "%d of %d" % (ok, HIGHALLOC_TRIES)))
    gmm = rows[0][1]
    say("   guestmm made %d whole 2 MiB blocks (migrating %d pages in use "
        "into the holes of others) and took %d free blocks the host backed"
        " and %d strays:" % (gmm.get("chunk_blocks_made", 0),
                             gmm.get("chunk_make_moved", 0),
                             gmm.get("chunk_blocks_backed", 0),
                             gmm.get("stray_inflated", 0)))
    say("   the host gets its memory back as whole huge pages; stock "
        "splits one for every 4 KiB it frees.")
    say("   (the second driver's THP figure reads low: the first left "
        "host huge pages split)\n")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", default="6.1")
    ap.add_argument("--mem", type=int, default=1024, help="guest MiB")
    ap.add_argument("--inflate", type=int, default=256, help="balloon MiB")
    args = ap.parse_args()

    abi, kernel, initrd = guest.artifacts(args.kernel)
    driver = ("guestmm_balloon" if has_module(abi, "guestmm_balloon")
              else "virtio_balloon")
    has_stat = os.path.exists(os.path.join(TOP, "build", abi, "bin",
                                           "guestmm-stat"))
    logdir = os.path.join(TOP, "build", "demo")
    problems = []
    if driver == "guestmm_balloon":
        problems = host_view(args, abi, kernel, initrd, logdir)
    say("== guestmm demo: Debian kernel %s under QEMU (TCG), %d MiB, "
        "balloon driver %s" % (abi, args.mem, driver))
    g = guest.Guest(kernel, initrd, logdir, mem=args.mem, smp=2,
                    balloon={}, mods=[driver])
    with g:
        say("   booted in %.1f s; MemTotal %d kB" %
            (g.boot_seconds, g.meminfo()["MemTotal"]))
        if has_stat:
            say("   guestmm-stat load: " +
                g.sh("guestmm-stat load 2>&1 | tail -n 3").strip())
        else:
            say("   (bpf probes not built yet: counters from /proc/vmstat)")

        klp = has_module(abi, "guestmm_klp")
        if klp:
            out = g.sh("modprobe guestmm_klp 2>&1 && "
                       "cat /sys/kernel/livepatch/guestmm_klp/enabled",
                       check=False).strip()
            klp = g.last_rc == 0
            say("   guestmm_klp: %s" % ("livepatch enabled (compact_zone "
                                        "replaced)" if klp else
                                        "refused on this kernel: " +
                                        out.splitlines()[-1]))

        say("\n== 1. fragment memory, inflate %d MiB over QMP into the holes"
            % args.inflate)
        v0 = g.vmstat()
        target = workloads.scattered_inflate(g, args.inflate)
        say("   query-balloon: actual %d MiB (target %d MiB); MemTotal %d kB"
            % (g.query_balloon() // MIB, target // MIB,
               g.meminfo()["MemTotal"]))
        say("   free 2 MiB blocks now: %d" % workloads.free_huge_blocks(g))

        say("\n== 2. force compaction (echo 1 > /proc/sys/vm/compact_memory)")
        d = workloads.compact(g)
        say("   free 2 MiB blocks: %d -> %d" % (d["free_2m_before"],
                                                d["free_2m_after"]))
        for k in workloads.COMPACTION_COUNTERS:
            say("   %-26s %+d" % (k, d[k]))
        why = " (the balloon was not movable, or nothing needed it)"
        if driver == "guestmm_balloon":
            st = dict(line.split() for line in g.sh(
                "cat %s/state" % hostreturn.DBG).splitlines())
            why = (" (the balloon holds %s complete 2 MiB blocks, %s of "
                   "them gathered from strays by background defrag, and "
                   "%s strays: compaction leaves complete blocks alone)" %
                   (st.get("complete_blocks", "?"),
                    st.get("defrag_blocks", "?"),
                    st.get("stray_pages", "?")))
        say("   => %d balloon pages migrated by compaction%s" %
            (d["balloon_migrate"], "" if d["balloon_migrate"] else why))

        if klp:
            say("   guestmm_klp's scanner counters "
                "(/sys/kernel/debug/guestmm_klp/stats):")
            say(g.sh("sed 's/^/     /' /sys/kernel/debug/guestmm_klp/stats"
                     " | head -n 12"))

        if has_stat:
            say("\n== 3. the bpf probes' view (guestmm-stat show)")
            say(g.sh("guestmm-stat show 2>&1 | head -n 60"))
            for m in ("balloon", "compact"):
                say("   bpftool map dump pinned /sys/fs/bpf/guestmm/%s" % m)
                say(g.sh("bpftool map dump pinned /sys/fs/bpf/guestmm/%s "
                         "| head -n 30" % m))
            say("   (all maps: ls /sys/fs/bpf/guestmm; docs/bpf.md)")

        say("\n== 4. deflate over QMP")
        g.balloon(args.mem * MIB)
        g.wait_balloon(args.mem * MIB)
        v1 = g.vmstat()
        say("   query-balloon: actual %d MiB; MemTotal %d kB" %
            (g.query_balloon() // MIB, g.meminfo()["MemTotal"]))
        say("   balloon_inflate %+d, balloon_deflate %+d, balloon_migrate %+d"
            " pages over the whole demo" %
            tuple(v1[k] - v0[k] for k in ("balloon_inflate",
                                          "balloon_deflate",
                                          "balloon_migrate")))
        problems += g.problems()
    if problems:
        say("\nkernel log problems:\n  " + "\n  ".join(problems))
        return 1
    say("\nkernel log clean. Logs: %s" % os.path.relpath(logdir, TOP))
    return 0


if __name__ == "__main__":
    sys.exit(main())

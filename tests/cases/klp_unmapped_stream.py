"""guestmm_klp unmapped page cache control on (max_unmapped_ratio=10, set
at load): while a file larger than half of RAM is stream-read from the
ext4 disk, unmapped page cache stays at or below the ratio + 2 % of RAM at
every sample, and a process that mmaps and touched a file keeps every
page of it resident throughout (mincore)."""
import re
import time

from klplib import SAMPLER, modprobe_klp, um_stats

GUEST = dict(mem=1024, smp=2, balloon=None, disk_mb=800)
KERNELS = ("6.1",)
TIMEOUT = 1800

RATIO = 10
SLACK = 2           # % of RAM allowed above the ratio
BIG_MIB = 600       # > half of RAM
MAP_MIB = 64


def make_files(g):
    g.sh("dd if=/dev/zero of=/mnt/big bs=1M count=%d conv=fsync 2>&1 && "
         "dd if=/dev/urandom of=/mnt/map bs=1M count=%d conv=fsync 2>&1 && "
         "sync && echo 3 > /proc/sys/vm/drop_caches" % (BIG_MIB, MAP_MIB),
         timeout=900)


def unmapped_samples(text):
    """Unmapped file pages (file LRU - mapped) of every sample line."""
    res = []
    for line in text.splitlines():
        f = dict(re.findall(r"(nr_\w+) (\d+)", line))
        if len(f) == 3:
            lru = int(f["nr_active_file"]) + int(f["nr_inactive_file"])
            res.append(max(0, lru - int(f["nr_mapped"])))
    return res


def thread_cpu_ms(g, pid):
    """utime + stime of a task in ms (USER_HZ = 100)."""
    f = g.sh("cat /proc/%d/stat" % pid).rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 10


def stream_read(g):
    g.sh(SAMPLER)
    t0 = time.monotonic()
    g.sh("dd if=/mnt/big of=/dev/null bs=1M 2>&1", timeout=900)
    secs = time.monotonic() - t0
    time.sleep(1)
    g.sh("touch /tmp/stop; sleep 1")
    return unmapped_samples(g.sh("cat /tmp/samples")), secs


def run(g):
    make_files(g)
    modprobe_klp(g, "unmapped_page_control=1 "
         "max_unmapped_ratio=%d" % RATIO)
    assert "unmapped page cache control on" in g.dmesg()
    ram_pages = g.meminfo()["MemTotal"] // 4
    s0 = um_stats(g)
    pid = s0["node0_pid"]
    cpu0 = thread_cpu_ms(g, pid)

    g.sh("mincore_hold /mnt/map /tmp/mc.out 500 > /tmp/mc.err 2>&1 &")
    deadline = time.monotonic() + 120
    while "MINCORE ready" not in g.sh("cat /tmp/mc.out 2>/dev/null; true"):
        assert time.monotonic() < deadline, g.sh("cat /tmp/mc.err")
        time.sleep(0.5)
    time.sleep(1)

    samples, secs = stream_read(g)
    g.sh("killall mincore_hold; sleep 1; true")
    s1 = um_stats(g)
    cpu1 = thread_cpu_ms(g, pid)

    mc = [tuple(map(int, m)) for m in re.findall(
        r"MINCORE t_ms=\d+ resident=(\d+) total=(\d+)",
        g.sh("cat /tmp/mc.out"))]
    worst = max(samples)
    d = {k: s1[k] - s0[k] for k in ("passes", "pages_reclaimed", "time_ns",
                                    "runs", "wakeups_pagecache",
                                    "wakeups_timer", "wakeups_kswapd_wake",
                                    "wakeups_kswapd_sleep", "stop_target",
                                    "stop_no_progress")}
    print("KEY klp_unmapped_stream ratio=%d samples=%d max_unmapped_pages=%d "
          "max_unmapped_pct=%.1f limit_pct=%d read_s=%.1f thread_cpu_ms=%d "
          "mincore_samples=%d min_resident=%d total=%d %s" % (
              RATIO, len(samples), worst, 100.0 * worst / ram_pages,
              RATIO + SLACK, secs, cpu1 - cpu0, len(mc),
              min(r for r, _ in mc), mc[0][1],
              " ".join("%s=%d" % kv for kv in sorted(d.items()))))

    assert len(samples) >= 10, samples
    limit = (RATIO + SLACK) * ram_pages // 100
    over = [s for s in samples if s > limit]
    assert not over, (limit, over[:20])
    # The policy did the work: most of the file was reclaimed by it.
    assert d["passes"] > 0 and d["runs"] > 0, d
    assert d["pages_reclaimed"] >= (BIG_MIB - 2 * RATIO * 10) * 256 // 2, d
    # The mapped file stayed resident, every page at every sample.
    assert len(mc) >= 5, mc
    assert all(r == t for r, t in mc), [m for m in mc if m[0] != m[1]][:10]

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon on a two-node guest, with 4 KiB pages and with 2 MiB
chunks: inflation takes from each node in
proportion to its free memory (numa_inflate=free, the default), or as
numa_inflate's weights say, switched at run time; bad values are refused
and change nothing; and deflation on OOM gives back the pages of the node
that ran out: a tmpfs bound to node 1 grows past node 1's free memory
without an OOM kill, and node 0 gets none of the pages back."""
import integrity
from balloonlib import DBG, MIB

GUEST = dict(mem=1024, smp=2, numa=2, balloon={"deflate-on-oom": "on"},
             mods=[])
KERNELS = ("6.1", "6.12")
LIGHT = True

PARAM = "/sys/module/guestmm_balloon/parameters/numa_inflate"
PAGE = 4096
FILL0_MIB = 220      # tmpfs bound to node 0: node 0 has less to give
INFLATE_MIB = 280    # first inflation, numa_inflate=free
WEIGHTED_MIB = 96    # second inflation, numa_inflate=1,3
# A node's share of an inflation may miss its target by this much of the
# inflation: the spare memory moves while the balloon grows (page cache,
# the kernel's own allocations) and chunk-free 4 KiB batches round.
SHARE_SLACK = 0.06


def nodes(g):
    """debugfs nodes: {nid: {field: value}}."""
    res = {}
    for line in g.sh("cat %s/nodes" % DBG).splitlines():
        f = line.split()
        assert f[0] == "node", line
        res[int(f[1])] = {k: int(v) for k, v in zip(f[2::2], f[3::2])}
    return res


def tmpfs_fill(g, node, mib, check=True):
    """Write `mib` MiB into a tmpfs whose pages must come from `node`."""
    d = "/mnt/node%d" % node
    g.sh("mkdir -p %s && (mountpoint -q %s || mount -t tmpfs -o "
         "size=900m,mpol=bind:%d tmpfs %s)" % (d, d, node, d))
    return g.sh("dd if=/dev/zero of=%s/fill bs=1M count=%d conv=fsync "
                "2>&1" % (d, mib), timeout=600, check=check)


def inflate_by(g, mib):
    target = g.query_balloon() - mib * MIB
    g.balloon(target)
    g.wait_balloon(target, timeout=300)


def delta(after, before, field):
    return {n: after[n][field] - before[n][field] for n in after}


def assert_share(got, want_weights, label):
    total = sum(got.values())
    wsum = sum(want_weights.values())
    for n, w in want_weights.items():
        share, want = got[n] / total, w / wsum
        print("KEY balloon_numa %s node=%d pages=%d share=%.3f want=%.3f" %
              (label, n, got[n], share, want))
        assert abs(share - want) <= SHARE_SLACK, (label, n, got, want_weights)


def run(g):
    # 4 KiB pages (the balloon core's list), then 2 MiB chunks (ours).
    integrity.hold(g, 32)
    for params in ("", "chunk_order=9"):
        one(g, params)
        integrity.verify_pattern(g, params or "4k")
    integrity.stop_pattern(g)


def one(g, params):
    ram = g.mem * MIB
    g.sh("dmesg -C; modprobe guestmm_balloon %s" % params)
    assert g.sh("cat %s" % PARAM).strip() == "free"
    assert sorted(nodes(g)) == [0, 1], nodes(g)

    # Bad values are refused with a message and leave the value alone.
    for bad in ("1,2,3", "0,0", "x", "1,-1", "2000000", ""):
        out = g.sh("echo '%s' > %s 2>&1; echo rc=$?" % (bad, PARAM))
        assert "rc=0" not in out, (bad, out)
        assert g.sh("cat %s" % PARAM).strip() == "free", bad
    assert "invalid value '1,2,3' for parameter 'numa_inflate'" in \
        g.sh("dmesg"), "no message for a bad numa_inflate"

    # Node 0 has less to give than node 1.
    tmpfs_fill(g, 0, FILL0_MIB)
    before = nodes(g)
    inflate_by(g, INFLATE_MIB)
    after = nodes(g)
    got = delta(after, before, "inflated")
    assert sum(got.values()) == INFLATE_MIB * MIB // PAGE, got
    assert_share(got, {n: before[n]["spare"] for n in before}, "free")
    assert before[1]["spare"] > 1.5 * before[0]["spare"], before

    # numa_inflate=1,3: node 1 gives three times what node 0 gives.
    g.sh("echo 1,3 > %s" % PARAM)
    assert g.sh("cat %s" % PARAM).strip() == "1,3"
    before = nodes(g)
    inflate_by(g, WEIGHTED_MIB)
    after = nodes(g)
    assert_share(delta(after, before, "inflated"), {0: 1, 1: 3}, "weights")
    held = sum(after[n]["pages"] for n in after)
    assert held * PAGE == ram - g.query_balloon(), (after, g.query_balloon())
    g.sh("echo free > %s" % PARAM)

    # Node 1 runs out: a tmpfs bound to it grows past its free memory.
    # The OOM notifier gives back node 1's balloon pages, not node 0's.
    vm0 = g.vmstat()
    before = nodes(g)
    free1 = int(g.sh("awk '/MemFree/ {print $4}' "
                     "/sys/devices/system/node/node1/meminfo"))
    want = free1 // 1024 + 64
    assert want * MIB // PAGE < before[1]["pages"], (want, before)
    out = tmpfs_fill(g, 1, want)
    vm1 = g.vmstat()
    after = nodes(g)
    oom = delta(after, before, "oom_deflated")
    print("KEY balloon_numa oom params=%s fill_mib=%d node1_free_mib=%d "
          "oom_deflated0=%d oom_deflated1=%d oom_kill=%d" %
          (params or "-", want, free1 // 1024, oom[0], oom[1],
           vm1["oom_kill"] - vm0["oom_kill"]))
    assert "%d+0 records out" % want in out, out
    assert vm1["oom_kill"] == vm0["oom_kill"], "a process was OOM-killed"
    assert oom[1] > 0 and oom[0] == 0, (oom, before, after)
    # The host was told, and the per-node counts still add up.
    held = sum(after[n]["pages"] for n in after)
    assert held * PAGE == ram - g.query_balloon(), (after, g.query_balloon())

    g.sh("rm -f /mnt/node0/fill /mnt/node1/fill; umount /mnt/node0 /mnt/node1")
    g.balloon(ram)
    g.wait_balloon(ram, timeout=300)
    assert all(v["pages"] == 0 for v in nodes(g).values()), nodes(g)
    g.sh("rmmod guestmm_balloon")

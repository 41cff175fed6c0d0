# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon chunk_order=9 in a guest whose free memory has no free
2 MiB block but many nearly free ones: with chunk_make_pages=0 every step
falls back to 4 KiB strays; by default (64) the driver makes blocks with
alloc_contig_range() (each migrating at most 64 pages) and inflates almost
everything as complete blocks, and the host backs none of them."""
from balloonlib import MIB, state
from residency import check
from workloads import free_huge_blocks, frag_start, frag_stop

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[])
KERNELS = ("6.1", "6.12")
TIMEOUT = 900

INFLATE_MIB = 64
KEEP_STRIDE = 32          # frag keeps one page in 32: 16 in use per block


def inflate(g, make_pages):
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon chunk_order=9 chunk_make_pages=%d"
         % make_pages)
    g.balloon(ram - INFLATE_MIB * MIB)
    g.wait_balloon(ram - INFLATE_MIB * MIB, timeout=300)
    st = state(g)
    print("KEY chunk_fragmented chunk_make_pages=%d complete_blocks=%d "
          "stray_pages=%d chunk_blocks_made=%d chunk_make_failed=%d "
          "chunk_fallback=%d" % (
              make_pages, st["complete_blocks"], st["stray_pages"],
              st["chunk_blocks_made"], st["chunk_make_failed"],
              st["chunk_fallback"]))
    return st


def deflate(g):
    g.balloon(g.mem * MIB)
    g.wait_balloon(g.mem * MIB, timeout=300)
    g.sh("rmmod guestmm_balloon")


def run(g):
    g.sh("echo 3 > /proc/sys/vm/drop_caches")
    avail = g.meminfo()["MemAvailable"] // 1024
    # frag holds its pages throughout: both runs see the same layout.
    frag_start(g, avail - 64, stride=KEEP_STRIDE, keep=True)
    free2m = free_huge_blocks(g)
    print("KEY chunk_fragmented free_2m_blocks=%d %s" % (
        free2m, g.sh("cat /tmp/frag.out").strip()))
    assert free2m < INFLATE_MIB // 2 // 4, free2m

    st = inflate(g, 0)
    assert st["chunk_blocks_made"] == 0 and st["chunk_fallback"] > 0, st
    assert st["stray_pages"] >= INFLATE_MIB * 256 // 2, st
    deflate(g)

    st = inflate(g, 64)
    want = INFLATE_MIB // 2
    assert st["chunk_blocks_made"] >= want * 3 // 4, st
    assert st["complete_blocks"] >= want * 3 // 4, st
    assert st["stray_pages"] <= INFLATE_MIB * 256 // 4, st
    res = check(g, "made_blocks")
    assert res["balloon"] == st["num_pages"], (res, st)
    deflate(g)
    frag_stop(g)

# SPDX-License-Identifier: GPL-2.0
"""With init_on_free=1 in the guest every freed page reads as zeros, yet the host backs it: the default guestmm_balloon counts such free blocks as backed (step 1 of the host-return rule), not as blocks that give the host nothing, and the host gets at least 90 % of a 256 MiB inflate back (QEMU's Rss)."""
from hostreturn import INFLATE_MIB, deflate_all, frag_stop, inflate, prepare, show

GUEST = dict(mem=1024, smp=2, balloon={}, mods=[], append="init_on_free=1")
KERNELS = ("6.1", "6.12")
TIMEOUT = 600
LIGHT = True


def run(g):
    assert "init_on_free=1" in g.sh("cat /proc/cmdline")
    # All free memory touched once (the host backs it), 400 MiB held
    # whole: free 2 MiB blocks the host backs, all reading as zeros.
    prepare(g, fragmented=False)
    res = show("guestmm init_on_free=1",
               inflate(g, "modprobe guestmm_balloon", reporting=False))
    blocks = INFLATE_MIB // 2
    assert res["rss_freed_mib"] >= 0.9 * INFLATE_MIB, res
    # Read as zeros, a block would be taken as one the host does not back
    # and counted in chunk_blocks_unbacked.
    assert res["chunk_blocks_backed"] >= blocks * 3 // 4, res
    assert res["chunk_blocks_unbacked"] <= 4, res
    deflate_all(g)
    frag_stop(g)
    g.sh("rmmod guestmm_balloon")

# SPDX-License-Identifier: GPL-2.0
"""guestmm_balloon movable=0 takes unmovable memory: with a ZONE_MOVABLE (movablecore=), its pages, 4 KiB and 2 MiB chunks alike, never come from that zone, while movable=1 takes from it first."""
from balloonlib import MIB, state

MOVABLE_MIB = 384
GUEST = dict(mem=1024, smp=2, balloon={}, mods=[],
             append="movablecore=%dM" % MOVABLE_MIB)
KERNELS = ("6.1", "6.12")
LIGHT = True
OUT_MIB = 192


def movable_free_kib(g):
    """Free pages of the Movable zone, in KiB (/proc/zoneinfo)."""
    zone = None
    for line in g.sh("cat /proc/zoneinfo").splitlines():
        f = line.split()
        if line.startswith("Node"):
            zone = f[-1]
        elif zone == "Movable" and f[:2] == ["pages", "free"]:
            return int(f[2]) * 4
    raise AssertionError("no Movable zone: movablecore= ignored?")


def inflated_from_movable(g, params):
    """KiB the Movable zone lost while the balloon took OUT_MIB."""
    ram = g.mem * MIB
    g.sh("modprobe guestmm_balloon %s" % params)
    g.sh("sync; echo 3 > /proc/sys/vm/drop_caches")
    before = movable_free_kib(g)
    g.balloon(ram - OUT_MIB * MIB)
    assert g.wait_balloon(ram - OUT_MIB * MIB, timeout=180) == \
        ram - OUT_MIB * MIB
    after = movable_free_kib(g)
    st = state(g)
    assert st["num_pages"] == OUT_MIB * 256, st
    g.balloon(ram)
    assert g.wait_balloon(ram, timeout=180) == ram
    g.sh("rmmod guestmm_balloon")
    print("KEY balloon_pinned_zone params=%r movable_free_kib_before=%d "
          "after=%d lost_kib=%d" % (params, before, after, before - after))
    return before - after


def run(g):
    assert movable_free_kib(g) > (MOVABLE_MIB - 64) * 1024
    # Pinned: not a page from ZONE_MOVABLE (a little slack for whatever
    # else the idle guest allocates there meanwhile).
    for params in ("movable=0", "movable=0 chunk_order=9"):
        lost = inflated_from_movable(g, params)
        assert lost < 8 * 1024, (params, lost)
    # Movable: the allocator serves movable requests from the highest zone
    # first, so most of the balloon comes from ZONE_MOVABLE (the contrast
    # that shows the check above can see the zone being used).
    lost = inflated_from_movable(g, "movable=1")
    assert lost > OUT_MIB * 1024 // 2, lost

# SPDX-License-Identifier: GPL-2.0
"""Odd host: with deflate-on-oom on (and QEMU's default page-poison offer in a guest without page poisoning) the driver negotiates DEFLATE_ON_OOM, drops PAGE_POISON, keeps MemTotal and inflates/deflates exactly."""
import re

from balloonlib import state

MIB = 1 << 20
GUEST = dict(mem=1024, smp=2, balloon={"deflate-on-oom": "on"},
             mods=["guestmm_balloon"])
TIMEOUT = 300
LIGHT = True

BITS = {0: "MUST_TELL_HOST", 1: "STATS_VQ", 2: "DEFLATE_ON_OOM",
        3: "FREE_PAGE_HINT", 4: "PAGE_POISON", 5: "REPORTING"}


def run(g):
    ram = g.mem * MIB
    assert g.qmp.cmd("qom-get", path="/machine/peripheral/balloon0",
                     property="page-poison") is True   # QEMU offers it
    bound = [l for l in g.dmesg().splitlines() if "guestmm_balloon bound" in l]
    assert len(bound) == 1, bound
    feat = int(re.search(r"features (0x[0-9a-f]+)", bound[0]).group(1), 16)
    names = [n for b, n in sorted(BITS.items()) if feat & (1 << b)]
    st = state(g)
    assert st["features"] == feat
    assert "DEFLATE_ON_OOM" in names and "STATS_VQ" in names, names
    # Free pages have no defined content here: PAGE_POISON must be dropped.
    assert "PAGE_POISON" not in names and "REPORTING" not in names, names
    assert st["adjust_managed"] == 0 and st["reporting"] == 0, st

    m0 = g.meminfo()
    g.balloon(ram - 256 * MIB)
    g.wait_balloon(ram - 256 * MIB)
    m1 = g.meminfo()
    st = state(g)
    assert st["num_pages"] == 65536, st
    # The pages stay in MemTotal (they may come back on OOM) but are used.
    assert m1["MemTotal"] == m0["MemTotal"], (m0["MemTotal"], m1["MemTotal"])
    assert m0["MemFree"] - m1["MemFree"] > 240 * 1024, (m0["MemFree"],
                                                        m1["MemFree"])
    g.balloon(ram)
    g.wait_balloon(ram)
    st = state(g)
    assert st["num_pages"] == 0 and st["inflated_pages"] == \
        st["deflated_pages"] == 65536, st
    assert g.meminfo()["MemTotal"] == m0["MemTotal"]
    print("KEY rel_odd_host_doo features=%#x negotiated=%s memfree_drop_kb=%d"
          % (feat, "+".join(names), m0["MemFree"] - m1["MemFree"]))

"""Balloon inflate and deflate throughput over QMP

A fresh 1 GiB guest; the host asks for 512 MiB of balloon and, once
query-balloon reports it, for all of it back.  Time runs from the QMP
`balloon` command until query-balloon (polled every 20 ms) shows the
target.  Under TCG the absolute MB/s are far below native: compare the
ratio.  Variants: stock, guestmm (4 KiB pages), guestmm chunk_order=9,
and stock and chunk_order=9 again in guests booted with init_on_alloc=0
(Debian zeroes every page the balloon allocates; docs/balloon.md,
"Inflate speed").
"""
import time

MIB = 1 << 20
GUEST = dict(mem=1024, smp=2, balloon={})
INFLATE_MIB = 512

VARIANTS = [
    dict(name="stock", guest=dict(GUEST, mods=["virtio_balloon"])),
    dict(name="guestmm-4k", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=0",
         needs=["guestmm_balloon"]),
    dict(name="guestmm-chunk9", guest=GUEST,
         load="modprobe guestmm_balloon chunk_order=9",
         needs=["guestmm_balloon"]),
    # Debian zeroes every allocated page (init_on_alloc=1), most of the
    # inflate time: the same two without it (docs/balloon.md).
    dict(name="stock-noinit", guest=dict(GUEST, mods=["virtio_balloon"],
                                         append="init_on_alloc=0")),
    dict(name="guestmm-chunk9-noinit",
         guest=dict(GUEST, append="init_on_alloc=0"),
         load="modprobe guestmm_balloon chunk_order=9",
         needs=["guestmm_balloon"]),
]

METRICS = [
    ("inflate_mbps", "inflate throughput, MB/s", "higher"),
    ("deflate_mbps", "deflate throughput, MB/s", "higher"),
]


def timed_resize(g, target):
    t0 = time.monotonic()
    g.balloon(target)
    g.wait_balloon(target, timeout=600, poll=0.02)
    return time.monotonic() - t0


def measure(g, variant):
    ram = g.mem * MIB
    if "load" in variant:
        g.sh(variant["load"])
    t_in = timed_resize(g, ram - INFLATE_MIB * MIB)
    t_out = timed_resize(g, ram)
    return {"inflate_mbps": INFLATE_MIB * MIB / 1e6 / t_in,
            "deflate_mbps": INFLATE_MIB * MIB / 1e6 / t_out}

# SPDX-License-Identifier: GPL-2.0
"""Helpers for the guestmm_balloon cases."""
import os
import time

from scriptmod import load_script

MIB = 1 << 20
DBG = "/sys/kernel/debug/guestmm_balloon"


def state(g):
    """guestmm_balloon's debugfs `state` file as a dict of integers."""
    res = {}
    for line in g.sh("cat %s/state" % DBG).splitlines():
        k, _, v = line.partition(" ")
        res[k] = int(v, 0)
    return res


def settled_state(g, num_pages, timeout=120):
    """The state once the balloon holds num_pages again.  Background
    defrag (on by default) leaves the balloon a few strays under or over
    for a moment while it completes a block (defrag.c)."""
    deadline = time.monotonic() + timeout * getattr(g, "time_scale", 1)
    while True:
        st = state(g)
        if st["num_pages"] == num_pages:
            return st
        assert time.monotonic() < deadline, (num_pages, st)
        time.sleep(0.5)


def block_counts(g):
    """debugfs blocks (chunk mode): {first pfn: balloon pages in that
    block}; a complete block has 512."""
    res = {}
    for line in g.sh("cat %s/blocks" % DBG).splitlines():
        pfn, n = line.split()
        res[int(pfn, 16)] = int(n)
    return res


def sibling_case(name):
    """The module of another case in tests/cases, for a case that runs the
    same procedure with other parameters."""
    return load_script(os.path.join("tests", "cases", name + ".py"))

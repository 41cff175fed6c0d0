# SPDX-License-Identifier: GPL-2.0
"""Helpers for the guestmm_balloon cases."""

MIB = 1 << 20
DBG = "/sys/kernel/debug/guestmm_balloon"


def state(g):
    """guestmm_balloon's debugfs `state` file as a dict of integers."""
    res = {}
    for line in g.sh("cat %s/state" % DBG).splitlines():
        k, _, v = line.partition(" ")
        res[k] = int(v, 0)
    return res

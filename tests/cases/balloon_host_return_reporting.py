# SPDX-License-Identifier: GPL-2.0
"""balloon_host_return with free page reporting on: the free 2 MiB
blocks are the host's already (reported), so a balloon that took them
would give it nothing; guestmm_balloon still frees at least 90 % of what
stock frees, at most 1.1 MiB of host huge pages lost per MiB freed."""
from balloonlib import sibling_case

_base = sibling_case("balloon_host_return")

GUEST = dict(_base.GUEST, balloon={"free-page-reporting": "on"})
KERNELS = _base.KERNELS
TIMEOUT = _base.TIMEOUT
LIGHT = True


def run(g):
    _base.check(g, reporting=True)

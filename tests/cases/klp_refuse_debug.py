# SPDX-License-Identifier: GPL-2.0
"""guestmm_klp refuses the debug kernel (Debian's 6.1 source with KASAN, lockdep, kmemleak; make check-debug): its version string is not Debian's, so the identity check stops the load before anything is patched."""

GUEST = dict(mem=1024, smp=2, balloon=None)
KERNELS = ("debug",)

LP = "/sys/kernel/livepatch"


def run(g):
    version = g.sh("cat /proc/sys/kernel/version").strip()
    release = g.sh("uname -r").strip()
    assert release.endswith("-gmmdebug"), release
    assert "Debian 6.1.192-3" not in version, version

    g.sh("dmesg -c > /dev/null")
    out = g.sh("modprobe guestmm_klp 2>&1", check=False)
    rc = g.last_rc
    assert rc != 0, "guestmm_klp loaded on the debug kernel: %s" % out
    log = g.sh("dmesg")
    # The first check of the 6.1 build of guestmm_klp (livepatch/main.c).
    msg = "guestmm_klp: refusing to load: kernel version '%s' does not " \
          "contain 'Debian 6.1.192-3'" % version
    assert msg in log, log[-2000:]
    assert g.sh("ls %s" % LP).strip() == "", "a livepatch is registered"
    mods = g.sh("cat /proc/modules")
    assert "guestmm_klp " not in mods, mods
    # guestmm_klp_trace (its dependency) may stay loaded; it patches nothing.
    print("KEY klp_refuse_debug rc=%d release=%s" % (rc, release))

"""A kernel no livepatch variant serves gets no guestmm_klp module at all
(the build leaves it out, as DKMS does), so nothing refuses to load and
nothing taints the kernel with K.  Runs on every kernel of make check
whose build no variant serves (livepatch/select-variant)."""
from klplib import klp_variant

GUEST = dict(mem=512, balloon=None, tcg_single=True)
KERNELS = ("6.1", "6.12", "debug")
LIGHT = True


def run(g):
    release = g.sh("uname -r").strip()
    mods = g.sh("ls /lib/modules/%s/extra/" % release).split()
    if klp_variant(release):
        # The supported side of the same rule: the module is there.
        assert "guestmm_klp.ko" in mods, mods
        print("KEY klp_other_kernel supported=1 release=%s" % release)
        return
    assert "guestmm_klp.ko" not in mods, mods
    assert "guestmm_klp_trace.ko" not in mods, mods
    out = g.sh("modprobe guestmm_klp 2>&1", check=False)
    assert g.last_rc != 0, "guestmm_klp loaded on an unsupported kernel"
    assert "not found" in out, out
    assert g.sh("ls /sys/kernel/livepatch/").strip() == ""
    tainted = int(g.sh("cat /proc/sys/kernel/tainted"))
    assert not tainted & (1 << 15), tainted      # K: livepatch
    print("KEY klp_other_kernel supported=0 release=%s tainted=%d" %
          (release, tainted))

"""A kernel no livepatch variant serves gets no guestmm_klp module at all
(the build leaves it out, as DKMS does), so nothing refuses to load and
nothing taints the kernel with K.  Runs on every kernel of make check
whose build is not a row of livepatch/kernels.tsv."""
import os

GUEST = dict(mem=512, balloon=None)
KERNELS = ("6.1", "6.12", "debug")

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def supported(release, version):
    with open(os.path.join(TOP, "livepatch", "kernels.tsv")) as f:
        rows = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    return any(r[0] == release and r[1] == version for r in rows)


def run(g):
    release = g.sh("uname -r").strip()
    version = g.sh("uname -v").strip()
    mods = g.sh("ls /lib/modules/%s/extra/" % release).split()
    if supported(release, version):
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

"""guestmm_klp refuses a kernel that is not exactly a build it was checked
against, with a message that names the kernel and the way forward, and
registers nothing.  The module is the real one, built here from the tree
against this kernel's headers, with one change in the table it compiles
in (GMM_KLP_KERNELS): this build's row carries another vmlinux build ID,
as a rebuild of the same Debian version from other sources would."""
import atexit
import os
import shutil
import subprocess
import tarfile
import tempfile

from klplib import build_livepatch_copy

GUEST = dict(mem=512, smp=2, balloon=None, mods=["virtio_blk"],
             tcg_single=True)
KERNELS = ("6.1", "6.12")
LIGHT = True

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_ID = "00" * 20


def build_mismatched(abi, tmp):
    """guestmm_klp.ko for @abi whose table row has FAKE_ID; its path."""
    kdir = "/usr/src/linux-headers-" + abi
    table = os.path.join(tmp, "kernels.tsv")
    # The table the tree's build used (the debug kernel has its own).
    ours = os.environ.get("GMM_KLP_KERNELS") or \
        os.path.join(TOP, "livepatch", "kernels.tsv")
    with open(ours) as src, open(table, "w") as out:
        for line in src:
            cols = line.rstrip("\n").split("\t")
            if cols[0] == abi:
                cols[2] = FAKE_ID
            out.write("\t".join(cols) + "\n")
    lp, p = build_livepatch_copy(kdir, tmp, table)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    subprocess.run([os.path.join(lp, "postlink", "run"), kdir], check=True,
                   capture_output=True)
    return os.path.join(lp, "guestmm_klp.ko")


def guest_config(abi):
    """Build the module and hand it to the guest as a tar on /dev/vda."""
    tmp = tempfile.mkdtemp(prefix="klp_refuse_build.")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    tar = os.path.join(tmp, "klp.tar")
    with tarfile.open(tar, "w") as t:
        t.add(build_mismatched(abi, tmp), "guestmm_klp.ko")
    # A raw drive is read in whole sectors.
    with open(tar, "ab") as f:
        f.truncate(-(-os.path.getsize(tar) // 512) * 512)
    return dict(GUEST, drives=[tar])


def run(g):
    g.sh("tar -xf /dev/vda -C /tmp")
    release = g.sh("uname -r").strip()
    version = g.sh("uname -v").strip()
    g.sh("dmesg -c > /dev/null")
    out = g.sh("insmod /tmp/guestmm_klp.ko 2>&1", check=False)
    assert g.last_rc != 0, "loaded despite the build ID: %s" % out
    log = g.sh("dmesg")
    want = "guestmm_klp: refusing to load: kernel %s '%s' has build ID " % (
        release, version)
    assert want in log, log[-2000:]
    assert "the checked build has %s" % FAKE_ID in log, log[-2000:]
    assert g.sh("ls /sys/kernel/livepatch/").strip() == ""
    assert "guestmm_klp " not in g.sh("cat /proc/modules")
    print("KEY klp_refuse_build rc=%d" % g.last_rc)

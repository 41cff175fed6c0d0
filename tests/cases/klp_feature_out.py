"""A build whose kernels.tsv row leaves a feature out ("-" in its column)
gets guestmm_klp with the other feature alone, and it works: with the
reclaim column "-", compact_zone is patched (the scanner's counters move
after compact_memory) and pgdat_balanced is not, there is no unmapped
control parameter or debugfs file, and the module leaves cleanly; with
the compaction column "-", the reverse (pgdat_balanced alone, no scanner
tunables or counters, the control turned on and the patch removed with
it on).  The modules are the real ones, built here from the tree against
this kernel's headers with a table that differs from kernels.tsv in this
build's feature columns only (GMM_KLP_KERNELS), as klp_refuse_build
builds its module."""
import atexit
import os
import shutil
import subprocess
import tarfile
import tempfile

from klplib import LP, STATS, UM, build_livepatch_copy, klp_stats, \
    wait_transition

GUEST = dict(mem=1024, smp=2, balloon=None, mods=["virtio_blk"],
             tcg_single=True)
KERNELS = ("6.1", "6.12")
TIMEOUT = 600
LIGHT = True

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAR = "/sys/module/guestmm_klp/parameters"
# What each module is built with: this build's (compaction, reclaim)
# columns, "=" for the table's own value.
MODULES = {"scanner": ("=", "-"), "reclaim": ("-", "=")}


def build_with(abi, tmp, cols):
    """guestmm_klp.ko for @abi from a table whose row for @abi has the
    feature columns @cols; its path."""
    kdir = "/usr/src/linux-headers-" + abi
    table = os.path.join(tmp, "kernels.tsv")
    # The table the tree's build used (the debug kernel has its own).
    ours = os.environ.get("GMM_KLP_KERNELS") or \
        os.path.join(TOP, "livepatch", "kernels.tsv")
    found = False
    with open(ours) as src, open(table, "w") as out:
        for line in src:
            vals = line.rstrip("\n").split("\t")
            if line.startswith("# "):
                names = line[2:].rstrip("\n").split("\t")
                idx = [names.index("compaction"), names.index("reclaim")]
            elif vals[0] == abi:
                found = True
                for i, v in zip(idx, cols):
                    if v != "=":
                        vals[i] = v
            out.write("\t".join(vals) + "\n")
    assert found, "%s is not in %s" % (abi, ours)
    lp, p = build_livepatch_copy(kdir, tmp, table)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    subprocess.run([os.path.join(lp, "postlink", "run"), kdir], check=True,
                   capture_output=True)
    return os.path.join(lp, "guestmm_klp.ko")


def guest_config(abi):
    """Build both modules and hand them to the guest as a tar on
    /dev/vda: scanner/guestmm_klp.ko, reclaim/guestmm_klp.ko."""
    tmp = tempfile.mkdtemp(prefix="klp_feature_out.")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    tar = os.path.join(tmp, "klp.tar")
    with tarfile.open(tar, "w") as t:
        for name, cols in MODULES.items():
            d = os.path.join(tmp, name)
            os.makedirs(d)
            t.add(build_with(abi, d, cols), name + "/guestmm_klp.ko")
    # A raw drive is read in whole sectors.
    with open(tar, "ab") as f:
        f.truncate(-(-os.path.getsize(tar) // 512) * 512)
    return dict(GUEST, drives=[tar])


def load(g, name):
    """insmod /tmp/@name/guestmm_klp.ko, wait for the transition; the
    functions patched, as /sys/kernel/livepatch lists them."""
    g.sh("dmesg -c > /dev/null")
    g.sh("insmod /tmp/%s/guestmm_klp.ko" % name)
    assert g.sh("cat %s/enabled" % LP).strip() == "1"
    secs = wait_transition(g)
    # the object's directory: a FUNC,SYMPOS directory per function, and
    # its "patched" attribute
    funcs = sorted(f for f in g.sh("ls %s/vmlinux/" % LP).split() if "," in f)
    print("KEY klp_feature_out_%s transition_s=%.1f funcs=%s" % (
        name, secs, ",".join(funcs)), flush=True)
    return funcs


def unload(g):
    """Disable the patch, wait until it is gone, rmmod: nothing left."""
    g.sh("echo 0 > %s/enabled" % LP)
    wait_transition(g)
    g.sh("i=0; while [ -d %s ] && [ $i -lt 300 ]; do sleep 0.1; "
         "i=$((i+1)); done" % LP)
    assert g.sh("ls /sys/kernel/livepatch/").strip() == ""
    g.sh("rmmod guestmm_klp")
    assert "guestmm_klp " not in g.sh("cat /proc/modules")
    assert g.sh("ls /sys/kernel/debug/guestmm_klp 2>&1; true").strip() \
        .endswith("No such file or directory")


def run(g):
    g.sh("tar -xf /dev/vda -C /tmp")
    version = g.sh("uname -v").strip()

    # Reclaim "-": the scanner alone.
    funcs = load(g, "scanner")
    assert funcs == ["compact_zone,1"], funcs
    log = g.sh("dmesg")
    assert "compact_zone replaced (compaction variant " in log, log[-2000:]
    assert "pgdat_balanced replaced" not in log, log[-2000:]
    assert "kernel '%s'" % version in log, log[-2000:]
    params = g.sh("ls " + PAR).split()
    assert "unmapped_page_control" not in params, params
    assert "max_unmapped_ratio" not in params, params
    assert {"fast_search", "search_depth", "candidates", "balloon_cost"} \
        <= set(params), params
    assert g.sh("ls /sys/kernel/debug/guestmm_klp/").split() == ["stats"]
    before = klp_stats(g)
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    after = klp_stats(g)
    runs = after["runs"] - before["runs"]
    assert runs >= 2, (before, after)   # DMA and DMA32 at least
    unload(g)
    print("KEY klp_feature_out_scanner runs=%d migrate_scanned=%d" % (
        runs, after["migrate_scanned"] - before["migrate_scanned"]))

    # Compaction "-": the unmapped control alone.
    funcs = load(g, "reclaim")
    assert funcs == ["pgdat_balanced,1"], funcs
    log = g.sh("dmesg")
    assert "pgdat_balanced replaced (reclaim variant " in log, log[-2000:]
    assert "compact_zone replaced" not in log, log[-2000:]
    params = g.sh("ls " + PAR).split()
    assert {"unmapped_page_control", "max_unmapped_ratio"} <= set(params), \
        params
    assert "candidates" not in params and "fast_search" not in params, params
    assert g.sh("ls /sys/kernel/debug/guestmm_klp/").split() == ["unmapped"]
    assert not g.sh("ls %s 2>/dev/null; true" % STATS).strip()
    g.sh("echo 1 > %s/unmapped_page_control" % PAR)
    um = dict(l.split() for l in g.sh("cat " + UM).splitlines())
    assert um["enabled"] == "1", um
    # compact_memory runs the kernel's own compact_zone(): nothing of ours
    g.sh("echo 1 > /proc/sys/vm/compact_memory", timeout=300)
    unload(g)      # with the control on: pre_unpatch stands it down
    print("KEY klp_feature_out_reclaim unmapped_enabled=1 unloaded=1")

"""scripts/guestmm-klp-check (guestmm-klp.service's ExecCondition and
guestmm-dkms's postinst): exit 0 where DKMS installed guestmm_klp, else
exit 1 with the reason a user can act on, for a kernel build the support
matrix does not list (a Debian cloud kernel before its row), missing
headers, and a module DKMS did not install."""
import os
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(TOP, "scripts", "guestmm-klp-check")
REL = "6.1.0-57-amd64"
UTS = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"


def world(tmp, release=REL, headers=True, module=False, dkms=True,
          reclaim=None):
    """A /lib/modules and /usr/src for release: a DKMS tree with
    select-variant and the real kernels.tsv (reclaim: the reclaim column
    of release's row instead), headers naming the build."""
    modules, src = os.path.join(tmp, "modules"), os.path.join(tmp, "src")
    os.makedirs(os.path.join(modules, release))
    if dkms:
        lp = os.path.join(src, "guestmm-0.1.0", "livepatch")
        for feature in ("compaction", "reclaim"):
            os.makedirs(os.path.join(lp, feature, "variants", "6.1"))
        for f in ("select-variant", "kernels.tsv"):
            with open(os.path.join(TOP, "livepatch", f)) as i, \
                    open(os.path.join(lp, f), "w") as o:
                for line in i:
                    cols = line.split("\t")
                    if reclaim and cols[0] == release:
                        cols[4] = reclaim
                    o.write("\t".join(cols))
        os.chmod(os.path.join(lp, "select-variant"), 0o755)
    if headers:
        gen = os.path.join(modules, release, "build", "include", "generated")
        os.makedirs(gen)
        with open(os.path.join(gen, "utsrelease.h"), "w") as f:
            f.write('#define UTS_RELEASE "%s"\n' % release)
        with open(os.path.join(gen, "utsversion.h"), "w") as f:
            f.write('#define UTS_VERSION "%s"\n' % UTS)
    if module:
        d = os.path.join(modules, release, "updates", "dkms")
        os.makedirs(d)
        open(os.path.join(d, "guestmm_klp.ko.xz"), "w").close()
    env = dict(os.environ, GUESTMM_MODULES=modules, GUESTMM_SRC=src)
    return subprocess.run(["sh", SCRIPT, release], env=env,
                          capture_output=True, text=True)


def test_installed():
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp, module=True)
        assert r.returncode == 0 and r.stdout == "", r


def test_installed_without_a_feature():
    """A build whose row leaves the reclaim feature out: the module is
    there (exit 0), and klp-check says which feature it lacks."""
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp, module=True, reclaim="-")
        assert r.returncode == 0, r
        assert r.stdout.strip() == (
            "guestmm_klp for kernel %s has no reclaim feature: that build's "
            "row in livepatch/kernels.tsv leaves it out (no variant of it was "
            "verified for the build); docs/livepatch.md lists the builds and "
            "their features." % REL), r.stdout


def test_build_not_served():
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp, release="6.1.0-57-rt-amd64")
        assert r.returncode == 1, r
        assert "not available for kernel 6.1.0-57-rt-amd64: kernel " \
            "6.1.0-57-rt-amd64 '%s' is not in livepatch/kernels.tsv" % UTS \
            in r.stdout, r.stdout
        assert "guestmm_balloon" in r.stdout


def test_no_headers_no_dkms_not_built():
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp, headers=False)
        assert r.returncode == 1 and "linux-headers-%s" % REL in r.stdout, r
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp, dkms=False)
        assert r.returncode == 1 and "guestmm-dkms is not installed" in \
            r.stdout, r
    with tempfile.TemporaryDirectory() as tmp:
        r = world(tmp)          # served, but no module
        assert r.returncode == 1 and "the livepatch serves this build " \
            "(compaction=6.1 reclaim=6.1)" in r.stdout and "make.log" in \
            r.stdout, r

"""The livepatch is built exactly where a variant serves the kernel.

livepatch/select-variant reads the headers' UTS_RELEASE and UTS_VERSION
and looks the build up in kernels.tsv; the Kbuild and dkms.conf both ask
it.  Where it answers nothing, kbuild builds neither guestmm_klp.ko nor
its trace module (so DKMS installs nothing that would refuse and taint),
and says why."""
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "lib"))
from klplib import build_livepatch_copy  # noqa: E402
SELECT = os.path.join(TOP, "livepatch", "select-variant")
KSH = os.path.join(TOP, "scripts", "guest", "kernel.sh")


def kdir_61():
    return subprocess.run([KSH, "headers", "6.1"], capture_output=True,
                          text=True, check=True).stdout.strip()


def select(kdir, table=None):
    env = dict(os.environ)
    if table:
        env["GMM_KLP_KERNELS"] = table
    p = subprocess.run([SELECT, kdir], capture_output=True, text=True,
                       env=env, check=True)
    return p.stdout.strip(), p.stderr


def uts(kdir, name, header):
    with open(os.path.join(kdir, "include", "generated", header)) as f:
        for line in f:
            if line.startswith("#define %s " % name):
                return line.split(" ", 2)[2].strip().strip('"')
    raise AssertionError((name, header))


def test_select_variant_reads_the_table():
    kdir = kdir_61()
    release = uts(kdir, "UTS_RELEASE", "utsrelease.h")
    version = uts(kdir, "UTS_VERSION", "utsversion.h")
    assert select(kdir) == ("6.1", "")
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        rows = {
            # the exact build, another variant name that has no directory
            "nodir": "%s\t%s\t-\tnosuchvariant\n" % (release, version),
            # the same release, another revision's version string
            "other": "%s\t%s\t-\t6.1\n" % (release, version.replace(
                "Debian ", "Debian 9")),
            # a version that merely contains ours is not ours
            "prefix": "%s\t%s0\t-\t6.1\n" % (release, version),
            "empty": "",
        }
        for name, row in rows.items():
            with open(table, "w") as f:
                f.write("# release\tuts_version\tbuild_id\tvariant\n" + row)
            out, err = select(kdir, table)
            assert out == "", (name, out)
            assert "livepatch not built" in err, (name, err)
            assert release in err and version in err, (name, err)


def test_no_variant_builds_no_livepatch_module():
    kdir = kdir_61()
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        with open(table, "w") as f:
            f.write("# release\tuts_version\tbuild_id\tvariant\n")
        lp, p = build_livepatch_copy(kdir, tmp, table)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        assert "livepatch not built" in p.stderr, p.stderr[-2000:]
        built = [f for f in os.listdir(lp) if f.endswith(".ko")]
        assert built == [], built

"""The livepatch is built exactly where a variant of one of its features
serves the kernel, with just those features.

livepatch/select-variant reads the headers' UTS_RELEASE and UTS_VERSION
and looks the build up in kernels.tsv, one column per feature
(compaction, reclaim; "-": not built); the Kbuild and dkms.conf both ask
it.  Where it answers nothing, kbuild builds neither guestmm_klp.ko nor
its trace module (so DKMS installs nothing that would refuse and taint),
and says why.  builds-h compiles in the rows whose features are exactly
the ones built (identity.c refuses any other build)."""
import os
import re
import subprocess
import tempfile

from klplib import build_livepatch_copy

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SELECT = os.path.join(TOP, "livepatch", "select-variant")
BUILDS_H = os.path.join(TOP, "livepatch", "builds-h")
HEADER = "# release\tuts_version\tbuild_id\tcompaction\treclaim\tcompiler\n"
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
    assert select(kdir) == ("compaction=6.1 reclaim=6.1", "")
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        rows = {
            # the exact build, a variant name that has no directory, of
            # either feature: nothing is built (the tree is not the one
            # the table was written for)
            "nodir": "%s\t%s\t-\tnosuchvariant\t6.1\tgcc\n" % (release, version),
            "nodir_reclaim": "%s\t%s\t-\t6.1\tnosuchvariant\tgcc\n" % (release, version),
            # the exact build with no feature
            "none": "%s\t%s\t-\t-\t-\tgcc\n" % (release, version),
            # the same release, another revision's version string
            "other": "%s\t%s\t-\t6.1\t6.1\tgcc\n" % (release, version.replace(
                "Debian ", "Debian 9")),
            # a version that merely contains ours is not ours
            "prefix": "%s\t%s0\t-\t6.1\t6.1\tgcc\n" % (release, version),
            "empty": "",
        }
        for name, row in rows.items():
            with open(table, "w") as f:
                f.write(HEADER + row)
            out, err = select(kdir, table)
            assert out == "", (name, out)
            assert "livepatch not built" in err, (name, err)
            assert name == "empty" or release in err, (name, err)
            assert name in ("empty", "none") or name.startswith("nodir") or \
                version in err, (name, err)
        # A table of the layout before the features (one variant column):
        # nothing, and why.
        with open(table, "w") as f:
            f.write("# release\tuts_version\tbuild_id\tvariant\n"
                    "%s\t%s\t-\t6.1\n" % (release, version))
        out, err = select(kdir, table)
        assert out == "" and "has no compaction column" in err, (out, err)


def test_select_variant_feature_out():
    """A row whose reclaim (or compaction) column is "-": the other
    feature alone."""
    version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"
    with tempfile.TemporaryDirectory() as tmp:
        kdir = fake_kdir(tmp, "6.1.0-57-amd64", version)
        table = os.path.join(tmp, "kernels.tsv")
        for cols, want in ((("6.1", "-"), "compaction=6.1 reclaim=-"),
                           (("-", "6.12"), "compaction=- reclaim=6.12")):
            with open(table, "w") as f:
                f.write(HEADER + "6.1.0-57-amd64\t%s\t%s\t%s\t%s\tgcc\n"
                        % (version, "6a" * 20, cols[0], cols[1]))
            assert select(kdir, table) == (want, "")


def builds_h(sel, table_text):
    """builds-h's rows (release, version, build ID) for selection sel."""
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        with open(table, "w") as f:
            f.write(table_text)
        out = subprocess.run(["sh", BUILDS_H, sel, table], capture_output=True,
                             text=True, check=True).stdout
    assert out.rstrip().endswith("\t{ }\n};"), out
    return re.findall(r'\{ "([^"]*)",\s+"([^"]*)",\s+"([^"]*)" \}', out)


def test_builds_h_takes_the_rows_of_exactly_the_built_features():
    """The module compiles in the rows whose columns are exactly its
    features: a module with both features refuses a build whose row
    leaves reclaim out, and the scanner-only module refuses the builds
    that have both (their module is another)."""
    text = HEADER + "".join(
        "%s\tv%s\t%s\t%s\t%s\tgcc\n" % (rel, rel, bid, c, r)
        for rel, bid, c, r in (("a", "1a", "6.1", "6.1"), ("b", "1b", "6.1", "-"),
                               ("c", "1c", "-", "6.1"), ("d", "1d", "6.12", "6.12"),
                               ("e", "1e", "6.1", "6.12")))
    assert builds_h("compaction=6.1 reclaim=6.1", text) == [("a", "va", "1a")]
    assert builds_h("compaction=6.1 reclaim=-", text) == [("b", "vb", "1b")]
    assert builds_h("compaction=- reclaim=6.1", text) == [("c", "vc", "1c")]
    assert builds_h("compaction=6.12 reclaim=6.12", text) == [("d", "vd", "1d")]
    assert builds_h("compaction=6.12 reclaim=-", text) == []


def fake_kdir(tmp, release, version):
    """Headers that name the build release, `uname -v` version."""
    gen = os.path.join(tmp, release, "include", "generated")
    os.makedirs(gen)
    with open(os.path.join(gen, "utsrelease.h"), "w") as f:
        f.write('#define UTS_RELEASE "%s"\n' % release)
    with open(os.path.join(gen, "utsversion.h"), "w") as f:
        f.write('#define UTS_VERSION "%s"\n' % version)
    return os.path.join(tmp, release)


def test_select_variant_by_release_of_one_version():
    """A version's amd64 and cloud-amd64 builds share the package version
    and uts_version; each kernel picks its own row, by release, and a
    flavour without a row (rt-amd64) gets none."""
    version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)"
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        with open(table, "w") as f:
            f.write(HEADER +
                    "6.1.0-57-amd64\t%s\t%s\t6.1\t6.1\tgcc\n" % (version, "6a" * 20) +
                    # variant names only this row has, to tell them apart
                    "6.1.0-57-cloud-amd64\t%s\t%s\t6.12\t-\tgcc\n" % (version, "c1" * 20))
        assert select(fake_kdir(tmp, "6.1.0-57-amd64", version), table) == \
            ("compaction=6.1 reclaim=6.1", "")
        assert select(fake_kdir(tmp, "6.1.0-57-cloud-amd64", version), table) == \
            ("compaction=6.12 reclaim=-", "")
        out, err = select(fake_kdir(tmp, "6.1.0-57-rt-amd64", version), table)
        assert out == "" and "6.1.0-57-rt-amd64" in err and "livepatch not built" in err, err


def test_real_table_serves_both_flavours():
    """kernels.tsv: every amd64 row has its cloud-amd64 twin (the same
    package version, uts_version and variant, its own build ID), and
    select-variant picks it; no row is of another flavour."""
    with open(os.path.join(TOP, "livepatch", "kernels.tsv")) as f:
        lines = f.read().splitlines()
    cols = lines[0][2:].split("\t")
    rows = [dict(zip(cols, line.split("\t"))) for line in lines[1:]
            if line and not line.startswith("#")]
    by_release = {r["release"]: r for r in rows}
    assert len(by_release) == len(rows), "two rows of one release"
    amd64 = [r for r in rows if not r["release"].endswith("-cloud-amd64")]
    assert all(r["release"].endswith("-amd64") for r in amd64)
    assert len(amd64) * 2 == len(rows), [r["release"] for r in rows]
    with tempfile.TemporaryDirectory() as tmp:
        for r in amd64:
            cloud = by_release.get(r["release"][:-len("amd64")] + "cloud-amd64")
            assert cloud, r["release"]
            for c in ("package_version", "uts_version", "compaction", "reclaim",
                      "suite"):
                assert cloud[c] == r[c], (r["release"], c)
            assert cloud["build_id"] not in (r["build_id"], "-"), r["release"]
            kdir = fake_kdir(tmp, cloud["release"], cloud["uts_version"])
            assert select(kdir) == ("compaction=%s reclaim=%s" % (
                cloud["compaction"], cloud["reclaim"]), ""), cloud["release"]


def test_no_variant_builds_no_livepatch_module():
    kdir = kdir_61()
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "kernels.tsv")
        with open(table, "w") as f:
            f.write(HEADER)
        lp, p = build_livepatch_copy(kdir, tmp, table)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        assert "livepatch not built" in p.stderr, p.stderr[-2000:]
        built = [f for f in os.listdir(lp) if f.endswith(".ko")]
        assert built == [], built

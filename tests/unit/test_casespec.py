"""Host-side unit tests for tests/lib/casespec.py: a case's settings are
read once and checked, so a misspelt or mistyped setting is an error
naming the case instead of a default silently used."""
import glob
import os
import types

import casespec
import guest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def module(**consts):
    m = types.ModuleType("case_fake")
    m.__doc__ = "A fake case.\n\nMore."
    m.run = lambda g: None
    for k, v in consts.items():
        setattr(m, k, v)
    return m


def refused(**consts):
    try:
        casespec.Case("fake", module(**consts))
    except casespec.CaseError as e:
        assert str(e).startswith("fake: "), e
        return str(e)
    raise AssertionError("accepted: %r" % consts)


def test_defaults_and_values():
    c = casespec.Case("fake", module())
    assert (c.light, c.one_core, c.timeout, c.kernels, c.guest,
            c.guest_class, c.guest_config, c.needs_modules) == \
        (False, False, 600, None, {}, None, None, True)
    assert c.doc == "A fake case."
    c = casespec.Case("fake", module(LIGHT=True, TIMEOUT=900,
                                     KERNELS=("6.1", "6.12"),
                                     GUEST=dict(mem=512, host_thp=False),
                                     MY_OWN_MIB=3))
    assert c.light and c.timeout == 900 and c.guest["mem"] == 512


def test_misspelt_settings_are_errors():
    assert "ONECORE is not a case setting: ONE_CORE?" in refused(ONECORE=True)
    assert "KERNEL is not a case setting: KERNELS?" in refused(KERNEL=("6.1",))
    assert "TIMEOUT" in refused(TIMEOUTS=5)


def test_wrong_types_and_values_are_errors():
    assert "expected bool" in refused(LIGHT=1)
    assert "expected int or float" in refused(TIMEOUT="5")
    assert "expected int or float" in refused(TIMEOUT=True)
    assert "expected tuple" in refused(KERNELS="6.1")
    assert "KERNELS names 6.2" in refused(KERNELS=("6.2",))
    assert "LIGHT and ONE_CORE" in refused(LIGHT=True, ONE_CORE=True)
    assert "TIMEOUT = 0" in refused(TIMEOUT=0)


def test_guest_keys_are_the_guest_classes():
    assert "GUEST key host_tHp is not the guest's" in refused(
        GUEST=dict(host_tHp=False))

    class Other(guest.Guest):
        def __init__(self, *args, extra=1, **kw):
            super().__init__(*args, **kw)
    casespec.Case("fake", module(GUEST_CLASS=Other,
                                 GUEST=dict(extra=2, mem=512)))
    assert "GUEST_CLASS is not a Guest" in refused(GUEST_CLASS=dict)


def test_no_run_or_docstring_is_an_error():
    m = module()
    del m.run
    try:
        casespec.Case("fake", m)
        raise AssertionError("no run(g) accepted")
    except casespec.CaseError as e:
        assert "no run(g)" in str(e)


def test_every_case_file_loads():
    names = [casespec.load(p).name for p in
             sorted(glob.glob(os.path.join(TOP, "tests", "cases", "*.py")))]
    assert len(names) > 50 and "balloon_live_migration" in names


def test_needs_config():
    assert "CONFIG_NAME strings" in refused(NEEDS_CONFIG=("PAGE_POISONING",))
    assert "expected tuple" in refused(NEEDS_CONFIG="CONFIG_PAGE_POISONING")
    c = casespec.Case("fake", module(NEEDS_CONFIG=("CONFIG_PAGE_POISONING",
                                                   "CONFIG_NUMA_EMU")))
    assert casespec.missing_config(c, None) == []
    assert casespec.missing_config(c, {"CONFIG_PAGE_POISONING": "y",
                                       "CONFIG_NUMA_EMU": "m"}) == []
    assert casespec.missing_config(c, {"CONFIG_PAGE_POISONING": "y"}) == \
        ["CONFIG_NUMA_EMU"]


def test_kernel_config_is_read_beside_the_image():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "config-9.9.9-cloud-amd64"), "w") as f:
            f.write("# CONFIG_PAGE_POISONING is not set\nCONFIG_NUMA=y\n")
        conf = casespec.kernel_config(
            os.path.join(d, "vmlinuz-9.9.9-cloud-amd64"), "9.9.9-cloud-amd64")
        assert conf == {"CONFIG_NUMA": "y"}
        assert casespec.kernel_config(os.path.join(d, "vmlinuz-x"), "x") \
            is None


def test_needs_modules():
    assert "expected bool" in refused(NEEDS_MODULES=0)
    assert "expected bool" in refused(NEEDS_MODULES="no")
    assert "NEEDS_MODULE is not a case setting: NEEDS_MODULES?" in \
        refused(NEEDS_MODULE=False)
    # A case that says it needs none must not load one at boot.
    assert "NEEDS_MODULES = False, but GUEST loads guestmm_balloon" in \
        refused(NEEDS_MODULES=False, GUEST=dict(mods=["virtio_balloon",
                                                      "guestmm_balloon"]))
    free = casespec.Case("fake", module(NEEDS_MODULES=False, GUEST=dict(
        mods=["virtio_balloon"])))
    needs = casespec.Case("fake", module(KERNELS=("6.1", "7.3")))
    assert needs.needs_modules and not free.needs_modules
    assert casespec.missing_modules(needs, [])
    assert not casespec.missing_modules(needs, ["guestmm_balloon"])
    assert not casespec.missing_modules(needs, None)
    assert not casespec.missing_modules(free, [])


def test_guestmm_modules_are_make_guests():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        assert casespec.guestmm_modules(d) == []
        os.makedirs(os.path.join(d, "modules"))
        assert casespec.guestmm_modules(d) == []
        for f in ("guestmm_klp.ko", "guestmm_balloon.ko", "notes.txt"):
            open(os.path.join(d, "modules", f), "w").close()
        assert casespec.guestmm_modules(d) == ["guestmm_balloon",
                                               "guestmm_klp"]


def test_kernel_config_of_a_7x_root():
    """7.x's linux-binary: vmlinuz and config in /usr/lib/modules/ABI,
    boot/vmlinuz-ABI a link there (kernel-next.sh fetch)."""
    import tempfile
    abi = "7.3.4+deb13-amd64"
    with tempfile.TemporaryDirectory() as d:
        mdir = os.path.join(d, "usr", "lib", "modules", abi)
        os.makedirs(mdir)
        os.makedirs(os.path.join(d, "boot"))
        open(os.path.join(mdir, "vmlinuz"), "w").close()
        with open(os.path.join(mdir, "config"), "w") as f:
            f.write("CONFIG_PAGE_POISONING=y\n")
        link = os.path.join(d, "boot", "vmlinuz-" + abi)
        os.symlink(os.path.join("..", "usr", "lib", "modules", abi,
                                "vmlinuz"), link)
        assert casespec.kernel_config(link, abi) == \
            {"CONFIG_PAGE_POISONING": "y"}

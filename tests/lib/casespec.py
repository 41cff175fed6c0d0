# SPDX-License-Identifier: GPL-2.0
"""What a case file (tests/cases/*.py) declares to tests/run, in one place.

A case is a module with a docstring (its first line says what it proves),
a run(g) and, optionally, the settings below as module constants.  Case()
reads them once, when tests/run loads the case, and checks them: a value
of the wrong type, a GUEST key the guest class does not take, LIGHT and
ONE_CORE together, or a module constant that looks like a misspelt
setting (ONECORE, TIMEOUTS) is an error naming the case, not a default
silently used.  Other module constants are the case's own business."""
import difflib
import inspect
import os

import guest
from scriptmod import load_script

# name: (default, accepted types, meaning)
SETTINGS = {
    "GUEST": ({}, dict, "keys of the Guest the case boots (scripts/guest/"
              "guest.py's constructor, or GUEST_CLASS's)"),
    "KERNELS": (None, tuple, "the series the case applies to (default: "
                "every series with an initramfs guest)"),
    "TIMEOUT": (600, (int, float), "seconds for the whole case, boot "
                "included (GUESTMM_TIMEOUT_SCALE multiplies it)"),
    "LIGHT": (False, bool, "may run beside another light case (tests/run "
              "-j 2): one guest, no assertion on host time, CPU or memory "
              "that a second guest could upset"),
    "ONE_CORE": (False, bool, "not light, but its one guest runs on one "
                 "TCG thread, so it may run beside one other case: such "
                 "cases start first, the longest TIMEOUT first, and the "
                 "light ones follow"),
    "NAMED_ONLY": (False, bool, "runs only when a -k pattern names it"),
    "GUEST_CLASS": (None, type, "a Guest subclass that runs the guest "
                    "another way (tests/lib/libvirtguest.py)"),
    "EXPECT_KERNEL_PROBLEMS": (False, bool, "the kernel log must show a "
                               "problem (harness_warn_fails)"),
    "NEEDS_CONFIG": ((), tuple, "kernel options (CONFIG_NAME) the case "
                     "needs (y or m): a kernel whose config lacks one "
                     "skips it, naming the option (Debian's cloud-amd64 "
                     "flavour has no PAGE_POISONING, for one)"),
    "NEEDS_MODULES": (True, bool, "loads guestmm's kernel modules, which "
                      "make guest builds into the initramfs guest "
                      "(build/<abi>/modules): on a kernel it builds none "
                      "for (Linux 7.x, which this host cannot kbuild) the "
                      "case skips.  False for a case that needs only the "
                      "harness, stock modules and the BPF probes"),
}
SERIES = ("6.1", "6.12", "7.3", "trixie", "debug")
# The prefix of guestmm's own module names (modules/, livepatch/).
MODULE_PREFIX = "guestmm_"
# How close a module constant must be to a setting's name to be taken for
# a misspelling of it (difflib's ratio: ONECORE/ONE_CORE 0.93, KERNEL/
# KERNELS 0.92; of the cases' own constants GUEST_DIR comes closest, 0.71).
MISSPELT = 0.8


class CaseError(Exception):
    pass


def guest_keys(cls):
    """The keyword arguments a Guest class takes (its own and, where it
    passes **kw on, Guest's)."""
    keys = set()
    for c in inspect.getmro(cls):
        if "__init__" not in vars(c):
            continue
        params = inspect.signature(c.__init__).parameters.values()
        keys |= {p.name for p in params if p.kind in (
            p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    return keys - {"self", "kernel", "initrd", "logdir"}


class Case:
    """One case file, its settings checked.  Attributes: name, module,
    doc (the docstring's first line), run, guest_config (or None), and
    each setting in lower case (case.light, case.timeout, ...)."""

    def __init__(self, name, module):
        self.name, self.module = name, module
        doc = (module.__doc__ or "").strip()
        if not doc:
            raise CaseError("%s: no docstring (its first line says what "
                            "the case proves)" % name)
        self.doc = doc.splitlines()[0]
        self.run = getattr(module, "run", None)
        if not callable(self.run):
            raise CaseError("%s: no run(g)" % name)
        self.guest_config = getattr(module, "guest_config", None)
        for key, (default, types, _) in SETTINGS.items():
            value = getattr(module, key, default)
            if value is not default and not isinstance(value, types) or \
                    types is not bool and isinstance(value, bool):
                raise CaseError("%s: %s = %r: expected %s" % (
                    name, key, value, " or ".join(
                        t.__name__ for t in (types if isinstance(
                            types, tuple) else (types,)))))
            setattr(self, key.lower(), value)
        self.check(name, module)

    def check(self, name, module):
        for const in vars(module):
            if const.isupper() and const not in SETTINGS:
                near = difflib.get_close_matches(const, SETTINGS, 1, MISSPELT)
                if near:
                    raise CaseError("%s: %s is not a case setting: %s?" % (
                        name, const, near[0]))
        bad = [k for k in self.kernels or () if k not in SERIES]
        if bad:
            raise CaseError("%s: KERNELS names %s; series are %s" % (
                name, ", ".join(bad), ", ".join(SERIES)))
        odd = [c for c in self.needs_config if not isinstance(c, str) or
               not c.startswith("CONFIG_")]
        if odd:
            raise CaseError("%s: NEEDS_CONFIG names %r: options are "
                            "CONFIG_NAME strings" % (name, odd))
        ours = [m for m in self.guest.get("mods", ())
                if str(m).startswith(MODULE_PREFIX)]
        if ours and not self.needs_modules:
            raise CaseError("%s: NEEDS_MODULES = False, but GUEST loads "
                            "%s" % (name, ", ".join(ours)))
        if self.timeout <= 0:
            raise CaseError("%s: TIMEOUT = %r" % (name, self.timeout))
        if self.light and self.one_core:
            raise CaseError("%s: LIGHT and ONE_CORE" % name)
        if self.guest_class is not None and \
                not issubclass(self.guest_class, guest.Guest):
            raise CaseError("%s: GUEST_CLASS is not a Guest" % name)
        keys = guest_keys(self.guest_class or guest.Guest)
        unknown = sorted(set(self.guest) - keys)
        if unknown:
            raise CaseError("%s: GUEST key %s is not the guest's: it takes "
                            "%s" % (name, ", ".join(unknown),
                                    ", ".join(sorted(keys))))


def kernel_config(vmlinuz, abi):
    """{option: value} of the kernel's config (config-ABI beside its
    vmlinuz, as Debian's 6.x image packages have it, or config beside
    the file it links to: 7.x's linux-binary has both in
    /usr/lib/modules/ABI, kernel-next.sh links boot/vmlinuz-ABI there),
    or None if there is none to read."""
    if not vmlinuz:
        return None
    paths = [os.path.join(os.path.dirname(vmlinuz), "config-" + abi),
             os.path.join(os.path.dirname(os.path.realpath(vmlinuz)),
                          "config")]
    path = next((p for p in paths if os.path.isfile(p)), None)
    if path is None:
        return None
    config = {}
    with open(path) as f:
        for line in f:
            k, eq, v = line.strip().partition("=")
            if eq and k.startswith("CONFIG_"):
                config[k] = v
    return config


def missing_config(case, config):
    """The options of NEEDS_CONFIG a kernel config does not build in
    (y or m); none when the config is unknown."""
    if config is None:
        return []
    return [c for c in case.needs_config if config.get(c) not in ("y", "m")]


def guestmm_modules(outdir):
    """The guestmm modules make guest built for a kernel (outdir/modules,
    outdir its build/<abi>), by name: none on a kernel it builds no
    modules for (Linux 7.x)."""
    mdir = os.path.join(outdir, "modules")
    return sorted(f[:-3] for f in os.listdir(mdir) if f.endswith(".ko")) \
        if os.path.isdir(mdir) else []


def missing_modules(case, modules):
    """Whether a case needs guestmm's modules (NEEDS_MODULES) and the
    kernel's guest has none (modules: guestmm_modules(), or None when
    unknown: a case that boots its own Debian image builds them there)."""
    return case.needs_modules and modules is not None and not modules


def load(path):
    """Import a case file and check its settings: Case."""
    return Case(os.path.splitext(os.path.basename(path))[0],
                load_script(path))

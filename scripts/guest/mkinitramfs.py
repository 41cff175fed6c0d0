#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Build a busybox initramfs for a guestmm test guest.

    mkinitramfs.py --kroot ROOT --abi ABI -o OUT.cpio.gz
                   [--stock MOD ...] [--module FILE.ko ...]
                   [--bin FILE ...] [--dyn-bin FILE ...] [--data FILE ...]

The stock modules named with --stock are copied with everything they
depend on (from the image's modules.dep) and their soft dependencies
(modules.softdep), so that a module the kernel asks for (request_module:
ext4's crypto-crc32c on 6.1) is there; a name the kernel has neither as
a module nor built in is left out, saying so.  Project
modules land in /lib/modules/ABI/extra so that busybox modprobe loads
them, parameters included.  --bin copies static programs to /usr/bin; --dyn-bin copies a
dynamic program with the libraries ldd names (bpftool); --data copies
other files to /usr/share/guestmm (BPF objects).  The init script
and the command agent come from guest_init.sh next to this file.
"""
import argparse
import gzip
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def modname(path_or_name):
    """A module's name as modprobe spells it: ext4, crc32c_generic."""
    return os.path.basename(path_or_name).split(".ko")[0].replace("-", "_")


def parse_modules_dep(moddir):
    """Map module name -> (relative path, [dependency paths])."""
    deps = {}
    with open(os.path.join(moddir, "modules.dep")) as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[modname(path)] = (path, rest.split())
    return deps


def module_lines(moddir, name):
    """The words of each line of moddir/name (modules.alias,
    modules.softdep), none where depmod wrote no such file."""
    path = os.path.join(moddir, name)
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                yield line.split()


def parse_aliases(moddir):
    """Map alias -> [module names], the plain aliases of modules.alias
    (a softdep names one, crypto-crc32c; device aliases have wildcards)."""
    aliases = {}
    for w in module_lines(moddir, "modules.alias"):
        if len(w) == 3 and w[0] == "alias" and "*" not in w[1]:
            aliases.setdefault(w[1], []).append(modname(w[2]))
    return aliases


def parse_softdeps(moddir):
    """Map module name -> the names its softdep lines ask for, pre: and
    post: (modules.softdep, which depmod writes from the modules' own
    MODULE_SOFTDEP): modprobe loads them, but they are not in modules.dep
    (ext4's and jbd2's crypto-crc32c on 6.1, jbd2's on 7.x)."""
    soft = {}
    for w in module_lines(moddir, "modules.softdep"):
        if len(w) >= 2 and w[0] == "softdep":
            soft.setdefault(modname(w[1]), []).extend(
                n for n in w[2:] if n not in ("pre:", "post:"))
    return soft


def module_closure(moddir, names, missing=None):
    """Every module file that the named stock modules need, deps first:
    their modules.dep dependencies and their soft dependencies (resolved
    through modules.alias where a softdep names an alias).  Modules built
    into the kernel need no file.  A named module this kernel has neither
    as a module nor built in (crc32c_generic on 7.x, whose ext4 and jbd2
    use the crc32c library) is appended to missing if that is a list,
    else an error."""
    deps = parse_modules_dep(moddir)
    by_path = {p: d for p, d in deps.values()}
    aliases = parse_aliases(moddir)
    softdeps = parse_softdeps(moddir)
    order, seen = [], set()

    builtin = set()
    bpath = os.path.join(moddir, "modules.builtin")
    if os.path.exists(bpath):
        with open(bpath) as f:
            builtin = {modname(l.strip()) for l in f}

    def resolve(name):
        """The module paths a name (module or alias) needs; None if the
        kernel has no such module and does not build it in."""
        key = modname(name)
        if key in builtin:
            return []
        if key in deps:
            return [deps[key][0]]
        if name in aliases:
            return [deps[m][0] for m in aliases[name] if m in deps]
        return None

    def visit(path):
        if path in seen:
            return
        seen.add(path)
        for d in by_path.get(path, []):
            visit(d)
        # A soft dependency the kernel lacks is no error (modprobe's
        # softdeps are best effort too).
        for s in softdeps.get(modname(path), []):
            for p in resolve(s) or []:
                visit(p)
        order.append(path)

    for n in names:
        paths = resolve(n)
        if paths is None:
            if missing is None:
                sys.exit("mkinitramfs: stock module %s is not in this "
                         "kernel" % n)
            missing.append(n)
            continue
        for p in paths:
            visit(p)
    return order


def copy_module(src, dst):
    """Copy a module, uncompressed: busybox modprobe may lack xz/zstd."""
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if src.endswith(".xz"):
        with lzma.open(src) as f, open(dst[:-3], "wb") as o:
            shutil.copyfileobj(f, o)
    elif src.endswith(".zst"):
        with open(dst[:-4], "wb") as o:
            subprocess.run(["zstd", "-dc", src], stdout=o, check=True)
    else:
        shutil.copy2(src, dst)


def copy_dynamic(binary, root, dest):
    """Copy a dynamic executable and its shared libraries."""
    shutil.copy2(binary, os.path.join(root, dest.lstrip("/")))
    out = subprocess.run(["ldd", binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        lib = None
        if "=>" in parts and len(parts) >= 3 and parts[2].startswith("/"):
            lib = parts[2]
        elif parts and parts[0].startswith("/"):
            lib = parts[0]
        if lib:
            target = os.path.join(root, lib.lstrip("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.realpath(lib), target)


def build(args):
    root = tempfile.mkdtemp(prefix="guestmm-initrd.")
    try:
        for d in ("bin", "sbin", "usr/bin", "usr/sbin", "lib64", "proc",
                  "sys", "dev", "tmp", "mnt", "run", "etc", "root"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        shutil.copy2(args.busybox, os.path.join(root, "bin/busybox"))
        for applet in ("sh", "mount", "modprobe"):
            os.symlink("busybox", os.path.join(root, "bin", applet))
        shutil.copy2(os.path.join(HERE, "guest_init.sh"),
                     os.path.join(root, "init"))
        os.chmod(os.path.join(root, "init"), 0o755)
        shutil.copy2(os.path.join(HERE, "agent.sh"),
                     os.path.join(root, "bin", "agent.sh"))

        kmods = os.path.join(args.kroot, "lib/modules", args.abi)
        gmods = os.path.join(root, "lib/modules", args.abi)
        os.makedirs(gmods)
        for name in ("modules.order", "modules.builtin",
                     "modules.builtin.modinfo"):
            src = os.path.join(kmods, name)
            if os.path.exists(src):
                shutil.copy2(src, gmods)
        # A stock module the kernel does not have (crc32c_generic on 7.x)
        # is left out, saying so; guest_init.sh skips it likewise.
        missing = []
        for rel in module_closure(kmods, args.stock, missing):
            copy_module(os.path.join(kmods, rel), os.path.join(gmods, rel))
        for n in missing:
            print("mkinitramfs: %s has no stock module %s (neither a module "
                  "nor built in): left out" % (args.abi, n))
        os.makedirs(os.path.join(gmods, "extra"))
        for ko in args.module:
            shutil.copy2(ko, os.path.join(gmods, "extra"))
        subprocess.run(["depmod", "-b", root, args.abi], check=True)

        for b in args.bin:
            shutil.copy2(b, os.path.join(root, "usr/bin"))
        for b in args.dyn_bin:
            copy_dynamic(b, root, "/usr/sbin/" + os.path.basename(b))
        if args.data:
            os.makedirs(os.path.join(root, "usr/share/guestmm"))
        for f in args.data:
            shutil.copy2(f, os.path.join(root, "usr/share/guestmm"))

        files = subprocess.run(["find", "."], cwd=root, capture_output=True,
                               check=True).stdout
        cpio = subprocess.run(["cpio", "--quiet", "-o", "-H", "newc",
                               "-R", "0:0"], cwd=root, input=files,
                              capture_output=True, check=True).stdout
        tmp = args.output + ".tmp"
        with gzip.open(tmp, "wb", compresslevel=1) as f:
            f.write(cpio)
        os.replace(tmp, args.output)
    finally:
        shutil.rmtree(root)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kroot", required=True,
                   help="unpacked linux-image root (kernel.sh fetch)")
    p.add_argument("--abi", required=True)
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--stock", action="append", default=[])
    p.add_argument("--module", action="append", default=[])
    p.add_argument("--bin", action="append", default=[])
    p.add_argument("--dyn-bin", action="append", default=[])
    p.add_argument("--data", action="append", default=[])
    p.add_argument("--busybox", default="/bin/busybox")
    build(p.parse_args())


if __name__ == "__main__":
    main()

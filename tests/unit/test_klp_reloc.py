"""guestmm_klp reaches the kernel through livepatch relocations only.

- klp-postlink (livepatch/postlink/) turns references to .klp.sym symbols
  into SHN_LIVEPATCH symbols and .klp.rela sections, leaves everything else
  alone, is idempotent, and refuses what it cannot convert (tested on small
  objects compiled here).
- The built guestmm_klp.ko of every kernel in build/ is converted, looks
  up no symbol at run time, and never holds the address of kernel text it
  could call indirectly, except for the callbacks the kernel itself calls
  indirectly (CALLBACKS; tests/cases/klp_ibt_callbacks.py proves, in the
  IBT kernel's vmlinux, that they keep their ENDBR) and the functions
  whose address it only compares with (ADDRESS_ONLY: the unmapped
  control's caller gate).  Every other reference to a kernel function is
  a direct call or jump.
"""
import glob
import os
import re
import subprocess
import tempfile

from klplib import ADDRESS_ONLY, CALLBACKS
from elfmini import (Elf, SHN_UNDEF, SHN_LIVEPATCH, SHF_ALLOC,
                     SHF_EXECINSTR, SHF_INFO_LINK, SHF_RELA_LIVEPATCH,
                     SHT_RELA, R_X86_64_PC32, R_X86_64_PLT32)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

POSTLINK_SRC = os.path.join(TOP, "livepatch", "postlink", "klp-postlink.c")

# Run-time symbol lookups the relocations replaced.
LOOKUPS = {"kallsyms_lookup_name", "kallsyms_on_each_symbol",
           "register_kprobe", "__symbol_get_gpl"}


def build_postlink(tmp):
    tool = os.path.join(tmp, "klp-postlink")
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", tool,
                    POSTLINK_SRC], check=True)
    return tool


SAMPLE = r'''
#define KLP(n) __asm__("\".klp.sym.vmlinux." #n ",0\"")
extern int klpe_foo(int) KLP(foo);
extern int klpe_bar KLP(bar);
extern int exported(int);
static int local(int x) { return x * 3; }
int user(int x) { return klpe_foo(x) + klpe_bar + exported(x) + local(x); }
'''


def compile_sample(tmp, text=SAMPLE, name="sample"):
    src = os.path.join(tmp, name + ".c")
    obj = os.path.join(tmp, name + ".o")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["cc", "-O1", "-fno-pic", "-mcmodel=kernel", "-c", "-o",
                    obj, src], check=True)
    return obj


def test_postlink_converts_and_is_idempotent():
    with tempfile.TemporaryDirectory() as tmp:
        tool = build_postlink(tmp)
        obj = compile_sample(tmp)
        before = Elf(obj)
        assert any(s["name"].startswith(".klp.sym.") and
                   s["shndx"] == SHN_UNDEF for s in before.syms)
        # Not converted yet: --check says so.
        p = subprocess.run([tool, "--check", obj], capture_output=True,
                           text=True)
        assert p.returncode == 1, p.stdout + p.stderr
        assert "is not SHN_LIVEPATCH" in p.stderr, p.stderr

        subprocess.run([tool, obj], check=True, capture_output=True)
        e = Elf(obj)
        klp = {s["name"]: s for s in e.syms
               if s["name"].startswith(".klp.sym.")}
        assert set(klp) == {".klp.sym.vmlinux.foo,0",
                            ".klp.sym.vmlinux.bar,0"}, klp
        assert all(s["shndx"] == SHN_LIVEPATCH for s in klp.values())
        # The other undefined symbol is untouched.
        assert [s["shndx"] for s in e.syms
                if s["name"] == "exported"] == [SHN_UNDEF]

        sec = [s for s in e.secs if s["name"] == ".klp.rela.vmlinux..text"]
        assert len(sec) == 1, [s["name"] for s in e.secs]
        sec = sec[0]
        assert sec["type"] == SHT_RELA
        assert sec["flags"] == SHF_ALLOC | SHF_INFO_LINK | SHF_RELA_LIVEPATCH
        assert e.secs[sec["info"]]["name"] == ".text"
        assert sec["link"] == e.symtab and sec["entsize"] == 24
        moved = [r for r in e.relas() if r[0] is sec]
        assert {r[4]["name"] for r in moved} == set(klp)
        # Every relocation against a .klp.sym symbol moved; none other did.
        for rsec, _, _, _, sym in e.relas():
            is_klp = sym["name"].startswith(".klp.sym.")
            assert is_klp == (rsec is sec), (rsec["name"], sym["name"])
        assert sum(1 for r in e.relas()) == sum(1 for r in before.relas())

        # The linker still reads it; a second run changes nothing.
        subprocess.run(["readelf", "-rsW", obj], check=True,
                       capture_output=True)
        with open(obj, "rb") as f:
            once = f.read()
        p = subprocess.run([tool, obj], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        with open(obj, "rb") as f:
            assert f.read() == once
        p = subprocess.run([tool, "--check", obj], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        assert "2 livepatch symbols, %d relocations in 1 .klp.rela" % \
            len(moved) in p.stdout, p.stdout


def test_postlink_refuses_what_it_cannot_convert():
    with tempfile.TemporaryDirectory() as tmp:
        tool = build_postlink(tmp)
        # No ",position": not a name the livepatch core can resolve.
        obj = compile_sample(tmp, SAMPLE.replace(' ",0\\""', ' "\\""'),
                             "nopos")
        p = subprocess.run([tool, obj], capture_output=True, text=True)
        assert p.returncode == 1, p.stdout
        assert "is not .klp.sym.<object>.<name>,<position>" in p.stderr
        # A signed module must be converted before it is signed.
        obj = compile_sample(tmp, name="signed")
        with open(obj, "ab") as f:
            f.write(b"~Module signature appended~\n")
        p = subprocess.run([tool, obj], capture_output=True, text=True)
        assert p.returncode == 1 and "signature" in p.stderr, p.stderr
        # An undefined symbol the kernel does not export is an error.
        obj = compile_sample(tmp, name="unexported")
        symvers = os.path.join(tmp, "Module.symvers")
        with open(symvers, "w") as f:
            f.write("0x12345678\tother\tvmlinux\tEXPORT_SYMBOL\t\n")
        p = subprocess.run([tool, "-s", symvers, obj], capture_output=True,
                           text=True)
        assert p.returncode == 1, p.stdout
        assert "undefined symbol exported is not exported" in p.stderr
        with open(symvers, "a") as f:
            f.write("0x12345678\texported\tvmlinux\tEXPORT_SYMBOL\t\n")
        p = subprocess.run([tool, "-s", symvers, obj], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        # Not an x86-64 relocatable object.
        p = subprocess.run([tool, symvers], capture_output=True, text=True)
        assert p.returncode == 1 and "not a 64-bit" in p.stderr


def declared_data(abi):
    """Kernel data the features' variants built for @abi declare (in
    their ksyms.h, plus identity.c's build ID): references to these are
    reads, not calls."""
    with open(os.path.join(TOP, "build", abi, "klp-variant")) as f:
        features = f.read().split()     # compaction=V reclaim=V ("-": out)
    text = ""
    for fv in features:
        feature, variant = fv.split("=")
        if variant != "-":
            with open(os.path.join(TOP, "livepatch", feature, "variants",
                                   variant, "ksyms.h")) as f:
                text += f.read()
    # "extern T klpe_NAME __asm__(...)": no parameter list, data.
    return set(re.findall(r"\bklpe_(\w+)\s+__asm__", text)) | \
        {"vmlinux_build_id"}


def built_modules():
    return sorted(glob.glob(os.path.join(TOP, "build", "*", "modules",
                                         "guestmm_klp.ko")))


def test_built_livepatch_calls_kernel_text_only_directly():
    mods = built_modules()
    assert mods, "no build/*/modules/guestmm_klp.ko: run make guest first"
    with tempfile.TemporaryDirectory() as tmp:
        tool = build_postlink(tmp)
        for ko in mods:
            abi = ko.split(os.sep)[-3]
            p = subprocess.run([tool, "--check", ko], capture_output=True,
                               text=True)
            assert p.returncode == 0, p.stdout + p.stderr
            check_module(ko, abi)


def check_module(ko, abi):
    e = Elf(ko)
    undef = {s["name"] for s in e.syms if s["shndx"] == SHN_UNDEF}
    assert not undef & LOOKUPS, (ko, undef & LOOKUPS)
    data = declared_data(abi)
    taken = set()
    ncalls = 0
    for rsec, target, off, typ, sym in e.relas():
        name = sym["name"]
        if not name.startswith(".klp.sym."):
            continue
        assert rsec["flags"] & SHF_RELA_LIVEPATCH, (ko, rsec["name"], name)
        kname = name[len(".klp.sym.vmlinux."):].rsplit(",", 1)[0]
        if kname in data:
            continue
        opcode = e.buf[target["off"] + off - 1]
        if (target["flags"] & SHF_EXECINSTR and
                typ in (R_X86_64_PC32, R_X86_64_PLT32) and
                opcode in (0xE8, 0xE9)):
            ncalls += 1                   # call/jmp rel32: direct
            continue
        taken.add(kname)
    assert ncalls > 10, (ko, ncalls)
    # tests/cases/klp_ibt_callbacks.py proves these keep their ENDBR;
    # ADDRESS_ONLY ones are compared with, never called through.
    assert taken <= CALLBACKS | ADDRESS_ONLY, \
        (ko, taken - CALLBACKS - ADDRESS_ONLY)
    print("%s: %d direct calls into the kernel, address taken: %s" %
          (abi, ncalls, sorted(taken)))


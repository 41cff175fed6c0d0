"""IBT safety of guestmm_klp, proved on the kernel's own image.

The livepatch calls kernel functions only directly (tests/unit/
test_klp_reloc.py), except the callbacks it hands to migrate_pages()
(compaction_alloc, compaction_free), which the kernel calls indirectly.
On a kernel built with X86_KERNEL_IBT, such a target must begin with
ENDBR64 and must not be among the ENDBRs objtool has the kernel seal at
boot (.ibt_endbr_seal).  TCG has no CET, so this is checked statically:
the guest gives the functions' addresses (/proc/kallsyms, booted with
nokaslr), the host reads that build's vmlinux."""
import os
import struct
import subprocess

from elfmini import Elf, SHT_NOBITS
from klplib import CALLBACKS

# One TCG thread: the livepatch transition patches live text (see
# rel_security).
GUEST = dict(mem=512, balloon=None, append="nokaslr", tcg_single=True)
KERNELS = ("6.12",)
LIGHT = True

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KSH = os.path.join(TOP, "scripts", "guest", "kernel.sh")
ENDBR64 = b"\xf3\x0f\x1e\xfa"


def sealed(e):
    """Addresses whose ENDBR the kernel seals at boot."""
    sec = next(s for s in e.secs if s["name"] == ".ibt_endbr_seal")
    return {sec["addr"] + 4 * k +
            struct.unpack_from("<i", e.buf, sec["off"] + 4 * k)[0]
            for k in range(sec["size"] // 4)}


def bytes_at(e, addr, n):
    for s in e.secs:
        if s["addr"] <= addr < s["addr"] + s["size"] and s["type"] != SHT_NOBITS:
            off = s["off"] + addr - s["addr"]
            return e.buf[off:off + n]
    raise AssertionError("address %#x is in no section" % addr)


def run(g):
    abi = g.sh("uname -r").strip()
    with open("/usr/src/linux-headers-%s/.config" % abi) as f:
        assert "CONFIG_X86_KERNEL_IBT=y\n" in f.read(), abi
    ksyms = {}
    for line in g.sh("grep -wE '%s|_text' /proc/kallsyms" %
                     "|".join(sorted(CALLBACKS))).splitlines():
        addr, _, name = line.split()[:3]
        ksyms.setdefault(name, []).append(int(addr, 16))
    vmlinux = subprocess.run([KSH, "vmlinux", abi], capture_output=True,
                             text=True, check=True).stdout.strip()
    v = Elf(vmlinux)
    text = next(s["addr"] for s in v.secs if s["name"] == ".text")
    assert ksyms["_text"] == [text], (ksyms["_text"], hex(text))  # nokaslr
    seal = sealed(v)
    assert len(seal) > 1000, len(seal)
    for name in sorted(CALLBACKS):
        assert len(ksyms.get(name, [])) == 1, (name, ksyms.get(name))
        addr = ksyms[name][0]
        assert bytes_at(v, addr, 4) == ENDBR64, (name, bytes_at(v, addr, 4))
        assert addr not in seal, (name, "its ENDBR is sealed at boot")
        print("KEY klp_ibt %s=%#x endbr=1 sealed=0 (of %d sealed)" %
              (name, addr, len(seal)))

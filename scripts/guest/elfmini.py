# SPDX-License-Identifier: GPL-2.0
"""Just enough of an ELF64 little-endian reader for guestmm's tools and
tests: section headers (scripts/klp-variant finds a vmlinux's .text and
kallsyms with them), symbols and relocations (the livepatch checks,
tests/unit/test_klp_reloc.py, tests/cases/klp_ibt_callbacks.py, and the
BPF objects, tests/cases/bpf_verifier_clangs.py)."""
import struct

SHN_UNDEF = 0
SHN_LIVEPATCH = 0xFF20
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_INFO_LINK = 0x40
SHF_RELA_LIVEPATCH = 0x00100000
SHT_SYMTAB = 2
SHT_RELA = 4
SHT_NOBITS = 8
R_X86_64_PC32 = 2
R_X86_64_PLT32 = 4


class NotElf(ValueError):
    """The bytes are not an ELF64 little-endian image."""


class Elf:
    """Sections, symbols and relocations of one ELF file."""

    def __init__(self, path=None, blob=None):
        """The file at path, or the bytes blob."""
        if blob is None:
            with open(path, "rb") as f:
                blob = f.read()
        self.buf = blob
        if blob[:6] != b"\x7fELF\x02\x01":
            raise NotElf("not an ELF64 little-endian image: %s" % (
                path or "%d bytes" % len(blob)))
        (shoff,) = struct.unpack_from("<Q", blob, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
        self.secs = []
        for i in range(shnum):
            (name, typ, flags, addr, off, size, link, info, align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", blob,
                                           shoff + shentsize * i)
            self.secs.append(dict(name=name, type=typ, flags=flags,
                                  addr=addr, off=off, size=size, link=link,
                                  info=info, entsize=entsize))
        strs = self.secs[shstrndx]
        for s in self.secs:
            s["name"] = self.cstr(strs["off"] + s["name"])
        self.symtab = next((i for i, s in enumerate(self.secs)
                            if s["type"] == SHT_SYMTAB), None)
        self._syms = None

    @property
    def syms(self):
        """The symbol table's entries (read when first asked for: a
        vmlinux with symbols has a hundred thousand)."""
        if self._syms is None:
            self._syms = []
            if self.symtab is not None:
                st = self.secs[self.symtab]
                stro = self.secs[st["link"]]["off"]
                for k in range(st["size"] // 24):
                    name, info, _, shndx, value, size = struct.unpack_from(
                        "<IBBHQQ", self.buf, st["off"] + 24 * k)
                    self._syms.append(dict(name=self.cstr(stro + name),
                                           info=info, shndx=shndx,
                                           value=value))
        return self._syms

    def sections(self):
        """{name: (address, file offset, size)} of the section headers."""
        return {s["name"]: (s["addr"], s["off"], s["size"])
                for s in self.secs}

    def address_of(self, off):
        """The load address of file offset off: in the allocated section
        whose bytes hold it (not one of SHT_NOBITS, which has none in
        the file); None if no section does.  What a position-relative
        value read from the file (scripts/klp-variant's 7.x
        kallsyms_offsets) is relative to."""
        for s in self.secs:
            if s["type"] != SHT_NOBITS and s["flags"] & SHF_ALLOC and \
                    s["off"] <= off < s["off"] + s["size"]:
                return s["addr"] + off - s["off"]
        return None

    def cstr(self, off):
        return self.buf[off:self.buf.index(b"\0", off)].decode(
            "ascii", "replace")

    def relas(self):
        """(rela section, target section, offset, type, symbol) per entry."""
        for s in self.secs:
            if s["type"] != SHT_RELA:
                continue
            for k in range(s["size"] // 24):
                off, info, _ = struct.unpack_from("<QQq", self.buf,
                                                  s["off"] + 24 * k)
                yield s, self.secs[s["info"]], off, info & 0xFFFFFFFF, \
                    self.syms[info >> 32]

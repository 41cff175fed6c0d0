# SPDX-License-Identifier: GPL-2.0
"""Just enough of an ELF64 little-endian reader for the livepatch checks
(tests/unit/test_klp_reloc.py, tests/cases/klp_ibt_callbacks.py)."""
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


class Elf:
    """Sections, symbols and relocations of one ELF file."""

    def __init__(self, path):
        with open(path, "rb") as f:
            self.buf = f.read()
        assert self.buf[:4] == b"\x7fELF", path
        (shoff,) = struct.unpack_from("<Q", self.buf, 0x28)
        shnum, shstrndx = struct.unpack_from("<HH", self.buf, 0x3C)
        self.secs = []
        for i in range(shnum):
            (name, typ, flags, addr, off, size, link, info, align,
             entsize) = struct.unpack_from("<IIQQQQIIQQ", self.buf,
                                           shoff + 64 * i)
            self.secs.append(dict(name=name, type=typ, flags=flags,
                                  addr=addr, off=off, size=size, link=link,
                                  info=info, entsize=entsize))
        strs = self.secs[shstrndx]
        for s in self.secs:
            s["name"] = self.cstr(strs["off"] + s["name"])
        self.symtab = next((i for i, s in enumerate(self.secs)
                            if s["type"] == SHT_SYMTAB), None)
        self.syms = []
        if self.symtab is not None:
            st = self.secs[self.symtab]
            stro = self.secs[st["link"]]["off"]
            for k in range(st["size"] // 24):
                name, info, _, shndx, value, size = struct.unpack_from(
                    "<IBBHQQ", self.buf, st["off"] + 24 * k)
                self.syms.append(dict(name=self.cstr(stro + name),
                                      info=info, shndx=shndx, value=value))

    def cstr(self, off):
        return self.buf[off:self.buf.index(b"\0", off)].decode()

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

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Extract the uncompressed vmlinux ELF from a bzImage.

The BTF of the result is what the guest exposes as /sys/kernel/btf/vmlinux,
so vmlinux.h and symbol checks need no booted guest.  Handles the
compressions Debian uses (xz, zstd via the zstd tool, gzip).
"""
import gzip
import lzma
import shutil
import subprocess
import sys
import zlib

MAGICS = [
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x1f\x8b\x08", "gzip"),
]


def try_decompress(kind, blob):
    if kind == "xz":
        d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        return d.decompress(blob)
    if kind == "gzip":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return d.decompress(blob)
    if kind == "zstd" and shutil.which("zstd"):
        p = subprocess.run(["zstd", "-dc"], input=blob, capture_output=True)
        return p.stdout
    return b""


def extract(image):
    for magic, kind in MAGICS:
        pos = image.find(magic)
        while pos >= 0:
            try:
                out = try_decompress(kind, image[pos:])
            except (lzma.LZMAError, zlib.error, EOFError, gzip.BadGzipFile):
                out = b""
            if out[:4] == b"\x7fELF":
                return out
            pos = image.find(magic, pos + 1)
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: extract_vmlinux.py BZIMAGE OUT")
    with open(sys.argv[1], "rb") as f:
        elf = extract(f.read())
    if elf is None:
        sys.exit("extract_vmlinux: no compressed ELF found in " + sys.argv[1])
    with open(sys.argv[2], "wb") as f:
        f.write(elf)


if __name__ == "__main__":
    main()

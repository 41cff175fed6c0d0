#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Extract the uncompressed vmlinux ELF from a bzImage.

The BTF of the result is what the guest exposes as /sys/kernel/btf/vmlinux,
so vmlinux.h and symbol checks need no booted guest.  Handles the
compressions Debian's kernels use: xz (amd64), LZ4 (the 6.1 cloud-amd64
flavour), and zstd (via the zstd tool) and gzip for other builds.
"""
import gzip
import lzma
import shutil
import struct
import subprocess
import sys
import zlib

# The kernel's LZ4 is the legacy frame (lib/decompress_unlz4.c): this
# magic, then blocks of a 32-bit little-endian compressed size and the
# block, each at most 8 MiB decompressed, until the data ends or a size
# is the magic again (a concatenated stream) or implausible (the trailing
# uncompressed size the kernel build appends).
LZ4_LEGACY = b"\x02\x21\x4c\x18"
LZ4_BLOCK_MAX = 8 << 20

MAGICS = [
    (b"\xfd7zXZ\x00", "xz"),
    (LZ4_LEGACY, "lz4"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"\x1f\x8b\x08", "gzip"),
]


def lz4_length(src, i, length):
    """A sequence's literal or match length: the token's 4 bits, and when
    they are 15, the bytes after it added on while they are 255.  Returns
    (length, index past it)."""
    if length == 15:
        while True:
            b = src[i]
            i += 1
            length += b
            if b != 255:
                break
    return length, i


def lz4_block(src, out):
    """Append one decompressed LZ4 block (the block format: sequences of
    literals and matches) to the bytearray out."""
    i, n = 0, len(src)
    while i < n:
        token = src[i]
        lit, i = lz4_length(src, i + 1, token >> 4)
        out += src[i:i + lit]
        i += lit
        if i >= n:              # the last sequence has literals only
            break
        off = src[i] | src[i + 1] << 8
        mlen, i = lz4_length(src, i + 2, token & 15)
        mlen += 4
        if off == 0 or off > len(out):
            raise ValueError("lz4: bad match offset")
        start = len(out) - off
        if off >= mlen:
            out += out[start:start + mlen]
        else:                   # overlapping: the match repeats itself
            while mlen > 0:
                chunk = out[start:start + min(off, mlen)]
                out += chunk
                mlen -= len(chunk)


def lz4_legacy(blob):
    """Decompress a legacy-frame LZ4 stream that starts at blob[0]."""
    out = bytearray()
    i = len(LZ4_LEGACY)
    while i + 4 <= len(blob):
        (size,) = struct.unpack_from("<I", blob, i)
        if blob[i:i + 4] == LZ4_LEGACY:
            i += 4
            continue
        if size == 0 or size > LZ4_BLOCK_MAX + LZ4_BLOCK_MAX // 255 + 16 \
                or i + 4 + size > len(blob):
            break
        lz4_block(blob[i + 4:i + 4 + size], out)
        i += 4 + size
        # Enough to tell an ELF from a false magic without the rest.
        if out[:4] != b"\x7fELF":
            break
    return bytes(out)


def try_decompress(kind, blob):
    if kind == "xz":
        d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        return d.decompress(blob)
    if kind == "gzip":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return d.decompress(blob)
    if kind == "lz4":
        if shutil.which("lz4"):
            p = subprocess.run(["lz4", "-dc"], input=blob,
                               capture_output=True)
            if p.stdout[:4] == b"\x7fELF":
                return p.stdout
        return lz4_legacy(blob)
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
            except (lzma.LZMAError, zlib.error, EOFError, gzip.BadGzipFile,
                    ValueError, IndexError):
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

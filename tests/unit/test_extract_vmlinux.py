"""Host-side unit tests for scripts/guest/extract_vmlinux.py's LZ4 legacy
frame reader, the fallback for a machine without the lz4 tool (Debian's
6.1 cloud-amd64 vmlinuz is LZ4)."""
import extract_vmlinux as ev

PLAIN = (b"\x7fELF" + b"abcabcabcabcabcabc" * 20 + bytes(range(256)) +
         b"z" * 300 + b"tail")
# `lz4 -l` (1.9.4) of PLAIN: two sequences, each of literals and an
# overlapping match (offset 3: "abc..." and "zzz..."), the second with a
# literal run over 255 bytes, then the last literals.
PACKED = bytes.fromhex(
    "02214c181b0100007f7f454c466162630300ff53fff4" +
    bytes(range(256)).hex() + "7a7a7a0300ff16507a7461696c")


def test_legacy_frame():
    assert ev.lz4_legacy(PACKED) == PLAIN


def test_found_after_a_stub():
    # As in a bzImage: the stream sits after the setup code, and the
    # build appends the uncompressed size.
    image = b"\x00" * 1000 + PACKED + len(PLAIN).to_bytes(4, "little")
    assert ev.extract(image) == PLAIN


def test_corrupt_offset_is_not_an_elf():
    bad = bytearray(PACKED)
    bad[len(PACKED) - 9] = 0xff   # the last match's offset: before the start
    try:
        ev.lz4_legacy(bytes(bad))
    except ValueError:
        return
    assert False, "a match before the output's start was accepted"

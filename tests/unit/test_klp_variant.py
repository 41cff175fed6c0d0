"""Host-side unit tests for scripts/klp-variant: the C item extractor, the
item hashes, the MIRROR and kernels.tsv formats, Debian version order, the
kallsyms decoder and the "calls" check (call sites found in a small
synthetic vmlinux).  Nothing here downloads anything."""
import contextlib
import hashlib
import io
import json
import os
import re
import struct
import tempfile

from scriptmod import load_script

kv = load_script("scripts/klp-variant")

SRC = r'''// SPDX-License-Identifier: GPL-2.0
#include <linux/mm.h>
#define COMPACT_MAX_DEFER_SHIFT 6
#define block_end_pfn(pfn, order) \
	ALIGN((pfn) + 1, 1UL << (order))

struct compact_control {
	struct list_head freepages;	/* List of free pages { */
	unsigned long free_pfn;
	struct {
		int inner;
	} nested;
};   

typedef enum {
	ISOLATE_ABORT,		/* Abort compaction now */
	ISOLATE_NONE,
} isolate_migrate_t;

/* A comment naming compact_zone(cc) { inside } */
static inline bool compact_scanners_met(struct compact_control *cc)
{
	return cc->free_pfn <= cc->migrate_pfn;
}

static enum compact_result
compact_zone(struct compact_control *cc,
	     struct capture_control *capc)	
{
	const char *s = "}{ not a brace";
	char c = '}';

	if (compact_scanners_met(cc)) {
		/* } */
		while (1) {
			break;
		}
	}
	return 0;
}

int caller(void)
{
	return compact_zone(NULL, NULL);
}

#ifdef CONFIG_COMPACTION
static bool pageblock_skip_persistent(struct page *page)
{
	return true;
}
#else
static inline bool pageblock_skip_persistent(struct page *page)
{
	return false;
}
#endif

static void __acquires(lock) locked(spinlock_t *lock)
	__releases(lock)
{
	spin_unlock(lock);
}
'''


def test_function_with_multiline_signature_and_tricky_braces():
    text = kv.extract_item(SRC, "function", "compact_zone")
    lines = text.splitlines()
    assert lines[0] == "static enum compact_result"
    assert lines[1] == "compact_zone(struct compact_control *cc,"
    # trailing whitespace (after capc) is all that is normalised
    assert lines[2] == "\t     struct capture_control *capc)"
    assert lines[-1] == "}"
    assert '"}{ not a brace"' in text and "'}'" in text
    assert "return 0;" in text and "caller" not in text
    # the call in caller() and the mention in a comment are not definitions
    assert text.count("compact_zone(") == 1


def test_static_inline_function_and_prototype():
    text = kv.extract_item(SRC, "function", "compact_scanners_met")
    assert text == ("static inline bool compact_scanners_met(struct compact_control *cc)\n"
                    "{\n\treturn cc->free_pfn <= cc->migrate_pfn;\n}\n")
    proto = kv.extract_item(SRC, "prototype", "compact_zone")
    assert proto == ("static enum compact_result\n"
                     "compact_zone(struct compact_control *cc,\n"
                     "\t     struct capture_control *capc)\n")


def test_every_definition_of_an_ifdef_pair_and_attributes():
    text = kv.extract_item(SRC, "function", "pageblock_skip_persistent")
    parts = text.split("\n\n")
    assert len(parts) == 2
    assert parts[0].startswith("static bool pageblock_skip_persistent(")
    assert parts[1].startswith("static inline bool pageblock_skip_persistent(")
    assert "#ifdef" not in text and "#else" not in text
    locked = kv.extract_item(SRC, "function", "locked")
    assert locked.startswith("static void __acquires(lock) locked(")
    assert "\t__releases(lock)\n{" in locked


def test_struct_typedef_define():
    st = kv.extract_item(SRC, "struct", "compact_control")
    assert st.startswith("struct compact_control {\n")
    assert st.endswith("\t} nested;\n};\n")
    td = kv.extract_item(SRC, "typedef", "isolate_migrate_t")
    assert td.startswith("typedef enum {\n") and td.endswith("} isolate_migrate_t;\n")
    assert kv.extract_item(SRC, "define", "COMPACT_MAX_DEFER_SHIFT") == \
        "#define COMPACT_MAX_DEFER_SHIFT 6\n"
    assert kv.extract_item(SRC, "define", "block_end_pfn") == \
        "#define block_end_pfn(pfn, order) \\\n\tALIGN((pfn) + 1, 1UL << (order))\n"


def test_missing_items_and_hashes():
    assert kv.extract_item(SRC, "function", "caller_not_here") is None
    assert kv.extract_item(SRC, "struct", "capture_control") is None
    assert kv.item_hash(None) == "-"
    text = kv.extract_item(SRC, "function", "compact_zone")
    assert kv.item_hash(text) == hashlib.sha256(text.encode()).hexdigest()
    # trailing whitespace does not change the hash, anything else does
    spaced = SRC.replace("return 0;", "return 0;   ")
    assert kv.item_hash(kv.extract_item(spaced, "function", "compact_zone")) == \
        kv.item_hash(text)
    changed = SRC.replace("return 0;", "return  0;")
    assert kv.item_hash(kv.extract_item(changed, "function", "compact_zone")) != \
        kv.item_hash(text)


def test_mirror_parse_and_record():
    lines = ["# comment\n", "#\n", "# items\n",
             "mm/compaction.c function compact_zone\n",
             "mm/internal.h struct compact_control " + "a" * 64 + "\n",
             "symbol compact_zone\n"]
    v = kv.Variant("9.9", lines)
    assert v.reference is None and v.symbols == ["compact_zone"]
    assert v.items == [("mm/compaction.c", "function", "compact_zone", None),
                       ("mm/internal.h", "struct", "compact_control", "a" * 64)]
    assert v.files() == ["mm/compaction.c", "mm/internal.h"]
    out = v.with_hashes({("mm/compaction.c", "function", "compact_zone"): "1" * 64,
                         ("mm/internal.h", "struct", "compact_control"): "2" * 64},
                        ("9.9.1-1", "bookworm"))
    v2 = kv.Variant("9.9", out.splitlines(True))
    assert v2.reference == ("9.9.1-1", "bookworm")
    assert [h for _, _, _, h in v2.items] == ["1" * 64, "2" * 64]
    assert out.splitlines()[:4] == ["# comment", "#", "reference 9.9.1-1 bookworm", "# items"]
    try:
        kv.Variant("bad", ["mm/x.c funktion foo\n"])
        raise AssertionError("bad line accepted")
    except kv.Error:
        pass


def test_debian_version_order():
    order = ["6.1.176-1", "6.1.190-1", "6.1.192-1", "6.1.192-2", "6.1.192-3",
             "6.12.95-1~bpo12+1", "6.12.95-1", "6.12.107-1", "6.12.118-1"]
    assert sorted(reversed(order), key=kv.version_key) == order
    assert kv.version_cmp("1:1.0", "2.0") > 0
    assert kv.version_cmp("1.0~rc1", "1.0") < 0
    assert kv.version_cmp("1.0a", "1.0+") < 0
    assert kv.series_of("6.12.95-1~bpo12+1") == "6.12"


def row(version, variant="6.1", note="-", release=None, build_id="ab" * 20,
        reclaim=None):
    return {"release": release or "%s-amd64" % version,
            "uts_version": "#1 SMP PREEMPT_DYNAMIC Debian %s (2026-11-26)" % version,
            "build_id": build_id, "compaction": variant,
            "reclaim": variant if reclaim is None else reclaim,
            "compiler": "gcc-12 (Debian 12.2.0-14) 12.2.0",
            "suite": "bookworm-security", "package_version": version, "note": note}


def test_table_write_parse_upsert():
    rows = [row("6.12.118-1", "6.12"), row("6.1.192-3"), row("6.1.176-1", reclaim="-")]
    text = kv.format_table(rows)
    lines = text.splitlines()
    assert lines[0] == "# " + "\t".join(kv.COLUMNS)
    assert lines[0].split("\t")[3:5] == ["compaction", "reclaim"]
    assert [line.split("\t")[7] for line in lines[1:]] == ["6.1.176-1", "6.1.192-3", "6.12.118-1"]
    assert [line.split("\t")[3:5] for line in lines[1:]] == [
        ["6.1", "-"], ["6.1", "6.1"], ["6.12", "6.12"]]
    assert all(len(line.split("\t")) == 9 for line in lines)
    back = kv.parse_table(text)
    assert back == sorted(rows, key=kv._row_key)
    # a check of the same build replaces its row
    new = kv.upsert(back, row("6.1.192-3", note="sympos: foo x2"))
    assert len(new) == 3
    assert [r["note"] for r in new if r["package_version"] == "6.1.192-3"] == ["sympos: foo x2"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kernels.tsv")
        assert kv.read_table(path) == []
        kv.write_table(new, path)
        assert kv.read_table(path) == sorted(new, key=kv._row_key)
    try:
        kv.parse_table("# header\na\tb\n")
        raise AssertionError("short row accepted")
    except kv.Error:
        pass


def test_symbols_in_variant_sources():
    text = ("/* klpe_in_comment, __asm__(KLP_SYM(in_comment)) */\n"
            "#define KLP_SYM(name)\t\"\\\".klp.sym.vmlinux.\" #name \",0\\\"\"\n"
            "extern struct page *klpe___pageblock_pfn_to_page(unsigned long pfn)\n"
            "\t__asm__(KLP_SYM(__pageblock_pfn_to_page));\n"
            "extern int klpe_unevictable __asm__(KLP_SYM(sysctl_compact_unevictable_allowed));\n"
            "#define T(name) klpe___tracepoint_##name\n"
            "x = klpe_compaction_suitable(zone);\n"
            "s = \"klpe_in_string\";\n")
    assert kv.symbols_in(text) == (
        {"__pageblock_pfn_to_page", "sysctl_compact_unevictable_allowed"},
        {"__pageblock_pfn_to_page", "unevictable", "compaction_suitable"})


def fake_kallsyms(symbols, offsets=None, base=0, layout="6.12"):
    """A blob laid out like scripts/kallsyms.c's output, with each name
    byte its own token (so tokens 48..57 are the digits); with offsets,
    also kallsyms_offsets and kallsyms_relative_base (base), before
    kallsyms_num_syms (layout "6.1") or after kallsyms_token_index
    ("6.12"), the arrays 8-byte aligned.  Layout "7.x" is 7.x's: the
    arrays 4-byte aligned, no kallsyms_relative_base, kallsyms_offsets
    after kallsyms_token_index and PC-relative: offsets are then the
    symbols' addresses and base the address the blob is loaded at, each
    entry holding its symbol's address less its own."""
    toks = [bytes([i]) if i else b"\x00" for i in range(256)]
    toks[0] = b"_x"                       # an unused code as a real token
    table = b"".join(t + b"\x00" for t in toks)
    index = []
    off = 0
    for t in toks:
        index.append(off)
        off += len(t) + 1
    names, markers = b"", []
    for k, s in enumerate(symbols):
        if k % 256 == 0:
            markers.append(len(names))
        enc = bytes(s.encode())
        names += bytes([len(enc)]) + enc
    align = 4 if layout == "7.x" else 8
    pad = lambda b: b + b"\x00" * (-len(b) % align)  # noqa: E731
    blob = b"\xff" * 64
    if offsets is not None and layout == "6.1":
        blob += pad(struct.pack("<%di" % len(offsets), *offsets)) + struct.pack("<Q", base)
    blob += pad(struct.pack("<I", len(symbols)))
    blob += pad(names) + pad(struct.pack("<%dI" % len(markers), *markers))
    blob += pad(table) + pad(struct.pack("<256H", *index))
    if offsets is not None and layout == "6.12":
        blob += pad(struct.pack("<%di" % len(offsets), *offsets)) + struct.pack("<Q", base)
    if offsets is not None and layout == "7.x":
        at = base + len(blob)
        blob += struct.pack("<%di" % len(offsets),
                            *(a - (at + 4 * i) for i, a in enumerate(offsets)))
    return blob


def test_kallsyms_decoder_counts_duplicates():
    syms = ["T" + "func%d" % i for i in range(600)] + ["tdup", "tdup", "Ddata9"]
    for layout in ("6.12", "7.x"):
        out = kv.kallsyms(fake_kallsyms(syms, layout=layout))
        assert out[:2] == ["T func0", "T func1"] and out[-1] == "D data9", layout
        assert len(out) == len(syms), layout
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kallsyms.txt")
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
        assert kv.symbol_counts(path, ["dup", "func599", "gone"]) == \
            {"dup": 2, "func599": 1, "gone": 0}


def test_banner():
    blob = (b"\x00Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) "
            b"(gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for "
            b"Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)\n\x00")
    assert kv.parse_banner(blob) == (
        "6.1.0-57-amd64", "gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0",
        "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)")


def test_upsert_keys_rows_by_release():
    """A version's amd64 and cloud-amd64 builds (one package version and
    uts_version, each its own release and build ID) are two rows, the
    amd64 one first; checking one again replaces that row only."""
    amd64 = row("6.1.192-3", release="6.1.0-57-amd64", build_id="6a" * 20)
    cloud = row("6.1.192-3", release="6.1.0-57-cloud-amd64", build_id="c1" * 20)
    rows = kv.upsert(kv.upsert([row("6.1.176-1", release="6.1.0-50-amd64")], cloud), amd64)
    assert len(rows) == 3, rows
    text = kv.format_table(rows)
    assert [line.split("\t")[0] for line in text.splitlines()[1:]] == \
        ["6.1.0-50-amd64", "6.1.0-57-amd64", "6.1.0-57-cloud-amd64"]
    again = kv.upsert(kv.parse_table(text), dict(cloud, note="sympos: foo x2"))
    assert len(again) == 3
    assert {r["release"]: r["note"] for r in again if r["package_version"] == "6.1.192-3"} \
        == {"6.1.0-57-amd64": "-", "6.1.0-57-cloud-amd64": "sympos: foo x2"}
    assert {r["release"]: r["build_id"] for r in again if r["package_version"] == "6.1.192-3"} \
        == {"6.1.0-57-amd64": "6a" * 20, "6.1.0-57-cloud-amd64": "c1" * 20}
    try:
        kv.upsert(again, row("6.1.999-1", release="-"))
        raise AssertionError("a row without a release accepted")
    except kv.Error:
        pass


def test_flavour_of_releases_and_packages():
    cases = {
        "6.1.0-57-amd64": "amd64",
        "6.1.0-57-cloud-amd64": "cloud-amd64",
        "6.1.0-57-rt-amd64": "rt-amd64",
        "linux-image-6.1.0-57-amd64": "amd64",
        "linux-image-6.1.0-57-amd64-unsigned": "amd64",
        "linux-image-6.1.0-57-cloud-amd64-unsigned": "cloud-amd64",
        "linux-image-6.1.0-57-cloud-amd64-dbg": "cloud-amd64",
        "linux-image-6.12.95+deb12-cloud-amd64-unsigned": "cloud-amd64",
        "linux-image-6.12.115+deb13.1-cloud-amd64": "cloud-amd64",
        "6.12.115+deb13.1-amd64": "amd64",
        "linux-headers-6.12.118+deb13-cloud-amd64": "cloud-amd64",
        "linux-image-6.12.118+deb13-rt-amd64-unsigned": "rt-amd64",
        # metapackages and what is no kernel release
        "linux-image-cloud-amd64": None,
        "linux-image-6.12-cloud-amd64": None,
        "linux-source-6.1": None,
        "6.1.192-3": None,
    }
    for name, want in cases.items():
        assert kv.flavour_of(name) == want, (name, kv.flavour_of(name), want)
    # find_image takes the flavour's own image, the unsigned one first
    index = {"linux-image-6.1.0-57-amd64": ["6.1.192-3"],
             "linux-image-6.1.0-57-amd64-unsigned": ["6.1.192-3"],
             "linux-image-6.1.0-57-cloud-amd64": ["6.1.192-3"],
             "linux-image-6.1.0-57-cloud-amd64-unsigned": ["6.1.192-3"],
             "linux-image-6.1.0-57-cloud-amd64-dbg": ["6.1.192-3"],
             "linux-image-6.1.0-57-rt-amd64-unsigned": ["6.1.192-3"],
             "linux-image-6.1.0-50-cloud-amd64": ["6.1.176-1"],
             "linux-image-6.12-cloud-amd64": ["6.1.192-3"],   # a metapackage
             "linux-image-cloud-amd64": ["6.1.192-3"],
             # 7.x: linux-image-<abi> a metapackage, the vmlinuz in
             # linux-binary-<abi>
             "linux-image-7.2.12+deb14-amd64": ["7.2.12-1"],
             "linux-binary-7.2.12+deb14-amd64": ["7.2.12-1"],
             "linux-image-7.2.12+deb14-amd64-dbg": ["7.2.12-1"],
             "linux-image-7.2.12+deb14-rt-amd64": ["7.2.12-1"]}
    saved = kv.apt_search, kv.madison
    try:
        kv.apt_search = lambda suite, rx: sorted(n for n in index if re.search(rx, n))
        # (madison names only the packages the lists have)
        kv.madison = lambda suite, names: {n: index[n] for n in names if n in index}
        assert kv.find_image("7.2.12-1", "forky", "amd64") == \
            ("linux-binary-7.2.12+deb14-amd64", "7.2.12+deb14-amd64")
        # the vmlinuz: in /usr/lib/modules on 7.x, in /boot on 6.19 and before
        members = ["./", "./usr/lib/modules/7.2.12+deb14-amd64/vmlinuz",
                   "./usr/share/doc/linux-binary-7.2.12+deb14-amd64/copyright"]
        assert kv.vmlinuz_member(members, "7.2.12+deb14-amd64") == \
            "./usr/lib/modules/7.2.12+deb14-amd64/vmlinuz"
        assert kv.vmlinuz_member(["./boot/vmlinuz-6.19.14+deb13-amd64"],
                                 "6.19.14+deb13-amd64") == "./boot/vmlinuz-6.19.14+deb13-amd64"
        assert kv.vmlinuz_member(members, "6.19.14+deb13-amd64") is None
        assert kv.find_image("7.2.12-1", "forky", "cloud-amd64") == (None, None)
        assert kv.find_image("6.1.192-3", "bookworm-security", "amd64") == \
            ("linux-image-6.1.0-57-amd64-unsigned", "6.1.0-57-amd64")
        assert kv.find_image("6.1.192-3", "bookworm-security", "cloud-amd64") == \
            ("linux-image-6.1.0-57-cloud-amd64-unsigned", "6.1.0-57-cloud-amd64")
        # only the signed image left in the archive
        assert kv.find_image("6.1.176-1", "bookworm", "cloud-amd64") == \
            ("linux-image-6.1.0-50-cloud-amd64", "6.1.0-50-cloud-amd64")
        assert kv.find_image("6.1.176-1", "bookworm", "amd64") == (None, None)
    finally:
        kv.apt_search, kv.madison = saved


def test_rt_flavour_is_not_served():
    """check covers FLAVOURS; rt-amd64 is refused with its reason, before
    anything is fetched, and gets no row."""
    assert kv.check_flavours() == ["amd64", "cloud-amd64"]
    assert kv.check_flavours("cloud-amd64") == ["cloud-amd64"]
    assert "rt-amd64" not in kv.FLAVOURS
    assert kv.not_served("rt-amd64") == "not served: rt-amd64 has PREEMPT_RT and no THP"
    for flavour, want in (("rt-amd64", "not served: rt-amd64 has PREEMPT_RT and no THP"),
                          ("arm64", "unknown flavour arm64")):
        try:
            kv.check_flavours(flavour)
            raise AssertionError("%s accepted" % flavour)
        except kv.Error as e:
            assert want in str(e), e
    saved = kv.TABLE, kv.find_suite
    with tempfile.TemporaryDirectory() as d:
        try:
            kv.TABLE = os.path.join(d, "kernels.tsv")
            kv.find_suite = None          # nothing is looked up
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = kv.main(["check", "6.1.192-3", "--flavour", "rt-amd64"])
            assert rc == 2 and "not served: rt-amd64 has PREEMPT_RT and no THP" \
                in err.getvalue(), (rc, err.getvalue())
            assert not os.path.exists(kv.TABLE)
        finally:
            kv.TABLE, kv.find_suite = saved
    assert "rt-amd64" in kv.__doc__ and "PREEMPT_RT" in kv.__doc__


def test_image_not_in_archive_is_recorded_as_unknown():
    saved = kv.CACHE, kv.find_image
    with tempfile.TemporaryDirectory() as d:
        try:
            kv.CACHE = d
            kv.find_image = lambda version, suite, flavour: (None, None)
            info = kv.image_info("6.1.999-1", "bookworm-security", "cloud-amd64")
            assert (info["release"], info["build_id"], info["uts_version"]) == ("-", "-", "-")
            assert info["note"] == "image not in archive" and info["kallsyms"] is None
            assert os.path.exists(os.path.join(d, "klp-variant", "6.1.999-1",
                                               "cloud-amd64", "image.json"))
            # cached: asked once
            kv.find_image = None
            assert kv.image_info("6.1.999-1", "bookworm-security", "cloud-amd64") == info
        finally:
            kv.CACHE, kv.find_image = saved


def test_image_facts_per_flavour_rows_per_release():
    """Each flavour's image facts are its own (image.json, kallsyms.txt
    in <version>/<flavour>/): the amd64 and cloud-amd64 builds of one
    version each get their row, with their own release, build ID and
    symbol note; an image the archive no longer offers gets none."""
    saved = kv.CACHE, kv.TABLE, kv.LIVEPATCH, kv.find_image
    version, suite = "6.1.192-3", "bookworm-security"
    facts = {
        "amd64": ("6.1.0-57-amd64", "6a" * 20, "T compact_zone\nt isolate_x\n"),
        "cloud-amd64": ("6.1.0-57-cloud-amd64", "c1" * 20,
                        "T compact_zone\nt isolate_x\nt isolate_x\n"),
    }
    with tempfile.TemporaryDirectory() as d:
        try:
            kv.CACHE = d
            kv.TABLE = os.path.join(d, "kernels.tsv")
            kv.LIVEPATCH = os.path.join(d, "livepatch")
            kv.find_image = None          # every fact is cached
            for flavour, (release, bid, syms) in facts.items():
                idir = kv.image_dir(version, flavour)
                assert idir == os.path.join(d, "klp-variant", version, flavour)
                os.makedirs(idir)
                with open(os.path.join(idir, "kallsyms.txt"), "w") as f:
                    f.write(syms)
                with open(os.path.join(idir, "image.json"), "w") as f:
                    json.dump({"package": "linux-image-%s-unsigned" % release,
                               "release": release, "build_id": bid,
                               "uts_version": "#1 SMP PREEMPT_DYNAMIC Debian %s "
                               "(2026-11-26)" % version,
                               "compiler": "gcc-12", "kallsyms": "kallsyms.txt",
                               "note": ""}, f)
            v = kv.Variant("9.9", ["symbol compact_zone\n", "symbol isolate_x\n"],
                           "compaction")
            r = kv.Variant("8.8", ["symbol compact_zone\n"], "reclaim")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                for flavour in ("cloud-amd64", "amd64"):
                    info = kv.image_info(version, suite, flavour)
                    assert info["release"] == facts[flavour][0]
                    assert kv.check_image(version, suite, flavour, info,
                                          {"compaction": v, "reclaim": r}) == "ok"
                gone = dict(info, package=None, release="-", note="image not in archive")
                assert kv.check_image("6.1.999-1", suite, "cloud-amd64", gone,
                                      {"compaction": v, "reclaim": r}) == "no image"
            assert "compaction: same as variant 9.9: 6.1.0-57-cloud-amd64" in out.getvalue()
            assert "reclaim: same as variant 8.8: 6.1.0-57-amd64" in out.getvalue()
            rows = kv.read_table()
            assert [(r["release"], r["build_id"], r["compaction"], r["reclaim"], r["note"])
                    for r in rows] == [
                ("6.1.0-57-amd64", "6a" * 20, "9.9", "8.8", "-"),
                ("6.1.0-57-cloud-amd64", "c1" * 20, "9.9", "8.8",
                 "sympos: isolate_x x2")], rows
            assert rows[0]["uts_version"] == rows[1]["uts_version"]
            assert {r["package_version"] for r in rows} == {version}

            # A feature without a matching variant: the row says "-" for
            # it and keeps the other (a Debian change to vmscan.c alone
            # keeps the scanner); no feature at all: the row is left alone.
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                info = kv.image_info(version, suite, "amd64")
                assert kv.check_image(version, suite, "amd64", info,
                                      {"compaction": v, "reclaim": None}) == "partial"
                assert kv.check_image(version, suite, "cloud-amd64",
                                      kv.image_info(version, suite, "cloud-amd64"),
                                      {"compaction": None, "reclaim": None}) \
                    == "new variant needed"
            assert "reclaim: new variant needed: 6.1.0-57-amd64 (not built there)" \
                in out.getvalue()
            assert "6.1.0-57-cloud-amd64: no feature served (kernels.tsv not changed)" \
                in out.getvalue()
            assert [(r["release"], r["compaction"], r["reclaim"]) for r in kv.read_table()] == [
                ("6.1.0-57-amd64", "9.9", "-"), ("6.1.0-57-cloud-amd64", "9.9", "8.8")]
        finally:
            kv.CACHE, kv.TABLE, kv.LIVEPATCH, kv.find_image = saved


def local_tree(d, mirror_tail, reclaim_tail=""):
    """Under d (kv.LIVEPATCH pointed there): compaction variant 9.9 whose
    MIRROR holds SRC's compact_zone hash plus mirror_tail, reclaim variant
    8.8 whose MIRROR holds SRC's caller() hash plus reclaim_tail, and a
    kernel tree d/tree with that source: `klp-variant local`'s input.
    (compaction variant dir, tree)."""
    kv.LIVEPATCH = os.path.join(d, "livepatch")
    tree = os.path.join(d, "tree")
    os.makedirs(os.path.join(tree, "mm"))
    with open(os.path.join(tree, "mm", "compaction.c"), "w") as f:
        f.write(SRC)
    for feature, name, item, tail in (("compaction", "9.9", "compact_zone", mirror_tail),
                                      ("reclaim", "8.8", "caller", reclaim_tail)):
        vdir = os.path.join(kv.LIVEPATCH, feature, "variants", name)
        os.makedirs(vdir)
        h = kv.item_hash(kv.extract_item(SRC, "function", item))
        with open(os.path.join(vdir, "MIRROR"), "w") as f:
            f.write("reference 9.9.1-1 bookworm\n"
                    "mm/compaction.c function %s %s\n" % (item, h) + tail)
    return os.path.join(kv.LIVEPATCH, "compaction", "variants", "9.9"), tree


def test_local_tree_row():
    """`klp-variant local`: a tree built here (the debug kernel) gets a
    table of its own row when its sources match a variant and its
    System.map names each symbol once; "-" for a feature whose sources or
    symbols do not fit; no row if no feature fits."""
    saved = kv.LIVEPATCH
    with tempfile.TemporaryDirectory() as d:
        try:
            vdir, tree = local_tree(d, "symbol compact_zone\n")
            with open(os.path.join(vdir, "ksyms.h"), "w") as f:
                f.write("extern int klpe_x __asm__(KLP_SYM(isolate_x));\n")
            with open(os.path.join(tree, "vmlinux"), "wb") as f:
                f.write(b"\x00Linux version 6.1.192-gmmdebug (me@here) (gcc-12 "
                        b"(Debian 12.2.0-14) 12.2.0, GNU ld 2.40) #gmmdebug SMP "
                        b"PREEMPT_DYNAMIC 2026-11-26\n\x00")
            smap = os.path.join(tree, "System.map")
            table = os.path.join(d, "kernels.tsv")

            with open(smap, "w") as f:
                f.write("ffffffff81000000 T compact_zone\n"
                        "ffffffff81000100 t isolate_x\n")
            assert kv.check_local(tree, table, "6.1.192-3") == 0
            rows = kv.read_table(table)
            assert [(r["release"], r["uts_version"], r["compaction"], r["reclaim"],
                     r["suite"], r["package_version"]) for r in rows] == [
                ("6.1.192-gmmdebug", "#gmmdebug SMP PREEMPT_DYNAMIC 2026-11-26",
                 "9.9", "8.8", "local", "6.1.192-3")]

            def features():
                return [(r["compaction"], r["reclaim"]) for r in kv.read_table(table)]

            # A name of the compaction feature twice in System.map (an
            # inlined copy left out of line twice, say): compaction "-",
            # reclaim still served.
            with open(smap, "a") as f:
                f.write("ffffffff81000200 t isolate_x\n")
            assert kv.check_local(tree, table, "6.1.192-3") == 0
            assert features() == [("-", "8.8")]

            # Sources of one feature differ: that feature "-".
            with open(smap, "w") as f:
                f.write("ffffffff81000000 T compact_zone\n"
                        "ffffffff81000100 t isolate_x\n")
            src = os.path.join(tree, "mm", "compaction.c")
            with open(src, "w") as f:
                f.write(SRC.replace("break;", "continue;"))
            assert kv.check_local(tree, table, "6.1.192-3") == 0
            assert features() == [("-", "8.8")]
            with open(src, "w") as f:
                f.write(SRC.replace("compact_zone(NULL, NULL)", "compact_zone(cc, NULL)"))
            assert kv.check_local(tree, table, "6.1.192-3") == 0
            assert features() == [("9.9", "-")]

            # Both differ: no row, so select-variant builds nothing.
            with open(src, "w") as f:
                f.write(SRC.replace("break;", "continue;")
                        .replace("compact_zone(NULL, NULL)", "compact_zone(cc, NULL)"))
            assert kv.check_local(tree, table, "6.1.192-3") == 1
            assert kv.read_table(table) == []
        finally:
            kv.LIVEPATCH = saved


# --- "calls": the call sites of a function in a vmlinux ----------------------

TEXT = 0xffffffff81000000
RODATA = TEXT + 0x200000
PCPU = TEXT + 0x1000000


def fake_vmlinux(layout="6.12", other=b"\xc3", caller_b=None, banner=b""):
    """A small ELF64 vmlinux: a .text of a few functions, and a .rodata
    holding banner and a kallsyms table (addresses included, in layout's
    place).  caller_a, caller_b and caller_c call callee, caller_c through
    its __pfx_ padding (6.12's call thunks); caller_a also calls itself
    (an e8 not aimed at callee); other's code is the argument, and
    caller_b's too if given."""
    funcs = {}

    def put(name, at, code):
        funcs[name] = (at, code)

    def rel(site, target):      # rel32 of a 5-byte call/jmp at site
        return struct.pack("<i", target - (site + 5))

    callee = 0x100
    put("_text", 0x000, b"\xcc" * 16)
    put("caller_a", 0x010, b"\x90" * 8 + b"\xe8" + rel(0x18, callee) +
        b"\xe8" + rel(0x1d, 0x10) + b"\xc3")
    put("caller_b", 0x040, caller_b if caller_b is not None else
        b"\x55\xe8" + rel(0x41, callee) + b"\x5d\xc3")
    put("caller_c", 0x070, b"\xe8" + rel(0x70, callee - 16) + b"\xc3")
    put("__pfx_callee", 0x0f0, b"\x90" * 16)
    put("callee", callee, b"\x31\xc0\xc3")
    put("other", 0x110, other)
    put("tail", 0x140, b"\xc3")
    text = bytearray(b"\xcc" * 0x200)
    for at, code in funcs.values():
        text[at:at + len(code)] = code
    # kallsyms in address order: per-cpu symbols (offset >= 0, the
    # address itself; 600 of them, so that kallsyms_markers is a run of 3
    # the decoder cannot mistake for a pair of words in the ELF headers)
    # first, then the text symbols (offset < 0, the address is
    # base - 1 - offset); 609 in all, an odd count, so the offsets are
    # padded on 6.1
    pcpu = ["Dpcpu_var%d" % i for i in range(600)]
    text_names = ["%s%s" % ("T" if n in ("_text", "callee") else "t", n)
                  for n in sorted(funcs, key=lambda n: funcs[n][0])]
    names = pcpu + text_names
    offsets = [0x1000 + 8 * i for i in range(len(pcpu))] + \
        [-1 - funcs[n[1:]][0] for n in text_names]
    # (the kallsyms arrays are 8-byte aligned in the file, as in a vmlinux)
    banner += b"\x00" * (8 + -len(banner) % 8)
    if layout == "7.x":
        # 7.x: no absolute per-cpu symbols; the table holds addresses
        offsets = [PCPU + 8 * i for i in range(len(pcpu))] + \
            [TEXT + funcs[n[1:]][0] for n in text_names]
        rodata = banner + fake_kallsyms(names, offsets, RODATA + len(banner), layout)
    else:
        rodata = banner + fake_kallsyms(names, offsets, TEXT, layout)

    shstr = b"\x00.text\x00.rodata\x00.shstrtab\x00"
    sh_off = 64
    text_off = 0x1000
    ro_off = text_off + len(text)
    str_off = ro_off + len(rodata)
    sh = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 6, TEXT, text_off, len(text), 0, 0, 16, 0)
    sh += struct.pack("<IIQQQQIIQQ", 7, 1, 2, RODATA, ro_off, len(rodata),
                      0, 0, 8, 0)
    sh += struct.pack("<IIQQQQIIQQ", 15, 3, 0, 0, str_off, len(shstr), 0, 0, 1, 0)
    ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + b"\x00" * 9,
                       2, 0x3E, 1, TEXT, 0, sh_off, 0, 64, 0, 0, 64, 4, 3)
    blob = bytearray(str_off + len(shstr))
    blob[:64] = ehdr
    blob[sh_off:sh_off + len(sh)] = sh
    blob[text_off:ro_off] = text
    blob[ro_off:str_off] = rodata
    blob[str_off:] = shstr
    return bytes(blob)


CALLERS = ["caller_a", "caller_b", "caller_c"]
GOOD_SITES = [("call", "caller_a", 8), ("call", "caller_b", 1), ("call", "caller_c", 0)]


def scan(blob, callee="callee"):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "vmlinux")
        with open(path, "wb") as f:
            f.write(blob)
        return kv.scan_calls(path, [callee])[callee]


def test_kallsyms_addresses_every_layout():
    """6.1's and 6.12's base-relative offsets (absolute per-cpu
    addresses) and 7.x's PC-relative ones, read against the load address
    of the .rodata that holds them."""
    for layout, pcpu1 in (("6.1", 0x1008), ("6.12", 0x1008), ("7.x", PCPU + 8)):
        blob = fake_vmlinux(layout)
        addr, _, _ = kv.elf_sections(blob)[".text"]
        syms = dict((n, a) for a, n in kv.kallsyms_addresses(blob, addr))
        assert addr == TEXT
        assert syms["T_text"] == TEXT and syms["Tcallee"] == TEXT + 0x100, layout
        assert syms["t__pfx_callee"] == TEXT + 0xf0 and syms["Dpcpu_var1"] == pcpu1
        # a .text elsewhere: no layout puts _text there
        assert kv.kallsyms_addresses(blob, TEXT + 0x1000) is None


def test_kallsyms_7x_names_right_before_count():
    """On 7.x kallsyms_num_syms is the u32 right before kallsyms_names
    (4-byte alignment); the 8 bytes before it must not be read as the
    count, and a 7.x blob is not taken for a base-relative one."""
    syms = ["t%d" % i for i in range(300)]
    blob = fake_kallsyms(syms, layout="7.x")
    at = blob.index(struct.pack("<I", 300) + bytes([2]) + b"t0")
    # kallsyms_names starts 4 bytes after the count, not 8-aligned
    assert (at + 4) % 8 == 4 and blob[at - 4:at] == b"\xff" * 4
    assert len(kv.kallsyms(blob)) == 300
    # a 7.x vmlinux whose .rodata moved: the PC-relative addresses move
    # with it, so _text is found nowhere and no layout is taken
    blob = bytearray(fake_vmlinux("7.x"))
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    struct.pack_into("<Q", blob, shoff + 2 * 64 + 16, RODATA + 0x1000)
    assert kv.kallsyms_addresses(bytes(blob), TEXT) is None


def test_call_sites_found_exactly():
    for layout in ("6.1", "6.12", "7.x"):
        sites = scan(fake_vmlinux(layout))
        # caller_a's call to itself is no site; caller_c's call to the
        # __pfx_ padding is
        assert sites == GOOD_SITES, (layout, sites)
        assert kv.calls_problems(sites, CALLERS) == []


def test_call_sites_flag_tail_call_extra_caller_inlined_copy():
    jmp = b"\xe9" + struct.pack("<i", 0x100 - (0x110 + 5))
    call = b"\x90\xe8" + struct.pack("<i", 0x100 - (0x111 + 5)) + b"\xc3"
    # a tail call from a known caller's neighbour: the return address
    # would be other's caller's
    sites = scan(fake_vmlinux(other=jmp))
    assert sites == GOOD_SITES + [("jmp", "other", 0)]
    problems = kv.calls_problems(sites, CALLERS)
    assert len(problems) == 1 and problems[0][0] == "other"
    assert problems[0][1].startswith("jmp other+0x0: a tail call")
    # a caller the gate does not know
    sites = scan(fake_vmlinux(other=call))
    assert sites == GOOD_SITES + [("call", "other", 1)]
    assert kv.calls_problems(sites, CALLERS) == [
        ("other", "call other+0x1: a caller the gate does not know")]
    # caller_b with callee inlined (no call), or calling it twice
    sites = scan(fake_vmlinux(caller_b=b"\x31\xc0\xc3"))
    assert kv.calls_problems(sites, CALLERS) == [
        ("caller_b", "caller_b calls it 0 times, not once (inlined, renamed or gone?)")]
    twice = b"\xe8" + struct.pack("<i", 0x100 - 0x45) + \
        b"\xe8" + struct.pack("<i", 0x100 - 0x4a) + b"\xc3"
    sites = scan(fake_vmlinux(caller_b=twice))
    assert kv.calls_problems(sites, CALLERS) == [
        ("caller_b", "caller_b calls it 2 times, not once")]
    # a callee kallsyms does not have
    try:
        scan(fake_vmlinux(), "nowhere")
        raise AssertionError("missing callee accepted")
    except kv.Error:
        pass


def test_calls_entry_in_mirror_and_local_check():
    """A MIRROR's "calls" line is parsed, survives record, and `klp-variant
    local` refuses a tree whose vmlinux breaks it, naming the caller."""
    lines = ["mm/compaction.c function compact_zone\n",
             "calls callee caller_a caller_b caller_c\n"]
    v = kv.Variant("9.9", lines)
    assert v.calls == [("callee", CALLERS)] and len(v.items) == 1
    out = v.with_hashes({("mm/compaction.c", "function", "compact_zone"): "1" * 64},
                        ("9.9.1-1", "bookworm"))
    assert "calls callee caller_a caller_b caller_c\n" in out
    saved = kv.LIVEPATCH
    with tempfile.TemporaryDirectory() as d:
        try:
            _, tree = local_tree(d, "", "symbol callee\n"
                                        "calls callee caller_a caller_b caller_c\n")
            with open(os.path.join(tree, "System.map"), "w") as f:
                f.write("ffffffff81000100 T callee\n")
            banner = (b"Linux version 6.1.192-gmmdebug (me@here) (gcc-12 "
                      b"(Debian 12.2.0-14) 12.2.0, GNU ld 2.40) #gmmdebug SMP "
                      b"PREEMPT_DYNAMIC 2026-11-26\n")
            table = os.path.join(d, "kernels.tsv")
            for other, want in ((b"\xc3", 0), (b"\xe9" + struct.pack("<i", -0x15), 1)):
                with open(os.path.join(tree, "vmlinux"), "wb") as f:
                    f.write(fake_vmlinux("6.1", other=other, banner=banner))
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    # the compaction feature still fits: a row either way
                    assert kv.check_local(tree, table, "6.1.192-3") == 0
                assert [(r["compaction"], r["reclaim"]) for r in kv.read_table(table)] \
                    == [("9.9", "-" if want else "8.8")]
                if want:
                    assert "callee: jmp other+0x0: a tail call" in out.getvalue()
                    assert ("new variant needed: variant reclaim/8.8's sources match, "
                            "but not the calls its patch tells apart by return address: "
                            "callee from other: not built for this tree") \
                        in out.getvalue()
                else:
                    assert "one call from each of caller_a, caller_b, caller_c" \
                        in out.getvalue()
        finally:
            kv.LIVEPATCH = saved


def test_no_match_reason_counts_and_names_items():
    """A build no variant fits is reported with the items of the closest
    variant that differ and those it lacks."""
    v = kv.Variant("6.12", ["reference 6.12.95-1~bpo12+1 bookworm-backports\n",
                            "mm/compaction.c function compact_zone %s\n" % ("1" * 64),
                            "mm/compaction.c struct compact_control %s\n" % ("2" * 64),
                            "mm/vmscan.c define MAX_X %s\n" % ("3" * 64)], "compaction")
    results = [(it[:3], it[3], h) for it, h in zip(v.items, ("9" * 64, "2" * 64, "-"))]
    fv = kv.no_match(v, results)
    assert kv.no_match_reason(fv) == ("no variant matches: 1 of 3 items of 6.12 differ "
                                      "(compact_zone()), 1 missing (MAX_X (define))")
    assert kv.no_match_reason(fv, names=False) == \
        "no variant matches: 1 of 3 items of 6.12 differ, 1 missing"


def test_matrix_lists_every_next_build_with_its_reason():
    """matrix: every 6.19-or-later image of the next suites, in each
    flavour: rt-amd64 not served for its reason, a build whose
    linux-source is gone not served for that, one whose source no
    variant fits not served with the counts (the items once, after the
    table), and a build with a kernels.tsv row served."""
    index = {
        ("trixie-backports", "linux-image-6.19.14+deb13-amd64"): ["6.19.14-1~bpo13+1"],
        ("trixie-backports", "linux-image-7.2.12+deb13-amd64"): ["7.2.12-1~bpo13+1"],
        ("trixie-backports", "linux-image-7.2.12+deb13-cloud-amd64"): ["7.2.12-1~bpo13+1"],
        ("trixie-backports", "linux-image-7.2.12+deb13-rt-amd64"): ["7.2.12-1~bpo13+1"],
        ("trixie-backports", "linux-image-7.2.12+deb13-amd64-dbg"): ["7.2.12-1~bpo13+1"],
        ("trixie-backports", "linux-source-7.2"): ["7.2.12-1~bpo13+1"],
        # the base suite's 6.12: not a next build
        ("trixie-backports", "linux-image-6.12.117+deb13-amd64"): [],
        ("sid", "linux-image-7.3.1+deb14-amd64"): ["7.3.1-1"],
        ("sid", "linux-source-7.3"): ["7.3.1-1"],
    }
    verdicts = {
        "7.2.12-1~bpo13+1": {
            "compaction": {"variant": None, "closest": "6.12", "items": 3,
                           "differ": ["compact_zone()"], "missing": []},
            "reclaim": {"variant": None, "closest": "6.12", "items": 2,
                        "differ": [], "missing": ["pgdat_balanced()"]}},
    }
    saved = kv.apt_search, kv.madison, kv.source_verdict, kv.NEXT_SUITES, kv.TABLE
    with tempfile.TemporaryDirectory() as d:
        try:
            kv.NEXT_SUITES = ("trixie-backports", "forky", "sid")
            kv.apt_search = lambda suite, rx: sorted(
                n for s, n in index if s == suite and re.search(rx, n))
            kv.madison = lambda suite, names: {
                n: index[(suite, n)] for n in names if index.get((suite, n))}
            kv.source_verdict = lambda version, suite: verdicts[version]
            kv.TABLE = os.path.join(d, "kernels.tsv")
            kv.write_table([row("7.3.1-1", "6.12", release="7.3.1+deb14-amd64")])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert kv.matrix() == 0
        finally:
            (kv.apt_search, kv.madison, kv.source_verdict, kv.NEXT_SUITES,
             kv.TABLE) = saved
    lines = [" ".join(ln.split()) for ln in out.getvalue().splitlines()]
    assert lines == [
        "6.19.14+deb13-amd64 6.19.14-1~bpo13+1 trixie-backports not served: no "
        "linux-source-6.19 6.19.14-1~bpo13+1 in trixie-backports (only the image is "
        "left), no source to compare with the variants",
        "7.2.12+deb13-amd64 7.2.12-1~bpo13+1 trixie-backports not served: compaction: "
        "no variant matches: 1 of 3 items of 6.12 differ, 0 missing; reclaim: no "
        "variant matches: 0 of 2 items of 6.12 differ, 1 missing",
        "7.2.12+deb13-cloud-amd64 7.2.12-1~bpo13+1 trixie-backports not served: "
        "compaction: no variant matches: 1 of 3 items of 6.12 differ, 0 missing; "
        "reclaim: no variant matches: 0 of 2 items of 6.12 differ, 1 missing",
        "7.2.12+deb13-rt-amd64 7.2.12-1~bpo13+1 trixie-backports not served: "
        "rt-amd64 has PREEMPT_RT and no THP",
        "7.3.1+deb14-amd64 7.3.1-1 sid served: compaction 6.12, reclaim 6.12",
        "compaction of 7.2.12-1~bpo13+1: no variant matches: 1 of 3 items of 6.12 "
        "differ (compact_zone()), 0 missing",
        "reclaim of 7.2.12-1~bpo13+1: no variant matches: 0 of 2 items of 6.12 "
        "differ, 1 missing (pgdat_balanced())",
    ], lines


def test_matrix_block_of_a_doc():
    """matrix --doc writes the table between the markers of a Markdown
    file, as a fenced block, and says whether that changed it."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "doc.md")
        with open(path, "w") as f:
            f.write("before\n%s\nstale\n%s\nafter\n" % (kv.DOC_BEGIN, kv.DOC_END))
        assert kv.update_doc(path, "a  b\n") is True
        with open(path) as f:
            assert f.read() == "before\n%s\n\n```\na  b\n```\n\n%s\nafter\n" % (
                kv.DOC_BEGIN, kv.DOC_END)
        assert kv.update_doc(path, "a  b\n") is False
        with open(path, "w") as f:
            f.write("no block\n")
        try:
            kv.update_doc(path, "x\n")
            raise AssertionError("a file without the block accepted")
        except kv.Error:
            pass

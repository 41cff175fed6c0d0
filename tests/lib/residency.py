"""The host's view of guest RAM: which guest page frames QEMU really backs
(/proc/PID/pagemap of its guest RAM mapping), against what the guest says
they are (tests/progs/kpf_bitmap, from /proc/kpageflags).  A balloon page
must not be backed; a page the guest uses must be.

The guest must run with host_thp=False (scripts/guest/guest.py): with
QEMU's RAM in host transparent huge pages, the host's khugepaged backs
again every balloon page of a 2 MiB range the guest still uses part of
(balloon_hotunplug on CI, 2026-12-02: 2506 balloon pages from pfn 0x1e02
on, after offlining had migrated 117760 balloon pages into base RAM)."""
import struct
import time

PAGE = 4096


def guest_ram_base(pid, ram_bytes):
    """Start of QEMU's guest RAM mapping: its one private anonymous
    read-write mapping of exactly the RAM size (pc.ram, memory-backend-ram).
    Guest physical address x < RAM size is at that start + x."""
    found = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            fields = line.split()
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            if (hi - lo == ram_bytes and fields[1] == "rw-p" and
                    fields[4] == "0" and len(fields) == 5):
                found.append(lo)
    assert len(found) == 1, "guest RAM mapping of %d bytes: %r" % (
        ram_bytes, found)
    return found[0]


def pagemap(pid, base, npages):
    """The host's page table entries (/proc/PID/pagemap) of [base, base +
    npages pages) in QEMU."""
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(base // PAGE * 8)
        raw = f.read(npages * 8)
    return struct.unpack("<%dQ" % npages, raw)


def host_backed(entries):
    """Bitmap (an int, bit i = page i) of the pagemap entries present or
    swapped out."""
    bm = bytearray((len(entries) + 7) // 8)
    for i, e in enumerate(entries):
        if e >> 62:             # bit 63 present, bit 62 swapped
            bm[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(bm, "little")


KPF_THP = 22        # /proc/kpageflags: part of a transparent huge page
KPF_ZERO_PAGE = 24  # the shared zero page (or the huge zero page)
PFN_MASK = (1 << 55) - 1


def host_zero(entries):
    """Bitmap of the pagemap entries that map the host's shared zero
    page: present, but no memory of their own.  A migration's
    destination maps it wherever a zero page arrived (QEMU reads the
    page to see whether it must clear it), a balloon page among them.
    Only a pfn mapped more than once can be it (one mapping of a huge
    zero page, host THP, is missed: residency runs without)."""
    seen, twice = set(), set()
    for e in entries:
        if e >> 63:
            pfn = e & PFN_MASK
            (twice if pfn in seen else seen).add(pfn)
    zero = set()
    with open("/proc/kpageflags", "rb") as kf:
        for pfn in twice:
            kf.seek(pfn * 8)
            if struct.unpack("<Q", kf.read(8))[0] >> KPF_ZERO_PAGE & 1:
                zero.add(pfn)
    bm = bytearray((len(entries) + 7) // 8)
    if zero:
        for i, e in enumerate(entries):
            if e >> 63 and e & PFN_MASK in zero:
                bm[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(bm, "little")


def host_thp_pages(entries, bits):
    """How many of the pages in `bits` (bit i = pagemap entry i) the host
    maps with a transparent huge page: post-mortem of a mismatch, to tell
    the host's khugepaged from the driver."""
    b = bits.to_bytes((len(entries) + 7) // 8, "little")
    n = 0
    with open("/proc/kpageflags", "rb") as kf:
        for i, e in enumerate(entries):
            pfn = e & PFN_MASK
            if not (b[i >> 3] >> (i & 7) & 1 and e >> 63 and pfn):
                continue
            kf.seek(pfn * 8)
            n += struct.unpack("<Q", kf.read(8))[0] >> KPF_THP & 1
    return n


def guest_bitmaps(g):
    """(pfns, offline, used) from the guest's kpf_bitmap, as ints."""
    res = {}
    for line in g.sh("kpf_bitmap", timeout=120).splitlines():
        k, _, v = line.partition(" ")
        res[k] = v.strip()
    as_int = lambda h: int.from_bytes(bytes.fromhex(h), "little")  # noqa: E731
    return int(res["pfns"]), as_int(res["offline"]), as_int(res["used"])


def pfns_of(bits, limit=8):
    """The first `limit` set bits, as hex pfns, for messages."""
    out, i = [], 0
    while bits and len(out) < limit:
        if bits & 1:
            out.append("0x%x" % i)
        bits >>= 1
        i += 1
    return out


def compare(g, twice=False):
    """One snapshot: the guest's bitmaps, then QEMU's page table.  With
    twice, the guest's bitmaps are read again after the page table, and
    only pages that were balloon pages (or in use) in both reads count:
    a page the balloon takes or gives back between the reads (defrag
    making a block) is in neither state throughout."""
    ram_pages = g.ram_bytes() // PAGE
    pid = g.proc.pid
    base = guest_ram_base(pid, ram_pages * PAGE)
    _, offline, used = guest_bitmaps(g)
    entries = pagemap(pid, base, ram_pages)
    if twice:
        _, offline2, used2 = guest_bitmaps(g)
        offline &= offline2
        used &= used2
    backed = host_backed(entries)
    zero = host_zero(entries)
    mask = (1 << ram_pages) - 1
    offline &= mask
    used &= mask
    # A balloon page on the host's zero page costs the host nothing; a
    # used page there reads what it held, zeros.
    bad_balloon = offline & backed & ~zero
    bad_used = used & ~backed & mask
    res = dict(balloon=bin(offline).count("1"),
               balloon_backed=bin(bad_balloon).count("1"),
               used=bin(used).count("1"),
               used_unbacked=bin(bad_used).count("1"),
               backed=bin(backed & ~zero).count("1"),
               host_zero=bin(zero).count("1"))
    if bad_balloon:
        res["balloon_backed_host_thp"] = host_thp_pages(entries,
                                                        bad_balloon)
    return res, bad_balloon, bad_used


def check(g, label, tries=3, balloon_backed_max=0, twice=False):
    """Compare the guest's balloon and used pages with what QEMU backs.
    Returns the counts; asserts none of the balloon pages is backed (at
    most balloon_backed_max: a migration's destination keeps what the
    source sent of a page before the balloon took it) and all of the used
    ones are.  The two reads are not atomic: a balloon that is busy
    (background defrag, on by default) can move a page
    between them, so a mismatch is read again, a second apart, and only
    one that stays is an error.  A balloon that keeps moving pages (a
    migration's destination) needs twice (compare())."""
    assert not g.host_thp, "residency.check needs GUEST host_thp=False"
    t0 = time.monotonic()
    for attempt in range(1, tries + 1):
        res, bad_balloon, bad_used = compare(g, twice)
        if bin(bad_balloon).count("1") <= balloon_backed_max and \
                not bad_used:
            bad_balloon = 0
            break
        if attempt < tries:
            time.sleep(1)
    print("KEY residency %s %s seconds=%.1f reads=%d" % (
        label, " ".join("%s=%d" % kv for kv in sorted(res.items())),
        time.monotonic() - t0, attempt))
    if bad_balloon or bad_used:
        # For the post-mortem: what the driver had queued and counted.
        print("KEY residency %s balloon_state %s" % (label, " ".join(
            g.sh("cat /sys/kernel/debug/guestmm_balloon/state 2>/dev/null",
                 check=False).split())))
    assert not bad_balloon, (label, res, pfns_of(bad_balloon, 64))
    assert not bad_used, (label, res, pfns_of(bad_used))
    return res

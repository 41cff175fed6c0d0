"""Host-side unit tests for the live-migration helpers: the guest's RAM size
and the host's zero page in a pagemap."""
import ctypes
import mmap
import os
import shutil
import tempfile

import guest
import residency


def make_guest(**kw):
    logdir = tempfile.mkdtemp(prefix="gmm-unit.")
    g = guest.Guest("vmlinuz", "initrd", logdir, **kw)
    shutil.rmtree(logdir)
    shutil.rmtree(g.tmp)
    return g


def test_ram_extra_kb_sizes_ram_in_kib():
    g = make_guest(mem=1024, ram_extra_kb=8)
    assert g.ram_bytes() == (1 << 30) + 8192
    assert g.mem_arg() == "1048584k"
    # Not a multiple of 256 KiB: QEMU 7.2 syncs it page by page.
    assert g.ram_bytes() % (256 << 10)
    g = make_guest(mem=1024, ram_extra_kb=8, dimms=[512])
    assert g.mem_arg() == "1048584k,slots=1,maxmem=1572872k"
    g = make_guest(mem=1024)
    assert g.mem_arg() == "1024" and g.ram_bytes() == 1 << 30


def test_host_zero_counts_only_the_zero_page():
    if os.geteuid() != 0:
        return      # pfns and /proc/kpageflags are root's (so is residency)
    npages = 8
    m = mmap.mmap(-1, npages * residency.PAGE,
                  flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    try:
        for i in (0, 1, 2):         # read: the zero page
            m[i * residency.PAGE]
        m[4 * residency.PAGE] = 1   # written: a page of its own
        entries = residency.pagemap(os.getpid(), base, npages)
        zero = residency.host_zero(entries)
        backed = residency.host_backed(entries)
    finally:
        del base
        m.close()
    assert zero == 0b111, bin(zero)
    assert backed == 0b10111, bin(backed)

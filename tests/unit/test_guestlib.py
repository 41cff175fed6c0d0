"""Host-side unit tests for the guest harness's pure functions."""
import lzma
import os
import tempfile

import extract_vmlinux
import guest
import mkinitramfs


def test_kernel_problems_catches_each_kind():
    bad = [
        "[   12.1] WARNING: CPU: 1 PID: 7 at mm/x.c:1 f+0x1/0x2",
        "[    3.0] BUG: unable to handle page fault for address: 0",
        "[    3.0] Oops: 0000 [#1] PREEMPT SMP NOPTI",
        "[    3.0] BUG: KASAN: use-after-free in f",
        "kmemleak: 1 new suspected memory leaks",
        "list_del corruption, ffff... ->next is LIST_POISON1",
        "INFO: task kworker/0:1:12 blocked for more than 120 seconds.",
        "WARNING: possible circular locking dependency detected",
    ]
    good = ["[    0.0] Linux version 6.1.0-57-amd64",
            "virtio_balloon virtio0: Out of puff! Can't get 1 pages",
            "guestmm_balloon: loading out-of-tree module taints kernel.",
            # the debug kernel's checkers announcing themselves at boot
            "[    0.9] kmemleak: Kernel memory leak detector initialized",
            "[    4.1] kmemleak: Automatic memory scanning thread started",
            "[   72.5] kmemleak: Automatic memory scanning thread ended",
            "[    0.0] rcu: \tRCU lockdep checking is enabled."]
    text = "\n".join(bad + good)
    assert guest.kernel_problems(text) == bad


def test_extract_vmlinux_finds_xz_elf():
    elf = b"\x7fELF" + os.urandom(4096)
    image = os.urandom(1000) + lzma.compress(elf) + os.urandom(100)
    assert extract_vmlinux.extract(image) == elf
    assert extract_vmlinux.extract(os.urandom(5000)) is None


def test_module_closure_orders_dependencies_first():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "modules.dep"), "w") as f:
            f.write("kernel/a/virtio_balloon.ko: kernel/a/virtio.ko "
                    "kernel/a/virtio_ring.ko\n"
                    "kernel/a/virtio.ko: kernel/a/virtio_ring.ko\n"
                    "kernel/a/virtio_ring.ko:\n"
                    "kernel/b/ext4.ko.xz: kernel/b/jbd2.ko.xz\n"
                    "kernel/b/jbd2.ko.xz:\n")
        order = mkinitramfs.module_closure(d, ["virtio_balloon", "ext4"])
        assert order == ["kernel/a/virtio_ring.ko", "kernel/a/virtio.ko",
                         "kernel/a/virtio_balloon.ko", "kernel/b/jbd2.ko.xz",
                         "kernel/b/ext4.ko.xz"]


def test_module_closure_skips_builtin_modules():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "modules.dep"), "w") as f:
            f.write("kernel/a/virtio_balloon.ko.xz:\n")
        with open(os.path.join(d, "modules.builtin"), "w") as f:
            f.write("kernel/drivers/virtio/virtio_pci.ko\n")
        order = mkinitramfs.module_closure(d, ["virtio_pci",
                                               "virtio_balloon"])
        assert order == ["kernel/a/virtio_balloon.ko.xz"]


def test_power_cycle_puts_sockets_in_the_new_tmp():
    """After shutdown() the next start() binds QMP and ttyS1 in the fresh
    temporary directory: the command line and start()'s paths agree."""
    with tempfile.TemporaryDirectory() as logdir:
        g = guest.Guest("vmlinuz", "initrd", logdir)
        old = g.tmp
        g.fresh_tmp()
        try:
            argv = " ".join(g.qemu_argv())
            assert g.sockdir == g.tmp != old
            assert "path=%s/ctl.sock" % g.tmp in argv, argv
            assert "unix:%s/qmp.sock" % g.tmp in argv, argv
        finally:
            os.rmdir(old)
            os.rmdir(g.tmp)

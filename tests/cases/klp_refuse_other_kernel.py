"""guestmm_klp refuses cleanly on a kernel it was not written for (Debian 6.12)."""

GUEST = dict(mem=512, balloon=None)
KERNELS = ("6.12",)


def run(g):
    g.sh("modprobe guestmm_klp", check=False)
    assert g.last_rc != 0, "guestmm_klp loaded on an unsupported kernel"
    log = g.dmesg()
    assert "refusing to load" in log and "6.1" in log, log[-2000:]
    assert g.sh("ls /sys/kernel/livepatch/").strip() == "", \
        "a livepatch is registered after the refusal"
    assert "guestmm_klp" not in g.sh("cat /proc/modules")

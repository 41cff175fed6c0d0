# SPDX-License-Identifier: GPL-2.0
"""A guestmm test guest: a Debian kernel under QEMU (TCG) with a busybox
initramfs, a virtio balloon, QMP, and a command channel on ttyS1.

    g = Guest(kernel="/.../vmlinuz", initrd="/.../initramfs.cpio.gz",
              logdir="build/tests/case", mem=1024, balloon={})
    g.start()
    print(g.sh("cat /proc/meminfo"))
    g.balloon(768 << 20)
    g.stop()

Configuration (keyword arguments, also the keys of a test case's GUEST):
    mem       guest RAM in MiB (1024)
    smp       vCPUs (2)
    numa      0, or the number of NUMA nodes to split RAM and CPUs into
    balloon   None for no balloon, else a dict of virtio-balloon-pci
              properties, e.g. {"deflate-on-oom": "on"}
    objects   QEMU -object specs created before the devices, e.g.
              ["iothread,id=io0"] for a balloon with free-page-hint
    disk_mb   0, or the size of a fresh ext4 virtio disk mounted at /mnt
    mods      modules modprobe'd at boot (stock or project), in order,
              after virtio_pci (and virtio_blk + ext4 with a disk)
    append    extra kernel command line
    drives    extra virtio disks: a list of image paths, or of dicts with
              keys file, format (raw), readonly (False)
    reboot    let a guest reboot instead of exiting QEMU (False)
    boot_timeout  seconds until the agent must answer (180)
    tcg_single  run all vCPUs in one TCG thread (False).  QEMU 7.2's
              multi-threaded TCG has hung guests whose kernel patches text
              that another vCPU is executing (a livepatch's ftrace site,
              a tracepoint's static call): one vCPU stays at the patched
              instruction or in the int3 handler, soft lockup.  Cases that
              patch live code under load set it; KVM ignores it.
    icount    None, or N: TCG with -icount shift=N (one TCG thread).
              While a vCPU runs, the guest's clock counts its instructions
              (2^N ns each) instead of host time, so CPU times no longer
              depend on how fast the host emulated them: for benchmarks
              whose differences are smaller than TCG's speed noise.  While
              it idles, the clock follows host time (sleep=on; with
              sleep=off it jumps from timer to timer, and a disk wait under
              host load became a 120 s hung-task report).  KVM ignores it.
    host_thp  let the host back guest RAM with transparent huge pages
              (True).  QEMU madvises its RAM MADV_HUGEPAGE, and the host's
              khugepaged collapses any 2 MiB range with at least one page
              present (max_ptes_none=511 by default): the pages the
              balloon gave back in that range are backed again, by the
              host alone.  False starts QEMU with PR_SET_THP_DISABLE, so
              what the host backs is what the guest touched
              (tests/lib/residency.py requires it).
"""
import base64
import ctypes
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time

from qmp import QMP

# Every guest run fails when the kernel log says any of these.
KERNEL_PROBLEMS = re.compile(
    r"WARNING:|BUG:|Oops|KASAN|kmemleak|list_del corruption|"
    r"list_add corruption|INFO: task .* blocked|"
    r"possible circular locking|inconsistent lock state|"
    r"possible recursive locking|lockdep|DEADLOCK|"
    r"general protection fault|Kernel panic|UBSAN|"
    r"refcount_t: |Bad page state|page dumped because")


# Banners of a debug kernel's checkers (at boot, and when the test runner
# turns kmemleak's scan thread off) that KERNEL_PROBLEMS would
# otherwise take for reports.
CHECKER_BANNERS = re.compile(
    r"kmemleak: Kernel memory leak detector initialized|"
    r"kmemleak: Automatic memory scanning thread (started|ended)|"
    r"rcu:\s+RCU lockdep checking is enabled")


def kernel_problems(text):
    """The lines of a kernel log that must fail a test."""
    return [l for l in text.splitlines() if KERNEL_PROBLEMS.search(l) and
            not CHECKER_BANNERS.search(l)]


PR_SET_THP_DISABLE = 41


def no_host_thp():
    """preexec_fn for QEMU: no transparent huge pages for its memory
    (prctl(2); inherited across execve)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "prctl(PR_SET_THP_DISABLE): " + os.strerror(err))


class GuestError(Exception):
    pass


class CommandFailed(GuestError):
    def __init__(self, cmd, rc, out):
        super().__init__("guest command failed (rc=%d): %s\n%s" %
                         (rc, cmd, out))
        self.rc, self.out = rc, out


def kvm_usable():
    """A short probe: KVM is only used if a trivial guest gets going.
    On these machines it hangs, so the answer is cached per process and
    guestmm never depends on it (GUESTMM_KVM=1 opts in)."""
    return os.environ.get("GUESTMM_KVM") == "1" and os.access("/dev/kvm",
                                                              os.W_OK)


class Guest:
    # Host-time bounds a case asserts (a response within 5 s) are
    # multiplied by this; the test runner raises it for slow kernels.
    time_scale = 1

    def __init__(self, kernel, initrd, logdir, mem=1024, smp=2, numa=0,
                 balloon=None, disk_mb=0, mods=(), append="", drives=(),
                 reboot=False, boot_timeout=180, tcg_single=False,
                 icount=None, objects=(), dimms=(), host_thp=True):
        self.kernel, self.initrd, self.logdir = kernel, initrd, logdir
        # Hot-pluggable memory: one pc-dimm of each size (MiB), present
        # from boot; the guest onlines it (memhp_default_state=).
        self.dimms = list(dimms)
        self.mem, self.smp, self.numa = mem, smp, numa
        self.balloon_props = balloon
        self.objects = list(objects)
        # The transport and the disk's driver come first, always.
        base = ["virtio_pci"] + (["virtio_blk", "crc32c_generic", "ext4"] if disk_mb else [])
        self.mods = base + [m for m in mods if m not in base]
        self.disk_mb, self.append = disk_mb, append
        self.drives, self.reboot = list(drives), reboot
        self.boot_timeout = boot_timeout
        self.tcg_single = tcg_single
        self.icount = icount
        self.host_thp = host_thp
        self.proc = self.qmp = self.ctl = None
        self.rbuf = b""
        os.makedirs(logdir, exist_ok=True)
        self.console = os.path.join(logdir, "console.log")
        self.console_before = ""    # earlier boots' console (power_cycle)
        self.tmp = tempfile.mkdtemp(prefix="guestmm.")

    # ---- life cycle -------------------------------------------------
    def cmdline(self):
        args = ["console=ttyS0", "loglevel=5", "panic=-1", "nokaslr",
                "transparent_hugepage=always"]
        if self.mods:
            args.append("gmm.mods=" + ",".join(self.mods))
        if self.disk_mb:
            args.append("gmm.disk=1")
        if self.append:
            args.append(self.append)
        return " ".join(args)

    def smp_topology(self):
        # One socket per NUMA node: CPUs that share a cache across nodes
        # make the guest kernel WARN in topology_sane().
        sockets = self.numa or 1
        return "%d,sockets=%d,cores=%d,threads=1" % (
            self.smp, sockets, max(1, self.smp // sockets))

    def mem_arg(self):
        if not self.dimms:
            return str(self.mem)
        return "%dM,slots=%d,maxmem=%dM" % (self.mem, len(self.dimms),
                                            self.mem + sum(self.dimms))

    def qemu_argv(self):
        argv = ["qemu-system-x86_64", "-accel",
                "kvm" if kvm_usable() else
                "tcg,thread=single" if self.tcg_single else "tcg",
                "-m", self.mem_arg(), "-smp", self.smp_topology(),
                "-nodefaults", "-display", "none",
                "-kernel", self.kernel, "-initrd", self.initrd,
                "-append", self.cmdline(),
                "-chardev", "file,id=con,path=" + self.console,
                "-serial", "chardev:con",
                "-chardev", "socket,id=ctl,path=%s/ctl.sock,server=on,"
                "wait=off" % self.tmp,
                "-serial", "chardev:ctl",
                "-qmp", "unix:%s/qmp.sock,server=on,wait=off" % self.tmp]
        if self.icount is not None and not kvm_usable():
            argv += ["-icount", "shift=%d" % self.icount]
        if self.numa:
            per = self.mem // self.numa
            for n in range(self.numa):
                argv += ["-object", "memory-backend-ram,id=m%d,size=%dM" %
                         (n, per),
                         "-numa", "node,nodeid=%d,cpus=%d,memdev=m%d" %
                         (n, n % self.smp, n)]
        for obj in self.objects:
            argv += ["-object", obj]
        for i, mib in enumerate(self.dimms):
            argv += ["-object", "memory-backend-ram,id=dimmmem%d,size=%dM" %
                     (i, mib),
                     "-device", "pc-dimm,id=dimm%d,memdev=dimmmem%d" % (i, i)]
        if self.balloon_props is not None:
            dev = "virtio-balloon-pci,id=balloon0"
            for k, v in self.balloon_props.items():
                dev += ",%s=%s" % (k, v)
            argv += ["-device", dev]
        if self.disk_mb:
            img = os.path.join(self.tmp, "disk.img")
            with open(img, "wb") as f:
                f.truncate(self.disk_mb << 20)
            subprocess.run(["mkfs.ext4", "-q", "-F", img], check=True)
            argv += ["-drive", "file=%s,format=raw,if=virtio,cache=writeback"
                     % img]
        for d in self.drives:
            d = d if isinstance(d, dict) else {"file": d}
            opt = "file=%s,format=%s,if=virtio" % (d["file"],
                                                   d.get("format", "raw"))
            if d.get("readonly"):
                opt += ",readonly=on"
            argv += ["-drive", opt]
        if not self.reboot:
            argv.append("-no-reboot")
        return argv

    def start(self):
        argv = self.qemu_argv()
        with open(os.path.join(self.logdir, "qemu.cmd"), "w") as f:
            f.write(" ".join(argv) + "\n")
        self.qemu_log = open(os.path.join(self.logdir, "qemu.log"), "wb")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=self.qemu_log,
            stderr=subprocess.STDOUT,
            preexec_fn=None if self.host_thp else no_host_thp)
        self.qmp = QMP(os.path.join(self.tmp, "qmp.sock"))
        self.connect_ctl(os.path.join(self.tmp, "ctl.sock"))
        self.wait_ready()
        return self

    def connect_ctl(self, path):
        """Connect to ttyS1's socket (QEMU's server) at path."""
        deadline = time.monotonic() + self.boot_timeout
        while True:
            try:
                self.ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.ctl.connect(path)
                return
            except OSError:
                self.ctl.close()
                self._check_alive(deadline, "connecting to ttyS1")
                time.sleep(0.1)

    def wait_ready(self, timeout=None):
        """Wait for the guest agent's hello: after start(), or after the
        guest was told to reboot (reboot=True)."""
        timeout = timeout or self.boot_timeout
        t0 = time.monotonic()
        self._read_until(b"@@READY\n", t0 + timeout,
                         "waiting for the guest agent")
        self.boot_seconds = time.monotonic() - t0

    def stop(self):
        """Power the guest off; the QEMU process is gone afterwards."""
        if self.proc and self.proc.poll() is None:
            try:
                self.ctl.sendall(b"x " + base64.b64encode(b"poweroff -f") +
                                 b"\n")
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for s in (self.ctl, self.qmp):
            if s:
                s.close()
        if getattr(self, "qemu_log", None):
            self.qemu_log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def shutdown(self, timeout=600):
        """Shut the guest down as its init does (systemctl poweroff) and
        wait for QEMU to exit; start() boots it again from the same disks
        (set kernel and initrd first to boot another kernel).  The console
        log goes on: the earlier boots' text is kept for problems()."""
        self.sh("sync; (sleep 1; systemctl poweroff) >/dev/null 2>&1 &")
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise GuestError("no poweroff in %d s; console tail:\n%s" %
                             (timeout, self.console_text()[-3000:]))
        self.console_before = self.console_text()
        n = 1
        while os.path.exists("%s.%d" % (self.console, n)):
            n += 1
        shutil.copy(self.console, "%s.%d" % (self.console, n))
        for s in (self.ctl, self.qmp):
            if s:
                s.close()
        self.qemu_log.close()
        self.ctl = self.qmp = None
        self.rbuf = b""
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = tempfile.mkdtemp(prefix="guestmm.")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---- command channel ---------------------------------------------
    def console_text(self):
        """The serial console since start(), every boot of power_cycle()."""
        try:
            with open(self.console, "rb") as f:
                text = f.read().decode(errors="replace")
        except OSError:
            text = ""
        return self.console_before + text

    def _check_alive(self, deadline, what):
        if self.proc.poll() is not None:
            raise GuestError("QEMU exited (%d) while %s; console tail:\n%s" %
                             (self.proc.returncode, what,
                              self.console_text()[-3000:]))
        if time.monotonic() > deadline:
            raise GuestError("timeout while %s; console tail:\n%s" %
                             (what, self.console_text()[-3000:]))

    def _read_until(self, pattern, deadline, what):
        """Read ttyS1 until the bytes or regex `pattern` match; return the
        match (and keep what follows it buffered)."""
        rx = re.compile(re.escape(pattern) if isinstance(pattern, bytes)
                        else pattern)
        self.ctl.settimeout(0.5)
        while True:
            m = rx.search(self.rbuf)
            if m:
                before = self.rbuf[:m.start()]
                self.rbuf = self.rbuf[m.end():]
                return before, m
            self._check_alive(deadline, what)
            try:
                chunk = self.ctl.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                self._check_alive(time.monotonic() - 1, what + " (EOF)")
            self.rbuf += chunk

    def sh(self, script, timeout=120, check=True):
        """Run a shell script in the guest; return its output (stdout and
        stderr).  Raises CommandFailed on a non-zero exit when check."""
        nonce = secrets.token_hex(6)
        self.ctl.sendall(nonce.encode() + b" " +
                         base64.b64encode(script.encode()) + b"\n")
        out, m = self._read_until(
            re.compile(rb"\n@@DONE " + nonce.encode() + rb" (\d+)\n"),
            time.monotonic() + timeout, "running: " + script[:200])
        out = out.decode(errors="replace")
        rc = int(m.group(1))
        self.last_rc = rc
        if check and rc != 0:
            raise CommandFailed(script, rc, out)
        return out

    # ---- guest state ---------------------------------------------------
    def meminfo(self):
        """/proc/meminfo in kB (HugePages_* are counts)."""
        res = {}
        for line in self.sh("cat /proc/meminfo").splitlines():
            k, _, v = line.partition(":")
            if v.split():
                res[k.strip()] = int(v.split()[0])
        return res

    def vmstat(self):
        res = {}
        for line in self.sh("cat /proc/vmstat").splitlines():
            k, _, v = line.partition(" ")
            if v.strip().lstrip("-").isdigit():
                res[k] = int(v)
        return res

    def dmesg(self):
        return self.sh("dmesg", timeout=60)

    def problems(self):
        """Kernel log lines that fail a test: from dmesg when the guest
        still answers, and from the console in any case."""
        text = self.console_text()
        if self.proc and self.proc.poll() is None:
            try:
                text += "\n" + self.dmesg()
            except GuestError:
                pass
        seen, res = set(), []
        for l in kernel_problems(text):
            key = re.sub(r"^\[[ 0-9.]+\] ", "", l)
            if key not in seen:
                seen.add(key)
                res.append(l)
        return res

    # ---- host side: QMP -------------------------------------------------
    def balloon(self, target_bytes):
        """Ask the balloon for a guest size of target_bytes."""
        self.qmp.cmd("balloon", value=int(target_bytes))

    def query_balloon(self):
        """The guest size the device reports (RAM minus balloon), bytes."""
        return self.qmp.cmd("query-balloon")["actual"]

    def wait_balloon(self, target_bytes, timeout=120, tolerance=0, poll=0.5):
        """Poll query-balloon (every `poll` seconds) until it is within
        tolerance of the target; return the last value (raise on timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            actual = self.query_balloon()
            if abs(actual - target_bytes) <= tolerance:
                return actual
            self._check_alive(deadline, "waiting for balloon %d (at %d)" %
                              (target_bytes, actual))
            time.sleep(poll)

    def guest_stats(self, interval=1, wait=True):
        """The device's guest-stats (stat name -> value).  Turns polling on
        and, when wait, waits until a fresh update arrives."""
        path = "/machine/peripheral/balloon0"
        self.qmp.cmd("qom-set", path=path,
                     property="guest-stats-polling-interval", value=interval)
        first = self.qmp.cmd("qom-get", path=path, property="guest-stats")
        deadline = time.monotonic() + 30
        while wait:
            st = self.qmp.cmd("qom-get", path=path, property="guest-stats")
            if st["last-update"] > first["last-update"]:
                return st["stats"]
            self._check_alive(deadline, "waiting for guest-stats")
            time.sleep(0.3)
        return first["stats"]

    def qemu_memory(self):
        """QEMU's RSS and AnonHugePages in kB (smaps_rollup)."""
        res = {}
        with open("/proc/%d/smaps_rollup" % self.proc.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("Rss", "AnonHugePages"):
                    res[k] = int(v.split()[0])
        return res


TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def artifacts(kernel="6.1"):
    """(abi, vmlinuz, initramfs) for a kernel series or ABI, as built by
    `make guest KERNEL=...`."""
    ksh = os.path.join(TOP, "scripts", "guest", "kernel.sh")
    abi = subprocess.run([ksh, "abi", kernel], check=True,
                         capture_output=True, text=True).stdout.strip()
    kroot = subprocess.run([ksh, "fetch", abi], check=True,
                           capture_output=True, text=True).stdout.strip()
    initrd = os.path.join(TOP, "build", abi, "initramfs.cpio.gz")
    if not os.path.exists(initrd):
        raise GuestError("%s missing: run `make guest KERNEL=%s` first" %
                         (initrd, kernel))
    return abi, os.path.join(kroot, "boot", "vmlinuz-" + abi), initrd

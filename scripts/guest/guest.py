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
    ram_extra_kb  RAM beyond mem MiB, in KiB (0; a multiple of 8: QEMU
              rounds RAM up to 8 KiB).  A migrated guest under TCG needs 8
              (see migrate()): its RAM size must not be a multiple of
              256 KiB.
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

from qmp import QMP, QMPError

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
    """Whether guests run under KVM: only when GUESTMM_KVM=1 asks for it
    and /dev/kvm is writable.  Nothing is probed: KVM guests hang on
    these machines, so TCG is the default and guestmm never depends on
    KVM."""
    return os.environ.get("GUESTMM_KVM") == "1" and os.access("/dev/kvm",
                                                              os.W_OK)


class Guest:
    # Host-time bounds a case asserts (a response within 5 s) are
    # multiplied by this; the test runner raises it for slow kernels.
    time_scale = 1

    def __init__(self, kernel, initrd, logdir, mem=1024, smp=2, numa=0,
                 balloon=None, disk_mb=0, mods=(), append="", drives=(),
                 reboot=False, boot_timeout=180, tcg_single=False,
                 icount=None, objects=(), dimms=(), host_thp=True,
                 ram_extra_kb=0, hotplug=()):
        self.kernel, self.initrd, self.logdir = kernel, initrd, logdir
        # Hot-pluggable memory: one pc-dimm of each size (MiB), present
        # from boot; the guest onlines it (memhp_default_state=).
        self.dimms = list(dimms)
        # Slots (and maxmem) for pc-dimms of these sizes (MiB), absent at
        # boot: plug_dimm(i) adds one while the guest runs.
        self.hotplug = list(hotplug)
        self.mem, self.smp, self.numa = mem, smp, numa
        assert ram_extra_kb % 8 == 0, "QEMU rounds RAM up to 8 KiB"
        self.ram_extra_kb = ram_extra_kb
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
        self.fresh_tmp()
        self.migrations = []        # migrate()'s figures, one per migration

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

    def ram_bytes(self):
        """The guest's boot RAM in bytes: mem MiB and ram_extra_kb KiB."""
        return (self.mem << 20) + (self.ram_extra_kb << 10)

    def mem_arg(self):
        size = "%dk" % (self.ram_bytes() >> 10) if self.ram_extra_kb else \
            str(self.mem)
        if not self.dimms and not self.hotplug:
            return size
        return "%s,slots=%d,maxmem=%dk" % (
            size, len(self.dimms) + len(self.hotplug),
            (self.ram_bytes() >> 10) +
            (sum(self.dimms + self.hotplug) << 10))

    def plug_dimm(self, i=0):
        """Hot-add the pc-dimm of hotplug[i] (QMP object-add, device_add),
        as an operator grows a running guest.  Returns its (first pfn,
        end pfn); the guest onlines it as memhp_default_state= says."""
        mib = self.hotplug[i]
        self.qmp.cmd("object-add", **{"qom-type": "memory-backend-ram",
                                      "id": "hpmem%d" % i,
                                      "size": mib << 20})
        self.qmp.cmd("device_add", driver="pc-dimm", id="hpdimm%d" % i,
                     memdev="hpmem%d" % i)
        for d in self.qmp.cmd("query-memory-devices"):
            if d["data"].get("id") == "hpdimm%d" % i:
                return d["data"]["addr"] >> 12, \
                    (d["data"]["addr"] + d["data"]["size"]) >> 12
        raise GuestError("pc-dimm hpdimm%d not in query-memory-devices" % i)

    def qemu_argv(self, console=None, sockdir=None):
        """QEMU's command line; console and sockdir (the directory of the
        ctl and QMP sockets) default to this guest's own, a migration's
        destination passes its own."""
        console = console or self.console
        sockdir = sockdir or self.sockdir
        argv = ["qemu-system-x86_64", "-accel",
                "kvm" if kvm_usable() else
                "tcg,thread=single" if self.tcg_single else "tcg",
                "-m", self.mem_arg(), "-smp", self.smp_topology(),
                "-nodefaults", "-display", "none",
                "-kernel", self.kernel, "-initrd", self.initrd,
                "-append", self.cmdline(),
                "-chardev", "file,id=con,path=" + console,
                "-serial", "chardev:con",
                "-chardev", "socket,id=ctl,path=%s/ctl.sock,server=on,"
                "wait=off" % sockdir,
                "-serial", "chardev:ctl",
                "-qmp", "unix:%s/qmp.sock,server=on,wait=off" % sockdir]
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
            # Made once per boot: a migration's destination shares it.
            img = os.path.join(self.tmp, "disk.img")
            if not os.path.exists(img):
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
        self.qmp = QMP(os.path.join(self.sockdir, "qmp.sock"))
        self.connect_ctl(os.path.join(self.sockdir, "ctl.sock"))
        self.wait_ready()
        return self

    def connect_ctl(self, path, proc=None):
        """Connect to ttyS1's socket (QEMU's server) at path; proc: the
        QEMU that serves it (a migration's destination), else self.ctl is
        set."""
        deadline = time.monotonic() + self.boot_timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                break
            except OSError:
                sock.close()
                if proc is None:
                    self._check_alive(deadline, "connecting to ttyS1")
                elif proc.poll() is not None or \
                        time.monotonic() > deadline:
                    raise GuestError("destination QEMU: no ttyS1 at %s "
                                     "(exit %s)" % (path, proc.poll()))
                time.sleep(0.1)
        if proc is None:
            self.ctl = sock
        return sock

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
        self.fresh_tmp()

    def fresh_tmp(self):
        """A new temporary directory for QEMU's sockets and disks, at
        construction and after shutdown(); sockdir, where start() puts
        QMP and ttyS1, is in it (a migration's destination has its own)."""
        self.tmp = tempfile.mkdtemp(prefix="guestmm.")
        self.sockdir = self.tmp

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
            except ConnectionResetError:
                chunk = b""     # QEMU died: EOF
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

    def ram_memory(self):
        """Rss and AnonHugePages in kB of QEMU's mappings of the guest's
        boot RAM alone (smaps: the mappings whose size is that RAM's, one
        per NUMA node), without what QEMU holds for itself: under TCG its
        translation buffer grows to 1 GiB of RSS as the guest runs new
        code, which no guest policy returns."""
        nodes = self.numa or 1
        want = self.ram_bytes() // nodes >> 10
        res, size, found = {"Rss": 0, "AnonHugePages": 0}, None, 0
        with open("/proc/%d/smaps" % self.proc.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k == "Size":
                    size = int(v.split()[0])
                    found += size == want
                elif k in res and size == want:
                    res[k] += int(v.split()[0])
        if found != nodes:
            raise GuestError("%d mappings of %d kB in QEMU's smaps, not %d "
                             "(the guest's RAM)" % (found, want, nodes))
        return res


    # ---- live migration -------------------------------------------------
    def migrate(self, during=None, bandwidth=8 << 30, timeout=600):
        """Live-migrate the guest to a second QEMU on this host and go on
        with it there; the source is gone afterwards.

        The destination runs the source's command line plus `-incoming
        defer`, with its own QMP and ttyS1 sockets (in a directory of its
        own) and its own console log, console.dstN.log (qemu.dstN.cmd,
        qemu.dstN.log; N counts this guest's migrations).  The stream
        goes over a unix socket: migrate-incoming on the destination,
        max-bandwidth (bytes/s) on the source, migrate, then
        query-migrate until it completes.  during(self), if given, runs
        once the source has begun, while the migration is active:
        host-side work (QMP on self.qmp, the source's) that must overlap
        the migration.  It must not use sh(): a reply may leave from
        either side.  Start guest-side work before migrate() instead, in
        the background.

        The guest agent on ttyS1 just goes on on the destination: its
        UART's state and the guest's shell move with the RAM.  The host
        connects to the destination's ttyS1 before the migration starts
        (QEMU drops what a serial port sends while no client is
        connected), and after it keeps what the source had sent and the
        host not yet read, so an answer that left in pieces from both
        sides is whole.  Commands must not be sent while it runs: bytes
        the source had not delivered to its UART would die with it.

        Under TCG, QEMU before 9.0 loses guest writes on a migration of
        a RAM block whose size is a multiple of 256 KiB (64 pages): its
        dirty bitmap sync takes such a block a word of 64 pages at a
        time (cpu_physical_memory_sync_dirty_bitmap()'s fast path) and
        then does not re-arm the vCPUs' TLB entries (TLB_NOTDIRTY), so a
        page written through an entry made before the sync is not marked
        dirty again and the destination gets its old content (fixed by
        QEMU 9.0's "physmem: Fix migration dirty bitmap coherency with
        TCG memory access").  Other sizes are synced page by page, the
        path that re-arms them.  So on such a QEMU a TCG guest must have
        ram_extra_kb (8), and no NUMA nodes or DIMMs (memory backends of
        whole MiB); migrate() refuses it otherwise.

        Returns, and appends to self.migrations, query-migrate's figures:
        total_ms, downtime_ms, setup_ms, ram_transferred, ram_total,
        ram_duplicate (zero pages), ram_normal (pages sent whole),
        dirty_syncs, mbps; and host_s (migrate to running on the
        destination, host time)."""
        self._check_migratable()
        n = len(self.migrations) + 1
        ddir = os.path.join(self.tmp, "dst%d" % n)
        os.makedirs(ddir)
        console = os.path.join(self.logdir, "console.dst%d.log" % n)
        argv = self.qemu_argv(console=console, sockdir=ddir) + [
            "-incoming", "defer"]
        with open(os.path.join(self.logdir, "qemu.dst%d.cmd" % n), "w") as f:
            f.write(" ".join(argv) + "\n")
        log = open(os.path.join(self.logdir, "qemu.dst%d.log" % n), "wb")
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=None if self.host_thp else no_host_thp)
        qmp = ctl = None
        try:
            qmp = QMP(os.path.join(ddir, "qmp.sock"))
            ctl = self.connect_ctl(os.path.join(ddir, "ctl.sock"), proc=proc)
            uri = "unix:" + os.path.join(ddir, "migrate.sock")
            qmp.cmd("migrate-incoming", uri=uri)
            self.qmp.cmd("migrate-set-parameters",
                         **{"max-bandwidth": int(bandwidth)})
            t0 = time.monotonic()
            self.qmp.cmd("migrate", uri=uri)
            if during:
                during(self)
            info = self._wait_migrated(proc, console, t0 + timeout)
            while qmp.cmd("query-status")["status"] != "running":
                if proc.poll() is not None or time.monotonic() > t0 + timeout:
                    raise GuestError("destination not running after the "
                                     "migration (exit %s)" % proc.poll())
                time.sleep(0.05)
            host_s = time.monotonic() - t0
        except BaseException:
            for s in (qmp, ctl):
                if s:
                    s.close()
            proc.kill()
            proc.wait()
            log.close()
            raise
        self._drain_source_ctl()
        self._end_source()
        self.console_before = self.console_text()
        self.console = console
        self.proc, self.qmp, self.ctl, self.qemu_log = proc, qmp, ctl, log
        self.sockdir = ddir
        ram = info.get("ram", {})
        res = dict(total_ms=info.get("total-time", 0),
                   downtime_ms=info.get("downtime", 0),
                   setup_ms=info.get("setup-time", 0),
                   ram_transferred=ram.get("transferred", 0),
                   ram_total=ram.get("total", 0),
                   ram_duplicate=ram.get("duplicate", 0),
                   ram_normal=ram.get("normal", 0),
                   dirty_syncs=ram.get("dirty-sync-count", 0),
                   mbps=ram.get("mbps", 0), host_s=round(host_s, 2))
        self.migrations.append(res)
        return res

    def _check_migratable(self):
        """Refuse a migration this QEMU would corrupt (see migrate())."""
        if kvm_usable():
            return
        v = self.qmp.cmd("query-version")["qemu"]
        if (v["major"], v["minor"]) >= (9, 0):
            return
        if self.ram_bytes() % (256 << 10) == 0 or self.numa or self.dimms \
                or self.hotplug:
            raise GuestError(
                "QEMU %d.%d under TCG loses guest writes when it migrates "
                "RAM blocks of a multiple of 256 KiB: give the guest "
                "ram_extra_kb=8 and no NUMA nodes or DIMMs" % (
                    v["major"], v["minor"]))

    def _wait_migrated(self, dest, dest_console, deadline):
        """Poll the source's query-migrate until completed; raise with
        both sides' console tails if it fails or the destination dies."""
        while True:
            info = self.qmp.cmd("query-migrate")
            status = info.get("status")
            if status == "completed":
                return info
            why = None
            if status in ("failed", "cancelled"):
                why = "migration %s: %s" % (status, info.get("error-desc"))
            elif dest.poll() is not None:
                why = "destination QEMU exited (%d)" % dest.returncode
            elif self.proc.poll() is not None:
                why = "source QEMU exited (%d)" % self.proc.returncode
            elif time.monotonic() > deadline:
                why = "migration still %s at the timeout" % status
            if why:
                try:
                    with open(dest_console, errors="replace") as f:
                        tail = f.read()[-3000:]
                except OSError:
                    tail = ""
                raise GuestError("%s; source console tail:\n%s\n"
                                 "destination console tail:\n%s" % (
                                     why, self.console_text()[-3000:], tail))
            time.sleep(0.05)

    def _drain_source_ctl(self):
        """Keep what the paused source's ttyS1 socket still holds."""
        self.ctl.settimeout(0.2)
        while True:
            try:
                chunk = self.ctl.recv(65536)
            except (socket.timeout, OSError):
                break
            if not chunk:
                break
            self.rbuf += chunk

    def _end_source(self):
        """Quit the source QEMU (paused since the migration completed)."""
        try:
            self.qmp.cmd("quit")
        except (OSError, QMPError):
            pass        # it may close the socket before it answers
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for s in (self.ctl, self.qmp):
            s.close()
        self.qemu_log.close()


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

# SPDX-License-Identifier: GPL-2.0
"""A guestmm test guest run by libvirt (qemu:///system) instead of a QEMU
child of the test: for cases that check what a libvirt host sees.

    GUEST_CLASS = LibvirtGuest          # in a case file (tests/run)
    GUEST = dict(mem=1024, smp=1, mods=["guestmm_balloon"],
                 memballoon="<memballoon model='virtio' .../>")

The domain is transient (`virsh create`), <domain type='qemu'> (TCG),
booted directly from the case's kernel and initramfs with the command line
Guest.cmdline() builds; ttyS0 goes to console.log (libvirt opens the file
itself and hands QEMU the descriptor), ttyS1 is a unix socket that libvirt
listens on, so Guest.sh() and everything built on it work unchanged.  The
balloon goes through virsh: balloon() is `setmem --live`, query_balloon()
is dommemstat's `actual`.  There is no QMP socket of our own
(guest_stats(): use dommemstat()).

Files.  QEMU runs as libvirt-qemu, which cannot read the kernel under
/root/.cache, so kernel and initramfs are copied into a fresh directory
under /var/lib/libvirt/images (0711 root: reachable, not listable).  The
domain has <seclabel type='none' model='dac'/>: libvirt's DAC driver
would otherwise chown the kernel, initramfs and console log to
libvirt-qemu while the domain runs (dynamic_ownership), and chown them
back to root afterwards; no global qemu.conf change is needed.

Daemons.  Without systemd nothing starts libvirtd: start() starts
virtlogd and libvirtd (`-d`) when no daemon answers on qemu:///system,
and stop() stops exactly the daemons it started, by their pid files, so a
machine is left as it was found (a libvirtd that was already running is
left alone).

Not supported (GuestError): numa, disks, drives, dimms, objects, icount,
and more than one vCPU with tcg_single (libvirt 9.0 writes `-accel tcg`
itself and has no element for thread=single; a second -accel would be
ignored by QEMU, the first one that works wins).
"""
import base64
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import time

import guest

URI = "qemu:///system"
IMAGES = "/var/lib/libvirt/images"
QEMU_LOGS = "/var/log/libvirt/qemu"
DAEMONS = (("virtlogd", "/run/virtlogd.pid"),
           ("libvirtd", "/run/libvirtd.pid"))
# Debian's libvirt-daemon-system; libvirt-daemon + libvirt-daemon-driver-qemu
# alone lack the libvirt-qemu user, and the qemu driver then fails to start.
PACKAGES = "libvirt-daemon-system libvirt-clients"


def virsh(*args, timeout=120, check=True):
    """Run virsh on qemu:///system; its stdout (GuestError on failure)."""
    try:
        r = subprocess.run(["virsh", "-c", URI] + list(args),
                           capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise guest.GuestError("virsh not found: apt-get install %s" %
                               PACKAGES)
    except subprocess.TimeoutExpired:
        raise guest.GuestError("virsh %s: no answer in %d s" %
                               (" ".join(args), timeout))
    if check and r.returncode:
        raise guest.GuestError("virsh %s failed (%d): %s" % (
            " ".join(args), r.returncode,
            (r.stderr.strip() or r.stdout.strip())))
    return r.stdout


def parse_pairs(text):
    """`key value` lines (dommemstat) as a dict of integers."""
    res = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 2 and f[1].lstrip("-").isdigit():
            res[f[0]] = int(f[1])
    return res


def _pid_of(pidfile, comm=None):
    """The pid in pidfile if that process runs (and is called comm)."""
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/comm" % pid) as f:
            name = f.read().strip()
    except (OSError, ValueError):
        return None
    return pid if comm is None or name == comm else None


def _libvirt_answers():
    return subprocess.run(["virsh", "-c", URI, "version"],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def ensure_daemons(timeout=60):
    """Start virtlogd and libvirtd unless qemu:///system answers already;
    return the pids of those started here."""
    if shutil.which("libvirtd") is None or shutil.which("virsh") is None:
        raise guest.GuestError("libvirt is not installed: apt-get install "
                               "--no-install-recommends %s (make deps)" %
                               PACKAGES)
    if _libvirt_answers():
        return []
    if os.geteuid() != 0:
        raise guest.GuestError("qemu:///system does not answer and only "
                               "root can start libvirtd")
    os.makedirs(QEMU_LOGS, exist_ok=True)
    started = []
    for name, pidfile in DAEMONS:
        if _pid_of(pidfile, name):
            continue
        subprocess.run([name, "-d"], check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while not _pid_of(pidfile, name):
            if time.monotonic() > deadline:
                raise guest.GuestError("%s -d did not write %s" %
                                       (name, pidfile))
            time.sleep(0.1)
        started.append((name, _pid_of(pidfile, name)))
    deadline = time.monotonic() + timeout
    while not _libvirt_answers():
        if time.monotonic() > deadline:
            stop_daemons(started)
            raise guest.GuestError("libvirtd started but %s does not answer "
                                   "(see /var/log/libvirt/libvirtd.log)" %
                                   URI)
        time.sleep(0.2)
    return started


def stop_daemons(started):
    """SIGTERM the daemons ensure_daemons() started (libvirtd first)."""
    for name, pid in reversed(started):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        deadline = time.monotonic() + 15
        while os.path.exists("/proc/%d" % pid) and \
                time.monotonic() < deadline:
            time.sleep(0.1)


class DomainProcess:
    """What Guest needs of subprocess.Popen, for the domain's QEMU (a child
    of libvirtd, so no exit status: 0 once it is gone)."""

    def __init__(self, pid, name):
        self.pid, self.name, self.returncode = pid, name, None

    def poll(self):
        if self.returncode is None:
            try:
                with open("/proc/%d/cmdline" % self.pid, "rb") as f:
                    alive = (b"guest=%s," % self.name.encode()) in f.read()
            except OSError:
                alive = False
            if not alive:
                self.returncode = 0
        return self.returncode

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired("qemu", timeout)
            time.sleep(0.1)
        return self.returncode


class LibvirtGuest(guest.Guest):
    def __init__(self, *args, memballoon="<memballoon model='virtio'/>",
                 **kw):
        super().__init__(*args, **kw)
        unsupported = [k for k in ("numa", "disk_mb", "drives", "dimms",
                                   "objects", "icount")
                       if getattr(self, k, None)]
        if self.tcg_single and self.smp > 1:
            unsupported.append("tcg_single with smp > 1")
        if unsupported:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise guest.GuestError("LibvirtGuest does not support: " +
                                   ", ".join(unsupported))
        self.memballoon = memballoon
        self.name = "guestmm-%s" % secrets.token_hex(4)
        self.started_daemons = []
        self.create_seconds = None

    # ---- life cycle -------------------------------------------------
    def domain_xml(self, kernel, initrd, ctl):
        esc = lambda s: (s.replace("&", "&amp;").replace("<", "&lt;")
                         .replace("'", "&apos;"))
        return """<domain type='qemu'>
  <name>{name}</name>
  <memory unit='MiB'>{mem}</memory>
  <currentMemory unit='MiB'>{mem}</currentMemory>
  <vcpu>{smp}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{kernel}</kernel>
    <initrd>{initrd}</initrd>
    <cmdline>{cmdline}</cmdline>
  </os>
  <features><acpi/></features>
  <cpu><topology sockets='1' dies='1' cores='{smp}' threads='1'/></cpu>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>{reboot}</on_reboot>
  <on_crash>destroy</on_crash>
  <seclabel type='none' model='dac'/>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <controller type='usb' model='none'/>
    <serial type='file'>
      <source path='{console}'/>
      <target port='0'/>
    </serial>
    <serial type='unix'>
      <source mode='bind' path='{ctl}'/>
      <target port='1'/>
    </serial>
    {memballoon}
  </devices>
</domain>
""".format(name=self.name, mem=self.mem, smp=self.smp, kernel=esc(kernel),
           initrd=esc(initrd), cmdline=esc(self.cmdline()),
           reboot="restart" if self.reboot else "destroy",
           console=esc(os.path.abspath(self.console)), ctl=esc(ctl),
           memballoon=self.memballoon)

    def start(self):
        self.started_daemons = ensure_daemons()
        # Our own directory instead of Guest's /tmp one: QEMU (libvirt-qemu)
        # reads the kernel and initramfs from it.
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = tempfile.mkdtemp(prefix="guestmm.", dir=IMAGES)
        os.chmod(self.tmp, 0o755)
        kernel = os.path.join(self.tmp, "vmlinuz")
        initrd = os.path.join(self.tmp, "initrd")
        for src, dst in ((self.kernel, kernel), (self.initrd, initrd)):
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o644)
        ctl = os.path.join(self.tmp, "ctl.sock")
        # libvirt opens the console with append=on: start it empty.
        open(self.console, "w").close()
        xml = os.path.join(self.logdir, "domain.xml")
        with open(xml, "w") as f:
            f.write(self.domain_xml(kernel, initrd, ctl))
        t0 = time.monotonic()
        virsh("create", xml, timeout=max(600, self.boot_timeout))
        self.create_seconds = time.monotonic() - t0
        pid = os.path.join("/run/libvirt/qemu", self.name + ".pid")
        qpid = _pid_of(pid)
        if qpid is None:
            raise guest.GuestError("domain %s created but %s names no "
                                   "process" % (self.name, pid))
        self.proc = DomainProcess(qpid, self.name)
        self.connect_ctl(ctl)
        self.wait_ready()
        return self

    def qemu_command(self):
        """The QEMU command line libvirt wrote to the domain's log."""
        try:
            with open(os.path.join(QEMU_LOGS, self.name + ".log")) as f:
                text = f.read()
        except OSError:
            return ""
        m = re.search(r"^(\S*qemu-system-\S+ \\\n(?:.*\\\n)*.*)$", text, re.M)
        return m.group(1).replace(" \\\n", " ") if m else ""

    def stop(self):
        """Power the guest off (virsh destroy if it does not go); the
        domain is gone afterwards, and so are the daemons start() started."""
        if self.proc and self.proc.poll() is None:
            try:
                self.ctl.sendall(b"x " + base64.b64encode(b"poweroff -f") +
                                 b"\n")
                self.proc.wait(timeout=20)
            except (OSError, AttributeError, subprocess.TimeoutExpired):
                pass
        try:
            if self.name in virsh("list", "--name", check=False).split():
                virsh("destroy", self.name, check=False)
        except guest.GuestError:
            pass
        if self.ctl:
            self.ctl.close()
            self.ctl = None
        try:
            shutil.copyfile(os.path.join(QEMU_LOGS, self.name + ".log"),
                            os.path.join(self.logdir, "qemu.log"))
        except OSError:
            pass
        shutil.rmtree(self.tmp, ignore_errors=True)
        stop_daemons(self.started_daemons)
        self.started_daemons = []

    # ---- host side: virsh -----------------------------------------------
    def dommemstat(self):
        """`virsh dommemstat`: tag -> value (KiB, counts, seconds)."""
        return parse_pairs(virsh("dommemstat", self.name))

    def balloon(self, target_bytes):
        """`virsh setmem --live`: ask for a guest size of target_bytes."""
        if target_bytes % 1024:
            raise ValueError("setmem takes KiB: %d" % target_bytes)
        virsh("setmem", self.name, str(target_bytes // 1024), "--live")

    def query_balloon(self):
        """dommemstat's `actual` (QEMU's query-balloon), in bytes."""
        return self.dommemstat()["actual"] * 1024

    def guest_stats(self, interval=1, wait=True):
        raise guest.GuestError("LibvirtGuest has no QMP: use dommemstat()")

    def qemu_memory(self):
        if self.proc is None:
            return {}
        return super().qemu_memory()

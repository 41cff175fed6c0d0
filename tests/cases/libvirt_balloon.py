# SPDX-License-Identifier: GPL-2.0
"""libvirt as the client: on a guestmm_balloon guest run by Debian's libvirt, virsh setmem is exact, dommemstat matches /proc/meminfo, a target below the floor stops at the floor, and autodeflate keeps the guest alive.

The guest is a transient TCG domain (tests/lib/libvirtguest.py) with

    <memballoon model='virtio' autodeflate='on' freePageReporting='on'>
      <stats period='2'/>
    </memballoon>

and guestmm_balloon loaded at boot (gmm.mods=).  The case checks the QEMU
command line libvirt generated (virtio-balloon-pci with deflate-on-oom and
free-page-reporting), that guestmm_balloon drives the device with STATS_VQ,
DEFLATE_ON_OOM and REPORTING, then, only through virsh:

1. dommemstat shows all ten stat tags QEMU 7.2 passes on, refreshed every
   2 s, equal to the guest's /proc/meminfo and /proc/vmstat (see TOL_KIB);
2. setmem 768 MiB: dommemstat `actual` reaches it exactly (and dominfo,
   and the driver's num_pages), the stats follow;
3. setmem 64 MiB, below the automatic floor: the balloon stops with the
   guest keeping exactly the floor; `actual` stays there, above the target,
   with no error anywhere on the host side (docs/balloon.md, "libvirt");
4. setmem 324 MiB, then a process allocates 150 MiB more than MemAvailable:
   it survives, nothing is OOM-killed, the balloon shrinks and `actual`
   says so; after the process ends the balloon grows back towards the
   target by itself (not all the way: docs/balloon.md, "libvirt").

Expected duration: about 2 minutes on the 2-core TCG host (105-125 s),
50-59 s of it in `virsh create`: there libvirtd re-probes QEMU's
capabilities about 24 times, because /dev/kvm exists but is not accessible
to libvirt-qemu, which makes libvirt call its capability cache stale at
every lookup ("KVM was enabled when probing ... but it is not available
now" at debug level).  Without that (no /dev/kvm, or one libvirt-qemu can
open) the create should take seconds; not measured here.  Needs root (it
starts virtlogd and libvirtd when qemu:///system does not answer, and stops
what it started).
"""
import re
import time

from balloonlib import MIB, state
from libvirtguest import LibvirtGuest, virsh
from workloads import FRAG_KEEP_ALL, frag_start, frag_stop

MEMBALLOON = ("<memballoon model='virtio' autodeflate='on' "
              "freePageReporting='on'><stats period='2'/></memballoon>")
GUEST_CLASS = LibvirtGuest
# One vCPU: one TCG thread, what tcg_single gives the QEMU guests (libvirt
# cannot ask for thread=single; libvirtguest.py).
GUEST = dict(mem=1024, smp=1, tcg_single=True, mods=["guestmm_balloon"],
             memballoon=MEMBALLOON)
KERNELS = ("6.1",)
# Host-time bounds, so not light; one TCG thread, so beside one other
# one-core case (tests/run -j 2), each on a core of its own.
ONE_CORE = True
TIMEOUT = 900

PERIOD = 2
# The ten tags QEMU 7.2 passes on (guestmm_balloon sends sixteen), under
# libvirt's names; `actual`, `last_update` and `rss` are libvirt's own.
TAGS = ("swap_in", "swap_out", "major_fault", "minor_fault", "unused",
        "available", "usable", "disk_caches", "hugetlb_pgalloc",
        "hugetlb_pgfail")
# A sample is up to one period (2 s) older than our /proc read after it,
# plus the time virsh and the agent take.  In between, the idle guest runs
# only the agent's shell and cat; MemFree and MemAvailable move by what
# those allocate and what the per-CPU page lists hold back.  Seen: 0 KiB
# in every run (KEY libvirt_stats *_diff).  8 MiB leaves room for a busier
# guest,
# and far below anything a wrong source or unit would give (a 4 KiB unit
# error is a factor of 4, bytes for KiB a factor of 1024).
TOL_KIB = 8 * 1024
# Minor faults: the agent's forks fault between the sample and our read.
TOL_MINFLT = 20000


def fresh_stats(g, timeout=3 * PERIOD + 10):
    """dommemstat right after a new stats sample came in, then the guest's
    /proc/meminfo and /proc/vmstat."""
    first = g.dommemstat()
    deadline = time.monotonic() + timeout
    while True:
        st = g.dommemstat()
        if st.get("last_update", 0) > first.get("last_update", 0):
            break
        assert time.monotonic() < deadline, \
            "no stats update in %d s: %s" % (timeout, st)
        time.sleep(0.2)
    return st, g.meminfo(), g.vmstat()


def check_stats(st, mi, vm):
    """Every tag against the guest's own view; the differences."""
    missing = [t for t in TAGS if t not in st]
    assert not missing, ("dommemstat lacks %s" % missing, st)
    d = {"free_diff": st["unused"] - mi["MemFree"],
         "avail_diff": st["usable"] - mi["MemAvailable"],
         "caches_diff": st["disk_caches"] - vm["nr_file_pages"] * 4,
         "minflt_diff": vm["pgfault"] - st["minor_fault"]}
    assert st["available"] == mi["MemTotal"], (st, mi)
    assert abs(d["free_diff"]) <= TOL_KIB, (d, st, mi)
    assert abs(d["avail_diff"]) <= TOL_KIB, (d, st, mi)
    assert abs(d["caches_diff"]) <= TOL_KIB, (d, st, vm)
    assert st["swap_in"] == vm["pswpin"] * 4, (st, vm)
    assert st["swap_out"] == vm["pswpout"] * 4, (st, vm)
    assert 0 <= vm["pgmajfault"] - st["major_fault"] <= 100, (st, vm)
    assert 0 <= d["minflt_diff"] <= TOL_MINFLT, (d, st, vm)
    assert st["hugetlb_pgalloc"] == vm["htlb_buddy_alloc_success"], (st, vm)
    assert st["hugetlb_pgfail"] == vm["htlb_buddy_alloc_fail"], (st, vm)
    return d


def balloon_device(g):
    """(driver, features bit string) of the virtio balloon (device id 5)."""
    out = g.sh("for d in /sys/bus/virtio/devices/*; do "
               "[ \"$(cat $d/device)\" = 0x0005 ] || continue; "
               "echo $(basename $(readlink $d/driver)) $(cat $d/features); "
               "done")
    lines = out.split("\n")
    lines = [l for l in lines if l.strip()]
    assert len(lines) == 1, "not one balloon device: %r" % out
    drv, feat = lines[0].split()
    return drv, feat


def libvirt_view(g):
    """libvirt's own record of the balloon: dominfo's Used memory and the
    live XML's currentMemory, KiB."""
    m = re.search(r"^Used memory:\s+(\d+) KiB", virsh("dominfo", g.name),
                  re.M)
    x = re.search(r"<currentMemory unit='KiB'>(\d+)<",
                  virsh("dumpxml", g.name))
    assert m and x, "no Used memory in dominfo or currentMemory in the XML"
    return int(m.group(1)), int(x.group(1))


def wait_libvirt_view(g, kib, timeout=10):
    """libvirt updates that record from QEMU's BALLOON_CHANGE events, which
    QEMU sends at most once a second: wait until both equal kib; return
    how long it took."""
    t0 = time.monotonic()
    while True:
        view = libvirt_view(g)
        if view == (kib, kib):
            return time.monotonic() - t0
        assert time.monotonic() - t0 < timeout, \
            "libvirt's record %s is not %d KiB" % (view, kib)
        time.sleep(0.2)


def settle(g, timeout=120, quiet=6):
    """dommemstat's actual once it has not changed for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while True:
        actual = g.query_balloon()
        if actual != last:
            last, since = actual, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return actual
        assert time.monotonic() < deadline, "actual never settled: %d" % last
        time.sleep(0.5)


def consistent_state(g):
    """(driver state, host actual) read so that num_pages did not change
    around the virsh call."""
    for _ in range(10):
        st = state(g)
        actual = g.query_balloon()
        if state(g)["num_pages"] == st["num_pages"]:
            return st, actual
        time.sleep(0.5)
    raise AssertionError("num_pages keeps changing")


def run(g):
    ram = g.mem * MIB
    # --- what libvirt made of the XML ------------------------------------
    cmd = g.qemu_command()
    dev = re.search(r"virtio-balloon-pci[^ ]*", cmd)
    assert dev, "no virtio-balloon-pci in libvirt's QEMU command:\n" + cmd
    for prop in ("deflate-on-oom", "free-page-reporting"):
        assert re.search(r'"%s":true|%s=on' % (prop, prop), dev.group(0)), \
            (prop, dev.group(0))
    assert re.search(r"-accel tcg\b|accel=tcg", cmd), cmd
    drv, feat = balloon_device(g)
    assert drv == "guestmm_balloon", drv
    # VIRTIO_BALLOON_F_STATS_VQ 1, DEFLATE_ON_OOM 2, REPORTING 5
    assert feat[1] == feat[2] == feat[5] == "1", feat
    st0 = state(g)
    assert st0["adjust_managed"] == 0 and st0["reporting"] == 1, st0
    print("KEY libvirt_balloon create_s=%.1f boot_s=%.1f driver=%s "
          "features=%s" % (g.create_seconds, g.boot_seconds, drv, feat[:8]),
          flush=True)

    # --- 1. stats -----------------------------------------------------
    s1, mi1, vm1 = fresh_stats(g)
    d1 = check_stats(s1, mi1, vm1)
    s2, mi2, vm2 = fresh_stats(g)
    d2 = check_stats(s2, mi2, vm2)
    period = s2["last_update"] - s1["last_update"]
    # Two samples in a row, PERIOD apart (whole seconds: 2, 3 or 4 when a
    # round was late).
    assert PERIOD <= period <= 2 * PERIOD, (s1, s2)
    assert abs(s2["last_update"] - time.time()) <= 10, s2
    req = state(g)["stats_requests"]
    assert req >= 2, req
    print("KEY libvirt_stats tags=%d period_s=%d total_kib=%d "
          "free_diff_kib=%d,%d avail_diff_kib=%d,%d caches_diff_kib=%d,%d "
          "minflt_diff=%d,%d" %
          (len([t for t in TAGS if t in s2]), period, s2["available"],
           d1["free_diff"], d2["free_diff"], d1["avail_diff"],
           d2["avail_diff"], d1["caches_diff"], d2["caches_diff"],
           d1["minflt_diff"], d2["minflt_diff"]), flush=True)
    total_kib = mi2["MemTotal"]
    vm_start = vm2

    # --- 2. setmem reaches its target exactly ---------------------------
    target = ram - 256 * MIB
    t0 = time.monotonic()
    g.balloon(target)
    g.wait_balloon(target, timeout=120)
    setmem_s = time.monotonic() - t0
    st = state(g)
    assert st["num_pages"] == 256 * 256 and st["target"] == 256 * 256, st
    view_s = wait_libvirt_view(g, target // 1024)
    s3, mi3, vm3 = fresh_stats(g)
    check_stats(s3, mi3, vm3)
    # autodeflate: ballooned pages count as used, MemTotal stays.
    assert s3["available"] == total_kib, s3
    drop = s2["usable"] - s3["usable"]
    assert abs(drop - 256 * 1024) <= 2 * TOL_KIB, (s2, s3)
    print("KEY libvirt_setmem target_kib=%d actual_kib=%d seconds=%.1f "
          "usable_drop_kib=%d libvirt_record_lag_s=%.1f" %
          (target // 1024, g.query_balloon() // 1024, setmem_s, drop,
           view_s), flush=True)

    # --- 3. below the floor ----------------------------------------------
    total_pages = total_kib // 4
    # hv_balloon's formula for 512 MiB..2 GiB (pressure.c), computed here.
    floor_pages = 104 * 256 + (total_pages >> 3)
    assert st["floor_pages"] == floor_pages, (st, floor_pages)
    low = 64 * MIB
    g.balloon(low)
    actual = settle(g)
    st, actual2 = consistent_state(g)
    assert actual2 == actual, (actual, actual2)
    assert st["target"] == (ram - low) // 4096, st
    assert total_pages - st["num_pages"] == floor_pages, (st, total_pages)
    assert actual == ram - st["num_pages"] * 4096, (actual, st)
    assert actual > low and st["floor_limited"] > 0, (actual, st)
    wait_libvirt_view(g, actual // 1024)
    used = actual // 1024
    dmesg = g.dmesg()
    assert "not inflating below the floor of %d MiB" % (floor_pages // 256) \
        in dmesg, dmesg[-2000:]
    assert g.sh("echo alive").strip() == "alive"
    assert g.vmstat()["oom_kill"] == vm_start["oom_kill"]
    s4, mi4, vm4 = fresh_stats(g)
    check_stats(s4, mi4, vm4)
    print("KEY libvirt_floor target_kib=%d actual_kib=%d floor_kib=%d "
          "kept_kib=%d floor_limited=%d dominfo_used_kib=%d" %
          (low // 1024, actual // 1024, floor_pages * 4,
           (total_pages - st["num_pages"]) * 4, st["floor_limited"], used),
          flush=True)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    assert state(g)["num_pages"] == 0

    # --- 4. deflate on OOM ------------------------------------------------
    target = ram - 700 * MIB
    g.balloon(target)
    g.wait_balloon(target, timeout=180)
    want = g.meminfo()["MemAvailable"] // 1024 + 150
    vm0 = g.vmstat()
    t0 = time.monotonic()
    frag_start(g, want, stride=FRAG_KEEP_ALL)
    g.sh("kill -0 $(cat /tmp/frag.pid)")
    alloc_s = time.monotonic() - t0
    vm1 = g.vmstat()
    st, actual = consistent_state(g)
    assert vm1["oom_kill"] == vm0["oom_kill"], "a process was OOM-killed"
    assert st["oom_calls"] > 0 and st["oom_deflated_pages"] > 0, st
    # The host was told: its `actual` is the guest's balloon.
    assert actual == ram - st["num_pages"] * 4096, (actual, st)
    assert actual > target + 100 * MIB, (actual, target)
    assert virsh("domstate", g.name).strip() == "running"
    s5, mi5, vm5 = fresh_stats(g)
    assert all(t in s5 for t in TAGS), s5
    print("KEY libvirt_oom alloc_mib=%d alloc_s=%.1f oom_calls=%d "
          "oom_deflated_pages=%d target_kib=%d actual_kib=%d oom_kill=%d" %
          (want, alloc_s, st["oom_calls"], st["oom_deflated_pages"],
           target // 1024, actual // 1024, vm1["oom_kill"] - vm0["oom_kill"]),
          flush=True)
    frag_stop(g)
    # With the hog gone the driver re-inflates towards the target after its
    # back-off, but only while MemAvailable stays above what the episode
    # deflated and inflation has not taken back, plus a step (pressure.c's
    # hysteresis): it reaches the target, or stops short where that margin
    # is gone.  Where it stops:
    t0 = time.monotonic()
    while g.query_balloon() >= actual:
        assert time.monotonic() - t0 < 120, "no re-inflation in 120 s"
        time.sleep(0.5)
    after = settle(g, timeout=180, quiet=10)
    back_s = time.monotonic() - t0
    st_after = state(g)
    avail_after = g.meminfo()["MemAvailable"]
    print("KEY libvirt_oom_after actual_kib=%d settle_s=%.1f reinflations=%d "
          "reinflate_waits=%d oom_held_pages=%d mem_available_kib=%d" %
          (after // 1024, back_s, st_after["reinflations"],
           st_after["reinflate_waits"], st_after["oom_held_pages"],
           avail_after), flush=True)
    assert after == ram - st_after["num_pages"] * 4096, (after, st_after)
    assert target <= after < actual and st_after["reinflations"] > 0, \
        (target, after, actual, st_after)
    if after > target:
        # Stopped short: by the hysteresis, i.e. with MemAvailable at what
        # is still held (within a step and the agent's noise).
        held_kib = st_after["oom_held_pages"] * 4
        assert abs(avail_after - held_kib) <= TOL_KIB, (avail_after, st_after)
    g.balloon(ram)
    g.wait_balloon(ram, timeout=120)
    st = state(g)
    assert st["num_pages"] == 0, st
    assert st["reports"] > 0 and st["reported_pages"] > 0, st
    print("KEY libvirt_reporting reports=%d reported_pages=%d" %
          (st["reports"], st["reported_pages"]), flush=True)

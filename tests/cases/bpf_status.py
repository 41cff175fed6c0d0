# SPDX-License-Identifier: GPL-2.0
"""guestmm-stat status names the balloon's driver, the livepatch's state and features (or, when it is not loaded, klp-check's reason, word for word) and the pinned probes, the same in -j, and exits 0 whatever it finds."""
import base64
import json
import os

from klplib import LP, klp_features, modprobe_klp, wait_transition

# One TCG thread: the livepatch and the probes patch live code
# (Guest's tcg_single).
GUEST = dict(mem=1024, smp=2, balloon={}, mods=["virtio_balloon"],
             tcg_single=True)
KERNELS = ("6.1", "6.12")
LIGHT = True

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PIN = "/sys/fs/bpf/guestmm"
CHECK = "/tmp/klp-check"
# A DKMS source tree as guestmm-dkms installs it, as much of it as
# klp-check reads (livepatch/select-variant and its table).
TREE = "/tmp/src/guestmm-0.1.0"


def put(g, src, dst, mode="644"):
    with open(os.path.join(TOP, src), "rb") as f:
        g.sh("mkdir -p %s && echo %s | base64 -d > %s && chmod %s %s" % (
            os.path.dirname(dst), base64.b64encode(f.read()).decode(), dst,
            mode, dst))


def status(g, env=""):
    """status's human output as {label: [lines]} (a reason's lines go to
    the label above them) and its -j object; both exit 0."""
    text = g.sh("%s guestmm-stat status" % env)
    print("guestmm-stat status%s:\n%s" % (" (%s)" % env if env else "", text),
          flush=True)
    j = json.loads(g.sh("%s guestmm-stat status -j" % env))
    lines, label = {}, None
    for line in text.splitlines():
        if line[:11].strip():
            label = line[:11].strip().rstrip(":")
        lines.setdefault(label, []).append(line[11:])
    assert set(lines) == {"kernel", "balloon", "livepatch", "probes"}, text
    assert lines["kernel"] == [j["kernel"]] == [g.sh("uname -r").strip()], \
        (text, j)
    return lines, j


def balloon_driver(g):
    """{virtioN: driver} of the virtio balloon devices, from sysfs."""
    return dict(l.split() for l in g.sh(
        "for d in /sys/bus/virtio/devices/*; do "
        "[ \"$(cat $d/device)\" = 0x0005 ] || continue; "
        "echo ${d##*/} $(basename $(readlink $d/driver)); done").splitlines())


def check_balloon(lines, j, want, guestmm):
    devs = {d["device"]: d["driver"] for d in j["balloon"]["devices"]}
    assert devs == want, (devs, want)
    assert j["balloon"]["guestmm_balloon_loaded"] is guestmm, j
    assert lines["balloon"] == ["%s; guestmm_balloon %s" % (
        ", ".join("%s bound to %s" % kv for kv in sorted(want.items())),
        "loaded" if guestmm else "not loaded")], lines


def klp_check(g, env):
    """klp-check's own stdout lines, run as status runs it."""
    out = g.sh("%s %s $(uname -r)" % (env, CHECK), check=False)
    assert g.last_rc == 1, out
    return out.splitlines()


def not_loaded(g, env):
    """Status with the livepatch not loaded relays klp-check's reason."""
    reason = klp_check(g, env)
    lines, j = status(g, "GUESTMM_KLP_CHECK=%s %s" % (CHECK, env))
    assert lines["livepatch"] == ["not loaded"] + reason, (lines, reason)
    lp = j["livepatch"]
    assert lp["state"] == "not loaded" and not lp["loaded"], lp
    assert lp["reason"] == reason and lp["features"] == [], lp
    assert lp["klp_check"] == {"path": CHECK, "exit_status": 1}, lp
    return reason


def run(g):
    rel = g.sh("uname -r").strip()
    features = sorted(f for f, v in klp_features(rel).items() if v != "-")
    assert features, "no livepatch feature serves %s" % rel
    funcs = {"compaction": "compact_zone", "reclaim": "pgdat_balanced"}

    # (1) Nothing of ours loaded; the stock driver has the balloon.
    drivers = balloon_driver(g)
    assert list(drivers.values()) == ["virtio_balloon"], drivers
    put(g, "scripts/guestmm-klp-check", CHECK, "755")

    # No klp-check at all: status says so, and is still a report.
    lines, j = status(g, "GUESTMM_KLP_CHECK=/nonexistent")
    assert lines["livepatch"][0] == "not loaded", lines
    assert "/nonexistent, which says why, is not installed" in \
        lines["livepatch"][1], lines
    assert j["livepatch"]["klp_check"] == {"path": "/nonexistent",
                                           "exit_status": None}, j
    check_balloon(lines, j, drivers, False)
    assert lines["probes"] == ["not loaded (no %s)" % PIN], lines
    assert j["probes"]["loaded"] is False, j

    # klp-check in this guest, which has no DKMS tree (guestmm-dkms not
    # installed).
    env = "GUESTMM_SRC=/tmp/src GUESTMM_MODULES=/tmp/modules"
    g.sh("mkdir -p /tmp/modules/%s" % rel)
    reason = not_loaded(g, env)
    assert reason[0] == "guestmm_klp is not available for kernel %s: " \
        "guestmm-dkms is not installed." % rel, reason

    # With the DKMS tree and this kernel's headers, but no module: the
    # livepatch serves this build, DKMS did not install it.
    put(g, "livepatch/select-variant", TREE + "/livepatch/select-variant",
        "755")
    put(g, "livepatch/kernels.tsv", TREE + "/livepatch/kernels.tsv")
    gen = "/tmp/modules/%s/build/include/generated" % rel
    g.sh("mkdir -p %s && echo \"#define UTS_RELEASE \\\"$(uname -r)\\\"\" "
         "> %s/utsrelease.h && echo \"#define UTS_VERSION \\\"$(uname -v)"
         "\\\"\" > %s/utsversion.h" % (gen, gen, gen))
    for f, v in klp_features(rel).items():
        if v != "-":
            g.sh("mkdir -p %s/livepatch/%s/variants/%s" % (TREE, f, v))
    reason = not_loaded(g, env)
    assert "the livepatch serves this build" in reason[0] and \
        "DKMS has not installed the module" in reason[0], reason

    # (2) The livepatch, enabled: its features, from its functions.
    modprobe_klp(g)
    wait_transition(g)
    lines, j = status(g)
    lp = j["livepatch"]
    assert lp["state"] == "enabled" and lp["loaded"] and lp["enabled"] and \
        not lp["transition"], lp
    assert lp["features"] == features, (lp, features)
    assert lp["functions"] == [funcs[f] for f in features], lp
    assert lp["reason"] == [] and "klp_check" not in lp, lp
    assert lines["livepatch"] == ["enabled; features: " + ", ".join(
        "%s (%s)" % (f, funcs[f]) for f in features)], lines
    assert sorted(g.sh("ls %s/vmlinux | grep ," % LP).split()) == \
        ["%s,1" % funcs[f] for f in features]

    # (3) The probes, and guestmm_balloon in place of virtio_balloon.
    g.sh("guestmm-stat load")
    n = int(g.sh("ls %s/links | wc -l" % PIN).strip())
    assert n > 0, n
    g.sh("rmmod virtio_balloon && modprobe guestmm_balloon")
    guestmm = {d: "guestmm_balloon" for d in drivers}
    assert balloon_driver(g) == guestmm
    lines, j = status(g)
    # 6.1 and 6.12 have __alloc_pages_direct_compact() as a function.
    adc = "__alloc_pages_direct_compact"
    assert lines["probes"] == ["loaded, %d links pinned in %s/links "
                               "(0 module tracepoints); direct compaction: "
                               "%s" % (n, PIN, adc)], lines
    assert j["probes"] == {"loaded": True, "pin_dir": PIN, "links": n,
                           "module_links": 0, "direct_compaction": adc}, j
    check_balloon(lines, j, guestmm, True)

    # Not root: still a report (exit 0); the root-only pins are not counted.
    g.sh("grep -q ^nobody: /etc/passwd 2>/dev/null || "
         "echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd; "
         "chmod go+rx / /bin /bin/busybox /usr /usr/bin "
         "$(command -v guestmm-stat)")
    out = g.sh("su nobody -s /bin/sh -c 'guestmm-stat status -j'")
    j2 = json.loads(out)
    assert j2["probes"]["links"] is None and \
        j2["probes"]["loaded"] in (True, None), j2
    assert j2["livepatch"] == j["livepatch"] and \
        j2["balloon"] == j["balloon"], (j, j2)
    print("guestmm-stat status (as nobody):\n" +
          g.sh("su nobody -s /bin/sh -c 'guestmm-stat status'"), flush=True)

    # (4) The patch disabled, the module still loaded.
    g.sh("echo 0 > %s/enabled" % LP)
    wait_transition(g)
    g.sh("for i in $(seq 50); do [ -d %s ] || exit 0; sleep 0.2; done; "
         "exit 1" % LP)
    lines, j = status(g)
    assert j["livepatch"]["state"] == "disabled", j
    assert lines["livepatch"][0] == "disabled" and \
        "loaded but its patch is disabled" in lines["livepatch"][1], lines

    # -o prometheus is refused (exit 1).
    out = g.sh("guestmm-stat status -o prometheus 2>&1", check=False)
    assert g.last_rc == 1 and "status is a report" in out, out
    g.sh("guestmm-stat unload")

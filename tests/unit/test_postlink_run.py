"""livepatch/postlink/run, as dkms.conf calls it (no module arguments),
checks the balloon's module too: a modules/balloon/*.ko with an undefined
symbol the kernel does not export fails the build, as it fails the top
Makefile's, instead of installing a module that cannot load."""
import os
import shutil
import subprocess
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tree(tmp, symbol):
    """A copy of postlink/ in a tree whose balloon calls `symbol`, and a
    kernel directory whose Module.symvers exports only printk."""
    pl = os.path.join(tmp, "livepatch", "postlink")
    os.makedirs(pl)
    for f in ("run", "klp-postlink.c"):
        shutil.copy(os.path.join(TOP, "livepatch", "postlink", f), pl)
    bal = os.path.join(tmp, "modules", "balloon")
    os.makedirs(bal)
    src = os.path.join(tmp, "m.c")
    with open(src, "w") as f:
        f.write("extern int %s(void);\nint f(void) { return %s(); }\n"
                % (symbol, symbol))
    subprocess.run(["cc", "-c", "-o", os.path.join(bal, "guestmm_balloon.ko"),
                    src], check=True)
    kdir = os.path.join(tmp, "kdir")
    os.makedirs(kdir)
    with open(os.path.join(kdir, "Module.symvers"), "w") as f:
        f.write("0x00000000\tprintk\tvmlinux\tEXPORT_SYMBOL\t\n")
    return os.path.join(pl, "run"), kdir


def run_postlink(symbol):
    with tempfile.TemporaryDirectory() as tmp:
        run, kdir = tree(tmp, symbol)
        return subprocess.run(["sh", run, kdir], capture_output=True,
                              text=True)


def test_unexported_symbol_in_balloon_fails():
    res = run_postlink("first_online_pgdat")
    assert res.returncode != 0, res
    assert "first_online_pgdat is not exported" in res.stderr, res.stderr


def test_exported_symbol_in_balloon_passes():
    res = run_postlink("printk")
    assert res.returncode == 0, res.stderr

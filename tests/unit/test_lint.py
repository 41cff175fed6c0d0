"""Kernel code style: checkpatch.pl --no-tree and sparse stay clean."""
import os
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_kernel_code_is_checkpatch_and_sparse_clean():
    ksh = os.path.join(TOP, "scripts", "guest", "kernel.sh")
    kdir = subprocess.run([ksh, "headers", "6.1"], capture_output=True,
                          text=True, check=True).stdout.strip()
    p = subprocess.run([os.path.join(TOP, "scripts", "lint.sh"), kdir],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr

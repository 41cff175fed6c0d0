"""The kernel-log checker bites: a module that WARNs makes its case fail."""

GUEST = dict(mem=512, balloon=None)
KERNELS = ("6.1", "6.12")
LIGHT = True
# The runner inverts its check for this case: a clean log fails it.
EXPECT_KERNEL_PROBLEMS = True


def run(g):
    before = g.problems()
    assert before == [], ("log not clean before the WARN", before)
    g.sh("modprobe guestmm_warn")
    problems = g.problems()
    assert any("WARNING:" in l for l in problems), problems

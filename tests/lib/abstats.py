"""Comparing an A/B experiment run in one guest (stock vs patched) when a
single run is noisy or bimodal: whether the patched runs are, as a whole,
below the stock ones, rather than whether their best run beat a margin."""


def mann_whitney_u(a, b):
    """U of sample `a` against sample `b`: the number of (x in a, y in b)
    pairs with x > y, ties counting half.  0 means every run of `a` is
    below every run of `b`; len(a) * len(b) means the opposite."""
    return sum(1.0 if x > y else 0.5 if x == y else 0.0
               for x in a for y in b)


def exact_u_tail(n, m, u):
    """P(U <= u) when both samples come from one distribution (no ties):
    the share of the C(n+m, n) orderings whose U is at most u, counted
    with the classic recurrence f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u)."""
    memo = {}

    def f(n, m, u):
        if u < 0:
            return 0
        if n == 0 or m == 0:
            return 1 if u >= 0 else 0
        key = (n, m, u)
        if key not in memo:
            memo[key] = f(n - 1, m, u - m) + f(n, m - 1, u)
        return memo[key]

    total = f(n, m, n * m)
    return f(n, m, int(u)) / total


def not_systematically_below(a, b, p=0.005):
    """True unless `a` lies below `b` so consistently that two samples of
    one distribution would do so with probability under p (one-sided
    Mann-Whitney).  With 6 runs each, p=0.005 fails when at most one of
    the 36 pairs has `a` ahead."""
    return exact_u_tail(len(a), len(b), mann_whitney_u(a, b)) >= p

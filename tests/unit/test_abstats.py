"""The A/B comparison that klp_compaction_vs_stock asserts with."""
from abstats import exact_u_tail, mann_whitney_u, not_systematically_below


def test_u_counts_pairs_and_ties():
    assert mann_whitney_u([1, 2], [3, 4]) == 0
    assert mann_whitney_u([3, 4], [1, 2]) == 4
    assert mann_whitney_u([2, 2], [2, 1]) == 2 + 0.5 * 2


def test_exact_tail_small_cases():
    # 4 vs 4: one ordering in C(8,4) = 70 has U = 0
    assert abs(exact_u_tail(4, 4, 0) - 1 / 70) < 1e-12
    # 6 vs 6: U <= 1 in 2 of C(12,6) = 924
    assert abs(exact_u_tail(6, 6, 1) - 2 / 924) < 1e-12
    assert exact_u_tail(6, 6, 36) == 1.0


def test_verdicts():
    stock = [179, 186, 187, 179, 172, 193]
    # same distribution, interleaved: fine
    assert not_systematically_below([172, 186, 190, 190, 178, 171], stock)
    # a patch whose every run is below stock's worst: refused
    assert not not_systematically_below([120, 131, 150, 140, 101, 160], stock)
    # one lucky run of six does not rescue a consistent regression
    assert not not_systematically_below([120, 131, 150, 140, 101, 175], stock)

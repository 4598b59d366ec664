"""syncattn.stats: the paired t test's p-value against scipy, Holm's adjustment against its
rejection procedure (brute force) and hand-worked values."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats as sps

from syncattn import stats

from .helpers import approx
from .strategies import pvalue_lists


def test_t_pvalue_matches_scipy_and_the_interval():
    x = [0.10, 0.15, 0.11]
    assert stats.t_pvalue(x) == approx(sps.ttest_1samp(x, 0.0).pvalue)
    # by hand: mean 0.12, s = sqrt(0.0014 / 2), t = 0.12 / (s / sqrt 3)
    t = 0.12 / (math.sqrt(0.0007) / math.sqrt(3))
    assert stats.t_pvalue(x) == approx(2 * sps.t.sf(t, 2))
    # p < 1 - c exactly when the interval at confidence c excludes 0
    for y in ([0.1, -0.05, 0.2], [0.19, 0.21, 0.22], [-1.0, -1.2, -0.9, -1.1]):
        lo, hi = stats.t_interval(y, 0.95)
        assert (stats.t_pvalue(y) < 0.05) == (lo > 0 or hi < 0)
    assert stats.t_pvalue([1.0]) is None
    assert stats.t_pvalue([0.0, 0.0]) == 1.0 and stats.t_pvalue([0.3, 0.3]) == 0.0
    with pytest.raises(ValueError, match="finite"):
        stats.t_pvalue([1.0, math.nan])


def test_one_sided_t_pvalue_matches_scipy_and_halves_the_two_sided():
    for x in ([-0.10, -0.15, -0.11], [0.05, -0.02, 0.01, 0.03], [-0.3, 0.1, -0.2, -0.25, 0.0]):
        for alt in ("less", "greater"):
            assert stats.t_pvalue(x, alt) == approx(sps.ttest_1samp(x, 0.0, alternative=alt).pvalue)
        # by hand: the t distribution function at t, and half the two-sided p on the mean's side
        t = np.mean(x) / (np.std(x, ddof=1) / math.sqrt(len(x)))
        assert stats.t_pvalue(x, "less") == approx(sps.t.cdf(t, len(x) - 1))
        side = "less" if np.mean(x) < 0 else "greater"
        assert stats.t_pvalue(x, side) == approx(stats.t_pvalue(x) / 2)
        assert stats.t_pvalue(x, "less") + stats.t_pvalue(x, "greater") == approx(1.0)
    assert stats.t_pvalue([-0.3, -0.3], "less") == 0.0 and stats.t_pvalue([-0.3, -0.3], "greater") == 1.0
    assert stats.t_pvalue([0.0, 0.0], "less") == 1.0 and stats.t_pvalue([1.0], "less") is None
    with pytest.raises(ValueError, match="alternative"):
        stats.t_pvalue([1.0, 2.0], "below")


def test_holm_hand_worked():
    # m = 3, ordered 0.01, 0.03, 0.04: 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 0.04)
    assert stats.holm([0.01, 0.04, 0.03]) == approx([0.03, 0.06, 0.06])
    # a test not made does not count: m = 3, ordered 0.001, 0.02, 0.5 -> 0.003, 0.04, 0.5
    assert stats.holm([0.5, None, 0.001, 0.02]) == [
        approx(0.5),
        None,
        approx(0.003),
        approx(0.04),
    ]
    # the cap at 1: 2 x 0.6 -> 1, then max(1, 0.7)
    assert stats.holm([0.6, 0.7]) == [1.0, 1.0]
    assert stats.holm([]) == [] and stats.holm([None]) == [None]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        stats.holm([0.1, 1.5])


def _holm_rejects(p, alpha):
    """Holm's procedure at level `alpha`, as stated: walk the p-values up, reject while
    p_(j) <= alpha / (m - j + 1), stop at the first that is not."""
    order = sorted(range(len(p)), key=lambda i: p[i])
    rejected = set()
    for j, i in enumerate(order):
        if p[i] > alpha / (len(p) - j):
            break
        rejected.add(i)
    return rejected


def _holm_brute(p):
    """The adjusted p-value as the smallest level at which the procedure rejects: the
    candidates are the levels (m - j + 1) p_(j) where a rejection can begin, and 1."""
    m = len(p)
    levels = sorted({min(1.0, (m - j) * q) for j, q in enumerate(sorted(p))} | {1.0})
    return [next((a for a in levels if i in _holm_rejects(p, a * (1 + 1e-12))), 1.0)
            for i in range(m)]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(pvalue_lists())
def test_holm_is_the_smallest_rejecting_level(p):
    got = stats.holm(p)
    made = [i for i, q in enumerate(p) if q is not None]
    assert [got[i] for i in range(len(p)) if i not in made] == [None] * (
        len(p) - len(made)
    )
    want = _holm_brute([float(p[i]) for i in made])
    assert [got[i] for i in made] == approx(want)
    # never below the raw p-value, never above 1, monotone in the raw order
    for i in made:
        assert p[i] <= got[i] + 1e-15 and got[i] <= 1.0
    pairs = sorted((p[i], got[i]) for i in made)
    assert all(a[1] <= b[1] + 1e-15 for a, b in zip(pairs, pairs[1:]))


def test_holm_on_nine_paired_tests_against_a_float64_loop():
    # three seeds of nine comparisons (the shape of the geometry experiment's rung)
    rng = np.random.default_rng(7)
    diffs = rng.normal(loc=np.linspace(-0.1, 0.2, 9)[:, None], scale=0.05, size=(9, 3))
    p = [stats.t_pvalue(d) for d in diffs]
    assert p == approx([sps.ttest_1samp(d, 0.0).pvalue for d in diffs])
    assert stats.holm(p) == approx(_holm_brute(p))

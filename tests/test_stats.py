"""syncattn.stats: binomial intervals against scipy, the power-law fit against seed 001's
published numbers and synthetic data, the bootstrap against a plain loop."""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from syncattn import stats

from .helpers import approx, assert_close


@pytest.mark.parametrize("k,n", [(0, 5), (1, 5), (3, 50), (12, 50), (50, 50), (7, 13)])
@pytest.mark.parametrize("conf", [0.9, 0.95])
def test_binomial_intervals_match_scipy(k, n, conf):
    for method, fn in (("exact", stats.clopper_pearson), ("wilson", stats.wilson)):
        ci = binomtest(k, n).proportion_ci(confidence_level=conf, method=method)
        lo, hi = fn(k, n, conf)
        assert float(lo) == approx(ci.low)
        assert float(hi) == approx(ci.high)


@pytest.mark.parametrize("args", [(-1, 5), (6, 5), (0, 0), (1, 5, 1.0), (float("nan"), 5)])
def test_binomial_bad_input(args):
    with pytest.raises(ValueError):
        stats.clopper_pearson(*args)
    with pytest.raises(ValueError):
        stats.wilson(*args)


def test_studies_reexport_the_same_functions():
    from syncattn.studies import _common

    assert _common.clopper_pearson is stats.clopper_pearson
    assert _common.wilson is stats.wilson


# Seed 001's per-d mean PPL and 5-seed softmax baselines (../shared/EXPERIMENTS.md, B3).
DIMS = [2, 4, 8, 16, 32]
WT2 = [110.67, 107.20, 105.23, 103.78, 102.56]
TS = [10.911, 10.276, 9.784, 9.345, 9.105]


@pytest.mark.parametrize(
    "means,base,alpha,C,r2",
    [(WT2, 99.00, 0.420, 15.17, 0.997), (TS, 8.671, 0.599, 3.58, 0.994)],
)
def test_power_law_fit_reproduces_published_uniform_fit(means, base, alpha, C, r2):
    fit = stats.power_law_fit(DIMS, np.asarray(means) - base)
    # the published numbers, to half a unit of their last printed digit
    assert fit["alpha"] == pytest.approx(alpha, abs=5e-4)
    assert fit["C"] == pytest.approx(C, abs=5e-3)
    assert fit["r2"] == pytest.approx(r2, abs=5e-4)


def test_power_law_fit_exact_power_and_polyfit():
    d = np.array([2.0, 4, 8, 16, 32])
    fit = stats.power_law_fit(d, 7.0 * d**-0.37)
    assert fit["alpha"] == approx(0.37, scale=0.01)
    assert fit["C"] == approx(7.0, scale=0.01)
    assert fit["r2"] == approx(1.0, scale=0.01)
    g = np.array([3.0, 2.5, 1.1, 0.9, 0.3])
    slope, icpt = np.polyfit(np.log(d), np.log(g), 1)
    fit = stats.power_law_fit(d, g)
    assert fit["alpha"] == approx(-slope, scale=0.01)
    assert fit["C"] == approx(math.exp(icpt), scale=0.01)


@pytest.mark.parametrize(
    "dims,gaps", [([2, 4], [1.0, -0.1]), ([2], [1.0]), ([2, 2], [1.0, 2.0]), ([2, 4], [1.0])]
)
def test_power_law_fit_bad_input(dims, gaps):
    with pytest.raises(ValueError):
        stats.power_law_fit(dims, gaps)


def _loop_bootstrap(dims, values, baseline, n_boot, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_boot):
        m = [np.mean(rng.choice(np.asarray(v), size=len(v), replace=True)) for v in values]
        b = np.mean(rng.choice(np.asarray(baseline), size=len(baseline), replace=True))
        gaps = np.array(m) - b
        if np.any(gaps <= 0):
            out.append(np.nan)
            continue
        out.append(-np.polyfit(np.log(dims), np.log(gaps), 1)[0])
    return np.array(out)


def test_bootstrap_matches_plain_loop():
    rng = np.random.default_rng(5)
    dims = [2, 4, 8, 16, 32]
    values = [100 + 12 * d**-0.5 + rng.normal(0, 0.5, 5) for d in dims]
    base = 99 + rng.normal(0, 0.5, 5)
    res = stats.power_law_bootstrap(dims, values, base, n_boot=300, seed=3)
    ref = _loop_bootstrap(dims, values, base, 300, 3)
    assert_close(res["alpha_boot"], ref, equal_nan=True)
    assert res["n_invalid"] == int(np.isnan(ref).sum())
    lo, hi = np.nanpercentile(ref, [2.5, 97.5])
    assert res["alpha_ci"] == approx((lo, hi))


def test_bootstrap_recovers_known_alpha():
    # gap C d^-alpha with alpha = 0.6, C = 3.5 (TS-like), seed noise sd 0.02, 8 seeds
    rng = np.random.default_rng(0)
    dims = np.array([2, 4, 8, 16, 32])
    values = [8.67 + 3.5 * d**-0.6 + rng.normal(0, 0.02, 8) for d in dims]
    base = 8.67 + rng.normal(0, 0.02, 8)
    res = stats.power_law_bootstrap(dims, values, base, n_boot=2000, seed=0)
    assert res["alpha_ci"][0] < 0.6 < res["alpha_ci"][1]
    assert res["C_ci"][0] < 3.5 < res["C_ci"][1]
    assert abs(res["alpha"] - 0.6) < 0.05
    assert res["alpha_ci"][1] - res["alpha_ci"][0] < 0.15
    assert res["n_invalid"] == 0
    assert_close(res["gaps"], [np.mean(v) - np.mean(base) for v in values], scale=0.01)


def test_bootstrap_counts_resamples_without_fit():
    # the last gap is tiny next to the noise: some resamples make it <= 0
    values = [[3.0, 3.1], [0.02, 0.5]]
    res = stats.power_law_bootstrap([2, 8], values, [0.0, 0.3], n_boot=200, seed=1)
    assert 0 < res["n_invalid"] < 200
    assert np.isnan(res["alpha_boot"]).sum() == res["n_invalid"]


def test_bootstrap_bad_input():
    with pytest.raises(ValueError, match="one sequence per d"):
        stats.power_law_bootstrap([2, 4], [[1.0]], [0.0])
    with pytest.raises(ValueError, match="values\\[1\\]"):
        stats.power_law_bootstrap([2, 4], [[1.0], []], [0.0])
    with pytest.raises(ValueError, match="n_boot"):
        stats.power_law_bootstrap([2, 4], [[2.0], [1.0]], [0.0], n_boot=0)
    with pytest.raises(ValueError, match="gaps"):
        stats.power_law_bootstrap([2, 4], [[2.0], [1.0]], [5.0])


def test_summarize():
    s = stats.summarize([1.0, 2.0, 4.0])
    assert s["mean"] == approx(7 / 3)
    assert s["std"] == approx(math.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2))
    assert s["median"] == 2.0 and s["n"] == 3
    assert stats.summarize([5.0])["std"] == 0.0
    with pytest.raises(ValueError):
        stats.summarize([])


# --------------------------------------------------------------------------- binomial test


def _pvalue_by_hand(k, n, p):
    """Two-sided minimum-likelihood p-value from the pmf written out (math.comb)."""
    pmf = [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    return min(1.0, sum(q for q in pmf if q <= pmf[k] * (1 + 1e-7)))


@pytest.mark.parametrize("k,n,p", [(3, 50, 0.24), (12, 50, 0.24), (0, 20, 0.1), (7, 7, 0.5)])
def test_binomial_pvalue_against_the_pmf(k, n, p):
    assert float(stats.binomial_pvalue(k, n, p)) == approx(_pvalue_by_hand(k, n, p))


def test_binomial_pvalue_broadcasts_and_edges():
    got = stats.binomial_pvalue([0, 1, 3], 10, [0.0, 0.0, 1.5])
    assert got.shape == (3,)
    assert got[0] == 1.0 and got[1] == 0.0  # theory p = 0: only k = 0 is consistent
    assert got[2] == 0.0  # p clipped to 1: k < n impossible
    with pytest.raises(ValueError, match="p must be finite"):
        stats.binomial_pvalue(1, 10, float("nan"))
    with pytest.raises(ValueError):
        stats.binomial_pvalue(11, 10, 0.5)


def test_exponential_rate_fit_recovers_rate_and_skips_zeros():
    d = np.array([2, 3, 4, 8, 16, 32])
    p = 3.0 * np.exp(-0.7 * d)
    p[-1] = 0.0
    fit = stats.exponential_rate_fit(d, p)
    assert fit["n_points"] == 5
    assert fit["rate"] == approx(0.7)
    assert fit["intercept"] == approx(math.log(3.0))
    # a noisy exponential: the rate is the least-squares slope (numpy's lstsq, independently)
    rng = np.random.default_rng(0)
    q = np.exp(1.0 - 0.3 * d + 0.1 * rng.standard_normal(d.size))
    A = np.stack([np.ones(d.size), -d.astype(float)], 1)
    a, lam = np.linalg.lstsq(A, np.log(q), rcond=None)[0]
    assert stats.exponential_rate_fit(d, q)["rate"] == approx(lam)
    assert math.isnan(stats.exponential_rate_fit([2, 3], [0.1, 0.0])["rate"])
    assert math.isnan(stats.exponential_rate_fit([2, 2], [0.1, 0.2])["rate"])
    with pytest.raises(ValueError, match="same length"):
        stats.exponential_rate_fit([1, 2, 3], [0.1, 0.2])


def _fisher_by_hand(k1, n1, k2, n2, alternative):
    """Exact rational hypergeometric sums (fractions.Fraction): the test's definition."""
    from fractions import Fraction

    K = k1 + k2
    xs = range(max(0, K - n2), min(K, n1) + 1)
    pmf = {x: Fraction(math.comb(n1, x) * math.comb(n2, K - x), math.comb(n1 + n2, K)) for x in xs}
    if alternative == "less":
        return float(sum(p for x, p in pmf.items() if x <= k1))
    if alternative == "greater":
        return float(sum(p for x, p in pmf.items() if x >= k1))
    return float(sum(p for p in pmf.values() if p <= pmf[k1]))


@pytest.mark.parametrize("counts", [(3, 50, 12, 50), (0, 5, 1, 5), (12, 50, 3, 50), (7, 13, 2, 9),
                                    (0, 50, 0, 50), (50, 50, 0, 50), (4, 4, 0, 4), (20, 50, 25, 50)])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_fisher_exact_against_rational_sums_and_scipy(counts, alternative):
    from scipy.stats import fisher_exact

    k1, n1, k2, n2 = counts
    got = stats.fisher_exact(*counts, alternative=alternative)
    assert got == approx(_fisher_by_hand(*counts, alternative))
    ref = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative=alternative).pvalue
    assert got == approx(ref)


def test_fisher_exact_lady_tasting_tea():
    # Fisher (1935): 3 of 4 cups right on each side; one-sided p = 17/70, two-sided 34/70
    assert stats.fisher_exact(3, 4, 1, 4, "greater") == pytest.approx(17 / 70, rel=1e-12)
    assert stats.fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70, rel=1e-12)


@pytest.mark.parametrize("args", [(-1, 5, 1, 5), (6, 5, 1, 5), (1, 0, 1, 5), (1.5, 5, 1, 5),
                                  (float("nan"), 5, 1, 5), (True, 5, 1, 5), (1, 5, 1, 5, "both")])
def test_fisher_exact_bad_input(args):
    with pytest.raises(ValueError):
        stats.fisher_exact(*args)


def test_fisher_exact_errors_name_the_sample():
    with pytest.raises(ValueError, match="k2 <= n2"):
        stats.fisher_exact(1, 5, 7, 5)
    with pytest.raises(ValueError, match="k1=-1"):
        stats.fisher_exact(-1, 5, 1, 5)

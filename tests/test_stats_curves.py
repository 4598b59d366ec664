"""syncattn.stats: t intervals, the log-linear fit with its bootstrap, the convergence measure."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from syncattn import stats

from .helpers import approx, assert_close


def test_t_interval_matches_scipy():
    x = np.array([0.12, 0.08, 0.15, 0.11])
    want = sps.t.interval(0.9, x.size - 1, loc=x.mean(), scale=sps.sem(x))
    assert stats.t_interval(x, 0.9) == approx(tuple(want))
    assert stats.t_interval([1.0]) is None
    lo, hi = stats.t_interval([2.0, 2.0, 2.0])
    assert lo == hi == approx(2.0)


@pytest.mark.parametrize("bad", [dict(values=[1.0, math.nan]), dict(values=[1.0, 2.0], confidence=1.0)])
def test_t_interval_bad_input(bad):
    with pytest.raises(ValueError, match="values|confidence"):
        stats.t_interval(**bad)


def test_log_linear_fit_against_polyfit():
    x = np.array([5e4, 1e5, 2e5, 4e5])
    y = np.array([0.31, 0.22, 0.20, 0.09])
    b, a = np.polyfit(np.log(x), y, 1)
    fit = stats.log_linear_fit(x, y)
    assert (fit["a"], fit["b"]) == approx((a, b))
    pred = a + b * np.log(x)
    assert fit["r2"] == approx(1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))
    exact = stats.log_linear_fit([1.0, math.e, math.e**2], [1.0, 3.0, 5.0])
    assert (exact["a"], exact["b"], exact["r2"]) == approx((1.0, 2.0, 1.0))


@pytest.mark.parametrize("x, y", [([1.0], [1.0]), ([1.0, 1.0], [1.0, 2.0]), ([0.0, 1.0], [1.0, 2.0]),
                                  ([1.0, 2.0], [1.0, math.inf]), ([1.0, 2.0], [1.0])])
def test_log_linear_fit_bad_input(x, y):
    with pytest.raises(ValueError, match="x|y"):
        stats.log_linear_fit(x, y)


def test_log_linear_bootstrap_matches_plain_loop():
    x = [5e4, 1e5, 2e5]
    samples = [[0.30, 0.25, 0.33], [0.20, 0.24], [0.11, 0.09, 0.12, 0.10]]
    out = stats.log_linear_bootstrap(x, samples, at=[1e6, 5e6], n_boot=300, seed=3, confidence=0.8)
    # the same resamples, drawn one by one, fitted with numpy's polyfit
    rng = np.random.default_rng(3)
    draws = []
    for _ in range(300):
        means = [np.mean(np.asarray(s)[rng.integers(0, len(s), len(s))]) for s in samples]
        b, a = np.polyfit(np.log(x), means, 1)
        draws.append((a, b, a + b * np.log(1e6), a + b * np.log(5e6)))
    draws = np.array(draws)
    q = [10, 90]
    assert out["a_ci"] == approx(tuple(np.percentile(draws[:, 0], q)), scale=100)
    assert out["b_ci"] == approx(tuple(np.percentile(draws[:, 1], q)), scale=100)
    for j, p in enumerate(out["predictions"]):
        assert p["ci"] == approx(tuple(np.percentile(draws[:, 2 + j], q)), scale=100)
    point = stats.log_linear_fit(x, [np.mean(s) for s in samples])
    assert (out["a"], out["b"]) == approx((point["a"], point["b"]))
    assert out["predictions"][1]["y"] == approx(point["a"] + point["b"] * math.log(5e6))


def test_log_linear_bootstrap_one_sample_per_group_has_no_spread():
    out = stats.log_linear_bootstrap([1.0, math.e], [[1.0], [3.0]], at=[math.e**2], n_boot=20)
    assert out["b_ci"] == approx((2.0, 2.0))
    assert out["predictions"][0]["y"] == approx(5.0)


def test_log_linear_bootstrap_bad_input():
    with pytest.raises(ValueError, match="one sequence per x"):
        stats.log_linear_bootstrap([1.0, 2.0], [[1.0]])
    with pytest.raises(ValueError, match="samples\\[1\\]"):
        stats.log_linear_bootstrap([1.0, 2.0], [[1.0], []])
    with pytest.raises(ValueError, match="at must"):
        stats.log_linear_bootstrap([1.0, 2.0], [[1.0], [2.0]], at=[-1.0])
    with pytest.raises(ValueError, match="n_boot"):
        stats.log_linear_bootstrap([1.0, 2.0], [[1.0], [2.0]], n_boot=0)


def test_relative_improvement_by_hand():
    # 10 evaluations of 100 steps; the window's start is step 800 (= 0.8 * 1000)
    steps = np.arange(100, 1001, 100)
    bpc = np.array([3.0, 2.6, 2.4, 2.3, 2.25, 2.2, 2.18, 2.150, 2.140, 2.135])
    r = stats.relative_improvement(steps, bpc, 0.2)
    assert (r["from_step"], r["to_step"]) == (800.0, 1000.0)
    assert r["improvement"] == approx((2.150 - 2.135) / 2.150)  # 0.70 %: < 1 %
    # a window that falls between evaluations starts at the one before it
    r = stats.relative_improvement([0, 70, 90, 100], [3.0, 2.0, 1.5, 1.4], 0.2)
    assert r["from_step"] == 70.0 and r["improvement"] == approx(0.3)
    # a curve that rose
    assert stats.relative_improvement([0, 10], [1.0, 1.1], 0.5)["improvement"] == approx(-0.1)


@pytest.mark.parametrize("steps, values, window", [
    ([0], [1.0], 0.2), ([0, 0], [1.0, 2.0], 0.2), ([18, 20], [1.0, 2.0], 0.2),
    ([0, 10], [1.0, math.nan], 0.2), ([0, 10], [1.0, 2.0], 1.0), ([0, 10], [0.0, 1.0], 0.5),
])  # fmt: skip
def test_relative_improvement_bad_input(steps, values, window):
    with pytest.raises(ValueError):
        stats.relative_improvement(steps, values, window)


def test_t_interval_on_paired_gaps_is_the_paired_t_test_interval():
    a = np.array([2.31, 2.28, 2.35])
    b = np.array([2.20, 2.21, 2.22])
    lo, hi = stats.t_interval(a - b, 0.95)
    res = sps.ttest_rel(a, b).confidence_interval(0.95)
    assert_close(np.array([lo, hi]), np.array([res.low, res.high]))

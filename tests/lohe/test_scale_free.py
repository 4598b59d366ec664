"""Scale-free degenerate events and the finite-time threshold, against independent computations.

References: scipy.stats.binom (Wendel's law), the closed form P(m points on a
circle not in a half-circle) = 1 - m / 2^(m-1), scipy.optimize.linprog
(0 in the hull), a float64 numpy loop of the bounds, numpy Monte Carlo, and the
exact finite-time law. Large-sample checks are in proofs/.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats

from syncattn import lohe

from ..helpers import approx, assert_close


# ------------------------------------------------------------------ hull law
@pytest.mark.parametrize("m", [1, 2, 3, 5, 16, 33, 200])
@pytest.mark.parametrize("d", [2, 3, 7, 16, 32, 150, 300])
def test_hull_law_matches_scipy_binomial(m, d):
    exact, bound = lohe.hull_degenerate_probability(m, d)
    want = scipy.stats.binom.sf(d - 1, m - 1, 0.5)
    assert_close(exact, want, scale=0.01, atol=1e-300)  # relative only: odds reach 1e-90
    assert exact <= bound <= 1.0
    if d >= m:
        assert exact == 0.0 and bound == 0.0


@pytest.mark.parametrize("m", [2, 3, 4, 7, 12])
def test_hull_law_on_the_circle(m):
    # d = 2: 0 is outside the hull iff the m points lie in a half-circle, which has
    # probability m / 2^(m-1) (a classical closed form, independent of Wendel's sum)
    exact, _ = lohe.hull_degenerate_probability(m, 2)
    assert exact == approx(1 - m / 2 ** (m - 1), scale=1e-4)  # a short sum: ulps


def test_hull_bound_is_hoeffding():
    m, d = 41, 30  # n = 40, t = 10
    assert lohe.hull_degenerate_probability(m, d).bound == approx(
        math.exp(-2 * 10**2 / 40), scale=1e-4
    )
    assert lohe.hull_degenerate_probability(41, 20).bound == 1.0  # t <= 0: trivial


def test_hull_law_small_monte_carlo():
    from scipy.optimize import linprog

    g = np.random.default_rng(0)
    m, d, n = 7, 3, 250
    hits = 0
    for _ in range(n):
        r = g.standard_normal((m, d))
        r /= np.linalg.norm(r, axis=-1, keepdims=True)
        A = np.vstack([r.T, np.ones((1, m))])
        res = linprog(
            np.zeros(m), A_eq=A, b_eq=np.r_[np.zeros(d), 1.0], bounds=(0, None)
        )
        hits += res.status == 0
    p = lohe.hull_degenerate_probability(m, d).exact  # P(Bin(6, 1/2) >= 3) = 42/64
    assert p == approx(42 / 64)
    assert abs(hits / n - p) < 4 * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize(
    "args, err",
    [
        ((0, 3), ValueError),
        ((4, 1), ValueError),
        ((4, 2.0), TypeError),
        ((2.5, 3), ValueError),
        ((True, 3), ValueError),
    ],
)
def test_hull_law_rejects_bad_input(args, err):
    with pytest.raises(err):
        lohe.hull_degenerate_probability(*args)


# ------------------------------------------------------------ relative event
def _bound_loop(w, eps, d):
    w = np.asarray(w, np.float64)
    s2 = float(np.sum(w * w))
    if s2 == 0:
        return 0.0
    if eps >= 1:
        return 1.0
    a4 = sum((x * x / s2) ** 2 for x in w)
    cheb = 2 * max(1 - a4, 0.0) / (d * (1 - eps * eps) ** 2)
    S = W = 0.0
    for x in sorted(np.abs(w), reverse=True):
        S += x * x * W * W
        W += x
    cher = 0.0 if S == 0 else math.exp(-d * (1 - eps * eps) ** 2 * s2 * s2 / (8 * S))
    return min(cheb, cher, 1.0)


@pytest.mark.parametrize("d", [2, 5, 64, 1000])
def test_relative_bound_matches_loop(d):
    g = np.random.default_rng(d)
    w = np.log1p(np.exp(g.standard_normal((6, 9))))
    w[1, :] = 0.0
    w[2, 1:] = 0.0  # a single non-zero weight: ||h|| = ||w||_2
    for eps in (0.0, 0.2, 0.5, 0.9, 1.0, 2.0):
        got = np.asarray(lohe.relative_degenerate_bound(w, eps, d))
        want = [_bound_loop(wi, eps, d) for wi in w]
        assert_close(got, want, scale=0.01)
    assert float(lohe.relative_degenerate_bound(w[1], 0.5, d)) == 0.0
    assert float(lohe.relative_degenerate_bound(w[2], 0.5, d)) == 0.0


def test_relative_bound_dominates_monte_carlo_and_decays():
    g = np.random.default_rng(1)
    w = np.array([2.0, 1.0, 1.0, 0.5, 0.5])
    eps, n = 0.6, 20_000
    prev = 1.0
    for d in (3, 8, 24):
        r = g.standard_normal((n, w.size, d))
        r /= np.linalg.norm(r, axis=-1, keepdims=True)
        h = np.einsum("j,sjd->sd", w, r)
        p = np.mean(np.sum(h * h, -1) < eps**2 * np.sum(w * w))
        b = float(lohe.relative_degenerate_bound(w, eps, d))
        assert p <= b + 4 * math.sqrt(max(p * (1 - p), 1 / n) / n)
        assert p < prev
        prev = p
    # exponential in d: the bound at d and 2d squares (the Chernoff term), once it is the minimum
    b1 = float(lohe.relative_degenerate_bound(w, eps, 4000))
    b2 = float(lohe.relative_degenerate_bound(w, eps, 8000))
    assert b2 == approx(b1**2)


def test_relative_bound_under_jit_and_batch():
    w = jnp.abs(jax.random.normal(jax.random.key(0), (3, 4, 6))) + 0.1
    eager = lohe.relative_degenerate_bound(w, 0.5, 16)
    jitted = jax.jit(lambda w: lohe.relative_degenerate_bound(w, 0.5, 16))(w)
    assert eager.shape == (3, 4)
    assert_close(jitted, eager, scale=1e-4)


@pytest.mark.parametrize(
    "w, eps, d, err",
    [
        (np.ones(3), -0.1, 4, ValueError),
        (np.ones(3), np.nan, 4, ValueError),
        (np.array([1.0, np.nan]), 0.5, 4, ValueError),
        (np.ones((2, 0)), 0.5, 4, ValueError),
        (np.ones(3), 0.5, 1, ValueError),
        (1.0, 0.5, 4, ValueError),
    ],
)
def test_relative_bound_rejects_bad_input(w, eps, d, err):
    with pytest.raises(err):
        lohe.relative_degenerate_bound(w, eps, d)


def test_relative_probability_against_numpy():
    n, m, d, eps = 20_000, 8, 5, 0.6
    p, se = lohe.relative_degenerate_probability(
        jax.random.key(3), d, m, eps, n, chunk_size=3000
    )
    g = np.random.default_rng(3)
    w = np.log1p(np.exp(g.standard_normal((n, m))))
    r = g.standard_normal((n, m, d))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    h = np.einsum("sj,sjd->sd", w, r)
    q = np.mean(np.sum(h * h, -1) < eps**2 * np.sum(w * w, -1))
    assert float(se) == approx(math.sqrt(float(p) * (1 - float(p)) / n))
    assert abs(float(p) - q) < 4 * math.sqrt(2 * q * (1 - q) / n)


@pytest.mark.parametrize(
    "kw",
    [dict(d=1), dict(n_anchors=0), dict(eps=0.0), dict(scale=-1.0), dict(n_samples=0)],
)
def test_relative_probability_rejects_bad_input(kw):
    args = dict(d=3, n_anchors=4, eps=0.5, n_samples=100, scale=1.0) | kw
    with pytest.raises(ValueError):
        lohe.relative_degenerate_probability(jax.random.key(0), **args)


# ------------------------------------------------------ finite-time threshold
def test_threshold_closed_form_and_half():
    nh = np.array([0.3, 1.0, 2.0])
    dl = np.array([0.1, 0.5, 1.2])
    Tc = np.asarray(lohe.finite_time_threshold(nh, dl))
    assert_close(Tc, np.log(1 / np.tan(dl / 2)) / nh, scale=1e-4)
    for d in (
        2,
        7,
        100,
    ):  # exactly on the threshold the failure odds are 1/2 for every d
        p = lohe.finite_time_failure_probability(nh, Tc, dl, d)
        assert_close(p, 0.5, scale=0.1)


def test_threshold_separates_the_regimes():
    nh, dl = 1.0, 0.1
    Tc = float(lohe.finite_time_threshold(nh, dl))
    dims = [2, 4, 8, 16, 32, 64]
    below = [
        float(lohe.finite_time_failure_probability(nh, 0.7 * Tc, dl, d)) for d in dims
    ]
    above = [
        float(lohe.finite_time_failure_probability(nh, 1.3 * Tc, dl, d)) for d in dims
    ]
    assert np.all(np.diff(below) > 0) and below[-1] > 0.999
    assert np.all(np.diff(above) < 0) and above[-1] < 1e-3


def test_threshold_edges_and_jit():
    Tc = lohe.finite_time_threshold(
        jnp.array([0.0, 0.0, 2.0]), jnp.array([0.1, 2.0, jnp.pi / 2])
    )
    assert (
        np.isinf(Tc[0])
        and Tc[1] == 0.0
        and float(Tc[2]) == approx(0.0, scale=1e-3)
    )
    f = jax.jit(lohe.finite_time_threshold)
    assert_close(f(1.5, 0.3), lohe.finite_time_threshold(1.5, 0.3), scale=1e-4)


@pytest.mark.parametrize(
    "nh, dl", [(-1.0, 0.1), (np.nan, 0.1), (1.0, 0.0), (1.0, np.pi), (1.0, -0.2)]
)
def test_threshold_rejects_bad_input(nh, dl):
    with pytest.raises(ValueError):
        lohe.finite_time_threshold(nh, dl)


# ------------------------------------------------------------------ hull test (one instance)


def _origin_in_hull_2d(r):
    """d = 2, independently: 0 is in the hull iff no angular gap between the anchors'
    directions exceeds pi."""
    a = np.sort(np.arctan2(r[:, 1], r[:, 0]))
    gaps = np.diff(np.r_[a, a[0] + 2 * np.pi])
    return bool(gaps.max() <= np.pi)


def test_hull_contains_origin_against_angular_gaps():
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(200):
        m = int(rng.integers(2, 7))
        r = rng.standard_normal((m, 2)) * rng.uniform(0.1, 3.0, (m, 1))  # any norms
        got = lohe.hull_contains_origin(r)
        assert got == _origin_in_hull_2d(r)
        seen.add(got)
    assert seen == {True, False}  # both outcomes exercised


def test_hull_contains_origin_cases_and_errors():
    assert lohe.hull_contains_origin(np.array([[1.0, 0.0, 0.0], [-2.0, 0.0, 0.0]]))
    assert not lohe.hull_contains_origin(np.eye(3))  # a simplex face away from 0
    assert lohe.hull_contains_origin(np.vstack([np.eye(3), -np.ones((1, 3))]))
    with pytest.raises(ValueError, match="r must have shape"):
        lohe.hull_contains_origin(np.ones(3))
    with pytest.raises(ValueError):
        lohe.hull_contains_origin(np.array([[np.nan, 1.0]]))

"""Tests for syncattn.entropic against scipy.optimize, Dirichlet samples and numpy loops."""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.optimize
from hypothesis import given

from syncattn import entropic

from . import strategies
from .helpers import approx, assert_close


_N = 6  # one simplex size for the property tests: every new shape costs a compilation


def _np_objective(a, s, tau):
    """Float64 loop with the convention 0 log 0 = 0."""
    total = 0.0
    for aj, sj in zip(np.asarray(a, float), np.asarray(s, float), strict=True):
        if aj > 0:
            total += aj * sj - tau * aj * math.log(aj)
    return total


# scipy's SLSQP (ftol 1e-14 on the value) locates the maximiser only to about the
# square root of that: the optimiser's accuracy, not rounding
SLSQP_ATOL = 1e-5
# ... and the value (stationary at the maximiser, so less sensitive) to 1e-7: the
# optimiser's accuracy again
SLSQP_VALUE_ATOL = 1e-7

_scores = st.lists(st.floats(-30, 30), min_size=_N, max_size=_N).map(np.array)
_taus = st.floats(0.05, 20.0)


@given(s=_scores, tau=_taus, seed=strategies.seeds)
def test_gibbs_beats_random_simplex_points(s, tau, seed):
    a_star, value = entropic.gibbs(s, tau)
    rng = np.random.default_rng(seed)
    # Dirichlet samples from sparse to spread-out, plus the vertices
    pts = np.concatenate(
        [rng.dirichlet(np.full(_N, c), size=64) for c in (0.1, 1.0, 10.0)]
        + [np.eye(_N)]
    )
    F = np.asarray(entropic.objective(pts, s, tau))
    assert np.all(F <= float(value) + 1e-9 * (1 + abs(float(value))))
    assert float(np.sum(a_star)) == approx(1.0, scale=0.01)  # a sum of 6 weights
    assert np.all(np.asarray(a_star) >= 0)


@given(s=_scores, tau=_taus)
def test_value_is_objective_at_maximiser(s, tau):
    a_star, value = entropic.gibbs(s, tau)
    assert_close(entropic.objective(a_star, s, tau), value)
    assert float(value) == approx(_np_objective(a_star, s, tau))
    # value = tau log sum exp(s / tau), shifted by the max
    m = np.max(s)
    ref = m + tau * math.log(np.sum(np.exp((s - m) / tau)))
    assert float(value) == approx(ref, scale=0.1)


@pytest.mark.parametrize("seed, tau", [(0, 1.0), (1, 0.3), (2, 5.0)])
def test_gibbs_matches_scipy_slsqp(seed, tau):
    s = np.random.default_rng(seed).normal(size=_N) * 2
    cons = [
        {"type": "eq", "fun": lambda a: np.sum(a) - 1, "jac": lambda a: np.ones_like(a)}
    ]

    def neg(a):
        a = np.clip(a, 1e-300, None)
        return -(a @ s - tau * np.sum(a * np.log(a)))

    def neg_grad(a):
        a = np.clip(a, 1e-300, None)
        return -(s - tau * (np.log(a) + 1))

    res = scipy.optimize.minimize(
        neg,
        np.full(_N, 1 / _N),
        jac=neg_grad,
        method="SLSQP",
        constraints=cons,
        bounds=[(1e-12, 1)] * _N,
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert res.success
    a_star, value = entropic.gibbs(s, tau)
    assert_close(a_star, res.x, rtol=0, atol=SLSQP_ATOL)
    assert float(value) == pytest.approx(-res.fun, abs=SLSQP_VALUE_ATOL)


def test_gibbs_golden_axis_and_batch():
    a, v = entropic.gibbs(jnp.array([0.0, np.log(3.0)]), 1.0)
    assert_close(a, [0.25, 0.75])
    assert float(v) == approx(np.log(4.0), scale=1e-5)  # one log: a few ulp
    s = np.random.default_rng(3).normal(size=(4, 5, 3))
    a0, v0 = entropic.gibbs(s, 0.7, axis=1)
    a1, v1 = entropic.gibbs(np.moveaxis(s, 1, -1), 0.7)
    assert_close(np.moveaxis(np.asarray(a0), 1, -1), a1)
    assert_close(v0, v1)
    assert v0.shape == (4, 3)


def test_gibbs_stable_and_low_temperature_limit():
    s = jnp.array([1e4, -3e4, 1e4 - 1.0, 2.0])
    a, v = entropic.gibbs(s, 1e-3)
    assert np.all(np.isfinite(np.asarray(a))) and np.isfinite(float(v))
    # tau log(1 + e^{-1000} + ...) -> max s, to a few hundred ulp of 1e4
    assert float(v) == approx(1e4, scale=1e-3)
    assert_close(a, [1.0, 0.0, 0.0, 0.0])
    # high temperature: uniform weights, value ~ mean(s) + tau log n
    s = jnp.array([0.3, -0.2, 0.5])
    a, v = entropic.gibbs(s, 1e6)
    # a_j = softmax(s / tau)_j = (1 + O(|s| / tau)) / 3, and |s| / tau <= 5e-7: the
    # asymptotic band, not rounding
    assert_close(a, np.full(3, 1 / 3), rtol=1e-6)
    # v = mean(s) + tau log 3 + Var(s) / (2 tau) + ..., the last ~5e-8: the same band
    assert float(v) - 1e6 * np.log(3) == pytest.approx(0.2, abs=1e-5)


def test_gibbs_masked_scores():
    s = jnp.array([1.0, -jnp.inf, 2.0])
    a, v = entropic.gibbs(s, 1.0)
    assert_close(a, np.array([1.0, 0.0, np.e]) / (1 + np.e))
    assert float(v) == approx(np.log(np.e + np.e**2))
    assert float(entropic.objective(a, s, 1.0)) == approx(float(v))
    g = jax.grad(lambda x: entropic.gibbs(x, 1.0)[1])(s)
    assert np.all(np.isfinite(np.asarray(g)))
    assert_close(g, a)  # d value / d s = a_star


def test_objective_vs_numpy_loop_and_zero_entries():
    rng = np.random.default_rng(4)
    a = rng.dirichlet(np.ones(_N), size=3)
    a[0, 2] = 0.0
    a[0] /= a[0].sum()
    s = rng.normal(size=(3, _N))
    F = np.asarray(entropic.objective(a, s, 0.8))
    for b in range(3):
        assert F[b] == approx(_np_objective(a[b], s[b], 0.8), scale=1e-3)
    # 0 log 0 = 0, golden value, and tau = 0 is the linear score
    a0 = jnp.array([0.5, 0.5, 0.0])
    s0 = jnp.array([1.0, 3.0, 7.0])
    assert float(entropic.objective(a0, s0, 1.0)) == approx(2.0 + np.log(2.0))
    assert float(entropic.objective(a0, s0, 0.0)) == approx(2.0)
    # gradient: d/da_j = s_j - tau (log a_j + 1), reported finite (0 entropy part) at a_j = 0
    g = np.asarray(jax.grad(entropic.objective)(a0, s0, 1.0))
    assert np.all(np.isfinite(g))
    assert_close(g[:2], np.asarray(s0[:2]) - (np.log(0.5) + 1))
    assert_close(jax.grad(entropic.objective, argnums=2)(a0, s0, 1.0), np.log(2.0))


@given(seed=strategies.seeds)
def test_local_coherence_gradient_is_kuramoto_coupling(seed):
    rng = np.random.default_rng(seed)
    T, U, k = 3, 5, 2
    theta_t = rng.uniform(-np.pi, np.pi, (T, k))
    theta_u = rng.uniform(-np.pi, np.pi, (U, k))
    A = rng.uniform(0, 1, (T, U))
    G = np.einsum("tu,uk->tk", A, np.exp(1j * theta_u))
    grad = np.asarray(
        jax.grad(lambda th: jnp.sum(entropic.local_coherence(th, G)))(theta_t)
    )
    ref = np.zeros((T, k))
    for t in range(T):
        for c in range(k):
            for u in range(U):
                ref[t, c] += A[t, u] * math.sin(theta_u[u, c] - theta_t[t, c])
    assert_close(grad, ref, scale=0.01)  # |ref| <= U = 5: at most 5e-12
    # and the value is Re(e^{-i theta} G) = sum_u A_tu cos(theta_u - theta_t)
    val = np.einsum("tu,tuk->tk", A, np.cos(theta_u[None] - theta_t[:, None]))
    assert_close(entropic.local_coherence(theta_t, G), val, scale=0.01)


def test_local_coherence_golden_and_real_G():
    assert float(entropic.local_coherence(np.pi / 2, 2.0 + 3.0j)) == approx(3.0)
    assert float(entropic.local_coherence(0.0, 2.0 + 3.0j)) == approx(2.0)
    assert float(entropic.local_coherence(np.pi / 3, 2.0)) == approx(1.0)


def test_float32_dtype_preserved():
    s = jnp.array([0.1, 2.0, -1.0, 0.5], jnp.float32)
    a, v = entropic.gibbs(s, 0.5)
    assert a.dtype == jnp.float32 and v.dtype == jnp.float32
    assert entropic.objective(a, s, 0.5).dtype == jnp.float32
    assert float(entropic.objective(a, s, 0.5)) == approx(float(v), jnp.float32)
    th = jnp.array([0.3, 1.0], jnp.float32)
    G = jnp.array([1 + 2j, -0.5j], jnp.complex64)
    c = entropic.local_coherence(th, G)
    assert c.dtype == jnp.float32
    assert_close(  # float32, one product: a tenth of float32's tolerance
        c, np.real(np.exp(-1j * np.asarray(th, float)) * np.asarray(G)), scale=0.1
    )


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: entropic.gibbs(jnp.ones(3), 0.0), ValueError, "tau"),
        (lambda: entropic.gibbs(jnp.ones(3), -1.0), ValueError, "tau"),
        (lambda: entropic.gibbs(jnp.ones(3), jnp.ones(3)), ValueError, "tau"),
        (lambda: entropic.gibbs(jnp.ones(3), np.nan), ValueError, "tau"),
        (lambda: entropic.gibbs(jnp.array([1.0, jnp.nan]), 1.0), ValueError, "s"),
        (lambda: entropic.gibbs(jnp.array([1.0, jnp.inf]), 1.0), ValueError, "s"),
        (lambda: entropic.gibbs(jnp.array([-jnp.inf, -jnp.inf]), 1.0), ValueError, "s"),
        (lambda: entropic.gibbs(jnp.zeros((2, 0)), 1.0), ValueError, "s"),
        (lambda: entropic.gibbs(1.0, 1.0), ValueError, "s"),
        (lambda: entropic.gibbs(jnp.ones(3), 1.0, axis=2), ValueError, "axis"),
        (
            lambda: entropic.objective(jnp.array([0.5, 0.5]), jnp.ones(3), 1.0),
            ValueError,
            "shapes",
        ),
        (
            lambda: entropic.objective(jnp.array([1.5, -0.5]), jnp.ones(2), 1.0),
            ValueError,
            "non-negative",
        ),
        (
            lambda: entropic.objective(jnp.array([0.5, 0.5]), jnp.ones(2), -1.0),
            ValueError,
            "tau",
        ),
        (
            lambda: entropic.local_coherence(jnp.ones(2), jnp.ones(3) * 1j),
            ValueError,
            "shapes",
        ),
        (
            lambda: entropic.local_coherence(jnp.ones(2) * 1j, jnp.ones(2)),
            TypeError,
            "theta_t",
        ),
        (
            lambda: entropic.local_coherence(jnp.ones(2), jnp.array([1j, jnp.nan])),
            ValueError,
            "G",
        ),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_jit_and_vmap_agree_with_eager():
    s = jnp.asarray(np.random.default_rng(6).normal(size=(3, _N)))
    a, v = entropic.gibbs(s, 0.5)
    aj, vj = jax.jit(entropic.gibbs)(s, 0.5)
    av, vv = jax.vmap(entropic.gibbs, (0, None))(s, 0.5)
    assert_close(aj, a)
    assert_close(vj, v)
    assert_close(av, a)
    assert_close(vv, v)
    assert_close(jax.jit(entropic.objective)(a, s, 0.5), v, scale=0.1)

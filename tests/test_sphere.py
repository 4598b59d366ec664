"""Tests for syncattn.sphere against closed forms, scipy and Monte Carlo."""

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from hypothesis import given

from syncattn import sphere

from . import strategies
from .helpers import approx, assert_close


# few distinct shapes: every new shape costs a compilation
_units = strategies.unit_vectors(d=st.sampled_from([2, 5]), batch=st.just([3]))


def _angle(x, y):
    """Stable float64 angle between unit vectors: 2 atan2(|x - y|, |x + y|)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return 2 * np.arctan2(
        np.linalg.norm(x - y, axis=-1), np.linalg.norm(x + y, axis=-1)
    )


def _tangent(x, seed, scale):
    """A random tangent vector at each row of x with norm scale * U(0, 1)."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x, float)
    v = rng.normal(size=x.shape)
    v -= np.sum(x * v, -1, keepdims=True) * x
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    return v * scale * rng.uniform(size=x.shape[:-1] + (1,))


# --- normalize / project_tangent / exp_map --------------------------------------


@given(seed=strategies.seeds)
def test_normalize_unit_and_parallel(seed):
    x = (
        np.random.default_rng(seed).normal(size=(4, 3))
        * 10.0 ** np.arange(-3, 1)[:, None]
    )
    u = np.asarray(sphere.normalize(x))
    assert_close(np.linalg.norm(u, axis=-1), 1.0)
    assert_close(u, x / np.linalg.norm(x, axis=-1, keepdims=True))
    assert_close(sphere.normalize(x.T, axis=0), u.T)


def test_normalize_jacobian_vs_closed_form():
    x = jnp.array([0.3, -1.2, 2.0])
    J = np.asarray(jax.jacobian(sphere.normalize)(x))
    n = np.linalg.norm(np.asarray(x))
    u = np.asarray(x) / n
    assert_close(J, (np.eye(3) - np.outer(u, u)) / n)


def test_normalize_zero_vector_finite_gradient():
    z = sphere.normalize(jnp.zeros((2, 4)))
    np.testing.assert_array_equal(np.asarray(z), 0.0)
    J = np.asarray(jax.jacobian(sphere.normalize)(jnp.zeros(3)))
    assert np.all(np.isfinite(J))
    g = jax.grad(lambda x: jnp.sum(sphere.normalize(x) ** 2))(jnp.zeros(3))
    assert np.all(np.isfinite(np.asarray(g)))


@given(x=_units, seed=strategies.seeds)
def test_project_tangent(x, seed):
    v = np.random.default_rng(seed).normal(size=x.shape)
    p = np.asarray(sphere.project_tangent(x, v))
    xn = np.asarray(x)
    ref = np.stack(
        [
            (np.eye(xn.shape[-1]) - np.outer(a, a)) @ b
            for a, b in zip(xn, v, strict=True)
        ]
    )
    assert_close(p, ref)
    assert np.all(np.abs(np.sum(xn * p, -1)) < 1e-12)  # orthogonal to x
    assert_close(sphere.project_tangent(x, p), p)  # idempotent


@given(x=_units, seed=strategies.seeds)
def test_exp_map_geodesic(x, seed):
    v = _tangent(x, seed, np.pi)  # ||v|| <= pi
    y = np.asarray(sphere.exp_map(x, v))
    assert np.all(np.abs(np.linalg.norm(y, axis=-1) - 1) < 1e-12)
    assert_close(_angle(x, y), np.linalg.norm(v, axis=-1))
    # independent: the rotation exp(v x^T - x v^T) carries x along the geodesic
    for xi, vi, yi in zip(np.asarray(x), v, y, strict=True):
        R = scipy.linalg.expm(np.outer(vi, xi) - np.outer(xi, vi))
        assert_close(yi, R @ xi)


def test_exp_map_golden_and_at_zero():
    x = jnp.array([1.0, 0.0, 0.0])
    # cos(pi/2) = 6e-17 in float64: atol 1e-15
    assert_close(sphere.exp_map(x, jnp.array([0.0, np.pi / 2, 0.0])), [0, 1, 0], scale=1e-3)
    assert_close(sphere.exp_map(x, jnp.array([0.0, 0.0, np.pi])), [-1, 0, 0], scale=1e-3)
    np.testing.assert_array_equal(
        np.asarray(sphere.exp_map(x, jnp.zeros(3))), np.asarray(x)
    )
    J = np.asarray(jax.jacobian(sphere.exp_map, argnums=1)(x, jnp.zeros(3)))
    assert np.all(np.isfinite(J))
    assert_close(J, np.eye(3))  # d/dv exp_x(v) at v = 0 is the identity
    # derivative along t of exp_x(t v) at t = 0 is v (finite differences)
    v = jnp.array([0.0, 0.3, -0.7])
    h = 1e-6
    fd = (sphere.exp_map(x, h * v) - sphere.exp_map(x, -h * v)) / (2 * h)
    assert_close(fd, v, rtol=1e-8, atol=1e-9)  # central differences: truncation error


# --- sample_uniform --------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 5])
def test_sample_uniform_distribution(d):
    n = 20_000
    z = np.asarray(sphere.sample_uniform(key=jax.random.key(d), shape=(n,), d=d))
    assert z.shape == (n, d) and z.dtype == np.float64
    assert np.all(np.abs(np.linalg.norm(z, axis=-1) - 1) < 1e-12)
    # each coordinate has mean 0 and variance 1/d
    assert np.all(np.abs(z.mean(0)) < 5 / np.sqrt(n * d))
    assert np.all(np.abs(z.var(0) - 1 / d) < 0.05 / d)
    # known marginal: (z_1 + 1)/2 ~ Beta((d-1)/2, (d-1)/2)
    a = (d - 1) / 2
    for coord in (0, d - 1):
        p = scipy.stats.kstest((z[:, coord] + 1) / 2, scipy.stats.beta(a, a).cdf).pvalue
        assert p > 1e-3


def test_sample_uniform_shapes_and_dtype():
    # eval_shape traces without compiling
    key = jax.random.key(0)

    def shape(*args, **kw):
        return jax.eval_shape(lambda k: sphere.sample_uniform(k, *args, **kw), key)

    assert shape(4, 3).shape == (4, 3)
    assert shape((2, 5), 7).shape == (2, 5, 7)
    assert shape((), 2).shape == (2,)
    assert shape(3, 4, dtype=jnp.float32).dtype == jnp.float32
    assert shape(3, 4).dtype == jnp.float64


# --- cap_probability ----------------------------------------------------------

# one grid for every cap test (each new shape costs a compilation of betainc):
# step pi/240, so pi/4 = _A[60], pi/3 = _A[80], pi/2 = _A[120]
_A = np.linspace(0.0, np.pi, 241)
_cap_grad = jax.vmap(jax.grad(sphere.cap_probability), (0, None))


def test_cap_closed_forms():
    assert_close(sphere.cap_probability(_A, 2), _A / np.pi, scale=0.1)
    assert_close(sphere.cap_probability(_A, 3), (1 - np.cos(_A)) / 2, scale=0.1)
    assert float(sphere.cap_probability(_A, 17)[120]) == approx(0.5, scale=1e-4)


@pytest.mark.parametrize("d", [2, 4, 5, 8, 32, 101])
def test_cap_vs_scipy_beta(d):
    # angle < alpha  <=>  z_1 > cos(alpha), and (z_1 + 1)/2 ~ Beta((d-1)/2, (d-1)/2)
    a = (d - 1) / 2
    ref = scipy.stats.beta.sf((1 + np.cos(_A)) / 2, a, a)
    assert_close(sphere.cap_probability(_A, d), ref)


@pytest.mark.parametrize("d", [2, 3, 8, 32])
def test_cap_monte_carlo(d):
    n = 100_000
    rng = np.random.default_rng(1000 + d)
    g = rng.normal(size=(n, d))
    p = rng.normal(size=d)
    cos = g @ (p / np.linalg.norm(p)) / np.linalg.norm(g, axis=-1)
    ang = np.arccos(np.clip(cos, -1, 1))
    idx = [23, 76, 107, 120, 145, 199]  # alpha ~ 0.30, 0.99, 1.40, pi/2, 1.90, 2.61
    est = (ang[:, None] < _A[idx]).mean(0)
    P = np.asarray(sphere.cap_probability(_A, d))[idx]
    sigma = np.sqrt(P * (1 - P) / n)
    assert np.all(np.abs(est - P) <= 4 * sigma + 1e-12), (est, P)


@pytest.mark.parametrize("d", [2, 8, 40])
def test_cap_monotone_endpoints_and_gradient(d):
    P = np.asarray(sphere.cap_probability(_A, d))
    assert np.all(np.diff(P) >= 0)
    assert P[0] == 0.0 and P[-1] == approx(1.0, scale=1e-4)
    g = np.asarray(_cap_grad(jnp.asarray(_A), d))
    assert np.all(np.isfinite(g))  # including alpha in {0, pi/2, pi}
    # central differences on the grid (step h = pi/240): error h^2/6 max|P'''|,
    # and P''' = O(d^1.5) near pi/2
    fd = (P[2:] - P[:-2]) / (2 * (_A[1] - _A[0]))
    np.testing.assert_allclose(g[1:-1], fd, atol=2e-5 * d**1.5, rtol=0)
    # and with a small step at a few points
    # (central differences, h = 1e-6: round-off / h ~ 1e-10 plus O(h^2), a method band)
    h = 1e-6
    for i in (24, 100, 170):
        fd_i = float(sphere.cap_probability(_A[i] + h, d))
        fd_i = (fd_i - float(sphere.cap_probability(_A[i] - h, d))) / (2 * h)
        assert g[i] == pytest.approx(fd_i, rel=1e-6, abs=1e-9)


def test_cap_gradient_closed_forms_and_jit():
    assert_close(_cap_grad(jnp.asarray(_A), 2), np.full(_A.shape, 1 / np.pi))
    assert_close(_cap_grad(jnp.asarray(_A), 3), np.sin(_A) / 2, scale=0.1)
    f = jax.jit(sphere.cap_probability, static_argnums=1)
    assert float(f(1.0, 3)) == approx((1 - np.cos(1.0)) / 2, scale=1e-4)


def test_cap_float32():
    a = jnp.asarray(_A, jnp.float32)
    P = sphere.cap_probability(a, 3)
    assert P.dtype == jnp.float32
    # float32, |P| <= 1: atol 3e-6 (max error measured 6.8e-7 with XLA's default backend
    # optimisation, 1.3e-6 at level 0, which tests/conftest.py sets: 11 float32 ulps at 1)
    assert_close(P, (1 - np.cos(_A)) / 2, scale=0.3)
    assert sphere.cap_probability_bound(a, 3).dtype == jnp.float32
    assert float(P[-1]) == approx(1.0, jnp.float32, scale=0.1)


# --- cap_probability_bound ---------------------------------------------------------


def _rho(a):
    """The bound's base, written independently in numpy."""
    return np.where(
        a <= np.pi / 4, 1 / (2 * np.cos(a)), np.where(a <= np.pi / 2, np.sin(a), 1.0)
    )


def test_cap_bound_dominates_and_log_linear():
    ds = np.arange(2, 201)
    B = np.stack([np.asarray(sphere.cap_probability_bound(_A, int(d))) for d in ds])
    P = np.stack(
        [
            scipy.stats.beta.sf((1 + np.cos(_A)) / 2, (d - 1) / 2, (d - 1) / 2)
            for d in ds
        ]
    )
    assert np.all(P <= B)
    below = _A < np.pi / 2
    assert np.all(B[:, ~below] == 1.0)
    a, B = _A[below], B[:, below]
    assert np.all(B <= np.exp(-ds[:, None] * np.cos(a) ** 2 / 2) * (1 + 1e-12))
    # log bound = d log rho(alpha): exactly linear in d, slope log rho < 0
    logB = np.log(B)
    assert_close(logB, ds[:, None] * np.log(_rho(a)), scale=0.01)
    assert np.all(np.abs(np.diff(logB, n=2, axis=0)) < 1e-9)
    assert np.all(np.log(_rho(a)) < 0)
    # and it also dominates the implementation's own cap_probability
    for d in (2, 3, 8, 32, 200):
        P = np.asarray(sphere.cap_probability(_A, d))
        assert np.all(P <= np.asarray(sphere.cap_probability_bound(_A, d)))


def test_cap_bound_golden_and_gradient():
    B = np.asarray(sphere.cap_probability_bound(_A, 2))
    assert B[60] == approx(0.5)  # alpha = pi/4: (1/sqrt 2)^2
    assert B[0] == approx(1 / 4)  # alpha = 0: (1/2)^2
    assert B[80] == approx(np.sin(np.pi / 3) ** 2)  # alpha = pi/3
    grad = jax.vmap(jax.grad(sphere.cap_probability_bound), (0, None))
    g = np.asarray(grad(jnp.asarray(_A), 5))
    assert np.all(np.isfinite(g))
    # d/dalpha rho^5 = 5 rho^4 rho', rho' = rho tan(alpha) below pi/4, cos above
    a = _A[1:120]
    rho = _rho(a)
    drho = np.where(a <= np.pi / 4, rho * np.tan(a), np.cos(a))
    assert_close(g[1:120], 5 * rho**4 * drho)
    assert np.all(g[121:] == 0.0)


# --- bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: sphere.normalize(jnp.array([1.0, jnp.nan])), ValueError, "x"),
        (lambda: sphere.normalize(jnp.zeros((3, 0))), ValueError, "x"),
        (lambda: sphere.normalize(jnp.ones(3), axis=1), ValueError, "axis"),
        (lambda: sphere.normalize(2.0), ValueError, "x"),
        (
            lambda: sphere.project_tangent(jnp.zeros(3), jnp.zeros(4)),
            ValueError,
            "shapes",
        ),
        (
            lambda: sphere.exp_map(jnp.ones(3), jnp.array([0.0, jnp.inf, 0.0])),
            ValueError,
            "v",
        ),
        (lambda: sphere.exp_map(jnp.ones(3), jnp.ones(3) * 1j), TypeError, "v"),
        (lambda: sphere.sample_uniform(jax.random.key(0), 3, 1), ValueError, "d"),
        (lambda: sphere.sample_uniform(jax.random.key(0), 3, 2.0), TypeError, "d"),
        (
            lambda: sphere.sample_uniform(jax.random.key(0), (-1,), 3),
            ValueError,
            "shape",
        ),
        (lambda: sphere.cap_probability(-0.1, 3), ValueError, "alpha"),
        (lambda: sphere.cap_probability(np.array([0.0, 3.2]), 3), ValueError, "alpha"),
        (lambda: sphere.cap_probability(np.nan, 3), ValueError, "alpha"),
        (lambda: sphere.cap_probability(0.5, 1), ValueError, "d"),
        (lambda: sphere.cap_probability(0.5, True), TypeError, "d"),
        (lambda: sphere.cap_probability_bound(4.0, 3), ValueError, "alpha"),
        (lambda: sphere.cap_probability_bound(1.0, 0), ValueError, "d"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()

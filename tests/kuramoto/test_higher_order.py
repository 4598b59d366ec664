"""Tests for the simplicial (pairwise + triadic) Kuramoto model (kuramoto/_higher_order.py)
against independent float64 computations: brute-force double and triple sums in numpy,
scipy's solve_ivp, and (slow) simulations at N = 10^4 against the Ott-Antonsen branches.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate

from syncattn import kuramoto

from ..helpers import assert_close


def brute_field(theta, omega, K, W):
    """omega_i + sum_j K_ij sin(theta_j - theta_i) + sum_{j,l} W_ijl sin(2 theta_j - theta_l - theta_i)."""
    theta = np.asarray(theta, np.float64)
    n = theta.shape[-1]
    out = np.array(np.broadcast_to(omega, theta.shape), np.float64)
    for i in range(n):
        for j in range(n):
            out[..., i] += K[i, j] * np.sin(theta[..., j] - theta[..., i])
            for l in range(n):
                out[..., i] += W[i, j, l] * np.sin(
                    2 * theta[..., j] - theta[..., l] - theta[..., i]
                )
    return out


def dense_field(theta, omega, K, W):
    """The same sums by numpy broadcasting (one evaluation per ODE step of the reference)."""
    d1 = theta[None, :] - theta[:, None]
    d2 = 2 * theta[None, :, None] - theta[None, None, :] - theta[:, None, None]
    return omega + np.sum(K * np.sin(d1), axis=1) + np.sum(W * np.sin(d2), axis=(1, 2))


def _random_triangles(rng, n, T):
    tri = rng.integers(0, n, size=(T, 3))
    w = rng.normal(size=T)
    W = np.zeros((n, n, n))
    np.add.at(W, (tri[:, 0], tri[:, 1], tri[:, 2]), w)
    return kuramoto.TriangleList.from_array(tri, w, n), W


def test_mean_field_triadic_equals_triple_sum():
    rng = np.random.default_rng(0)
    n, K1, K2 = 6, 1.3, -0.7
    theta = rng.uniform(-np.pi, np.pi, (2, n))
    omega = rng.normal(size=n)
    want = brute_field(theta, omega, np.full((n, n), K1 / n), np.full((n, n, n), K2 / n**2))
    got = kuramoto.simplicial_field(theta, omega, K1, K2)
    assert_close(got, want)
    # the all-to-all triangle list is the same coupling, summed triangle by triangle
    tri = kuramoto.TriangleList.all_to_all(n, K2)
    assert_close(kuramoto.simplicial_field(theta, omega, K1, tri), want)
    assert_close(tri.todense(), np.full((n, n, n), K2 / n**2))


def test_triangle_list_and_pairwise_forms_against_brute_force():
    rng = np.random.default_rng(1)
    n = 7
    theta = rng.uniform(-np.pi, np.pi, n)
    omega = rng.normal(size=n)
    K = rng.normal(size=(n, n))
    tri, W = _random_triangles(rng, n, 25)
    want = brute_field(theta, omega, K, W)
    assert_close(kuramoto.simplicial_field(theta, omega, K, tri), want)
    assert_close(kuramoto.simplicial_field(theta, omega, kuramoto.EdgeList.from_dense(K), tri), want)
    assert_close(tri.todense(), W)
    # K2 = 0 and no triangles: the pairwise Kuramoto field
    empty = kuramoto.TriangleList.from_array(np.zeros((0, 3), int), np.zeros(0), n)
    assert_close(kuramoto.simplicial_field(theta, omega, K, empty), kuramoto.vector_field(theta, omega, K))
    assert_close(kuramoto.simplicial_field(theta, omega, K, 0.0), kuramoto.vector_field(theta, omega, K))


def test_simplicial_field_jit_grad_float32():
    theta = jnp.linspace(0.0, 3.0, 5)
    f = jax.jit(lambda th: kuramoto.simplicial_field(th, 0.1, 1.0, 2.0))
    assert_close(f(theta), kuramoto.simplicial_field(theta, 0.1, 1.0, 2.0))
    g = jax.grad(lambda th: jnp.sum(kuramoto.simplicial_field(th, 0.0, 1.0, 2.0) ** 2))(theta)
    assert np.all(np.isfinite(g))
    assert kuramoto.simplicial_field(theta.astype(jnp.float32), 0.0, 1.0, 2.0).dtype == jnp.float32


def test_simplicial_input_errors():
    theta = jnp.zeros(4)
    with pytest.raises(ValueError, match="must lie in \\[0, n=4\\)"):
        kuramoto.TriangleList.from_array([[0, 1, 4]], [1.0], 4)
    with pytest.raises(ValueError, match="shape \\(T, 3\\)"):
        kuramoto.TriangleList.from_array([[0, 1]], [1.0], 4)
    with pytest.raises(ValueError, match="equal length T"):
        kuramoto.TriangleList.from_array([[0, 1, 2]], [1.0, 2.0], 4)
    with pytest.raises(ValueError, match="weights must be finite"):
        kuramoto.TriangleList.from_array([[0, 1, 2]], [np.nan], 4)
    with pytest.raises(TypeError, match="integer indices"):
        kuramoto.TriangleList(jnp.zeros(1), jnp.zeros(1, int), jnp.zeros(1, int), jnp.ones(1), 4)
    with pytest.raises(ValueError, match="n=3 but theta has N=4"):
        kuramoto.simplicial_field(theta, 0.0, 1.0, kuramoto.TriangleList.all_to_all(3, 1.0))
    with pytest.raises(ValueError, match="scalar K2"):
        kuramoto.simplicial_field(theta, 0.0, 1.0, jnp.ones(4))
    with pytest.raises(ValueError, match="triadic must be finite"):
        kuramoto.simplicial_field(theta, 0.0, 1.0, np.nan)
    with pytest.raises(ValueError, match="theta must be finite"):
        kuramoto.simplicial_field(jnp.array([0.0, np.nan]), 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="gamma"):
        kuramoto.simplicial_fixed_points(1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="K2"):
        kuramoto.simplicial_transition(-1.0, 0.5)


def test_simplicial_simulate_matches_solve_ivp():
    rng = np.random.default_rng(2)
    n = 6
    theta0 = rng.uniform(-np.pi, np.pi, n)
    omega = rng.normal(scale=0.3, size=n)
    tri, W = _random_triangles(rng, n, 12)
    K = np.full((n, n), 0.8 / n)
    ts = np.linspace(0.0, 5.0, 6)
    assert_close(dense_field(theta0, omega, K, W), brute_field(theta0, omega, K, W))
    ref = scipy.integrate.solve_ivp(
        lambda t, y: dense_field(y, omega, K, W), (0, 5), theta0, t_eval=ts,
        method="DOP853", rtol=1e-12, atol=1e-12,
    ).y.T
    sol = kuramoto.simplicial_simulate(theta0, omega, 0.8, tri, 5.0, saveat=6, rtol=1e-11, atol=1e-12)
    # two solves at rtol 1e-11..1e-12 over t = 5: solver error, not rounding
    np.testing.assert_allclose(sol.theta, ref, atol=1e-8)


# ------------------------------------------------------------------ Ott-Antonsen theory
def test_ott_antonsen_quintic_and_its_branches():
    r = np.linspace(0.0, 1.0, 11)
    K1, K2, g = 0.5, 3.0, 0.5
    want = -g * r + K1 / 2 * (r - r**3) + K2 / 2 * (r**3 - r**5)
    assert_close(kuramoto.simplicial_ott_antonsen_rhs(r, K1, K2, g), want)
    assert_close(kuramoto.simplicial_ott_antonsen_rhs(r, 1.5, 0.0, g), kuramoto.ott_antonsen_rhs(r, 1.5, g))
    # bistable point: u = 1/2 and 1/3 are the roots of p(u) = 3u^2 - 2.5u + 0.5
    r_s, r_u = kuramoto.simplicial_fixed_points(K1, K2, g)
    assert_close(np.array([r_s, r_u]), np.sqrt([0.5, 1 / 3]))
    rhs = lambda x: float(kuramoto.simplicial_ott_antonsen_rhs(x, K1, K2, g))
    h = 1e-6
    assert (rhs(r_s + h) - rhs(r_s - h)) / (2 * h) < 0  # stable
    assert (rhs(r_u + h) - rhs(r_u - h)) / (2 * h) > 0  # unstable
    # K2 = 0: the Kuramoto branch sqrt(1 - 2 gamma / K1), one root
    r_s, r_u = kuramoto.simplicial_fixed_points(jnp.array([0.5, 2.0]), 0.0, g)
    assert np.isnan(r_s[0]) and np.isnan(r_u).all()
    assert_close(r_s[1], np.sqrt(0.5))


def test_fixed_points_are_roots_and_nan_where_absent():
    rng = np.random.default_rng(3)
    K1 = rng.uniform(-2, 4, 400)
    K2 = rng.uniform(0, 8, 400)
    g = rng.uniform(0.1, 1.0, 400)
    r_s, r_u = map(np.asarray, kuramoto.simplicial_fixed_points(K1, K2, g))
    for r_ in (r_s, r_u):
        ok = ~np.isnan(r_)
        res = -g[ok] * r_[ok] + K1[ok] / 2 * (r_[ok] - r_[ok] ** 3) + K2[ok] / 2 * (r_[ok] ** 3 - r_[ok] ** 5)
        np.testing.assert_allclose(res, 0.0, atol=1e-12)
        assert np.all((r_[ok] > 0) & (r_[ok] <= 1))
    # independent count of the roots of r h(r^2) in (0, 1] by numpy's polynomial roots
    for k in range(0, 400, 7):
        u = np.roots([K2[k], K1[k] - K2[k], 2 * g[k] - K1[k]])
        u = np.sort(u[(np.abs(u.imag) < 1e-12) & (u.real > 0) & (u.real <= 1)].real)
        got = np.sort([x**2 for x in (r_s[k], r_u[k]) if not np.isnan(x)])
        np.testing.assert_allclose(got, u, atol=1e-9)
    # bistability exactly where K_b < K1 < 2 gamma (K2 > 2 gamma)
    K_f, K_b = map(np.asarray, kuramoto.simplicial_transition(K2, g))
    bistable = (K_b < K1) & (K1 < K_f)
    assert np.array_equal(bistable, ~np.isnan(r_s) & ~np.isnan(r_u) & (K1 < 2 * g))
    assert_close(K_b, np.where(K2 > 2 * g, np.sqrt(8 * g * K2) - K2, 2 * g))


# ------------------------------------------------------------------ simulations, N = 10^4
@pytest.mark.slow
def test_bistability_and_explosive_transition_at_large_n():
    """N = 10^4 sampled Lorentzian oscillators, gamma = 0.5, K2 = 3 (K_b = sqrt(6) - 3 < 0):
    at K1 = 0.5 both r = 0 (from incoherence) and r_+ = sqrt(1/2) (from synchrony) persist;
    at K1 = 1.2 > K_f incoherence jumps to r_+ = 0.834; at K1 = -0.7 < K_b synchrony dies."""
    n, gamma, K2, t1 = 10_000, 0.5, 3.0, 120.0
    omega = kuramoto.sample_lorentzian(jax.random.key(0), (n,), gamma)
    incoherent = jax.random.uniform(jax.random.key(1), (n,), minval=-np.pi, maxval=np.pi)
    synchronous = jnp.zeros(n)

    def r_end(theta0, K1):
        sol = kuramoto.simplicial_simulate(
            theta0, omega, K1, K2, t1, saveat=61, save_phases=False, rtol=1e-4, atol=1e-6
        )
        return float(np.mean(np.asarray(sol.r)[-15:]))  # the last quarter

    r_plus = lambda K1: float(kuramoto.simplicial_fixed_points(K1, K2, gamma)[0])
    # finite N (fluctuations ~ N^{-1/2} = 0.01), a finite window, rtol 1e-4: a band
    assert abs(r_end(synchronous, 0.5) - r_plus(0.5)) < 0.03
    assert r_end(incoherent, 0.5) < 0.05
    assert abs(r_end(incoherent, 1.2) - r_plus(1.2)) < 0.03
    assert r_end(synchronous, -0.7) < 0.05

"""Noise and frequency disorder (issue 19): the vMF theory, locking, the SDE path, bad input."""

import diffrax
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from scipy.special import ive

from syncattn import kuramoto, lohe, sphere

from ..helpers import approx, assert_close


# ------------------------------------------------------------------ A_d and the vMF law
@pytest.mark.parametrize("d", [2, 3, 4, 9, 32, 64])
def test_mean_resultant_against_scipy_bessel_ratio(d):
    k = np.logspace(-6, 5, 60)
    want = ive(d / 2, k) / ive(d / 2 - 1, k)  # scipy's scaled Bessel functions
    assert_close(lohe.mean_resultant(k, d), want, scale=1e-3, atol=0)  # rel 1e-13


def test_mean_resultant_edges_and_derivative():
    assert_close(lohe.mean_resultant(jnp.array([0.0, jnp.inf]), 5), [0.0, 1.0])
    # A_3 = coth k - 1/k: A_3' = 1/k^2 - 1/sinh^2 k, against the custom JVP
    for k in (1e-9, 0.3, 2.0, 50.0):
        g = jax.grad(lambda x: lohe.mean_resultant(x, 3))(k)
        want = 1 / 3 if k < 1e-6 else 1 / k**2 - 1 / np.sinh(k) ** 2
        assert float(g) == approx(want, scale=1e2)
    # large kappa: the asymptotic branch against the expansion's first terms
    k = 1e7
    assert float(lohe.mean_resultant(k, 4)) == approx(1 - 3 / (2 * k) - 3 / (8 * k**2))


def test_vmf_moments_degenerate_limits():
    h = jnp.array([0.0, 3.0, 4.0])
    m, S = lohe.vmf_moments(h, 0.0)  # sigma = 0: the point mass at h_hat
    u = np.asarray(h) / 5
    assert_close(m, u)
    assert_close(S, np.outer(u, u))
    m, S = lohe.vmf_moments(jnp.zeros(3), 0.7)  # h = 0: the uniform law
    assert_close(m, np.zeros(3))
    assert_close(S, np.eye(3) / 3)
    assert float(lohe.vmf_concentration(jnp.zeros(3), 0.0)) == 0.0
    assert float(lohe.vmf_concentration(h, 0.0)) == np.inf


def test_vmf_readout_at_zero_noise_is_the_readout_at_h_hat():
    g = np.random.default_rng(0)
    h = g.normal(size=(5, 4))
    r = g.normal(size=(7, 4))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    z = h / np.linalg.norm(h, axis=-1, keepdims=True)
    for p in (1, 2):
        assert_close(lohe.vmf_readout(h, 0.0, r, p=p), lohe.readout(z, r, p=p))


@pytest.mark.parametrize("p", [1, 2])
def test_vmf_readout_is_the_expected_weight_for_balanced_anchors(p):
    """Anchors +-e_i: the readout's denominator is constant on the sphere, so
    vmf_readout equals E[a_j] exactly; Monte Carlo (scipy vMF) within 4 s.e."""
    from scipy.stats import vonmises_fisher

    d, s, n = 3, 0.9, 40_000
    g = np.random.default_rng(1)
    h = g.normal(size=d)
    r = np.concatenate([np.eye(d), -np.eye(d)])
    z = vonmises_fisher(h / np.linalg.norm(h), 2 * np.linalg.norm(h) / s**2).rvs(
        n, random_state=g
    )
    a = np.asarray(lohe.readout(z, r, p=p))
    est, se = a.mean(0), a.std(0) / np.sqrt(n)
    want = np.asarray(lohe.vmf_readout(h, s, r, p=p))
    assert np.all(np.abs(est - want) <= 4 * se)


def test_ito_drift_equals_the_stratonovich_correction_by_autodiff():
    """(sigma^2/2) sum_k (D g_k) g_k with g_k = (I - z z^T) e_k, by jax.jacfwd."""
    d, s = 5, 0.7
    g = np.random.default_rng(2)
    z = g.normal(size=d)
    z /= np.linalg.norm(z)
    b = g.normal(size=d)
    b -= (b @ z) * z
    G = lambda y: jnp.eye(d) - jnp.outer(y, y)  # columns g_k
    DG = jax.jacfwd(G)(jnp.asarray(z))  # DG[i, k, j] = d g_k[i] / d z_j
    corr = 0.5 * s**2 * jnp.einsum("ikj,jk->i", DG, G(jnp.asarray(z)))
    assert_close(lohe.ito_drift(z, b, s), b + corr)


# ------------------------------------------------------------------ frequency disorder
def _integrate(Omega, h, z0, t1):
    f = lambda t, z: Omega @ z + h - (z @ h) * z
    return solve_ivp(f, (0, t1), z0, rtol=1e-11, atol=1e-12, method="DOP853").y[:, -1]


def test_adler_locking_against_simulation():
    a = 1.3
    for w in (0.4, -1.1, 1.3 * 0.95):
        res = lohe.adler_locking(w, a)
        assert bool(res.locked)
        J = np.array([[0.0, -w], [w, 0.0]])
        z = _integrate(J, np.array([a, 0.0]), np.array([-0.6, 0.8]), 80.0)
        assert float(res.angle) == approx(np.arctan2(z[1], z[0]), scale=1e3)
    res = lohe.adler_locking(2.0, a)  # drifts: mean angular velocity sqrt(w^2 - a^2)
    assert not bool(res.locked)
    period = 2 * np.pi / float(res.beat_frequency)
    f = lambda t, phi: 2.0 - a * np.sin(phi)
    ev = lambda t, phi: phi[0] - 2 * np.pi
    ev.terminal = True
    sol = solve_ivp(f, (0, 100), [0.0], events=ev, rtol=1e-12, atol=1e-12)
    assert sol.t_events[0][0] == approx(period, scale=1e3)


@pytest.mark.parametrize("d", [3, 4, 5])
def test_locked_state_against_simulation_and_bound(d):
    g = np.random.default_rng(d)
    A = g.normal(size=(d, d))
    Omega = 0.4 * (A - A.T) / 2
    h = g.normal(size=d)
    h *= 1.5 / np.linalg.norm(h)
    res = lohe.locked_state(Omega, h)
    assert bool(res.locked)
    z = _integrate(Omega, h, h / np.linalg.norm(h), 200.0)
    assert_close(res.z, z, scale=1e3)
    assert float(res.rate) == approx(z @ h, scale=1e3)
    # the linearisation on T_z: real parts all -rate
    P = np.eye(d) - np.outer(z, z)
    B = sphere.tangent_basis(jnp.asarray(z))
    J = (
        np.asarray(B).T
        @ (P @ (Omega - (z @ h) * np.eye(d) - np.outer(z, h)))
        @ np.asarray(B)
    )
    assert_close(np.linalg.eigvals(J).real, np.full(d - 1, -float(res.rate)), scale=1e3)
    angle = np.arccos(np.clip(z @ h / np.linalg.norm(h), -1, 1))
    assert angle <= np.arcsin(np.linalg.norm(Omega, 2) / np.linalg.norm(h)) + 1e-12


def test_locked_state_unlocked_in_even_dimension():
    Omega = np.kron(np.eye(2), np.array([[0.0, -2.0], [2.0, 0.0]]))  # |w| = 2 > |h| = 1
    res = lohe.locked_state(Omega, np.array([1.0, 0.0, 0.0, 0.0]))
    assert not bool(res.locked)
    assert_close(res.z, np.zeros(4))


# ------------------------------------------------------------------ Kuramoto with noise
def test_noisy_order_parameter_against_brentq():
    s = 0.8
    for K in (0.3, 0.64, 0.7, 1.5, 6.0):
        r = float(kuramoto.noisy_order_parameter(K, s))
        if K <= s**2:
            assert r == 0.0
            continue
        F = lambda x: ive(1, 2 * K * x / s**2) / ive(0, 2 * K * x / s**2) - x
        assert r == approx(brentq(F, 1e-9, 1.0, xtol=1e-15), scale=1e2)
    assert float(kuramoto.noisy_critical_coupling(0.8, 0.25)) == approx(0.5 + 0.64)
    assert float(kuramoto.noisy_order_parameter(1.0, 0.0)) == 1.0


# ------------------------------------------------------------------ the SDE path
X0 = sphere.sample_uniform(jax.random.key(1), (6,), 3)
TH0 = jnp.asarray(np.random.default_rng(3).uniform(-np.pi, np.pi, 16))


def test_zero_noise_is_the_deterministic_path_bit_for_bit():
    a = lohe.simulate(X0, None, 1.0, 2.0, saveat=5)
    b = lohe.simulate(X0, None, 1.0, 2.0, saveat=5, noise=0.0)
    assert np.array_equal(a.states, b.states)
    a = kuramoto.simulate(TH0, 0.1, 1.0, 2.0, saveat=5)
    b = kuramoto.simulate(TH0, 0.1, 1.0, 2.0, saveat=5, noise=0, key=jax.random.key(0))
    assert np.array_equal(a.states, b.states)


def test_same_key_same_path_eagerly_and_under_jit_and_on_the_sphere():
    run = lambda key: lohe.simulate(
        X0, None, 1.0, 1.0, saveat=3, noise=0.4, key=key, dt0=0.05
    )
    a, b = run(jax.random.key(7)), run(jax.random.key(7))
    c = jax.jit(run)(jax.random.key(7))
    assert np.array_equal(a.states, b.states)
    assert_close(c.states, a.states)
    assert not np.allclose(run(jax.random.key(8)).states, a.states)
    # retraction after every step: unit norms to rounding
    assert_close(np.linalg.norm(a.states, axis=-1), np.ones(a.states.shape[:-1]))
    k = lambda key: kuramoto.simulate(
        TH0, 0.0, 1.0, 1.0, saveat=3, noise=0.4, key=key, dt0=0.05
    )
    assert_close(
        k(jax.random.key(3)).states, jax.jit(k)(jax.random.key(3)).states
    )


def test_stratonovich_heun_and_ito_euler_agree_on_one_brownian_path():
    """The Itô drift, tested as dynamics: diffrax's Itô Euler-Maruyama with
    f - (d-1) sigma^2/2 z and the library's Stratonovich Heun (lohe.settle(noise=)),
    same path, small dt."""
    d, s, t1, dt = 3, 0.6, 1.0, 2.0**-12
    h = jnp.array([1.0, 0.5, -0.3])
    z0 = jnp.array([0.0, 0.0, 1.0])
    key = jax.random.key(11)
    bm = diffrax.VirtualBrownianTree(0.0, t1, tol=dt / 2, shape=(d,), key=key)
    P = lambda z: jnp.eye(d) - jnp.outer(z, z)
    ito = diffrax.MultiTerm(
        diffrax.ODETerm(lambda t, z, a: lohe.ito_drift(z, P(z) @ h, s)),
        diffrax.ControlTerm(lambda t, z, a: s * P(z), bm),
    )
    zi = diffrax.diffeqsolve(ito, diffrax.Euler(), 0.0, t1, dt, z0).ys[-1]
    zs = lohe.settle(z0, h, t1, noise=s, key=key, dt0=dt, max_steps=10**6).final
    # both converge (strong order 1/2) to the same solution: gap ~ sqrt(dt) = 0.016
    assert float(jnp.linalg.norm(zi - zs)) < 0.05
    # a wrong Itô drift (no correction) is visibly further away
    ito0 = diffrax.MultiTerm(
        diffrax.ODETerm(lambda t, z, a: P(z) @ h),
        diffrax.ControlTerm(lambda t, z, a: s * P(z), bm),
    )
    z0i = diffrax.diffeqsolve(ito0, diffrax.Euler(), 0.0, t1, dt, z0).ys[-1]
    assert float(jnp.linalg.norm(z0i - zs)) > 2 * float(jnp.linalg.norm(zi - zs))


@pytest.mark.slow
def test_noisy_kuramoto_order_parameter_against_self_consistency():
    """Identical oscillators with noise: time-averaged R vs r = I1/I0(2Kr/sigma^2) above
    onset (finite-N band 0.05 at N = 400) and near 0 below it."""
    n, s = 400, 1.0
    th0 = jnp.asarray(np.random.default_rng(0).uniform(-np.pi, np.pi, n))
    for K in (0.5, 2.0, 3.0):
        sol = kuramoto.simulate(
            th0,
            0.0,
            K,
            40.0,
            saveat=81,
            noise=s,
            key=jax.random.key(1),
            save_phases=False,
            dt0=0.02,
        )
        r = float(np.mean(np.asarray(sol.r)[40:]))
        want = float(kuramoto.noisy_order_parameter(K, s))
        assert abs(r - want) < (0.05 if want > 0 else 0.12), (K, r, want)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kw, err, match",
    [
        (dict(noise=-0.1, key=jax.random.key(0)), ValueError, "noise must lie in"),
        (
            dict(noise=float("nan"), key=jax.random.key(0)),
            ValueError,
            "noise must be finite",
        ),
        (dict(noise=0.3), ValueError, "needs a PRNG key"),
        (dict(noise=0.3, key=3), TypeError, "key must be a PRNG key"),
        (
            dict(noise=0.3, key=jax.random.key(0), solver="euler"),
            ValueError,
            "Stratonovich",
        ),
        (
            dict(noise=0.3, key=jax.random.key(0), solver=diffrax.Euler()),
            ValueError,
            "Stratonovich",
        ),
        (dict(noise=jnp.ones(2), key=jax.random.key(0)), ValueError, "scalar"),
    ],
)
def test_bad_noise_arguments(kw, err, match):
    with pytest.raises(err, match=match):
        lohe.simulate(X0, None, 1.0, 1.0, **kw)
    with pytest.raises(err, match=match):
        kuramoto.simulate(TH0, 0.0, 1.0, 1.0, **kw)


def test_bad_theory_arguments():
    with pytest.raises(ValueError, match="noise must lie in"):
        lohe.vmf_moments(jnp.ones(3), -1.0)
    with pytest.raises(ValueError, match="h must be finite"):
        lohe.vmf_concentration(jnp.array([1.0, jnp.nan]), 1.0)
    with pytest.raises(ValueError, match="kappa must lie in"):
        lohe.mean_resultant(jnp.nan, 3)
    with pytest.raises(ValueError, match="p must be 1 or 2"):
        lohe.vmf_scores(jnp.ones(2), 1.0, jnp.eye(2), p=3)
    with pytest.raises(ValueError, match=r"\|\|r_j\|\| <= 1"):
        lohe.vmf_scores(jnp.ones(2), 1.0, 2 * jnp.eye(2))
    with pytest.raises(ValueError, match="skew-symmetric"):
        lohe.locked_state(jnp.eye(3), jnp.ones(3))
    with pytest.raises(ValueError, match="skew-symmetric"):
        lohe.simulate(
            X0,
            jnp.broadcast_to(jnp.eye(3), (6, 3, 3)),
            1.0,
            1.0,
            noise=0.1,
            key=jax.random.key(0),
        )
    with pytest.raises(ValueError, match="norm_h must lie in"):
        lohe.adler_locking(1.0, -1.0)
    with pytest.raises(ValueError, match="omega must be finite"):
        lohe.adler_locking(jnp.nan, 1.0)
    with pytest.raises(ValueError, match="noise must lie in"):
        kuramoto.noisy_order_parameter(1.0, -0.5)
    with pytest.raises(ValueError, match="K must be finite"):
        kuramoto.noisy_order_parameter(jnp.nan, 0.5)
    with pytest.raises(ValueError, match="geodesic"):
        lohe.simulate(
            X0, None, 1.0, 1.0, noise=0.1, key=jax.random.key(0), method="geodesic"
        )

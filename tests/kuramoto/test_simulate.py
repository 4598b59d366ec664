"""Tests for syncattn.kuramoto.simulate (kuramoto/_simulate.py) against independent
float64 computations: closed forms, scipy's solve_ivp, finite differences.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate

from syncattn import kuramoto

from ..helpers import assert_close
from ._reference import loop_field as _loop_field


# --------------------------------------------------------------------------- simulate


def test_simulate_two_oscillators_closed_form():
    # N = 2, K_ij = K/2: phi = theta_2 - theta_1 obeys phi' = -K sin(phi): tan(phi/2) = tan(phi0/2) e^{-K t}
    K, phi0 = 1.3, 2.5
    sol = kuramoto.simulate(
        jnp.array([0.0, phi0]), 0.0, K, 4.0, saveat=41, rtol=1e-11, atol=1e-13
    )
    phi = np.asarray(sol.theta[:, 1] - sol.theta[:, 0])
    ts = np.asarray(sol.ts)
    exact = 2 * np.arctan(np.tan(phi0 / 2) * np.exp(-K * ts))
    # the solve's own error (rtol=1e-11 over t = 4), not rounding
    np.testing.assert_allclose(phi, exact, atol=1e-8)
    np.testing.assert_allclose(sol.r, np.abs(np.cos(exact / 2)), atol=1e-8)
    assert_close(sol.theta_final, sol.theta[-1])


def test_simulate_lorentzian_matches_theory():
    """N = 20000 Lorentzian oscillators (gamma = 0.5): r(K) = sqrt(1 - 2 gamma / K)."""
    N, gamma, t1 = 20000, 0.5, 50.0
    omega = kuramoto.sample_lorentzian(jax.random.key(0), (N,), gamma)
    theta0 = jax.random.uniform(jax.random.key(1), (N,), minval=-np.pi, maxval=np.pi)
    Ks = jnp.array([0.5, 1.5, 2.0, 3.0])

    def run(K):
        return kuramoto.simulate(
            theta0, omega, K, t1, saveat=101, save_phases=False, rtol=1e-4, atol=1e-6
        ).r

    r = np.asarray(jax.vmap(run)(Ks))
    r_avg = r[:, 50:].mean(axis=1)  # time average over the second half
    assert r_avg[0] < 0.05, r_avg
    theory = np.sqrt(1 - 2 * gamma / np.asarray(Ks[1:]))
    # finite N (fluctuations ~ N^{-1/2} = 0.007), a finite window and rtol=1e-4: the
    # band of the simulation, not rounding
    np.testing.assert_allclose(r_avg[1:], theory, atol=0.03)
    assert_close(kuramoto.lorentzian_order_parameter(Ks[1:], gamma), theory, scale=0.01)


def test_simulate_vmap_equals_batch_and_jit():
    rng = np.random.default_rng(1)
    theta0 = rng.uniform(-np.pi, np.pi, size=(3, 9))
    omega = rng.normal(size=9)
    kw = dict(saveat=5, rtol=1e-10, atol=1e-12)
    batched = kuramoto.simulate(theta0, omega, 1.2, 3.0, **kw).theta_final
    mapped = jax.vmap(
        lambda th: kuramoto.simulate(th, omega, 1.2, 3.0, **kw).theta_final
    )(theta0)
    jitted = jax.jit(
        lambda th: kuramoto.simulate(th, omega, 1.2, 3.0, **kw).theta_final
    )(theta0)
    # one step-size controller for the whole batch vs one per trajectory: the two
    # solves differ at the solver's tolerance (measured 1.6e-10), not at rounding
    np.testing.assert_allclose(batched, mapped, atol=1e-8)
    assert_close(jitted, batched)
    # against scipy's independent integrator
    ref = scipy.integrate.solve_ivp(
        lambda t, y: _loop_field(y, omega, np.full((9, 9), 1.2 / 9)),
        (0, 3),
        theta0[0],
        rtol=1e-11,
        atol=1e-12,
    ).y[:, -1]
    np.testing.assert_allclose(batched[0], ref, atol=1e-7)  # two solvers' errors


def test_grad_through_simulate_matches_finite_differences():
    rng = np.random.default_rng(2)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, 6))
    omega = jnp.asarray(rng.normal(size=6))

    def loss(K, om):
        return kuramoto.simulate(
            theta0, om, K, 2.0, saveat=3, rtol=1e-11, atol=1e-12, max_steps=4096
        ).r[-1]

    gK, gom = jax.grad(loss, argnums=(0, 1))(1.5, omega)
    # central differences with h = 1e-5 over a solve to rtol 1e-11: O(h^2) plus the
    # solver's error / h, a method band
    fd_band = dict(rel=1e-5, abs=1e-8)
    h = 1e-5
    fdK = (loss(1.5 + h, omega) - loss(1.5 - h, omega)) / (2 * h)
    assert float(gK) == pytest.approx(float(fdK), **fd_band)
    e = jnp.zeros(6).at[2].set(h)
    fdom = (loss(1.5, omega + e) - loss(1.5, omega - e)) / (2 * h)
    assert float(gom[2]) == pytest.approx(float(fdom), **fd_band)


def test_simulate_float32_and_fixed_step():
    theta0 = jnp.linspace(-1, 1, 7, dtype=jnp.float32)
    sol = kuramoto.simulate(theta0, jnp.zeros(7, jnp.float32), 2.0, 1.0, saveat=3)
    assert sol.theta.dtype == jnp.float32 and sol.r.dtype == jnp.float32
    fixed = kuramoto.simulate(
        theta0.astype(jnp.float64),
        0.0,
        2.0,
        1.0,
        saveat=3,
        solver="heun",
        dt0=1e-3,
        rtol=None,
    )
    # Heun at dt = 1e-3 (error O(dt^2)) against a float32 adaptive solve: method error
    np.testing.assert_allclose(fixed.theta_final, sol.theta_final, atol=1e-4)


def test_simulate_sparse_graph_large_n_ring():
    """A 200,000-oscillator ring (each listens to both neighbours, O(N) memory).

    Linearised about sync, Fourier mode m of a small perturbation decays like
    exp(-2 (1 - cos(2 pi m / N)) t); with amplitude 1e-4 the nonlinear correction is
    O(1e-12), so the closed form is an independent reference for the edge-list path.
    """
    N, m, eps, t1 = 200_000, 25_000, 1e-4, 1.0  # m = N/8: rate 2 (1 - cos(pi/4))
    idx = np.arange(N)
    senders = np.concatenate([(idx + 1) % N, (idx - 1) % N])
    receivers = np.concatenate([idx, idx])
    g = kuramoto.EdgeList(
        jnp.asarray(senders), jnp.asarray(receivers), jnp.ones(2 * N), N
    )
    phase = 2 * np.pi * m * idx / N
    theta0 = jnp.asarray(eps * np.cos(phase))
    sol = kuramoto.simulate(
        theta0, 0.0, g, t1, saveat=None, save_phases=False, rtol=1e-9, atol=1e-13
    )
    rate = 2 * (1 - np.cos(2 * np.pi * m / N))
    exact = eps * np.exp(-rate * t1) * np.cos(phase)
    assert sol.theta_final.shape == (N,)
    assert_close(sol.theta_final, exact, scale=100)
    assert np.abs(np.asarray(sol.theta_final - theta0)).max() > 1e-5  # it moved


def test_simulate_rejects_bad_input():
    th = jnp.zeros(4)
    with pytest.raises(ValueError, match="t1"):
        kuramoto.simulate(th, 0.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="rtol"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, rtol=-1e-3)
    with pytest.raises(ValueError, match="solver"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, solver="rk99")
    with pytest.raises(ValueError, match="omega"):
        kuramoto.simulate(th, jnp.zeros(3), 1.0, 1.0)
    with pytest.raises(ValueError, match="theta0"):
        kuramoto.simulate(jnp.array([0.0, jnp.nan]), 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="dt0"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, solver="euler")
    with pytest.raises(ValueError, match="rtol=None"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, rtol=None)
    with pytest.raises(ValueError, match="G must be finite"):
        kuramoto.tangent_update(jnp.zeros(2), jnp.array([1j, jnp.nan]))
    with pytest.raises(ValueError, match="theta_t must be finite"):
        kuramoto.tangent_update(jnp.array([jnp.inf]), 1j)
    with pytest.raises(ValueError, match="r must be finite"):
        kuramoto.ott_antonsen_rhs(jnp.nan, 1.0, 0.5)


def test_simulate_saveat_conventions():
    th = jnp.array([0.0, 1.0])
    only_t1 = kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=None, rtol=1e-10, atol=1e-12)
    grid = kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=5, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(only_t1.ts, [2.0])
    np.testing.assert_allclose(grid.ts, [0.0, 0.5, 1.0, 1.5, 2.0])
    assert_close(only_t1.theta[-1], grid.theta[-1])  # saving a grid moves no step
    with pytest.raises(ValueError, match="saveat must be an int >= 2"):
        kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=1)
    with pytest.raises(ValueError, match="saveat times"):
        kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=jnp.array([0.0, 3.0]))

"""Tests for the Watanabe-Strogatz reduction (kuramoto/_watanabe_strogatz.py) against
independent float64 computations: the Moebius map and its chain rule written out in
numpy, the full N-oscillator flow by scipy's solve_ivp, and (slow) syncattn's full
simulate at N = 10^4.
"""

import time

import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate

from syncattn import kuramoto

from ..helpers import assert_close


def full_field(theta, omega, K, beta=0.0, h=0.0):
    """omega + (K/N) sum_k sin(theta_k - theta_j - beta) + Im(h e^{-i theta_j}): a double sum."""
    d = theta[None, :] - theta[:, None] - beta
    return omega + K * np.mean(np.sin(d), axis=1) + np.imag(h * np.exp(-1j * theta))


def wrapped(a, b):
    return np.abs(np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b)))))


def test_reduce_reconstruct_round_trip_and_centring():
    rng = np.random.default_rng(0)
    theta = rng.uniform(-np.pi, np.pi, (3, 9))
    theta[1] = rng.vonmises(0.4, 4.0, 9)  # clustered: alpha far from 0
    alpha, psi, phi = kuramoto.watanabe_strogatz_reduce(theta)
    assert alpha.shape == psi.shape == (3,) and phi.shape == (3, 9)
    assert np.all(np.asarray(psi) == 0) and np.all(np.abs(alpha) < 1)
    w = np.exp(1j * np.asarray(phi))
    np.testing.assert_allclose(np.abs(w.mean(axis=-1)), 0.0, atol=1e-14)
    # independent Moebius map in numpy: e^{i theta} = (w + alpha)/(1 + conj(alpha) w)
    a = np.asarray(alpha)[:, None]
    assert wrapped(np.angle((w + a) / (1 + np.conj(a) * w)), theta).max() < 1e-13
    back = kuramoto.watanabe_strogatz_reconstruct(alpha, psi, phi)
    assert wrapped(back, theta).max() < 1e-13
    # psi rotates the constants
    rot = kuramoto.watanabe_strogatz_reconstruct(0.0, 0.3, jnp.array([0.0, 1.0, 2.0]))
    assert_close(rot, [0.3, 1.3, 2.3])


def test_reduced_field_reproduces_the_phase_velocities():
    """z_j = M(w_j) with w_j constant: the chain rule through (alpha', psi') is the full field."""
    rng = np.random.default_rng(1)
    n, omega, K, beta, h = 8, 0.7, 1.3, 0.4, 0.3 - 0.2j
    phi = rng.uniform(-np.pi, np.pi, n)
    alpha, psi = 0.3 + 0.5j, 0.9
    a_dot, p_dot = kuramoto.watanabe_strogatz_field(
        alpha, psi, phi, omega, K, frustration=beta, drive=h
    )
    a_dot, p_dot = complex(a_dot), float(p_dot)
    u = np.exp(1j * (psi + phi))
    den = 1 + np.conj(alpha) * u
    z = (u + alpha) / den
    dz = (
        (1 - abs(alpha) ** 2) / den**2 * 1j * p_dot * u
        + a_dot / den
        - u * (u + alpha) / den**2 * np.conj(a_dot)
    )
    theta = np.angle(z)
    assert_close(np.imag(dz / z), full_field(theta, omega, K, beta, h))
    assert_close(kuramoto.watanabe_strogatz_reconstruct(alpha, psi, phi), theta)


def test_reduced_flow_matches_solve_ivp_small_n():
    rng = np.random.default_rng(2)
    n, t1 = 8, 20.0
    theta0 = rng.vonmises(0.0, 1.0, n)
    ts = np.linspace(0.0, t1, 7)
    for omega, K, beta, h in ((0.7, 1.0, np.pi / 2, 0.0), (0.3, -0.8, 0.2, 0.2j)):
        ref = scipy.integrate.solve_ivp(
            lambda t, y: full_field(y, omega, K, beta, h), (0, t1), theta0,
            t_eval=ts, method="DOP853", rtol=1e-13, atol=1e-13,
        ).y.T
        sol = kuramoto.watanabe_strogatz_simulate(
            theta0, omega, K, t1, frustration=beta, drive=h, saveat=7,
            rtol=1e-12, atol=1e-12,
        )
        # Dopri5 at 1e-12 against DOP853 at 1e-13 over t = 20: solver error
        assert wrapped(sol.theta, ref).max() < 1e-8, (omega, K, beta)
        assert wrapped(sol.final, ref[-1]).max() < 1e-8
        Z = np.exp(1j * ref).mean(axis=-1)
        np.testing.assert_allclose(sol.order, Z, atol=1e-8)
        assert_close(sol.r, np.abs(sol.order))


def test_time_dependent_drive_costs_no_coupling():
    """A common drive h(t) with K = 0: the 3-D flow integrates it at any N."""
    rng = np.random.default_rng(3)
    n, t1 = 6, 5.0
    theta0 = rng.uniform(-np.pi, np.pi, n)
    drive = lambda t: 0.8 * jnp.exp(1j * 0.5 * t)
    ref = scipy.integrate.solve_ivp(
        lambda t, y: full_field(y, 0.2, 0.0, 0.0, 0.8 * np.exp(0.5j * t)), (0, t1), theta0,
        method="DOP853", rtol=1e-13, atol=1e-13,
    ).y[:, -1]
    sol = kuramoto.watanabe_strogatz_simulate(
        theta0, 0.2, 0.0, t1, drive=drive, saveat=None, rtol=1e-12, atol=1e-12
    )
    assert wrapped(sol.final, ref).max() < 1e-9  # Dopri5 at 1e-12 over t = 5


def test_watanabe_strogatz_input_errors():
    with pytest.raises(ValueError, match="N >= 3"):
        kuramoto.watanabe_strogatz_reduce(jnp.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="theta must be finite"):
        kuramoto.watanabe_strogatz_reduce(jnp.array([0.0, 1.0, np.nan]))
    with pytest.raises(ValueError, match="held by 2 of N=4"):
        kuramoto.watanabe_strogatz_reduce(jnp.array([0.0, 2 * np.pi, 1.0, 2.0]))
    with pytest.raises(ValueError, match="open unit disk"):
        kuramoto.watanabe_strogatz_reconstruct(1.0, 0.0, jnp.zeros(3))
    with pytest.raises(ValueError, match="batch shape"):
        kuramoto.watanabe_strogatz_reconstruct(jnp.zeros(2), jnp.zeros(2), jnp.zeros((3, 4)))
    with pytest.raises(ValueError, match="omega must be a scalar"):
        kuramoto.watanabe_strogatz_simulate(jnp.arange(4.0), jnp.ones(4), 1.0, 1.0)
    with pytest.raises(ValueError, match="coupling must be a scalar"):
        kuramoto.watanabe_strogatz_field(0.0, 0.0, jnp.arange(3.0), 0.0, jnp.eye(3))
    with pytest.raises(ValueError, match="drive must be a complex scalar"):
        kuramoto.watanabe_strogatz_field(0.0, 0.0, jnp.arange(3.0), 0.0, 1.0, drive=jnp.ones(2))
    with pytest.raises(ValueError, match="t1"):
        kuramoto.watanabe_strogatz_simulate(jnp.arange(4.0), 0.0, 1.0, -1.0)


@pytest.mark.slow
def test_reduced_flow_reproduces_full_flow_at_n_10000():
    """N = 10^4 identical oscillators, K = 1, beta = pi/2 (the neutral, non-dissipative
    case: alpha keeps moving in the disk), t = 100: the reduced flow equals syncattn's full
    simulate to 1e-10 at a fraction of its time."""
    n, t1, beta = 10_000, 100.0, np.pi / 2
    theta0 = jnp.asarray(np.random.default_rng(4).vonmises(0.0, 1.5, n))
    opts = dict(frustration=beta, saveat=11, solver="dopri8", rtol=1e-14, atol=1e-14)

    def timed(f):
        f().final.block_until_ready()  # compile
        t0 = time.perf_counter()
        out = f()
        out.final.block_until_ready()
        return out, time.perf_counter() - t0

    ws, t_ws = timed(lambda: kuramoto.watanabe_strogatz_simulate(theta0, 0.0, 1.0, t1, **opts))
    full, t_full = timed(lambda: kuramoto.simulate(theta0, 0.0, 1.0, t1, **opts))
    assert wrapped(ws.theta, full.theta).max() < 1e-10
    np.testing.assert_allclose(ws.order, full.order, atol=1e-10)
    assert np.ptp(np.asarray(ws.r)) > 0.05  # r moves: a non-trivial orbit
    # measured 2026 (2 shared cores): 0.37 s against 1.9 s; a margin for noisy machines
    assert t_ws < 0.6 * t_full, (t_ws, t_full)

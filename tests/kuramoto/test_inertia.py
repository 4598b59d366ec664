"""Tests for the Kuramoto flow with inertia (kuramoto/_inertia.py) against independent
float64 computations: double loops, a numpy RK4 on a fine grid, the damped oscillator's
closed form, the first-order flow.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import sparse

from syncattn import kuramoto

from ..helpers import assert_close
from ._reference import loop_field


def _loop_energy(theta, v, K, m):
    n = theta.shape[-1]
    E = 0.5 * m * np.sum(v * v, axis=-1)
    for i in range(n):
        for j in range(n):
            E = E + 0.5 * K[i, j] * (1 - np.cos(theta[..., j] - theta[..., i]))
    return E


def _rk4_reference(theta0, v0, omega, K, m, t1, h):
    """Independent float64 reference: classical RK4 with step h on the double-loop field."""
    y = np.stack([theta0, v0]).astype(np.float64)

    def f(y):
        return np.stack([y[1], (loop_field(y[0], omega, K) - y[1]) / m])

    for _ in range(int(round(t1 / h))):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def test_field_and_energy_match_double_loops():
    rng = np.random.default_rng(0)
    n = 5
    theta, v = rng.uniform(-7, 7, (2, n)), rng.normal(size=(2, n))
    K, omega = rng.normal(size=(n, n)), rng.normal(size=n)
    th_dot, v_dot = kuramoto.inertial_vector_field(
        theta, v, omega, K, 0.7, frustration=0.2
    )
    assert_close(th_dot, v)
    assert_close(v_dot, (loop_field(theta, omega, K, 0.2) - v) / 0.7, scale=10)
    dense = np.full((n, n), 1.3 / n)
    for coupling, Kmat in (
        (K, K),
        (1.3, dense),
        (kuramoto.EdgeList.from_dense(K), K),
        (sparse.BCOO.fromdense(jnp.asarray(K)), K),
    ):
        assert_close(
            kuramoto.inertial_energy(theta, v, coupling, 0.7),
            _loop_energy(theta, v, Kmat, 0.7),
            scale=100,
        )
    # scalar K: the potential is (K N / 2)(1 - R^2)
    R2 = np.abs(np.exp(1j * theta).mean(-1)) ** 2
    assert_close(
        kuramoto.inertial_energy(theta, 0 * v, 1.3, 0.7),
        1.3 * n / 2 * (1 - R2),
        scale=10,
    )


@pytest.mark.parametrize(
    "form",
    [
        "mean",
        pytest.param("dense", marks=pytest.mark.slow),
        pytest.param("edges", marks=pytest.mark.slow),
    ],
)
def test_inertial_simulate_matches_numpy_rk4(form):
    rng = np.random.default_rng(1)
    n = 4
    theta0, v0 = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
    omega = rng.normal(size=n)
    K = rng.normal(size=(n, n)) if form != "mean" else np.full((n, n), 1.5 / n)
    coupling = {"dense": K, "edges": kuramoto.EdgeList.from_dense(K), "mean": 1.5}[form]
    sol = kuramoto.inertial_simulate(
        theta0,
        omega,
        coupling,
        2.0,
        mass=0.8,
        velocity0=v0,
        saveat=3,
        rtol=1e-11,
        atol=1e-12,
    )
    ref = _rk4_reference(theta0, v0, omega, K, 0.8, 2.0, 1e-3)
    # RK4 at h = 1e-3 (error ~1e-12) against Dopri5 at rtol 1e-11: solver bands
    np.testing.assert_allclose(sol.final, ref[0], atol=1e-9)
    np.testing.assert_allclose(sol.final_velocity, ref[1], atol=1e-9)
    assert_close(sol.theta[-1], sol.final)
    assert_close(sol.velocity[0], v0)
    assert_close(sol.r, np.abs(np.exp(1j * np.asarray(sol.theta)).mean(-1)), scale=10)


def test_two_oscillators_small_amplitude_is_a_damped_oscillator():
    """N = 2, K_ij = K/2: phi = theta_2 - theta_1 obeys m phi'' + phi' = -K sin phi; at
    amplitude 1e-6 (nonlinear error ~1e-19), m phi'' + phi' + K phi = 0 in closed form."""
    m, K, a = 0.5, 3.0, 1e-6
    sol = kuramoto.inertial_simulate(
        jnp.array([0.0, a]), 0.0, K, 4.0, mass=m, saveat=9, rtol=1e-12, atol=1e-20
    )
    t = np.asarray(sol.ts)
    mu = 1 / (2 * m)
    w = np.sqrt(K / m - mu**2)  # underdamped: 6 - 1 > 0
    exact = a * np.exp(-mu * t) * (np.cos(w * t) + mu / w * np.sin(w * t))
    phi = np.asarray(sol.theta[:, 1] - sol.theta[:, 0])
    np.testing.assert_allclose(phi, exact, atol=1e-15)


def test_energy_never_increases_and_drops_by_the_integral_of_v_squared():
    rng = np.random.default_rng(2)
    n = 6
    M = rng.normal(size=(n, n))
    K = M + M.T
    theta0, v0 = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
    sol = kuramoto.inertial_simulate(
        theta0, 0.0, K, 5.0, mass=0.6, velocity0=v0, saveat=501, rtol=1e-11, atol=1e-12
    )
    E = np.asarray(kuramoto.inertial_energy(sol.theta, sol.velocity, K, 0.6))
    assert np.max(np.diff(E)) < 1e-10 and E[-1] < E[0]
    v2 = np.sum(np.asarray(sol.velocity) ** 2, -1)
    ts = np.asarray(sol.ts)
    drop = np.sum((v2[1:] + v2[:-1]) / 2 * np.diff(ts))  # trapezoid, step 0.01
    assert E[0] - E[-1] == pytest.approx(drop, rel=1e-4)  # the trapezoid's O(h^2)


def test_zero_mass_is_the_first_order_flow_and_small_mass_approaches_it():
    rng = np.random.default_rng(3)
    n = 5
    theta0, omega = (
        jnp.asarray(rng.uniform(-np.pi, np.pi, n)),
        jnp.asarray(rng.normal(size=n)),
    )
    kw = dict(saveat=3, rtol=1e-10, atol=1e-12)
    first = kuramoto.simulate(theta0, omega, 2.0, 3.0, **kw)
    zero = kuramoto.inertial_simulate(theta0, omega, 2.0, 3.0, mass=0.0, **kw)
    assert_close(zero.theta, first.theta, scale=0)  # the same solve, bit for bit
    assert_close(
        zero.velocity,
        jax.vmap(lambda th: kuramoto.vector_field(th, omega, 2.0))(first.theta),
    )


@pytest.mark.slow  # stiff solves at small m (about 5 s)
def test_small_mass_approaches_the_first_order_flow():
    rng = np.random.default_rng(3)
    n = 5
    theta0, omega = (
        jnp.asarray(rng.uniform(-np.pi, np.pi, n)),
        jnp.asarray(rng.normal(size=n)),
    )
    kw = dict(saveat=3, rtol=1e-10, atol=1e-12)
    first = kuramoto.simulate(theta0, omega, 2.0, 3.0, **kw)
    # m > 0 small, starting on the slow manifold v0 = F(theta0): within O(m) of it
    v0 = kuramoto.vector_field(theta0, omega, 2.0)
    errs = []
    for m in (1e-2, 5e-3):
        sol = kuramoto.inertial_simulate(
            theta0, omega, 2.0, 3.0, mass=m, velocity0=v0, **kw
        )
        errs.append(float(np.max(np.abs(sol.final - first.final))))
    # O(m) with an O(m^2) correction: halving m halves the distance, to a few per cent
    assert errs[0] < 0.05 and errs[1] / errs[0] == pytest.approx(0.5, rel=0.05)


@pytest.mark.slow  # a vmapped diffrax solve: about 5 s of compilation
def test_inertial_simulate_vmaps_over_mass_and_jits():
    theta0 = jnp.array([0.0, 0.4, -0.9])

    def final(m):
        return kuramoto.inertial_simulate(
            theta0, 0.0, 1.0, 1.0, mass=m, saveat=None
        ).final

    masses = jnp.array([0.5, 1.0])
    mapped = jax.vmap(final)(masses)
    assert_close(
        mapped[1], final(1.0), scale=1e4
    )  # one controller per call: solver band


def test_inertial_rejects_bad_input():
    th = jnp.zeros(3)
    with pytest.raises(ValueError, match=r"mass must lie in \[0"):
        kuramoto.inertial_simulate(th, 0.0, 1.0, 1.0, mass=-0.1)
    with pytest.raises(ValueError, match="mass must be finite"):
        kuramoto.inertial_simulate(th, 0.0, 1.0, 1.0, mass=np.nan)
    with pytest.raises(ValueError, match="mass must be a scalar"):
        kuramoto.inertial_simulate(th, 0.0, 1.0, 1.0, mass=jnp.ones(3))
    with pytest.raises(ValueError, match="velocity0 must have the phases' shape"):
        kuramoto.inertial_simulate(th, 0.0, 1.0, 1.0, mass=1.0, velocity0=jnp.zeros(2))
    with pytest.raises(ValueError, match="velocity0 must be finite"):
        kuramoto.inertial_simulate(
            th, 0.0, 1.0, 1.0, mass=1.0, velocity0=jnp.array([0, np.nan, 0])
        )
    with pytest.raises(ValueError, match=r"mass must lie in \(0"):
        kuramoto.inertial_vector_field(th, th, 0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="t1"):
        kuramoto.inertial_simulate(th, 0.0, 1.0, -1.0, mass=1.0)

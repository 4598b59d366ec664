"""Tests for syncattn.lohe's fixed-query flow (lohe/_fixed_query.py).

References: scipy (solve_ivp, quad, null_space), central finite differences, closed
forms, and diffrax solves of the fixed-query flow embedded in a Lohe flow with a
frozen anchor.
"""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
from hypothesis import given

from syncattn import lohe

from .. import strategies
from ..helpers import assert_close
from ._problem import OMEGA, X0, B, D, N, solve as _solve


def _angle(z, h):
    """Angle between unit z and h, accurate near 0 and pi (atan2, not arccos)."""
    u = np.asarray(h) / np.linalg.norm(h)
    c = np.asarray(z) @ u
    return np.arctan2(np.linalg.norm(np.asarray(z) - c[..., None] * u, axis=-1), c)


# -------------------------------------------------------------- fixed-query flow
@given(seed=strategies.seeds, d=st.integers(2, 6), scale=st.floats(1e-3, 1e3))
def test_equilibrium_is_unit_h(seed, d, scale):
    h = scale * np.random.default_rng(seed).normal(size=(3, d))
    z, deg = lohe.equilibrium(jnp.asarray(h))
    assert_close(z, h / np.linalg.norm(h, axis=-1, keepdims=True))
    assert not np.any(np.asarray(deg))
    # the field is O(|h|), and so is its rounding
    assert_close(lohe.fixed_query_field(z, jnp.asarray(h)), np.zeros_like(h), scale=scale)


def test_degenerate_drive_is_finite_with_finite_gradients():
    h0 = jnp.zeros(4)
    z, deg = lohe.equilibrium(h0)
    assert bool(deg) and np.array_equal(np.asarray(z), np.eye(4)[0])
    r = jnp.asarray(np.random.default_rng(0).normal(size=(5, 4)))
    g1 = jax.jit(jax.grad(lambda h: jnp.sum(lohe.equilibrium(h)[0] * jnp.arange(4.0))))(
        h0
    )
    g2 = jax.jit(
        jax.grad(
            lambda h: jnp.sum(
                lohe.readout(lohe.equilibrium(h)[0][None], r) * jnp.arange(5.0)[None]
            )
        )
    )(h0)
    assert np.all(np.asarray(g1) == 0)  # documented: e_1 is locally constant
    assert np.all(np.isfinite(g2))
    # just above the tolerance the flag clears; an explicit tol is honoured
    assert not bool(lohe.equilibrium(jnp.array([1e-6, 0, 0, 0]))[1])
    assert bool(lohe.equilibrium(jnp.array([1e-6, 0, 0, 0]), tol=1e-5)[1])
    with pytest.raises(ValueError, match="tol must lie in"):
        lohe.equilibrium(h0, tol=-1.0)
    with pytest.raises(ValueError, match="h must be finite"):
        lohe.equilibrium(jnp.array([jnp.nan, 1.0]))


@given(phi0=st.floats(0.0, math.pi), a=st.floats(0.0, 3.0), t=st.floats(0.0, 4.0))
def test_exact_angle_solves_angle_ode(phi0, a, t):
    # independent: scipy integrates d(phi)/dt = -|h| sin(phi)
    sol = scipy.integrate.solve_ivp(
        lambda s, p: -a * np.sin(p), (0.0, t), [phi0], rtol=1e-12, atol=1e-14
    )
    # scipy's solve at rtol=1e-12: solver error
    assert_close(lohe.exact_angle(phi0, a, t), sol.y[0, -1], rtol=1e-8, atol=1e-10)


def test_exact_angle_special_cases():
    assert float(lohe.exact_angle(math.pi, 2.0, 100.0)) == math.pi
    ts = jnp.linspace(0, 5, 7)
    assert_close(lohe.exact_angle(1.1, 0.0, ts), np.full(7, 1.1))
    assert_close(lohe.exact_angle(0.0, 2.0, ts), np.zeros(7))
    with pytest.raises(ValueError, match="phi0 must lie in"):
        lohe.exact_angle(4.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="norm_h must lie in"):
        lohe.exact_angle(1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="t must lie in"):
        lohe.exact_angle(1.0, 1.0, -1.0)


def test_exact_angle_matches_diffrax_and_all_starts_converge():
    # The fixed-query flow is a Lohe flow with a frozen anchor: oscillator N-1 sits at
    # h/|h| and listens to nobody; oscillators 0..N-2 each listen only to it with weight
    # |h|, so x_i' = |h|(u - <x_i, u> x_i) = P_{x_i} h. Solved by diffrax in simulate.
    a = 1.7
    u = np.array([0.6, 0.0, 0.8])
    K = np.zeros((N, N))
    K[:-1, -1] = a
    zs = np.array(X0[:, :-1])
    near = -u + 1e-3 * np.array([0.8, 0.0, -0.6])  # 1e-3 from the antipode
    zs[0, 0] = near / np.linalg.norm(near)
    x0 = np.concatenate([zs, np.broadcast_to(u, (B, 1, D))], axis=1)
    phi0 = _angle(zs, a * u)
    T = float(lohe.time_to_converge(phi0.max(), a, 1e-9)) + 1.0
    sol = _solve(jnp.asarray(x0), 0 * OMEGA, jnp.asarray(K), T)
    ts, traj = np.asarray(sol.ts), np.asarray(sol.x)
    assert_close(traj[..., -1, :], np.broadcast_to(u, (11, B, D)), scale=0.01)  # frozen
    phi = _angle(traj[..., :-1, :], a * u)
    assert_close(  # diffrax's solve against the exact angle: solver error
        phi, lohe.exact_angle(phi0[None], a, ts[:, None, None]), rtol=0, atol=1e-8
    )
    # every start, the near-antipodal one included, ends at h/|h|
    assert np.max(np.linalg.norm(traj[-1, :, :-1] - u, axis=-1)) < 1e-8
    # the antipode is an equilibrium: the field vanishes, so it never moves
    h = jnp.asarray(a * u)
    assert_close(lohe.fixed_query_field(jnp.asarray(-u), h), np.zeros(D), scale=1e-3)
    x0[:, 0] = -u
    sol = _solve(jnp.asarray(x0), 0 * OMEGA, jnp.asarray(K), T)
    assert_close(sol.x[-1, :, 0], np.broadcast_to(-u, (B, D)), scale=0.1)


def test_time_to_converge_vs_quadrature_and_edges():
    rng = np.random.default_rng(4)
    for phi0, a, delta in zip(
        rng.uniform(0.3, 3.1, 5), rng.uniform(0.1, 3, 5), rng.uniform(1e-3, 0.3, 5)
    ):
        # T = int_delta^phi0 dphi / (|h| sin phi), from d(phi)/dt = -|h| sin(phi)
        ref = scipy.integrate.quad(
            lambda p: 1 / (a * np.sin(p)), delta, phi0, epsabs=1e-13, epsrel=1e-12
        )[0]
        assert_close(lohe.time_to_converge(phi0, a, delta), ref)
    assert float(lohe.time_to_converge(0.2, 1.0, 0.3)) == 0.0
    assert float(lohe.time_to_converge(math.pi, 1.0, 0.3)) == math.inf
    assert float(lohe.time_to_converge(1.0, 0.0, 0.3)) == math.inf
    grads = jax.grad(lambda x: lohe.time_to_converge(x[0], x[1], 0.3))
    for p in ([0.2, 1.0], [math.pi, 1.0], [1.0, 0.0], [1.0, 2.0]):
        assert np.all(np.isfinite(grads(jnp.array(p))))
    with pytest.raises(ValueError, match="delta must lie in"):
        lohe.time_to_converge(1.0, 1.0, 0.0)


def test_lyapunov_decreases_at_rate_projected_drive():
    rng = np.random.default_rng(5)
    h = rng.normal(size=4)
    for _ in range(5):
        z = rng.normal(size=4)
        z /= np.linalg.norm(z)
        f = lohe.fixed_query_field(jnp.asarray(z), jnp.asarray(h))
        V, dV = jax.jvp(
            lambda x: lohe.lyapunov(x, jnp.asarray(h)), (jnp.asarray(z),), (f,)
        )
        assert_close(V, -z @ h)
        assert_close(dV, -np.sum((h - (z @ h) * z) ** 2))


@given(z=strategies.unit_vectors(d=st.sampled_from([2, 3, 7]), batch=st.just([2])))
def test_tangent_basis_orthonormal_and_tangent(z):
    B = np.asarray(lohe.tangent_basis(z))
    d = z.shape[-1]
    assert B.shape == (*z.shape, d - 1)
    # deviations from orthonormality, against zero: atol 1e-13
    assert_close(np.swapaxes(B, -1, -2) @ B - np.eye(d - 1), 0.0, scale=0.1)
    assert_close(np.einsum("...dk,...d->...k", B, np.asarray(z)), 0.0, scale=0.1)


def test_tangent_basis_edge_points():
    for z in (np.eye(3)[1], -np.eye(3)[0], np.array([0.0, 0.6, -0.8]), np.zeros(3)):
        B = np.asarray(lohe.tangent_basis(jnp.asarray(z)))
        assert_close(B.T @ B - np.eye(2), 0.0, scale=1e-3)  # atol 1e-15
        assert_close(B.T @ z, np.zeros(2), scale=1e-3)
    with pytest.raises(ValueError, match="d >= 2"):
        lohe.tangent_basis(jnp.ones(1))


@given(seed=strategies.seeds, d=st.integers(2, 6))
def test_jacobian_spectrum_vs_finite_differences(seed, d):
    rng = np.random.default_rng(seed)
    z, h = rng.normal(size=d), rng.normal(size=d)
    z /= np.linalg.norm(z)
    f = lambda x: np.asarray(lohe.fixed_query_field(jnp.asarray(x), jnp.asarray(h)))
    eps = 1e-6
    J = np.stack(
        [(f(z + eps * e) - f(z - eps * e)) / (2 * eps) for e in np.eye(d)], axis=1
    )
    B = scipy.linalg.null_space(z[None])  # an independent basis of z^perp
    ref = np.sort(np.linalg.eigvals(B.T @ J @ B).real)
    got = np.asarray(lohe.jacobian_spectrum(jnp.asarray(z), jnp.asarray(h)))
    assert got.shape == (d - 1,)
    # J by central differences at eps = 1e-6: truncation and rounding/eps, not rounding
    assert_close(got, ref, rtol=1e-7, atol=1e-8)
    u = h / np.linalg.norm(h)
    assert_close(
        lohe.jacobian_spectrum(jnp.asarray(u), jnp.asarray(h)),
        np.full(d - 1, -np.linalg.norm(h)),
    )
    assert_close(
        lohe.jacobian_spectrum(jnp.asarray(-u), jnp.asarray(h)),
        np.full(d - 1, np.linalg.norm(h)),
    )



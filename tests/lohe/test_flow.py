"""Tests for syncattn.lohe, each against an independent computation.

References used: float64 numpy double loops, scipy (solve_ivp, quad, null_space,
norm.cdf), numpy Monte Carlo (with a numpy RK4 for the angle ODE), central finite
differences, closed forms (Kuramoto at d = 2, softplus CDF), and diffrax solves of
the fixed-query flow embedded in a Lohe flow with a frozen anchor.
"""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.stats
from hypothesis import given

from syncattn import lohe, sphere

from .. import strategies
from ..helpers import assert_close


# Shared diffrax problem. diffrax compiles are the slow part of this file, so every
# eager diffrax solve has the same shapes (B configurations of N oscillators in R^D,
# dense coupling, Omega, 11 save times) and tolerances: diffrax compiles the forward
# solve once (then one gradient and one jit + vmap compile in their own tests).
B, N, D = 13, 5, 3
TIGHT = dict(rtol=1e-11, atol=1e-13, saveat=11)


def _solve(x0, Omega, K, t1):
    return lohe.simulate(x0, Omega, K, t1, **TIGHT)


def _skew(key, n, d, scale=1.0):
    A = jax.random.normal(key, (n, d, d))
    return scale * 0.5 * (A - jnp.swapaxes(A, -1, -2))


X0 = sphere.sample_uniform(jax.random.key(0), (B, N), D)
OMEGA = _skew(jax.random.key(1), N, D, 0.7)
KMAT = 2.0 / N + 0.3 * jax.random.normal(jax.random.key(2), (N, N))


def _np_field(x, Omega, K):
    """Literal double loop of the Lohe field, float64, one configuration (n, d)."""
    x = np.asarray(x, np.float64)
    n = x.shape[0]
    K = np.full((n, n), K / n) if np.ndim(K) == 0 else np.asarray(K, np.float64)
    out = np.zeros_like(x)
    for i in range(n):
        if Omega is not None:
            out[i] += np.asarray(Omega[i], np.float64) @ x[i]
        for j in range(n):
            out[i] += K[i, j] * (x[j] - np.dot(x[i], x[j]) * x[i])
    return out


def _angle(z, h):
    """Angle between unit z and h, accurate near 0 and pi (atan2, not arccos)."""
    u = np.asarray(h) / np.linalg.norm(h)
    c = np.asarray(z) @ u
    return np.arctan2(np.linalg.norm(np.asarray(z) - c[..., None] * u, axis=-1), c)


# ------------------------------------------------------------------ vector field
@given(
    seed=strategies.seeds,
    shape=st.sampled_from([(1, 2), (4, 3), (2, 6, 5)]),  # each new shape compiles
)
def test_vector_field_matches_numpy_loop(seed, shape):
    *batch, n, d = shape
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(*batch, n, d))
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    A = rng.normal(size=(n, d, d))
    Omega = A - np.swapaxes(A, -1, -2)
    Kmat = rng.normal(size=(n, n))
    K = float(rng.normal())
    flat = x.reshape(-1, n, d)
    ref_dense = np.stack([_np_field(c, Omega, Kmat) for c in flat]).reshape(x.shape)
    ref_scalar = np.stack([_np_field(c, None, K) for c in flat]).reshape(x.shape)
    assert_close(
        lohe.vector_field(jnp.asarray(x), jnp.asarray(Omega), jnp.asarray(Kmat)),
        ref_dense,
    )
    assert_close(lohe.vector_field(jnp.asarray(x), None, K), ref_scalar)
    # the O(nd) mean field equals the dense K/n matrix
    assert_close(
        lohe.vector_field(jnp.asarray(x), None, K),
        lohe.vector_field(jnp.asarray(x), None, jnp.full((n, n), K / n)),
    )


def test_vector_field_is_tangent_and_zero_coupling():
    f = lohe.vector_field(X0, OMEGA, 2.0)
    assert_close(jnp.sum(f * X0, -1), np.zeros((B, N)), scale=0.01)  # atol 1e-14
    np.testing.assert_array_equal(lohe.vector_field(X0, None, 0.0), 0.0)


def test_d2_lohe_is_kuramoto():
    rng = np.random.default_rng(3)
    n = 7
    theta, omega, K = (
        rng.uniform(-np.pi, np.pi, n),
        rng.normal(size=n),
        rng.normal(size=(n, n)),
    )
    x = np.stack([np.cos(theta), np.sin(theta)], -1)
    Omega = omega[:, None, None] * np.array([[0.0, -1.0], [1.0, 0.0]])
    for coupling, Kij in ((K, K), (1.7, np.full((n, n), 1.7 / n))):
        f = np.asarray(lohe.vector_field(jnp.asarray(x), jnp.asarray(Omega), coupling))
        dtheta = -np.sin(theta) * f[:, 0] + np.cos(theta) * f[:, 1]
        ref = np.array(
            [
                omega[i]
                + sum(Kij[i, j] * np.sin(theta[j] - theta[i]) for j in range(n))
                for i in range(n)
            ]
        )
        assert_close(dtheta, ref)


def test_vector_field_bad_inputs():
    with pytest.raises(ValueError, match="Omega must be skew"):
        lohe.vector_field(X0, OMEGA + jnp.eye(D)[None], 1.0)
    with pytest.raises(ValueError, match="Omega must have shape"):
        lohe.vector_field(X0, OMEGA[:2], 1.0)
    with pytest.raises(ValueError, match="coupling must be a scalar K or an"):
        lohe.vector_field(X0, None, jnp.ones((N, N + 1)))
    with pytest.raises(ValueError, match="coupling must be a scalar K or an"):
        lohe.vector_field(X0, None, jnp.ones(N))
    with pytest.raises(ValueError, match="d >= 2"):
        lohe.vector_field(jnp.ones((3, 1)), None, 1.0)
    with pytest.raises(ValueError, match=r"x must have shape \(\*batch, n, d\)"):
        lohe.vector_field(jnp.ones(3), None, 1.0)
    with pytest.raises(ValueError, match="x must be finite"):
        lohe.vector_field(X0.at[0, 0].set(jnp.nan), None, 1.0)
    with pytest.raises(ValueError, match="coupling must be finite"):
        lohe.vector_field(X0, None, jnp.inf)


# ---------------------------------------------------------------------- simulate
def _norm_dev(x):
    return float(np.max(np.abs(np.linalg.norm(np.asarray(x), axis=-1) - 1)))


def test_simulate_norms_stay_one_both_methods():
    sol = _solve(X0, OMEGA, KMAT, 20.0)
    assert sol.x.shape == (11, B, N, D) and sol.rho.shape == (11, B)
    assert _norm_dev(sol.x) < 1e-10
    geo = lohe.simulate(X0, OMEGA, KMAT, 20.0, saveat=11, method="geodesic", dt=1e-3)
    assert geo.x.shape == (11, B, N, D) and geo.rho.shape == (11, B)
    assert _norm_dev(geo.x) < 1e-10
    # first order, dt = 1e-3: close while nearby trajectories have not yet separated
    assert float(jnp.max(jnp.abs(geo.x[:3] - sol.x[:3]))) < 1e-2
    # rho is the norm of the mean, computed independently; ts and x(0) as asked
    assert_close(sol.rho, np.linalg.norm(np.asarray(sol.x).mean(-2), axis=-1))
    assert_close(sol.ts, np.linspace(0, 20, 11))
    assert_close(sol.x[0], X0)
    # positive all-to-all coupling without rotation synchronises: rho -> 1
    sync = _solve(X0, 0 * OMEGA, jnp.full((N, N), 2.0 / N), 20.0)
    assert float(jnp.min(sync.rho[-1])) > 1 - 1e-6


def test_geodesic_is_first_order():
    ref = _solve(X0, OMEGA, KMAT, 1.0).x
    dts = np.array([0.02, 0.01, 0.005])
    errs = []
    for h in dts:
        geo = lohe.simulate(X0, OMEGA, KMAT, 1.0, saveat=11, method="geodesic", dt=h)
        errs.append(float(jnp.max(jnp.abs(geo.x - ref))))
    slope = np.polyfit(np.log(dts), np.log(errs), 1)[0]
    assert 0.9 < slope < 1.1, (errs, slope)


def test_simulate_grad_matches_finite_differences():
    c = jnp.asarray(np.random.default_rng(0).normal(size=(B, N, D)))

    def loss(params, method):
        k, s = params
        if method == "diffrax":
            x = _solve(X0, s * OMEGA, k * KMAT, 2.0).x
        else:
            x = lohe.simulate(X0, s * OMEGA, k * KMAT, 2.0, saveat=11, method=method).x
        return jnp.sum(c * x[-1])

    p0, eps = jnp.array([1.3, 0.8]), 1e-5
    for method in ("diffrax", "geodesic"):
        g = jax.grad(loss)(p0, method)
        fd = [
            (loss(p0.at[k].add(eps), method) - loss(p0.at[k].add(-eps), method))
            / (2 * eps)
            for k in range(2)
        ]
        # central differences at eps = 1e-5: truncation O(eps^2) and rounding/eps
        assert_close(g, np.array(fd), rtol=1e-6, atol=1e-8)


def test_simulate_jit_vmap_over_x0():
    f = jax.jit(jax.vmap(lambda x: _solve(x, OMEGA, KMAT, 2.0).x, out_axes=1))
    ref = _solve(X0, OMEGA, KMAT, 2.0).x  # one batched eager solve
    # one step-size controller for 3 vs all starts: the solves agree at the solver's
    # tolerance, not at rounding
    assert_close(f(X0[:3]), ref[:, :3], rtol=0, atol=1e-9)
    g = jax.jit(
        lambda x: lohe.simulate(x, OMEGA, KMAT, 2.0, saveat=11, method="geodesic").x
    )
    geo = lohe.simulate(X0, OMEGA, KMAT, 2.0, saveat=11, method="geodesic").x
    assert_close(jax.vmap(g, out_axes=1)(X0), geo)
    one = lohe.simulate(X0[0], OMEGA, KMAT, 2.0, saveat=None, method="geodesic")
    assert one.x.shape == (1, N, D)
    assert_close(one.x[0], geo[-1, 0])


def test_simulate_bad_inputs():
    with pytest.raises(ValueError, match="t1 must lie in"):
        lohe.simulate(X0, None, 1.0, -1.0)
    with pytest.raises(ValueError, match="t1 must be finite"):
        lohe.simulate(X0, None, 1.0, jnp.nan)
    with pytest.raises(ValueError, match="x0 must lie on the unit sphere"):
        lohe.simulate(2 * X0, None, 1.0, 1.0)
    with pytest.raises(ValueError, match="method must be"):
        lohe.simulate(X0, None, 1.0, 1.0, method="euler")
    with pytest.raises(ValueError, match="saveat"):
        lohe.simulate(X0, None, 1.0, 1.0, saveat=jnp.array([0.5, 2.0]))
    with pytest.raises(ValueError, match="saveat"):
        lohe.simulate(X0, None, 1.0, 1.0, saveat=1)
    with pytest.raises(ValueError, match="dt0 must lie in"):
        lohe.simulate(X0, None, 1.0, 1.0, method="geodesic", dt=0.0)
    with pytest.raises(ValueError, match="Omega must be skew"):
        lohe.simulate(X0, jnp.ones((N, D, D)), 1.0, 1.0)
    with pytest.raises(ValueError, match="concrete t1"):
        jax.jit(lambda t: lohe.simulate(X0, None, 1.0, t, method="geodesic").x)(1.0)


# -------------------------------------------------------------- fixed-query flow
def test_fixed_query_field_drive_weights_vs_numpy():
    rng = np.random.default_rng(7)
    n, m, d, dm, dh = 4, 6, 3, 5, 2
    w, r = rng.uniform(size=(2, n, m)), rng.normal(size=(m, d))
    h = np.asarray(lohe.drive(jnp.asarray(w), jnp.asarray(r)))
    ref = np.array(
        [[sum(w[b, i, j] * r[j] for j in range(m)) for i in range(n)] for b in range(2)]
    )
    assert_close(h, ref)
    e, F, G = (
        rng.normal(size=(n, dm)),
        rng.normal(size=(dh, dm)),
        rng.normal(size=(dh, dm)),
    )
    ref_w = np.array(
        [
            [
                math.log1p(math.exp((F @ e[i]) @ (G @ e[j]) / math.sqrt(dh)))
                for j in range(n)
            ]
            for i in range(n)
        ]
    )
    assert_close(
        lohe.fixed_query_weights(jnp.asarray(e), jnp.asarray(F), jnp.asarray(G)), ref_w
    )
    z = rng.normal(size=d)
    z /= np.linalg.norm(z)
    assert_close(
        lohe.fixed_query_field(jnp.asarray(z), jnp.asarray(r[0])), r[0] - (z @ r[0]) * z
    )
    with pytest.raises(ValueError, match="w must have shape"):
        lohe.drive(jnp.asarray(w), jnp.asarray(r[:-1]))
    with pytest.raises(ValueError, match="F must have shape"):
        lohe.fixed_query_weights(jnp.asarray(e), jnp.asarray(F[:, :-1]), jnp.asarray(G))
    with pytest.raises(ValueError, match="z and h must share"):
        lohe.fixed_query_field(jnp.ones(3), jnp.ones(4))


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


def _np_readout(z, r, mask, p):
    n, m = z.shape[0], r.shape[0]
    a = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            if mask[i, j]:
                a[i, j] = max(0.0, 1.0 + z[i] @ r[j]) ** p
        a[i] = a[i] / a[i].sum() if a[i].sum() > 0 else mask[i] / mask[i].sum()
    return a


@given(
    seed=strategies.seeds,
    p=st.sampled_from([1, 2, 3.5]),
    n=st.sampled_from([1, 4]),  # few distinct shapes: each one compiles
    m=st.sampled_from([1, 6]),
)
def test_readout_vs_numpy_loop(seed, p, n, m):
    rng = np.random.default_rng(seed)
    d = 3
    z, r = rng.normal(size=(n, d)), rng.normal(size=(m, d))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    mask = rng.uniform(size=(n, m)) < 0.7
    mask[:, 0] = True
    a = np.asarray(
        lohe.readout(jnp.asarray(z), jnp.asarray(r), mask=jnp.asarray(mask), p=p)
    )
    assert_close(a, _np_readout(z, r, mask, p))
    assert np.all(a >= 0) and np.all(a[~mask] == 0)
    assert_close(a.sum(-1), np.ones(n))


def test_readout_fallback_and_errors():
    r = jnp.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    z = jnp.array([[-1.0, 0.0]])  # antipodal to both unmasked anchors -> all weights 0
    mask = jnp.array([[True, True, False]])
    assert_close(lohe.readout(z, r, mask=mask), np.array([[0.5, 0.5, 0.0]]))
    g = jax.grad(lambda z: jnp.sum(lohe.readout(z, r, mask=mask) * jnp.arange(3.0)[None]))(z)
    assert np.all(np.isfinite(g))
    # a fully masked row attends to nothing: zeros, the same eagerly and under jit
    z2 = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    mask2 = jnp.array([[False, False, False], [True, False, True]])
    eager = lohe.readout(z2, r, mask=mask2)
    jitted = jax.jit(lambda z, m: lohe.readout(z, r, mask=m))(z2, mask2)
    assert_close(eager[0], np.zeros(3))
    assert_close(eager[1], _np_readout(np.asarray(z2[1:]), np.asarray(r), np.asarray(mask2[1:]), 1)[0])
    assert_close(jitted, eager)
    with pytest.raises(ValueError, match="p must lie in"):
        lohe.readout(z, r, p=0.5)
    with pytest.raises(TypeError, match="mask must be boolean"):
        lohe.readout(z, r, mask=jnp.ones((1, 3)))
    with pytest.raises(ValueError, match="mask"):
        lohe.readout(z, r, mask=jnp.ones((2, 2), bool))
    with pytest.raises(ValueError, match="z must have shape"):
        lohe.readout(z, jnp.ones((3, 3)))


# -------------------------------------------------------------- failure odds (MC)
@pytest.mark.parametrize("d", [2, 3, 8, 32])
def test_antipodal_and_finite_time_failure_vs_monte_carlo(d):
    rng = np.random.default_rng(d)
    n = 100_000
    g = rng.normal(size=(n, d))
    z = g / np.linalg.norm(g, axis=-1, keepdims=True)
    h_dir = np.eye(d)[0]
    phi0 = np.arccos(np.clip(z @ h_dir, -1, 1))  # angle to h; pi - phi0 = angle to -h
    for alpha in (1.0, 1.45, 2.2):
        p = float(lohe.antipodal_probability(alpha, d))
        mc = np.mean(np.pi - phi0 < alpha)
        assert abs(mc - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-12
    # evolve every start with RK4 on d(phi)/dt = -|h| sin(phi) (no closed form used)
    a, delta = 1.3, 0.4
    steps = 100  # RK4 error ~ (T/steps)^4, far below the 4-sigma Monte Carlo band
    for T in (0.3, 1.2):
        phi, dt = phi0.copy(), T / steps
        rhs = lambda p: -a * np.sin(p)
        for _ in range(steps):
            k1 = rhs(phi)
            k2 = rhs(phi + dt / 2 * k1)
            k3 = rhs(phi + dt / 2 * k2)
            k4 = rhs(phi + dt * k3)
            phi = phi + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        p = float(lohe.finite_time_failure_probability(a, T, delta, d))
        mc = np.mean(phi > delta)
        assert 0 < p < 1
        assert abs(mc - p) <= 4 * math.sqrt(p * (1 - p) / n), (T, mc, p)


def test_failure_probability_edges_and_errors():
    # no drive: failure iff the start is already farther than delta
    assert_close(
        lohe.finite_time_failure_probability(0.0, 5.0, 1.0, 3), (1 + math.cos(1.0)) / 2
    )
    assert float(lohe.finite_time_failure_probability(1e3, 1e3, 0.1, 4)) == 0.0
    assert np.isfinite(
        jax.grad(lambda a: lohe.finite_time_failure_probability(a, 1e3, 0.1, 4))(1e3)
    )
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.antipodal_probability(1.0, 1)
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.finite_time_failure_probability(1.0, 1.0, 0.5, 1)
    with pytest.raises(ValueError, match="delta must lie in"):
        lohe.finite_time_failure_probability(1.0, 1.0, 0.0, 3)
    with pytest.raises(ValueError, match="T must lie in"):
        lohe.finite_time_failure_probability(1.0, -1.0, 0.5, 3)


def test_degenerate_probability_vs_numpy_monte_carlo():
    d, m, eps, scale, n = 3, 3, 0.8, 1.5, 100_000
    p, se = lohe.degenerate_probability(jax.random.key(9), d, m, eps, n, scale=scale)
    rng = np.random.default_rng(9)
    r = rng.normal(size=(n, m, d))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    w = np.log1p(np.exp(scale * rng.normal(size=(n, m))))
    hits = np.linalg.norm(np.einsum("sj,sjd->sd", w, r), axis=-1) < eps
    q, se_q = hits.mean(), hits.std() / math.sqrt(n)
    assert 0.01 < q < 0.99
    assert abs(float(p) - q) <= 4 * math.sqrt(float(se) ** 2 + se_q**2)
    assert_close(se, math.sqrt(float(p) * (1 - float(p)) / n))
    # one anchor: ||h|| = softplus(g) < eps  <=>  g < log(expm1(eps)), a normal CDF
    p1, se1 = lohe.degenerate_probability(
        jax.random.key(1), 4, 1, 0.5, 50_001, scale=2.0, chunk_size=4096
    )
    exact = scipy.stats.norm.cdf(math.log(math.expm1(0.5)) / 2.0)
    assert abs(float(p1) - exact) <= 4 * math.sqrt(exact * (1 - exact) / 50_001)
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.degenerate_probability(jax.random.key(0), 1, 3, 0.5)
    with pytest.raises(ValueError, match="eps must lie in"):
        lohe.degenerate_probability(jax.random.key(0), 3, 3, 0.0)
    with pytest.raises(ValueError, match="n_anchors must be a positive int"):
        lohe.degenerate_probability(jax.random.key(0), 3, 0, 0.5)


# ---------------------------------------------------------------------- dtypes
def test_float32_is_preserved():
    x = X0.astype(jnp.float32)
    assert lohe.vector_field(x, OMEGA.astype(jnp.float32), 1.0).dtype == jnp.float32
    sol = lohe.simulate(x, None, 1.0, 1.0, saveat=3, method="geodesic", dt=0.1)
    assert sol.x.dtype == jnp.float32 and sol.rho.dtype == jnp.float32
    z, _ = lohe.equilibrium(x[0])
    assert z.dtype == jnp.float32
    assert lohe.readout(x, x).dtype == jnp.float32
    assert lohe.jacobian_spectrum(x[0], x[1]).dtype == jnp.float32
    assert (
        lohe.exact_angle(jnp.float32(1.0), jnp.float32(1.0), jnp.float32(1.0)).dtype
        == jnp.float32
    )
    assert (
        lohe.time_to_converge(
            jnp.float32(1.0), jnp.float32(1.0), jnp.float32(0.1)
        ).dtype
        == jnp.float32
    )
    w = lohe.fixed_query_weights(
        x, jnp.ones((2, D), jnp.float32), jnp.ones((2, D), jnp.float32)
    )
    assert w.dtype == jnp.float32


# ------------------------------------------------------- exact degenerate probability
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_degenerate_probability_exact_two_anchors_closed_form():
    """m = 2 in d = 3: |h|^2 = a^2 + b^2 + 2ab cos(theta), cos(theta) uniform on [-1, 1]."""
    rng = np.random.default_rng(0)
    a, b = np.logaddexp(0, rng.standard_normal((2, 2_000_000)))
    eps = 0.9
    p_given_w = np.clip((eps**2 - (a - b) ** 2) / (4 * a * b), 0.0, 1.0)
    want, se = p_given_w.mean(), p_given_w.std() / np.sqrt(a.size)
    got = lohe.degenerate_probability_exact(3, 2, eps, nodes=40)
    assert abs(got - want) < 5 * se
    assert abs(lohe.degenerate_probability_exact(3, 2, 1.1 * eps, nodes=40) - want) > 20 * se


def test_degenerate_probability_exact_one_anchor_and_monte_carlo():
    # m = 1: |h| = softplus(s g); against the empirical frequency of a large numpy sample
    g = np.random.default_rng(1).standard_normal(4_000_000)
    for eps, s in ((1.0, 1.0), (0.5, 0.7)):
        emp = np.mean(np.logaddexp(0, s * g) < eps)
        got = lohe.degenerate_probability_exact(5, 1, eps, s)
        assert abs(got - emp) < 5 * np.sqrt(emp * (1 - emp) / g.size)
    # m = 4, d = 3 against lohe.degenerate_probability (Monte Carlo, binomial error)
    p_hat, se = lohe.degenerate_probability(jax.random.key(3), 3, 4, 1.2, 200_000)
    exact = lohe.degenerate_probability_exact(3, 4, 1.2)
    assert abs(float(p_hat) - exact) < 5 * float(se)


def test_degenerate_probability_exact_bad_input():
    with pytest.raises(ValueError, match="d must be >= 2"):
        lohe.degenerate_probability_exact(1, 2, 1.0)
    with pytest.raises(ValueError, match="n_anchors must be a positive int"):
        lohe.degenerate_probability_exact(3, 0, 1.0)
    with pytest.raises(ValueError, match="eps must lie in"):
        lohe.degenerate_probability_exact(3, 2, 0.0)
    with pytest.raises(ValueError, match="scale must lie in"):
        lohe.degenerate_probability_exact(3, 2, 1.0, -1.0)


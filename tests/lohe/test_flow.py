"""Tests for syncattn.lohe's Lohe flow (lohe/_flow.py): the vector field and simulate.

References: float64 numpy double loops, the Kuramoto field at d = 2, central finite
differences, and first-order convergence of the geodesic integrator to the diffrax solve.
"""


import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given

from syncattn import lohe

from .. import strategies
from ..helpers import assert_close
from ._problem import KMAT, OMEGA, X0, B, D, N, solve as _solve


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


"""The Stiefel manifold St(p, n) (syncattn.geometry.Stiefel) beyond the contract: the
exponential is the geodesic of the embedded metric (Edelman-Arias-Smith), p = 1 is the
sphere, p = n is O(n) (the group's facts, its left-trivialised tangents times X), the
uniform law's moments, the polar factor against an independent eigen-decomposition, and
the argument checks. The contract itself: tests/geometry/test_conformance.py."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import geometry


F64 = jnp.float64
TOL = 1e-10


def _tangent(geo, X, key, scale=1.0):
    V = jax.random.normal(key, X.shape, F64)
    return scale * geo.project(X, V)


def test_facts():
    for p, n in ((1, 3), (2, 4), (3, 3), (2, 5)):
        geo = geometry.Stiefel(p, n)
        assert geo.fiber == (n, p) and geo.m == n * p
        assert geo.dim == n * p - p * (p + 1) // 2
        assert geo.norm_scale == 1 / p and not geo.complex
    sph, so = geometry.Sphere(5), geometry.Group("so", 4)
    assert geometry.Stiefel(1, 5).dim == sph.dim and geometry.Stiefel(1, 5).m == sph.m
    st = geometry.Stiefel(4, 4)
    assert (st.dim, st.m, st.norm_scale) == (so.dim, so.m, so.norm_scale)
    assert st.drift_planes == so.drift_planes and st.omega_shape(3) == so.omega_shape(3)


def test_exp_solves_the_geodesic_equation():
    """Exp_X(t D) against an independent float64 integration (scipy's DOP853) of the
    embedded metric's geodesic equation Y'' = -Y Y'^T Y', Y(0) = X, Y'(0) = D."""
    from scipy.integrate import solve_ivp

    n, p = 5, 2
    geo = geometry.Stiefel(p, n)
    X = geo.random(jax.random.key(0), (), F64)
    D = _tangent(geo, X, jax.random.key(1), 1.7)

    def rhs(t, y):
        Y, dY = y[: n * p].reshape(n, p), y[n * p :].reshape(n, p)
        return np.concatenate([dY.ravel(), (-Y @ dY.T @ dY).ravel()])

    ts = np.array([0.4, 1.0, 1.3])
    y0 = np.concatenate([np.asarray(X).ravel(), np.asarray(D).ravel()])
    ode = solve_ivp(rhs, (0, 1.3), y0, "DOP853", ts, rtol=1e-12, atol=1e-13)
    Ys = jax.vmap(lambda t: geo.exp(X, t * D))(jnp.asarray(ts))
    want = ode.y[: n * p].T.reshape(3, n, p)
    np.testing.assert_allclose(Ys, want, atol=1e-10)
    assert float(jnp.max(geo.residual(Ys))) < 1e-13


def test_p1_is_the_sphere():
    n = 4
    st, sph = geometry.Stiefel(1, n), geometry.Sphere(n)
    X = st.random(jax.random.key(2), (5, 3), F64)
    x = X[..., 0]
    V = jax.random.normal(jax.random.key(3), X.shape, F64)
    np.testing.assert_allclose(
        st.project(X, V)[..., 0], sph.project(x, V[..., 0]), atol=TOL
    )
    D = 2.5 * st.project(X, V)
    np.testing.assert_allclose(st.exp(X, D)[..., 0], sph.exp(x, D[..., 0]), atol=TOL)
    np.testing.assert_allclose(st.nearest(3 * X)[..., 0], sph.nearest(3 * x), atol=TOL)
    np.testing.assert_allclose(st.order_parameter(X), sph.order_parameter(x), atol=TOL)
    omega = jax.random.normal(jax.random.key(4), st.omega_shape(3), F64)
    np.testing.assert_allclose(
        st.drifted_lift(X, omega), sph.drifted_lift(x, omega), atol=TOL
    )


def test_pn_is_the_orthogonal_group():
    """St(n, n) = O(n): on SO(n) the group's facts; tangents D = X xi (the group's
    left-trivialised xi = X^T D), projection X skew(X^T V), Exp_X(X xi) = X e^xi."""
    n = 3
    st, so = geometry.Stiefel(n, n), geometry.Group("so", n)
    X = so.random(jax.random.key(5), (4, 2), F64)
    V = jax.random.normal(jax.random.key(6), X.shape, F64)
    xi = so.project(X, V)
    np.testing.assert_allclose(st.project(X, V), X @ xi, atol=TOL)
    np.testing.assert_allclose(st.exp(X, 2.0 * X @ xi), so.exp(X, 2.0 * xi), atol=1e-12)
    np.testing.assert_allclose(st.inner(X @ xi, X @ xi), so.inner(xi, xi), atol=TOL)
    np.testing.assert_allclose(st.order_parameter(X), so.order_parameter(X), atol=TOL)
    for drift in ("planes", "full"):
        a, b = geometry.Stiefel(n, n, drift), geometry.Group("so", n, drift)
        omega = jax.random.normal(jax.random.key(7), a.omega_shape(2), F64)
        np.testing.assert_allclose(
            a.drifted_lift(X, omega), b.drifted_lift(X, omega), atol=TOL
        )
    np.testing.assert_allclose(
        st.nearest(X + 1e-3 * V), so.nearest(X + 1e-3 * V), atol=1e-12
    )


def test_random_is_uniform_in_its_moments():
    """E[X] = 0 and E[X X^T] = (p/n) I for the O(n)-invariant law; X^T X = I."""
    geo = geometry.Stiefel(2, 5)
    X = geo.random(jax.random.key(8), (4000,), F64)
    assert float(jnp.max(geo.residual(X))) < 1e-13
    np.testing.assert_allclose(jnp.mean(X, 0), 0, atol=0.05)
    np.testing.assert_allclose(
        jnp.mean(X @ jnp.swapaxes(X, -1, -2), 0), 2 / 5 * jnp.eye(5), atol=0.03
    )


def test_nearest_is_the_polar_factor():
    """X (X^T X)^(-1/2) by numpy's eigen-decomposition (an independent polar factor)."""
    geo = geometry.Stiefel(3, 6)
    A = np.asarray(jax.random.normal(jax.random.key(9), (4, 6, 3), F64))
    w, Q = np.linalg.eigh(np.swapaxes(A, -1, -2) @ A)
    inv_sqrt = Q @ (Q.swapaxes(-1, -2) / np.sqrt(w)[..., None])
    np.testing.assert_allclose(geo.nearest(jnp.asarray(A)), A @ inv_sqrt, atol=1e-12)
    np.testing.assert_allclose(
        geo.from_params(jnp.asarray(A)), A @ inv_sqrt, atol=1e-12
    )


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="p must be"):
        geometry.Stiefel(4, 3)
    with pytest.raises(ValueError, match="n must be"):
        geometry.Stiefel(1, 1)
    with pytest.raises(ValueError, match="drift"):
        geometry.Stiefel(1, 3, "spiral")
    with pytest.raises(ValueError, match="stiefel<p>x<n>"):
        geometry.Stiefel.from_name("stiefel2")
    geo = geometry.Stiefel(2, 4)
    X = geo.random(jax.random.key(10), (3, 2), F64)
    with pytest.raises(ValueError, match="Stiefel manifold"):
        geo.check(X * 1.01, 2, "X")
    with pytest.raises(ValueError, match="shape"):
        geo.check(X[..., :1], 2, "X")


# ------------------------------------------------------------------ the layer
def _stiefel_layer(geo, k, n_heads, omega, key):
    """`nn.SyncAttention` on St(p, n), with the reference layer's drift, returning the
    diagnostics."""
    import equinox as eqx

    from syncattn import nn

    layer = nn.SyncAttention(geo, k, n_heads, key=key)
    layer = eqx.tree_at(lambda m: m.omega, layer, omega)
    return lambda X: layer(X, diagnostics=True)


def test_the_attention_core_on_st_1_n_is_the_sphere_layer():
    from syncattn import nn

    key = jax.random.key(11)
    sph = nn.SphereAttention(4, 4, 2, key=key)
    st = _stiefel_layer(geometry.Stiefel(1, 4), 4, 2, sph.omega, key)
    z = geometry.Sphere(4).random(jax.random.key(12), (6, 4), F64)
    (got, d1), (want, d2) = st(z[..., None]), sph(z, diagnostics=True)
    np.testing.assert_allclose(got[..., 0], want, atol=1e-12)
    for name in ("local_order", "global_order", "coherence"):
        np.testing.assert_allclose(d1[name], d2[name], atol=1e-12)


def test_the_attention_core_on_st_n_n_is_the_so_n_layer():
    from syncattn import nn

    key = jax.random.key(13)
    grp = nn.GroupAttention(4, 2, key=key, group="so3")
    st = _stiefel_layer(geometry.Stiefel(3, 3), 4, 2, grp.omega, key)
    U = geometry.Group("so", 3).random(jax.random.key(14), (6, 4), F64)
    (got, d1), (want, d2) = st(U), grp(U, diagnostics=True)
    np.testing.assert_allclose(got, want, atol=1e-12)
    for name in ("local_order", "global_order", "coherence"):
        np.testing.assert_allclose(d1[name], d2[name], atol=1e-12)

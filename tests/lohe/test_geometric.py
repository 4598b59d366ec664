"""The Kuramoto-Lohe flow on any geometry (syncattn.lohe.geometric_field /
geometric_simulate) and the Markdahl form on St(p, n) (markdahl_field).

Independent computations: float64 loops over the pairs (j, k) of the published fields;
the library's own sphere flow (lohe.simulate), matrix flow (lohe.matrix_simulate, RKMK4)
and Kuramoto field for the reductions p = 1, p = n and the torus; the almost-global
synchronisation of Markdahl, Thunberg and Goncalves (Automatica 2020) for p <= 2n/3 - 1
seen from random starts on random connected graphs.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import geometry, lohe


F64 = jnp.float64


def _graph(rng, N, prob=0.4):
    """A connected Erdos-Renyi graph G(N, prob) with symmetric weights in [0.5, 1.5]."""
    while True:
        A = np.triu(rng.random((N, N)) < prob, 1)
        W = np.triu(rng.uniform(0.5, 1.5, (N, N)), 1) * A
        W = W + W.T
        if (
            np.linalg.eigvalsh(np.diag(W.sum(1)) - W)[1] > 1e-9
        ):  # algebraic connectivity
            return W


def _loops(X, K, markdahl):
    """sum_k K_jk (X_k - X_j X_k^T X_j) (Markdahl) or sum_k K_jk (X_k - X_j sym(X_j^T X_k))."""
    X, K = np.asarray(X), np.asarray(K)
    out = np.zeros_like(X)
    for j in range(X.shape[0]):
        for k in range(X.shape[0]):
            A = X[j].T @ X[k]
            cross = X[j] @ X[k].T @ X[j] if markdahl else X[j] @ (A + A.T) / 2
            out[j] += K[j, k] * (X[k] - cross)
    return out


def test_fields_are_the_published_sums_and_tangent():
    geo = geometry.Stiefel(2, 5)
    X = geo.random(jax.random.key(0), (6,), F64)
    K = _graph(np.random.default_rng(0), 6)
    proj, mark = lohe.geometric_field(geo, X, K), lohe.markdahl_field(X, K)
    np.testing.assert_allclose(proj, _loops(X, K, False), atol=1e-12)
    np.testing.assert_allclose(mark, _loops(X, K, True), atol=1e-12)
    for F in (proj, mark):  # X^T F + F^T X = 0
        XtF = jnp.swapaxes(X, -1, -2) @ F
        np.testing.assert_allclose(XtF + jnp.swapaxes(XtF, -1, -2), 0, atol=1e-12)
    # Markdahl = projection + X skew(X^T G), G_j = sum_k K_jk X_k
    G = jnp.einsum("jk,kab->jab", K, X)
    XtG = jnp.swapaxes(X, -1, -2) @ G
    np.testing.assert_allclose(
        mark, proj + X @ (XtG - jnp.swapaxes(XtG, -1, -2)) / 2, atol=1e-12
    )
    # a scalar coupling is all-to-all K / N
    np.testing.assert_allclose(
        lohe.geometric_field(geo, X, 1.5),
        _loops(X, np.full((6, 6), 1.5 / 6), False),
        atol=1e-12,
    )


def test_fields_jit_and_vmap():
    geo = geometry.Stiefel(2, 4)
    X = geo.random(jax.random.key(10), (3, 5), F64)  # a batch of 3 populations
    K = jnp.asarray(_graph(np.random.default_rng(2), 5))
    for f in (
        lambda Y: lohe.geometric_field(geo, Y, K),
        lambda Y: lohe.markdahl_field(Y, K),
    ):
        batched = f(X)
        np.testing.assert_allclose(jax.jit(f)(X), batched, atol=1e-13)
        np.testing.assert_allclose(jax.vmap(f)(X), batched, atol=1e-13)
        np.testing.assert_allclose(f(X[1]), batched[1], atol=1e-13)


def test_the_field_on_the_other_geometries_is_their_flow():
    th = geometry.Torus().random(jax.random.key(1), (7,), F64)
    want = np.mean(np.sin(np.asarray(th)[None, :] - np.asarray(th)[:, None]), 1) * 2.0
    np.testing.assert_allclose(
        lohe.geometric_field(geometry.Torus(), th, 2.0), want, atol=1e-12
    )
    x = geometry.Sphere(4).random(jax.random.key(2), (5,), F64)
    np.testing.assert_allclose(
        lohe.geometric_field(geometry.Sphere(4), x, 1.3),
        lohe.vector_field(x, None, 1.3),
        atol=1e-12,
    )
    for kind in ("so", "u"):
        g = geometry.Group(kind, 3)
        U = g.random(jax.random.key(3), (4,), jnp.complex128 if g.complex else F64)
        np.testing.assert_allclose(
            lohe.geometric_field(g, U, 0.7),
            lohe.matrix_vector_field(U, None, 0.7),
            atol=1e-12,
        )


def test_p1_is_the_sphere_flow():
    K = _graph(np.random.default_rng(1), 6)
    x0 = geometry.Sphere(3).random(jax.random.key(4), (6,), F64)
    want = lohe.simulate(x0, None, K, 4.0, saveat=5)
    got = lohe.geometric_simulate(
        geometry.Stiefel(1, 3), x0[..., None], K, 4.0, saveat=5
    )
    np.testing.assert_allclose(got.states[..., 0], want.states, atol=1e-7)
    np.testing.assert_allclose(got.r, want.r, atol=1e-7)


def test_pn_is_the_so_n_matrix_flow_and_markdahl_is_twice_it():
    U0 = geometry.Group("so", 3).random(jax.random.key(5), (5,), F64)
    want = lohe.matrix_simulate(U0, None, 1.3, 4.0, saveat=5)  # RKMK4
    st = geometry.Stiefel(3, 3)
    got = lohe.geometric_simulate(st, U0, 1.3, 4.0, saveat=5)
    np.testing.assert_allclose(got.states, want.states, atol=1e-7)
    np.testing.assert_allclose(got.r, want.r, atol=1e-7)
    # at p = n: X_k - X_j X_k^T X_j = 2 X_j skew(X_j^T X_k), twice the projection
    twice = lohe.geometric_simulate(st, U0, 0.65, 4.0, saveat=5, form="markdahl")
    np.testing.assert_allclose(twice.states, want.states, atol=1e-7)


def test_states_stay_on_the_manifold_and_r_never_decreases_all_to_all():
    geo = geometry.Stiefel(2, 4)
    X0 = geo.random(jax.random.key(6), (3, 7), F64)  # a batch of 3 populations
    for form in ("projection", "markdahl"):
        s = lohe.geometric_simulate(geo, X0, 1.0, 10.0, saveat=21, form=form)
        assert s.states.shape == (21, 3, 7, 4, 2) and s.r.shape == (21, 3)
        assert float(jnp.max(geo.residual(s.states))) < 1e-13
        assert float(jnp.max(geo.residual(s.final))) < 1e-13
        assert float(jnp.min(jnp.diff(s.r, axis=0))) > -1e-9
        np.testing.assert_allclose(
            s.r, geo.order_parameter(s.states, axis=-1), atol=1e-13
        )


def _sync(p, n, graphs, starts, t1, seed):
    geo, rng = geometry.Stiefel(p, n), np.random.default_rng(seed)
    worst = []
    for g in range(graphs):
        K = _graph(rng, 8)
        X0 = geo.random(jax.random.key(seed + g), (starts, 8), F64)
        s = lohe.geometric_simulate(geo, X0, K, t1, saveat=None, form="markdahl")
        worst.append(float(jnp.min(s.r[-1])))
    return min(worst)


def test_almost_global_synchronisation_small():
    """St(2, 5): p = 2 <= 2n/3 - 1 = 7/3; five random starts on one random connected graph."""
    assert _sync(2, 5, graphs=1, starts=5, t1=60.0, seed=0) > 1 - 1e-8


@pytest.mark.slow
@pytest.mark.parametrize("p, n", [(1, 3), (2, 5), (3, 6)])
def test_almost_global_synchronisation_from_twenty_starts(p, n):
    """p <= 2n/3 - 1: every one of 20 uniform starts on each of 3 random connected graphs
    (N = 8, Erdos-Renyi p = 0.4, weights in [0.5, 1.5]) synchronises (R -> 1)."""
    assert p <= 2 * n / 3 - 1
    assert _sync(p, n, graphs=3, starts=20, t1=60.0, seed=10 * p + n) > 1 - 1e-8


def test_bad_arguments_are_named():
    st = geometry.Stiefel(2, 4)
    X = st.random(jax.random.key(7), (3,), F64)
    with pytest.raises(ValueError, match="s0 must lie"):
        lohe.geometric_simulate(st, 1.1 * X, 1.0, 1.0)
    with pytest.raises(ValueError, match="markdahl"):
        x = geometry.Sphere(3).random(jax.random.key(8), (3,), F64)
        lohe.geometric_simulate(geometry.Sphere(3), x, 1.0, 1.0, form="markdahl")
    with pytest.raises(ValueError, match="form"):
        lohe.geometric_simulate(st, X, 1.0, 1.0, form="canonical")
    with pytest.raises(ValueError, match="coupling"):
        lohe.geometric_field(st, X, jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="states must have shape"):
        lohe.geometric_field(st, X[..., :1], 1.0)
    with pytest.raises(TypeError, match="Geometry"):
        lohe.geometric_field("stiefel2x4", X, 1.0)
    U = geometry.Group("u", 2).random(jax.random.key(9), (3,), jnp.complex128)
    with pytest.raises(ValueError, match="matrix_simulate"):
        lohe.geometric_simulate(geometry.Group("u", 2), U, 1.0, 1.0)


@pytest.mark.slow
def test_on_the_cycle_the_bound_separates_sync_from_twisted_states():
    """The 8-cycle, 50 uniform starts, t = 200: inside the bound (St(1, 3), St(2, 5),
    St(3, 6)) every start synchronises; outside it (the circle St(1, 2): Kuramoto's
    twisted states; St(2, 3), p = 2 > 2n/3 - 1 = 1) some starts settle at R < 1."""
    N = 8
    cycle = np.roll(np.eye(N), 1, 1) + np.roll(np.eye(N), -1, 1)
    cases = {(1, 3): True, (2, 5): True, (3, 6): True, (1, 2): False, (2, 3): False}
    for (p, n), inside in cases.items():
        geo = geometry.Stiefel(p, n)
        X0 = geo.random(jax.random.key(1), (50, N), F64)
        s = lohe.geometric_simulate(geo, X0, cycle, 200.0, saveat=None, form="markdahl")
        synced = int(jnp.sum(s.r[-1] > 1 - 1e-6))
        assert (synced == 50) == inside, (p, n, synced)
        # the counts docs/theory/stiefel.md reports (seed 1)
        assert synced == {(1, 2): 33, (2, 3): 39}.get((p, n), 50), (p, n, synced)

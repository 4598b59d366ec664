"""The attention identities on spheres and matrix groups, against float64 loops."""

import jax
import numpy as np
import pytest
import scipy.linalg as sl

from syncattn import group, kuramoto, lohe


def _unit(rng, shape):
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _elements(rng, shape, n, cplx):
    M = rng.normal(size=(*shape, n, n)) + (
        1j * rng.normal(size=(*shape, n, n)) if cplx else 0
    )
    xi = 1.5 * (M - np.conj(np.swapaxes(M, -1, -2)))
    return np.stack([sl.expm(x) for x in xi.reshape(-1, n, n)]).reshape(*shape, n, n)


def test_sphere_identity_against_a_loop():
    rng = np.random.default_rng(0)
    B, T, U, k, n = 2, 3, 5, 2, 4
    z_t, z_u = _unit(rng, (B, T, k, n)), _unit(rng, (B, U, k, n))
    A = rng.normal(size=(B, T, U))  # any real weights
    ref = np.zeros((B, T, k, n))
    for b in range(B):
        for t in range(T):
            for j in range(k):
                for u in range(U):
                    zu, zt = z_u[b, u, j], z_t[b, t, j]
                    ref[b, t, j] += A[b, t, u] * (zu - np.dot(zu, zt) * zt)
    np.testing.assert_allclose(lohe.sphere_coupling(z_t, z_u, A), ref, atol=1e-13)
    G = np.einsum("btu,bukn->btkn", A, z_u)
    np.testing.assert_allclose(lohe.sphere_tangent_update(z_t, G), ref, atol=1e-13)


def test_sphere_identity_at_n2_is_kuramoto():
    rng = np.random.default_rng(1)
    th_t, th_u = rng.uniform(-5, 5, (3, 2)), rng.uniform(-5, 5, (4, 2))
    A = rng.normal(size=(3, 4))
    lift = lambda th: np.stack([np.cos(th), np.sin(th)], axis=-1)
    a = np.asarray(lohe.sphere_coupling(lift(th_t), lift(th_u), A))
    tangent = np.stack([-np.sin(th_t), np.cos(th_t)], axis=-1)
    np.testing.assert_allclose(
        np.sum(a * tangent, axis=-1), kuramoto.coupling_term(th_t, th_u, A), atol=1e-13
    )
    np.testing.assert_allclose(np.sum(a * lift(th_t), axis=-1), 0.0, atol=1e-13)


@pytest.mark.parametrize("n,cplx", [(3, False), (2, True), (1, True)])
def test_group_identity_against_a_loop(n, cplx):
    rng = np.random.default_rng(2 + n)
    T, U, k = 3, 4, 2
    U_t, U_u = _elements(rng, (T, k), n, cplx), _elements(rng, (U, k), n, cplx)
    A = rng.normal(size=(T, U))
    ref = np.zeros((T, k, n, n), U_t.dtype)
    for t in range(T):
        for j in range(k):
            for u in range(U):
                Ut, Uu = U_t[t, j], U_u[u, j]
                ref[t, j] += 0.5 * A[t, u] * (Uu - Ut @ np.conj(Uu).T @ Ut)
    C = np.asarray(lohe.matrix_coupling(U_t, U_u, A))
    np.testing.assert_allclose(C, ref, atol=1e-13)
    G = np.einsum("tu,ukab->tkab", A, U_u)
    xi = np.asarray(lohe.matrix_tangent_update(U_t, G))
    np.testing.assert_allclose(U_t @ xi, ref, atol=1e-13)  # U xi = Lohe coupling
    np.testing.assert_allclose(xi, -np.conj(np.swapaxes(xi, -1, -2)), atol=1e-14)
    np.testing.assert_allclose(U_t @ xi, group.project_tangent(U_t, G), atol=1e-13)


def test_group_identity_on_u1_is_kuramoto():
    rng = np.random.default_rng(9)
    th_t, th_u = rng.uniform(-5, 5, (3, 2)), rng.uniform(-5, 5, (4, 2))
    A = rng.normal(size=(3, 4))
    G = np.einsum("tu,ukab->tkab", A, np.exp(1j * th_u)[..., None, None])
    xi = np.asarray(lohe.matrix_tangent_update(np.exp(1j * th_t)[..., None, None], G))
    np.testing.assert_allclose(xi[..., 0, 0].real, 0.0, atol=1e-14)
    np.testing.assert_allclose(
        xi[..., 0, 0].imag, kuramoto.coupling_term(th_t, th_u, A), atol=1e-13
    )
    np.testing.assert_allclose(
        xi[..., 0, 0].imag, kuramoto.tangent_update(th_t, G[..., 0, 0]), atol=1e-13
    )


def test_identities_jit_and_float32():
    rng = np.random.default_rng(4)
    z = _unit(rng, (5, 2, 3)).astype(np.float32)
    A = rng.random((5, 5)).astype(np.float32)
    a = jax.jit(lohe.sphere_coupling)(z, z, A)
    assert a.dtype == np.float32
    Us = group.sample_haar(jax.random.key(0), (5, 2), 3, "so", dtype=np.float32)
    C = jax.jit(lohe.matrix_coupling)(Us, Us, A)
    assert C.dtype == np.float32 and C.shape == (5, 2, 3, 3)


def test_bad_input():
    rng = np.random.default_rng(5)
    z = _unit(rng, (4, 2, 3))
    with pytest.raises(ValueError, match="A must have shape"):
        lohe.sphere_coupling(z, z, np.ones((4, 3)))
    with pytest.raises(ValueError, match="z_u must have the banks"):
        lohe.sphere_coupling(z, z[..., :2], np.ones((4, 4)))
    with pytest.raises(ValueError, match="z and G"):
        lohe.sphere_tangent_update(z, np.ones((4, 2, 2)))
    with pytest.raises(ValueError, match="U_t must be in SO"):
        lohe.matrix_coupling(
            2 * np.ones((4, 1, 3, 3)), np.ones((4, 1, 3, 3)), np.ones((4, 4))
        )
    with pytest.raises(ValueError, match="A must be finite"):
        eye = np.broadcast_to(np.eye(2), (4, 1, 2, 2))
        lohe.matrix_coupling(eye, eye, np.full((4, 4), np.nan))
    with pytest.raises(TypeError, match="G is complex"):
        lohe.matrix_tangent_update(np.eye(2), 1j * np.eye(2))

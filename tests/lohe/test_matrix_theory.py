"""Identical Lohe matrix oscillators: dR^2/dt, the diameter and the synchronisation bound."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import group, lohe


# issue 31: the default run stays under 5 minutes on 2 cores (measured 9 min 40 s with
# this file in it, 2026-12-02): slow, and CI's slow line runs it
pytestmark = pytest.mark.slow


def _cluster(key, N, n, kind, scale, seed):
    """N states near a random base point: U_j = B exp(scale * xi_j)."""
    base = group.sample_haar(key, (), n, kind)
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(N, n, n)) + (
        1j * rng.normal(size=(N, n, n)) if kind == "u" else 0
    )
    xi = scale * 0.5 * (A - np.conj(np.swapaxes(A, -1, -2)))
    return group.exp_map(jnp.broadcast_to(base, (N, n, n)), xi)


def _common_H(kind, n, N, seed):
    A = np.random.default_rng(seed).normal(size=(n, n))
    H = 0.5 * (A + A.T) + 0j if kind == "u" else 0.5 * (A - A.T)
    return np.broadcast_to(H, (N, n, n))


@pytest.mark.parametrize("kind,n", [("so", 3), ("u", 2)])
def test_order_rate_equals_the_derivative_along_the_flow(kind, n):
    N = 5
    U = group.sample_haar(jax.random.key(n), N, n, kind)
    H = _common_H(kind, n, N, 0)

    def R2(V):
        return jnp.sum(jnp.abs(jnp.mean(V, axis=-3)) ** 2) / n

    _, d = jax.jvp(R2, (U,), (lohe.matrix_vector_field(U, H, 1.7),))
    np.testing.assert_allclose(lohe.matrix_order_rate(U, 1.7), d, atol=1e-13)
    assert float(lohe.matrix_order_rate(U, 1.7)) > 0


def test_order_rate_vanishes_at_equilibria_and_r_never_decreases():
    # N - 1 at I and one reflection-like element: U_j^H M Hermitian, an equilibrium
    P = jnp.diag(jnp.array([-1.0, 1.0, 1.0]) + 0j)
    U = jnp.stack([jnp.eye(3, dtype=P.dtype)] * 3 + [P])
    assert abs(float(lohe.matrix_order_rate(U, 1.0))) < 1e-15
    s = lohe.matrix_simulate(
        group.sample_haar(jax.random.key(9), 6, 2), None, 1.0, 8.0, saveat=33
    )
    assert np.all(np.diff(np.asarray(s.r)) >= -1e-13)


def test_diameter_matches_a_loop_and_u1_chord():
    U = np.asarray(group.sample_haar(jax.random.key(1), (2, 4), 2))
    ref = [
        max(np.linalg.norm(U[b, i] - U[b, j]) for i in range(4) for j in range(4))
        for b in range(2)
    ]
    np.testing.assert_allclose(lohe.ensemble_diameter(U), ref, atol=1e-14)
    th = np.array([0.1, 0.5, 1.3])
    np.testing.assert_allclose(
        lohe.ensemble_diameter(np.exp(1j * th)[:, None, None]),
        2 * np.sin(0.6),
        atol=1e-14,
    )


def test_sync_bound_solves_the_logistic_comparison():
    D0, K, N = 0.9, 1.3, 4
    t = np.linspace(0, 3, 7)
    y = np.asarray(lohe.matrix_sync_bound(D0, K, N, t))
    c = (N - 1) / N
    h = 1e-6
    dy = (np.asarray(lohe.matrix_sync_bound(D0, K, N, t + h)) - y) / h
    np.testing.assert_allclose(dy, -K * y * (1 - c * y), rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(y[0], D0)
    assert np.all(y <= D0 / (1 - c * D0) * np.exp(-K * t) + 1e-15)
    assert lohe.matrix_sync_threshold(4) == 4 / 3
    assert lohe.matrix_sync_threshold(1) == float("inf")


@pytest.mark.parametrize(
    "kind,n,N", [("so", 3, 5), pytest.param("u", 2, 4, marks=pytest.mark.slow)]
)
def test_simulation_obeys_the_bound(kind, n, N):
    U0 = _cluster(jax.random.key(2), N, n, kind, 0.3, 3)
    D0 = float(lohe.ensemble_diameter(U0))
    assert D0 < lohe.matrix_sync_threshold(N)
    s = lohe.matrix_simulate(U0, _common_H(kind, n, N, 4), 1.0, 6.0, saveat=25)
    D = np.asarray(lohe.ensemble_diameter(s.states))
    assert np.all(D <= np.asarray(lohe.matrix_sync_bound(D0, 1.0, N, s.ts)) + 1e-10)
    # the late decay rate is K = 1 (the linearisation's)
    rate = -np.log(D[-1] / D[-5]) / float(s.ts[-1] - s.ts[-5])
    assert abs(rate - 1.0) < 0.05


def test_threshold_is_sharp_for_two_oscillators():
    """N = 2 on U(1): D0 = 2 = N/(N-1) is the antipodal equilibrium, which never syncs."""
    U0 = np.exp(1j * np.array([0.0, np.pi]))[:, None, None]
    s = lohe.matrix_simulate(U0, None, 1.0, 5.0, saveat=3, dt0=0.05)
    np.testing.assert_allclose(lohe.ensemble_diameter(s.final), 2.0, atol=1e-12)


def test_bad_input():
    with pytest.raises(ValueError, match="D0 must lie in"):
        lohe.matrix_sync_bound(1.5, 1.0, 4, 1.0)
    with pytest.raises(ValueError, match="coupling"):
        lohe.matrix_sync_bound(0.5, 0.0, 4, 1.0)
    with pytest.raises(ValueError, match="t must"):
        lohe.matrix_sync_bound(0.5, 1.0, 4, -1.0)
    with pytest.raises(ValueError, match="coupling must be the scalar"):
        lohe.matrix_order_rate(jnp.stack([jnp.eye(2)] * 2), np.ones((2, 2)))
    with pytest.raises(ValueError, match="U must be in"):
        lohe.ensemble_diameter(2 * jnp.stack([jnp.eye(2)] * 2))


def test_sync_time_is_where_the_bound_reaches_delta():
    D0, K, N, delta = np.array([0.3, 1.0, 1e-4]), 0.7, 5, 1e-3
    t = np.asarray(lohe.matrix_sync_time(D0, delta, K, N))
    np.testing.assert_allclose(
        lohe.matrix_sync_bound(D0[:2], K, N, t[:2]), [delta, delta], rtol=1e-12
    )
    assert t[2] == 0.0  # already below delta
    with pytest.raises(ValueError, match="delta"):
        lohe.matrix_sync_time(0.5, 0.0, 1.0, 3)


def test_sphere_diameter_and_the_sphere_flow_obey_the_bound():
    from syncattn import sphere

    rng = np.random.default_rng(6)
    N, d = 6, 4
    base = np.eye(d)[0]
    x0 = np.asarray(sphere.normalize(base + 0.25 * rng.normal(size=(N, d))))
    D0 = float(lohe.sphere_diameter(x0))
    ref = max(np.linalg.norm(x0[i] - x0[j]) for i in range(N) for j in range(N))
    np.testing.assert_allclose(D0, ref, atol=1e-15)
    assert D0 < lohe.matrix_sync_threshold(N)
    A = rng.normal(size=(d, d))
    Om = np.broadcast_to(0.5 * (A - A.T), (N, d, d))
    s = lohe.simulate(x0, Om, 1.0, 6.0, saveat=25, rtol=1e-10, atol=1e-12)
    D = np.asarray(lohe.sphere_diameter(s.x))
    assert np.all(D <= np.asarray(lohe.matrix_sync_bound(D0, 1.0, N, s.ts)) + 1e-9)

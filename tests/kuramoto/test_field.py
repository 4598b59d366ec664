"""Tests for syncattn.kuramoto's vector field and coherence energy (kuramoto/_field.py,
_coupling.py) against float64 double loops.
"""

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from jax.experimental import sparse

from syncattn import kuramoto

from .. import strategies
from ..helpers import approx, assert_close
from ._reference import loop_field as _loop_field


# --------------------------------------------------------------------------- vector field


@given(
    theta=strategies.phases(
        n=st.sampled_from([1, 3, 6]), batch=st.sampled_from([[], [2]])
    ),
    seed=strategies.seeds,
    alpha=st.floats(-1, 1),
)
def test_vector_field_dense_matches_double_loop(theta, seed, alpha):
    rng = np.random.default_rng(seed)
    n = theta.shape[-1]
    K = rng.normal(size=(n, n))
    omega = rng.normal(size=n)
    got = kuramoto.vector_field(theta, omega, K, frustration=alpha)
    assert_close(got, _loop_field(theta, omega, K, alpha), scale=10)


@given(
    theta=strategies.phases(
        n=st.sampled_from([1, 5]), batch=st.sampled_from([[], [2]])
    ),
    K=st.floats(-3, 3),
    seed=strategies.seeds,
)
def test_three_coupling_forms_agree(theta, K, seed):
    n = theta.shape[-1]
    omega = np.random.default_rng(seed).normal(size=n)
    dense = np.full((n, n), K / n)
    ref = _loop_field(theta, omega, dense)
    mean_field = kuramoto.vector_field(theta, omega, K)
    dense_out = kuramoto.vector_field(theta, omega, dense)
    edges = kuramoto.vector_field(theta, omega, kuramoto.EdgeList.from_dense(dense))
    bcoo = kuramoto.vector_field(
        theta, omega, sparse.BCOO.fromdense(jnp.asarray(dense))
    )
    for got in (mean_field, dense_out, edges, bcoo):
        assert_close(got, ref, scale=10)


def test_sparse_forms_match_directed_dense_graph():
    rng = np.random.default_rng(3)
    n = 11
    K = rng.normal(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.3)  # directed, sparse
    theta = rng.uniform(-np.pi, np.pi, size=(2, 3, n))
    omega = rng.normal(size=n)
    ref = _loop_field(theta, omega, K, 0.4)
    edges = kuramoto.EdgeList.from_dense(K)
    np.testing.assert_array_equal(edges.todense(), K)
    for c in (K, edges, sparse.BCOO.fromdense(jnp.asarray(K))):
        assert_close(kuramoto.vector_field(theta, omega, c, frustration=0.4), ref)


def test_vector_field_golden_and_row_convention():
    # oscillator 0 listens to 1 with weight 2, oscillator 1 listens to nobody
    K = np.array([[0.0, 2.0], [0.0, 0.0]])
    theta = np.array([0.0, np.pi / 2])
    assert_close(kuramoto.vector_field(theta, 0.0, K), [2.0, 0.0])
    # mean field: (K/N) sin(pi/2) and (K/N) sin(-pi/2)
    assert_close(kuramoto.vector_field(theta, 0.0, 2.0), [1.0, -1.0])


def test_vector_field_float32_preserved_and_bfloat16_runs():
    theta = jnp.linspace(0, 3, 8, dtype=jnp.float32)
    out = kuramoto.vector_field(theta, jnp.zeros(8, jnp.float32), 1.0)
    assert out.dtype == jnp.float32
    ref = _loop_field(np.asarray(theta, np.float64), 0.0, np.full((8, 8), 1 / 8))
    assert_close(out, ref)  # float32 tolerance (out is float32)
    out16 = kuramoto.vector_field(theta.astype(jnp.bfloat16), 0.0, 1.0)
    assert out16.dtype == jnp.bfloat16
    assert_close(out16, ref, scale=2.5)  # bfloat16: 8 bits of mantissa


def test_zero_coupling_is_free_rotation():
    theta = np.linspace(0, 1, 5)
    omega = np.arange(5.0)
    for c in (0.0, np.zeros((5, 5))):
        np.testing.assert_array_equal(kuramoto.vector_field(theta, omega, c), omega)

# --------------------------------------------------------------------------- energy


@given(
    theta=strategies.phases(n=st.integers(1, 6), batch=st.just([])),
    seed=strategies.seeds,
)
def test_coherence_energy_matches_loop_and_gradient_is_minus_field(theta, seed):
    n = theta.shape[-1]
    B = np.random.default_rng(seed).normal(size=(n, n))
    K = B + B.T
    ref = -0.5 * sum(
        K[i, j] * np.cos(theta[j] - theta[i]) for i in range(n) for j in range(n)
    )
    # a sum of n^2 <= 36 O(1) terms that may cancel: an absolute bound
    assert float(kuramoto.coherence_energy(theta, K)) - ref == approx(0.0, scale=10)
    g = jax.grad(lambda th: kuramoto.coherence_energy(th, K))(theta)
    assert_close(-g, _loop_field(theta, 0.0, K), scale=100)
    # scalar coupling: E = -(K N / 2) R^2
    R2 = np.abs(np.mean(np.exp(1j * np.asarray(theta)))) ** 2
    assert float(kuramoto.coherence_energy(theta, 1.7)) == approx(
        -1.7 * n / 2 * R2, scale=0.1
    )


def test_energy_never_increases_along_flow():
    rng = np.random.default_rng(0)
    n = 12
    B = rng.uniform(0, 1, size=(n, n))
    K = (B + B.T) / n
    theta0 = rng.uniform(-np.pi, np.pi, n)
    sol = kuramoto.simulate(theta0, 0.0, K, 20.0, saveat=201, rtol=1e-10, atol=1e-12)
    E = np.asarray(jax.vmap(lambda th: kuramoto.coherence_energy(th, K))(sol.theta))
    assert np.all(np.diff(E) <= 1e-10), np.diff(E).max()
    assert E[-1] < E[0] - 1e-3  # it actually descends


def test_vector_field_rejects_bad_input():
    th = jnp.zeros(4)
    with pytest.raises(ValueError, match=r"coupling.*\(N, N\)=\(4, 4\)"):
        kuramoto.vector_field(th, 0.0, jnp.ones((4, 3)))
    with pytest.raises(ValueError, match="coupling"):
        kuramoto.vector_field(th, 0.0, jnp.ones((3, 3)))
    with pytest.raises(ValueError, match="coupling"):
        kuramoto.vector_field(th, 0.0, jnp.array([[jnp.inf] * 4] * 4))
    with pytest.raises(ValueError, match="omega"):
        kuramoto.vector_field(th, jnp.ones(5), 1.0)
    with pytest.raises(ValueError, match="theta"):
        kuramoto.vector_field(jnp.zeros((2, 0)), 0.0, 1.0)
    with pytest.raises(ValueError, match="theta"):
        kuramoto.vector_field(jnp.array([jnp.inf]), 0.0, 1.0)
    with pytest.raises(ValueError, match="n=5"):
        kuramoto.vector_field(
            th, 0.0, kuramoto.EdgeList(jnp.array([0]), jnp.array([1]), jnp.ones(1), 5)
        )
    with pytest.raises(ValueError, match="receivers"):
        kuramoto.EdgeList(jnp.array([0]), jnp.array([7]), jnp.ones(1), 4)
    with pytest.raises(ValueError, match="A must have shape"):
        kuramoto.coupling_term(jnp.zeros((3, 2)), jnp.zeros((4, 2)), jnp.zeros((3, 3)))
    with pytest.raises(ValueError, match="non-empty"):
        kuramoto.coupling_term(jnp.zeros((3, 2)), jnp.zeros((0, 2)), jnp.zeros((3, 0)))

@pytest.mark.parametrize("n", [999, 1000])  # both sides of the one-product threshold
def test_dense_field_large_n_matches_numpy(n):
    """Large dense couplings take the one-product path; batched K and theta too."""
    rng = np.random.default_rng(n)
    theta = rng.uniform(-np.pi, np.pi, (2, n))
    omega = rng.normal(size=n)
    K = rng.normal(size=(2, n, n)) / n
    # float64 numpy, the sine of every difference formed explicitly
    ref = omega + np.stack(
        [
            np.sum(K[b] * np.sin(theta[b][None, :] - theta[b][:, None] - 0.3), -1)
            for b in range(2)
        ]
    )
    got = kuramoto.vector_field(theta, omega, K, frustration=0.3)
    assert_close(got, ref)
    got_shared = kuramoto.vector_field(theta, omega, K[0], frustration=0.3)
    assert_close(got_shared[0], ref[0])

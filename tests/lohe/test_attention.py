"""Tests for syncattn.lohe's drive, weights and readout (lohe/_attention.py).

References: float64 numpy double loops.
"""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given

from syncattn import lohe

from .. import strategies
from ..helpers import assert_close


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

"""SwiGLU, RMSNorm, PhaseEmbedding, AngleSwiGLU, PrototypeReadout and the bound, against numpy."""

import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import nn

from ..helpers import assert_close
from . import reference


T, D, V = 7, 10, 13


def np_swiglu(m, x):
    w1, w2, w3 = (np.asarray(l.weight) for l in (m.w1, m.w2, m.w3))
    a = x @ w1.T
    return (a / (1 + np.exp(-a)) * (x @ w3.T)) @ w2.T


def test_swiglu_and_rmsnorm():
    x = np.asarray(jax.random.normal(jax.random.key(0), (T, D)))
    m = nn.SwiGLU(D, 24, key=jax.random.key(1))
    assert_close(m(x), np_swiglu(m, x))
    n = eqx.tree_at(
        lambda r: r.weight, nn.RMSNorm(D, eps=1e-5), jnp.linspace(0.5, 2, D)
    )
    want = np.linspace(0.5, 2, D) * x / np.sqrt((x**2).mean(1, keepdims=True) + 1e-5)
    assert_close(n(x), want)
    assert np.all(
        np.isfinite(np.asarray(jax.grad(lambda t: jnp.sum(n(t)))(jnp.zeros((T, D)))))
    )
    assert n(x.astype(np.float32)).dtype == jnp.float32
    assert n(jnp.asarray(x, jnp.bfloat16)).dtype == jnp.bfloat16
    with pytest.raises(ValueError, match="eps"):
        nn.RMSNorm(D, eps=0.0)
    with pytest.raises(ValueError, match="d_hidden"):
        nn.SwiGLU(D, 0, key=jax.random.key(0))


def test_gated_silu_value_and_gradient_by_hand():
    """SwiGLU's hidden activation from the stacked product: the value silu(a) b and its
    custom VJP against central differences of the numpy value (float64), and the
    gradient of SwiGLU through it against autodiff of the plain composition."""
    from syncattn.nn._blocks import gated_silu

    y = np.asarray(jax.random.normal(jax.random.key(2), (5, 8)) * 2)
    a, b = y[:, :4], y[:, 4:]
    f = lambda y: y[:, :4] / (1 + np.exp(-y[:, :4])) * y[:, 4:]  # noqa: E731
    assert_close(gated_silu(y), f(y))
    g = np.asarray(jax.random.normal(jax.random.key(3), (5, 4)))
    got = jax.vjp(gated_silu, jnp.asarray(y))[1](jnp.asarray(g))[0]
    eps, fd = 1e-6, np.zeros_like(y)
    for idx in np.ndindex(y.shape):
        e = np.zeros_like(y)
        e[idx] = eps
        fd[idx] = np.sum(g * (f(y + e) - f(y - e))) / (2 * eps)
    assert_close(got, fd, scale=1e4)
    assert np.all(np.isfinite(got)) and a.shape == b.shape
    m = nn.SwiGLU(D, 24, key=jax.random.key(1))
    x = jax.random.normal(jax.random.key(4), (T, D))
    plain = lambda m: jnp.sum(jnp.sin(  # noqa: E731
        m.w2.weight @ (jax.nn.silu(m.w1.weight @ x.T) * (m.w3.weight @ x.T))))
    for gw, pw in zip(jax.tree.leaves(jax.grad(lambda m: jnp.sum(jnp.sin(m(x).T)))(m)),
                      jax.tree.leaves(jax.grad(plain)(m))):
        assert_close(gw, pw)


def test_bounded_increment():
    u = np.asarray(jax.random.normal(jax.random.key(2), (T, D))) * np.arange(T)[:, None]
    b = np.asarray(nn.bounded_increment(jnp.asarray(u), 0.7))
    assert_close(b, reference.bound(u, 0.7))
    assert np.all(np.sqrt((b**2).mean(1)) < 0.7)
    assert_close(b[0], np.zeros(D))  # u = 0 -> 0
    g = jax.grad(lambda a: jnp.sum(nn.bounded_increment(a, 0.7)))(jnp.zeros((T, D)))
    assert_close(g, np.ones((T, D)))  # the identity near 0


def test_phase_embedding():
    e = nn.PhaseEmbedding(V, 6, key=jax.random.key(3))
    tok = jnp.array([0, 5, 12, 5])
    assert_close(e(tok), np.asarray(e.phases)[[0, 5, 12, 5]], rtol=0, atol=0)
    assert np.all(np.abs(np.asarray(e.phases)) <= math.pi)
    with pytest.raises(TypeError, match="integer"):
        e(jnp.zeros(3))
    with pytest.raises(ValueError, match="range"):
        e(jnp.array([0, V]))


def test_angle_swiglu():
    m = nn.AngleSwiGLU(6, key=jax.random.key(4), bound=0.5)
    th = np.asarray(jax.random.uniform(jax.random.key(5), (T, 6), minval=-3, maxval=3))
    want = th + reference.bound(np_swiglu(m.ffn, th), 0.5)
    assert_close(m(th), want)
    assert m(th.astype(np.float32)).dtype == jnp.float32


def test_prototype_readout():
    m = nn.PrototypeReadout(6, V, key=jax.random.key(6), scale=2.0)
    th = np.asarray(jax.random.uniform(jax.random.key(7), (T, 6), minval=-3, maxval=3))
    phi = np.asarray(m.prototypes)
    want = np.array(
        [
            [2.0 / math.sqrt(6) * np.cos(th[t] - phi[v]).sum() for v in range(V)]
            for t in range(T)
        ]
    )
    assert_close(m(th), want)
    assert m(jnp.asarray(th, jnp.bfloat16)).dtype == jnp.bfloat16
    with pytest.raises(ValueError, match="scale"):
        nn.PrototypeReadout(6, V, key=jax.random.key(0), scale=-1.0)

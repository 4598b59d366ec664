"""SoftmaxAttention and RoPE against naive float64 loops; causality, dtypes, errors."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import nn

from ..helpers import approx, assert_close
from . import reference


T, D, H = 13, 12, 3


def layer(**kw):
    return nn.SoftmaxAttention(D, H, key=jax.random.key(3), **kw)


def tokens(seed=0, shape=(T, D)):
    return jax.random.normal(jax.random.key(seed), shape)


@pytest.mark.parametrize("causal", [True, False])
def test_matches_naive_loop(causal):
    L, x = layer(causal=causal), tokens()
    y, aux = L(x, diagnostics=True)
    want, A = reference.softmax_attention(L, x)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(L(x), y, rtol=0, atol=0)
    y32 = eqx.filter_jit(L)(x.astype(jnp.float32))  # the fused path
    assert y32.dtype == jnp.float32
    assert_close(y32, want, jnp.float32)


@pytest.mark.parametrize("dtype", [jnp.float64, jnp.float32])
def test_causality_exact(dtype):
    L, x = layer(), tokens(1).astype(dtype)
    f = eqx.filter_jit(L)
    y = np.asarray(f(x))
    x2 = x.at[5:].set(3.0)
    np.testing.assert_array_equal(np.asarray(f(x2))[:5], y[:5])


def test_jit_grad_vmap_bfloat16():
    L, xb = layer(), tokens(2, (2, T, D))
    assert_close(jax.vmap(L)(xb)[0], L(xb[0]))
    g = eqx.filter_jit(eqx.filter_grad(lambda m: jnp.sum(jax.vmap(m)(xb) ** 2)))(L)
    assert all(
        np.all(np.isfinite(np.asarray(v)))
        for v in jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    )
    y16 = eqx.filter_jit(L)(xb[0].astype(jnp.bfloat16))
    assert y16.dtype == jnp.bfloat16
    np.testing.assert_allclose(
        np.asarray(y16, np.float32), np.asarray(L(xb[0])), atol=0.1
    )


def test_degenerate_inputs():
    L = layer()
    for x in (jnp.zeros((T, D)), tokens(3, (1, D))):
        y = L(x)
        g = jax.grad(lambda t: jnp.sum(L(t) ** 2))(x)
        assert np.all(np.isfinite(np.asarray(y))) and np.all(np.isfinite(np.asarray(g)))


def test_errors():
    with pytest.raises(ValueError, match="even width"):
        nn.SoftmaxAttention(12, 5, key=jax.random.key(0))
    with pytest.raises(ValueError, match="even width"):
        nn.SoftmaxAttention(9, 3, key=jax.random.key(0))
    with pytest.raises(ValueError, match="d_model"):
        layer()(tokens(0, (T, D + 2)))


# ------------------------------------------------------------------ rope
def test_rope_is_a_rotation_of_pairs():
    x = tokens(4, (T, H, 8))
    om = nn.rope_frequencies(4)
    assert_close(om, 10_000.0 ** (-np.arange(4) / 4))
    y = np.asarray(nn.rope(x, om))
    for t in range(T):
        for h in range(H):
            assert_close(
                y[t, h], reference.rotate_pairs(np.asarray(x[t, h]), np.asarray(om) * t)
            )


def test_rope_scores_depend_on_t_minus_u():
    q, k = tokens(5, (T, 6)), tokens(6, (T, 6))
    om = jnp.array([0.3, -1.1, 2.0])
    s = np.asarray(nn.rope(q, om) @ nn.rope(k, om).T)
    shifted = np.asarray(
        nn.rope(q, om, jnp.arange(T) + 17.0) @ nn.rope(k, om, jnp.arange(T) + 17.0).T
    )
    assert_close(shifted, s)
    # one coordinate pair: the lifted phases give cos(theta_t - theta_u + w (t - u))
    th = np.asarray(tokens(7, (T,)))
    lift = jnp.stack([jnp.cos(th), jnp.sin(th)], -1)
    s1 = np.asarray(nn.rope(lift, jnp.array([0.7])) @ nn.rope(lift, jnp.array([0.7])).T)
    t = np.arange(T)
    assert_close(s1, np.cos(th[:, None] - th[None] + 0.7 * (t[:, None] - t[None])))


def test_rope_errors():
    with pytest.raises(ValueError, match="even"):
        nn.rope(jnp.zeros((3, 5)), jnp.zeros(2))
    with pytest.raises(ValueError, match="omega"):
        nn.rope(jnp.zeros((3, 4)), jnp.zeros(3))
    with pytest.raises(ValueError, match="positions"):
        nn.rope(jnp.zeros((3, 4)), jnp.zeros(2), jnp.zeros(4))
    with pytest.raises(ValueError, match="base"):
        nn.rope_frequencies(4, base=1.0)
    assert float(nn.rope_frequencies(1)[0]) == approx(1.0)  # base^0


def test_key_padding_mask_rope_switch_and_bias():
    mask = jnp.ones(T, bool).at[2].set(False).at[T - 3 :].set(False)
    for kw in (dict(), dict(causal=False), dict(rope=False, out_bias=True)):
        L, x = layer(**kw), tokens(8)
        y, aux = L(x, mask=mask, diagnostics=True)
        want, A = reference.softmax_attention(L, x, mask)
        assert_close(y, want)
        assert_close(aux["weights"], A)
        assert_close(
            eqx.filter_jit(L)(x.astype(jnp.float32), mask=mask), want, jnp.float32
        )
    # padded tokens do not reach the real rows; a row with no real key keeps its causal row
    L = layer()
    left = jnp.arange(T) >= 2
    x = tokens(9)
    x2 = x.at[:2].set(7.0)
    np.testing.assert_array_equal(
        np.asarray(L(x2, mask=left))[2:], np.asarray(L(x, mask=left))[2:]
    )
    assert np.all(np.isfinite(np.asarray(L(x, mask=left))))
    with pytest.raises(ValueError, match="mask"):
        L(x, mask=jnp.ones(T, jnp.int32))


# ------------------------------------------------------------------ projections
@pytest.mark.parametrize("rope", [True, False])
def test_softmax_projections_match_naive_loop(rope):
    L, x = layer(rope=rope), tokens(10)
    q, k, v = nn.softmax_projections(L, x)
    X = np.asarray(x, np.float64)
    dh = D // H
    m = dh // 2
    om = L.rope_base ** (-np.arange(m) / m) if rope else np.zeros(m)
    for t in range(T):
        for h in range(H):
            rows = slice(h * dh, (h + 1) * dh)
            qt = np.asarray(L.wq.weight)[rows] @ X[t]
            kt = np.asarray(L.wk.weight)[rows] @ X[t]
            vt = np.asarray(L.wv.weight)[rows] @ X[t]
            assert_close(q[t, h], reference.rotate_pairs(qt, om * t) / np.sqrt(dh))
            assert_close(k[t, h], reference.rotate_pairs(kt, om * t))
            assert_close(v[t, h], vt)
    # the layer's weights are softmax(q . k) of these arrays (the reference's A)
    _, A = reference.softmax_attention(L, x)
    s = np.einsum("thd,uhd->htu", np.asarray(q), np.asarray(k))
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)  # causal
    assert_close(np.exp(s) / np.exp(s).sum(-1, keepdims=True), A)
    with pytest.raises(TypeError, match="SoftmaxAttention"):
        nn.softmax_projections(nn.RMSNorm(D), x)
    with pytest.raises(ValueError, match="d_model"):
        nn.softmax_projections(L, tokens(0, (T, D + 2)))


def _call_before_projections(L, x, mask):
    """SoftmaxAttention.__call__ as it read before `softmax_projections` (frozen copy)."""
    import math

    from syncattn.nn._common import attend, cast, linear, linear_many
    from syncattn.nn._rope import _rope, rope_frequencies

    s = cast(L, x.dtype)
    T_, H_ = x.shape[0], L.n_heads
    dh = L.d_model // H_
    q, k, v = (a.reshape(T_, H_, dh) for a in linear_many((s.wq, s.wk, s.wv), x))
    q = q / math.sqrt(dh)
    if L.rope:
        omega = rope_frequencies(
            dh // 2, L.rope_base, jnp.promote_types(x.dtype, jnp.float32)
        )
        pos = jnp.arange(T_)
        q, k = _rope(q, omega, pos), _rope(k, omega, pos)
    return linear(s.wo, attend(q, k, v, L.causal, mask).reshape(T_, L.d_model))


@pytest.mark.parametrize(
    "dtype, n",
    [
        (jnp.float64, T),
        pytest.param(jnp.float64, 70, marks=pytest.mark.slow),
        # n = 70 > the CPU attention block: the blocked causal path (36 s at load 6)
        pytest.param(jnp.float32, 70, marks=pytest.mark.slow),
    ],
)
def test_layer_unchanged_bit_for_bit_by_projections(dtype, n):
    x = jax.random.normal(jax.random.key(1), (n, D)).astype(dtype)
    mask = jnp.arange(n) < n - 3
    for kw in (dict(), dict(causal=False), dict(rope=False, out_bias=True)):
        L = layer(**kw)
        L = jax.tree.map(lambda a: a.astype(dtype) if eqx.is_inexact_array(a) else a, L)
        new = lambda m, t: jnp.sum(jnp.sin(m(t, mask=mask)))
        old = lambda m, t: jnp.sum(jnp.sin(_call_before_projections(m, t, mask)))
        np.testing.assert_array_equal(
            np.asarray(L(x, mask=mask)),
            np.asarray(_call_before_projections(L, x, mask)),
        )
        g_new = eqx.filter_grad(new)(L, x)
        g_old = eqx.filter_grad(old)(L, x)
        for a, b in zip(jax.tree.leaves(g_new), jax.tree.leaves(g_old), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_array_equal(
            np.asarray(jax.grad(new, argnums=1)(L, x)),
            np.asarray(jax.grad(old, argnums=1)(L, x)),
        )

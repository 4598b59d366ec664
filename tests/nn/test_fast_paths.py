"""The CPU fast paths of the attention layers against the plain paths they replace.

* `blocked_causal_attend` (query blocks, no key blocks above the diagonal) against
  the exact float64 einsum path of `attend` and against a numpy loop, values and
  gradients, with ragged last blocks and key-padding masks;
* `linear_many` (one GEMM for several projections) against the per-layer `linear`;
* the layers in float32 at a length that takes the blocked path (T > one block),
  against the naive float64 loops of tests/nn/reference.py;
* the causal query-block path of `lohe.masked_drive` / `lohe.readout_sums`
  (`causal=True`, no key block above the diagonal) against the plain composition
  `lohe.drive(mask * lohe.coupling_weights)` / `lohe.readout_kernel` products and
  against numpy loops, values and gradients (float64), and the oscillator layer on
  that path (and its fused q/k/v product) against its naive float64 loop.
"""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, nn
from syncattn.lohe import _fused
from syncattn.nn import _common

from ..helpers import assert_close
from . import reference


def qkv(T, H=2, D=5, seed=0, dtype=jnp.float64):
    ks = jax.random.split(jax.random.key(seed), 3)
    return tuple(jax.random.normal(k, (T, H, D), dtype) for k in ks)


def naive_causal(q, k, v, key_mask=None):
    """numpy loop: softmax over the allowed keys of each row, then the weighted sum."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    T, H, _ = q.shape
    allowed = reference.allowed_matrix(T, True, None if key_mask is None else np.asarray(key_mask))
    out = np.zeros_like(q)
    for h in range(H):
        s = q[:, h] @ k[:, h].T
        out[:, h] = reference.softmax_rows(s, allowed) @ v[:, h]
    return out


def left_padded(T, n_pad):
    return jnp.arange(T) >= n_pad


@pytest.mark.parametrize(
    "T, block",
    # block 1 (one query per block) at T = 7 by default; T = 23 (23 blocks, ~1 min of
    # compilation in float64) is the slow case
    [(1, 4), (9, 4), (16, 4), (17, 8), (7, 1), pytest.param(23, 1, marks=pytest.mark.slow), (10, 64)],
)
@pytest.mark.parametrize("masked", [False, True])
def test_blocked_equals_exact_path_float64(T, block, masked):
    q, k, v = qkv(T)
    km = None
    if masked:  # left padding (rows without a real key keep their causal row) and a hole
        km = left_padded(T, min(3, T - 1)).at[T - 1].set(T == 1)
    got = _common.blocked_causal_attend(q, k, v, km, block=block)
    exact = _common.attend(q, k, v, True, km)  # float64: the einsum path
    assert got.dtype == jnp.float64
    assert_close(got, exact)
    assert_close(got, naive_causal(q, k, v, km))

    g = jax.random.normal(jax.random.key(9), q.shape, jnp.float64)

    def loss(f):
        return lambda q, k, v: jnp.sum(f(q, k, v) * g)

    d_blk = jax.grad(loss(lambda *a: _common.blocked_causal_attend(*a, km, block=block)), (0, 1, 2))(q, k, v)
    d_ref = jax.grad(loss(lambda *a: _common.attend(*a, True, km)), (0, 1, 2))(q, k, v)
    for a, b in zip(d_blk, d_ref, strict=True):
        assert_close(a, b)


def test_blocked_is_causal_and_float32_path_is_taken(monkeypatch):
    monkeypatch.setenv("SYNCATTN_ATTENTION_KERNEL", "0")  # the pure-XLA path (no kernel)
    T = _common.CPU_ATTENTION_BLOCK + 37  # two blocks, the second ragged
    q, k, v = qkv(T, dtype=jnp.float32)
    jaxpr = str(jax.make_jaxpr(lambda *a: _common.attend(*a, True))(q, k, v))
    # the CPU float32 path: two score blocks (64 x 64 and 37 x 101), no T x T one
    assert f"f32[2,{T - 64},{T}]" in jaxpr and f"f32[2,{T},{T}]" not in jaxpr
    got = jax.jit(lambda *a: _common.attend(*a, True))(q, k, v)
    assert_close(got, naive_causal(q, k, v), jnp.float32)
    # a change of the future keys does not reach the past rows
    k2, v2 = k.at[50:].set(7.0), v.at[50:].set(-3.0)
    again = jax.jit(lambda *a: _common.attend(*a, True))(q, k2, v2)
    np.testing.assert_array_equal(np.asarray(again)[:50], np.asarray(got)[:50])


@pytest.mark.parametrize("bias", [False, True])
def test_linear_many_equals_separate_linears(bias):
    ks = jax.random.split(jax.random.key(4), 4)
    layers = [eqx.nn.Linear(6, n, use_bias=bias, key=kk) for n, kk in zip((3, 5, 2), ks, strict=False)]
    x = jax.random.normal(ks[3], (7, 6), jnp.float64)
    got = _common.linear_many(layers, x)
    assert [a.shape for a in got] == [(7, 3), (7, 5), (7, 2)]
    for a, layer in zip(got, layers, strict=True):
        want = np.asarray(x) @ np.asarray(layer.weight).T
        if bias:
            want = want + np.asarray(layer.bias)
        assert_close(a, want)
    # gradients split back onto the layers as the separate products give them
    g1 = eqx.filter_grad(lambda ls: sum(jnp.sum(jnp.sin(a)) for a in _common.linear_many(ls, x)))(layers)
    g2 = eqx.filter_grad(lambda ls: sum(jnp.sum(jnp.sin(_common.linear(lyr, x))) for lyr in ls))(layers)
    for a, b in zip(jax.tree.leaves(g1), jax.tree.leaves(g2), strict=True):
        assert_close(a, b)


T_LONG = 13  # three blocks of 5 (the last ragged) with the block width set to 5 below


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 5)
    monkeypatch.setenv("SYNCATTN_ATTENTION_KERNEL", "0")  # the pure-XLA path (no kernel)


def test_softmax_attention_float32_blocked_matches_naive_loop(small_blocks):
    L = nn.SoftmaxAttention(8, 2, key=jax.random.key(3))
    x = jax.random.normal(jax.random.key(0), (T_LONG, 8))
    want, _ = reference.softmax_attention(L, x)
    assert_close(L(x), want)  # float64
    jaxpr = str(jax.make_jaxpr(L)(x.astype(jnp.float32)))
    assert "f32[2,5,10]" in jaxpr and "f32[2,13,13]" not in jaxpr  # the blocked path
    y32 = eqx.filter_jit(L)(x.astype(jnp.float32))
    assert_close(y32, want, jnp.float32, scale=10)
    km = left_padded(T_LONG, 5)
    want_m, _ = reference.softmax_attention(L, x, np.asarray(km))
    assert_close(eqx.filter_jit(L)(x.astype(jnp.float32), mask=km), want_m, jnp.float32, scale=10)


def test_kuramoto_attention_float32_blocked_matches_naive_loop(small_blocks):
    L = nn.KuramotoAttention(6, 3, key=jax.random.key(1), tau=1.3)
    th = jax.random.uniform(jax.random.key(2), (T_LONG, 6), minval=-4.0, maxval=4.0)
    want, _, _ = reference.kuramoto_attention(L, th)
    assert_close(L(th), want)
    jaxpr = str(jax.make_jaxpr(L)(th.astype(jnp.float32)))
    assert "f32[3,5,10]" in jaxpr and "f32[3,13,13]" not in jaxpr  # the blocked path
    y32 = eqx.filter_jit(L)(th.astype(jnp.float32))
    assert_close(y32, want, jnp.float32, scale=10)


def test_long_sequences_take_at_most_the_maximum_number_of_blocks(monkeypatch):
    monkeypatch.setenv("SYNCATTN_ATTENTION_KERNEL", "0")  # the pure-XLA path (no kernel)
    T = 600  # 8 blocks of 75 (not 10 of 64)
    q, k, v = qkv(T, dtype=jnp.float32)
    jaxpr = str(jax.make_jaxpr(lambda *a: _common.attend(*a, True))(q, k, v))
    assert "f32[2,75,75]" in jaxpr and "f32[2,75,600]" in jaxpr and "f32[2,64,64]" not in jaxpr


# ----------------------------------------------------------------- fixed-query kernels


def numpy_causal_drive(q, k, r, kind, allowed):
    """h_i = sum over allowed j <= i of sigma(q_i, k_j) r_j, by loops (float64)."""
    q, k, r = (np.asarray(a, np.float64) for a in (q, k, r))
    H, n, dh = q.shape
    h = np.zeros((H, n, r.shape[-1]))
    for a in range(H):
        for i in range(n):
            for j in range(i + 1):
                if allowed[i, j]:
                    s = q[a, i] @ k[a, j] / np.sqrt(dh)
                    w = {"softplus": reference.softplus(s), "relu": max(s, 0.0) + 1e-3}[kind]
                    h[a, i] += w * r[a, j]
    return h


def numpy_causal_sums(z, r, v, p, allowed):
    """num_i, den_i = sum over allowed j <= i of max(0, 1 + z_i.r_j)^p [v_j, 1]."""
    z, r, v = (np.asarray(a, np.float64) for a in (z, r, v))
    H, n, _ = z.shape
    num, den = np.zeros((H, n, v.shape[-1])), np.zeros((H, n, 1))
    for a in range(H):
        for i in range(n):
            for j in range(i + 1):
                if allowed[i, j]:
                    u = max(0.0, 1.0 + z[a, i] @ r[a, j]) ** p
                    num[a, i] += u * v[a, j]
                    den[a, i] += u
    return num, den


@pytest.fixture
def kernel_blocks(monkeypatch):
    monkeypatch.setattr(_fused, "CPU_BLOCK", 4)  # blocks of 4 from n = 5 on


@pytest.mark.parametrize("n", [3, 10])  # one dense product; 3 blocks of 4 (the last ragged)
@pytest.mark.parametrize("masked", [False, True])
def test_causal_blocked_drive_and_readout_equal_plain_composition(kernel_blocks, n, masked):
    g = np.random.default_rng(n)
    H = 2
    q, k = g.normal(size=(H, n, 4)), g.normal(size=(H, n, 4))
    r, v = g.normal(size=(H, n, 3)), g.normal(size=(H, n, 5))
    z = 0.6 * g.normal(size=(H, n, 3))
    km = np.ones(n, bool)
    if masked:
        km[: min(2, n - 1)] = False
        km[n - 1] = False
    allowed = np.tril(np.ones((n, n), bool)) & km[None, :]
    mask = jnp.asarray(km)[None, None, :] & jnp.ones((1, n, n), bool)  # not causal itself
    tri = jnp.asarray(allowed)[None]
    assert (_fused._causal_block(n) is None) == (n <= 4)

    def blocked(q, k, r, z, v):
        h = lohe.masked_drive(q, k, r, mask=mask, kind="softplus", causal=True)
        num, den = lohe.readout_sums(z, r, v, mask=mask, p=1.5, causal=True)
        return h, num, den

    def plain(q, k, r, z, v):  # the verified functions, the causal mask given whole
        h = lohe.drive(jnp.where(tri, lohe.coupling_weights(q, k, kind="softplus"), 0.0), r)
        u = lohe.readout_kernel(z, r, p=1.5, mask=tri)
        return h, u @ v, jnp.sum(u, -1, keepdims=True)

    args = tuple(jnp.asarray(a) for a in (q, k, r, z, v))
    got, want = blocked(*args), plain(*args)
    for a, b in zip(got, want, strict=True):
        assert_close(a, b)
    assert_close(got[0], numpy_causal_drive(q, k, r, "softplus", allowed))
    for a, b in zip(got[1:], numpy_causal_sums(z, r, v, 1.5, allowed), strict=True):
        assert_close(a, b)
    if n > 4:  # the blocked path: no (n, n) map in the trace
        jaxpr = str(jax.make_jaxpr(blocked)(*args))
        assert f"f64[2,{n},{n}]" not in jaxpr and f"f64[2,{n - 8},{n}]" in jaxpr
        assert "f64[2,4,4]" in jaxpr and "f64[2,4,8]" in jaxpr  # rows 0-3, rows 4-7

    cs = [jnp.asarray(g.normal(size=a.shape)) for a in want]

    def loss(f):
        return lambda *a: sum(jnp.sum(o * c) for o, c in zip(f(*a), cs, strict=True))

    d_blk = jax.grad(loss(blocked), argnums=tuple(range(5)))(*args)
    d_ref = jax.grad(loss(plain), argnums=tuple(range(5)))(*args)
    for a, b in zip(d_blk, d_ref, strict=True):
        assert_close(a, b)


def test_causal_blocked_drive_batched_broadcast_and_relu(kernel_blocks):
    """Batch axes, a mask broadcast over them, anchors shared across the batch (vmap)."""
    g = np.random.default_rng(7)
    B, H, n = 3, 2, 11
    q, k = jnp.asarray(g.normal(size=(B, H, n, 4))), jnp.asarray(g.normal(size=(B, H, n, 4)))
    r = jnp.asarray(g.normal(size=(H, n, 3)))
    tri = jnp.tril(jnp.ones((n, n), bool))[None]

    def blocked(q, k, r):
        return jax.vmap(lambda q, k: lohe.masked_drive(q, k, r, mask=tri, kind="relu", causal=True))(q, k)

    def plain(q, k, r):
        return jax.vmap(lambda q, k: lohe.drive(jnp.where(tri, lohe.coupling_weights(q, k, kind="relu"), 0.0), r))(q, k)

    assert_close(blocked(q, k, r), plain(q, k, r))
    for b in range(B):
        assert_close(blocked(q, k, r)[b], numpy_causal_drive(q[b], k[b], r, "relu", np.asarray(tri[0])))
    c = jnp.asarray(g.normal(size=(B, H, n, 3)))
    d1 = jax.grad(lambda *a: jnp.sum(blocked(*a) * c), argnums=(0, 1, 2))(q, k, r)
    d2 = jax.grad(lambda *a: jnp.sum(plain(*a) * c), argnums=(0, 1, 2))(q, k, r)
    for a, b in zip(d1, d2, strict=True):
        assert_close(a, b)


# mask_readout=True (another ~20 s of float64 compilation) is the slow case; the kernel
# tests above hold the padding masks on the blocked path by default
@pytest.mark.parametrize("mask_readout", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_oscillator_attention_blocked_matches_naive_loop(kernel_blocks, mask_readout):
    L = nn.OscillatorAttention(8, 2, 3, 16, key=jax.random.key(5), mask_readout=mask_readout)
    x = jax.random.normal(jax.random.key(6), (T_LONG, 8))
    km = left_padded(T_LONG, 4)
    for m in (None, km):
        want, _ = reference.oscillator_attention(L, x, None if m is None else np.asarray(m))
        assert_close(L(x, mask=m), want)  # float64 on the blocked path
        y32 = eqx.filter_jit(lambda L, x, m: L(x, mask=m))(L, x.astype(jnp.float32), m)
        assert_close(y32, want, jnp.float32, scale=10)
    jaxpr = str(jax.make_jaxpr(L)(x))
    assert "f64[2,4,8]" in jaxpr and f"f64[2,{T_LONG},{T_LONG}]" not in jaxpr
    # the fused q/k/v product: one (T, d) x (d, 3 H d_h) GEMM, no separate (T, H d_h) ones
    assert "f64[13,24] = dot_general" in jaxpr
    assert jaxpr.count("f64[13,8] = dot_general") == 1  # the output projection only

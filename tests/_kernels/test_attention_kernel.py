"""The fused CPU attention kernel (syncattn._kernels) against its plain XLA composition.

Outputs and gradients equal `xla_attention` (float32 tolerance) over shapes, head widths,
value widths and key-padding masks (hypothesis), under jit and vmap; the result is
bit-identical run to run; the models' `attend` takes it on CPU and equals its pure-XLA
path; switched off (``SYNCATTN_ATTENTION_KERNEL=0``) or unavailable (no compiler) the
same call is the pure-XLA composition. The library builds from source (slow).
`causal_attention_lse` (the row log-sum-exp as a second, differentiable output, and the
diagonal's value left out with `strict`) likewise against `xla_attention_lse`, through
a loss that reads both outputs; `xla_attention_lse` against a float64 loop.
"""

import ctypes
import warnings

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

from syncattn import _kernels
from syncattn._kernels import (
    _build,
    _library,
    causal_attention,
    causal_attention_lse,
    grouped_attention,
    grouped_heads,
    ungrouped_heads,
    xla_attention,
    xla_attention_lse,
)
from syncattn.nn._common import attend

from ..helpers import assert_close


pytestmark = pytest.mark.skipif(
    not _kernels.kernel_enabled(jnp.float32),
    reason=f"the CPU attention kernel is unavailable: {_kernels.status()['error']}",
)


def _inputs(seed, batch, T, H, D, E, mask_kind):
    ks = jax.random.split(jax.random.key(seed), 5)
    q = jax.random.normal(ks[0], (*batch, T, H, D), jnp.float32)
    k = jax.random.normal(ks[1], (*batch, T, H, D), jnp.float32)
    v = jax.random.normal(ks[2], (*batch, T, H, E), jnp.float32)
    do = jax.random.normal(ks[3], (*batch, T, H, E), jnp.float32)
    if mask_kind == "none":
        mask = None
    elif mask_kind == "random":
        mask = jax.random.bernoulli(ks[4], 0.6, (*batch, T))
    elif mask_kind == "left":  # left padding: the first rows have no real key
        mask = jnp.broadcast_to(jnp.arange(T) >= T // 3, (*batch, T))
    else:  # every key padded: each row keeps its causal row
        mask = jnp.zeros((*batch, T), bool)
    return q, k, v, do, mask


def _value_and_grads(fn, q, k, v, do, mask, causal):
    out, vjp = jax.vjp(lambda q, k, v: fn(q, k, v, mask=mask, causal=causal), q, k, v)
    return out, vjp(do)


@pytest.mark.parametrize(
    "batch, T, D, E, causal, mask_kind",
    [
        ((2,), 37, 5, 7, True, "random"),
        ((), 70, 32, 64, True, "left"),
        ((1, 2), 9, 3, 1, False, "all_padded"),
        ((2,), 33, 16, 16, False, "none"),
    ],
)
def test_equals_xla(batch, T, D, E, causal, mask_kind):
    test_equals_xla_outputs_and_gradients.hypothesis.inner_test(
        0, batch, T, 2, D, E, causal, mask_kind
    )


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.lists(st.integers(1, 2), max_size=2),
    T=st.integers(1, 70),
    H=st.integers(1, 3),
    D=st.integers(1, 40),
    E=st.integers(1, 40),
    causal=st.booleans(),
    mask_kind=st.sampled_from(["none", "random", "left", "all_padded"]),
)
def test_equals_xla_outputs_and_gradients(seed, batch, T, H, D, E, causal, mask_kind):
    q, k, v, do, mask = _inputs(seed, batch, T, H, D, E, mask_kind)
    out, grads = _value_and_grads(causal_attention, q, k, v, do, mask, causal)
    want, want_grads = _value_and_grads(xla_attention, q, k, v, do, mask, causal)
    assert out.shape == v.shape and out.dtype == jnp.float32
    assert_close(out, want, scale=4)
    for g, w in zip(grads, want_grads):
        assert_close(g, w, scale=20)


def _lse_value_and_grads(fn, q, k, v, do, dl, mask, causal, strict):
    """(o, L) and the gradient in (q, k, v) of <o, do> + <L, dl>."""
    f = lambda q, k, v: fn(q, k, v, mask=mask, causal=causal, strict=strict)  # noqa: E731
    out, vjp = jax.vjp(f, q, k, v)
    return out, vjp((do, dl))


@pytest.mark.parametrize(
    "batch, T, D, E, causal, strict, mask_kind",
    [
        ((2,), 37, 8, 7, True, True, "left"),
        ((1, 2), 9, 33, 1, False, False, "all_padded"),
        pytest.param((), 40, 33, 16, False, False, "random", marks=pytest.mark.slow),
        pytest.param((2,), 21, 8, 24, True, True, "all_padded", marks=pytest.mark.slow),
    ],
)
def test_lse_equals_xla(batch, T, D, E, causal, strict, mask_kind):
    test_lse_equals_xla_outputs_and_gradients.hypothesis.inner_test(
        0, batch, T, 2, D, E, causal, strict, mask_kind
    )


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.lists(st.integers(1, 2), max_size=2),
    T=st.integers(1, 70),
    H=st.integers(1, 3),
    D=st.integers(1, 40),
    E=st.integers(1, 40),
    causal=st.booleans(),
    strict=st.booleans(),
    mask_kind=st.sampled_from(["none", "random", "left", "all_padded"]),
)
def test_lse_equals_xla_outputs_and_gradients(
    seed, batch, T, H, D, E, causal, strict, mask_kind
):
    q, k, v, do, mask = _inputs(seed, batch, T, H, D, E, mask_kind)
    dl = jax.random.normal(jax.random.key(seed + 1), q.shape[:-1], jnp.float32)
    args = (q, k, v, do, dl, mask, causal, strict)
    (o, L), grads = _lse_value_and_grads(causal_attention_lse, *args)
    (want_o, want_L), want_grads = _lse_value_and_grads(xla_attention_lse, *args)
    assert o.shape == v.shape and L.shape == q.shape[:-1]
    assert o.dtype == L.dtype == jnp.float32
    assert_close(o, want_o, scale=4)
    assert_close(L, want_L, scale=4)
    for g, w in zip(grads, want_grads):
        assert_close(g, w, scale=20)


def test_xla_lse_is_the_double_sum():
    """`xla_attention_lse` (float64) against a loop over (t, u): L_t, and o_t with and
    without the diagonal's value; a padded key, and left padding (rows with no real key
    keep their causal row)."""
    q, k, v, _, _ = _inputs(6, (), 6, 2, 3, 4, "none")
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    mask = np.array([False, False, True, False, True, True])
    for causal, strict in ((True, True), (False, False), (False, True)):
        want_o, want_L = np.zeros((6, 2, 4)), np.zeros((6, 2))
        for t in range(6):
            keys = [u for u in range(6) if (u <= t or not causal)]
            keys = [u for u in keys if mask[u]] or keys
            for h in range(2):
                s = np.array([q[t, h] @ k[u, h] for u in keys])
                want_L[t, h] = np.log(np.sum(np.exp(s)))
                w = np.exp(s - want_L[t, h]) * [not (strict and u == t) for u in keys]
                want_o[t, h] = w @ v[keys, h]
        o, L = xla_attention_lse(q, k, v, mask=mask, causal=causal, strict=strict)
        assert_close(L, want_L)
        assert_close(o, want_o)


@pytest.mark.parametrize("causal", [True, False])
def test_jit_of_vmap_equals_xla(causal):
    """Under jit and vmap (how the models call it: one sequence, vmapped over the batch)."""
    q, k, v, do, mask = _inputs(1, (3,), 45, 2, 16, 24, "random")
    mask = mask.at[1].set(False)

    def loss(fn):
        attn = jax.vmap(lambda q, k, v, m: fn(q, k, v, mask=m, causal=causal))
        return jax.jit(
            jax.value_and_grad(
                lambda q, k, v: jnp.vdot(attn(q, k, v, mask), do), (0, 1, 2)
            )
        )

    (val, grads), (want, want_grads) = (
        loss(causal_attention)(q, k, v),
        loss(xla_attention)(q, k, v),
    )
    assert_close(val, want, scale=10)
    for g, w in zip(grads, want_grads):
        assert_close(g, w, scale=20)
    # vmap over a non-leading axis, with k, v and the mask unbatched
    qt = jnp.moveaxis(q, 0, 1)  # (T, batch, H, D)
    one = lambda fn: jax.vmap(lambda q: fn(q, k[0], v[0], mask=mask[0]), 1, 1)  # noqa: E731
    assert_close(one(causal_attention)(qt), one(xla_attention)(qt), scale=4)


def test_lse_jit_of_vmap_equals_xla():
    """`causal_attention_lse` under jit and vmap, a loss through both outputs; one
    sequence with every key padded."""
    q, k, v, do, mask = _inputs(7, (3,), 45, 2, 8, 24, "random")
    mask = mask.at[1].set(False)
    dl = jax.random.normal(jax.random.key(8), q.shape[:-1], jnp.float32)

    def loss(fn):
        def f(q, k, v, m, do, dl):
            o, L = fn(q, k, v, mask=m, strict=True)
            return jnp.vdot(o, do) + jnp.vdot(L, dl)

        batched = lambda q, k, v: jnp.sum(jax.vmap(f)(q, k, v, mask, do, dl))  # noqa: E731
        return jax.jit(jax.value_and_grad(batched, (0, 1, 2)))

    (val, grads), (want, want_grads) = (
        loss(causal_attention_lse)(q, k, v),
        loss(xla_attention_lse)(q, k, v),
    )
    assert_close(val, want, scale=10)
    for g, w in zip(grads, want_grads):
        assert_close(g, w, scale=20)


def test_bit_stable_run_to_run():
    q, k, v, do, mask = _inputs(2, (4,), 130, 4, 32, 32, "random")
    f = jax.jit(
        lambda q, k, v: jax.vjp(lambda *a: causal_attention(*a, mask=mask), q, k, v)[1](
            do
        )
    )
    first = [np.asarray(a) for a in f(q, k, v)]
    for _ in range(3):
        again = f(q, k, v)
        assert all(np.array_equal(a, np.asarray(b)) for a, b in zip(first, again))


def test_attend_takes_the_kernel_and_equals_its_xla_path(monkeypatch):
    """The models' one attention function: the kernel on CPU, its pure-XLA path when off."""
    q, k, v, _, mask = _inputs(3, (), 100, 4, 32, 32, "left")
    f = lambda q, k, v: attend(q, k, v, True, mask)  # noqa: E731
    assert "syncattn_attention_forward" in str(jax.make_jaxpr(f)(q, k, v))
    y = f(q, k, v)
    monkeypatch.setenv(_library.ENV, "0")
    assert not _kernels.kernel_enabled(jnp.float32)
    g = lambda q, k, v: attend(q, k, v, True, mask)  # noqa: E731  (a fresh trace)
    assert "syncattn_attention" not in str(jax.make_jaxpr(g)(q, k, v))
    assert_close(y, g(q, k, v), scale=4)


def test_float64_and_switched_off_take_the_xla_composition(monkeypatch):
    q, k, v, _, mask = _inputs(4, (2,), 20, 2, 8, 8, "random")
    q64, k64, v64 = (a.astype(jnp.float64) for a in (q, k, v))
    jaxpr = str(
        jax.make_jaxpr(lambda *a: causal_attention(*a, mask=mask))(q64, k64, v64)
    )
    assert "syncattn_attention" not in jaxpr
    monkeypatch.setenv(_library.ENV, "off")
    assert _kernels.status() == {
        "enabled": False,
        "path": None,
        "error": f"switched off by {_library.ENV}",
    }
    assert_close(
        causal_attention(q, k, v, mask=mask),
        xla_attention(q, k, v, mask=mask),
        rtol=0,
        atol=0,
    )
    for a, b in zip(
        causal_attention_lse(q, k, v, mask=mask, strict=True),
        xla_attention_lse(q, k, v, mask=mask, strict=True),
    ):
        assert_close(a, b, rtol=0, atol=0)


def test_unavailable_library_falls_back_with_one_warning(monkeypatch):
    """No compiler (or any build failure): one warning, then the pure-XLA path."""

    def no_compiler():
        raise RuntimeError("no C++ compiler (set CXX, or install g++)")

    monkeypatch.setattr(_library, "_state", {})
    monkeypatch.setattr(_library, "_find_or_build", no_compiler)
    with pytest.warns(RuntimeWarning, match="no C\\+\\+ compiler"):
        assert not _kernels.kernel_enabled(jnp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not _kernels.kernel_enabled(jnp.float32)  # said once
    q, k, v, _, mask = _inputs(5, (), 20, 2, 8, 8, "random")
    jaxpr = str(jax.make_jaxpr(lambda *a: causal_attention(*a, mask=mask))(q, k, v))
    assert "syncattn_attention" not in jaxpr


def _grouped_by_composition(q, k, v, *, mask, causal):
    """The grouped layout by hand: transposed to (..., T, H, G Dg), plain XLA attention,
    transposed back (numpy index arithmetic for the layouts, independent of the library)."""
    G = q.shape[-3]

    def heads(x):  # (..., T, G, H, w) -> (..., T, H, G w): feature j w + i of head h
        x = np.asarray(x)
        y = np.moveaxis(x, -3, -2)
        return jnp.asarray(y.reshape(y.shape[:-2] + (-1,)))

    o = np.asarray(xla_attention(heads(q), heads(k), heads(v), mask=mask, causal=causal))
    o = o.reshape(o.shape[:-1] + (G, -1))
    return jnp.asarray(np.moveaxis(o, -2, -3))


@pytest.mark.parametrize(
    "batch, T, G, H, Dg, Eg, causal, mask_kind",
    [
        ((2,), 37, 2, 3, 5, 7, True, "random"),
        ((), 70, 2, 4, 16, 16, True, "left"),
        ((1, 2), 9, 3, 1, 3, 1, False, "all_padded"),
        ((2,), 33, 1, 2, 16, 16, False, "none"),
    ],
)
def test_grouped_equals_the_transposed_composition(batch, T, G, H, Dg, Eg, causal, mask_kind):
    ks = jax.random.split(jax.random.key(T), 4)
    q = jax.random.normal(ks[0], (*batch, T, G, H, Dg), jnp.float32)
    k = jax.random.normal(ks[1], (*batch, T, G, H, Dg), jnp.float32)
    v = jax.random.normal(ks[2], (*batch, T, G, H, Eg), jnp.float32)
    do = jax.random.normal(ks[3], (*batch, T, G, H, Eg), jnp.float32)
    mask = _inputs(T, batch, T, 1, 1, 1, mask_kind)[-1]
    out = grouped_attention(q, k, v, mask=mask, causal=causal)
    assert out.shape == v.shape
    assert_close(out, _grouped_by_composition(q, k, v, mask=mask, causal=causal), scale=4)
    # gradients: against the library's plain composition (transposes are exact)
    def plain(q, k, v, mask, causal):
        o = xla_attention(grouped_heads(q), grouped_heads(k), grouped_heads(v), mask=mask,
                          causal=causal)
        return ungrouped_heads(o, G)

    got = _value_and_grads(grouped_attention, q, k, v, do, mask, causal)
    want = _value_and_grads(plain, q, k, v, do, mask, causal)
    for g, w in zip(got[1], want[1], strict=True):
        assert_close(g, w, scale=20)
    # under jit of vmap over a leading axis, the same
    f = jax.jit(jax.vmap(lambda q, k, v: grouped_attention(q, k, v, causal=causal)))
    q2, k2, v2 = (jnp.stack([x, 0.5 * x]) for x in (q, k, v))
    assert_close(f(q2, k2, v2)[1], grouped_attention(0.5 * q, 0.5 * k, 0.5 * v, causal=causal),
                 scale=4)


def test_grouped_heads_round_trip_and_switched_off(monkeypatch):
    x = jnp.arange(2 * 3 * 4 * 5, dtype=jnp.float32).reshape(2, 3, 4, 5)  # (T, G, H, Dg)
    y = grouped_heads(x)
    assert y.shape == (2, 4, 15)
    assert float(y[1, 2, 5 * 1 + 3]) == float(x[1, 1, 2, 3])  # head 2, group 1, entry 3
    np.testing.assert_array_equal(ungrouped_heads(y, 3), x)
    for bad in (4, 0, 1.5):
        with pytest.raises(ValueError, match="groups must be an int >= 1 dividing"):
            ungrouped_heads(y, bad)
    q = jax.random.normal(jax.random.key(1), (6, 2, 2, 4), jnp.float32)
    on = grouped_attention(q, q, q)
    monkeypatch.setenv(_library.ENV, "0")
    off = grouped_attention(q, q, q)
    assert_close(on, off, scale=4)
    with pytest.raises(ValueError, match=r"\(\.\.\., T, G, H, Dg\)"):
        grouped_attention(q[0], q[0], q[0])
    with pytest.raises(ValueError, match="mask must be boolean"):
        grouped_attention(q, q, q, mask=jnp.ones(5, bool))


def test_bad_shapes_name_the_arguments():
    q = jnp.zeros((5, 2, 4), jnp.float32)
    with pytest.raises(ValueError, match="q, k must have one shape"):
        causal_attention(q, q[:, :, :3], q)
    with pytest.raises(ValueError, match="mask must be boolean"):
        causal_attention(q, q, q, mask=jnp.ones(4, bool))
    with pytest.raises(ValueError, match="q, k must have one shape"):
        causal_attention_lse(q, q, q[:4])


@pytest.mark.slow
def test_builds_from_source(tmp_path):
    """A fresh build (what the install hook and the first use run) exports both targets."""
    import jaxlib

    lib = _build.build(
        tmp_path / _build.library_name(jaxlib.__version__), jax.ffi.include_dir()
    )
    loaded = ctypes.cdll.LoadLibrary(str(lib))
    assert loaded.SyncattnAttentionForward and loaded.SyncattnAttentionBackward
    assert _build.compiler() is not None

"""The swap kernel (`syncattn._kernels.swap_axes` / `swap_minor`, in blocks.cc): the two axes
before the last exchanged, rows of the last copied whole; `swap_minor` the last two axes.

A swap is a permutation of the entries, so every test asserts bit equality with
`jnp.swapaxes` (values, the VJP, under vmap, shapes with leading batch axes, a last axis
of one); the kernel is in the traced program in float32 and absent in float64 and with
``SYNCATTN_ATTENTION_KERNEL=0``; the layers that take it (the sphere's lift, the
oscillator layer's head-major q, k, v) are covered by their kernel on/off tests."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from syncattn import _kernels
from syncattn._kernels import swap_axes, swap_minor


pytestmark = pytest.mark.skipif(
    not _kernels.kernel_enabled(jnp.float32),
    reason=f"the CPU kernels are unavailable: {_kernels.status()['error']}",
)


def _x(shape, seed=0, dtype=jnp.float32):
    return jnp.asarray(np.random.default_rng(seed).normal(size=shape), dtype)


@settings(max_examples=6, deadline=None)
@given(
    lead=st.lists(st.integers(1, 3), max_size=2),
    a=st.integers(1, 40),
    b=st.integers(1, 13),
    c=st.integers(1, 33),
)
def test_swap_axes_is_swapaxes_bit_for_bit(lead, a, b, c):
    x = _x((*lead, a, b, c))
    np.testing.assert_array_equal(jax.jit(swap_axes)(x), jnp.swapaxes(x, -2, -3))
    w = _x((*lead, b, a, c), seed=1)
    g = jax.grad(lambda y: jnp.sum(swap_axes(y) * w))(x)
    np.testing.assert_array_equal(g, jnp.swapaxes(w, -2, -3))


def test_swap_minor_and_vmap():
    x = _x((3, 37, 21, 4))
    np.testing.assert_array_equal(jax.jit(swap_minor)(x), jnp.swapaxes(x, -1, -2))
    np.testing.assert_array_equal(jax.vmap(swap_minor)(x), jnp.swapaxes(x, -1, -2))
    w = _x((3, 37, 4, 21), seed=1)
    g = jax.grad(lambda y: jnp.sum(jax.vmap(swap_minor)(y) * w))(x)
    np.testing.assert_array_equal(g, jnp.swapaxes(w, -1, -2))


def test_the_kernel_is_taken_in_float32_only(monkeypatch):
    x = _x((5, 6, 7))
    assert "syncattn_swap" in str(jax.make_jaxpr(lambda y: swap_axes(y))(x))
    as64 = jnp.asarray(x, jnp.float64)  # the tests run with x64 enabled (conftest)
    assert as64.dtype == jnp.float64
    assert "syncattn_swap" not in str(jax.make_jaxpr(lambda y: swap_axes(y))(as64))
    monkeypatch.setenv("SYNCATTN_ATTENTION_KERNEL", "0")
    assert "syncattn_swap" not in str(jax.make_jaxpr(lambda y: swap_axes(y))(x))
    np.testing.assert_array_equal(swap_axes(x), jnp.swapaxes(x, -2, -3))


def test_bad_rank_raises():
    with pytest.raises(ValueError, match="three last axes"):
        swap_axes(jnp.ones((3, 4)))
    with pytest.raises(ValueError, match="two last axes"):
        swap_minor(jnp.ones((3,)))

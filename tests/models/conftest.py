"""Shared fixtures of the model tests.

Until the attention layers of ``syncattn.nn`` exist on this branch, a minimal
placeholder attention (defined here, in the tests only) stands in for them, so
the wiring of the models can be tested on its own.
"""

import importlib.util

import equinox as eqx
import jax
import jax.numpy as jnp
import pytest

from syncattn.models import _layers


HAVE_NN = importlib.util.find_spec("syncattn.nn") is not None


class PlaceholderAttention(eqx.Module):
    """Single-head softmax attention, no positions: enough to test the wiring."""

    wq: jax.Array
    wk: jax.Array
    wv: jax.Array
    causal: bool = eqx.field(static=True)

    def __init__(self, d, *, key, causal):
        k1, k2, k3 = jax.random.split(key, 3)
        dt = _layers.dtype()
        self.wq = jax.random.normal(k1, (d, d), dt) / d**0.5
        self.wk = jax.random.normal(k2, (d, d), dt) / d**0.5
        self.wv = jax.random.normal(k3, (d, d), dt) / d**0.5
        self.causal = causal

    def __call__(self, x, mask=None):
        s = (x @ self.wq) @ (x @ self.wk).T
        T = x.shape[0]
        allowed = jnp.ones((T, T), bool)
        if self.causal:
            allowed = jnp.tril(allowed)
        if mask is not None:
            allowed = allowed & mask[None, :]
        s = jnp.where(allowed, s, -jnp.inf)
        return jax.nn.softmax(s, axis=-1) @ (x @ self.wv.astype(x.dtype))


@pytest.fixture
def placeholder_attention(monkeypatch):
    """Swap the nn attention for the placeholder (only while nn is missing)."""
    if HAVE_NN:
        yield False
        return

    def make(config, *, causal, key):
        return PlaceholderAttention(config.d_model, key=key, causal=causal)

    monkeypatch.setattr(_layers, "make_attention", make)
    yield True

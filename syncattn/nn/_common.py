"""Shared plumbing of the nn layers: dtype casting, argument checks, masked attention."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


def check_int(v, name: str, low: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"{name} must be an int >= {low}; got {v!r}.")
    return int(v)


def check_positive(v, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number; got {v!r}.")
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be finite and > 0; got {v!r}.")
    return float(v)


def check_choice(v, name: str, choices: tuple) -> str:
    if v not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {v!r}.")
    return v


def check_input(x, name: str, shape_doc: str, last: int | None, ndim: int = 2):
    """Trace-time check of a layer input: rank, last axis, non-empty, floating."""
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(
            f"{name} must be a floating array {shape_doc}; got dtype {x.dtype}."
        )
    if x.ndim != ndim or (last is not None and x.shape[-1] != last):
        raise ValueError(
            f"{name} must have shape {shape_doc} (unbatched; vmap over a batch); got {x.shape}."
        )
    if x.shape[0] == 0:
        raise ValueError(
            f"{name} must hold at least one token (T >= 1); got {x.shape}."
        )
    return x


def cast(tree, dtype):
    """Every floating array leaf of `tree` cast to `dtype` (layers follow their input)."""
    return jax.tree.map(
        lambda a: a.astype(dtype) if eqx.is_inexact_array(a) else a, tree
    )


def linear(layer: eqx.nn.Linear, x):
    """`layer` applied to every row of `x` (..., d_in) -> (..., d_out)."""
    y = x @ layer.weight.T
    if layer.bias is not None:
        y = y + layer.bias.reshape((1,) * (y.ndim - 1) + layer.bias.shape)
    return y


def causal_mask(T: int, U: int | None = None):
    """Boolean (T, U) mask, True where u <= t (attend)."""
    U = T if U is None else U
    return jnp.tril(jnp.ones((T, U), bool))


def attention_weights(q, k, causal: bool):
    """Softmax weights (H, T, U) of the scores q_t . k_u (scale already folded into q)."""
    s = jnp.einsum("thd,uhd->htu", q, k)
    if causal:
        s = jnp.where(causal_mask(q.shape[0], k.shape[0])[None], s, -jnp.inf)
    wdt = jnp.promote_types(s.dtype, jnp.float32)
    return jax.nn.softmax(s.astype(wdt), axis=-1).astype(q.dtype)


def attend(q, k, v, causal: bool):
    r"""$\operatorname{softmax}(q k^\top)\, v$ per head; q, k, v of shape (T, H, D).

    float64 takes the exact einsum path (jax.nn.dot_product_attention computes its
    softmax in float32); every other dtype goes through jax.nn.dot_product_attention,
    a fused kernel on GPU with O(T * width) memory.
    """
    if q.dtype == jnp.float64:
        return jnp.einsum("htu,uhd->thd", attention_weights(q, k, causal), v)
    return jax.nn.dot_product_attention(q, k, v, scale=1.0, is_causal=causal)

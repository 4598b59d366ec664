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


def check_key_mask(mask, T: int):
    """A key-padding mask: bool (T,), True = a real token that may be attended to."""
    if mask is None:
        return None
    mask = jnp.asarray(mask)
    if mask.dtype != jnp.bool_ or mask.shape != (T,):
        raise ValueError(
            f"mask must be a boolean array of shape (T,)=({T},) (True = real token); "
            f"got dtype {mask.dtype}, shape {mask.shape}."
        )
    return mask


def allowed(T: int, causal: bool, key_mask=None):
    """Boolean (T, T) attend-matrix: causal and/or key padding.

    A row left with no real key (a padding token before every real one) falls back to
    its causal row, so every row attends to something and no softmax sees only -inf.
    """
    base = causal_mask(T) if causal else jnp.ones((T, T), bool)
    if key_mask is None:
        return base
    m = base & key_mask[None, :]
    return jnp.where(jnp.any(m, -1, keepdims=True), m, base)


def attention_weights(q, k, causal: bool, key_mask=None):
    """Softmax weights (H, T, U) of the scores q_t . k_u (scale already folded into q)."""
    s = jnp.einsum("thd,uhd->htu", q, k)
    if causal or key_mask is not None:
        s = jnp.where(allowed(q.shape[0], causal, key_mask)[None], s, -jnp.inf)
    wdt = jnp.promote_types(s.dtype, jnp.float32)
    return jax.nn.softmax(s.astype(wdt), axis=-1).astype(q.dtype)


def attend(q, k, v, causal: bool, key_mask=None):
    r"""$\operatorname{softmax}(q k^\top)\, v$ per head; q, k, v of shape (T, H, D).

    float64 takes the exact einsum path (jax.nn.dot_product_attention computes its
    softmax in float32); every other dtype goes through jax.nn.dot_product_attention,
    a fused kernel on GPU with O(T * width) memory.
    """
    if q.dtype == jnp.float64:
        return jnp.einsum("htu,uhd->thd", attention_weights(q, k, causal, key_mask), v)
    if key_mask is None:
        return jax.nn.dot_product_attention(q, k, v, scale=1.0, is_causal=causal)
    m = allowed(q.shape[0], causal, key_mask)[None]
    return jax.nn.dot_product_attention(q, k, v, mask=m, scale=1.0)

r"""Additive position encodings: sinusoidal (fixed) and learned.

Rotary positions live inside the attention layers ([`syncattn.nn`][]); the two
encodings here are added to the token embedding, as in seed 001's models.
"""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .._numerics import default_floating_dtype
from .._types import Array, Float, PRNGKeyArray


__all__ = ["sinusoidal_positions", "LearnedPositions"]


def sinusoidal_positions(
    length: int, d_model: int, *, dtype=jnp.float32
) -> Float[Array, "length d_model"]:
    r"""The fixed sinusoidal position table of Vaswani et al. (interleaved).

    $$P_{t,2i} = \sin\!\big(t\,10000^{-2i/d}\big), \qquad
      P_{t,2i+1} = \cos\!\big(t\,10000^{-2i/d}\big),$$

    for $t = 0,\dots,$ ``length`` $-1$ and $d$ = ``d_model``; sines on the even
    columns and cosines on the odd ones, as seed 001's
    ``SinusoidalPositionalEncoding``. An odd $d$ drops the last cosine column.

    Args:
        length: number of positions $T \ge 1$.
        d_model: width $d \ge 1$.
        dtype: floating dtype of the table (computed in float32 or wider).

    Returns:
        $P$, shape ``(length, d_model)``.
    """
    if length < 1 or d_model < 1:
        raise ValueError(
            f"length and d_model must be >= 1; got length={length}, d_model={d_model}."
        )
    work = jnp.promote_types(dtype, jnp.float32)
    t = jnp.arange(length, dtype=work)[:, None]
    freq = jnp.exp(
        jnp.arange(0, d_model, 2, dtype=work) * (-math.log(10000.0) / d_model)
    )
    angle = t * freq[None, :]  # (T, ceil(d/2))
    table = jnp.stack([jnp.sin(angle), jnp.cos(angle)], axis=-1).reshape(length, -1)
    return table[:, :d_model].astype(dtype)


class LearnedPositions(eqx.Module):
    r"""A learned absolute position table $P \in \mathbb{R}^{L\times d}$, added
    to the embedding: $x_t \leftarrow x_t + P_t$. Initialised $N(0, 0.02^2)$ as
    in seed 001's code."""

    weight: Float[Array, "max_len d_model"]

    def __init__(self, max_len: int, d_model: int, *, key: PRNGKeyArray, dtype=None):
        dtype = default_floating_dtype() if dtype is None else dtype
        self.weight = 0.02 * jax.random.normal(key, (max_len, d_model), dtype)

    def __call__(self, length: int) -> Float[Array, "length d_model"]:
        """Rows $0,\\dots,$ ``length`` $-1$ of $P$."""
        return self.weight[:length]

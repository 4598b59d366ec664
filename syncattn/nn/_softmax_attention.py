r"""The matched baseline: multi-head softmax attention with RoPE."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .._types import Array, ArrayLike, Bool, Float, PRNGKeyArray
from ._common import (
    attend,
    attention_weights,
    cast,
    check_input,
    check_int,
    check_key_mask,
    check_positive,
    linear,
    linear_many,
)
from ._frozen import FrozenLinear, value_weights
from ._rope import _rope, rope_frequencies


class SoftmaxAttention(eqx.Module):
    r"""Multi-head softmax self-attention with rotary positions (the RoPE + SwiGLU baseline).

    $$y_t = W_o \big\Vert_{h} \sum_{u} A^h_{tu} W^h_v x_u, \qquad
      A^h_{tu} = \operatorname{softmax}_u\Big(\frac{\langle R(\omega t) W^h_q x_t,
      R(\omega u) W^h_k x_u\rangle}{\sqrt{d_h}}\Big)$$

    with $u \le t$ when `causal`, $R(\omega t)$ the RoPE rotation
    ([`syncattn.nn.rope`][]) with frequencies $\omega_j = b^{-j/(d_h/2)}$, and
    $d_h$ = `d_model // n_heads`. No biases (`out_bias=True` adds $b_o$, as the
    published softmax baseline of seed 001 has); `rope=False` drops the rotation (for
    models with additive positions). float64 inputs take an exact einsum path; other
    dtypes go through `jax.nn.dot_product_attention`.

    `__call__(x, mask=...)` takes a key-padding mask, bool `(T,)`, True = real token:
    keys with False get zero weight (a row with no real key keeps its causal row).

    Args:
        d_model: width $d$.
        n_heads: number of heads; must divide `d_model` into even head widths.
        key: PRNG key.
        causal: mask $u > t$.
        rope_base: RoPE base $b > 1$.
        rope: rotate queries and keys (RoPE).
        out_bias: a bias on the output projection.
        freeze_values: keep $W_v$ at its random initialisation, a
            [`syncattn.nn.FrozenLinear`][] (seed 001's frozen-$W_V$ ablation: no
            gradient, no optimiser step, not a parameter).
    """

    wq: eqx.nn.Linear
    wk: eqx.nn.Linear
    wv: eqx.nn.Linear | FrozenLinear
    wo: eqx.nn.Linear
    d_model: int = eqx.field(static=True)
    n_heads: int = eqx.field(static=True)
    causal: bool = eqx.field(static=True)
    rope_base: float = eqx.field(static=True)
    rope: bool = eqx.field(static=True)

    def __init__(
        self,
        d_model,
        n_heads,
        *,
        key: PRNGKeyArray,
        causal=True,
        rope_base=10_000.0,
        rope=True,
        out_bias=False,
        freeze_values=False,
    ):
        d_model, n_heads = check_int(d_model, "d_model"), check_int(n_heads, "n_heads")
        if d_model % n_heads or (rope and (d_model // n_heads) % 2):
            raise ValueError(
                f"d_model={d_model} must split into n_heads={n_heads} heads"
                + (" of even width (RoPE rotates pairs)." if rope else ".")
            )
        check_positive(rope_base, "rope_base")
        if rope_base <= 1:
            raise ValueError(f"rope_base must be > 1; got {rope_base}.")
        kq, kk, kv, ko = jax.random.split(key, 4)
        self.wq = eqx.nn.Linear(d_model, d_model, use_bias=False, key=kq)
        self.wk = eqx.nn.Linear(d_model, d_model, use_bias=False, key=kk)
        self.wv = (
            FrozenLinear(d_model, d_model, key=kv)
            if freeze_values
            else eqx.nn.Linear(d_model, d_model, use_bias=False, key=kv)
        )
        self.wo = eqx.nn.Linear(d_model, d_model, use_bias=bool(out_bias), key=ko)
        self.d_model, self.n_heads = d_model, n_heads
        self.causal, self.rope_base, self.rope = (
            bool(causal),
            float(rope_base),
            bool(rope),
        )

    def __call__(
        self,
        x: Float[ArrayLike, "T d_model"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "T d_model"] | tuple[Float[Array, "T d_model"], dict]:
        x = check_input(x, "x", f"(T, d_model={self.d_model})", self.d_model)
        s = cast(self, x.dtype)
        T = x.shape[0]
        mask = check_key_mask(mask, T)
        q, k, v = _projections(s, x)
        y = linear(s.wo, attend(q, k, v, self.causal, mask).reshape(T, self.d_model))
        if not diagnostics:
            return y
        return y, {"weights": attention_weights(q, k, self.causal, mask)}


def softmax_projections(
    layer: SoftmaxAttention, x: Float[ArrayLike, "T d_model"]
) -> tuple[
    Float[Array, "T n_heads d_head"],
    Float[Array, "T n_heads d_head"],
    Float[Array, "T n_heads d_head"],
]:
    r"""The scaled, rotated queries, the rotated keys and the values of a [`syncattn.nn.SoftmaxAttention`][].

    $$q^h_t = \frac{R(\omega t)\, W^h_q x_t}{\sqrt{d_h}}, \qquad
      k^h_t = R(\omega t)\, W^h_k x_t, \qquad v^h_t = W^h_v x_t,$$

    per head $h$ (the head's $d_h$ = `d_model // n_heads` rows of each projection),
    with $R(\omega t)$ the RoPE rotation of the pairs $(j, j + d_h/2)$ by $\omega_j t$,
    $\omega_j = b^{-j/(d_h/2)}$ ([`syncattn.nn.rope`][], [`syncattn.nn.rope_frequencies`][];
    the identity when the layer has `rope=False`), so that the layer's weights are
    $A^h_{tu} = \operatorname{softmax}_u(q^h_t\cdot k^h_u)$ and its output
    $y_t = W_o \Vert_h \sum_u A^h_{tu} v^h_u$. These are the very arrays the layer's
    `__call__` attends with (it calls the same code), in the dtype of `x` (parameters
    cast), for a caller that perturbs the weights or the queries (e.g. the robustness
    experiment's softmax analogues of a substrate).

    Args:
        layer: the attention layer.
        x: one sequence, shape `(T, d_model)`.

    Returns:
        `(q, k, v)`, each of shape `(T, n_heads, d_model // n_heads)`.

    Raises:
        TypeError: `layer` not a `SoftmaxAttention`; a non-floating `x`.
        ValueError: `x` not of shape `(T, d_model)` with $T \ge 1$.
    """
    if not isinstance(layer, SoftmaxAttention):
        raise TypeError(
            f"layer must be a syncattn.nn.SoftmaxAttention; got {type(layer).__name__}."
        )
    x = check_input(x, "x", f"(T, d_model={layer.d_model})", layer.d_model)
    return _projections(cast(layer, x.dtype), x)


def _projections(s: SoftmaxAttention, x):
    """`softmax_projections` of the layer `s` already cast to the dtype of the checked `x`."""
    T, H = x.shape[0], s.n_heads
    dh = s.d_model // H
    # one (T, d) x (d, 3d) product for the three projections (linear_many)
    q, k, v = (
        a.reshape(T, H, dh)
        for a in linear_many((s.wq, s.wk, value_weights(s.wv, x.dtype)), x)
    )
    q = q / math.sqrt(dh)
    if s.rope:
        wdt = jnp.promote_types(x.dtype, jnp.float32)
        omega = rope_frequencies(dh // 2, s.rope_base, wdt)
        pos = jnp.arange(T)
        q, k = _rope(q, omega, pos), _rope(k, omega, pos)
    return q, k, v

r"""Feed-forward and normalisation blocks: SwiGLU and RMSNorm."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from .._kernels import gated_silu as fused_gated_silu, kernel_enabled, rms_norm
from .._types import Array, ArrayLike, Float, PRNGKeyArray
from ._common import (
    cast,
    check_input,
    check_int,
    check_positive,
    linear,
    linear_stacked,
)


class SwiGLU(eqx.Module):
    r"""The SwiGLU feed-forward block, applied to every token.

    $$\mathrm{SwiGLU}(x) = W_2\big(\operatorname{silu}(W_1 x) \odot W_3 x\big),
      \qquad \operatorname{silu}(a) = a\,\sigma(a)$$

    $W_1, W_3 \in \mathbb{R}^{d_\mathrm{hidden} \times d}$, $W_2 \in
    \mathbb{R}^{d \times d_\mathrm{hidden}}$, no biases.

    Args:
        d_model: width $d$.
        d_hidden: hidden width (default `4 * d_model`; LLaMA uses about 8/3 d).
        key: PRNG key.
    """

    w1: eqx.nn.Linear
    w2: eqx.nn.Linear
    w3: eqx.nn.Linear
    d_model: int = eqx.field(static=True)

    def __init__(self, d_model, d_hidden=None, *, key: PRNGKeyArray):
        d_model = check_int(d_model, "d_model")
        d_hidden = check_int(4 * d_model if d_hidden is None else d_hidden, "d_hidden")
        k1, k2, k3 = jax.random.split(key, 3)
        self.w1 = eqx.nn.Linear(d_model, d_hidden, use_bias=False, key=k1)
        self.w2 = eqx.nn.Linear(d_hidden, d_model, use_bias=False, key=k2)
        self.w3 = eqx.nn.Linear(d_model, d_hidden, use_bias=False, key=k3)
        self.d_model = d_model

    def __call__(self, x: Float[ArrayLike, "T d_model"]) -> Float[Array, "T d_model"]:
        x = check_input(x, "x", f"(T, d_model={self.d_model})", self.d_model)
        s = cast(self, x.dtype)
        y = linear_stacked((s.w1, s.w3), x)  # one (T, d) x (d, 2 d_hidden) product
        return linear(s.w2, gated_silu(y))


def gated_silu(y: Float[ArrayLike, "... two_h"]) -> Float[Array, "... h"]:
    r"""SwiGLU's hidden activation from the stacked product $y = [a \,\Vert\, b]$.

    $$h = \operatorname{silu}(a) \odot b = a\,\sigma(a) \odot b, \qquad
      \bar a = \bar h \odot b\,\sigma(a)\big(1 + a(1 - \sigma(a))\big), \qquad
      \bar b = \bar h \odot a\,\sigma(a)$$

    Its VJP returns $[\bar a \,\Vert\, \bar b]$ in one array (the gradient of the one
    stacked product), not two halves joined by a concatenation; equal to
    `jax.nn.silu(a) * b` and its autodiff (tests/nn/test_blocks.py). In float32 on the CPU
    it is the fused kernel `syncattn._kernels.gated_silu` (the same VJP)."""
    y = jnp.asarray(y)
    if kernel_enabled(y.dtype):
        return fused_gated_silu(y)
    return _gated_silu(y)


@jax.custom_vjp
def _gated_silu(y):
    a, b = jnp.split(y, 2, axis=-1)
    return jax.nn.silu(a) * b


def _gated_silu_fwd(y):
    return _gated_silu(y), y


def _gated_silu_bwd(y, g):
    a, b = jnp.split(y, 2, axis=-1)
    sig = jax.nn.sigmoid(a)
    da = g * b * sig * (1 + a * (1 - sig))
    return (jnp.concatenate([da, g * a * sig], -1),)


_gated_silu.defvjp(_gated_silu_fwd, _gated_silu_bwd)


class RMSNorm(eqx.Module):
    r"""Root-mean-square normalisation with a learned gain, per token.

    $$\mathrm{RMSNorm}(x) = g \odot \frac{x}{\sqrt{\frac1d \sum_i x_i^2 + \epsilon}}$$

    The statistic is computed in at least float32 (bfloat16 inputs are upcast), and
    $x = 0$ maps to 0 with finite gradients ($\epsilon > 0$). In float32 on the CPU it is
    the fused kernel `syncattn._kernels.rms_norm`.

    Args:
        d_model: width $d$.
        eps: $\epsilon > 0$.
    """

    weight: Float[Array, " d_model"]
    d_model: int = eqx.field(static=True)
    eps: float = eqx.field(static=True)

    def __init__(self, d_model, eps=1e-6):
        self.d_model = check_int(d_model, "d_model")
        self.eps = check_positive(eps, "eps")
        self.weight = jnp.ones(self.d_model)

    def __call__(self, x: Float[ArrayLike, "T d_model"]) -> Float[Array, "T d_model"]:
        x = check_input(x, "x", f"(T, d_model={self.d_model})", self.d_model)
        if kernel_enabled(x.dtype):  # float32 on the CPU: the fused kernel
            return rms_norm(x, self.weight.astype(x.dtype), self.eps)
        wdt = jnp.promote_types(x.dtype, jnp.float32)
        xf = x.astype(wdt)
        inv = jax.lax.rsqrt(jnp.mean(xf * xf, -1, keepdims=True) + self.eps)
        return (xf * inv * self.weight.astype(wdt)[None]).astype(x.dtype)

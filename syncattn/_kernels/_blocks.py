r"""The models' feed-forward activation and normalisation through the fused CPU kernel
(`blocks.cc`), and their plain XLA compositions.

* `gated_silu`: SwiGLU's hidden activation $\operatorname{silu}(a) \odot b$ of the stacked
  product $y = [a \Vert b]$ ([`syncattn.nn.gated_silu`][] takes it in float32 on the CPU);
* `rms_norm`: $g \odot x / \sqrt{\operatorname{mean}(x^2) + \epsilon}$
  ([`syncattn.nn.RMSNorm`][] takes it in float32 on the CPU);
* `swap_axes` / `swap_minor`: two axes swapped (the sphere's lift, the oscillator layer's
  head-major q, k, v in float32 on the CPU).

Each has its kernel's hand-written VJP and is tested against its `xla_` composition
(values and gradients, under `jit` and `vmap`). Where `kernel_enabled` is false the
public functions return the composition.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._types import Array, ArrayLike, Float
from . import _library
from ._attention import kernel_enabled


def _call(name, args, results, **attrs):
    return jax.ffi.ffi_call(name, results, vmap_method="broadcast_all")(*args, **attrs)


def xla_gated_silu(y: Float[ArrayLike, "... two_h"]) -> Float[Array, "... h"]:
    r"""The plain XLA composition of `gated_silu`: `jax.nn.silu(a) * b` for
    $y = [a \Vert b]$ split in halves on the last axis."""
    a, b = jnp.split(jnp.asarray(y), 2, axis=-1)
    return jax.nn.silu(a) * b


@jax.custom_vjp
def _silu(y):
    out = jax.ShapeDtypeStruct(y.shape[:-1] + (y.shape[-1] // 2,), jnp.float32)
    return _call(_library.SILU_FORWARD, (y,), out)


def _silu_fwd(y):
    return _silu(y), y


def _silu_bwd(y, g):
    return (_call(_library.SILU_BACKWARD, (y, g), jax.ShapeDtypeStruct(y.shape, jnp.float32)),)


_silu.defvjp(_silu_fwd, _silu_bwd)


def gated_silu(y: Float[ArrayLike, "... two_h"]) -> Float[Array, "... h"]:
    r"""$h = \operatorname{silu}(a) \odot b = a\,\sigma(a)\,b$ for $y = [a \Vert b]$, by the
    fused CPU kernel where `kernel_enabled` (else `xla_gated_silu`). VJP:
    $\bar a = \bar h\, b\,\sigma(a)(1 + a(1 - \sigma(a)))$, $\bar b = \bar h\, a\,\sigma(a)$,
    returned as one array $[\bar a \Vert \bar b]$.

    Raises:
        ValueError: a last axis of odd length (or none).
    """
    y = jnp.asarray(y)
    if y.ndim < 1 or y.shape[-1] % 2:
        raise ValueError(f"y must have an even last axis (..., 2h); got shape {y.shape}.")
    if not kernel_enabled(y.dtype):
        return xla_gated_silu(y)
    return _silu(y)


def xla_rms_norm(
    x: Float[ArrayLike, "*batch T d"], weight: Float[ArrayLike, " d"], eps: float
) -> Float[Array, "*batch T d"]:
    r"""The plain XLA composition of `rms_norm`: $g \odot x\,(\operatorname{mean}(x^2) +
    \epsilon)^{-1/2}$ over the last axis, the statistic in at least float32."""
    x = jnp.asarray(x)
    wdt = jnp.promote_types(x.dtype, jnp.float32)
    xf = x.astype(wdt)
    inv = jax.lax.rsqrt(jnp.mean(xf * xf, -1, keepdims=True) + eps)
    w = jnp.asarray(weight).astype(wdt)
    return (xf * inv * w.reshape((1,) * (x.ndim - 1) + w.shape)).astype(x.dtype)


@partial(jax.custom_vjp, nondiff_argnums=(2,))
def _rms(x, w, eps):
    out = jax.ShapeDtypeStruct(x.shape, jnp.float32)
    return _call(_library.RMS_FORWARD, (x, w), out, eps=np.float32(eps))


def _rms_fwd(x, w, eps):
    return _rms(x, w, eps), (x, w)


def _rms_bwd(eps, res, dy):
    x, w = res
    out = (jax.ShapeDtypeStruct(x.shape, jnp.float32), jax.ShapeDtypeStruct(w.shape, jnp.float32))
    return tuple(_call(_library.RMS_BACKWARD, (x, w, dy), out, eps=np.float32(eps)))


_rms.defvjp(_rms_fwd, _rms_bwd)


def rms_norm(
    x: Float[ArrayLike, "*batch T d"], weight: Float[ArrayLike, " d"], eps: float
) -> Float[Array, "*batch T d"]:
    r"""RMSNorm by the fused CPU kernel where `kernel_enabled` (else `xla_rms_norm`):

    $$y = g \odot x\,r, \qquad r = \Big(\frac1d\sum_i x_i^2 + \epsilon\Big)^{-1/2}$$

    per row of the last axis. VJP: $\bar x = r\,g\odot\bar y - r^3 x\,\frac1d\sum_i
    g_i\bar y_i x_i$, $\bar g = \sum_\text{rows}\bar y\odot x\,r$.

    Args:
        x: `(..., T, d)`.
        weight: the gain $g$ `(d,)`.
        eps: $\epsilon > 0$.

    Raises:
        ValueError: shapes that do not agree, a bad `eps`.
    """
    x, weight = jnp.asarray(x), jnp.asarray(weight)
    if x.ndim < 2 or weight.shape != x.shape[-1:]:
        raise ValueError(
            f"x (..., T, d) and weight (d,) must agree; got {x.shape} and {weight.shape}."
        )
    if isinstance(eps, bool) or not np.isfinite(eps) or not eps > 0:
        raise ValueError(f"eps must be a finite number > 0; got {eps!r}.")
    if x.dtype != weight.dtype or not kernel_enabled(x.dtype):
        return xla_rms_norm(x, weight, eps)
    return _rms(x, jnp.broadcast_to(weight, x.shape[:-2] + weight.shape), float(eps))


@jax.custom_vjp
def _swap(x):
    out = jax.ShapeDtypeStruct(x.shape[:-3] + (x.shape[-2], x.shape[-3], x.shape[-1]), jnp.float32)
    return _call(_library.SWAP, (x,), out)


def _swap_fwd(x):
    return _swap(x), None


def _swap_bwd(_, g):
    return (_swap(g),)


_swap.defvjp(_swap_fwd, _swap_bwd)


def swap_axes(x: Float[ArrayLike, "... a b c"]) -> Float[Array, "... b a c"]:
    r"""$y_{\dots j i l} = x_{\dots i j l}$: the two axes before the last swapped
    (`jnp.swapaxes(x, -2, -3)`), rows of the last axis copied whole, by a CPU kernel where
    `kernel_enabled` (else that `swapaxes`); its VJP is the same swap of the cotangent.
    XLA:CPU's transposes are slow at these shapes (the sphere's $(T, k, 4)$, the
    oscillator layer's $(T, 3H, d_h) \to (3H, T, d_h)$).

    Raises:
        ValueError: `x` of rank < 3.
    """
    x = jnp.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"x must have three last axes (..., a, b, c); got shape {x.shape}.")
    if not kernel_enabled(x.dtype):
        return jnp.swapaxes(x, -2, -3)
    return _swap(x)


def swap_minor(x: Float[ArrayLike, "... a b"]) -> Float[Array, "... b a"]:
    r"""$y_{\dots ji} = x_{\dots ij}$: the last two axes swapped (`jnp.swapaxes(x, -1, -2)`),
    by `swap_axes` of `x[..., None]` (the sphere's $(T, k, n) \leftrightarrow (T, n, k)$).

    Raises:
        ValueError: `x` of rank < 2.
    """
    x = jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"x must have two last axes (..., a, b); got shape {x.shape}.")
    return swap_axes(x[..., None])[..., 0]

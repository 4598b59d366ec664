r"""Causal softmax attention through the fused CPU kernel, and its plain XLA composition."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._types import Array, ArrayLike, Bool, Float
from . import _library


def kernel_enabled(dtype) -> bool:
    """True when `causal_attention` runs the fused kernel for inputs of `dtype`: float32,
    the CPU backend, and the library built (and not switched off by
    ``SYNCATTN_ATTENTION_KERNEL=0``)."""
    return (
        jnp.dtype(dtype) == jnp.float32
        and jax.default_backend() == "cpu"
        and _library.library() is not None
    )


def allowed_keys(mask, T: int, causal: bool):
    r"""Boolean `(..., T, T)`: query $t$ may attend to key $u$.

    $u \le t$ when `causal`, and $u$ a real key (`mask`); a row left with no real key
    keeps its causal (or full) row, so every row attends to something.
    """
    base = jnp.tril(jnp.ones((T, T), bool)) if causal else jnp.ones((T, T), bool)
    if mask is None:
        return base
    shape = mask.shape[:-1] + (T, T)
    base = jnp.broadcast_to(base, shape)
    m = base & jnp.broadcast_to(mask[..., None, :], shape)
    return jnp.where(jnp.any(m, -1, keepdims=True), m, base)


def xla_attention(
    q: Float[ArrayLike, "*batch T H D"],
    k: Float[ArrayLike, "*batch T H D"],
    v: Float[ArrayLike, "*batch T H E"],
    *,
    mask: Bool[ArrayLike, "*batch T"] | None = None,
    causal: bool = True,
) -> Float[Array, "*batch T H E"]:
    r"""The plain XLA composition of `causal_attention`: the $(T, T)$ weights, materialised.

    $$o_t = \sum_{u \in \mathcal A_t} \frac{e^{q_t\cdot k_u}}{\sum_{u' \in \mathcal A_t}
      e^{q_t\cdot k_{u'}}}\, v_u$$

    per head, scores and softmax in at least float32; the reference the kernel is
    tested against.
    """
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    wdt = jnp.promote_types(q.dtype, jnp.float32)
    s = jnp.einsum("...thd,...uhd->...htu", q, k, preferred_element_type=wdt)
    ok = allowed_keys(None if mask is None else jnp.asarray(mask), q.shape[-3], causal)
    s = jnp.where(jnp.broadcast_to(ok[..., None, :, :], s.shape), s, -jnp.inf)
    a = jax.nn.softmax(s, axis=-1)
    return jnp.einsum("...htu,...uhe->...the", a, v.astype(wdt)).astype(q.dtype)


def _call(name, args, results, causal: bool, has_mask: bool):
    return jax.ffi.ffi_call(name, results, vmap_method="broadcast_all")(
        *args, causal=np.int32(causal), has_mask=np.int32(has_mask)
    )


def _forward(q, k, v, mask, causal, has_mask):
    out = (
        jax.ShapeDtypeStruct(v.shape, jnp.float32),
        jax.ShapeDtypeStruct(q.shape[:-1], jnp.float32),
    )
    return _call(_library.FORWARD, (q, k, v, mask), out, causal, has_mask)


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _fused(q, k, v, mask, flags):
    return _forward(q, k, v, mask, *flags)[0]


def _fused_fwd(q, k, v, mask, flags):
    o, lse = _forward(q, k, v, mask, *flags)
    return o, (q, k, v, mask, o, lse)


def _fused_bwd(flags, res, do):
    q, k, v, mask, o, lse = res
    out = tuple(jax.ShapeDtypeStruct(a.shape, jnp.float32) for a in (q, k, v))
    dq, dk, dv = _call(_library.BACKWARD, (q, k, v, mask, o, lse, do), out, *flags)
    return dq, dk, dv, None


_fused.defvjp(_fused_fwd, _fused_bwd)


def causal_attention(
    q: Float[ArrayLike, "*batch T H D"],
    k: Float[ArrayLike, "*batch T H D"],
    v: Float[ArrayLike, "*batch T H E"],
    *,
    mask: Bool[ArrayLike, "*batch T"] | None = None,
    causal: bool = True,
) -> Float[Array, "*batch T H E"]:
    r"""Softmax attention per head, by the fused CPU kernel (`attention.cc`, through `jax.ffi`).

    $$o_t = \sum_{u \in \mathcal A_t} e^{q_t\cdot k_u - L_t}\, v_u, \qquad
      L_t = \log \sum_{u \in \mathcal A_t} e^{q_t\cdot k_u},$$

    with $\mathcal A_t$ the keys $u \le t$ (all keys when `causal=False`) that are real
    (`mask`, True = real token); a row with no real key keeps its causal row. The scale
    is folded into `q` by the caller. The kernel is a flash-style blocked online softmax:
    it never forms the $(T, T)$ weights, and its VJP recomputes them block by block from
    the saved $L_t$. `v` may be wider or narrower than `q` (several value streams in one
    call). Where the kernel does not apply (`kernel_enabled` false: another dtype, a GPU,
    no compiler, or ``SYNCATTN_ATTENTION_KERNEL=0``) it returns `xla_attention`.

    Args:
        q: queries, `(..., T, H, D)`.
        k: keys, the shape of `q`.
        v: values, `(..., T, H, E)`.
        mask: key padding, bool `(..., T)` (or `(T,)`), or None (every key real).
        causal: attend to $u \le t$ only.

    Returns:
        `(..., T, H, E)` in `q`'s dtype.

    Raises:
        ValueError: shapes that do not agree.
    """
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    if q.ndim < 3 or q.shape != k.shape or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(
            "q, k must have one shape (..., T, H, D) and v (..., T, H, E); "
            f"got q {q.shape}, k {k.shape}, v {v.shape}."
        )
    T = q.shape[-3]
    if mask is not None:
        mask = jnp.asarray(mask)
        if mask.dtype != jnp.bool_ or mask.shape[-1:] != (T,):
            raise ValueError(
                f"mask must be boolean of shape (..., T=({T})); got {mask.dtype} {mask.shape}."
            )
    if not kernel_enabled(q.dtype) or v.dtype != q.dtype or k.dtype != q.dtype:
        return xla_attention(q, k, v, mask=mask, causal=causal)
    has_mask = mask is not None
    m = (
        jnp.broadcast_to(mask, q.shape[:-3] + (T,))
        if has_mask
        else jnp.ones((1,), bool)
    )
    return _fused(q, k, v, m, (bool(causal), has_mask))

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


def _masked_scores(q, k, mask, causal: bool):
    r"""The scores $q_t\cdot k_u$ `(..., H, T, T)` in at least float32; $-\infty$ where
    $u \notin \mathcal A_t$ (`allowed_keys`)."""
    wdt = jnp.promote_types(q.dtype, jnp.float32)
    s = jnp.einsum("...thd,...uhd->...htu", q, k, preferred_element_type=wdt)
    ok = allowed_keys(None if mask is None else jnp.asarray(mask), q.shape[-3], causal)
    return jnp.where(jnp.broadcast_to(ok[..., None, :, :], s.shape), s, -jnp.inf)


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
    a = jax.nn.softmax(_masked_scores(q, k, mask, causal), axis=-1)
    return jnp.einsum("...htu,...uhe->...the", a, v.astype(a.dtype)).astype(q.dtype)


def xla_attention_lse(
    q: Float[ArrayLike, "*batch T H D"],
    k: Float[ArrayLike, "*batch T H D"],
    v: Float[ArrayLike, "*batch T H E"],
    *,
    mask: Bool[ArrayLike, "*batch T"] | None = None,
    causal: bool = True,
    strict: bool = False,
) -> tuple[Float[Array, "*batch T H E"], Float[Array, "*batch T H"]]:
    r"""The plain XLA composition of `causal_attention_lse`: $(o, L)$ from the materialised
    $(T, T)$ scores.

    $$L_t = \log \sum_{u \in \mathcal A_t} e^{q_t\cdot k_u}, \qquad
      o_t = \sum_{u \in \mathcal A_t,\ u \ne t \text{ if strict}} e^{q_t\cdot k_u - L_t}\, v_u$$

    per head (`jax.nn.logsumexp` of the masked scores), in at least float32 ($o$ in
    `q`'s dtype); the reference the kernel's $(o, L)$ and their VJP are tested against.
    """
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    s = _masked_scores(q, k, mask, causal)
    L = jax.nn.logsumexp(s, axis=-1, keepdims=True)  # finite: every row has a key
    a = jnp.exp(s - L)
    if strict:
        a = jnp.where(jnp.eye(s.shape[-1], dtype=bool), 0.0, a)
    o = jnp.einsum("...htu,...uhe->...the", a, v.astype(a.dtype)).astype(q.dtype)
    return o, jnp.swapaxes(L[..., 0], -1, -2)


def _call(name, args, results, **flags):
    attrs = {key: np.int32(value) for key, value in flags.items()}
    return jax.ffi.ffi_call(name, results, vmap_method="broadcast_all")(*args, **attrs)


def _forward(q, k, v, mask, flags):
    """The kernel's $(o, L)$; `flags` = (causal, has_mask, strict, grouped)."""
    causal, has_mask, strict, grouped = flags
    lse = q.shape[:-3] + q.shape[-2:-1] if grouped else q.shape[:-1]  # (..., T, H)
    out = (
        jax.ShapeDtypeStruct(v.shape, jnp.float32),
        jax.ShapeDtypeStruct(lse, jnp.float32),
    )
    attrs = dict(causal=causal, has_mask=has_mask, strict=strict, grouped=grouped)
    return _call(_library.FORWARD, (q, k, v, mask), out, **attrs)


def _backward(flags, res, do, dlse):
    """(dq, dk, dv, None) from the cotangents of $o$ and of $L$ (`dlse`, or None: 0)."""
    q, k, v, mask, o, lse = res
    out = tuple(jax.ShapeDtypeStruct(a.shape, jnp.float32) for a in (q, k, v))
    causal, has_mask, strict, grouped = flags
    has_dlse = dlse is not None
    dl = dlse if has_dlse else jnp.zeros((1,), jnp.float32)  # not read without has_dlse
    attrs = dict(
        causal=causal, has_mask=has_mask, strict=strict, has_dlse=has_dlse, grouped=grouped
    )
    args = (q, k, v, mask, o, lse, do, dl)
    dq, dk, dv = _call(_library.BACKWARD, args, out, **attrs)
    return dq, dk, dv, None


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _fused(q, k, v, mask, flags):
    return _forward(q, k, v, mask, flags)[0]


def _fused_fwd(q, k, v, mask, flags):
    o, lse = _forward(q, k, v, mask, flags)
    return o, (q, k, v, mask, o, lse)


def _fused_bwd(flags, res, do):
    return _backward(flags, res, do, None)


_fused.defvjp(_fused_fwd, _fused_bwd)


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _fused_lse(q, k, v, mask, flags):
    return _forward(q, k, v, mask, flags)


def _fused_lse_fwd(q, k, v, mask, flags):
    o, lse = _forward(q, k, v, mask, flags)
    return (o, lse), (q, k, v, mask, o, lse)


def _fused_lse_bwd(flags, res, cts):
    do, dlse = cts
    return _backward(flags, res, do, dlse)


_fused_lse.defvjp(_fused_lse_fwd, _fused_lse_bwd)


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
    q, k, v, mask = _check(q, k, v, mask)
    if not _fusable(q, k, v):
        return xla_attention(q, k, v, mask=mask, causal=causal)
    flags = (bool(causal), mask is not None, False, False)
    return _fused(q, k, v, _kernel_mask(q, mask, 3), flags)


def grouped_heads(x: Float[ArrayLike, "*batch T G H Dg"]) -> Float[Array, "*batch T H GDg"]:
    r"""The heads of a grouped layout: $x_{t,j,h,i} \mapsto y_{t,h,\,j D_g + i}$, i.e.
    `(..., T, G, H, Dg)` to `(..., T, H, G Dg)`; head $h$'s features are its $G$ groups
    one after the other."""
    x = jnp.asarray(x)
    y = jnp.swapaxes(x, -3, -2)
    return y.reshape(y.shape[:-2] + (y.shape[-2] * y.shape[-1],))


def ungrouped_heads(y: Float[ArrayLike, "*batch T H GE"], groups: int) -> Float[Array, "*batch T G H E"]:
    """The inverse of `grouped_heads`: `(..., T, H, G E)` to `(..., T, G, H, E)`.

    Raises:
        ValueError: `groups` not a positive int dividing the last axis, or `y` of rank < 3.
    """
    y = jnp.asarray(y)
    if (
        isinstance(groups, bool) or not isinstance(groups, int) or groups < 1
        or y.ndim < 3 or y.shape[-1] % groups
    ):
        raise ValueError(
            f"groups must be an int >= 1 dividing the last axis of y (..., T, H, G E); "
            f"got groups={groups!r}, y {y.shape}."
        )
    x = y.reshape(y.shape[:-1] + (groups, y.shape[-1] // groups))
    return jnp.swapaxes(x, -3, -2)


def grouped_attention(
    q: Float[ArrayLike, "*batch T G H Dg"],
    k: Float[ArrayLike, "*batch T G H Dg"],
    v: Float[ArrayLike, "*batch T G H Eg"],
    *,
    mask: Bool[ArrayLike, "*batch T"] | None = None,
    causal: bool = True,
) -> Float[Array, "*batch T G H Eg"]:
    r"""`causal_attention` of features laid out in groups before the head axis.

    $$o = \mathrm{ungrouped}\big(\mathrm{causal\_attention}(\mathrm{grouped}(q),
      \mathrm{grouped}(k), \mathrm{grouped}(v))\big)$$

    with $\mathrm{grouped}$ = `grouped_heads` (head $h$ reads the $G$ groups of its token
    as one vector of $G D_g$ features) and $\mathrm{ungrouped}$ = `ungrouped_heads`. The
    fused kernel reads and writes this layout where it lies (the coordinate-major lifts
    of the sync families, `(T, m, H, k_h)`), so the two transposes of the composition,
    forward and backward, are not made; without the kernel, it is that composition.

    Args:
        q: queries, `(..., T, G, H, Dg)`.
        k: keys, the shape of `q`.
        v: values, `(..., T, G, H, Eg)`.
        mask: key padding, bool `(..., T)` (or `(T,)`), or None (every key real).
        causal: attend to $u \le t$ only.

    Returns:
        `(..., T, G, H, Eg)` in `q`'s dtype.

    Raises:
        ValueError: shapes that do not agree.
    """
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    if q.ndim < 4 or q.shape != k.shape or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(
            "q, k must have one shape (..., T, G, H, Dg) and v (..., T, G, H, Eg); "
            f"got q {q.shape}, k {k.shape}, v {v.shape}."
        )
    G = q.shape[-3]
    if not _fusable(q, k, v):
        o = causal_attention(
            grouped_heads(q), grouped_heads(k), grouped_heads(v), mask=mask, causal=causal
        )
        return ungrouped_heads(o, G)
    mask = _check_mask(mask, q.shape[-4])
    flags = (bool(causal), mask is not None, False, True)
    return _fused(q, k, v, _kernel_mask(q, mask, 4), flags)


def _check(q, k, v, mask):
    q, k, v = jnp.asarray(q), jnp.asarray(k), jnp.asarray(v)
    if q.ndim < 3 or q.shape != k.shape or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(
            "q, k must have one shape (..., T, H, D) and v (..., T, H, E); "
            f"got q {q.shape}, k {k.shape}, v {v.shape}."
        )
    return q, k, v, _check_mask(mask, q.shape[-3])


def _check_mask(mask, T: int):
    if mask is not None:
        mask = jnp.asarray(mask)
        if mask.dtype != jnp.bool_ or mask.shape[-1:] != (T,):
            raise ValueError(
                f"mask must be boolean of shape (..., T=({T})); got {mask.dtype} {mask.shape}."
            )
    return mask


def _fusable(q, k, v) -> bool:
    return kernel_enabled(q.dtype) and v.dtype == q.dtype and k.dtype == q.dtype


def _kernel_mask(q, mask, lead: int):
    """The mask as the kernel reads it: `(..., T)` of `q`'s batch (the axes before its
    last `lead`), or a dummy (unread)."""
    if mask is None:
        return jnp.ones((1,), bool)
    return jnp.broadcast_to(mask, q.shape[:-lead] + mask.shape[-1:])


def causal_attention_lse(
    q: Float[ArrayLike, "*batch T H D"],
    k: Float[ArrayLike, "*batch T H D"],
    v: Float[ArrayLike, "*batch T H E"],
    *,
    mask: Bool[ArrayLike, "*batch T"] | None = None,
    causal: bool = True,
    strict: bool = False,
) -> tuple[Float[Array, "*batch T H E"], Float[Array, "*batch T H"]]:
    r"""`causal_attention` with its row log-sum-exp $L$ as a second, differentiable output.

    $$o_t = \sum_{u \in \mathcal A_t,\ u \ne t \text{ if strict}}
      e^{q_t\cdot k_u - L_t}\, v_u, \qquad
      L_t = \log \sum_{u \in \mathcal A_t} e^{q_t\cdot k_u}$$

    by the fused kernel where `kernel_enabled` (else `xla_attention_lse`). Its VJP takes
    the cotangents $(\bar o, \bar L)$: since $\partial L_t / \partial s_{tu} = A_{tu}$,
    the score cotangent is $A_{tu}(\bar o_t\cdot v_u - \bar o_t\cdot o_t + \bar L_t)$,
    the flash backward's row term moved by $\bar L_t$ ($v_t$ read as 0 on the diagonal
    when `strict`). `strict` drops the diagonal's value (the diagonal key still counts
    in $L_t$): then $v_t$ never reaches row $t$, and
    a caller adds its own diagonal term $e^{q_t\cdot k_t - L_t} d_t$ exactly causally
    (`syncattn.nn._common.attend_successor`).

    Args:
        q: queries, `(..., T, H, D)`.
        k: keys, the shape of `q`.
        v: values, `(..., T, H, E)`.
        mask: key padding, bool `(..., T)` (or `(T,)`), or None (every key real).
        causal: attend to $u \le t$ only.
        strict: leave out the diagonal's value $v_t$ from $o_t$.

    Returns:
        `(o, L)`: `(..., T, H, E)` in `q`'s dtype, and `(..., T, H)` in at least
        float32 ($L_t$ finite: every row has a key).

    Raises:
        ValueError: shapes that do not agree.
    """
    q, k, v, mask = _check(q, k, v, mask)
    if not _fusable(q, k, v):
        return xla_attention_lse(q, k, v, mask=mask, causal=causal, strict=strict)
    flags = (bool(causal), mask is not None, bool(strict), False)
    return _fused_lse(q, k, v, _kernel_mask(q, mask, 3), flags)

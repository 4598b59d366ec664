r"""Fused masked products of fixed-query attention: the drive and the readout sums.

Both are $(n, m)$ maps contracted at once against a thin matrix, with the mask fused
into the nonlinearity. Their reverse-mode rules recompute the $(n, m)$ map from the
inputs instead of storing it, so a training step needs about the memory of softmax
attention. Being custom VJPs they support `grad`/`vjp`, not `jax.jvp`.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import as_float, check_finite, check_scalar_range
from .._types import Array, ArrayLike, Bool, Float, ScalarLike
from . import _attention as _att


def _after(g, *xs):
    r"""`xs` unchanged, but data-dependent on the cotangent `g`.

    XLA on CPU drops optimisation barriers, and its scheduler would then hoist the
    backward pass's recomputation of the $(n, m)$ maps into the forward pass, where
    they would sit in memory just as if they had been stored. Adding $0 \cdot g_0$
    (not folded away: $0 \cdot \infty$ is NaN) orders them after the cotangent exists.
    A NaN/inf cotangent already makes every gradient NaN/inf.
    """
    zero = jnp.zeros((), g.dtype) * g.reshape(-1)[0]
    return tuple(x + zero.astype(x.dtype) for x in xs)


def _masked(w, m):
    return w if m is None else jnp.where(m, w, 0.0)


def _t(m):
    return None if m is None else jnp.swapaxes(m, -1, -2)


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _drive(q, k, r, mask, kind: str):
    w = _masked(_att._coupling(q, k, kind), mask)
    return jnp.einsum("...nm,...md->...nd", w, r)


def _drive_fwd(q, k, r, mask, kind):
    return _drive(q, k, r, mask, kind), (q, k, r, mask)


def _drive_bwd(kind, res, g):
    q, k, r, mask = res
    q, k = _after(g, q, k)

    def wt(q, k):  # (..., m, n): w_ij at [j, i] (every coupling is symmetric in q, k)
        return _masked(_att._coupling(k, q, kind), _t(mask))

    w_t, vjp = jax.vjp(wt, q, k)
    g_r = jnp.einsum("...mn,...nd->...md", w_t, g)
    g_q, g_k = vjp(jnp.einsum("...md,...nd->...mn", r, g))
    return g_q, g_k, g_r, None


_drive.defvjp(_drive_fwd, _drive_bwd)


@partial(jax.custom_vjp, nondiff_argnums=(4,))
def _sums(z, r, vv, mask, p):
    u = _att._kernel(1.0 + jnp.einsum("...nd,...md->...nm", z, r), mask, p)
    return jnp.einsum("...nm,...mf->...nf", u, vv)


def _sums_fwd(z, r, vv, mask, p):
    return _sums(z, r, vv, mask, p), (z, r, vv, mask)


def _sums_bwd(p, res, g):
    z, r, vv, mask = res
    z, r = _after(g, z, r)

    def ut(z, r):  # (..., m, n): u_ij at [j, i]
        return _att._kernel(1.0 + jnp.einsum("...md,...nd->...mn", r, z), _t(mask), p)

    u_t, vjp = jax.vjp(ut, z, r)
    g_vv = jnp.einsum("...mn,...nf->...mf", u_t, g)
    g_z, g_r = vjp(jnp.einsum("...mf,...nf->...mn", vv, g))
    return g_z, g_r, g_vv, None


_sums.defvjp(_sums_fwd, _sums_bwd)


def _check_mask(mask, n, m, name="mask"):
    if mask is None:
        return None
    mask = jnp.asarray(mask)
    if mask.dtype != jnp.bool_:
        raise TypeError(f"{name} must be boolean (True = attend); got {mask.dtype}.")
    if mask.ndim < 2 or mask.shape[-2:] != (n, m):
        raise ValueError(f"{name} must have shape (..., n={n}, m={m}); got {mask.shape}.")
    return mask


def _pair(a, b, an, bn, shape_doc):
    a, b = as_float(a, an), as_float(b, bn)
    try:
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"{shape_doc}; got {a.shape} and {b.shape}.") from None
    check_finite(a, an)
    check_finite(b, bn)
    return a, b


def masked_drive(
    q: Float[ArrayLike, "*batch n d_h"],
    k: Float[ArrayLike, "*batch m d_h"],
    r: Float[ArrayLike, "*batch m d"],
    *,
    mask: Bool[ArrayLike, "*#batch n m"] | None = None,
    kind: str = "softplus",
) -> Float[Array, "*batch n d"]:
    r"""The drive of fixed-query attention with its mask fused into the couplings.

    $$h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_j$$

    $\sigma$ = [`syncattn.lohe.coupling_weights`][] of coupling `kind`, $\mu$ = `mask`
    (True = the key enters; `None` = all). Equal to
    [`syncattn.lohe.drive`][]`(mask * coupling_weights(q, k), r)`, but the reverse pass
    recomputes $\mu \odot \sigma$ (key-major) instead of storing it.

    Args:
        q: queries, shape `(*batch, n, d_h)`.
        k: keys, shape `(*batch, m, d_h)`.
        r: anchors, shape `(*batch, m, d)`.
        mask: bool `(..., n, m)`, broadcast against the batch.
        kind: coupling kind, as [`syncattn.lohe.coupling_weights`][].

    Returns:
        $h$, shape `(*batch, n, d)`.

    Raises:
        ValueError: shape mismatch, NaN/inf, unknown `kind`. TypeError: non-bool mask.

    Example:
        >>> masked_drive(jnp.zeros((1, 2)), jnp.zeros((2, 2)), jnp.eye(2))  # log 2 [1, 1]
    """
    _att._check_kind(kind)
    q, k = _pair(q, k, "q", "k", "q must have shape (*batch, n, d_h) and k (*batch, m, d_h)")
    r = as_float(r, "r")
    if q.shape[-1] != k.shape[-1] or r.ndim < 2 or r.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"q (*batch, n, d_h), k (*batch, m, d_h) and r (*batch, m, d) must agree; "
            f"got {q.shape}, {k.shape} and {r.shape}."
        )
    check_finite(r, "r")
    mask = _check_mask(mask, q.shape[-2], k.shape[-2])
    return _drive(q, k, r, mask, kind)


def readout_sums(
    z: Float[ArrayLike, "*batch n d"],
    r: Float[ArrayLike, "*batch m d"],
    v: Float[ArrayLike, "*batch m f"],
    *,
    mask: Bool[ArrayLike, "*#batch n m"] | None = None,
    p: ScalarLike = 1,
) -> tuple[Float[Array, "*batch n f"], Float[Array, "*batch n 1"]]:
    r"""Numerator and denominator of the readout, with the mask fused into the kernel.

    $$\mathrm{num}_i = \sum_j u_{ij}\, v_j, \qquad \mathrm{den}_i = \sum_j u_{ij},
      \qquad u_{ij} = \mu_{ij} \max(0, 1 + z_i\cdot r_j)^p$$

    $u$ = [`syncattn.lohe.readout_kernel`][]; both come out of one product against
    $[v_j, 1]$ and the reverse pass recomputes $u$ instead of storing it.
    [`syncattn.lohe.normalize_readout`][]`(num, den, fallback)` then gives
    $\sum_j a_{ij} v_j$ with $a$ = [`syncattn.lohe.readout`][].

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(*batch, m, d)`.
        v: values, shape `(*batch, m, f)`.
        mask: bool `(..., n, m)`, broadcast against the batch.
        p: exponent $\ge 1$ (a static number).

    Returns:
        `(num, den)`: shapes `(*batch, n, f)` and `(*batch, n, 1)`.

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`. TypeError: non-bool mask.

    Example:
        >>> readout_sums(jnp.array([[1.0, 0]]), jnp.eye(2), jnp.eye(2))  # [[2, 1]], [[3]]
    """
    z, r = _pair(z, r, "z", "r", "z must have shape (*batch, n, d) and r (*batch, m, d)")
    v = as_float(v, "v")
    if z.shape[-1] != r.shape[-1] or v.ndim < 2 or v.shape[-2] != r.shape[-2]:
        raise ValueError(
            f"z (*batch, n, d), r (*batch, m, d) and v (*batch, m, f) must agree; "
            f"got {z.shape}, {r.shape} and {v.shape}."
        )
    check_finite(v, "v")
    check_scalar_range(p, "p", low=1.0)
    mask = _check_mask(mask, z.shape[-2], r.shape[-2])
    vv = jnp.concatenate([v, jnp.ones_like(v[..., :1])], -1)
    nd = _sums(z, r, vv, mask, p)
    return nd[..., :-1], nd[..., -1:]

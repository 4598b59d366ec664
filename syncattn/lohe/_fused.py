r"""Fused masked products of fixed-query attention: the drive and the readout sums.

Both are $(n, m)$ maps contracted at once against a thin matrix, with the mask fused
into the nonlinearity. Their reverse-mode rules recompute the $(n, m)$ map from the
inputs instead of storing it, so a training step needs about the memory of softmax
attention. Being custom VJPs they support `grad`/`vjp`, not `jax.jvp`.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import as_float, check_finite, check_scalar_range
from .._kernels import kernel_enabled, pair_map
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


# Query-block width of the causal CPU path (as nn's blocked softmax attention): at
# least this, and at most this many blocks (long sequences take wider blocks).
CPU_BLOCK = 64
CPU_MAX_BLOCKS = 8


def _causal_block(n: int) -> int | None:
    """The query-block width of a causal (n, m) product, or None: one dense product.

    Blocks on the CPU backend when n is longer than one block (on GPU the dense
    product is one kernel; a static loop of slices would only add launches)."""
    if n <= CPU_BLOCK or jax.default_backend() != "cpu":
        return None
    return max(CPU_BLOCK, -(-n // CPU_MAX_BLOCKS))


def _causal(mask, ndim: int, n: int, m: int, s0: int = 0, e: int | None = None):
    r"""`mask` (or all) restricted to $j \le i$, on the query rows [s0, e) and the keys
    $j < \min(e, m)$ (the keys any of those rows can see); rank `ndim` at least."""
    e = n if e is None else e
    tri = np.arange(s0, e)[:, None] >= np.arange(min(e, m))[None, :]
    if mask is not None:
        ndim = max(ndim, mask.ndim)
    tri = jnp.asarray(tri.reshape((1,) * (ndim - 2) + tri.shape))
    if mask is None:
        return tri
    mask = mask[..., s0:e, : min(e, m)]
    return mask.reshape((1,) * (ndim - mask.ndim) + mask.shape) & tri


def _row_blocks(n: int, m: int, block: int):
    """(s0, e, e_k): query rows [s0, e) see the keys [0, e_k) under a causal mask."""
    return [
        (s0, min(s0 + block, n), min(s0 + block, n, m)) for s0 in range(0, n, block)
    ]


def _drive_value(q, k, r, mask, kind, block):
    r"""$h = (\mu \odot \sigma(q, k))\, r$; with `block`, causal by query blocks: the key
    blocks above the diagonal (all zero under $j \le i$) are never formed."""
    if block is None:
        return jnp.einsum(
            "...nm,...md->...nd", _masked(_att._coupling(q, k, kind), mask), r
        )
    n, m = q.shape[-2], k.shape[-2]
    outs = []
    for s0, e, ek in _row_blocks(n, m, block):
        w = _att._coupling(q[..., s0:e, :], k[..., :ek, :], kind)
        w = jnp.where(_causal(mask, w.ndim, n, m, s0, e), w, 0.0)
        outs.append(jnp.einsum("...nm,...md->...nd", w, r[..., :ek, :]))
    return outs[0] if len(outs) == 1 else jnp.concatenate(outs, -2)


@partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _drive(q, k, r, mask, kind: str, block: int | None = None):
    return _drive_value(q, k, r, mask, kind, block)


def _drive_fwd(q, k, r, mask, kind, block=None):
    return _drive(q, k, r, mask, kind, block), (q, k, r, mask)


def _drive_bwd(kind, block, res, g):
    q, k, r, mask = res
    q, k = _after(g, q, k)
    if block is not None:  # the blocked maps, recomputed here by autodiff of the value
        _, vjp = jax.vjp(
            lambda q, k, r: _drive_value(q, k, r, mask, kind, block), q, k, r
        )
        return (*vjp(g), None)

    def wt(q, k):  # (..., m, n): w_ij at [j, i] (every coupling is symmetric in q, k)
        return _masked(_att._coupling(k, q, kind), _t(mask))

    w_t, vjp = jax.vjp(wt, q, k)
    g_r = jnp.einsum("...mn,...nd->...md", w_t, g)
    g_q, g_k = vjp(jnp.einsum("...md,...nd->...mn", r, g))
    return g_q, g_k, g_r, None


_drive.defvjp(_drive_fwd, _drive_bwd)


def _sums_value(z, r, vv, mask, p, block):
    r"""$u\,[v, 1]$ with $u = \mu \max(0, 1 + z r^\top)^p$; with `block`, causal by query
    blocks (no key block above the diagonal), as `_drive_value`."""
    if block is None:
        u = _att._kernel(1.0 + jnp.einsum("...nd,...md->...nm", z, r), mask, p)
        return jnp.einsum("...nm,...mf->...nf", u, vv)
    n, m = z.shape[-2], r.shape[-2]
    outs = []
    for s0, e, ek in _row_blocks(n, m, block):
        base = 1.0 + jnp.einsum("...nd,...md->...nm", z[..., s0:e, :], r[..., :ek, :])
        u = _att._kernel(base, _causal(mask, base.ndim, n, m, s0, e), p)
        outs.append(jnp.einsum("...nm,...mf->...nf", u, vv[..., :ek, :]))
    return outs[0] if len(outs) == 1 else jnp.concatenate(outs, -2)


@partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _sums(z, r, vv, mask, p, block: int | None = None):
    return _sums_value(z, r, vv, mask, p, block)


def _sums_fwd(z, r, vv, mask, p, block=None):
    return _sums(z, r, vv, mask, p, block), (z, r, vv, mask)


def _sums_bwd(p, block, res, g):
    z, r, vv, mask = res
    z, r = _after(g, z, r)
    if (
        block is not None
    ):  # the blocked kernel maps, recomputed by autodiff of the value
        _, vjp = jax.vjp(
            lambda z, r, vv: _sums_value(z, r, vv, mask, p, block), z, r, vv
        )
        return (*vjp(g), None)

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
        raise ValueError(
            f"{name} must have shape (..., n={n}, m={m}); got {mask.shape}."
        )
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
    causal: bool = False,
) -> Float[Array, "*batch n d"]:
    r"""The drive of fixed-query attention with its mask fused into the couplings.

    $$h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_j$$

    $\sigma$ = [`syncattn.lohe.coupling_weights`][] of coupling `kind`, $\mu$ = `mask`
    (True = the key enters; `None` = all). Equal to
    [`syncattn.lohe.drive`][]`(mask * coupling_weights(q, k), r)`, but the reverse pass
    recomputes $\mu \odot \sigma$ (key-major) instead of storing it.

    `causal=True` restricts $\mu$ further to $j \le i$. On the CPU backend, for
    $n > 64$, the sums then run by query blocks $[s, e)$ over the keys $j < e$ only
    (at most 8 blocks): the key blocks above the diagonal, zero under the mask, are
    never formed (10 of 16 blocks are at $n = m = 256$), forward and backward.

    On the CPU backend in float32, with `mask=None` and the softplus coupling, the sums
    run in the fused pair-map kernel (`syncattn._kernels.pair_map`, C++ through
    `jax.ffi`): no $(n, m)$ array forward or backward, threaded over the batch; tested
    equal to this composition (tests/_kernels/test_pair_kernel.py).

    Args:
        q: queries, shape `(*batch, n, d_h)`.
        k: keys, shape `(*batch, m, d_h)`.
        r: anchors, shape `(*batch, m, d)`.
        mask: bool `(..., n, m)`, broadcast against the batch.
        kind: coupling kind, as [`syncattn.lohe.coupling_weights`][].
        causal: also mask the keys $j > i$.

    Returns:
        $h$, shape `(*batch, n, d)`.

    Raises:
        ValueError: shape mismatch, NaN/inf, unknown `kind`. TypeError: non-bool mask.

    Example:
        >>> masked_drive(jnp.zeros((1, 2)), jnp.zeros((2, 2)), jnp.eye(2))  # log 2 [1, 1]
    """
    _att._check_kind(kind)
    q, k = _pair(
        q, k, "q", "k", "q must have shape (*batch, n, d_h) and k (*batch, m, d_h)"
    )
    r = as_float(r, "r")
    if q.shape[-1] != k.shape[-1] or r.ndim < 2 or r.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"q (*batch, n, d_h), k (*batch, m, d_h) and r (*batch, m, d) must agree; "
            f"got {q.shape}, {k.shape} and {r.shape}."
        )
    check_finite(r, "r")
    mask = _check_mask(mask, q.shape[-2], k.shape[-2])
    if mask is None and kind == "softplus" and _pair_fusable(q, k, r):
        scale = 1.0 / math.sqrt(q.shape[-1])
        return pair_map(q, k, r, kind="softplus", scale=scale, causal=causal)
    mask, block = _causal_plan(mask, q, k, causal)
    return _drive(q, k, r, mask, kind, block)


def _pair_fusable(*xs) -> bool:
    """The fused CPU pair-map kernel applies: float32 inputs and the kernel built."""
    return all(x.dtype == jnp.float32 for x in xs) and kernel_enabled(jnp.float32)


def _causal_plan(mask, q, k, causal):
    """(mask, block): the causal restriction folded into the mask, or query blocks."""
    if not causal:
        return mask, None
    n, m = q.shape[-2], k.shape[-2]
    block = _causal_block(n)
    ndim = 2 + len(np.broadcast_shapes(q.shape[:-2], k.shape[:-2]))
    return (_causal(mask, ndim, n, m) if block is None else mask), block


def readout_sums(
    z: Float[ArrayLike, "*batch n d"],
    r: Float[ArrayLike, "*batch m d"],
    v: Float[ArrayLike, "*batch m f"],
    *,
    mask: Bool[ArrayLike, "*#batch n m"] | None = None,
    p: ScalarLike = 1,
    causal: bool = False,
) -> tuple[Float[Array, "*batch n f"], Float[Array, "*batch n 1"]]:
    r"""Numerator and denominator of the readout, with the mask fused into the kernel.

    $$\mathrm{num}_i = \sum_j u_{ij}\, v_j, \qquad \mathrm{den}_i = \sum_j u_{ij},
      \qquad u_{ij} = \mu_{ij} \max(0, 1 + z_i\cdot r_j)^p$$

    $u$ = [`syncattn.lohe.readout_kernel`][]; both come out of one product against
    $[v_j, 1]$ and the reverse pass recomputes $u$ instead of storing it.
    [`syncattn.lohe.normalize_readout`][]`(num, den, fallback)` then gives
    $\sum_j a_{ij} v_j$ with $a$ = [`syncattn.lohe.readout`][].

    `causal=True` restricts $\mu$ further to $j \le i$, with the blocked CPU path of
    [`syncattn.lohe.masked_drive`][] (no key block above the diagonal is formed), and
    with `mask=None` in float32 on the CPU the fused pair-map kernel as there.

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(*batch, m, d)`.
        v: values, shape `(*batch, m, f)`.
        mask: bool `(..., n, m)`, broadcast against the batch.
        p: exponent $\ge 1$ (a static number).
        causal: also mask the keys $j > i$.

    Returns:
        `(num, den)`: shapes `(*batch, n, f)` and `(*batch, n, 1)`.

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`. TypeError: non-bool mask.

    Example:
        >>> readout_sums(jnp.array([[1.0, 0]]), jnp.eye(2), jnp.eye(2))  # [[2, 1]], [[3]]
    """
    z, r = _pair(
        z, r, "z", "r", "z must have shape (*batch, n, d) and r (*batch, m, d)"
    )
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
    if mask is None and int(p) == p and _pair_fusable(z, r, vv):
        nd = pair_map(z, r, vv, kind="power", p=int(p), causal=causal)
        return nd[..., :-1], nd[..., -1:]
    mask, block = _causal_plan(mask, z, r, causal)
    nd = _sums(z, r, vv, mask, p, block)
    return nd[..., :-1], nd[..., -1:]

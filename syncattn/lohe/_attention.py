r"""Fixed-query attention pieces: coupling weights, drive, readout."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_finite,
    check_scalar_range,
)
from .._types import (
    Array,
    ArrayLike,
    Bool,
    Float,
    ScalarLike,
)


def fixed_query_weights(
    e: Float[ArrayLike, "*batch n d_model"],
    F: Float[ArrayLike, "d_h d_model"],
    G: Float[ArrayLike, "d_h d_model"],
) -> Float[Array, "*batch n n"]:
    r"""Coupling weights of fixed-query attention (the seed paper's $w_{ij}$).

    $$w_{ij} = \operatorname{softplus}\Bigl(\frac{(F e_i)^\top (G e_j)}{\sqrt{d_h}}
      \Bigr), \qquad \operatorname{softplus}(s) = \log(1 + e^s) > 0$$

    $e_i$ = `e[..., i, :]` (token embeddings), $F$ = `F`, $G$ = `G` (query and key
    maps $\mathbb{R}^{d_\mathrm{model}} \to \mathbb{R}^{d_h}$). Positive weights make
    $h_i = \sum_j w_{ij} r_j$ a conic combination of the anchors.

    Args:
        e: embeddings, shape `(*batch, n, d_model)`.
        F: query map, shape `(d_h, d_model)`.
        G: key map, shape `(d_h, d_model)`.

    Returns:
        $w$, shape `(*batch, n, n)`; row $i$ holds token $i$'s weights.

    Raises:
        ValueError: shape mismatch or NaN/inf.

    Example:
        >>> fixed_query_weights(jnp.eye(2), jnp.eye(2), jnp.eye(2))  # softplus(I/√2)
    """
    e, F, G = as_float(e, "e"), as_float(F, "F"), as_float(G, "G")
    if e.ndim < 2:
        raise ValueError(f"e must have shape (*batch, n, d_model); got {e.shape}.")
    for M, name in ((F, "F"), (G, "G")):
        if M.ndim != 2 or M.shape[1] != e.shape[-1] or M.shape != F.shape or not M.size:
            raise ValueError(
                f"{name} must have shape (d_h, d_model={e.shape[-1]}), F and G alike; "
                f"got {M.shape}."
            )
        check_finite(M, name)
    check_finite(e, "e")
    q, k = e @ F.T, e @ G.T
    return jax.nn.softplus(q @ jnp.swapaxes(k, -1, -2) / math.sqrt(F.shape[0]))


def drive(
    w: Float[ArrayLike, "*batch n m"], r: Float[ArrayLike, "... m d"]
) -> Float[Array, "*batch n d"]:
    r"""Drive of fixed-query attention: a weighted sum of anchors.

    $$h_i = \sum_{j=1}^m w_{ij}\, r_j$$

    $w$ = `w` (e.g. [`syncattn.lohe.fixed_query_weights`][]), $r_j$ = `r[..., j, :]` (anchors).

    Args:
        w: weights, shape `(*batch, n, m)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.

    Returns:
        $h$, shape `(*batch, n, d)`.

    Raises:
        ValueError: `m` mismatch, non-broadcastable batch axes, NaN/inf.

    Example:
        >>> drive(jnp.ones((1, 2)), jnp.eye(2))  # [[1, 1]]
    """
    w, r = as_float(w, "w"), as_float(r, "r")
    try:
        if w.ndim < 2 or r.ndim < 2 or w.shape[-1] != r.shape[-2]:
            raise ValueError
        np.broadcast_shapes(w.shape[:-2], r.shape[:-2])
    except ValueError:
        raise ValueError(
            f"w must have shape (*batch, n, m) and r (m, d) or (*batch, m, d); "
            f"got {w.shape} and {r.shape}."
        ) from None
    check_finite(w, "w")
    check_finite(r, "r")
    return w @ r


@jax.jit
def _readout(z, r, mask, p):
    base = jnp.maximum(0.0, 1.0 + z @ jnp.swapaxes(r, -1, -2))
    pos = base > 0
    u = jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)  # double where: 0^p safe
    u = jnp.where(mask, u, 0.0)
    den = jnp.sum(u, -1, keepdims=True)
    cnt = jnp.sum(mask, -1, keepdims=True).astype(u.dtype)
    uniform = jnp.where(mask, 1.0, 0.0).astype(u.dtype) / jnp.maximum(cnt, 1.0)
    return jnp.where(den > 0, u / jnp.where(den > 0, den, 1.0), uniform).astype(u.dtype)


def readout(
    z: Float[ArrayLike, "*batch n d"],
    r: Float[ArrayLike, "... m d"],
    *,
    mask: Bool[ArrayLike, "*#mbatch #n #m"] | None = None,
    p: ScalarLike = 1,
) -> Float[Array, "*batch n m"]:
    r"""Readout weights of fixed-query attention.

    $$a_{ij} = \frac{\mu_{ij}\max(0, 1 + z_i\cdot r_j)^p}
      {\sum_k \mu_{ik}\max(0, 1 + z_i\cdot r_k)^p}$$

    $z_i$ = `z[..., i, :]` (settled queries), $r_j$ = `r[..., j, :]`, $\mu$ = `mask`
    (True = attend; `None` = all), $p$ = `p`. If all unmasked weights of row $i$ vanish
    (only when $z_i = -r_j$ for every unmasked $j$) the row falls back to uniform
    weights over its unmasked entries. A row with nothing unmasked attends to
    nothing: its weights are all 0 (the same eagerly and under `jit`; a padded query
    row then reads out 0). Values and gradients are finite (double-`where`).

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.
        mask: bool, broadcastable to `(*batch, n, m)`.
        p: exponent $\ge 1$.

    Returns:
        $a$, shape `(*batch, n, m)`, rows non-negative and summing to 1 (0 for a
        fully masked row).

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`.
        TypeError: non-boolean `mask`.

    Example:
        >>> readout(jnp.array([[1.0, 0.0]]), jnp.eye(2))  # [[2/3, 1/3]]
    """
    z, r = as_float(z, "z"), as_float(r, "r")
    if z.ndim < 2 or r.ndim < 2 or z.shape[-1] != r.shape[-1]:
        raise ValueError(
            f"z must have shape (*batch, n, d) and r (m, d) or (*batch, m, d); "
            f"got {z.shape} and {r.shape}."
        )
    check_finite(z, "z")
    check_finite(r, "r")
    p = check_scalar_range(p, "p", low=1.0)
    mask = jnp.ones((), bool) if mask is None else jnp.asarray(mask)
    if mask.dtype != jnp.bool_:
        raise TypeError(f"mask must be boolean (True = attend); got {mask.dtype}.")
    try:
        shape = np.broadcast_shapes(z.shape[:-1] + (1,), r.shape[:-2] + (1, 1))
        shape = shape[:-1] + (r.shape[-2],)
        mask = jnp.broadcast_to(mask, np.broadcast_shapes(mask.shape, shape))
    except ValueError:
        raise ValueError(
            f"z {z.shape}, r {r.shape} and mask {mask.shape} must broadcast to "
            "(*batch, n, m)."
        ) from None
    return _readout(z, r, mask, p)

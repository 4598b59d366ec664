r"""The attention identity: Kuramoto coupling of queries to keys = tangent projection of a phasor."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._checks import (
    as_float,
    check_broadcast,
    check_finite,
)
from .._numerics import sincos
from .._types import (
    Array,
    ArrayLike,
    Complex,
    Float,
)


def coupling_term(
    theta_t: Float[ArrayLike, "*batch T k"],
    theta_u: Float[ArrayLike, "*batch U k"],
    A: Float[ArrayLike, "*batch T U"],
) -> Float[Array, "*batch T k"]:
    r"""Kuramoto coupling of queries to keys, per coordinate (the right side of the attention identity).

    $$a_{tj} = \sum_u A_{tu}\,\sin(\theta_{uj} - \theta_{tj})$$

    computed in $O(TUk)$ as $\cos\theta_{tj}\,(A\sin\theta)_{tj} - \sin\theta_{tj}\,(A\cos\theta)_{tj}$.
    With $G = A e^{i\theta_u}$ this equals [`syncattn.kuramoto.tangent_update`][] `(theta_t, G)`
    (proved in `proofs/proof_kuramoto_identity.py`).

    Args:
        theta_t: query phases $\theta_t$, shape `(*batch, T, k)`.
        theta_u: key/value phases $\theta_u$, shape `(*batch, U, k)`.
        A: attention weights $A_{tu}$, shape `(*batch, T, U)` (any real weights).

    Returns:
        `(*batch, T, k)` increments, dtype of `theta_t`.

    Example:
        >>> coupling_term(jnp.zeros((1, 1)), jnp.full((1, 1), jnp.pi / 2), jnp.ones((1, 1)))
        Array([[1.]], dtype=float32)
    """
    theta_t, theta_u, A = (
        as_float(theta_t, "theta_t"),
        as_float(theta_u, "theta_u"),
        as_float(A, "A"),
    )
    if theta_t.ndim < 2 or theta_u.ndim < 2:
        raise ValueError(
            f"theta_t and theta_u must have shape (*batch, T, k) and (*batch, U, k); got {theta_t.shape}, {theta_u.shape}."
        )
    T, k = theta_t.shape[-2:]
    U = theta_u.shape[-2]
    if theta_u.shape[-1] != k:
        raise ValueError(
            f"theta_u must have k={k} coordinates like theta_t; got shape {theta_u.shape}."
        )
    if A.ndim < 2 or A.shape[-2:] != (T, U):
        raise ValueError(
            f"A must have shape (*batch, T, U)=(..., {T}, {U}); got {A.shape}."
        )
    if T == 0 or U == 0:
        raise ValueError(
            f"theta_t and theta_u must be non-empty sequences; got T={T}, U={U}."
        )
    for x, name in ((theta_t, "theta_t"), (theta_u, "theta_u"), (A, "A")):
        check_finite(x, name)
    return _coupling_term(theta_t, theta_u, A.astype(theta_u.dtype))


@jax.jit
def _coupling_term(theta_t, theta_u, A):
    su, cu = sincos(theta_u)
    st, ct = sincos(theta_t)
    Ac = jnp.einsum("...tu,...uk->...tk", A, cu)
    As = jnp.einsum("...tu,...uk->...tk", A, su)
    return (ct * As - st * Ac).astype(theta_t.dtype)


def tangent_update(
    theta_t: Float[ArrayLike, "*batch"],
    G: Complex[ArrayLike, "*#batch"]
    | tuple[Float[ArrayLike, "*#batch"], Float[ArrayLike, "*#batch"]],
) -> Float[Array, "*batch"]:
    r"""Tangent projection of an aggregated phasor (the left side of the attention identity).

    $$a = -\sin\theta_t\,\operatorname{Re} G + \cos\theta_t\,\operatorname{Im} G
        = \operatorname{Im}\!\left(e^{-i\theta_t} G\right)$$

    For $G_{tj} = \sum_u A_{tu} e^{i\theta_{uj}}$ it equals [`syncattn.kuramoto.coupling_term`][].

    Args:
        theta_t: phases $\theta_t$, any shape.
        G: the aggregated phasor: a complex array, or a pair `(Re G, Im G)` of real
            arrays (for dtypes without a complex counterpart, e.g. bfloat16);
            broadcastable to `theta_t`.

    Returns:
        Array of `theta_t`'s shape and dtype.

    Example:
        >>> tangent_update(jnp.array(0.0), jnp.array(1j))
        Array(1., dtype=float32)
    """
    theta_t = as_float(theta_t, "theta_t")
    if isinstance(G, tuple):
        if len(G) != 2:
            raise ValueError(
                f"G given as a tuple must be (Re G, Im G); got {len(G)} entries."
            )
        re, im = (as_float(g, "G") for g in G)
    else:
        G = jnp.asarray(G)
        re, im = jnp.real(G), jnp.imag(G)
    check_broadcast(
        f"G must broadcast to theta_t's shape {theta_t.shape}; got {re.shape}.",
        re.shape,
        im.shape,
        theta_t.shape,
    )
    check_finite(theta_t, "theta_t")
    check_finite(re, "G")
    check_finite(im, "G")
    return _tangent_update(theta_t, re.astype(theta_t.dtype), im.astype(theta_t.dtype))


@jax.jit
def _tangent_update(theta_t, re, im):
    st, ct = sincos(theta_t)
    return (-st * re + ct * im).astype(theta_t.dtype)

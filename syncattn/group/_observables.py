r"""Numbers of a population of group elements: the order parameter, the normalised inner
product (the group's "cosine") and the ambient real coordinates `lift`."""

from __future__ import annotations

import jax.numpy as jnp

from .._checks import check_broadcast
from .._types import Array, ArrayLike, Float, Inexact
from ._matrices import as_matrix, check_member


def _order_parameter(U, axis):
    n = U.shape[-1]
    m = jnp.mean(U, axis=axis)
    return jnp.sqrt(jnp.sum(jnp.abs(m) ** 2, axis=(-2, -1)) / n)


def order_parameter(
    U: Inexact[ArrayLike, "*batch N n n"], axis: int = -3
) -> Float[Array, "*rest"]:
    r"""Order parameter of a population of group elements.

    $$R = \frac{1}{\sqrt n}\Bigl\|\frac1N\sum_{j=1}^N U_j\Bigr\|_F \in [0, 1]$$

    $U_j$ = `U` indexed along `axis` (default: the axis before the matrix axes).
    $R = 1$ exactly when all $U_j$ are equal ($\|U_j\|_F = \sqrt n$, equality in the
    triangle inequality), and $R^2 = \frac{1}{N^2}\sum_{j,k}\frac1n\operatorname{Re}
    \operatorname{tr}(U_j^H U_k)$. On $U(1)$, $U_j = e^{i\theta_j}$, it is Kuramoto's
    $R$.

    Raises:
        ValueError: `U` not in the group, `axis` not a batch axis, empty population.

    Example:
        >>> float(order_parameter(jnp.stack([jnp.eye(2), -jnp.eye(2)])))
        0.0
    """
    U = check_member(U, "U")
    ax = axis - U.ndim if axis >= 0 else axis
    if U.ndim < 3 or not -U.ndim <= ax <= -3:
        raise ValueError(
            f"U must have shape (*batch, N, n, n) and axis must index a batch axis; got "
            f"shape {U.shape}, axis={axis}."
        )
    if U.shape[ax] == 0:
        raise ValueError(
            f"U must hold N >= 1 elements along axis {axis}; got {U.shape}."
        )
    return _order_parameter(U, ax)


def _inner(U, V):
    n = U.shape[-1]
    return jnp.real(jnp.sum(jnp.conj(U) * V, axis=(-2, -1))) / n


def inner(
    U: Inexact[ArrayLike, "*#batch n n"], V: Inexact[ArrayLike, "*#batch n n"]
) -> Float[Array, "*rbatch"]:
    r"""Normalised real inner product, the group's "cosine".

    $$\langle U, V\rangle_n = \frac1n \operatorname{Re}\operatorname{tr}(U^H V)
      = \frac1n \langle \operatorname{lift}(U), \operatorname{lift}(V)\rangle$$

    $U$ = `U`, $V$ = `V`. For group elements it lies in $[-1, 1]$, equals 1 iff
    $U = V$, and on $U(1)$ it is $\cos(\theta_V - \theta_U)$. Defined for any
    matrices (no membership check).

    Example:
        >>> float(inner(jnp.eye(2), -jnp.eye(2)))
        -1.0
    """
    U, V = as_matrix(U, "U"), as_matrix(V, "V")
    if jnp.iscomplexobj(U) != jnp.iscomplexobj(V) or U.shape[-1] != V.shape[-1]:
        raise ValueError(
            f"U and V must be matrices of one group (same n, both real or both complex); "
            f"got {U.shape} {U.dtype} and {V.shape} {V.dtype}."
        )
    check_broadcast(
        f"U {U.shape} and V {V.shape} must have broadcastable batch shapes.",
        U.shape[:-2],
        V.shape[:-2],
    )
    return _inner(*jnp.broadcast_arrays(U, V))


def _lift(U):
    flat = U.reshape(*U.shape[:-2], -1)
    if jnp.iscomplexobj(U):
        return jnp.concatenate([jnp.real(flat), jnp.imag(flat)], axis=-1)
    return flat


def lift(U: Inexact[ArrayLike, "*batch n n"]) -> Float[Array, "*batch m"]:
    r"""Ambient real coordinates of a matrix: $\mathbb{R}^{n^2}$ ($SO(n)$) or $\mathbb{R}^{2n^2}$ ($U(n)$).

    $$\operatorname{lift}(U) = \operatorname{vec}(U)\ \text{(real)}, \qquad
      \operatorname{lift}(U) = (\operatorname{vec}\operatorname{Re}U,
      \operatorname{vec}\operatorname{Im}U)\ \text{(complex)}$$

    row-major `vec`. An isometry for $\operatorname{Re}\operatorname{tr}(X^H Y)$:
    $\langle\operatorname{lift}U, \operatorname{lift}V\rangle = \operatorname{Re}
    \operatorname{tr}(U^H V)$, so group elements lift to the sphere of radius
    $\sqrt n$. Defined for any matrices (no membership check).

    Example:
        >>> lift(jnp.eye(2)).tolist()
        [1.0, 0.0, 0.0, 1.0]
    """
    U = as_matrix(U, "U")
    return _lift(U)

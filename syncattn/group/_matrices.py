r"""Group elements as matrices: the group's name, the dtype and shape checks, membership
(the defect $\|U^H U - I\|_F$, $\det U$), the Lie algebra's projection `skew`."""

from __future__ import annotations

import re

import jax.numpy as jnp
import numpy as np

from .._checks import check_broadcast, check_finite, is_concrete
from .._numerics import default_floating_dtype, eps_for
from .._types import Array, ArrayLike, Float, Inexact


_LOW_PRECISION = (jnp.float16, jnp.bfloat16)


def parse_group(name: str) -> tuple[str, int]:
    r"""Read a group name: `"so3"` $\to$ `("so", 3)`, `"u2"` $\to$ `("u", 2)`.

    $SO(n)$ needs $n \ge 2$, $U(n)$ needs $n \ge 1$ (`"u1"` is the circle, the
    Kuramoto case).

    Raises:
        ValueError: an unknown name or a too small $n$.

    Example:
        >>> parse_group("so3")
        ('so', 3)
    """
    m = re.fullmatch(r"(so|u)(\d+)", str(name).strip().lower())
    if m is None:
        raise ValueError(
            f"group must be 'so<n>' (n >= 2) or 'u<n>' (n >= 1), e.g. 'so3', 'u2'; "
            f"got {name!r}."
        )
    kind, n = m.group(1), int(m.group(2))
    if n < (2 if kind == "so" else 1):
        raise ValueError(
            f"group {name!r}: SO(n) needs n >= 2 and U(n) needs n >= 1; got n={n}."
        )
    return kind, n


def as_matrix(U, name: str, *, square: bool = True):
    r"""`U` as an inexact array of shape `(*batch, n, n)`; shape and dtype checked.

    Real floating $\to$ $SO(n)$ ($n \ge 2$); complex64/complex128 $\to$ $U(n)$
    ($n \ge 1$); integers become the default float; other dtypes raise `TypeError`.
    NaN/inf in concrete input raise `ValueError`.
    """
    try:
        arr = jnp.asarray(U)
    except TypeError as e:
        raise TypeError(
            f"{name} must be a numeric array; got {type(U).__name__}."
        ) from e
    if jnp.issubdtype(arr.dtype, jnp.complexfloating):
        if arr.dtype not in (jnp.complex64, jnp.complex128):  # pragma: no cover
            raise TypeError(
                f"{name}: U(n) elements must be complex64 or complex128; got {arr.dtype}."
            )
    elif jnp.issubdtype(arr.dtype, jnp.floating):
        pass
    elif jnp.issubdtype(arr.dtype, jnp.integer) or arr.dtype == jnp.bool_:
        arr = arr.astype(default_floating_dtype())
    else:
        raise TypeError(f"{name} must be a real or complex array; got {arr.dtype}.")
    if square and (arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]):
        raise ValueError(
            f"{name} must have shape (*batch, n, n) (square matrices in the last two "
            f"axes); got {arr.shape}."
        )
    if arr.ndim >= 2:
        n = arr.shape[-1]
        real = not jnp.iscomplexobj(arr)
        if real and n < 2:
            raise ValueError(
                f"{name} is real, so an SO(n) element, which needs n >= 2; got n={n}. "
                "(U(1) elements are complex 1x1 matrices.)"
            )
        if n < 1:
            raise ValueError(f"{name} must have n >= 1; got shape {arr.shape}.")
    check_finite(arr, name)
    return arr


def _h(M):
    """Conjugate transpose of the last two axes."""
    return (
        jnp.conj(jnp.swapaxes(M, -1, -2))
        if jnp.iscomplexobj(M)
        else jnp.swapaxes(M, -1, -2)
    )


def _skew(M):
    return 0.5 * (M - _h(M))


def skew(M: Inexact[ArrayLike, "*batch n n"]) -> Inexact[Array, "*batch n n"]:
    r"""Skew-Hermitian part: the orthogonal projection onto the Lie algebra.

    $$\operatorname{skew}(M) = \tfrac12 (M - M^H)$$

    $M$ = `M`, real (projection onto $\mathfrak{so}(n)$) or complex (onto
    $\mathfrak{u}(n)$). Idempotent; $\operatorname{skew}(M)^H = -\operatorname{skew}(M)$.

    Raises:
        ValueError: `M` not square in its last two axes, or NaN/inf.
        TypeError: a non-numeric dtype.

    Example:
        >>> skew(jnp.array([[0.0, 2.0], [0.0, 0.0]])).tolist()
        [[0.0, 1.0], [-1.0, 0.0]]
    """
    M = as_matrix(M, "M")
    return _skew(M)


def _defect(U):
    n = U.shape[-1]
    E = _h(U) @ U - jnp.eye(n, dtype=U.dtype)[(None,) * (U.ndim - 2)]
    return jnp.sqrt(jnp.sum(jnp.abs(E) ** 2, axis=(-2, -1)))


def defect(U: Inexact[ArrayLike, "*batch n n"]) -> Float[Array, "*batch"]:
    r"""Distance from the group: $\|U^H U - I\|_F$ (0 exactly on $O(n)$ / $U(n)$).

    $$\operatorname{defect}(U) = \Bigl(\sum_{a,b} |(U^H U - I)_{ab}|^2\Bigr)^{1/2}$$

    Jit-able; used to measure an integrator's drift off the group.

    Example:
        >>> float(defect(2.0 * jnp.eye(2)))  # |4 I - I|_F = 3 sqrt 2
        4.242640687119285
    """
    U = as_matrix(U, "U")
    return _defect(U)


def check_member(U, name: str = "U", *, tol: float | None = None):
    r"""`U` checked as a group element (concrete input only); returns the array.

    $$\|U^H U - I\|_F \le \mathrm{tol}, \qquad \det U > 0 \ \text{(real: } SO(n))$$

    `tol` defaults to $n\sqrt{\varepsilon}$ of the dtype (1.5e-8 n for float64,
    3.5e-4 n for float32). Shapes and dtypes as [`as_matrix`][syncattn.group.as_matrix].

    Raises:
        ValueError: naming `name`, with the largest defect, if a concrete `U` is not
            unitary/orthogonal, or a real `U` has $\det U < 0$.
    """
    U = as_matrix(U, name)
    if not is_concrete(U) or U.size == 0:
        return U
    n = U.shape[-1]
    work = np.complex128 if np.iscomplexobj(U) else np.float64
    X = np.asarray(
        U.astype(jnp.complex128 if np.iscomplexobj(U) else jnp.float64), work
    )
    E = np.conj(np.swapaxes(X, -1, -2)) @ X - np.eye(n)
    dev = float(np.max(np.sqrt(np.sum(np.abs(E) ** 2, axis=(-2, -1)))))
    tol = (
        n * eps_for(U.dtype if U.dtype not in _LOW_PRECISION else jnp.float32)
        if (tol is None)
        else float(tol)
    )
    if U.dtype in _LOW_PRECISION:
        tol = max(tol, n * 2.0**-7)
    group = f"U({n})" if np.iscomplexobj(U) else f"SO({n})"
    if dev > tol:
        raise ValueError(
            f"{name} must be in {group} (U^H U = I); max ||U^H U - I||_F = {dev:.3g} "
            f"> tol {tol:.3g}."
        )
    if not np.iscomplexobj(U):
        det = np.linalg.det(X)
        if np.any(det < 0):
            raise ValueError(
                f"{name} must be in SO({n}) (det = +1); got a matrix with det = -1 "
                "(a reflection, in O(n) only)."
            )
    return U


def _check_algebra(xi, name: str, like=None):
    xi = as_matrix(xi, name)
    if like is not None:
        if jnp.iscomplexobj(like) and not jnp.iscomplexobj(xi):
            xi = xi.astype(like.dtype)
        elif jnp.iscomplexobj(xi) and not jnp.iscomplexobj(like):
            raise TypeError(
                f"{name} is complex but the group element is real (SO(n)): pass a real "
                "skew-symmetric matrix."
            )
        if xi.shape[-1] != like.shape[-1]:
            raise ValueError(
                f"{name} must be (*batch, n, n) with n={like.shape[-1]} like the group "
                f"element; got {xi.shape}."
            )
    if is_concrete(xi) and xi.size:
        X = np.asarray(
            xi.astype(jnp.complex128 if jnp.iscomplexobj(xi) else jnp.float64)
        )
        asym = float(np.max(np.abs(X + np.conj(np.swapaxes(X, -1, -2)))))
        scale = max(1.0, float(np.max(np.abs(X))))
        dt = xi.dtype if xi.dtype not in _LOW_PRECISION else jnp.float32
        if asym > eps_for(dt) * scale * (
            1.0 if xi.dtype not in _LOW_PRECISION else 1e3
        ):
            kind = (
                "skew-Hermitian (xi^H = -xi)"
                if jnp.iscomplexobj(xi)
                else ("skew-symmetric (xi^T = -xi)")
            )
            raise ValueError(
                f"{name} must be in the Lie algebra, {kind}; got max|xi + xi^H| = "
                f"{asym:.3g}. Perhaps apply group.skew first?"
            )
    return xi


def _pair(U, M, uname, mname):
    U = check_member(U, uname)
    M = as_matrix(M, mname)
    if jnp.iscomplexobj(M) and not jnp.iscomplexobj(U):
        raise TypeError(f"{mname} is complex but {uname} is real (SO(n)).")
    if M.shape[-1] != U.shape[-1]:
        raise ValueError(
            f"{mname} must be (*batch, n, n) with n={U.shape[-1]} like {uname}; got "
            f"{M.shape}."
        )
    check_broadcast(
        f"{uname} {U.shape} and {mname} {M.shape} must have broadcastable batch shapes.",
        U.shape[:-2],
        M.shape[:-2],
    )
    return jnp.broadcast_arrays(U, M.astype(U.dtype))

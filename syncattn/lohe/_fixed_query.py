r"""The fixed-query flow $\dot z = (I - z z^\top) h$: field, equilibrium, exact solution, Jacobian."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_finite,
    check_nonempty,
    check_scalar_range,
)
from .._numerics import eps_for, safe_norm
from .._types import (
    Array,
    ArrayLike,
    Bool,
    Float,
    ScalarLike,
)
from ..geometry import Sphere
from ..sphere import tangent_basis


def _vec_pair(z, h, zname="z", hname="h"):
    z, h = as_float(z, zname), as_float(h, hname)
    for a, name in ((z, zname), (h, hname)):
        check_nonempty(a, name)
        check_finite(a, name)
    try:
        if z.shape[-1] != h.shape[-1]:
            raise ValueError
        np.broadcast_shapes(z.shape, h.shape)
    except ValueError:
        raise ValueError(
            f"{zname} and {hname} must share the last axis d and broadcast; "
            f"got {z.shape} and {h.shape}."
        ) from None
    return z, h


def fixed_query_field(
    z: Float[ArrayLike, "*#batch d"], h: Float[ArrayLike, "*#batch d"]
) -> Float[Array, "*batch d"]:
    r"""Fixed-query vector field $\dot z = P_z h$.

    $$f(z) = (I - z z^\top) h = h - \langle z, h\rangle z$$

    $z$ = `z` (unit query), $h$ = `h` (drive, see [`syncattn.lohe.drive`][]).

    Args:
        z: unit vectors, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        $\dot z$, the broadcast shape.

    Raises:
        ValueError: mismatched `d`, non-broadcastable, empty or NaN/inf input.

    Example:
        >>> fixed_query_field(jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0]))  # [0, 1]
    """
    z, h = jnp.broadcast_arrays(*_vec_pair(z, h))
    return Sphere(z.shape[-1]).project(z, h)


@jax.jit
def _equilibrium(h, tol):
    norm = safe_norm(h)
    degenerate = norm <= tol
    e1 = jnp.zeros(h.shape[-1], h.dtype).at[0].set(1)
    # double where: the division only ever sees a vector of norm > tol (or e_1)
    h_safe = jnp.where(degenerate[..., None], e1, h)
    z = h_safe / safe_norm(h_safe, keepdims=True)
    return jnp.where(degenerate[..., None], e1, z), degenerate


def equilibrium(
    h: Float[ArrayLike, "*batch d"], tol: ScalarLike | None = None
) -> tuple[Float[Array, "*batch d"], Bool[Array, "*batch"]]:
    r"""Stable equilibrium $h/\|h\|$ of the fixed-query flow, and a degeneracy flag.

    $$z^\star = \begin{cases} h/\|h\| & \|h\| > \mathrm{tol} \\
      e_1 = (1, 0, \dots, 0) & \|h\| \le \mathrm{tol}\ \text{(degenerate)}\end{cases}$$

    $h$ = `h`, tol = `tol`: absolute, default $\sqrt{\varepsilon}$ of the dtype (1.5e-8
    in float64, 3.5e-4 in float32); pass your own when $h$ lives on another scale. For
    $\|h\| \le$ tol the field nearly vanishes and no direction is preferred; $e_1$ is a
    documented finite choice with zero gradient (double-`where`), never NaN.

    Args:
        h: drive, shape `(*batch, d)`.
        tol: degeneracy threshold $\ge 0$.

    Returns:
        `(z_star, degenerate)`: shape `(*batch, d)` and a bool array `(*batch,)`.

    Raises:
        ValueError: empty or NaN/inf `h`; negative or NaN `tol`.

    Example:
        >>> equilibrium(jnp.array([3.0, 4.0]))  # ([0.6, 0.8], False)
    """
    h = as_float(h, "h")
    check_nonempty(h, "h")
    check_finite(h, "h")
    tol = check_scalar_range(tol, "tol", low=0.0)
    return _equilibrium(h, eps_for(h.dtype) if tol is None else tol)


def _angles(phi0, norm_h, c, name, *, open_low=False, high=None):
    phi0, a, c = as_float(phi0, "phi0"), as_float(norm_h, "norm_h"), as_float(c, name)
    phi0 = check_scalar_range(phi0, "phi0", low=0.0, high=math.pi)
    a = check_scalar_range(a, "norm_h", low=0.0)
    c = check_scalar_range(c, name, low=0.0, low_inclusive=not open_low, high=high)
    dtype = jnp.result_type(phi0, a, c)
    return phi0.astype(dtype), a.astype(dtype), c.astype(dtype)


@jax.jit
def _exact_angle(phi0, a, t):
    phi = 2 * jnp.arctan2(jnp.sin(phi0 / 2) * jnp.exp(-a * t), jnp.cos(phi0 / 2))
    return jnp.where(phi0 >= jnp.pi, jnp.asarray(jnp.pi, phi.dtype), phi)


def exact_angle(
    phi0: ScalarLike, norm_h: ScalarLike, t: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Closed-form angle $\varphi(t) = \angle(z(t), h)$ under $\dot z = P_z h$.

    $$\tan\frac{\varphi(t)}2 = \tan\frac{\varphi_0}2\, e^{-\|h\| t},
      \qquad \text{solving}\quad \dot\varphi = -\|h\|\sin\varphi$$

    $\varphi_0$ = `phi0`, $\|h\|$ = `norm_h`, $t$ = `t`; broadcasts. Evaluated as
    $2\,\mathrm{atan2}(\sin\frac{\varphi_0}2 e^{-\|h\|t}, \cos\frac{\varphi_0}2)$. The
    antipode $\varphi_0 = \pi$ is an equilibrium and stays $\pi$; $\|h\| = 0$ gives
    $\varphi(t) = \varphi_0$.

    Args:
        phi0: initial angle(s) in $[0, \pi]$.
        norm_h: $\|h\| \ge 0$.
        t: time(s) $\ge 0$.

    Returns:
        $\varphi(t) \in [0, \pi]$, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments.

    Example:
        >>> exact_angle(jnp.pi / 2, 1.0, 0.8813735870195429)  # pi/4
    """
    return _exact_angle(*_angles(phi0, norm_h, t, "t"))


@jax.jit
def _time_to_converge(phi0, a, delta):
    done = phi0 <= delta
    never = ~done & ((phi0 >= jnp.pi) | (a <= 0))
    ok = ~done & ~never
    # double where: log and division only see safe values off the regular set
    p, dl = jnp.where(ok, phi0, jnp.pi / 2), jnp.where(ok, delta, jnp.pi / 4)
    T = (jnp.log(jnp.tan(p / 2)) - jnp.log(jnp.tan(dl / 2))) / jnp.where(ok, a, 1)
    return jnp.where(done, 0.0, jnp.where(never, jnp.inf, T)).astype(T.dtype)


def time_to_converge(
    phi0: ScalarLike, norm_h: ScalarLike, delta: ScalarLike
) -> Float[Array, "*batch"]:
    r"""First time the angle to $h$ falls to $\delta$ under the fixed-query flow.

    $$T = \frac{1}{\|h\|}\log\frac{\tan(\varphi_0/2)}{\tan(\delta/2)}$$

    $\varphi_0$ = `phi0`, $\|h\|$ = `norm_h`, $\delta$ = `delta`; broadcasts.
    Conventions: $T = 0$ if $\varphi_0 \le \delta$; $T = \infty$ if $\varphi_0 >
    \delta$ and $\varphi_0 = \pi$ (the antipode never moves) or $\|h\| = 0$.
    Gradients are finite (zero) in those cases.

    Args:
        phi0: initial angle(s) in $[0, \pi]$.
        norm_h: $\|h\| \ge 0$.
        delta: target angle(s) in $(0, \pi]$.

    Returns:
        $T \in [0, \infty]$, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments.

    Example:
        >>> time_to_converge(jnp.pi / 2, 1.0, jnp.pi / 4)  # 0.8813...
    """
    args = _angles(phi0, norm_h, delta, "delta", open_low=True, high=math.pi)
    return _time_to_converge(*args)


def lyapunov(
    z: Float[ArrayLike, "*#batch d"], h: Float[ArrayLike, "*#batch d"]
) -> Float[Array, "*batch"]:
    r"""Lyapunov function of the fixed-query flow.

    $$V(z) = -\langle z, h\rangle, \qquad \dot V = -\|P_z h\|^2 \le 0 \text{ on }
      S^{d-1}$$

    $z$ = `z`, $h$ = `h`; the flow is the Riemannian gradient flow of $V$.

    Args:
        z: points, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        $V$, shape `(*batch,)`.

    Raises:
        ValueError: mismatched or non-broadcastable shapes, empty or NaN/inf input.

    Example:
        >>> lyapunov(jnp.array([1.0, 0.0]), jnp.array([2.0, 5.0]))  # -2
    """
    z, h = _vec_pair(z, h)
    return -jnp.sum(z * h, axis=-1)


@jax.jit
def _jacobian_spectrum(z, h):
    z, h = jnp.broadcast_arrays(z, h)
    B = tangent_basis(z)
    zh = jnp.sum(z * h, axis=-1)[..., None, None]
    eye = jnp.eye(z.shape[-1], dtype=z.dtype)[(None,) * (z.ndim - 1)]
    J = -(z[..., :, None] * h[..., None, :] + zh * eye)
    M = jnp.swapaxes(B, -1, -2) @ J @ B
    return jnp.linalg.eigvalsh(0.5 * (M + jnp.swapaxes(M, -1, -2)))


def jacobian_spectrum(
    z: Float[ArrayLike, "*#batch d"], h: Float[ArrayLike, "*#batch d"]
) -> Float[Array, "*batch d-1"]:
    r"""Eigenvalues of the fixed-query Jacobian restricted to $T_z S^{d-1}$.

    $$J = \partial_z\bigl(h - \langle z,h\rangle z\bigr) = -\bigl(z h^\top +
      \langle z,h\rangle I\bigr),\qquad \operatorname{spec}(B^\top J B) =
      \{-\langle z, h\rangle\}^{d-1}$$

    $z$ = `z`, $h$ = `h`, $B$ = [`syncattn.lohe.tangent_basis`][]`(z)`. Since $B^\top z = 0$ the
    rank-one part drops out: $B^\top J B$ is symmetric with all $d - 1$ eigenvalues
    $-\langle z, h\rangle$, i.e. $-\|h\|$ at the stable equilibrium $h/\|h\|$ and
    $+\|h\|$ at the antipode. At an equilibrium this is the linearisation of the flow
    on the sphere; elsewhere the ambient Jacobian compressed to the tangent space.
    The matrix is formed and diagonalised (`eigvalsh`), following the definition.

    Args:
        z: unit vectors, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        real eigenvalues in ascending order, shape `(*batch, d-1)`.

    Raises:
        ValueError: $d < 2$, mismatched shapes, NaN/inf.

    Example:
        >>> jacobian_spectrum(jnp.array([1.0, 0, 0]), jnp.array([2.0, 0, 0]))  # [-2, -2]
    """
    z, h = _vec_pair(z, h)
    if z.shape[-1] < 2:
        raise ValueError(f"z must have d >= 2; got shape {z.shape}.")
    return _jacobian_spectrum(z, h)

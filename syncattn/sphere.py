r"""Geometry of the unit sphere $S^{d-1} = \{x \in \mathbb{R}^d : \|x\| = 1\}$.

Conventions:

* points and tangent vectors are arrays whose last axis (length $d \ge 2$)
  holds the coordinates in $\mathbb{R}^d$; every leading axis is a batch axis
  and broadcasts;
* $\langle x, v \rangle$ is the Euclidean inner product and $\|\cdot\|$ the
  Euclidean norm; angles are geodesic distances in $[0, \pi]$;
* "uniform" means the normalised surface (Haar) measure $\sigma$ on $S^{d-1}$;
* singular points ($x = 0$ in `normalize`, $v = 0$ in `exp_map`) give a
  documented finite value with finite gradients (double-`where` pattern);
* the floating dtype of the input is preserved; integer input is promoted to
  the default float (float64 when x64 is enabled, else float32);
* bad input raises `ValueError`/`TypeError` naming the argument; value
  checks run on concrete (non-traced) input only, see `syncattn._checks`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import jax.scipy.special as jsp
import numpy as np

from ._checks import (
    as_float,
    check_broadcast,
    check_dim,
    check_finite,
    check_nonempty,
    is_concrete,
)
from ._numerics import default_floating_dtype, safe_norm
from ._types import Array, ArrayLike, Float, PRNGKeyArray


__all__ = [
    "normalize",
    "project_tangent",
    "exp_map",
    "sample_uniform",
    "cap_probability",
    "cap_probability_bound",
    "tangent_basis",
]


def _vector(x, name: str):
    x = as_float(x, name)
    check_nonempty(x, name, axis=-1)
    check_finite(x, name)
    return x


def _pair(x, v, xname: str, vname: str):
    x, v = _vector(x, xname), _vector(v, vname)
    check_broadcast(
        f"{xname} (*batch, d) and {vname} (*batch, d) must have broadcastable "
        f"shapes with the same d; got {xname} {x.shape}, {vname} {v.shape}.",
        x.shape,
        v.shape,
    )
    return x, v


def normalize(
    x: Float[ArrayLike, "*batch d"], axis: int = -1
) -> Float[Array, "*batch d"]:
    r"""Radial projection onto the unit sphere.

    $$\operatorname{normalize}(x) = \frac{x}{\|x\|}, \qquad
      \operatorname{normalize}(0) = 0$$

    $x$ = `x`, the norm taken along `axis`. At $x = 0$ the direction is
    undefined; the result is the zero vector, and its Jacobian there is the
    identity (the derivative of $x / 1$), finite by the double-`where`
    pattern, so `jax.grad` never returns NaN.

    Args:
        x: vectors $x$; `axis` holds the coordinates.
        axis: the coordinate axis.

    Returns:
        $x / \|x\|$, same shape and dtype as `x`.

    Raises:
        TypeError: if `x` is complex.
        ValueError: if `x` is a scalar, empty along `axis`, or non-finite.

    Example:
        >>> print(normalize(jnp.array([3.0, 4.0])))
        [0.6 0.8]
    """
    x = as_float(x, "x")
    if x.ndim and not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis={axis} is out of range for x of shape {x.shape}.")
    check_nonempty(x, "x", axis=axis)
    check_finite(x, "x")
    return _normalize(x, axis)


@functools.partial(jax.jit, static_argnames="axis")
def _normalize(x, axis):
    n = safe_norm(x, axis=axis, keepdims=True)
    return x / jnp.where(n > 0, n, jnp.ones_like(n))


def project_tangent(
    x: Float[ArrayLike, "*batch d"], v: Float[ArrayLike, "*batch d"]
) -> Float[Array, "*batch d"]:
    r"""Orthogonal projection of `v` onto the tangent space $T_x S^{d-1}$.

    $$P_x v = (I - x x^\top) v = v - \langle x, v \rangle x$$

    $x$ = `x` (a unit vector; the formula is applied as written otherwise),
    $v$ = `v`. For $\|x\| = 1$, $P_x$ is idempotent and $\langle x, P_x v
    \rangle = 0$.

    Args:
        x: base points $x \in S^{d-1}$.
        v: vectors $v \in \mathbb{R}^d$, broadcastable against `x`.

    Returns:
        $P_x v$ with the broadcast shape of `x` and `v`.

    Raises:
        TypeError: if `x` or `v` is complex.
        ValueError: if the shapes do not broadcast, or the input is non-finite.

    Example:
        >>> project_tangent(jnp.array([1.0, 0.0]), jnp.array([2.0, 3.0])).tolist()
        [0.0, 3.0]
    """
    x, v = _pair(x, v, "x", "v")
    return _project_tangent(x, v)


@jax.jit
def _project_tangent(x, v):
    return v - jnp.sum(x * v, axis=-1, keepdims=True) * x


def exp_map(
    x: Float[ArrayLike, "*batch d"], v: Float[ArrayLike, "*batch d"]
) -> Float[Array, "*batch d"]:
    r"""Riemannian exponential map of $S^{d-1}$: follow the geodesic from `x`.

    $$\exp_x(v) = \cos(\|v\|)\, x + \sin(\|v\|) \frac{v}{\|v\|}, \qquad
      \exp_x(0) = x$$

    $x$ = `x` (unit), $v$ = `v` (tangent at $x$: $\langle x, v\rangle = 0$; use
    `project_tangent` first otherwise). The point reached is at geodesic
    distance $\|v\|$ from $x$ when $\|v\| \le \pi$. At $v = 0$ the factor
    $\sin\|v\| / \|v\|$ is replaced by its limit 1 (double-`where`), so the
    value is $x$ and the Jacobian in $v$ is the identity, both finite.

    Args:
        x: base points $x \in S^{d-1}$.
        v: tangent vectors $v \in T_x S^{d-1}$, broadcastable against `x`.

    Returns:
        $\exp_x(v) \in S^{d-1}$ with the broadcast shape of `x` and `v`.

    Raises:
        TypeError: if `x` or `v` is complex.
        ValueError: if the shapes do not broadcast, or the input is non-finite.

    Example:
        >>> x, v = jnp.array([1.0, 0.0]), jnp.array([0.0, jnp.pi / 2])
        >>> print(exp_map(x, v).round(4) + 0.0)  # a quarter turn
        [0. 1.]
    """
    x, v = _pair(x, v, "x", "v")
    return _exp_map(x, v)


@jax.jit
def _exp_map(x, v):
    n = safe_norm(v, axis=-1, keepdims=True)
    pos = n > 0
    n_safe = jnp.where(pos, n, jnp.ones_like(n))
    sinc = jnp.where(pos, jnp.sin(n_safe) / n_safe, jnp.ones_like(n))
    return jnp.cos(n) * x + sinc * v


def sample_uniform(
    key: PRNGKeyArray, shape: int | tuple[int, ...], d: int, *, dtype=None
) -> Float[Array, "*shape d"]:
    r"""Independent samples from the uniform (Haar) measure on $S^{d-1}$.

    $$z = \frac{g}{\|g\|}, \qquad g \sim \mathcal{N}(0, I_d)$$

    The Gaussian is rotation invariant, so $g / \|g\|$ is uniform on the sphere
    ($\|g\| = 0$ has probability zero).

    Args:
        key: a JAX PRNG key.
        shape: batch shape of the sample (an int or a tuple of ints).
        d: ambient dimension $d \ge 2$ (points of $S^{d-1} \subset \mathbb{R}^d$).
        dtype: floating dtype of the result; default float64 if x64 is enabled,
            else float32.

    Returns:
        Array of shape `shape + (d,)` with unit rows.

    Raises:
        TypeError: if `d` is not an int.
        ValueError: if `d < 2` or `shape` has a negative entry.

    Example:
        >>> z = sample_uniform(jax.random.key(0), (5,), 3)
        >>> z.shape
        (5, 3)
    """
    d = check_dim(d, "d")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    shape = tuple(int(s) for s in shape)
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"shape must have non-negative entries; got {shape}.")
    dtype = default_floating_dtype() if dtype is None else jnp.dtype(dtype)
    return _sample_uniform(key, shape, d, dtype)


@functools.partial(jax.jit, static_argnums=(1, 2, 3))
def _sample_uniform(key, shape, d, dtype):
    g = jax.random.normal(key, (*shape, d), dtype=dtype)
    return g / jnp.linalg.norm(g, axis=-1, keepdims=True)


def _check_alpha(alpha):
    alpha = as_float(alpha, "alpha")
    if is_concrete(alpha):
        a = np.asarray(alpha, dtype=np.float64)
        pi = float(np.asarray(np.pi, dtype=alpha.dtype))  # pi of the input dtype
        if a.size and not (np.all(np.isfinite(a)) and np.all((a >= 0) & (a <= pi))):
            raise ValueError(
                "alpha must be an angle in [0, pi]; got "
                f"{a.tolist() if a.size <= 6 else f'values in [{a.min()}, {a.max()}]'}."
            )
    work = alpha.dtype if jnp.dtype(alpha.dtype).itemsize >= 4 else jnp.float32
    return alpha, work


@jax.custom_jvp
def _cap(alpha, d):
    # sin^2 alpha = sin^2 (pi - alpha): one incomplete beta serves both halves
    half = 0.5 * jsp.betainc(0.5 * (d - 1.0), 0.5, jnp.sin(alpha) ** 2)
    return jnp.where(alpha <= 0.5 * np.pi, half, 1.0 - half)


@_cap.defjvp
def _cap_jvp(primals, tangents):
    # The chain rule through betainc(sin^2 alpha) is 0 * inf at alpha in
    # {0, pi/2, pi} for small d; the derivative is the angle density instead.
    # d is an integer: its tangent is ignored.
    (alpha, d), (dalpha, _) = primals, tangents
    log_norm = jsp.betaln(0.5 * (d - 1.0), 0.5)
    density = jnp.sin(alpha) ** (d - 2.0) * jnp.exp(-log_norm)
    return _cap(alpha, d), density * dalpha


_cap_jit = jax.jit(_cap)  # d traced: one compilation serves every d


def cap_probability(
    alpha: Float[ArrayLike, "*shape"], d: int
) -> Float[Array, "*shape"]:
    r"""Normalised area of a spherical cap: $P(\angle(z, p) < \alpha)$, $z$ uniform.

    $$\sigma\{z \in S^{d-1} : \angle(z, p) < \alpha\} =
      \begin{cases}
      \tfrac12 I_{\sin^2\alpha}\!\left(\tfrac{d-1}{2}, \tfrac12\right),
        & 0 \le \alpha \le \pi/2, \\
      1 - \tfrac12 I_{\sin^2\alpha}\!\left(\tfrac{d-1}{2}, \tfrac12\right),
        & \pi/2 < \alpha \le \pi,
      \end{cases}$$

    $\alpha$ = `alpha` (elementwise), $d$ = `d`, $p$ any fixed unit vector,
    $I_x(a, b)$ the regularised incomplete beta function
    (`jax.scipy.special.betainc`). The angle has density
    $\sin^{d-2}\phi / B(\tfrac{d-1}{2}, \tfrac12)$ on $[0, \pi]$. Special cases:
    $\alpha / \pi$ for $d = 2$ and $(1 - \cos\alpha)/2$ for $d = 3$.
    Jit-able (`d` is a Python int, static) and differentiable in `alpha`: the derivative
    is the angle density above, finite on all of $[0, \pi]$.

    Args:
        alpha: angles $\alpha \in [0, \pi]$, any shape.
        d: ambient dimension $d \ge 2$.

    Returns:
        Probabilities in $[0, 1]$, same shape and dtype as `alpha`.

    Raises:
        TypeError: if `alpha` is complex or `d` is not an int.
        ValueError: if `d < 2`, or a concrete `alpha` lies outside $[0, \pi]$
            or is NaN/inf.

    Example:
        >>> round(float(cap_probability(jnp.pi / 3, 3)), 6)  # (1 - cos(pi/3)) / 2
        0.25
    """
    d = check_dim(d, "d")
    alpha, _ = _check_alpha(alpha)
    return _cap_probability(alpha, d)


def _cap_probability(alpha, d: int):
    # the core of cap_probability: alpha checked, d a checked int
    work = alpha.dtype if jnp.dtype(alpha.dtype).itemsize >= 4 else jnp.float32
    return _cap_jit(alpha.astype(work), jnp.asarray(d, work)).astype(alpha.dtype)


def cap_probability_bound(
    alpha: Float[ArrayLike, "*shape"], d: int
) -> Float[Array, "*shape"]:
    r"""Upper bound on `cap_probability`, exponentially small in $d$ for $\alpha < \pi/2$.

    $$\sigma\{\angle(z, p) < \alpha\} \le \rho(\alpha)^d, \qquad
      \rho(\alpha) = \begin{cases}
      \dfrac{1}{2\cos\alpha}, & 0 \le \alpha \le \pi/4, \\
      \sin\alpha, & \pi/4 \le \alpha \le \pi/2, \\
      1, & \pi/2 \le \alpha \le \pi,
      \end{cases}$$

    $\alpha$ = `alpha`, $d$ = `d`. $\rho$ is continuous, $\rho < 1$ on
    $[0, \pi/2)$, so $\log$ of the bound is exactly $d \log\rho(\alpha)$:
    linear in $d$. For $\alpha \le \pi/2$ it implies
    $\sigma \le \exp(-d\cos^2\alpha / 2)$, since
    $1 - t^2 \le e^{-t^2}$ and $\log(2t) \ge t^2/2$ on $[1/\sqrt2, 1]$.

    Proof (K. Ball's cone argument). Let $t = \cos\alpha \ge 0$ and
    $C = \{x \in S^{d-1}: \langle x, p\rangle \ge t\}$, which contains the
    open cap. The cone $K = \{s x : x \in C, 0 \le s \le 1\}$ has
    $\operatorname{vol}(K) / \operatorname{vol}(B^d) = \sigma(C)$ (integrate
    $s^{d-1}$ in polar coordinates). $K$ lies in the convex hull of $C \cup
    \{0\}$, so in any ball that contains $C$ and $0$. For $x \in C$:
    $\|x - t p\|^2 = 1 - 2t\langle x, p\rangle + t^2 \le 1 - t^2$ and
    $\|0 - tp\|^2 = t^2 \le 1 - t^2$ when $t \le 1/\sqrt2$, giving the ball of
    radius $\sqrt{1 - t^2} = \sin\alpha$; and $\|x - p/(2t)\|^2 = 1 -
    \langle x, p\rangle / t + 1/(4t^2) \le 1/(4t^2) = \|0 - p/(2t)\|^2$,
    giving the ball of radius $1/(2t)$ for any $t > 0$. A ball of radius $r$
    has volume $r^d \operatorname{vol}(B^d)$; for $\alpha \ge \pi/2$ the
    bound 1 is trivial. $\square$

    Args:
        alpha: angles $\alpha \in [0, \pi]$, any shape.
        d: ambient dimension $d \ge 2$.

    Returns:
        $\rho(\alpha)^d$, same shape and dtype as `alpha` (1 for $\alpha \ge \pi/2$).

    Raises:
        TypeError: if `alpha` is complex or `d` is not an int.
        ValueError: if `d < 2`, or a concrete `alpha` lies outside $[0, \pi]$
            or is NaN/inf.

    Example:
        >>> round(float(cap_probability_bound(jnp.pi / 4, 2)), 6)  # (1/sqrt 2)^2
        0.5
    """
    d = check_dim(d, "d")
    alpha, work = _check_alpha(alpha)
    a = alpha.astype(work)
    return _cap_bound(a, jnp.asarray(d, work)).astype(alpha.dtype)


@jax.jit
def _cap_bound(alpha, d):
    a = jnp.minimum(alpha, 0.5 * np.pi)
    quarter = 0.25 * np.pi
    low = a < quarter
    # double where: each branch's log only sees angles where it is finite
    log_rho = jnp.where(
        low,
        -jnp.log(2.0 * jnp.cos(jnp.where(low, a, quarter))),
        jnp.log(jnp.sin(jnp.where(low, quarter, a))),
    )
    return jnp.exp(d * log_rho)


@jax.jit
def _tangent_basis(z):
    d = z.shape[-1]
    u = _normalize(z, -1)
    s = jnp.where(u[..., :1] >= 0, 1, -1).astype(u.dtype)
    v = u + s * jnp.zeros_like(u).at[..., 0].set(1)
    vv = jnp.sum(v * v, axis=-1)[..., None, None]  # = 2 (1 + |u_1|) >= 2, or 1 at z = 0
    eye = jnp.eye(d, dtype=u.dtype)[(None,) * (u.ndim - 1)]
    return (eye - 2 * v[..., :, None] * v[..., None, :] / vv)[
        ..., :, 1:
    ]


def tangent_basis(z: Float[Array, "*batch d"]) -> Float[Array, "*batch d d-1"]:
    r"""Orthonormal basis of the tangent space $T_z S^{d-1} = z^\perp$ (Householder).

    $$H = I - 2\frac{v v^\top}{v^\top v},\quad v = u + \operatorname{sign}(u_1) e_1,
      \quad u = \frac{z}{\|z\|},\qquad B = (H e_2, \dots, H e_d)$$

    $z$ = `z`. $H$ is an orthogonal reflection with $H e_1 = -\operatorname{sign}(u_1)
    u$, so $B$ spans $u^\perp$; $v^\top v = 2(1 + |u_1|) \ge 2$ keeps it jit-friendly
    and well conditioned. At $z = 0$ it returns $e_2, \dots, e_d$.

    Args:
        z: points, shape `(*batch, d)`, $d \ge 2$.

    Returns:
        $B$, shape `(*batch, d, d-1)`: $B^\top B = I$, $B^\top z = 0$.

    Raises:
        ValueError: $d < 2$ or NaN/inf.

    Example:
        >>> tangent_basis(jnp.array([0.0, 0.0, 1.0]))  # spans the xy-plane
    """
    z = as_float(z, "z")
    if z.ndim < 1 or z.shape[-1] < 2:
        raise ValueError(f"z must have shape (*batch, d) with d >= 2; got {z.shape}.")
    check_finite(z, "z")
    return _tangent_basis(z)

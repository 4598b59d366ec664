r"""Geometry of the torus $\mathbb{T}^k = (\mathbb{R} / 2\pi\mathbb{Z})^k$.

Conventions:

* a phase is a real number $\theta$ of which only $\theta \bmod 2\pi$ matters;
  returned phases (`wrap`, `angle_diff`, `circular_mean`) lie in $[-\pi, \pi)$,
  where $\pi$ is the floating-point $\pi$ of the input dtype;
* the last axis indexes oscillators unless an `axis` argument says
  otherwise; every leading axis is a batch axis;
* the order parameter is the complex number $R e^{i\psi}$ with $0 \le R \le 1$;
  it is complex64 for float32 (and bfloat16/float16) phases and complex128 for
  float64 phases;
* the floating dtype of the input is preserved; integer input is promoted to
  the default float (float64 when x64 is enabled, else float32);
* bad input (NaN/inf, empty oscillator axis, negative or all-zero weights)
  raises `ValueError` naming the argument; value checks run on concrete
  (non-traced) input only, see `syncattn._checks`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from ._checks import (
    as_float,
    check_broadcast,
    check_finite,
    check_nonempty,
    is_concrete,
)
from ._numerics import mean_field, sincos
from ._types import Array, ArrayLike, Complex, Float, Real


__all__ = ["wrap", "angle_diff", "lift", "order_parameter", "circular_mean"]

_TWO_PI = 2.0 * np.pi


@jax.jit
def _wrap(theta):
    # theta - 2 pi k with k an integer keeps in-range phases exact (k = 0); the
    # two guards fix the rounding at the ends (theta + pi may round up to 2 pi,
    # and k * 2 pi is rounded), so the result lies in [-pi, pi) in every dtype.
    k = jnp.floor((theta + np.pi) / _TWO_PI)
    w = theta - k * _TWO_PI
    pi = jnp.asarray(np.pi, dtype=w.dtype)
    w = jnp.where(w >= pi, w - _TWO_PI, w)
    return jnp.where(w < -pi, w + _TWO_PI, w)


def wrap(theta: Real[ArrayLike, "*shape"]) -> Float[Array, "*shape"]:
    r"""Representative of a phase in $[-\pi, \pi)$.

    $$\operatorname{wrap}(\theta) = \theta - 2\pi\left\lfloor
      \frac{\theta + \pi}{2\pi} \right\rfloor \in [-\pi, \pi)$$

    Elementwise; the derivative is 1 everywhere except at the jumps.

    Args:
        theta: phases $\theta$, any shape.

    Returns:
        $\operatorname{wrap}(\theta)$, same shape and floating dtype as `theta`.

    Raises:
        TypeError: if `theta` is complex.
        ValueError: if a concrete `theta` contains NaN or inf.

    Example:
        >>> round(float(wrap(3 * jnp.pi / 2)), 4)
        -1.5708
    """
    theta = as_float(theta, "theta")
    check_finite(theta, "theta")
    return _wrap(theta)


def angle_diff(
    a: Float[ArrayLike, "*#shape"], b: Float[ArrayLike, "*#shape"]
) -> Float[Array, "*rshape"]:
    r"""Signed shortest angle from `b` to `a`, in $[-\pi, \pi)$.

    $$\operatorname{angle\_diff}(a, b) = \operatorname{wrap}(a - b)$$

    Args:
        a: phases $a$.
        b: phases $b$, broadcastable against `a`.

    Returns:
        $\operatorname{wrap}(a - b)$ with the broadcast shape of `a` and `b`.

    Raises:
        TypeError: if `a` or `b` is complex.
        ValueError: if `a` and `b` do not broadcast, or contain NaN/inf.

    Example:
        >>> round(float(angle_diff(3.0, -3.0)), 4)  # 6 - 2 pi
        -0.2832
    """
    a = as_float(a, "a")
    b = as_float(b, "b")
    check_broadcast(
        f"a and b must have broadcastable shapes; got a {a.shape}, b {b.shape}.",
        a.shape,
        b.shape,
    )
    check_finite(a, "a")
    check_finite(b, "b")
    a, b = jnp.broadcast_arrays(a, b)
    return _wrap(a - b)


def lift(theta: Float[ArrayLike, "*shape"]) -> Float[Array, "*shape 2"]:
    r"""Embed phases in the unit circle of $\mathbb{R}^2$.

    $$\theta \mapsto (\cos\theta, \sin\theta) \in S^1 \subset \mathbb{R}^2$$

    Args:
        theta: phases $\theta$, any shape.

    Returns:
        Array of shape `theta.shape + (2,)`; `[..., 0]` is $\cos\theta$ and
        `[..., 1]` is $\sin\theta$.

    Raises:
        TypeError: if `theta` is complex.
        ValueError: if a concrete `theta` contains NaN or inf.

    Example:
        >>> print(lift(jnp.array([0.0, jnp.pi / 2])).round(4) + 0.0)
        [[1. 0.]
         [0. 1.]]
    """
    theta = as_float(theta, "theta")
    check_finite(theta, "theta")
    return _lift(theta)


@jax.jit
def _lift(theta):
    return jnp.stack([jnp.cos(theta), jnp.sin(theta)], axis=-1)


def _complex_parts_dtype(dtype):
    # lax.complex only accepts float32/float64; narrower floats go through float32.
    return dtype if jnp.dtype(dtype).itemsize >= 4 else jnp.float32


def _order_parts(theta, weights, axis):
    """Validated (Re z, Im z) of the order parameter, in a float32/64 dtype."""
    theta = as_float(theta, "theta")
    ndim = theta.ndim
    if ndim == 0:
        raise ValueError("theta must have at least 1 dimension; got a scalar.")
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"axis={axis} is out of range for theta of shape {theta.shape}."
        )
    check_nonempty(theta, "theta", axis=axis)
    check_finite(theta, "theta")
    theta = theta.astype(_complex_parts_dtype(theta.dtype))
    if weights is None:
        return _mean_xy(theta, None, axis)
    w = as_float(weights, "weights")
    try:
        shape = jnp.broadcast_shapes(w.shape, theta.shape)
    except ValueError:
        shape = None
    if shape != theta.shape:
        raise ValueError(
            "weights must have the shape of theta or broadcast to it; "
            f"got weights {w.shape}, theta {theta.shape}."
        )
    check_finite(w, "weights")
    if is_concrete(w):
        wn = np.broadcast_to(np.asarray(w, dtype=np.float64), theta.shape)
        if np.any(wn < 0):
            raise ValueError("weights must be non-negative; got a negative entry.")
        if np.any(np.sum(wn, axis=axis) <= 0):
            raise ValueError(
                f"weights must not be all zero along axis {axis}; "
                "the weighted order parameter sum w e^{i theta} / sum w is undefined."
            )
    return _mean_xy(theta, jnp.broadcast_to(w.astype(theta.dtype), theta.shape), axis)


@functools.partial(jax.jit, static_argnames="axis")
def _mean_xy(theta, w, axis):
    s, c = sincos(theta)
    if w is None:
        return mean_field(c, axis), mean_field(s, axis)
    W = jnp.sum(w, axis=axis)
    # double where: a traced all-zero weight row gives z = 0 with finite gradients
    pos = W > 0
    W_safe = jnp.where(pos, W, jnp.ones_like(W))
    x = jnp.where(pos, jnp.sum(w * c, axis=axis) / W_safe, 0.0)
    y = jnp.where(pos, jnp.sum(w * s, axis=axis) / W_safe, 0.0)
    return x, y


def order_parameter(
    theta: Float[ArrayLike, "*shape"],
    weights: Float[ArrayLike, "*#wshape"] | None = None,
    axis: int = -1,
) -> Complex[Array, "*rshape"]:
    r"""Kuramoto order parameter $R e^{i\psi}$ of a population of phases.

    $$R e^{i\psi} = \frac{\sum_j w_j e^{i\theta_j}}{\sum_j w_j}, \qquad
      R e^{i\psi} = \frac{1}{n}\sum_{j=1}^n e^{i\theta_j} \text{ if } w \equiv 1$$

    $\theta_j$ = `theta` along `axis`, $w_j$ = `weights`. $R \in [0, 1]$
    measures synchrony ($R = 1$: all phases equal) and $\psi$ is the mean phase.

    Args:
        theta: phases $\theta$; `axis` indexes the oscillators.
        weights: optional non-negative weights $w$, of the shape of `theta` or
            broadcastable to it, not all zero along `axis`. Cast to the dtype
            of `theta`.
        axis: the oscillator axis.

    Returns:
        Complex array with `axis` removed: complex128 for float64 `theta`,
        complex64 otherwise.

    Raises:
        TypeError: if `theta` or `weights` is complex.
        ValueError: if `theta` is a scalar, empty along `axis`, or non-finite;
            if `weights` does not broadcast to `theta`, is negative, non-finite
            or all zero along `axis` (checked for concrete input; a traced
            all-zero row gives 0).

    Example:
        >>> z = order_parameter(jnp.array([0.0, jnp.pi / 2]))
        >>> round(float(abs(z)), 6), round(float(jnp.angle(z)), 6)  # sqrt(2)/2, pi/4
        (0.707107, 0.785398)
    """
    x, y = _order_parts(theta, weights, axis)
    return jax.lax.complex(x, y)


def circular_mean(
    theta: Float[ArrayLike, "*shape"],
    weights: Float[ArrayLike, "*#wshape"] | None = None,
    axis: int = -1,
) -> Float[Array, "*rshape"]:
    r"""Mean phase $\psi$: the argument of the order parameter, in $[-\pi, \pi)$.

    $$\psi = \arg \frac{\sum_j w_j e^{i\theta_j}}{\sum_j w_j}, \qquad
      \psi = 0 \text{ if } R \le 64\,\varepsilon$$

    $\theta$ = `theta`, $w$ = `weights`, $\varepsilon$ = machine epsilon of the
    working dtype (float64 for float64 input, else float32). When $R = 0$
    (e.g. two opposite phases) the mean phase is undefined; any
    $R \le 64\varepsilon$ is indistinguishable from rounding error, and there
    the result is 0 with a zero (finite) gradient (double-`where`).

    Args:
        theta: phases $\theta$; `axis` indexes the oscillators.
        weights: optional non-negative weights, as in `order_parameter`.
        axis: the oscillator axis.

    Returns:
        $\psi$ with `axis` removed, same floating dtype as `theta`.

    Raises:
        TypeError: if `theta` or `weights` is complex.
        ValueError: as in `order_parameter`.

    Example:
        >>> round(float(circular_mean(jnp.array([0.0, jnp.pi / 2]))), 6)
        0.785398
    """
    dtype = as_float(theta, "theta").dtype
    x, y = _order_parts(theta, weights, axis)
    tiny = 64.0 * float(jnp.finfo(x.dtype).eps)  # eps of the float32/64 work dtype
    return _arg_or_zero(x, y, tiny).astype(dtype)


@jax.jit
def _arg_or_zero(x, y, tiny):
    ok = x * x + y * y > tiny * tiny
    # double where: arctan2 has an infinite gradient at the origin
    psi = jnp.arctan2(jnp.where(ok, y, 0.0), jnp.where(ok, x, 1.0))
    # arctan2 lies in [-pi, pi]; only its closed end pi needs mapping to -pi
    pi = jnp.asarray(np.pi, dtype=psi.dtype)
    psi = jnp.where(ok & (psi < pi), psi, jnp.where(ok, -pi, 0.0))
    return psi

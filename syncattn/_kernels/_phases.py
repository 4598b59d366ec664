r"""The torus lift and the bounded phase increment through the fused CPU kernel
(`sync.cc`), and their plain XLA compositions: `torus_lift` ($(\cos\theta, \sin\theta)$,
[`syncattn.geometry.Torus`][]'s `lift` in float32 on the CPU) and `bounded_add`
($\theta + \mathcal B_\beta(u)$, [`syncattn.nn.AngleSwiGLU`][]'s increment)."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._numerics import sincos
from .._types import Array, ArrayLike, Float
from . import _library
from ._attention import kernel_enabled
from ._sync import _bounded, _call, _check_bound


def xla_torus_lift(theta: Float[ArrayLike, "*batch k"]) -> Float[Array, "*batch 2 k"]:
    r"""The plain XLA composition of `torus_lift`: $(\cos\theta, \sin\theta)$ stacked on a
    new second-to-last axis (`syncattn._numerics.sincos`)."""
    sn, cs = sincos(jnp.asarray(theta))
    return jnp.stack([cs, sn], -2)


@jax.custom_vjp
def _lift(theta):
    out = jax.ShapeDtypeStruct(theta.shape[:-1] + (2, theta.shape[-1]), jnp.float32)
    return _call(_library.LIFT_FORWARD, (theta,), out)


def _lift_fwd(theta):
    x = _lift(theta)
    return x, x


def _lift_bwd(x, dx):
    out = jax.ShapeDtypeStruct(x.shape[:-2] + x.shape[-1:], jnp.float32)
    return (_call(_library.LIFT_BACKWARD, (x, dx), out),)


_lift.defvjp(_lift_fwd, _lift_bwd)


def torus_lift(theta: Float[ArrayLike, "*batch k"]) -> Float[Array, "*batch 2 k"]:
    r"""The lift $x = (\cos\theta, \sin\theta)$, stacked on a new second-to-last axis, by
    the fused CPU kernel where `kernel_enabled` (else `xla_torus_lift`); the kernel's
    sine and cosine are those of `syncattn._numerics.sincos` in float32 (the same
    reduction and polynomials; within 1.2e-7 of float64 for $|\theta| \le 10^4$, tested,
    and, like it, inexact past that: 2e-3 at $3\cdot 10^7$), its VJP
    $\bar\theta = x_0\bar x_1 - x_1\bar x_0$.

    Raises:
        ValueError: `theta` of rank 0.
    """
    theta = jnp.asarray(theta)
    if theta.ndim < 1:
        raise ValueError(f"theta must have a last axis (..., k); got shape {theta.shape}.")
    if not kernel_enabled(theta.dtype):
        return xla_torus_lift(theta)
    return _lift(theta)


def xla_bounded_add(
    theta: Float[ArrayLike, "*batch k"], u: Float[ArrayLike, "*batch k"], bound: float
) -> Float[Array, "*batch k"]:
    r"""The plain XLA composition of `bounded_add`: $\theta + u\tanh(\rho)/\rho$,
    $\rho = \operatorname{rms}(u)/\beta$ over the last axis ($\theta$ where $u = 0$;
    the increment formed in at least float32, as `syncattn.nn.bounded_increment`)."""
    theta, u = jnp.asarray(theta), jnp.asarray(u)
    uf = u.astype(jnp.promote_types(u.dtype, jnp.float32))  # bfloat16: in float32
    return theta + (uf * _bounded(uf, bound, (-1,))).astype(u.dtype)


@partial(jax.custom_vjp, nondiff_argnums=(2,))
def _bound(theta, u, bound):
    out = jax.ShapeDtypeStruct(theta.shape, jnp.float32)
    return _call(_library.BOUND_FORWARD, (theta, u), out, bound=np.float32(bound))


def _bound_fwd(theta, u, bound):
    return _bound(theta, u, bound), u


def _bound_bwd(bound, u, dy):
    out = jax.ShapeDtypeStruct(u.shape, jnp.float32)
    return dy, _call(_library.BOUND_BACKWARD, (u, dy), out, bound=np.float32(bound))


_bound.defvjp(_bound_fwd, _bound_bwd)


def bounded_add(
    theta: Float[ArrayLike, "*batch k"], u: Float[ArrayLike, "*batch k"], bound: float
) -> Float[Array, "*batch k"]:
    r"""$\theta + \mathcal B_\beta(u)$, the bounded increment added, by the fused CPU
    kernel where `kernel_enabled` (else `xla_bounded_add`):

    $$\theta' = \theta + u\,\frac{\tanh\rho}{\rho}, \qquad \rho =
      \frac{\operatorname{rms}(u)}{\beta}$$

    over the last axis ($\theta' = \theta$ where $u = 0$, with finite gradients). The
    VJP: $\bar\theta = \bar\theta'$, $\bar u = f\bar\theta' + \frac{f'(\rho)}{\beta^2
    \rho k}(\bar\theta'\cdot u)\,u$ ($f'/\rho$ by its series below $\rho = 10^{-3}$).

    Raises:
        ValueError: shapes that differ, a bad `bound`.
    """
    bound = _check_bound(bound)
    theta, u = jnp.asarray(theta), jnp.asarray(u)
    if theta.ndim < 1 or theta.shape != u.shape:
        raise ValueError(
            f"theta and u must have one shape (..., k); got {theta.shape} and {u.shape}."
        )
    if theta.dtype != u.dtype or not kernel_enabled(theta.dtype):
        return xla_bounded_add(theta, u, bound)
    return _bound(theta, u, bound)

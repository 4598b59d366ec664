r"""Rotary position embedding (RoPE) as a phase drift, shared by the attention layers."""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._types import Array, ArrayLike, Float, Real


__all__ = ["rope", "rope_frequencies"]


def rope_frequencies(m: int, base: float = 10_000.0, dtype=None) -> Float[Array, " m"]:
    r"""The standard RoPE frequencies $\omega_j = b^{-j/m}$, $j = 0, \dots, m-1$.

    $$\omega_j = b^{-j/m}$$

    $m$ = `m` (the number of rotated pairs, half the head width), $b$ = `base`.

    Raises:
        ValueError: `m < 1` or `base <= 1`.
    """
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise ValueError(f"m (number of rotated pairs) must be an int >= 1; got {m!r}.")
    if not (isinstance(base, (int, float)) and math.isfinite(base) and base > 1):
        raise ValueError(f"base must be a finite number > 1; got {base!r}.")
    return jnp.asarray(base, dtype) ** (-jnp.arange(m, dtype=dtype) / m)


def rope(
    x: Float[ArrayLike, "T *heads two_m"],
    omega: Float[ArrayLike, "*#heads m"],
    positions: Real[ArrayLike, " T"] | None = None,
) -> Float[Array, "T *heads two_m"]:
    r"""Rotate the pairs $(x_j, x_{j+m})$ of every token by the angle $\omega_j t$.

    $$\begin{pmatrix} y_{t,j} \\ y_{t,j+m} \end{pmatrix} =
      \begin{pmatrix} \cos\omega_j t & -\sin\omega_j t \\ \sin\omega_j t & \cos\omega_j t
      \end{pmatrix}\begin{pmatrix} x_{t,j} \\ x_{t,j+m} \end{pmatrix}$$

    The pairs are the two halves of the last axis ("rotate-half" layout), so a lifted
    phase $(\cos\theta, \sin\theta)$ stored as `[cos θ_1..m, sin θ_1..m]` becomes
    $(\cos(\theta + \omega t), \sin(\theta + \omega t))$: RoPE is the phase drift of
    statement 2 (`proofs/proof_rotary_phase_drift.py`), and
    $\langle y_t, y'_u\rangle$ depends on positions only through $t - u$.

    Args:
        x: features, shape `(T, *heads, 2m)`; axis 0 indexes tokens.
        omega: frequencies $\omega$, shape `(m,)` or broadcastable to `(*heads, m)`.
        positions: token positions $t$, shape `(T,)`; default `0, 1, ..., T-1`.

    Returns:
        The rotated features, shape and dtype of `x`.

    Raises:
        ValueError: odd last axis, or `omega`/`positions` of the wrong shape.
    """
    x = jnp.asarray(x)
    if x.ndim < 2 or x.shape[-1] % 2:
        raise ValueError(
            f"x must have shape (T, *heads, 2m) with an even last axis; got {x.shape}."
        )
    m = x.shape[-1] // 2
    omega = jnp.asarray(omega)
    if omega.ndim < 1 or omega.shape[-1] != m:
        raise ValueError(
            f"omega must have m={m} entries on its last axis; got {omega.shape}."
        )
    T = x.shape[0]
    if positions is None:
        positions = jnp.arange(T, dtype=x.dtype)
    positions = jnp.asarray(positions)
    if positions.shape != (T,):
        raise ValueError(
            f"positions must have shape (T,)=({T},); got {positions.shape}."
        )
    return _rope(x, omega, positions)


def _rope(x, omega, positions):
    # angles in the input dtype, but at least float32: bfloat16 angles lose ~2 digits
    wdt = jnp.promote_types(x.dtype, jnp.float32)
    pos = positions.astype(wdt).reshape((-1,) + (1,) * (x.ndim - 1))
    om = omega.astype(wdt).reshape((1,) * (x.ndim - omega.ndim) + omega.shape)
    ang = pos * om  # (T, *heads, m); equal ranks (rank promotion may be "raise")
    c, s = jnp.cos(ang), jnp.sin(ang)
    m = x.shape[-1] // 2
    # the halves as an axis of two: y = x (c, c) + swap(x) (-s, s), i.e. x1 c - x2 s and
    # x2 c + x1 s, without the concatenation XLA:CPU emits as a slow fusion (the softmax
    # 1m train step 0.96x the time, measured; equal to the concatenated form up to
    # XLA's contraction of the products into FMAs, within an ulp)
    xr = x.astype(wdt).reshape(x.shape[:-1] + (2, m))
    cc = jnp.stack([c, c], -2)
    ss = jnp.stack([-s, s], -2)
    return (xr * cc + jnp.flip(xr, -2) * ss).reshape(x.shape).astype(x.dtype)

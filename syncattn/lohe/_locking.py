r"""The fixed-query flow with frequency disorder: locking.

A free oscillator with its own skew-symmetric frequency $\Omega$ follows
$\dot z = \Omega z + (I - zz^\top) h$; its locked state and the Adler case $d = 2$ are
[`locked_state`][syncattn.lohe.locked_state] and
[`adler_locking`][syncattn.lohe.adler_locking] (`proofs/proof_frequency_locking.py`).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import as_float, check_finite, check_scalar_range, is_concrete
from .._numerics import eps_for, safe_norm
from .._types import Array, ArrayLike, Bool, Float
from ._noise import _vec


__all__ = ["adler_locking", "locked_state", "Locking", "LockedState"]


class Locking(NamedTuple):
    """Result of [`adler_locking`][syncattn.lohe.adler_locking]."""

    locked: Bool[Array, "*shape"]
    angle: Float[Array, "*shape"]
    beat_frequency: Float[Array, "*shape"]


@jax.jit
def _adler(omega, a):
    locked = jnp.abs(omega) <= a
    pos = a > 0
    ratio = jnp.where(pos, omega / jnp.where(pos, a, 1.0), jnp.sign(omega))
    angle = jnp.arcsin(jnp.clip(ratio, -1.0, 1.0))
    gap = omega**2 - a**2
    beat = jnp.where(
        locked, 0.0, jnp.sign(omega) * jnp.sqrt(jnp.where(locked, 1.0, gap))
    )
    return Locking(locked, angle, beat)


def adler_locking(
    omega: Float[ArrayLike, "*shape"] | float,
    norm_h: Float[ArrayLike, "*shape"] | float,
) -> Locking:
    r"""Frequency locking of one query on the circle ($d = 2$): Adler's equation.

    With $\Omega = \omega\begin{pmatrix}0 & -1\\ 1 & 0\end{pmatrix}$ and
    $z = (\cos\theta, \sin\theta)$, the flow $\dot z = \Omega z + (I - zz^\top)h$ reads, for
    the angle $\varphi = \theta - \arg h$ from $\hat h$,

    $$\dot\varphi = \omega - \|h\|\sin\varphi .$$

    It locks iff $|\omega| \le \|h\|$, at the stable angle $\varphi^\star = \arcsin(\omega/\|h\|)$
    (linear rate $-\|h\|\cos\varphi^\star = -\sqrt{\|h\|^2 - \omega^2}$); otherwise it drifts,
    with mean angular velocity (beat frequency) $\operatorname{sign}(\omega)\sqrt{\omega^2 - \|h\|^2}$
    (period $2\pi/\sqrt{\omega^2 - \|h\|^2}$). Proved in `proofs/proof_frequency_locking.py`.

    Args:
        omega: frequency $\omega$.
        norm_h: drive strength $\|h\| \ge 0$ (broadcasts with `omega`).

    Returns:
        [`Locking`][syncattn.lohe.Locking]: `locked` (bool), `angle` ($\varphi^\star$ where
        locked; $\pm\pi/2$, the slowest point, where not), `beat_frequency` (0 where
        locked). $\omega = \|h\| = 0$: locked, angle 0.

    Raises:
        ValueError: NaN/inf `omega`, negative or NaN `norm_h`.

    Example:
        >>> adler_locking(0.5, 1.0).angle  # pi/6
    """
    omega = as_float(omega, "omega")
    check_finite(omega, "omega")
    a = check_scalar_range(as_float(norm_h, "norm_h"), "norm_h", low=0.0)
    dtype = jnp.result_type(omega, a)
    omega, a = jnp.broadcast_arrays(omega.astype(dtype), a.astype(dtype))
    return _adler(omega, a)


class LockedState(NamedTuple):
    """Result of [`locked_state`][syncattn.lohe.locked_state]."""

    z: Float[Array, "*batch d"]
    rate: Float[Array, "*batch"]
    locked: Bool[Array, "*batch"]


def _check_skew(Omega, d, dtype):
    Omega = as_float(Omega, "Omega")
    if Omega.shape != (d, d):
        raise ValueError(f"Omega must have shape (d, d)=({d}, {d}); got {Omega.shape}.")
    check_finite(Omega, "Omega")
    if is_concrete(Omega):
        O = np.asarray(Omega, np.float64)
        asym = float(np.max(np.abs(O + O.T), initial=0.0))
        if asym > eps_for(Omega.dtype) * max(1.0, float(np.max(np.abs(O)))):
            raise ValueError(
                "Omega must be skew-symmetric (Omega^T = -Omega); got "
                f"max|Omega + Omega^T| = {asym:.3g}. Perhaps use (A - A^T) / 2?"
            )
    return Omega.astype(dtype)


@jax.jit
def _locked(Omega, h):
    d = h.shape[-1]
    norm = safe_norm(h)
    w, U = jnp.linalg.eigh(
        1j * Omega.astype(jnp.result_type(Omega.dtype, jnp.complex64))
    )
    c = jnp.abs(jnp.einsum("dk,...d->...k", jnp.conj(U), h.astype(U.dtype))) ** 2
    c = c.astype(h.dtype)
    w = jnp.broadcast_to(w.astype(h.dtype), c.shape)
    wmax = jnp.max(jnp.abs(w), -1)
    tiny = eps_for(h.dtype) * jnp.maximum(wmax, 1.0)[..., None]
    kernel = jnp.abs(w) <= tiny
    # g(lambda) = ||(lambda I - Omega)^{-1} h||^2 = sum_k c_k / (lambda^2 + w_k^2), decreasing
    g = lambda lam: jnp.sum(c / (lam[..., None] ** 2 + w**2), -1)
    ker_mass = jnp.sum(jnp.where(kernel, c, 0.0), -1)
    g0 = jnp.sum(jnp.where(kernel, 0.0, c / jnp.where(kernel, 1.0, w**2)), -1)
    # g(0+) = inf with a kernel component, else sum_k c_k / w_k^2 (dimensionless)
    locked = (norm > 0) & ((ker_mass > (eps_for(h.dtype) * norm) ** 2) | (g0 > 1.0))
    lo = jnp.sqrt(jnp.maximum(norm**2 - wmax**2, 0.0))
    hi = norm

    def bisect(_, bounds):
        lo, hi = bounds
        mid = 0.5 * (lo + hi)
        above = g(mid) > 1.0  # root lies to the right of mid
        return jnp.where(above, mid, lo), jnp.where(above, hi, mid)

    lo, hi = jax.lax.fori_loop(0, 120, bisect, (lo, hi))
    lam = jnp.where(locked, 0.5 * (lo + hi), 0.0)
    eye = jnp.broadcast_to(jnp.eye(d, dtype=h.dtype), lam.shape + (d, d))
    M = lam[..., None, None] * eye - jnp.broadcast_to(Omega, eye.shape)
    M = jnp.where(locked[..., None, None], M, eye)
    z = jnp.linalg.solve(M, h[..., None])[..., 0]
    z = z / jnp.maximum(safe_norm(z, keepdims=True), jnp.finfo(h.dtype).tiny)
    z = jnp.where(locked[..., None], z, 0.0)
    return LockedState(z, lam, locked)


def locked_state(
    Omega: Float[ArrayLike, "d d"], h: Float[ArrayLike, "*batch d"]
) -> LockedState:
    r"""The locked (stable) state of a query with its own frequency: $\dot z = \Omega z + (I - zz^\top)h$.

    A fixed point satisfies $(\lambda I - \Omega)z = h$ with $\lambda = z\cdot h$, so

    $$z^\star = (\lambda^\star I - \Omega)^{-1}h, \qquad
      \|(\lambda^\star I - \Omega)^{-1}h\| = 1,\ \lambda^\star > 0,$$

    a unique root since the norm decreases in $\lambda > 0$. At $z^\star$:

    * $\cos\angle(z^\star, h) = \lambda^\star/\|h\|$ and
      $\sin\angle(z^\star, h) = \|\Omega z^\star\|/\|h\| \le \|\Omega\|_2/\|h\|$ (from
      $\|h\|^2 = \lambda^{\star2} + \|\Omega z^\star\|^2$): the small-$\|\Omega\|/\|h\|$ bound
      on the angle, $\angle(z^\star, h) \le \arcsin(\|\Omega\|_2/\|h\|)$;
    * the linearisation on $T_{z^\star}S^{d-1}$ is $-\lambda^\star I$ plus a skew map, so
      every eigenvalue has real part $-\lambda^\star$: $z^\star$ is stable with rate
      [`rate`][syncattn.lohe.LockedState] $= \lambda^\star = z^\star\cdot h$;
    * a root exists iff $\lim_{\lambda\to0^+}\|(\lambda I - \Omega)^{-1}h\| > 1$: always
      when $\|\Omega\|_2 < \|h\|$ (then $\lambda^\star \ge \sqrt{\|h\|^2 - \|\Omega\|_2^2}$), and
      for a generic $h$ in odd $d$ ($\Omega$ has a kernel); for $d = 2$ it is Adler's
      condition $|\omega| < \|h\|$ ([`adler_locking`][syncattn.lohe.adler_locking]).

    $\lambda^\star$ is found by 120 bisections of $\sum_k |u_k^* h|^2/(\lambda^2 + \omega_k^2) = 1$
    over $[\sqrt{\max(0, \|h\|^2 - \|\Omega\|_2^2)}, \|h\|]$ ($\pm i\omega_k$, $u_k$: the
    eigenpairs of $\Omega$). Proved in `proofs/proof_frequency_locking.py`.

    Args:
        Omega: skew-symmetric frequency matrix, shape `(d, d)`.
        h: drive, shape `(*batch, d)`.

    Returns:
        [`LockedState`][syncattn.lohe.LockedState]: `z` $= z^\star$ (0 where not locked: no
        fixed point off the degenerate boundary), `rate` $= \lambda^\star$ (0 where not
        locked), `locked`. $h = 0$ is not locked.

    Raises:
        ValueError: `Omega` not `(d, d)` or not skew-symmetric; NaN/inf.

    Example:
        >>> locked_state(jnp.zeros((3, 3)), jnp.array([0.0, 0.0, 2.0])).z  # h / |h|
    """
    h = _vec(h)
    Omega = _check_skew(Omega, h.shape[-1], h.dtype)
    return _locked(Omega, h)

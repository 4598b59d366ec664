r"""The Kuramoto(-Sakaguchi) vector field and its coherence energy."""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp

from .._numerics import sincos
from .._types import (
    Array,
    ArrayLike,
    Float,
)
from ._coupling import (
    _check_coupling,
    _check_omega,
    _check_theta,
    _kind,
    _listen,
    _shift,
)
from ._daido import _as_harmonics, _harmonic_drift, _lag_parts


def vector_field(
    theta: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    *,
    frustration: float | Float[Array, ""] = 0.0,
    harmonics=None,
) -> Float[Array, "*batch n"]:
    r"""Kuramoto(-Sakaguchi) vector field on $\mathbb{T}^N$.

    $$\dot\theta_i = \omega_i + \sum_{j=1}^N K_{ij}\,\sin(\theta_j - \theta_i - \alpha)$$

    computed as $\omega_i + \cos(\theta_i+\alpha)\,(K\sin\theta)_i - \sin(\theta_i+\alpha)\,(K\cos\theta)_i$,
    so each coupling form costs one (mean-field, dense or sparse) product.
    For scalar $K$ ($K_{ij} = K/N$) this is
    $\omega_i + K R \sin(\psi - \theta_i - \alpha)$ with $R e^{i\psi}$ the order parameter.

    Symbols: $\theta$ = `theta`, $\omega$ = `omega`, $K$ = `coupling`,
    $\alpha$ = `frustration`.

    With `harmonics` (Kuramoto-Daido) the sine is replaced by the coupling function
    $H(\varphi) = \sum_{m=1}^M a_m\sin(m\varphi - \alpha_m)$:
    $\dot\theta_i = \omega_i + \sum_j K_{ij}H(\theta_j - \theta_i)$, one product per
    harmonic ([`syncattn.kuramoto.daido_coupling`][]; $M = 1$, $a_1 = 1$,
    $\alpha_1 = \alpha$ gives this field bit for bit).

    Args:
        theta: phases, shape `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta` (a scalar is allowed).
        coupling: scalar $K$, dense `(N, N)` / `(*batch, N, N)` matrix (row $i$ = whom
            oscillator $i$ listens to), [`syncattn.kuramoto.EdgeList`][] or `BCOO`.
        frustration: phase lag $\alpha$ (Sakaguchi); 0 gives the Kuramoto model.
        harmonics: `None` (the sine), or a [`syncattn.kuramoto.HarmonicCoupling`][] /
            complex coefficients $c_m = a_m e^{-i\alpha_m}$ `(M,)`; then `frustration`
            must be 0 (the lags are the $\alpha_m$).

    Returns:
        $\dot\theta$, same shape and dtype as `theta`.

    Raises:
        ValueError: on shape mismatches, an empty `theta` or non-finite inputs.

    Example:
        >>> vector_field(jnp.array([0.0, jnp.pi / 2]), 0.0, 2.0)  # (K/2)(sin(pi/2), sin(-pi/2))
        Array([ 1., -1.], dtype=float32)
    """
    theta = _check_theta(theta)
    n, batch = theta.shape[-1], theta.shape[:-1]
    omega = _check_omega(omega, theta, "theta")
    K = _check_coupling(coupling, n, batch)
    if harmonics is not None:
        h = _daido_harmonics(harmonics, frustration)
        return _daido_field(
            theta, omega.astype(theta.dtype), K, *_lag_parts(h, theta.dtype)
        )
    return _field(
        theta, omega.astype(theta.dtype), K, jnp.asarray(frustration, theta.dtype)
    )


def _daido_harmonics(harmonics, frustration):
    """The harmonics as a HarmonicCoupling; a non-zero Sakaguchi lag beside them is refused."""
    from .._checks import is_concrete

    if not is_concrete(frustration) or jnp.any(jnp.asarray(frustration) != 0):
        raise ValueError(
            "frustration must be 0 when harmonics are given: put the phase lags in the "
            "harmonics (HarmonicCoupling.from_amplitudes(a, alpha))."
        )
    return _as_harmonics(harmonics)


@eqx.filter_jit
def _daido_field(theta, omega, K, cal, sal):
    drift = _harmonic_drift(theta, K, _kind(K), cal, sal).astype(theta.dtype)
    return jnp.broadcast_to(omega, theta.shape) + jnp.broadcast_to(drift, theta.shape)


@eqx.filter_jit
def _field(theta, omega, K, alpha):
    s, c = sincos(theta)
    Kc, Ks = _listen(K, _kind(K), c, s)
    ca, sa = _shift(c, s, alpha)
    drift = (ca * Ks - sa * Kc).astype(theta.dtype)
    return jnp.broadcast_to(omega, theta.shape) + jnp.broadcast_to(drift, theta.shape)


def coherence_energy(
    theta: Float[ArrayLike, "*batch n"], coupling
) -> Float[Array, "*batch"]:
    r"""Coherence (XY) energy whose gradient flow is the $\omega = 0$ Kuramoto flow for symmetric $K$.

    $$E(\theta) = -\tfrac12 \sum_{i,j} K_{ij} \cos(\theta_j - \theta_i),
      \qquad -\partial_{\theta_i} E = \sum_j K_{ij}\sin(\theta_j-\theta_i)\ \ (K = K^\top)$$

    For scalar $K$ ($K_{ij} = K/N$): $E = -\tfrac{K N}{2} R^2$ with $R$ the order parameter modulus.
    Proved in `proofs/proof_coherence_gradient.py`.

    Args:
        theta: phases `(*batch, N)`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].

    Returns:
        $E$, shape `(*batch,)`.

    Example:
        >>> coherence_energy(jnp.zeros(4), 1.0)  # -(K N / 2) R^2 with R = 1
        Array(-2., dtype=float32)
    """
    theta = _check_theta(theta)
    K = _check_coupling(coupling, theta.shape[-1], theta.shape[:-1])
    return _energy(theta, K)


@eqx.filter_jit
def _energy(theta, K):
    s, c = sincos(theta)
    Kc, Ks = _listen(K, _kind(K), c, s)
    # sum_ij K_ij cos(theta_j - theta_i) = sum_i c_i (K c)_i + s_i (K s)_i
    return -0.5 * jnp.sum(c * Kc + s * Ks, axis=-1).astype(theta.dtype)

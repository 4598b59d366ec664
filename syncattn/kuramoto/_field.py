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


def vector_field(
    theta: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    *,
    frustration: float | Float[Array, ""] = 0.0,
) -> Float[Array, "*batch n"]:
    r"""Kuramoto(-Sakaguchi) vector field on $\mathbb{T}^N$.

    $$\dot\theta_i = \omega_i + \sum_{j=1}^N K_{ij}\,\sin(\theta_j - \theta_i - \alpha)$$

    computed as $\omega_i + \cos(\theta_i+\alpha)\,(K\sin\theta)_i - \sin(\theta_i+\alpha)\,(K\cos\theta)_i$,
    so each coupling form costs one (mean-field, dense or sparse) product.
    For scalar $K$ ($K_{ij} = K/N$) this is
    $\omega_i + K R \sin(\psi - \theta_i - \alpha)$ with $R e^{i\psi}$ the order parameter.

    Symbols: $\theta$ = `theta`, $\omega$ = `omega`, $K$ = `coupling`,
    $\alpha$ = `frustration`.

    Args:
        theta: phases, shape `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta` (a scalar is allowed).
        coupling: scalar $K$, dense `(N, N)` / `(*batch, N, N)` matrix (row $i$ = whom
            oscillator $i$ listens to), [`syncattn.kuramoto.EdgeList`][] or `BCOO`.
        frustration: phase lag $\alpha$ (Sakaguchi); 0 gives the Kuramoto model.

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
    return _field(
        theta, omega.astype(theta.dtype), K, jnp.asarray(frustration, theta.dtype)
    )


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

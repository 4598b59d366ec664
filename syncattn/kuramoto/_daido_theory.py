r"""Theory of the Kuramoto-Daido model: the in-phase state and two-cluster states.

For identical oscillators, $\dot\theta_i = \omega + \sum_j K_{ij}H(\theta_j - \theta_i)$ with
$H$ a [`syncattn.kuramoto.HarmonicCoupling`][]. Proved in `proofs/proof_daido.py`
(statement 21, parts (e)-(j)); theory: docs/theory/daido.md.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import as_float, check_finite
from .._types import Array, ArrayLike, Complex, Float
from ._coupling import _kind
from ._daido import _as_harmonics, _series_core


def in_phase_exponents(
    harmonics, coupling, n: int | None = None
) -> Complex[Array, " n"]:
    r"""Linear exponents of the in-phase state $\theta_i = \Omega t + \psi$ of identical oscillators.

    $$J = \frac{\partial\dot\theta}{\partial\theta}\Big|_{\theta_i \equiv \psi} = -H'(0)\,L,\qquad
      L = D - K,\ D = \operatorname{diag}\Bigl(\sum_j K_{ij}\Bigr),\qquad
      H'(0) = \sum_m m\,a_m\cos\alpha_m = \sum_m m\operatorname{Re}c_m$$

    for $\dot\theta_i = \omega + \sum_j K_{ij}H(\theta_j - \theta_i)$: the exponents are
    $-H'(0)\lambda_k(L)$. The in-phase set is invariant iff $H(0)\sum_jK_{ij}$ does not
    depend on $i$ (e.g. $H(0) = -\sum_m a_m\sin\alpha_m = 0$, or equal row sums); it then
    rotates at $\Omega = \omega + H(0)\sum_jK_{ij}$. $L\mathbf 1 = 0$ gives the neutral
    exponent 0 (a common shift). For a symmetric, non-negative, connected $K$ the other
    $\lambda_k(L)$ are $> 0$: stable iff $H'(0) > 0$. Mean field ($K_{ij} = K/N$): $0$ and
    $-K H'(0)$ ($N - 1$ times). Proved in `proofs/proof_daido.py` (d)-(f).

    Args:
        harmonics: a [`syncattn.kuramoto.HarmonicCoupling`][] or complex $c_m$.
        coupling: scalar $K$ (then `n` is required), a dense `(N, N)` matrix, an
            [`syncattn.kuramoto.EdgeList`][] or a `BCOO` matrix (densified: for small $N$).
        n: $N$, for scalar coupling.

    Returns:
        The $N$ exponents (complex: $L$ need not be symmetric), sorted by decreasing real part.

    Example:
        >>> h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, 0.5]))  # H'(0) = 2
        >>> [round(float(x), 4) for x in in_phase_exponents(h, 1.0, n=3).real]  # 0, -K H'(0) twice
        [0.0, -2.0, -2.0]
    """
    h = _as_harmonics(harmonics)
    kind = _kind(coupling)
    if kind == "scalar":
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive int N for a scalar coupling; got {n!r}.")
        K = as_float(coupling, "coupling")
        check_finite(K, "coupling")
        K = jnp.full((int(n), int(n)), K / n, K.dtype)
    elif kind == "edges":
        K = coupling.todense()
    elif kind == "bcoo":
        check_finite(coupling.data, "coupling")
        K = coupling.todense()
    else:
        K = as_float(coupling, "coupling")
        check_finite(K, "coupling")
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"coupling must be a square (N, N) matrix; got shape {K.shape}.")
    dtype = jnp.result_type(K.dtype, h.real.dtype)
    return _in_phase_core(K.astype(dtype), h.real.astype(dtype), h.imag.astype(dtype))


@jax.jit
def _in_phase_core(K, re, im):
    L = jnp.diag(jnp.sum(K, axis=-1)) - K
    ev = -_series_core(re, im, jnp.zeros((), K.dtype), True) * jnp.linalg.eigvals(L)
    return ev[jnp.argsort(-ev.real, stable=True)]


def _check_cluster(fraction, gap, dtype):
    p = as_float(fraction, "fraction")
    d = as_float(gap, "gap")
    check_finite(p, "fraction")
    check_finite(d, "gap")
    if not isinstance(p, jax.core.Tracer) and np.any((np.asarray(p) < 0) | (np.asarray(p) > 1)):
        raise ValueError(f"fraction must lie in [0, 1] (the share p of cluster A); got {p}.")
    dtype = jnp.result_type(p, d, dtype)
    return p.astype(dtype), d.astype(dtype)


def two_cluster_drift(
    harmonics,
    fraction: Float[ArrayLike, "*shape"] | float,
    gap: Float[ArrayLike, "*shape"] | float,
    coupling: Float[ArrayLike, ""] | float = 1.0,
) -> Float[Array, "*shape"]:
    r"""Drift $\dot\Delta$ of the gap between two phase clusters (all-to-all, identical oscillators).

    $$\dot\Delta = K\bigl[(1 - 2p)H(0) + pH(-\Delta) - (1 - p)H(\Delta)\bigr]$$

    for cluster A (a share $p$ of the $N$ oscillators) at $\varphi_A$ and cluster B at
    $\varphi_B = \varphi_A + \Delta$, under $\dot\theta_i = \omega + \frac KN\sum_j
    H(\theta_j - \theta_i)$: $\dot\varphi_A = \omega + K[pH(0) + (1-p)H(\Delta)]$,
    $\dot\varphi_B = \omega + K[(1-p)H(0) + pH(-\Delta)]$. A two-cluster state (rigidly
    rotating) exists iff $\dot\Delta = 0$, i.e.
    $p\,[H(\Delta) + H(-\Delta) - 2H(0)] = H(\Delta) - H(0)$. The balanced anti-phase
    state ($p = \tfrac12$, $\Delta = \pi$) exists for every $H$.

    Args:
        harmonics: a [`syncattn.kuramoto.HarmonicCoupling`][] or complex $c_m$.
        fraction: $p \in [0, 1]$.
        gap: $\Delta$.
        coupling: scalar $K$.

    Example:
        >>> h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, 0.3]), jnp.array([0.4, 0.2]))
        >>> abs(float(two_cluster_drift(h, 0.5, jnp.pi))) < 1e-6
        True
    """
    h = _as_harmonics(harmonics)
    K = as_float(coupling, "coupling")
    check_finite(K, "coupling")
    p, d = _check_cluster(fraction, gap, jnp.result_type(h.real, K))
    p, d = jnp.broadcast_arrays(p, d)
    return _drift_core(h.real.astype(p.dtype), h.imag.astype(p.dtype), K.astype(p.dtype), p, d)


@jax.jit
def _drift_core(re, im, K, p, d):
    H = lambda x: _series_core(re, im, x, False)  # noqa: E731
    return K * ((1 - 2 * p) * H(jnp.zeros_like(d)) + p * H(-d) - (1 - p) * H(d))


def two_cluster_exponents(
    harmonics,
    fraction: Float[ArrayLike, "*shape"] | float,
    gap: Float[ArrayLike, "*shape"] | float,
    coupling: Float[ArrayLike, ""] | float = 1.0,
) -> Float[Array, "*shape 3"]:
    r"""Linear exponents of a two-cluster state (all-to-all, identical oscillators).

    $$\lambda_A = -K\bigl[pH'(0) + (1-p)H'(\Delta)\bigr],\quad
      \lambda_B = -K\bigl[(1-p)H'(0) + pH'(-\Delta)\bigr],\quad
      \lambda_C = -K\bigl[pH'(-\Delta) + (1-p)H'(\Delta)\bigr]$$

    $\lambda_A$: perturbations inside cluster A summing to 0 (multiplicity $pN - 1$);
    $\lambda_B$: inside B ($(1-p)N - 1$); $\lambda_C$: the gap $\Delta$ (1); plus the
    neutral 0 of a common shift. The state ($\dot\Delta = 0$,
    [`syncattn.kuramoto.two_cluster_drift`][]) is linearly stable iff the exponents
    whose modes exist are negative. Biharmonic
    $H = a_1\sin(\varphi - \alpha_1) + a_2\sin(2\varphi - \alpha_2)$, balanced anti-phase
    ($p = \frac12$, $\Delta = \pi$): $\lambda_A = \lambda_B = -2Ka_2\cos\alpha_2$,
    $\lambda_C = -K(2a_2\cos\alpha_2 - a_1\cos\alpha_1)$. Proved in `proofs/proof_daido.py`.

    Args:
        harmonics: a [`syncattn.kuramoto.HarmonicCoupling`][] or complex $c_m$.
        fraction: $p \in [0, 1]$.
        gap: $\Delta$.
        coupling: scalar $K$.

    Returns:
        `(..., 3)`: $(\lambda_A, \lambda_B, \lambda_C)$.

    Example:
        >>> h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, 1.0]))
        >>> two_cluster_exponents(h, 0.5, jnp.pi)  # -2 K a_2, -2 K a_2, -K(2 a_2 - a_1)
        Array([-2., -2., -1.], dtype=float32)
    """
    h = _as_harmonics(harmonics)
    K = as_float(coupling, "coupling")
    check_finite(K, "coupling")
    p, d = _check_cluster(fraction, gap, jnp.result_type(h.real, K))
    p, d = jnp.broadcast_arrays(p, d)
    return _exponents_core(h.real.astype(p.dtype), h.imag.astype(p.dtype), K.astype(p.dtype), p, d)


@jax.jit
def _exponents_core(re, im, K, p, d):
    dH = lambda x: _series_core(re, im, x, True)  # noqa: E731
    D0, Dp, Dm = dH(jnp.zeros_like(d)), dH(d), dH(-d)
    lam_a = -K * (p * D0 + (1 - p) * Dp)
    lam_b = -K * ((1 - p) * D0 + p * Dm)
    lam_c = -K * (p * Dm + (1 - p) * Dp)
    return jnp.stack([lam_a, lam_b, lam_c], axis=-1)

r"""Mean-field theory of the Kuramoto model: critical coupling, Lorentzian order parameter, Ott-Antonsen."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_finite,
    check_scalar_range,
)
from .._numerics import default_floating_dtype
from .._types import (
    Array,
    Float,
    PRNGKeyArray,
)


def critical_coupling(g0: float | Float[Array, "*shape"]) -> Float[Array, "*shape"]:
    r"""Kuramoto's critical coupling for a symmetric unimodal frequency density $g$.

    $$K_c = \frac{2}{\pi g(0)}$$

    Lorentzian $g(\omega) = \gamma / (\pi(\omega^2 + \gamma^2))$ gives $K_c = 2\gamma$;
    uniform on $[-\gamma, \gamma]$ gives $4\gamma/\pi$; Gaussian $\mathcal N(0, \sigma^2)$
    gives $2\sqrt{2\pi}\,\sigma/\pi$.

    Args:
        g0: the density at the centre, $g(0) > 0$.

    Example:
        >>> critical_coupling(1 / (jnp.pi * 0.5))  # Lorentzian, gamma = 0.5
        Array(1., dtype=float32, weak_type=True)
    """
    g0 = check_scalar_range(as_float(g0, "g0"), "g0", low=0.0, low_inclusive=False)
    return 2.0 / (jnp.pi * g0)


def lorentzian_order_parameter(K, gamma):
    r"""Stationary order parameter of the infinite-$N$ Kuramoto model with Lorentzian frequencies.

    $$r_\infty(K) = \begin{cases}\sqrt{1 - 2\gamma/K} & K > K_c = 2\gamma\\ 0 & K \le 2\gamma\end{cases}$$

    ($\gamma$ = half width at half maximum of $g$). Gradients are finite everywhere
    (zero below threshold; the square root is guarded at $K = K_c$).

    Args:
        K: coupling $K \ge 0$ (array allowed).
        gamma: Lorentzian half width $\gamma \ge 0$.

    Example:
        >>> lorentzian_order_parameter(2.0, 0.5)
        Array(0.70710677, dtype=float32, weak_type=True)
    """
    K = check_scalar_range(as_float(K, "K"), "K", low=0.0)
    gamma = check_scalar_range(as_float(gamma, "gamma"), "gamma", low=0.0)
    arg = 1.0 - 2.0 * gamma / jnp.where(K > 0, K, 1.0)
    pos = (K > 2.0 * gamma) & (arg > 0)
    # double-where: sqrt only sees positive arguments, so grad is finite at K = K_c
    return jnp.where(pos, jnp.sqrt(jnp.where(pos, arg, 1.0)), 0.0)


def ott_antonsen_rhs(r, K, gamma):
    r"""Ott-Antonsen reduced dynamics of the order parameter (Lorentzian frequencies).

    $$\dot r = \left(\frac K2 - \gamma\right) r - \frac K2 r^3$$

    Example:
        >>> ott_antonsen_rhs(0.5, 2.0, 0.5)  # 0.5*0.5 - 1*0.125
        Array(0.125, dtype=float32, weak_type=True)
    """
    r, K, gamma = as_float(r, "r"), as_float(K, "K"), as_float(gamma, "gamma")
    for x, name in ((r, "r"), (K, "K"), (gamma, "gamma")):
        check_finite(x, name)
    return (0.5 * K - gamma) * r - 0.5 * K * r**3


def ott_antonsen(r0, K, gamma, t):
    r"""Closed-form solution of the Ott-Antonsen equation [`syncattn.kuramoto.ott_antonsen_rhs`][].

    With $a = K/2 - \gamma$ and $b = K/2$, $u = r^{-2}$ solves the linear equation
    $\dot u = -2 a u + 2 b$, hence

    $$r(t) = \frac{r_0}{\sqrt{e^{-2at} + r_0^2\, b\, \frac{1 - e^{-2at}}{a}}}$$

    with $\frac{1 - e^{-2at}}{a} \to 2t$ at $a = 0$ (evaluated with `expm1`, so the
    formula is smooth through $K = 2\gamma$). $r_0 = 0$ stays 0.

    Args:
        r0: initial order parameter, $0 \le r_0 \le 1$.
        K: coupling $K \ge 0$.
        gamma: Lorentzian half width $\gamma \ge 0$.
        t: times $t \ge 0$ (array allowed; broadcasts with the others).

    Example:
        >>> r = ott_antonsen(0.01, 2.0, 0.5, jnp.array([0.0, 50.0]))  # -> sqrt(1 - 2 gamma / K)
        >>> [round(float(x), 3) for x in r]
        [0.01, 0.707]
    """
    r0 = check_scalar_range(as_float(r0, "r0"), "r0", low=0.0, high=1.0)
    K = check_scalar_range(as_float(K, "K"), "K", low=0.0)
    gamma = check_scalar_range(as_float(gamma, "gamma"), "gamma", low=0.0)
    t = check_scalar_range(as_float(t, "t"), "t", low=0.0)
    return _ott_antonsen(r0, K, gamma, t)


@jax.jit
def _ott_antonsen(r0, K, gamma, t):
    a = 0.5 * K - gamma
    b = 0.5 * K
    small = jnp.abs(a * t) < 1e-8
    a_safe = jnp.where(small, 1.0, a)
    # (1 - e^{-2at}) / a, with its a -> 0 limit 2t (first-order correction -2 a t^2)
    frac = jnp.where(
        small, 2.0 * t - 2.0 * a * t**2, -jnp.expm1(-2.0 * a_safe * t) / a_safe
    )
    denom = jnp.exp(-2.0 * a * t) + r0**2 * b * frac
    return r0 / jnp.sqrt(denom)


def lorentzian_frequencies(
    n: int, gamma: float = 0.5, center: float = 0.0, *, dtype=None
) -> Float[Array, " n"]:
    r"""Deterministic Lorentzian frequencies at the quantiles $(i - \tfrac12)/n$.

    $$\omega_i = c + \gamma \tan\!\left(\pi\left(\frac{i - 1/2}{n} - \frac12\right)\right),\quad i = 1..n$$

    A low-noise sample of $g(\omega) = \gamma/(\pi((\omega-c)^2+\gamma^2))$ (no sampling error
    in the empirical distribution function beyond $1/(2n)$).

    Example:
        >>> lorentzian_frequencies(2, 1.0)
        Array([-1.,  1.], dtype=float32)
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int; got {n!r}.")
    gamma = check_scalar_range(gamma, "gamma", low=0.0)

    dtype = dtype or default_floating_dtype()
    q = (jnp.arange(1, n + 1, dtype=dtype) - 0.5) / n
    return (center + gamma * jnp.tan(jnp.pi * (q - 0.5))).astype(dtype)


def sample_lorentzian(
    key: PRNGKeyArray, shape, gamma: float = 0.5, center: float = 0.0, *, dtype=None
):
    r"""i.i.d. Lorentzian (Cauchy) frequencies $\omega = c + \gamma\,\mathrm{Cauchy}(0, 1)$.

    Example:
        >>> sample_lorentzian(jax.random.key(0), (3,)).shape
        (3,)
    """
    gamma = check_scalar_range(gamma, "gamma", low=0.0)

    dtype = dtype or default_floating_dtype()
    return center + gamma * jax.random.cauchy(
        key, tuple(np.atleast_1d(shape)) if shape != () else (), dtype=dtype
    )


def self_consistent_order_parameter(
    K: float, density: Callable[[float], float], *, breaks: Sequence[float] = ()
) -> float:
    r"""Stationary order parameter of the infinite-$N$ Kuramoto model, any frequency density.

    $$1 = K \int_{-\pi/2}^{\pi/2} \cos^2\theta\; g(K r \sin\theta)\, d\theta,\qquad
      r \in (0, 1]$$

    (Kuramoto's self-consistency for the partially locked state; $g$ = `density`,
    symmetric about 0 and unimodal; $K$ = `K`). The right side at $r \to 0$ is $K/K_c$
    with $K_c = 2/(\pi g(0))$ ([`syncattn.kuramoto.critical_coupling`][]), so a nonzero
    root exists only for $K > K_c$; for $K \le K_c$ the result is 0 (the incoherent
    state). Solved with `scipy.optimize.brentq` (tolerance 1e-12), the integral by
    `scipy.integrate.quad` (relative tolerance 1e-10). For the Lorentzian it equals
    [`syncattn.kuramoto.lorentzian_order_parameter`][]; for a uniform density it jumps
    to $\pi/4$ just above $K_c$.

    Args:
        K: coupling $K \ge 0$.
        density: $g$, a Python callable `float -> float` (called thousands of times:
            plain `math` is much faster than a frozen `scipy.stats` pdf).
        breaks: frequencies where $g$ is discontinuous (e.g. the ends of a uniform
            density), passed to `quad` as break points.

    Returns:
        $r(K) \in [0, 1]$, a float.

    Raises:
        ValueError: `K` negative or not finite; `density(0)` not finite and positive.

    Example:
        >>> g = lambda w: 0.5 / (math.pi * (w * w + 0.25))  # Lorentzian, gamma = 0.5
        >>> round(self_consistent_order_parameter(2.0, g), 6)  # sqrt(1 - 2 gamma / K)
        0.707107
    """
    from scipy import integrate, optimize

    K = check_scalar_range(K, "K", low=0.0)
    K = float(K)
    g0 = float(density(0.0))
    if not (math.isfinite(g0) and g0 > 0):
        raise ValueError(f"density(0) must be finite and > 0 (a unimodal g); got {g0}.")
    breaks = tuple(float(b) for b in breaks)

    def excess(r):  # K * integral - 1, increasing then decreasing in r
        a = K * r
        pts = [math.asin(b / a) for b in breaks if 0 < abs(b) < a]
        val, _ = integrate.quad(
            lambda th: math.cos(th) ** 2 * density(a * math.sin(th)),
            -math.pi / 2,
            math.pi / 2,
            points=pts or None,
            limit=200,
            epsabs=1e-12,
            epsrel=1e-10,
        )
        return K * val - 1.0

    if K <= 0 or excess(1e-12) <= 0:
        return 0.0
    if excess(1.0) >= 0:  # pragma: no cover - impossible for a probability density
        return 1.0
    return float(optimize.brentq(excess, 1e-12, 1.0, xtol=1e-13, rtol=1e-12))


# ------------------------------------------------------------------ noise
def noisy_critical_coupling(
    noise: float | Float[Array, "*shape"], gamma: float | Float[Array, "*shape"] = 0.0
) -> Float[Array, "*shape"]:
    r"""Onset of synchrony of the noisy Kuramoto model, $d\theta_i = (\omega_i + \text{coupling})dt + \sigma dW_i$.

    $$K_c = 2\gamma + \sigma^2$$

    for Lorentzian frequencies of half width $\gamma$ ($\gamma = 0$: identical
    oscillators, $K_c = \sigma^2$). The incoherent state's first Fourier mode grows at
    the rate $K/2 - \gamma - \sigma^2/2$ (the noise adds the diffusion rate
    $D = \sigma^2/2$ to the Lorentzian's damping $\gamma$; Strogatz and Mirollo 1991).
    $\sigma = 0$ gives [`syncattn.kuramoto.critical_coupling`][] $= 2\gamma$. Proved in
    `proofs/proof_noisy_kuramoto.py`.

    Args:
        noise: $\sigma \ge 0$.
        gamma: Lorentzian half width $\gamma \ge 0$.

    Raises:
        ValueError: negative or NaN `noise` or `gamma`.

    Example:
        >>> noisy_critical_coupling(1.0, 0.5)  # 2
    """
    sigma = check_scalar_range(as_float(noise, "noise"), "noise", low=0.0)
    gamma = check_scalar_range(as_float(gamma, "gamma"), "gamma", low=0.0)
    return 2.0 * gamma + sigma**2


@jax.jit
def _noisy_r(K, sigma):
    from jax.scipy.special import i0e, i1e

    s2 = sigma**2
    above = K > s2  # also sigma = 0 < K
    c = 2.0 * K / jnp.where(s2 > 0, s2, 1.0)

    def excess(r):  # A_2(2Kr/sigma^2) - r: > 0 below the root, < 0 above it
        k = c * r
        return i1e(k) / i0e(k) - r

    def bisect(_, bounds):
        lo, hi = bounds
        mid = 0.5 * (lo + hi)
        pos = excess(mid) > 0
        return jnp.where(pos, mid, lo), jnp.where(pos, hi, mid)

    lo, hi = jax.lax.fori_loop(0, 80, bisect, (jnp.zeros_like(c), jnp.ones_like(c)))
    r = jnp.where(s2 > 0, 0.5 * (lo + hi), 1.0)
    return jnp.where(above, r, 0.0)


def noisy_order_parameter(
    K: float | Float[Array, "*shape"], noise: float | Float[Array, "*shape"]
) -> Float[Array, "*shape"]:
    r"""Stationary order parameter of identical Kuramoto oscillators with noise ($N \to \infty$).

    $$r = \frac{I_1(2Kr/\sigma^2)}{I_0(2Kr/\sigma^2)} = A_2\Bigl(\frac{2Kr}{\sigma^2}\Bigr)$$

    for $d\theta_i = \frac KN\sum_j\sin(\theta_j - \theta_i)\,dt + \sigma\,dW_i$: the
    stationary phase density is the von Mises law $\propto e^{\kappa\cos(\theta - \psi)}$
    with $\kappa = 2Kr/\sigma^2$ (its Fokker-Planck flux vanishes), whose mean resultant
    is $I_1/I_0$ ([`syncattn.lohe.mean_resultant`][] with $d = 2$). Since $A_2$ is
    increasing and concave with $A_2'(0) = 1/2$, a root $r > 0$ exists iff
    $K > K_c = \sigma^2$ ([`syncattn.kuramoto.noisy_critical_coupling`][]); from
    $A_2(\kappa) = \kappa/2 - \kappa^3/16 + O(\kappa^5)$, near onset
    $r^2 = 2(K/\sigma^2 - 1)(\sigma^2/K)^3 + O((K - \sigma^2)^2)$, a square-root
    (supercritical) branch. Solved by 80 bisections of
    $A_2(2Kr/\sigma^2) - r$ on $(0, 1]$ with the scaled Bessel functions
    `jax.scipy.special.i0e`, `i1e` (no overflow for large $K/\sigma^2$). Not
    differentiable (bisection). Proved in `proofs/proof_noisy_kuramoto.py`.

    Args:
        K: coupling $K \ge 0$.
        noise: $\sigma \ge 0$ (broadcasts with `K`).

    Returns:
        $r \in [0, 1)$: 0 for $K \le \sigma^2$; 1 for $\sigma = 0 < K$.

    Raises:
        ValueError: negative or NaN `K` or `noise`.

    Example:
        >>> noisy_order_parameter(2.0, 1.0)  # about 0.7
    """
    K = check_scalar_range(as_float(K, "K"), "K", low=0.0)
    sigma = check_scalar_range(as_float(noise, "noise"), "noise", low=0.0)
    dtype = jnp.result_type(K, sigma)
    K, sigma = jnp.broadcast_arrays(K.astype(dtype), sigma.astype(dtype))
    return _noisy_r(K, sigma)

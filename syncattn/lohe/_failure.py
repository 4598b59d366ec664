r"""Failure odds of fixed-query attention: antipodal starts, finite-time failure, degenerate drives."""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_count,
    check_dim,
    check_scalar_range,
)
from .._numerics import default_floating_dtype, safe_norm
from .._types import (
    Array,
    Float,
    PRNGKeyArray,
    ScalarLike,
)
from ..sphere import cap_probability, sample_uniform


def antipodal_probability(alpha: ScalarLike, d: int) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start lies within angle $\alpha$ of the antipode.

    $$P\bigl(\angle(z, -h) < \alpha\bigr) = \tfrac12 I_{\sin^2\alpha}\bigl(\tfrac{d-1}2,
      \tfrac12\bigr)\ (\alpha \le \tfrac\pi2), \qquad z \sim \mathrm{Unif}(S^{d-1})$$

    $\alpha$ = `alpha`, $d$ = `d`; equals `sphere.cap_probability(alpha, d)` (all
    $\alpha \in [0, \pi]$). These starts are the slowest to converge to $h/\|h\|$.

    Args:
        alpha: angle(s) in $[0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, shape of `alpha`.

    Raises:
        ValueError: $d < 2$, `alpha` out of range. TypeError: non-int `d`.

    Example:
        >>> antipodal_probability(jnp.pi / 2, 3)  # 0.5
    """
    d = check_dim(d)
    return cap_probability(alpha, d)


def finite_time_failure_probability(
    norm_h: ScalarLike, T: ScalarLike, delta: ScalarLike, d: int
) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start is still farther than $\delta$ from $h$ at $T$.

    $$P(\varphi(T) > \delta) = P(\varphi_0 > \varphi_c) = P\bigl(\angle(z_0, -h) <
      \pi - \varphi_c\bigr), \qquad \tan\frac{\varphi_c}2 = \tan\frac\delta2\,
      e^{\|h\|T}$$

    $\|h\|$ = `norm_h`, $T$ = `T`, $\delta$ = `delta`, $d$ = `d`; this is
    [`syncattn.lohe.antipodal_probability`][] at $\pi - \varphi_c = 2\,\mathrm{atan2}(\cos\frac
    \delta2 e^{-\|h\|T}, \sin\frac\delta2)$, a form that never overflows
    ($\varphi_c$ saturates at $\pi$).

    Args:
        norm_h: $\|h\| \ge 0$.
        T: horizon $\ge 0$.
        delta: tolerance angle in $(0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments, $d < 2$.

    Example:
        >>> finite_time_failure_probability(0.0, 1.0, jnp.pi / 2, 3)  # 0.5
    """
    d = check_dim(d)
    a, T, delta = (
        as_float(v, k) for v, k in ((norm_h, "norm_h"), (T, "T"), (delta, "delta"))
    )
    a = check_scalar_range(a, "norm_h", low=0.0)
    T = check_scalar_range(T, "T", low=0.0)
    delta = check_scalar_range(
        delta, "delta", low=0.0, high=math.pi, low_inclusive=False
    )
    alpha = 2 * jnp.arctan2(jnp.cos(delta / 2) * jnp.exp(-a * T), jnp.sin(delta / 2))
    return cap_probability(alpha, d)


def _threshold(a, delta):
    L = -jnp.log(jnp.tan(delta / 2))  # log cot(delta/2)
    pos = a > 0
    a_safe = jnp.where(pos, a, 1.0)
    return jnp.where(L <= 0, 0.0, jnp.where(pos, L / a_safe, jnp.inf))


def finite_time_threshold(
    norm_h: ScalarLike, delta: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Critical horizon of the finite-time failure odds: $\|h\|\,T_c = \log\cot(\delta/2)$.

    $$T_c = \frac{\log\cot(\delta/2)}{\|h\|}: \quad
      \begin{cases}
      T > T_c:& P(\varphi(T) > \delta) \le e^{-d\tanh^2(\|h\|T - \log\cot(\delta/2))/2} \to 0,\\
      T = T_c:& P(\varphi(T) > \delta) = \tfrac12 \text{ for every } d,\\
      T < T_c:& P(\varphi(T) \le \delta) \le e^{-d\tanh^2(\|h\|T - \log\cot(\delta/2))/2} \to 0,
      \end{cases}$$

    for a uniform start on $S^{d-1}$ under $\dot z = (I - zz^\top)h$. From the exact
    angle law ([`syncattn.lohe.finite_time_failure_probability`][]: $\varphi(T) > \delta$ iff
    $\varphi_0 > \varphi_c$, $\tan\frac{\varphi_c}2 = \tan\frac\delta2 e^{\|h\|T}$)
    and the concentration of $\varphi_0$ at $\pi/2$: $\varphi_c$ crosses $\pi/2$
    exactly at $T_c$, and $\cos\varphi_c = -\tanh(\|h\|T - \log\cot\frac\delta2)$.
    So more oscillator dimensions help only when the horizon exceeds $T_c$; below
    it they make failure *certain*. Proof: `proofs/proof_finite_time_threshold.py`.

    $\|h\|$ = `norm_h`, $\delta$ = `delta`. For $\delta \ge \pi/2$ the threshold is
    $\le 0$ and $T_c = 0$ is returned (every horizon is above it); for $\|h\| = 0$ and
    $\delta < \pi/2$ no horizon is, and $T_c = +\infty$ is returned.

    Args:
        norm_h: $\|h\| \ge 0$.
        delta: tolerance angle in $(0, \pi)$.

    Returns:
        $T_c \in [0, \infty]$, broadcast shape of the arguments.

    Raises:
        ValueError: negative or NaN `norm_h`, `delta` outside $(0, \pi)$.

    Example:
        >>> finite_time_threshold(1.0, 0.1)  # log cot(0.05) = 2.9945
    """
    a, delta = as_float(norm_h, "norm_h"), as_float(delta, "delta")
    a = check_scalar_range(a, "norm_h", low=0.0)
    delta = check_scalar_range(
        delta, "delta", low=0.0, high=math.pi, low_inclusive=False, high_inclusive=False
    )
    return _threshold(a, delta)


@functools.partial(jax.jit, static_argnums=(3, 4, 5, 6, 7))
def _drive_hits(key, eps, scale, d, m, chunk, n_samples, relative):
    r"""Count draws of $h = \sum_j \operatorname{softplus}(s g_j) r_j$ with $\|h\| < \varepsilon$
    (or $< \varepsilon \|w\|_2$ when `relative`): one sampler for both degenerate events."""

    def hits(args):
        k, i = args
        k_r, k_g = jax.random.split(k)
        r = sample_uniform(k_r, (chunk, m), d, dtype=default_floating_dtype())
        w = jax.nn.softplus(scale * jax.random.normal(k_g, (chunk, m), r.dtype))
        h = jnp.einsum("sj,sjd->sd", w, r)
        if relative:  # static: |h|^2 < eps^2 |w|_2^2, no square roots
            hit = jnp.sum(h * h, axis=-1) < eps * eps * jnp.sum(w * w, axis=-1)
        else:
            hit = safe_norm(h) < eps
        valid = i * chunk + jnp.arange(chunk) < n_samples  # the last chunk may overhang
        return jnp.sum(hit & valid)

    n_chunks = -(-n_samples // chunk)
    keys = jax.random.split(key, n_chunks)
    return jnp.sum(jax.lax.map(hits, (keys, jnp.arange(n_chunks))))


def _drive_estimate(key, d, n_anchors, eps, n_samples, scale, chunk_size, relative):
    r"""The checked arguments of a degenerate-drive probability, then $\hat p$ of
    [`_drive_hits`][syncattn.lohe._failure._drive_hits] and its binomial standard error
    $\sqrt{\hat p(1-\hat p)/N}$: the body of [`syncattn.lohe.degenerate_probability`][]
    and [`syncattn.lohe.relative_degenerate_probability`][]."""
    d = check_dim(d)
    for v, name in (
        (n_anchors, "n_anchors"),
        (n_samples, "n_samples"),
        (chunk_size, "chunk_size"),
    ):
        check_count(v, name)
    eps = check_scalar_range(eps, "eps", low=0.0, low_inclusive=False)
    scale = check_scalar_range(scale, "scale", low=0.0, low_inclusive=False)
    chunk = int(min(chunk_size, n_samples))
    count = _drive_hits(
        key, eps, scale, d, int(n_anchors), chunk, int(n_samples), relative
    )
    p_hat = count / n_samples
    return p_hat, jnp.sqrt(p_hat * (1 - p_hat) / n_samples)


def degenerate_probability(
    key: PRNGKeyArray,
    d: int,
    n_anchors: int,
    eps: float,
    n_samples: int = 100_000,
    scale: float = 1.0,
    *,
    chunk_size: int = 8192,
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    r"""Monte Carlo estimate of $P(\|h\| < \varepsilon)$ for a random drive.

    $$h = \sum_{j=1}^{m} \operatorname{softplus}(g_j)\, r_j, \qquad
      r_j \overset{iid}\sim \mathrm{Unif}(S^{d-1}),\quad g_j \overset{iid}\sim
      \mathcal N(0, s^2),\quad r \perp g$$

    $m$ = `n_anchors`, $d$ = `d`, $\varepsilon$ = `eps`, $s$ = `scale`, $N$ =
    `n_samples`: one row of [`syncattn.lohe.fixed_query_weights`][] with iid Gaussian scores,
    driving [`syncattn.lohe.drive`][] over random unit anchors. Returns $\hat p = \#\{\|h\| <
    \varepsilon\}/N$ and its binomial standard error $\sqrt{\hat p(1-\hat p)/N}$ (0
    when there are no hits: raise $N$). Samples are drawn `chunk_size` at a time.

    What it measures: the *absolute* size of the drive, hence mostly the scale of
    the weights. Since $\|h\|^2 = \|w\|_2^2 + 2\sum_{j<k} w_jw_k\langle r_j,
    r_k\rangle$ and the cross terms are $O(d^{-1/2})$, it does **not** vanish
    exponentially in $d$: it tends to $P(\|w\|_2 < \varepsilon) > 0$ (about
    $4.4\cdot10^{-11}$ for $m = 16$, $\varepsilon = 1$, $s = 1$). The scale-free
    degenerate events, which do vanish as $d$ grows, are
    [`syncattn.lohe.hull_degenerate_probability`][] ($0$ in the convex hull of the anchors) and
    [`syncattn.lohe.relative_degenerate_probability`][] ($\|h\| < \varepsilon\|w\|_2$).

    Args:
        key: PRNG key.
        d: ambient dimension, an int $\ge 2$.
        n_anchors: $m \ge 1$.
        eps: threshold $> 0$.
        n_samples: $N \ge 1$.
        scale: score standard deviation $s > 0$.
        chunk_size: samples per chunk (memory about `chunk_size * m * d`).

    Returns:
        `(estimate, standard_error)`, scalars in the default float dtype.

    Raises:
        ValueError: $d < 2$, non-positive counts, `eps` or `scale` $\le 0$.

    Example:
        >>> p, se = degenerate_probability(jax.random.key(0), 3, 4, 0.5, 10_000)
    """
    return _drive_estimate(
        key, d, n_anchors, eps, n_samples, scale, chunk_size, relative=False
    )


def degenerate_probability_exact(
    d: int, n_anchors: int, eps: float, scale: float = 1.0, *, nodes: int = 120
) -> float:
    r"""Exact $P(\|h\| < \varepsilon)$ for the drive model of [`syncattn.lohe.degenerate_probability`][].

    With $\nu = d/2 - 1$, the characteristic function of a uniform point of
    $S^{d-1}$ is $\Lambda_\nu(|k|)$, $\Lambda_\nu(x) = \Gamma(\nu+1)(2/x)^\nu J_\nu(x)
    = {}_0F_1(;\nu+1;-x^2/4)$, so $h = \sum_j w_j r_j$ (independent terms) has the
    radial characteristic function $\varphi(t) = \bigl(\mathbb E_w\,\Lambda_\nu(w t)\bigr)^m$.
    Integrating it against the Fourier transform of the ball (Kluyver's formula
    for random flights, $d = 2$, in general dimension):

    $$P(\|h\| \le \varepsilon) = \int_0^\infty \varphi(t)\,
      \frac{(\varepsilon t)^{\nu+1} J_{\nu+1}(\varepsilon t)}{2^\nu\,\Gamma(\nu+1)}\,\frac{dt}{t}
      = \int_0^\infty \varphi(t)\, \frac{(\varepsilon t)^{d}\;
      {}_0F_1\!\left(;\tfrac d2 + 1; -\tfrac{(\varepsilon t)^2}4\right)}
      {2^{d-1}\,\Gamma(\tfrac d2)\,\Gamma(\tfrac d2 + 1)}\,\frac{dt}{t}.$$

    $\mathbb E_w$ over $w = \operatorname{softplus}(s g)$, $g \sim \mathcal N(0,1)$,
    is a Gauss-Hermite sum (`nodes` nodes, 120 by default); the $t$-integral is `scipy.integrate.quad`
    (relative tolerance 1e-8; the ${}_0F_1$ form avoids the cancellation of
    $(2/x)^\nu J_\nu(x)$ at small $x$). Checked against Monte Carlo in the tests.

    For $m = 1$, $\|h\| = w$ and the closed form $\Phi(\log(e^\varepsilon - 1)/s)$ is
    returned (the Bessel integral does not converge there).

    Args:
        d: ambient dimension $d \ge 2$.
        n_anchors: number of anchors $m \ge 1$.
        eps: threshold $\varepsilon > 0$.
        scale: score standard deviation $s > 0$.
        nodes: Gauss-Hermite nodes for $\mathbb E_w$.

    Returns:
        The probability (a float in $[0, 1]$; the ball is closed, which has the
        same probability as the open one).

    Raises:
        ValueError: $d < 2$, `n_anchors` or `nodes` not a positive int, `eps` or
            `scale` not $> 0$. TypeError: non-int `d`.

    Example:
        >>> degenerate_probability_exact(3, 1, 1.0)  # m = 1: Phi(log(e - 1))
        0.7058...
    """
    from scipy import integrate, special

    d = check_dim(d)
    check_count(n_anchors, "n_anchors")
    check_count(nodes, "nodes")
    eps = check_scalar_range(eps, "eps", low=0.0, low_inclusive=False)
    scale = check_scalar_range(scale, "scale", low=0.0, low_inclusive=False)
    eps, scale = float(eps), float(scale)
    if n_anchors == 1:
        # h = w r, |h| = w: P(softplus(s g) < eps) = Phi(log(e^eps - 1) / s); the integral
        # below does not converge for m = 1 (Gauss-Hermite makes w discrete, so the
        # characteristic function of a single shell mixture does not decay)
        return float(special.ndtr(math.log(math.expm1(eps)) / scale))

    g, wts = np.polynomial.hermite_e.hermegauss(nodes)
    wts = wts / wts.sum()
    w = np.logaddexp(0.0, scale * g)  # softplus
    nu = d / 2 - 1
    log_c = -(d - 1) * math.log(2) - special.gammaln(d / 2) - special.gammaln(d / 2 + 1)

    def integrand(t):
        if t <= 0:
            return 0.0
        phi = (
            float(np.sum(wts * special.hyp0f1(nu + 1, -((t * w) ** 2) / 4)))
            ** n_anchors
        )
        x = eps * t
        return (
            phi
            * math.exp(log_c + d * math.log(x))
            * float(special.hyp0f1(nu + 2, -x * x / 4))
            / t
        )

    val, _ = integrate.quad(
        integrand, 0.0, np.inf, limit=2000, epsabs=1e-300, epsrel=1e-8
    )
    return float(min(max(val, 0.0), 1.0))


def weight_norm_probability(
    n_anchors: int, eps: float, scale: float = 1.0, *, bins: int = 4096
) -> tuple[float, float]:
    r"""Bracket of $P(\|w\|_2 < \varepsilon)$, $w_j = \operatorname{softplus}(s g_j)$ i.i.d.: the $d \to \infty$ plateau of the absolute degenerate event.

    $$\lim_{d\to\infty} P(\|h\| < \varepsilon) = P\Bigl(\sum_{j=1}^m w_j^2 <
      \varepsilon^2\Bigr), \qquad P(w_j^2 < x) = \Phi\bigl(\log(e^{\sqrt x} - 1)/s\bigr)$$

    for the drive model of [`syncattn.lohe.degenerate_probability`][]: the cross terms
    of $\|h\|^2 = \|w\|_2^2 + 2\sum_{j<k} w_jw_k\langle r_j, r_k\rangle$ vanish like
    $d^{-1/2}$. The law of $w_j^2$ on $[0, \varepsilon^2]$ is cut into `bins` cells;
    putting each cell's mass at its left (right) end and convolving the $m$-fold sum
    exactly over- (under-) estimates the probability, so the two ends bracket it.

    Args:
        n_anchors: $m \ge 1$.
        eps: threshold $\varepsilon > 0$.
        scale: score standard deviation $s > 0$.
        bins: cells of $[0, \varepsilon^2]$ (the bracket narrows like $m/$`bins`).

    Returns:
        `(lower, upper)`, Python floats with lower $\le P \le$ upper.

    Raises:
        ValueError: `n_anchors` or `bins` not a positive int, `eps` or `scale` not $> 0$.

    Example:
        >>> weight_norm_probability(1, 1.0)  # both ends near Phi(log(e - 1)) = 0.7058
    """
    from scipy import special

    check_count(n_anchors, "n_anchors")
    check_count(bins, "bins")
    eps = float(check_scalar_range(eps, "eps", low=0.0, low_inclusive=False))
    scale = float(check_scalar_range(scale, "scale", low=0.0, low_inclusive=False))
    x = np.linspace(0.0, eps * eps, int(bins) + 1)
    with np.errstate(divide="ignore"):
        F = special.ndtr(np.log(np.expm1(np.sqrt(x))) / scale)
    F[0] = 0.0
    pmf = np.diff(F)  # mass of w^2 in cell i
    acc = np.zeros(int(bins))
    acc[0] = 1.0
    for _ in range(int(n_anchors)):
        acc = np.convolve(acc, pmf)[: int(bins)]
    upper = float(acc.sum())  # every left end < eps^2
    lower = float(
        acc[: max(int(bins) - int(n_anchors) + 1, 0)].sum()
    )  # right ends <= eps^2
    return lower, upper

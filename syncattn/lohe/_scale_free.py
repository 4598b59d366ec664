r"""Scale-free degenerate events of the fixed-query drive: the convex-hull law and the relative threshold.

The fixed-query drive is $h = \sum_{j=1}^m w_j r_j$. Its *absolute* degeneracy
$P(\|h\| < \varepsilon)$ tends to $P(\|w\|_2 < \varepsilon)$ as $d \to \infty$ (the
cross terms of $\|h\|^2 = \|w\|_2^2 + 2\sum_{j<k} w_j w_k \langle r_j, r_k\rangle$ are
$O(d^{-1/2})$): it measures the scale of the weights. The events below are
scale-free, and those are the ones that vanish as $d$ grows:

* the convex-hull event $0 \in \operatorname{conv}\{r_j\}$ (the only way positive
  weights can cancel), [`hull_degenerate_probability`][];
* the relative event $\|h\| < \varepsilon\|w\|_2$, [`relative_degenerate_bound`][],
  [`relative_degenerate_probability`][].

The absolute event itself is `degenerate_probability` (in `_failure.py`, with the
other failure odds).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import as_float, check_count, check_dim, check_finite, check_scalar_range
from .._types import Array, ArrayLike, Float, PRNGKeyArray, ScalarLike
from ._failure import _drive_estimate


__all__ = [
    "HullOdds",
    "hull_contains_origin",
    "hull_degenerate_probability",
    "relative_degenerate_bound",
    "relative_degenerate_probability",
]


# ------------------------------------------------------------------ convex-hull law
class HullOdds(NamedTuple):
    """Exact value and Hoeffding bound of $P(0 \\in \\operatorname{conv}\\{r_j\\})$."""

    exact: float
    bound: float


def _hull_exact(m: int, d: int) -> float:
    n = m - 1
    if d > n:
        return 0.0
    if d <= n // 2:  # the shorter of the two sums, both exact in integers
        below = sum(math.comb(n, k) for k in range(d))
        return float(Fraction(2**n - below, 2**n))
    return float(Fraction(sum(math.comb(n, k) for k in range(d, n + 1)), 2**n))


def _hull_bound(m: int, d: int) -> float:
    n = m - 1
    if d > n:
        return 0.0
    t = d - n / 2
    return math.exp(-2 * t * t / n) if t > 0 else 1.0


def hull_degenerate_probability(n_anchors: int, d: int) -> HullOdds:
    r"""Probability that $m$ uniform anchors admit a positive drive $h = 0$ (Wendel).

    $$P\bigl(0 \in \operatorname{conv}\{r_1, \dots, r_m\}\bigr)
      = 2^{-(m-1)}\sum_{k=d}^{m-1}\binom{m-1}{k}
      = P\bigl(\operatorname{Bin}(m-1, \tfrac12) \ge d\bigr)
      \le \begin{cases} 0, & d \ge m,\\
      e^{-2(d - (m-1)/2)^2/(m-1)}, & \tfrac{m-1}2 < d < m,\\ 1, & \text{else,}\end{cases}$$

    $m$ = `n_anchors`, $d$ = `d`, $r_j$ i.i.d. uniform on $S^{d-1}$ (Wendel, 1962:
    any law symmetric about 0 whose points are a.s. in general position). With
    strictly positive weights (softplus couplings), $h = \sum_j w_j r_j = 0$ forces
    $0 = h/\sum_j w_j \in \operatorname{conv}\{r_j\}$; conversely, a.s. $0$ is then
    interior to the hull and some positive weights cancel. The event is scale free:
    it does not depend on the size of the weights. It is exactly $0$ for
    $d \ge m$, and for $m - 1 < 2cd$ with $c < 1$ the Hoeffding term decays
    exponentially in $d$. Proof: `proofs/proof_hull_degeneracy.py`.

    Args:
        n_anchors: $m \ge 1$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        `HullOdds(exact, bound)`: the probability (exact rational, rounded once to
        float) and the bound above (Python floats).

    Raises:
        ValueError: $d < 2$ or $m < 1$. TypeError: non-int `d`.

    Example:
        >>> hull_degenerate_probability(4, 2)  # P(Bin(3, 1/2) >= 2) = 1/2
        HullOdds(exact=0.5, bound=0.8464...)
    """
    d = check_dim(d)
    check_count(n_anchors, "n_anchors")
    m = int(n_anchors)
    return HullOdds(_hull_exact(m, d), _hull_bound(m, d))


def hull_contains_origin(r: Float[ArrayLike, "m d"]) -> bool:
    r"""Whether $0 \in \operatorname{conv}\{r_1, \dots, r_m\}$: some positive drive cancels.

    $$0 \in \operatorname{conv}\{r_j\} \iff \exists\, \lambda \in \mathbb R^m:\
      \lambda \ge 0,\ \textstyle\sum_j \lambda_j = 1,\ \sum_j \lambda_j r_j = 0$$

    decided as the feasibility of that linear programme (`scipy.optimize.linprog`,
    HiGHS). The event whose probability for uniform anchors is
    [`syncattn.lohe.hull_degenerate_probability`][] (Wendel's law); this is the
    per-instance test its Monte Carlo counts.

    Args:
        r: anchors, shape `(m, d)` (any norms: the event is scale free).

    Returns:
        `True` if the origin lies in the (closed) convex hull.

    Raises:
        ValueError: `r` not 2-D and non-empty, or NaN/inf.
        RuntimeError: the LP solver fails (neither feasible nor infeasible).

    Example:
        >>> hull_contains_origin(jnp.array([[1.0, 0.0], [-1.0, 0.0]]))  # True
    """
    from scipy.optimize import linprog  # slow to import: only where a hull is tested

    r = as_float(r, "r")
    if r.ndim != 2 or not r.size:
        raise ValueError(f"r must have shape (m, d) with m, d >= 1; got {r.shape}.")
    check_finite(r, "r")
    R = np.asarray(r, dtype=float)
    m, d = R.shape
    res = linprog(
        np.zeros(m),
        A_eq=np.vstack([R.T, np.ones((1, m))]),
        b_eq=np.r_[np.zeros(d), 1.0],
        bounds=(0, None),
        method="highs",
    )
    if res.status not in (0, 2):  # 0 feasible (optimal), 2 infeasible
        raise RuntimeError(f"linprog failed on the hull test: {res.message}")
    return bool(res.status == 0)


# ------------------------------------------------------------- relative threshold
@jax.jit
def _relative_bound(w, eps, d):
    a2 = w * w
    s2 = jnp.sum(a2, axis=-1)
    pos = s2 > 0
    s2_safe = jnp.where(pos, s2, 1.0)
    q = jnp.sum(a2 * a2, axis=-1) / (s2_safe * s2_safe)  # sum_j a_j^4, a = w/||w||_2
    gap = jnp.maximum(1.0 - eps * eps, 0.0)
    gap_safe = jnp.where(gap > 0, gap, 1.0)
    cheb = jnp.where(
        gap > 0, 2.0 * jnp.maximum(1.0 - q, 0.0) / (d * gap_safe * gap_safe), 1.0
    )
    absw = -jnp.sort(-jnp.abs(w), axis=-1)  # descending order minimises the sum
    W_prev = jnp.cumsum(absw, axis=-1) - absw  # sum_{j<k} |w_j|
    S = jnp.sum(absw * absw * W_prev * W_prev, axis=-1)
    S_safe = jnp.where(S > 0, S, 1.0)
    expo = jnp.where(S > 0, -d * gap * gap * s2 * s2 / (8.0 * S_safe), -jnp.inf)
    azuma = jnp.where(gap > 0, jnp.exp(expo), 1.0)
    out = jnp.minimum(jnp.minimum(cheb, azuma), 1.0)
    return jnp.where(pos, out, 0.0)


def relative_degenerate_bound(
    w: Float[ArrayLike, "*batch m"], eps: ScalarLike, d: int
) -> Float[Array, "*shape"]:
    r"""Upper bound on $P(\|h\| < \varepsilon\|w\|_2)$ for fixed weights, uniform anchors.

    With $h = \sum_j w_j r_j$, $r_j$ i.i.d. uniform on $S^{d-1}$, $a = w/\|w\|_2$:
    $\mathbb E\|h\|^2 = \|w\|_2^2$ and $\operatorname{Var}(\|h\|^2/\|w\|_2^2) =
    2(1 - \sum_j a_j^4)/d$, so $\|h\|/\|w\|_2$ concentrates at 1, and for
    $\varepsilon < 1$

    $$P(\|h\| < \varepsilon\|w\|_2) \le \min\Bigl\{\frac{2(1 - \sum_j a_j^4)}{d\,(1-\varepsilon^2)^2},\;
      \exp\Bigl(-\frac{d\,(1-\varepsilon^2)^2\,\|w\|_2^4}{8\sum_k w_k^2 W_{k-1}^2}\Bigr)\Bigr\},
      \qquad W_{k-1} = \sum_{j<k} |w_j|,$$

    the first by Chebyshev, the second by a Chernoff bound on the martingale
    $\|h_k\|^2 - \sum_{j \le k} w_j^2 = \sum_{j\le k} 2 w_j\|h_{j-1}\|\,x_j$ whose
    increments $x_j = \langle r_j, h_{j-1}/\|h_{j-1}\|\rangle$ satisfy
    $\mathbb E e^{\lambda x_j} \le e^{\lambda^2/(2d)}$ (weights taken in decreasing
    $|w_k|$, the order that minimises the sum). The second is exponential in $d$
    for every $\varepsilon < 1$, with a rate of order $1/m$ for comparable weights.
    Proof: `proofs/proof_relative_degeneracy.py`.

    $w$ = `w` (any signs), $\varepsilon$ = `eps`, $d$ = `d`. Returns 1 for
    $\varepsilon \ge 1$, and 0 for $w = 0$ (the event $\|h\| < 0$ is empty) or a single
    non-zero weight ($\|h\| = \|w\|_2$).

    Args:
        w: weights, shape `(*batch, m)`, $m \ge 1$.
        eps: relative threshold $\varepsilon \ge 0$ (broadcasts with the batch).
        d: ambient dimension, an int $\ge 2$.

    Returns:
        bounds in $[0, 1]$, shape `*batch` broadcast with the shape of `eps`.

    Raises:
        ValueError: empty or non-finite `w`, negative or NaN `eps`, $d < 2$.

    Example:
        >>> relative_degenerate_bound(jnp.ones(16), 0.5, 64)
    """
    d = check_dim(d)
    w = as_float(w, "w")
    if w.ndim < 1 or w.shape[-1] == 0:
        raise ValueError(f"w must have shape (*batch, m) with m >= 1; got {w.shape}.")
    check_finite(w, "w")
    eps = as_float(eps, "eps")
    eps = check_scalar_range(eps, "eps", low=0.0)
    return _relative_bound(w, eps, d)


def relative_degenerate_probability(
    key: PRNGKeyArray,
    d: int,
    n_anchors: int,
    eps: float,
    n_samples: int = 100_000,
    scale: float = 1.0,
    *,
    chunk_size: int = 8192,
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    r"""Monte Carlo estimate of the scale-free event $P(\|h\| < \varepsilon\|w\|_2)$.

    $$h = \sum_{j=1}^{m} w_j r_j,\quad w_j = \operatorname{softplus}(g_j),\quad
      r_j \overset{iid}\sim \mathrm{Unif}(S^{d-1}),\quad g_j \overset{iid}\sim
      \mathcal N(0, s^2),\quad r \perp g$$

    (the weight model of `lohe.degenerate_probability`). $m$ = `n_anchors`, $d$ =
    `d`, $\varepsilon$ = `eps`, $s$ = `scale`, $N$ = `n_samples`. Unlike the absolute
    event $\|h\| < \varepsilon$, this one does not depend on the scale of the
    weights and decays exponentially in $d$ for $\varepsilon < 1$ (see
    [`relative_degenerate_bound`][]). Returns $\hat p$ and its binomial standard error
    $\sqrt{\hat p(1-\hat p)/N}$ (0 when there are no hits: raise $N$).

    Args:
        key: PRNG key.
        d: ambient dimension, an int $\ge 2$.
        n_anchors: $m \ge 1$.
        eps: relative threshold $\varepsilon > 0$.
        n_samples: $N \ge 1$.
        scale: score standard deviation $s > 0$.
        chunk_size: samples per chunk (memory about `chunk_size * m * d`).

    Returns:
        `(estimate, standard_error)`, scalars in the default float dtype.

    Raises:
        ValueError: $d < 2$, non-positive counts, `eps` or `scale` $\le 0$.

    Example:
        >>> p, se = relative_degenerate_probability(jax.random.key(0), 8, 16, 0.5, 10_000)
    """
    return _drive_estimate(
        key, d, n_anchors, eps, n_samples, scale, chunk_size, relative=True
    )

r"""Counts $k$ of $n$: binomial confidence intervals and exact tests (one rate against a
theory's probability, two rates against each other)."""

from __future__ import annotations

import math

import numpy as np

from ._arguments import check_counts


def clopper_pearson(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    r"""Exact (Clopper-Pearson) binomial confidence interval for $p$ from $k$ of $n$.

    $$p_{lo} = B^{-1}\!\left(\tfrac{1-c}{2};\, k, n-k+1\right),\qquad
      p_{hi} = B^{-1}\!\left(\tfrac{1+c}{2};\, k+1, n-k\right)$$

    with $B^{-1}$ the beta quantile; $p_{lo} = 0$ at $k = 0$ and $p_{hi} = 1$ at
    $k = n$.

    Args:
        k: successes (array allowed), $0 \le k \le n$.
        n: trials, $n \ge 1$ (broadcasts with `k`).
        confidence: $c \in (0, 1)$.

    Returns:
        `(lo, hi)` float arrays of the broadcast shape.

    Raises:
        ValueError: $k$ outside $[0, n]$, $n < 1$, NaN, or $c \notin (0, 1)$.

    Example:
        >>> clopper_pearson(0, 5)  # (0, 0.5218)
    """
    from scipy.stats import beta

    k, n = check_counts(k, n, confidence)
    a = 1.0 - confidence
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, beta.ppf(a / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, beta.ppf(1 - a / 2, k + 1, n - k), 1.0)
    return lo, hi


def wilson(k, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    r"""Wilson score interval for a binomial proportion.

    $$\frac{\hat p + \frac{z^2}{2n} \pm z\sqrt{\frac{\hat p(1-\hat p)}{n} + \frac{z^2}{4n^2}}}{1 + z^2/n},
      \qquad \hat p = k/n,\ z = \Phi^{-1}\!\left(\tfrac{1+c}{2}\right)$$

    Args, Returns and Raises as [`syncattn.stats.clopper_pearson`][].

    Example:
        >>> wilson(3, 50)  # (0.0206, 0.1622)
    """
    from scipy.stats import norm

    k, n = check_counts(k, n, confidence)
    z = norm.ppf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def binomial_pvalue(k, n, p) -> np.ndarray:
    r"""Exact two-sided binomial test of $k$ successes in $n$ trials against $p$.

    $$\pi(k) = \sum_{i:\ P(X = i) \le P(X = k)} P(X = i),\qquad
      X \sim \operatorname{Bin}(n, p)$$

    (the "minimum likelihood" two-sided p-value of `scipy.stats.binomtest`). A theory
    value $p \le 0$ gives $\pi = 1$ if $k = 0$ and $0$ otherwise; $p > 1$ is clipped
    to 1. Broadcasts over `k`, `n` and `p`.

    Args:
        k: successes, $0 \le k \le n$.
        n: trials, $n \ge 1$.
        p: the probability under test (finite).

    Returns:
        $\pi \in [0, 1]$, a float array of the broadcast shape.

    Raises:
        ValueError: $k$ outside $[0, n]$, $n < 1$, or non-finite values.

    Example:
        >>> binomial_pvalue(3, 50, 0.24)  # 0.00138
    """
    from scipy.stats import binomtest  # scipy.stats is slow to import: only here

    k, n = check_counts(k, n, 0.5)
    p = np.asarray(p, dtype=float)
    if not np.all(np.isfinite(p)):
        raise ValueError(f"p must be finite; got {p.tolist()}.")
    k, n, p = np.broadcast_arrays(k, n, p)
    out = np.empty(k.shape, dtype=float)
    for i in np.ndindex(k.shape):
        if p[i] <= 0:
            out[i] = 1.0 if k[i] == 0 else 0.0
        else:
            out[i] = binomtest(int(k[i]), int(n[i]), float(min(p[i], 1.0))).pvalue
    return out


def fisher_exact(k1: int, n1: int, k2: int, n2: int, alternative: str = "two-sided") -> float:
    r"""Fisher's exact test that two binomial rates are equal, from $k_1$ of $n_1$ and
    $k_2$ of $n_2$.

    Conditioned on the margins, $X = k_1$ is hypergeometric:

    $$P(X = x) = \binom{n_1}{x}\binom{n_2}{K - x} \Big/ \binom{n_1 + n_2}{K},
      \qquad K = k_1 + k_2,$$

    and the p-value is $\sum_{x:\,P(X = x) \le P(X = k_1)} P(X = x)$ (``"two-sided"``,
    the minimum-likelihood rule, with a relative slack of $10^{-7}$ for ties in floating
    point), $P(X \le k_1)$ (``"less"``: the first rate is the smaller) or
    $P(X \ge k_1)$ (``"greater"``).

    Args:
        k1, n1: the first sample's successes and trials, $0 \le k_1 \le n_1$, $n_1 \ge 1$.
        k2, n2: the second sample's.
        alternative: ``"two-sided"``, ``"less"`` or ``"greater"``.

    Returns:
        The p-value in $[0, 1]$.

    Raises:
        ValueError: counts outside their ranges or not whole numbers, or an unknown
            `alternative`.

    Example:
        >>> fisher_exact(3, 50, 12, 50)  # 0.0226: the paper's two cohorts
    """
    counts = {"k1": k1, "n1": n1, "k2": k2, "n2": n2}
    for name, v in counts.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) \
                or not np.isfinite(v) or not float(v).is_integer():
            raise ValueError(f"{name} must be a whole number; got {v!r}.")
    k1, n1, k2, n2 = (int(v) for v in counts.values())
    for j, (k, n) in enumerate(((k1, n1), (k2, n2)), start=1):
        if n < 1 or not 0 <= k <= n:
            raise ValueError(f"need 0 <= k{j} <= n{j} and n{j} >= 1; got k{j}={k}, n{j}={n}.")
    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(
            f"alternative must be 'two-sided', 'less' or 'greater'; got {alternative!r}.")
    K = k1 + k2
    xs = range(max(0, K - n2), min(K, n1) + 1)
    logp = np.array([_log_comb(n1, x) + _log_comb(n2, K - x) for x in xs])
    pmf = np.exp(logp - logp.max())
    pmf /= pmf.sum()
    i = k1 - xs[0]
    if alternative == "less":
        p = pmf[: i + 1].sum()
    elif alternative == "greater":
        p = pmf[i:].sum()
    else:
        p = pmf[pmf <= pmf[i] * (1 + 1e-7)].sum()
    return float(min(1.0, p))


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

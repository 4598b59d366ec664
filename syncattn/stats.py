r"""Statistics of repeated trainings: binomial intervals, power-law fits with a bootstrap.

Apps (studies, experiments) call these; nothing here knows about models.

* [`syncattn.stats.clopper_pearson`][] and [`syncattn.stats.wilson`][]: confidence
  intervals for a failure rate $k/n$ (experiment 4: failed trainings over seeds);
* [`syncattn.stats.power_law_fit`][]: $\Delta(d) = C d^{-\alpha}$ by least squares of
  $\log\Delta$ on $\log d$ (experiment 5: the PPL gap to softmax);
* [`syncattn.stats.power_law_bootstrap`][]: the same fit on per-seed values, with a
  percentile bootstrap interval for $\alpha$ and $C$ (resampling the seeds within
  each $d$ and within the baseline);
* [`syncattn.stats.binomial_pvalue`][]: the exact two-sided binomial test of a
  Monte Carlo count against a theory's probability (the studies' acceptance checks);
* [`syncattn.stats.exponential_rate_fit`][]: $p(d) = e^{a - \lambda d}$ by least
  squares of $\log p$ on $d$ (the studies' failure rates in the oscillator dimension);
* [`syncattn.stats.summarize`][]: mean, sample standard deviation, median.

Everything is NumPy float64 on the host (these are a handful of numbers per run).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


__all__ = [
    "clopper_pearson",
    "wilson",
    "binomial_pvalue",
    "exponential_rate_fit",
    "power_law_fit",
    "power_law_bootstrap",
    "summarize",
]


# --------------------------------------------------------------------------- binomial


def _check_counts(k, n, confidence):
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1); got {confidence!r}.")
    if (
        not np.all(np.isfinite(k))
        or not np.all(np.isfinite(n))
        or np.any(n < 1)
        or np.any(k < 0)
        or np.any(k > n)
    ):
        raise ValueError(
            f"need 0 <= k <= n and n >= 1 (finite); got k={k.tolist()}, n={n.tolist()}."
        )
    return np.broadcast_arrays(k, n)


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

    k, n = _check_counts(k, n, confidence)
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

    k, n = _check_counts(k, n, confidence)
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

    k, n = _check_counts(k, n, 0.5)
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


def exponential_rate_fit(x, p) -> dict[str, float]:
    r"""Least-squares rate $\lambda$ of $\log p = a - \lambda x$ over the points with $p > 0$.

    $$(\hat a, \hat\lambda) = \arg\min_{a, \lambda} \sum_{i:\, p_i > 0}
      \bigl(\log p_i - a + \lambda x_i\bigr)^2$$

    Zero or non-finite $p_i$ (a Monte Carlo count of 0) are skipped.

    Args:
        x: abscissae (the oscillator dimension $d$).
        p: probabilities, the same length as `x`.

    Returns:
        `{"rate": lambda, "intercept": a, "n_points": m}`; rate and intercept are NaN
        when fewer than two usable points remain.

    Raises:
        ValueError: `x` and `p` of different lengths.

    Example:
        >>> exponential_rate_fit([2, 3, 4], [e**-2, e**-3, e**-4])["rate"]  # 1.0
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    p = np.asarray(p, dtype=float).reshape(-1)
    if x.shape != p.shape:
        raise ValueError(
            f"x and p must have the same length; got {x.size} and {p.size}."
        )
    ok = np.isfinite(p) & (p > 0) & np.isfinite(x)
    if ok.sum() < 2 or np.unique(x[ok]).size < 2:
        return {"rate": math.nan, "intercept": math.nan, "n_points": int(ok.sum())}
    slope, intercept = np.polyfit(x[ok], np.log(p[ok]), 1)
    return {"rate": float(-slope), "intercept": float(intercept), "n_points": int(ok.sum())}


# --------------------------------------------------------------------------- power law


def _check_dims(dims) -> np.ndarray:
    d = np.asarray(dims, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"dims must be a 1-D array of >= 2 values; got shape {d.shape}.")
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError(f"dims must be finite and > 0; got {d.tolist()}.")
    if np.unique(d).size < 2:
        raise ValueError(f"dims need at least two distinct values; got {d.tolist()}.")
    return d


def _fit(logd, gaps):
    """(alpha, C, R^2) of log gap = log C - alpha log d; gaps (..., k), NaN where any gap <= 0."""
    gaps = np.asarray(gaps, dtype=float)
    ok = np.all(gaps > 0, axis=-1)
    y = np.log(np.where(gaps > 0, gaps, 1.0))
    x = logd - logd.mean()
    ybar = y.mean(axis=-1, keepdims=True)
    slope = np.sum(x * (y - ybar), axis=-1) / np.sum(x * x)
    intercept = ybar[..., 0] - slope * logd.mean()
    resid = y - (intercept[..., None] + slope[..., None] * logd)
    ss_tot = np.sum((y - ybar) ** 2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = np.where(ss_tot > 0, 1.0 - np.sum(resid**2, axis=-1) / ss_tot, 1.0)
    nan = np.full_like(slope, np.nan)
    return (
        np.where(ok, -slope, nan),
        np.where(ok, np.exp(intercept), nan),
        np.where(ok, r2, nan),
    )


def power_law_fit(dims, gaps) -> dict[str, float]:
    r"""Least-squares fit of $\Delta(d) = C d^{-\alpha}$ on the log-log scale.

    $$\min_{\alpha, \log C} \sum_k \bigl(\log\Delta_k - \log C + \alpha \log d_k\bigr)^2,
      \qquad R^2 = 1 - \frac{\sum_k r_k^2}{\sum_k (\log\Delta_k - \overline{\log\Delta})^2}$$

    $d_k$ = `dims`, $\Delta_k$ = `gaps` (e.g. mean PPL at $d_k$ minus the mean softmax
    PPL). Seed 001's published fit is this one over the per-$d$ means
    (../shared/EXPERIMENTS.md, B3).

    Args:
        dims: $d_k > 0$, shape `(k,)`, at least two distinct values.
        gaps: $\Delta_k > 0$, shape `(k,)`.

    Returns:
        `{"alpha", "C", "r2"}` (floats).

    Raises:
        ValueError: shapes differ, a gap is $\le 0$ or not finite (no log), bad `dims`.

    Example:
        >>> power_law_fit([2, 8, 32], [4.0, 2.0, 1.0])["alpha"]  # 0.5
    """
    d = _check_dims(dims)
    g = np.asarray(gaps, dtype=float)
    if g.shape != d.shape:
        raise ValueError(f"gaps must have the shape of dims {d.shape}; got {g.shape}.")
    if not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ValueError(
            f"gaps must be finite and > 0 for a log-log fit; got {g.tolist()}."
        )
    alpha, C, r2 = _fit(np.log(d), g)
    return {"alpha": float(alpha), "C": float(C), "r2": float(r2)}


def _check_samples(values, name) -> np.ndarray:
    v = np.asarray(values, dtype=float).reshape(-1)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a non-empty list of finite values; got {v.tolist()}.")
    return v


def power_law_bootstrap(
    dims,
    values: Sequence[Sequence[float]],
    baseline: Sequence[float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    r"""Power-law fit of the gap to a baseline over per-seed values, with a bootstrap interval.

    $$\Delta_k = \bar y_k - \bar b, \qquad \log\Delta_k = \log C - \alpha\log d_k
      \ \text{(least squares, [`syncattn.stats.power_law_fit`][])}$$

    with $\bar y_k$ the mean of the per-seed values at $d_k$ (`values[k]`) and $\bar b$
    the mean of the baseline's per-seed values (`baseline`). The interval is the
    percentile bootstrap: `n_boot` times, resample with replacement the seeds within
    each $d_k$ and within the baseline, recompute the means and the fit, and take the
    $(1 \mp c)/2$ quantiles of $\alpha$ and $C$. Draws come from
    `numpy.random.default_rng(seed)`, in the order $d_1, \dots, d_k$, baseline for each
    resample, as in seed 001's script (R:language_modeling/wikitext_extrapolation_stats.py).
    A resample with some $\Delta_k \le 0$ has no fit; it is counted in `n_invalid` and
    left out of the quantiles.

    Args:
        dims: $d_k$, shape `(k,)`.
        values: `k` sequences of per-seed values (lengths may differ).
        baseline: the baseline's per-seed values.
        n_boot: number of resamples ($\ge 1$).
        seed: seed of `numpy.random.default_rng`.
        confidence: $c \in (0, 1)$.

    Returns:
        `{"alpha", "C", "r2", "gaps", "alpha_ci", "C_ci", "n_boot", "n_invalid",
        "alpha_boot"}`: the point fit on the means, its gaps, the intervals
        `(lo, hi)` and the bootstrap draws of $\alpha$ (NaN where invalid).

    Raises:
        ValueError: `values` not one sequence per $d$, an empty or non-finite sequence,
            a mean gap $\le 0$, bad `n_boot` or `confidence`.

    Example:
        >>> power_law_bootstrap([2, 8], [[3.0, 3.2], [2.0, 2.1]], [1.0, 1.1])["alpha"]
    """
    d = _check_dims(dims)
    if len(values) != d.size:
        raise ValueError(f"values must hold one sequence per d ({d.size}); got {len(values)}.")
    vals = [_check_samples(v, f"values[{i}]") for i, v in enumerate(values)]
    base = _check_samples(baseline, "baseline")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1; got {n_boot!r}.")
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1); got {confidence!r}.")
    gaps = np.array([v.mean() for v in vals]) - base.mean()
    point = power_law_fit(d, gaps)
    rng = np.random.default_rng(seed)
    means = np.empty((n_boot, d.size))
    for b in range(n_boot):
        for i, v in enumerate(vals):
            means[b, i] = v[rng.integers(0, v.size, v.size)].mean()
        means[b] -= base[rng.integers(0, base.size, base.size)].mean()
    alpha_b, C_b, _ = _fit(np.log(d), means)
    ok = np.isfinite(alpha_b)
    q = [100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2]
    nan2 = (math.nan, math.nan)
    return {
        **point,
        "gaps": gaps.tolist(),
        "alpha_ci": tuple(float(x) for x in np.percentile(alpha_b[ok], q)) if ok.any() else nan2,
        "C_ci": tuple(float(x) for x in np.percentile(C_b[ok], q)) if ok.any() else nan2,
        "n_boot": n_boot,
        "n_invalid": int((~ok).sum()),
        "alpha_boot": alpha_b,
    }


def summarize(values) -> dict[str, float]:
    r"""Mean, sample standard deviation ($n - 1$; 0 for one value), median, min, max, count.

    $$\bar x = \frac1n\sum_i x_i, \qquad s = \sqrt{\frac{1}{n-1}\sum_i (x_i - \bar x)^2}$$

    Args:
        values: finite numbers (non-empty).

    Returns:
        `{"mean", "std", "median", "min", "max", "n"}`.

    Raises:
        ValueError: empty or non-finite input.

    Example:
        >>> summarize([1.0, 2.0, 3.0])["std"]  # 1.0
    """
    v = _check_samples(values, "values")
    return {
        "mean": float(v.mean()),
        "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
        "median": float(np.median(v)),
        "min": float(v.min()),
        "max": float(v.max()),
        "n": int(v.size),
    }

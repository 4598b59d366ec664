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
* [`syncattn.stats.fisher_exact`][]: Fisher's exact test of two counts $k_1/n_1$
  against $k_2/n_2$ (experiment 4: our failure counts against the paper's 3/50 and
  12/50, and the two models against each other);
* [`syncattn.stats.exponential_rate_fit`][]: $p(d) = e^{a - \lambda d}$ by least
  squares of $\log p$ on $d$ (the studies' failure rates in the oscillator dimension);
* [`syncattn.stats.summarize`][]: mean, sample standard deviation, median;
* [`syncattn.stats.t_interval`][]: the Student-t interval of a mean (paired gaps over
  seeds);
* [`syncattn.stats.log_linear_bootstrap`][]: $y = a + b\ln x$ through per-group means
  (the ladder's gap against the parameter count), with a percentile bootstrap over the
  samples within each group and predictions at chosen $x$;
* [`syncattn.stats.relative_improvement`][]: how much a learning curve still fell over
  its last fraction of steps (the ladder's convergence record).

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
    "fisher_exact",
    "exponential_rate_fit",
    "power_law_fit",
    "power_law_bootstrap",
    "summarize",
    "t_interval",
    "log_linear_fit",
    "log_linear_bootstrap",
    "relative_improvement",
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


def _check_dims(dims, name: str = "dims") -> np.ndarray:
    d = np.asarray(dims, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"{name} must be a 1-D array of >= 2 values; got shape {d.shape}.")
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError(f"{name} must be finite and > 0; got {d.tolist()}.")
    if np.unique(d).size < 2:
        raise ValueError(f"{name} need at least two distinct values; got {d.tolist()}.")
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


# --------------------------------------------------------------------------- intervals, curves


def _check_confidence(confidence) -> float:
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1); got {confidence!r}.")
    return float(confidence)


def t_interval(values, confidence: float = 0.95) -> tuple[float, float] | None:
    r"""Student-t interval of a mean: $\bar x \mp t_{(1+c)/2,\,n-1}\, s/\sqrt n$.

    $s$ is the sample standard deviation ($n - 1$). Applied to paired differences
    (model A minus model B, seed by seed) it is the paired t interval.

    Args:
        values: finite numbers.
        confidence: $c \in (0, 1)$.

    Returns:
        `(lo, hi)`, or ``None`` for fewer than 2 values (no spread to scale).

    Raises:
        ValueError: a non-finite value, bad `confidence`.

    Example:
        >>> t_interval([1.0, 2.0, 3.0])  # 2 -+ 4.303 / sqrt(3)
    """
    from scipy.stats import t

    c = _check_confidence(confidence)
    x = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"values must be finite; got {x.tolist()}.")
    if x.size < 2:
        return None
    half = float(t.ppf(0.5 + c / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return (float(x.mean() - half), float(x.mean() + half))


def _line(u, y):
    """(a, b, R^2) of y = a + b u by least squares over the last axis of y."""
    ub = u.mean()
    yb = y.mean(axis=-1, keepdims=True)
    b = np.sum((u - ub) * (y - yb), axis=-1) / np.sum((u - ub) ** 2)
    a = yb[..., 0] - b * ub
    ss_res = np.sum((y - (a[..., None] + b[..., None] * u)) ** 2, axis=-1)
    ss_tot = np.sum((y - yb) ** 2, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r2 = np.where(ss_tot > 0, 1.0 - ss_res / ss_tot, 1.0)
    return a, b, r2


def log_linear_fit(x, y) -> dict[str, float]:
    r"""Least-squares line in $\ln x$: $y \approx a + b \ln x$.

    $$\min_{a,b} \sum_k \bigl(y_k - a - b\ln x_k\bigr)^2,\qquad
      b = \frac{\sum_k (u_k-\bar u)(y_k-\bar y)}{\sum_k (u_k-\bar u)^2},\quad
      a = \bar y - b\bar u,\quad u_k = \ln x_k$$

    Unlike [`syncattn.stats.power_law_fit`][], $y$ may have either sign (a gap that
    crosses zero with size).

    Args:
        x: $x_k > 0$, shape `(k,)`, at least two distinct values.
        y: finite, shape `(k,)`.

    Returns:
        `{"a", "b", "r2"}`.

    Raises:
        ValueError: bad `x`, shapes differ, non-finite `y`.

    Example:
        >>> log_linear_fit([1.0, math.e], [1.0, 3.0])  # a = 1, b = 2
    """
    u = np.log(_check_dims(x, "x"))
    v = np.asarray(y, dtype=float)
    if v.shape != u.shape or not np.all(np.isfinite(v)):
        raise ValueError(f"y must be finite with the shape of x {u.shape}; got {v.tolist()}.")
    a, b, r2 = _line(u, v)
    return {"a": float(a), "b": float(b), "r2": float(r2)}


def log_linear_bootstrap(
    x,
    samples: Sequence[Sequence[float]],
    *,
    at: Sequence[float] = (),
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    r"""[`syncattn.stats.log_linear_fit`][] through per-group means, with a bootstrap interval.

    $$\bar y_k = \frac1{n_k}\sum_i y_{ki},\qquad \bar y_k \approx a + b\ln x_k,
      \qquad \hat y(x^\ast) = a + b\ln x^\ast$$

    The interval is the percentile bootstrap: `n_boot` times, resample with replacement
    the samples within each group $k$ (`samples[k]`; e.g. the paired per-seed gaps at
    size $x_k$), refit, and take the $(1 \mp c)/2$ quantiles of $a$, $b$ and of each
    prediction $\hat y(x^\ast)$, $x^\ast$ in `at`. Draws come from
    `numpy.random.default_rng(seed)`, group by group for each resample. It carries the
    seed-to-seed noise of the means, not the misfit of the line (with few groups, read
    $R^2$ beside it).

    Args:
        x: $x_k > 0$, shape `(k,)`, at least two distinct values.
        samples: `k` non-empty sequences of finite values (lengths may differ).
        at: the $x^\ast > 0$ to predict at.
        n_boot: number of resamples ($\ge 1$).
        seed: seed of `numpy.random.default_rng`.
        confidence: $c \in (0, 1)$.

    Returns:
        `{"a", "b", "r2", "means", "a_ci", "b_ci", "predictions": [{"x", "y", "ci"}],
        "n_boot"}`.

    Raises:
        ValueError: `samples` not one sequence per $x_k$, an empty or non-finite
            sequence, a bad `at`, `n_boot` or `confidence`.

    Example:
        >>> log_linear_bootstrap([1e5, 1e6], [[0.3, 0.2], [0.1, 0.12]], at=[5e6])
    """
    u = np.log(_check_dims(x, "x"))
    if len(samples) != u.size:
        raise ValueError(f"samples must hold one sequence per x ({u.size}); got {len(samples)}.")
    vals = [_check_samples(v, f"samples[{i}]") for i, v in enumerate(samples)]
    targets = np.asarray(at, dtype=float).reshape(-1)
    if not np.all(np.isfinite(targets)) or np.any(targets <= 0):
        raise ValueError(f"at must hold finite values > 0; got {targets.tolist()}.")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1; got {n_boot!r}.")
    c = _check_confidence(confidence)
    means = np.array([v.mean() for v in vals])
    a, b, r2 = _line(u, means)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, u.size))
    for i in range(n_boot):
        for k, v in enumerate(vals):
            boot[i, k] = v[rng.integers(0, v.size, v.size)].mean()
    a_b, b_b, _ = _line(u, boot)
    q = [100 * (1 - c) / 2, 100 * (1 + c) / 2]

    def ci(draws):
        return tuple(float(z) for z in np.percentile(draws, q))

    preds = [{"x": float(t), "y": float(a + b * math.log(t)), "ci": ci(a_b + b_b * math.log(t))}
             for t in targets]  # fmt: skip
    return {
        "a": float(a), "b": float(b), "r2": float(r2), "means": means.tolist(),
        "a_ci": ci(a_b), "b_ci": ci(b_b), "predictions": preds, "n_boot": n_boot,
    }  # fmt: skip


def relative_improvement(steps, values, window: float = 0.2) -> dict[str, float]:
    r"""How much a decreasing curve (a validation loss) still fell over its last `window` of steps.

    $$s_0 = \max\{s_i : s_i \le (1 - w)\, s_{\max}\},\qquad
      \rho = \frac{v(s_0) - v(s_{\max})}{|v(s_0)|}$$

    with $w$ = `window`, $v(s_{\max})$ the value at the last step. $\rho < 0.01$
    reads "improved by less than 1 % over the last $w$ of its steps". A curve that
    rose has $\rho < 0$.

    Args:
        steps: increasing step numbers, shape `(n,)`, $n \ge 2$.
        values: the curve at those steps, finite, $v(s_0) \ne 0$.
        window: $w \in (0, 1)$.

    Returns:
        `{"from_step", "to_step", "from_value", "to_value", "improvement"}`
        (`improvement` = $\rho$).

    Raises:
        ValueError: shapes differ, fewer than 2 points, steps not increasing, no step
            at or before $(1 - w) s_{\max}$, a non-finite value, a bad `window`.

    Example:
        >>> relative_improvement([0, 80, 100], [3.0, 2.0, 1.99])["improvement"]  # 0.005
    """
    s = np.asarray(steps, dtype=float).reshape(-1)
    v = np.asarray(values, dtype=float).reshape(-1)
    if s.shape != v.shape or s.size < 2:
        raise ValueError(f"steps and values must have one shape, >= 2 points; got {s.shape}, {v.shape}.")
    if not np.all(np.diff(s) > 0):
        raise ValueError(f"steps must increase; got {s.tolist()}.")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"values must be finite; got {v.tolist()}.")
    if not (isinstance(window, (int, float)) and 0.0 < window < 1.0):
        raise ValueError(f"window must lie in (0, 1); got {window!r}.")
    start = (1.0 - window) * s[-1]
    before = np.nonzero(s <= start * (1 + 1e-12))[0]
    if before.size == 0:
        raise ValueError(f"no step at or before {start:g} = (1 - window) * {s[-1]:g}; got {s.tolist()}.")
    i = int(before[-1])
    if v[i] == 0:
        raise ValueError("the value at the window's start is 0: no relative change.")
    return {
        "from_step": float(s[i]), "to_step": float(s[-1]), "from_value": float(v[i]),
        "to_value": float(v[-1]), "improvement": float((v[i] - v[-1]) / abs(v[i])),
    }  # fmt: skip

r"""Least-squares lines through transformed data: an exponential rate ($\log p$ on $x$),
a power law ($\log\Delta$ on $\log d$) and a log-linear trend ($y$ on $\ln x$)."""

from __future__ import annotations

import math

import numpy as np

from ._arguments import check_dims


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


def power_law_rows(logd, gaps):
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
    d = check_dims(dims)
    g = np.asarray(gaps, dtype=float)
    if g.shape != d.shape:
        raise ValueError(f"gaps must have the shape of dims {d.shape}; got {g.shape}.")
    if not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ValueError(
            f"gaps must be finite and > 0 for a log-log fit; got {g.tolist()}."
        )
    alpha, C, r2 = power_law_rows(np.log(d), g)
    return {"alpha": float(alpha), "C": float(C), "r2": float(r2)}


def line_rows(u, y):
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
    u = np.log(check_dims(x, "x"))
    v = np.asarray(y, dtype=float)
    if v.shape != u.shape or not np.all(np.isfinite(v)):
        raise ValueError(f"y must be finite with the shape of x {u.shape}; got {v.tolist()}.")
    a, b, r2 = line_rows(u, v)
    return {"a": float(a), "b": float(b), "r2": float(r2)}

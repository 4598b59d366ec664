r"""The fits of `_fits.py` through per-group means, with percentile bootstrap intervals
(resampling the seeds within each group)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._arguments import check_confidence, check_dims, check_samples
from ._fits import line_rows, power_law_fit, power_law_rows


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
    d = check_dims(dims)
    if len(values) != d.size:
        raise ValueError(
            f"values must hold one sequence per d ({d.size}); got {len(values)}."
        )
    vals = [check_samples(v, f"values[{i}]") for i, v in enumerate(values)]
    base = check_samples(baseline, "baseline")
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
    alpha_b, C_b, _ = power_law_rows(np.log(d), means)
    ok = np.isfinite(alpha_b)
    q = [100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2]

    def ci(draws):
        if not ok.any():
            return (math.nan, math.nan)
        return tuple(float(x) for x in np.percentile(draws[ok], q))

    return {
        **point,
        "gaps": gaps.tolist(),
        "alpha_ci": ci(alpha_b),
        "C_ci": ci(C_b),
        "n_boot": n_boot,
        "n_invalid": int((~ok).sum()),
        "alpha_boot": alpha_b,
    }


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
    u = np.log(check_dims(x, "x"))
    if len(samples) != u.size:
        raise ValueError(
            f"samples must hold one sequence per x ({u.size}); got {len(samples)}."
        )
    vals = [check_samples(v, f"samples[{i}]") for i, v in enumerate(samples)]
    targets = np.asarray(at, dtype=float).reshape(-1)
    if not np.all(np.isfinite(targets)) or np.any(targets <= 0):
        raise ValueError(f"at must hold finite values > 0; got {targets.tolist()}.")
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 1:
        raise ValueError(f"n_boot must be an int >= 1; got {n_boot!r}.")
    c = check_confidence(confidence)
    means = np.array([v.mean() for v in vals])
    a, b, r2 = line_rows(u, means)
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, u.size))
    for i in range(n_boot):
        for k, v in enumerate(vals):
            boot[i, k] = v[rng.integers(0, v.size, v.size)].mean()
    a_b, b_b, _ = line_rows(u, boot)
    q = [100 * (1 - c) / 2, 100 * (1 + c) / 2]

    def ci(draws):
        return tuple(float(z) for z in np.percentile(draws, q))

    preds = [
        {
            "x": float(t),
            "y": float(a + b * math.log(t)),
            "ci": ci(a_b + b_b * math.log(t)),
        }
        for t in targets
    ]
    return {
        "a": float(a),
        "b": float(b),
        "r2": float(r2),
        "means": means.tolist(),
        "a_ci": ci(a_b),
        "b_ci": ci(b_b),
        "predictions": preds,
        "n_boot": n_boot,
    }

r"""Samples of a number over seeds: a summary, and the Student-t interval of their mean."""

from __future__ import annotations

import math

import numpy as np

from ._arguments import check_confidence, check_samples


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
    v = check_samples(values, "values")
    return {
        "mean": float(v.mean()),
        "std": float(v.std(ddof=1)) if v.size > 1 else 0.0,
        "median": float(np.median(v)),
        "min": float(v.min()),
        "max": float(v.max()),
        "n": int(v.size),
    }


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

    c = check_confidence(confidence)
    x = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"values must be finite; got {x.tolist()}.")
    if x.size < 2:
        return None
    half = float(t.ppf(0.5 + c / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return (float(x.mean() - half), float(x.mean() + half))

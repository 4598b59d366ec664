"""Argument checks shared by the statistics (counts, abscissae, samples, a confidence)."""

from __future__ import annotations

import numpy as np


def check_counts(k, n, confidence):
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


def check_dims(dims, name: str = "dims") -> np.ndarray:
    d = np.asarray(dims, dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"{name} must be a 1-D array of >= 2 values; got shape {d.shape}.")
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError(f"{name} must be finite and > 0; got {d.tolist()}.")
    if np.unique(d).size < 2:
        raise ValueError(f"{name} need at least two distinct values; got {d.tolist()}.")
    return d


def check_samples(values, name) -> np.ndarray:
    v = np.asarray(values, dtype=float).reshape(-1)
    if v.size == 0 or not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be a non-empty list of finite values; got {v.tolist()}.")
    return v


def check_confidence(confidence) -> float:
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1); got {confidence!r}.")
    return float(confidence)

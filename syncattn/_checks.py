"""Argument checks shared by every public function.

Conventions:

* shape and range errors are `ValueError` raised at trace time and name the
  argument, the expected shape or range, and what was received;
* NaN/inf checks run eagerly on concrete (non-traced) inputs; under `jax.jit`
  values are unknown at trace time, so value checks are skipped there (shape
  checks still run). Call the function eagerly once to validate data.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._numerics import default_floating_dtype


def is_concrete(x) -> bool:
    """True if ``x`` holds actual values (not a tracer inside jit/grad/vmap)."""
    return not isinstance(x, jax.core.Tracer)


def as_float(x, name: str):
    """``jnp.asarray(x)`` promoted to a floating dtype (integers -> default float).

    Raises:
        TypeError: if ``x`` is complex or not numeric.
    """
    try:
        arr = jnp.asarray(x)
    except TypeError as e:  # pragma: no cover - message passthrough
        raise TypeError(f"{name} must be a real array; got {type(x).__name__}.") from e
    if jnp.issubdtype(arr.dtype, jnp.complexfloating):
        raise TypeError(f"{name} must be real; got complex dtype {arr.dtype}.")
    if not jnp.issubdtype(arr.dtype, jnp.floating):
        arr = arr.astype(default_floating_dtype())
    return arr


def check_finite(x, name: str) -> None:
    """Raise ``ValueError`` if a concrete ``x`` contains NaN or inf."""
    if x is None or not is_concrete(x):
        return
    arr = np.asarray(x)
    if arr.size and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} must be finite; got {bad} NaN/inf entr{'y' if bad == 1 else 'ies'}."
        )


def check_nonempty(x, name: str, axis: int = -1) -> None:
    """Raise ``ValueError`` if ``x`` has no axis ``axis`` or it has length 0."""
    if jnp.ndim(x) == 0:
        raise ValueError(f"{name} must have at least 1 dimension; got a scalar.")
    if jnp.shape(x)[axis] == 0:
        raise ValueError(
            f"{name} must be non-empty along axis {axis}; got shape {jnp.shape(x)}."
        )


def check_scalar_range(
    x, name: str, *, low=None, high=None, low_inclusive=True, high_inclusive=True
) -> None:
    """Raise ``ValueError`` if a concrete ``x`` is non-finite or out of ``[low, high]``.

    Works elementwise on arrays. Skipped (except for shape) when ``x`` is traced.
    """
    if x is None or not is_concrete(x):
        return
    arr = np.asarray(x)
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got complex.")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {x!r}.")
    lo = "[" if low_inclusive else "("
    hi = "]" if (high_inclusive and high is not None) else ")"
    rng = f"{lo}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi}"
    if low is not None:
        bad = arr < low if low_inclusive else arr <= low
        if np.any(bad):
            raise ValueError(f"{name} must lie in {rng}; got {_short(arr)}.")
    if high is not None:
        bad = arr > high if high_inclusive else arr >= high
        if np.any(bad):
            raise ValueError(f"{name} must lie in {rng}; got {_short(arr)}.")


def check_dim(d, name: str = "d") -> int:
    """Validate a sphere dimension: an integer ``d >= 2`` (points of S^{d-1} in R^d)."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(
            f"{name} must be a Python int >= 2 (ambient dimension of S^{{{name}-1}}); got {d!r}."
        )
    if d < 2:
        raise ValueError(
            f"{name} must be >= 2 (S^{{{name}-1}} lives in R^{name}); got {name}={d}."
        )
    return int(d)


def check_count(v, name: str) -> int:
    """Validate a count: a Python int $\\ge 1$ (bools rejected)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int; got {v!r}.")
    return int(v)


def _short(arr) -> str:
    arr = np.asarray(arr)
    if arr.size <= 6:
        return repr(arr.tolist())
    return f"array of shape {arr.shape} with min {arr.min():.4g}, max {arr.max():.4g}"

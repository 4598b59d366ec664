"""Argument checks shared by every public function.

A public function checks its arguments, then calls a private core; cores call only
cores. The checks:

* shapes, dtypes, counts and dimensions: `ValueError`/`TypeError` at trace time, naming
  the argument, the expected shape or range, and what was received. Under `jit` they
  run once per trace and cost nothing per call.
* parameter ranges (times, tolerances, angles, couplings: scalars or small arrays,
  `check_scalar_range`): `ValueError` on concrete input; on traced input the same
  message through `eqx.error_if`, so a bad value fails eagerly and under `jit` alike.
  The cost is one fused comparison.
* NaN/inf in data arrays (`check_finite`): checked on concrete input. Under `jit`
  this check would add a reduction and, on accelerators, a device-to-host sync to
  every call of the attention primitives inside a training step, so it is not made:
  data flows through unchanged. Degenerate but legal data (a zero drive, a fully
  masked row, $x = 0$) has one documented finite result, identical eagerly and under
  `jit` (`tests/test_jit_consistency.py`).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._numerics import default_floating_dtype


def is_concrete(x) -> bool:
    """True if `x` holds actual values (not a tracer inside jit/grad/vmap)."""
    return not isinstance(x, jax.core.Tracer)


def as_float(x, name: str):
    """`jnp.asarray(x)` promoted to a floating dtype (integers -> default float).

    Raises:
        TypeError: if `x` is complex or not numeric.
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
    """Raise `ValueError` if a concrete `x` contains NaN or inf."""
    if x is None or not is_concrete(x):
        return
    arr = np.asarray(x)
    if arr.size and not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} must be finite; got {bad} NaN/inf entr{'y' if bad == 1 else 'ies'}."
        )


def check_nonempty(x, name: str, axis: int = -1) -> None:
    """Raise `ValueError` if `x` has no axis `axis` or it has length 0."""
    if jnp.ndim(x) == 0:
        raise ValueError(f"{name} must have at least 1 dimension; got a scalar.")
    if jnp.shape(x)[axis] == 0:
        raise ValueError(
            f"{name} must be non-empty along axis {axis}; got shape {jnp.shape(x)}."
        )


def check_scalar_range(
    x, name: str, *, low=None, high=None, low_inclusive=True, high_inclusive=True
):
    """Check that `x` is finite and in `[low, high]` (elementwise); return `x`.

    Concrete `x`: raises `ValueError` now. Traced `x` (under `jit`, `vmap`, `grad`):
    returns `eqx.error_if(x, ...)` with the same message, so the call fails at run time
    instead; callers must use the returned value. Meant for parameters (scalars and
    small arrays), where the check costs one fused comparison.
    """
    if x is None:
        return x
    lo = "[" if low_inclusive else "("
    hi = "]" if (high_inclusive and high is not None) else ")"
    rng = f"{lo}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi}"
    if not is_concrete(x):
        if jnp.iscomplexobj(x):
            raise TypeError(f"{name} must be real; got complex.")
        bad = ~jnp.isfinite(x)
        if low is not None:
            bad = bad | ((x < low) if low_inclusive else (x <= low))
        if high is not None:
            bad = bad | ((x > high) if high_inclusive else (x >= high))
        return eqx.error_if(x, jnp.any(bad), f"{name} must be finite and lie in {rng}.")
    arr = np.asarray(x)
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real; got complex.")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {x!r}.")
    if low is not None:
        bad = arr < low if low_inclusive else arr <= low
        if np.any(bad):
            raise ValueError(f"{name} must lie in {rng}; got {_short(arr)}.")
    if high is not None:
        bad = arr > high if high_inclusive else arr >= high
        if np.any(bad):
            raise ValueError(f"{name} must lie in {rng}; got {_short(arr)}.")
    return x


def check_dim(d, name: str = "d") -> int:
    """Validate a sphere dimension: an integer `d >= 2` (points of S^{d-1} in R^d)."""
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


def check_broadcast(message: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast shape of `shapes` (numpy rules); ``ValueError(message)`` when they
    do not broadcast."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(message) from None


def _short(arr) -> str:
    arr = np.asarray(arr)
    if arr.size <= 6:
        return repr(arr.tolist())
    return f"array of shape {arr.shape} with min {arr.min():.4g}, max {arr.max():.4g}"

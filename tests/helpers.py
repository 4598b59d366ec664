"""Tolerances keyed by dtype: the one place a test's closeness threshold comes from.

`tol(dtype)` is the rounding-level tolerance of a dtype (float64 about 1e-12, float32
about 1e-5, bfloat16/float16 about 2e-2). A computation that accumulates more
rounding (a long sum, a solve to `rtol=1e-11`) asks for `scale=` times that, so the
number in a test says how many rounding units it allows, not a bare literal.
A comparison that involves less rounding than the dtype's unit (the same ops run
twice, one closed form against another) asks for `scale` < 1. An absolute bound (a
quantity that cancels to ~0) is written as the difference against 0, which the
helper checks with `atol` alone.
Method errors (a solver's tolerance, finite differences, a Monte Carlo standard
error) are not rounding: they stay literal, named or commented where they arise.

Arrays are compared with `assert_close`; a scalar (or a short list, a tuple) in an
`==` comparison with `approx`, the same tolerances as a `pytest.approx`:
`assert float(v) == approx(np.log(4.0))`.
"""

import jax.numpy as jnp
import numpy as np
import pytest


TOL = {
    np.dtype("float64"): dict(rtol=1e-10, atol=1e-12),
    np.dtype("float32"): dict(rtol=1e-5, atol=1e-5),
    np.dtype(jnp.bfloat16): dict(rtol=2e-2, atol=2e-2),
    np.dtype("float16"): dict(rtol=2e-2, atol=2e-2),
}


def tol(dtype, scale: float = 1.0) -> dict:
    """`dict(rtol=..., atol=...)` for `dtype`, times `scale`."""
    base = TOL.get(np.dtype(dtype), TOL[np.dtype(jnp.bfloat16)])
    return {k: v * scale for k, v in base.items()}


def _dtype_of(x):
    dt = np.result_type(np.asarray(x).dtype if hasattr(x, "dtype") else np.float64)
    if np.issubdtype(dt, np.complexfloating):
        return np.finfo(dt).dtype
    return dt if dt in TOL else np.dtype("float64")


def assert_close(actual, desired, dtype=None, *, scale: float = 1.0, **override):
    """`np.testing.assert_allclose` at `tol(dtype, scale)` (dtype: that of `actual`)."""
    kw = {**tol(_dtype_of(actual) if dtype is None else dtype, scale), **override}
    a = np.asarray(actual)
    if a.dtype == jnp.bfloat16 or a.dtype == np.float16:
        a = a.astype(np.float32)
    np.testing.assert_allclose(a, np.asarray(desired), **kw)


def approx(expected, dtype=None, *, scale: float = 1.0):
    """`pytest.approx(expected)` with `rel`/`abs` from `tol(dtype, scale)`.

    `dtype` is that of the computed value (default: that of `expected`, float64 for
    a Python number). As with `pytest.approx`, the check passes within the larger of
    `rel * |expected|` and `abs`.
    """
    t = tol(_dtype_of(expected) if dtype is None else dtype, scale)
    return pytest.approx(expected, rel=t["rtol"], abs=t["atol"])

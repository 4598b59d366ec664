"""Tolerances keyed by dtype, and tiny float64 reference helpers for tests."""

import jax.numpy as jnp
import numpy as np


TOL = {
    np.dtype("float64"): dict(rtol=1e-10, atol=1e-12),
    np.dtype("float32"): dict(rtol=1e-5, atol=1e-5),
    np.dtype("bfloat16") if hasattr(np, "bfloat16") else "bf16": dict(
        rtol=2e-2, atol=2e-2
    ),
}


def tol(dtype):
    return TOL.get(np.dtype(dtype), dict(rtol=2e-2, atol=2e-2))


def assert_close(actual, desired, dtype=jnp.float64, **override):
    kw = {**tol(dtype), **override}
    np.testing.assert_allclose(np.asarray(actual), np.asarray(desired), **kw)

"""`syncattn._numerics.softplus` against float64 NumPy: value and derivative, float32 and
float64, across the range (large negative, zero, large positive)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from syncattn._numerics import softplus

from .helpers import assert_close


def _np(x):
    x = np.asarray(x, np.float64)
    return np.logaddexp(x, 0.0), 1.0 / (1.0 + np.exp(-x))


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_value_and_derivative_match_numpy(dtype):
    x = np.concatenate([np.linspace(-30, 30, 2001), [-100.0, -1e-8, 0.0, 1e-8, 88.0]])
    xs = jnp.asarray(x, dtype)
    want, dwant = _np(xs)  # at the rounded input: the error is the function's alone
    got = softplus(xs)
    dgot = jax.vmap(jax.grad(softplus))(xs)
    assert got.dtype == dtype and dgot.dtype == dtype
    # float32: a few ulp of the value (relative), absolute at the tiny tail
    rtol, atol = (4e-7, 1e-30) if dtype == jnp.float32 else (1e-15, 1e-300)
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.asarray(dgot, np.float64), dwant, rtol=rtol, atol=atol)


@settings(max_examples=50, deadline=None)
@given(st.floats(-80, 80, allow_nan=False, width=32))
def test_float32_relative_error(x):
    want = _np(np.float32(x))[0]
    got = float(softplus(jnp.float32(x)))
    assert abs(got - want) <= 4e-7 * want + 1e-37


def test_bfloat16_is_computed_in_float32():
    x = jnp.linspace(-5, 5, 11, dtype=jnp.bfloat16)
    got = softplus(x)
    assert got.dtype == jnp.bfloat16
    assert_close(got.astype(jnp.float32), jax.nn.softplus(x.astype(jnp.float32)), scale=1,
                 rtol=1e-2, atol=1e-2)

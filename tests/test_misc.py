"""Tests for the shared helpers in syncattn._numerics and syncattn._checks.

The sin/cos tolerances below are the kernel's accuracy claim in ulps (the subject of
the tests), so they stay literal rather than coming from `tests/helpers.py`.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import _checks, _numerics


@pytest.mark.parametrize("scale", [1.0, 1e2, 1e4, 1e6, 1e8])
def test_sincos_matches_libm(scale):
    x = np.random.default_rng(0).uniform(-scale, scale, 20001)
    x[:5] = [0.0, np.pi / 4, -np.pi / 4, np.pi / 2, np.nextafter(np.pi / 4, 1)]
    s, c = _numerics.sincos(jnp.asarray(x))
    # within a few ulp of 1, or of the argument's own representation error for huge |x|
    tol = max(4e-16, 4 * scale * 2.0**-53)
    np.testing.assert_allclose(s, np.sin(x), rtol=0, atol=tol)
    np.testing.assert_allclose(c, np.cos(x), rtol=0, atol=tol)


def test_sincos_grad_dtype_and_vmap():
    g = jax.grad(lambda t: _numerics.sincos(t)[0] + 2 * _numerics.sincos(t)[1])(0.7)
    # the derivative of the kernel, to its ulp-level accuracy claim (see above)
    assert float(g) == pytest.approx(np.cos(0.7) - 2 * np.sin(0.7), abs=1e-15)
    s32, c32 = _numerics.sincos(jnp.linspace(0, 3, 5, dtype=jnp.float32))
    assert s32.dtype == jnp.float32
    np.testing.assert_allclose(c32, np.cos(np.linspace(0, 3, 5)), atol=1e-6)
    s, _ = jax.vmap(_numerics.sincos)(jnp.arange(3.0))
    np.testing.assert_allclose(s, np.sin(np.arange(3.0)), atol=1e-15)


def test_safe_norm_grad_finite_at_zero():
    g = jax.grad(lambda x: _numerics.safe_norm(x))(jnp.zeros(3))
    assert np.all(np.isfinite(g))
    assert float(_numerics.safe_norm(jnp.array([3.0, 4.0]))) == 5.0


def test_check_dim_and_ranges():
    with pytest.raises(ValueError, match="d must be >= 2"):
        _checks.check_dim(1)
    with pytest.raises(TypeError, match="d must be a Python int"):
        _checks.check_dim(2.5)
    with pytest.raises(ValueError, match=r"tol must lie in \[0.0, inf\)"):
        _checks.check_scalar_range(-1.0, "tol", low=0.0)
    with pytest.raises(ValueError, match="x must be finite"):
        _checks.check_finite(jnp.array([1.0, jnp.nan]), "x")


@pytest.mark.parametrize("scale", [1.0, 1e2, 1e4])
def test_sincos_float32_and_bfloat16(scale):
    x = np.random.default_rng(1).uniform(-scale, scale, 20001).astype(np.float32)
    s, c = _numerics.sincos(jnp.asarray(x))
    assert s.dtype == c.dtype == jnp.float32
    x64 = x.astype(np.float64)  # the exact sine of the float32 argument
    np.testing.assert_allclose(
        np.asarray(s, np.float64), np.sin(x64), rtol=0, atol=2e-7
    )
    np.testing.assert_allclose(
        np.asarray(c, np.float64), np.cos(x64), rtol=0, atol=2e-7
    )
    sb, cb = _numerics.sincos(jnp.asarray(x[:50], jnp.bfloat16))
    assert sb.dtype == jnp.bfloat16
    xb = np.asarray(jnp.asarray(x[:50], jnp.bfloat16), np.float64)
    np.testing.assert_allclose(np.asarray(cb, np.float64), np.cos(xb), atol=1e-2)

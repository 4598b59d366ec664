"""Additive position encodings against a float64 loop."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models

from ..helpers import assert_close


def _sinusoid_loop(T, d):
    # Vaswani et al.: PE(t, 2i) = sin(t / 10000^(2i/d)), PE(t, 2i+1) = cos(same).
    out = np.zeros((T, d))
    for t in range(T):
        for c in range(d):
            i = c // 2
            angle = t / 10000.0 ** (2 * i / d)
            out[t, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return out


@pytest.mark.parametrize("T, d", [(1, 2), (7, 8), (50, 32), (13, 5)])
def test_sinusoidal_matches_loop(T, d):
    got = models.sinusoidal_positions(T, d, dtype=jnp.float64)
    assert_close(got, _sinusoid_loop(T, d), scale=0.1)  # |P| <= 1


def test_sinusoidal_dtypes_and_errors():
    assert models.sinusoidal_positions(4, 6, dtype=jnp.bfloat16).dtype == jnp.bfloat16
    assert models.sinusoidal_positions(4, 6, dtype=jnp.float32).dtype == jnp.float32
    with pytest.raises(ValueError, match="length and d_model must be >= 1"):
        models.sinusoidal_positions(0, 4)


def test_learned_positions():
    pos = models.LearnedPositions(10, 4, key=jax.random.key(0))
    assert pos.weight.shape == (10, 4)
    np.testing.assert_array_equal(pos(3), pos.weight[:3])
    # initialised N(0, 0.02^2), as seed 001's code
    big = models.LearnedPositions(1000, 100, key=jax.random.key(1))
    assert abs(float(jnp.std(big.weight)) - 0.02) < 0.001

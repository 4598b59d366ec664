"""The shared diffrax problem of tests/lohe (one compile of the forward solve)."""

import jax
import jax.numpy as jnp

from syncattn import lohe, sphere


# Shared diffrax problem. diffrax compiles are the slow part of this file, so every
# eager diffrax solve has the same shapes (B configurations of N oscillators in R^D,
# dense coupling, Omega, 11 save times) and tolerances: diffrax compiles the forward
# solve once (then one gradient and one jit + vmap compile in their own tests).
B, N, D = 13, 5, 3
TIGHT = dict(rtol=1e-11, atol=1e-13, saveat=11)


def solve(x0, Omega, K, t1):
    return lohe.simulate(x0, Omega, K, t1, **TIGHT)


def skew(key, n, d, scale=1.0):
    A = jax.random.normal(key, (n, d, d))
    return scale * 0.5 * (A - jnp.swapaxes(A, -1, -2))


X0 = sphere.sample_uniform(jax.random.key(0), (B, N), D)
OMEGA = skew(jax.random.key(1), N, D, 0.7)
KMAT = 2.0 / N + 0.3 * jax.random.normal(jax.random.key(2), (N, N))

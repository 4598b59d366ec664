"""The noisy fixed-query flow through the library's SDE driver (for the theorem checks).

dz = (I - z z^T) h dt + sigma (I - z z^T) o dW on S^{d-1}, many independent paths, solved
by `syncattn._simulate.solve` (diffrax Heun, VirtualBrownianTree, retraction onto the
sphere after each step): the same path as every noisy flow of the library.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np


def _rhs(
    t, z, h
):  # |z|^2 h - <z, h> z: the fixed-query field, orthogonal to z everywhere
    return jnp.sum(z * z, -1, keepdims=True) * h - jnp.sum(z * h, -1, keepdims=True) * z


def _order(z):
    Z = jnp.mean(z, axis=-2)
    return Z, jnp.linalg.norm(Z, axis=-1)


def fixed_query_sde(
    h, sigma, t1, *, paths, dt0, key, saveat=None, z0=None, solver=None
):
    """`(ts, z)`: `z` of shape `(S, paths, d)` at `S` save times (default every 0.1)."""
    from syncattn import _simulate as driver

    h = jnp.asarray(h, jnp.float64)
    d = h.shape[-1]
    if z0 is None:
        z0 = jnp.broadcast_to(h / jnp.linalg.norm(h), (paths, d))
    noise, solver, dt0 = driver.check_noise(
        sigma,
        key,
        solver=solver,
        dt0=dt0,
        max_steps=10**7,
        dtype=jnp.float64,
        project=driver.project_sphere,
        retract=driver.retract_sphere,
    )
    n_save = int(round(t1 / 0.1)) + 1 if saveat is None else saveat
    ts = jnp.linspace(0.0, t1, n_save)
    sol = driver.solve(
        _rhs,
        _order,
        jnp.asarray(z0, jnp.float64),
        h,
        jnp.asarray(t1, jnp.float64),
        ts,
        solver,
        None,
        dt0,
        10**7,
        True,
        noise,
    )
    return np.asarray(sol.ts), np.asarray(sol.states)

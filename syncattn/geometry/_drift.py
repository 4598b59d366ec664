r"""The rotary drift shared by the geometries: plane rotations $e^{-t\Omega}$."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._types import Array


DRIFTS = ("planes", "full", "none")


def check_drift(drift: str) -> str:
    if drift not in DRIFTS:
        raise ValueError(f"drift must be one of {DRIFTS}; got {drift!r}.")
    return drift


def plane_generator(rates: Array, n: int) -> Array:
    r"""The skew generator of the plane rotations: rates $\omega_{jp}$ $(\dots, P)$ to
    $\Omega_j = \sum_{p < P} \omega_{jp}\,(e_{2p} e_{2p+1}^\top - e_{2p+1} e_{2p}^\top)$
    $(\dots, n, n)$, so that $e^{-t\Omega_j}$ turns the plane $(2p, 2p+1)$ by
    $+\omega_{jp} t$ (at $n = 2$ the torus drift $\theta \mapsto \theta + \omega t$)."""
    P = rates.shape[-1]
    Om = jnp.zeros(rates.shape[:-1] + (n, n), rates.dtype)
    idx = np.arange(P)
    Om = Om.at[..., 2 * idx, 2 * idx + 1].set(rates)
    return Om.at[..., 2 * idx + 1, 2 * idx].set(-rates)

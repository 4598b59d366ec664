"""The brute-force float64 reference of tests/kuramoto: the field as a double loop."""

import numpy as np


def loop_field(theta, omega, K, alpha=0.0):
    """Brute-force float64 double loop: omega_i + sum_j K_ij sin(theta_j - theta_i - alpha)."""
    theta = np.asarray(theta, np.float64)
    n = theta.shape[-1]
    out = np.array(np.broadcast_to(omega, theta.shape), dtype=np.float64)
    for i in range(n):
        for j in range(n):
            out[..., i] += K[i, j] * np.sin(theta[..., j] - theta[..., i] - alpha)
    return out


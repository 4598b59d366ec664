"""Brute-force float64 references for tests/kuramoto/test_daido.py: explicit loops."""

import numpy as np


def loop_daido(theta, omega, K, a, alpha):
    """omega_i + sum_j K_ij sum_m a_m sin(m (theta_j - theta_i) - alpha_m), as a triple loop."""
    theta = np.asarray(theta, np.float64)
    n = theta.shape[-1]
    out = np.array(np.broadcast_to(omega, theta.shape), dtype=np.float64)
    for i in range(n):
        for j in range(n):
            for m, (am, alm) in enumerate(zip(a, alpha), start=1):
                out[..., i] += K[i, j] * am * np.sin(m * (theta[..., j] - theta[..., i]) - alm)
    return out


def H(phi, a, alpha):
    """The coupling function sum_m a_m sin(m phi - alpha_m)."""
    return sum(am * np.sin(m * np.asarray(phi) - alm) for m, (am, alm) in enumerate(zip(a, alpha), 1))


def fd_jacobian(f, x, h=1e-6):
    """Central-difference Jacobian of f: R^n -> R^n at x (float64)."""
    x = np.asarray(x, np.float64)
    J = np.empty((x.size, x.size))
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = h
        J[:, k] = (f(x + e) - f(x - e)) / (2 * h)
    return J

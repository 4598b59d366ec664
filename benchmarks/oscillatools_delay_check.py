"""A correctness check of oscillatools 0.1.0's delayed-branch stability, with its own integrator.

oscillatools' `kuramoto_delayed_mean_field.is_synchronised_branch_stable` calls a locked
branch Omega = omega - K sin(Omega tau) stable iff 1 + K tau cos(Omega tau) > 0.
syncattn's `delay_locked_frequencies` (statement 22, proofs/proof_delay_locking.py) uses
K cos(Omega tau) > 0: the zero-sum perturbations of the in-phase state obey
phi_i' = c (mean phi(t - tau) - phi_i(t)) with c = K cos(Omega tau), and grow when c < 0.
The criteria differ where -1/(K tau) < cos(Omega tau) < 0. This script finds such a
branch (omega = 1, K = 0.5, tau = 3: Omega = 1.4826, c = -0.131, 1 + K tau cos = 0.608) and
integrates oscillatools' own `integrate_delayed_kuramoto` from the exact rotating history
theta_j(t) = Omega t + 1e-3 xi_j on [-tau, 0] (N = 8, dt = 0.01, t = 300): the synchronous
state falls apart (r: 1 -> 0), while on the branch both call stable it persists.

Usage: python benchmarks/oscillatools_delay_check.py   (about a minute on 2 loaded cores)
"""

import numpy as np
from oscillatools.accel.kuramoto_delayed import (
    delayed_mean_field_force,
    integrate_delayed_kuramoto,
)
from oscillatools.accel.kuramoto_delayed_mean_field import is_synchronised_branch_stable

from syncattn import kuramoto


def main():
    w, K, tau, N, dt = 1.0, 0.5, 3.0, 8, 0.01
    roots, stable = kuramoto.delay_locked_frequencies(w, K, tau)
    theirs = [bool(is_synchronised_branch_stable(o, K, tau)) for o in roots]
    print(f"omega={w}, K={K}, tau={tau}: roots {np.round(roots, 4).tolist()}")
    print(f"  syncattn stable (K cos > 0):            {stable.tolist()}")
    print(f"  oscillatools stable (1 + K tau cos > 0): {theirs}")
    lag = int(round(tau / dt))
    ts = dt * np.arange(-lag, 1)
    xi = 1e-3 * np.random.default_rng(0).standard_normal(N)
    for Om, ours, their in zip(roots, stable, theirs, strict=True):
        if not (ours or their):
            continue
        hist = Om * ts[:, None] + xi[None, :]
        tr = integrate_delayed_kuramoto(
            hist, np.full(N, w), lambda a, b: delayed_mean_field_force(a, b, K),
            delay=tau, dt=dt, n_steps=30_000,
        )
        r = tr.order_parameter_series
        print(f"  Omega={Om:.4f} (syncattn: {'stable' if ours else 'unstable'}, oscillatools: "
              f"{'stable' if their else 'unstable'}): oscillatools' integrator from the locked "
              f"history: r(0)={r[0]:.4f} -> r(300)={r[-1]:.4f}")


if __name__ == "__main__":
    main()

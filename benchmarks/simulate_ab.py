"""Time `kuramoto.simulate` of whatever `syncattn` is importable, for A/B runs of two revisions.

Usage (alternate the two trees in one session, so that load hits both alike):

    git worktree add --detach /tmp/old REV
    for t in /tmp/old "$PWD" /tmp/old "$PWD"; do
        (cd /tmp && PYTHONPATH=$t python "$OLDPWD/benchmarks/simulate_ab.py" 100000 3e-5 3 "$t")
    done

Arguments: N, rtol, repeats, label. Problem: all-to-all Kuramoto, K = 2, Lorentzian
frequencies (gamma = 0.5, numpy seed 0), uniform phases, t in [0, 100], 201 save points,
Dopri5, atol = rtol / 100, float64. Prints the step count and the min / median warm time.
"""

import sys
import time

import jax


jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from syncattn import kuramoto  # noqa: E402


def main() -> None:
    n, rtol, repeats, label = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = np.random.default_rng(0)
    omega = jnp.asarray(0.5 * np.tan(np.pi * (rng.random(n) - 0.5)))
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, n))

    def solve():
        sol = kuramoto.simulate(
            theta0, omega, 2.0, 100.0, saveat=201, rtol=rtol, atol=rtol * 1e-2,
            solver="dopri5", save_phases=False,
        )
        return jax.block_until_ready(sol)

    sol = solve()  # compile
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sol = solve()
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"{label} N={n} steps={int(sol.num_steps)} min={times[0]:.4f}s median={times[len(times) // 2]:.4f}s")


if __name__ == "__main__":
    main()

"""``syncattn demo``: a short tour of the verified flows (runs in seconds, no download)."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="syncattn demo", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="PRNG seed (default 0)")
    parser.add_argument(
        "--n", type=int, default=2000, help="number of Kuramoto oscillators"
    )
    args = parser.parse_args(argv)

    import jax
    import jax.numpy as jnp
    import numpy as np

    from . import kuramoto, lohe, sphere

    jax.config.update("jax_enable_x64", True)
    key = jax.random.key(args.seed)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    gamma = 0.5
    print(
        f"Kuramoto, N={args.n} Lorentzian oscillators (gamma={gamma}), uniform start, t in [0, 60]:"
    )
    omega = kuramoto.sample_lorentzian(k1, (args.n,), gamma)
    theta0 = jax.random.uniform(k2, (args.n,), minval=-np.pi, maxval=np.pi)
    print(f"  {'K':>5} {'r simulated':>12} {'r theory':>9}")
    for K in (0.5, 1.5, 2.0, 3.0):
        sol = kuramoto.simulate(
            theta0, omega, K, 60.0, saveat=121, save_phases=False, rtol=1e-5, atol=1e-7
        )
        r = float(jnp.mean(sol.r[60:]))
        print(
            f"  {K:5.2f} {r:12.3f} {float(kuramoto.lorentzian_order_parameter(K, gamma)):9.3f}"
        )

    d = 8
    h = jax.random.normal(k3, (d,))
    z0 = sphere.sample_uniform(k4, (5,), d)
    zstar, degenerate = lohe.equilibrium(h)
    phi0 = jnp.arccos(jnp.clip(z0 @ zstar, -1, 1))
    print(
        f"\nFixed-query Lohe flow on S^{d - 1}, ||h|| = {float(jnp.linalg.norm(h)):.3f}, t = 3:"
    )
    print(f"  {'phi0':>6} {'phi(3) exact':>13}")
    for p in phi0:
        print(
            f"  {float(p):6.3f} {float(lohe.exact_angle(p, jnp.linalg.norm(h), 3.0)):13.2e}"
        )
    print(
        f"  P(start within 0.1 rad of the antipode) = {float(lohe.antipodal_probability(0.1, d)):.2e}"
    )
    print(
        "\nNext: `syncattn verify` runs every proof; `syncattn study failure` plots the failure odds."
    )
    return 0

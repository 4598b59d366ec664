"""Strong and weak convergence of the noisy flows against a reference on the same Brownian path.

Problems (issue 19, section 1), both through the library's SDE path (diffrax Heun,
Stratonovich, constant steps, `VirtualBrownianTree` of resolution dt/2), i.e. the public
`lohe.settle(..., noise=)` and `kuramoto.simulate(..., noise=)`:

* sphere: the noisy fixed-query flow dz = (I - zz^T) h dt + sigma (I - zz^T) o dW on
  S^2, h = (1, 0.5, 0), sigma = 0.7, z0 = e_3, t1 = 1, M independent paths (one batched
  solve: the Brownian tree has one component per path and coordinate);
* torus: noisy Kuramoto, N = 8, frequencies N(0, 0.5^2), K = 1.5, sigma = 0.5, t1 = 1,
  M paths (`kuramoto.simulate` on a batch of initial phases).

Steps dt = 2^-k, k = 2..7, reference dt = 2^-11 with the same key: the step points are
dyadic, so every run sees the same Brownian values there. Strong error:
E|y_dt(t1) - y_ref(t1)|; weak error: |E f(y_dt(t1)) - E f(y_ref(t1))| for f = h_hat . z
(sphere) and f = R (torus), over the same paths. Slopes are least-squares fits of
log error on log dt. Expected: strong 1/2 on the sphere (non-commutative noise),
1 on the torus (additive noise); weak 1 for both.

Usage:
    python benchmarks/sde_convergence.py [--paths 256] [--seed 0]
Writes benchmarks/results/sde_convergence/{results.json, convergence.png}.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm


jax.config.update("jax_enable_x64", True)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from syncattn import kuramoto, lohe  # noqa: E402


OUT = Path(__file__).resolve().parent / "results" / "sde_convergence"
H = jnp.array([1.0, 0.5, 0.0])


def sphere(dt, paths, key):
    z0 = jnp.broadcast_to(jnp.array([0.0, 0.0, 1.0]), (paths, 3))
    sol = lohe.settle(z0, H, 1.0, noise=0.7, key=key, dt0=dt, max_steps=10**6)
    z = np.asarray(sol.final)
    return z, z @ np.asarray(H / jnp.linalg.norm(H))


def torus(dt, paths, key):
    g = np.random.default_rng(0)
    omega = jnp.asarray(g.normal(0, 0.5, 8))
    th0 = jnp.asarray(g.uniform(-np.pi, np.pi, (paths, 8)))
    sol = kuramoto.simulate(
        th0, omega, 1.5, 1.0, saveat=None, noise=0.5, key=key, dt0=dt
    )
    th = np.asarray(sol.final)
    return th, np.abs(np.exp(1j * th).mean(-1))


def slope(dts, err):
    return float(np.polyfit(np.log(dts), np.log(err), 1)[0])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--paths", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--kmin", type=int, default=2)
    p.add_argument("--kmax", type=int, default=7)
    p.add_argument("--kref", type=int, default=11)
    args = p.parse_args(argv)
    key = jax.random.key(args.seed)
    ks = list(range(args.kmin, args.kmax + 1))
    dts = [2.0**-k for k in ks]
    results, t0 = {}, time.perf_counter()
    bar = tqdm(total=2 * (len(ks) + 1), desc="solves")
    for name, fn in (("sphere", sphere), ("torus", torus)):
        y_ref, f_ref = fn(2.0**-args.kref, args.paths, key)
        bar.update()
        strong, weak, strong_se = [], [], []
        for dt in dts:
            y, f = fn(dt, args.paths, key)
            e = np.linalg.norm(y - y_ref, axis=-1)
            strong.append(float(e.mean()))
            strong_se.append(float(e.std(ddof=1) / np.sqrt(len(e))))
            weak.append(float(abs(f.mean() - f_ref.mean())))
            bar.update()
        results[name] = dict(
            dt=dts,
            strong=strong,
            strong_se=strong_se,
            weak=weak,
            strong_order=slope(dts, strong),
            weak_order=slope(dts, weak),
        )
    bar.close()
    OUT.mkdir(parents=True, exist_ok=True)
    record = dict(
        config=vars(args)
        | dict(
            command="python benchmarks/sde_convergence.py "
            + " ".join(argv if argv is not None else sys.argv[1:])
        ),
        seconds=round(time.perf_counter() - t0, 1),
        platform=platform.platform(),
        jax=jax.__version__,
        results=results,
    )
    (OUT / "results.json").write_text(json.dumps(record, indent=2) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, (name, r) in zip(axes, results.items()):
        dt = np.array(r["dt"])
        ax.loglog(dt, r["strong"], "o-", label=f"strong, slope {r['strong_order']:.2f}")
        ax.loglog(dt, r["weak"], "s-", label=f"weak, slope {r['weak_order']:.2f}")
        ax.loglog(
            dt, r["strong"][0] * (dt / dt[0]) ** 0.5, "k:", lw=0.8, label="dt^1/2"
        )
        ax.loglog(dt, r["strong"][0] * (dt / dt[0]), "k--", lw=0.8, label="dt")
        ax.set_title(f"{name} (Heun, {args.paths} paths)")
        ax.set_xlabel("dt")
        ax.legend(fontsize=7)
    axes[0].set_ylabel(f"error vs dt = 2^-{args.kref}, same path")
    fig.tight_layout()
    fig.savefig(OUT / "convergence.png", dpi=120)
    for name, r in results.items():
        print(
            f"{name}: strong order {r['strong_order']:.2f}, weak order {r['weak_order']:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

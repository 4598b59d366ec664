r"""Study `inertia_hysteresis`: the hysteresis loop of the Kuramoto flow with inertia.

$$m\ddot\theta_i + \dot\theta_i = \omega_i + \frac KN\sum_j\sin(\theta_j - \theta_i)$$

with Gaussian natural frequencies (deterministic quantiles
$\omega_i = \sigma\,\Phi^{-1}((i - \tfrac12)/N)$), integrated by
[`syncattn.kuramoto.inertial_simulate`][] while $K$ is swept **adiabatically**: up the grid
from uniformly random phases at rest, then back down, each $K$ starting from the final
phases and velocities of the previous one. The order parameter of each $K$ is averaged
over the second half of its stay. For $m > 0$ the two branches of $r(K)$ differ (the
incoherent state survives past $K_c$ on the way up, the locked one below it on the way
down: Tanaka, Lichtenberg and Oishi, *Phys. Rev. Lett.* 78, 2104 (1997)); for $m = 0$
([`syncattn.kuramoto.simulate`][], which `inertial_simulate` runs at $m = 0$) they
coincide, on Kuramoto's self-consistent branch
([`syncattn.kuramoto.self_consistent_order_parameter`][]) above
$K_c = 2/(\pi g(0))$ ([`syncattn.kuramoto.critical_coupling`][]).
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "inertia_hysteresis"

__all__ = ["Config", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `inertia_hysteresis` study."""

    seed: int = 0  # PRNG seed of the initial phases
    n: int = 2000  # oscillators N
    sigma: float = 1.0  # Gaussian frequency standard deviation
    masses: tuple[float, ...] = (0.0, 2.0)  # inertia m of each loop (0: first order)
    couplings: tuple[float, ...] = tuple(round(0.5 * k, 2) for k in range(17))  # K, swept up then down
    t_per_k: float = 60.0  # time spent at each K; r is averaged over its second half
    n_save: int = 61  # save points per K
    rtol: float = 1e-5
    atol: float = 1e-7

    @classmethod
    def smoke(cls) -> Config:
        """Test size: seconds."""
        return cls(n=200, couplings=(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0), t_per_k=30.0,
                   n_save=31)

    @classmethod
    def full(cls) -> Config:
        """Publication size: N = 1e4, three masses, a finer grid, longer stays."""
        return cls(n=10_000, masses=(0.0, 1.0, 2.0, 4.0),
                   couplings=tuple(round(0.25 * k, 2) for k in range(41)), t_per_k=150.0,
                   n_save=151)

    def __post_init__(self):
        if self.n < 2:
            raise ValueError(f"n must be >= 2; got {self.n}.")
        if not self.masses or any(not (m >= 0 and math.isfinite(m)) for m in self.masses):
            raise ValueError(f"masses must be finite and >= 0 (0: first order); got {self.masses}.")
        if len(self.couplings) < 2 or list(self.couplings) != sorted(self.couplings):
            raise ValueError(
                f"couplings must be an increasing grid of at least 2 K (it is swept up, then "
                f"down); got {self.couplings}."
            )
        if self.sigma <= 0 or self.t_per_k <= 0 or self.n_save < 3:
            raise ValueError("sigma and t_per_k must be > 0 and n_save >= 3.")


def _theory(config: Config) -> dict:
    """K_c and the first-order (m = 0) self-consistent branch of the Gaussian density."""
    from scipy import stats

    from .. import kuramoto

    pdf = stats.norm(scale=config.sigma).pdf
    g0 = float(pdf(0.0))
    Kc = float(kuramoto.critical_coupling(g0))
    return {
        "K_c": Kc,
        "r": lambda K: float(kuramoto.self_consistent_order_parameter(K, lambda w: float(pdf(w)))),
    }


def _sweep(theta, velocity, omega, mass, couplings, config, dtype):
    """One adiabatic pass over `couplings`; returns (r_mean, r_std, theta, velocity)."""
    import jax.numpy as jnp

    from .. import kuramoto

    means, stds = [], []
    for K in couplings:
        sol = kuramoto.inertial_simulate(
            theta, omega, jnp.asarray(K, dtype), config.t_per_k, mass=mass,
            velocity0=velocity, saveat=config.n_save, rtol=config.rtol, atol=config.atol,
            save_phases=False,
        )
        theta, velocity = sol.final, sol.final_velocity
        r = np.asarray(sol.r)[config.n_save // 2:]
        means.append(float(r.mean()))
        stds.append(float(r.std()))
    return means, stds, theta, velocity


def run(config: Config, out: str | Path | None = None, *, progress: bool = False) -> dict:
    r"""Run the study; write `inertia_hysteresis.png`, `branches.csv`, `results.json` and
    `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        A dict with, per mass, the up and down branches `r_up`, `r_down` (and their standard
        deviations over the averaging window), the largest gap between them, the loop area
        $\int (r_{down} - r_{up})\,dK$ (trapezoid), and the couplings where each branch first
        exceeds $r = 1/2$; plus $K_c$ and the $m = 0$ theory on the grid.
    """
    import jax
    import jax.numpy as jnp
    from scipy import stats

    t0 = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    n = config.n
    omega = jnp.asarray(config.sigma * stats.norm.ppf((np.arange(1, n + 1) - 0.5) / n), dtype)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, n), dtype)
    Ks = np.asarray(config.couplings, float)
    theory = _theory(config)
    per = {}
    for m in _common.progress(config.masses, desc="masses (up and down)", enabled=progress):
        v0 = jnp.zeros_like(theta0)
        up, up_s, th, v = _sweep(theta0, v0, omega, m, Ks, config, dtype)
        down, down_s, _, _ = _sweep(th, v, omega, m, Ks[::-1], config, dtype)
        down, down_s = down[::-1], down_s[::-1]
        gap = np.asarray(down) - np.asarray(up)
        per[f"{m:g}"] = {
            "mass": m,
            "r_up": up,
            "r_up_std": up_s,
            "r_down": down,
            "r_down_std": down_s,
            "max_gap": float(np.max(np.abs(gap))),
            "loop_area": float(np.sum(0.5 * (gap[1:] + gap[:-1]) * np.diff(Ks))),
            "K_up": _first_above(Ks, up),
            "K_down": _first_above(Ks, down),
        }
    r_theory = [theory["r"](K) for K in Ks]
    zero = per.get("0")
    if zero is not None:  # first order against Kuramoto's branch, away from K_c
        far = np.abs(Ks / theory["K_c"] - 1.0) >= 0.2
        err = np.abs(np.r_[zero["r_up"], zero["r_down"]] - np.r_[r_theory, r_theory])
        zero["max_error_vs_theory"] = float(err[np.r_[far, far]].max())
    results = {
        "K": Ks,
        "K_c": theory["K_c"],
        "r_theory_m0": r_theory,
        "masses": per,
        "n": n,
        "seconds": time.perf_counter() - t0,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out), theory)
    return results


def _first_above(Ks, r, level=0.5):
    """The smallest grid K whose r exceeds `level` (NaN if none)."""
    above = np.flatnonzero(np.asarray(r) > level)
    return float(Ks[above[0]]) if above.size else float("nan")


def _write(results: dict, config: Config, out: Path, theory: dict) -> None:
    Ks, Kc = results["K"], results["K_c"]
    fig, axes = _common.new_figure(len(results["masses"]), 1, width=4.4, height=3.5)
    grid = np.linspace(0.0, Ks[-1], 200)
    curve = [theory["r"](K) for K in grid]
    for ax, (key, p) in zip(axes, results["masses"].items(), strict=True):
        ax.plot(grid, curve, "-", color="0.6", lw=1.2, label="theory, $m=0$")
        ax.errorbar(Ks, p["r_up"], yerr=p["r_up_std"], fmt="-^", color="C3", ms=5,
                    lw=1.2, capsize=2, label="K increasing")
        ax.errorbar(Ks, p["r_down"], yerr=p["r_down_std"], fmt="--v", color="C0", ms=5,
                    lw=1.2, mfc="none", capsize=2, label="K decreasing")
        ax.axvline(Kc, color="k", ls=":", lw=1)
        ax.text(Kc, 0.02, f" $K_c={Kc:.2f}$", fontsize=8)
        ax.set(xlabel="coupling $K$", ylabel="$\\bar r$ (2nd half of each step)",
               ylim=(-0.02, 1.02),
               title=f"$m = {p['mass']:g}$: loop area {p['loop_area']:.2f}")
        ax.legend(fontsize=8, loc="center right")
    fig.suptitle(f"Kuramoto with inertia, Gaussian $\\sigma={config.sigma:g}$, N={config.n}, "
                 f"{config.t_per_k:g} time units per K", fontsize=10)
    _common.save_figure(fig, out / "inertia_hysteresis.png")
    cols = {"mass": [], "K": [], "r_up": [], "r_up_std": [], "r_down": [], "r_down_std": [],
            "r_theory_m0": []}
    for p in results["masses"].values():
        for i, K in enumerate(Ks):
            for col, v in (("mass", p["mass"]), ("K", K), ("r_up", p["r_up"][i]),
                           ("r_up_std", p["r_up_std"][i]), ("r_down", p["r_down"][i]),
                           ("r_down_std", p["r_down_std"][i]),
                           ("r_theory_m0", results["r_theory_m0"][i])):
                cols[col].append(v)
    _common.write_csv(out / "branches.csv", cols)
    keep = ("mass", "max_gap", "loop_area", "K_up", "K_down", "max_error_vs_theory")
    _common.write_json(out / "results.json", {
        "study": NAME,
        "K_c": Kc,
        "masses": {k: {f: p[f] for f in keep if f in p} for k, p in results["masses"].items()},
        "seconds": results["seconds"],
    })
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    lines = [f"inertia_hysteresis: adiabatic K sweeps up and down, N={results['n']}, "
             f"K_c={results['K_c']:.3f}"]
    for p in results["masses"].values():
        extra = (f", max|r - theory| away from K_c {p['max_error_vs_theory']:.3f}"
                 if "max_error_vs_theory" in p else "")
        lines.append(
            f"  m={p['mass']:g}: r > 1/2 from K={p['K_up']:g} going up, down to K={p['K_down']:g} "
            f"coming down; max|r_down - r_up| {p['max_gap']:.3f}, loop area {p['loop_area']:.3f}"
            + extra
        )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)

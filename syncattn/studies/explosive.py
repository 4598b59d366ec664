r"""Study `explosive`: the abrupt (explosive) transition of the simplicial Kuramoto model.

$$\dot\theta_i = \omega_i + \frac{K_1}N\sum_j\sin(\theta_j - \theta_i)
  + \frac{K_2}{N^2}\sum_{j,l}\sin(2\theta_j - \theta_l - \theta_i)$$

(Skardal and Arenas 2019) with Lorentzian natural frequencies of half width $\gamma$
(the deterministic quantiles of [`syncattn.kuramoto.lorentzian_frequencies`][]),
integrated by [`syncattn.kuramoto.simplicial_simulate`][] while the pairwise coupling $K_1$
is swept adiabatically up from random phases and back down (each $K_1$ starts from the
previous final phases); $r$ is averaged over the second half of each stay. Theory: the
Ott-Antonsen quintic ([`syncattn.kuramoto.simplicial_ott_antonsen_rhs`][]) has the stable
and unstable branches [`syncattn.kuramoto.simplicial_fixed_points`][] and, for
$K_2 > 2\gamma$, the bistable window $K_b < K_1 < K_f$ of
[`syncattn.kuramoto.simplicial_transition`][]: going up, $r$ jumps at $K_f = 2\gamma$; going
down, it falls at $K_b = \sqrt{8\gamma K_2} - K_2$.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "explosive"

__all__ = ["Config", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `explosive` study."""

    seed: int = 0  # PRNG seed of the initial phases
    n: int = 2000  # oscillators N
    gamma: float = 0.5  # Lorentzian half width
    triadic: float = 3.0  # K_2 (> 2 gamma: abrupt, bistable)
    couplings: tuple[float, ...] = tuple(round(0.1 * k, 2) for k in range(21))  # K_1 grid
    t_per_k: float = 60.0  # time spent at each K_1; r is averaged over its second half
    n_save: int = 61
    rtol: float = 1e-5
    atol: float = 1e-7
    # a point is scored against r_+ when synchronised (r > 1/2) and settled: the standard
    # deviation of r over the averaging window below this (a stay mid-jump is not)
    steady_std: float = 0.05

    @classmethod
    def smoke(cls) -> Config:
        """Test size: seconds."""
        return cls(n=300, couplings=(0.0, 0.3, 0.7, 1.2, 1.6), t_per_k=30.0, n_save=31)

    @classmethod
    def full(cls) -> Config:
        """Publication size: N = 1e4, a finer grid, longer stays."""
        return cls(n=10_000, couplings=tuple(round(0.05 * k, 2) for k in range(41)),
                   t_per_k=150.0, n_save=151)

    def __post_init__(self):
        if self.n < 2:
            raise ValueError(f"n must be >= 2; got {self.n}.")
        if len(self.couplings) < 2 or list(self.couplings) != sorted(self.couplings):
            raise ValueError(
                f"couplings must be an increasing grid of at least 2 K_1 (swept up, then "
                f"down); got {self.couplings}."
            )
        if self.gamma <= 0 or self.triadic < 0 or self.t_per_k <= 0 or self.n_save < 3:
            raise ValueError("gamma and t_per_k must be > 0, triadic >= 0, n_save >= 3.")


def _sweep(theta, omega, couplings, config, dtype):
    import jax.numpy as jnp

    from .. import kuramoto

    means, stds = [], []
    for K1 in couplings:
        sol = kuramoto.simplicial_simulate(
            theta, omega, jnp.asarray(K1, dtype), jnp.asarray(config.triadic, dtype),
            config.t_per_k, saveat=config.n_save, rtol=config.rtol, atol=config.atol,
            save_phases=False,
        )
        theta = sol.final
        r = np.asarray(sol.r)[config.n_save // 2:]
        means.append(float(r.mean()))
        stds.append(float(r.std()))
    return means, stds, theta


def _theory(K1, config):
    from .. import kuramoto

    up, down = kuramoto.simplicial_fixed_points(np.asarray(K1, float), config.triadic,
                                                config.gamma)
    return np.asarray(up), np.asarray(down)


def run(config: Config, out: str | Path | None = None, *, progress: bool = False) -> dict:
    """Run the study; write `explosive.png`, `branches.csv`, `results.json` and `config.json`
    to `out` (nothing is written when `out` is None).

    Returns:
        A dict with the up and down branches of the simulation, the Ott-Antonsen stable and
        unstable branches on the grid, $K_f$, $K_b$, the couplings where each simulated
        branch first exceeds $r = 1/2$, and the largest distance of a synchronised, settled
        simulated point ($r > 1/2$, standard deviation over the window below `steady_std`)
        to the stable branch.
    """
    import jax
    import jax.numpy as jnp

    from .. import kuramoto

    t0 = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    n = config.n
    omega = kuramoto.lorentzian_frequencies(n, config.gamma, dtype=dtype)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, n), dtype)
    Ks = np.asarray(config.couplings, float)
    passes = _common.progress(("up", "down"), desc="K_1 sweeps", enabled=progress)
    up = up_s = down = down_s = None
    for direction in passes:
        if direction == "up":
            up, up_s, th = _sweep(theta0, omega, Ks, config, dtype)
        else:
            down, down_s, _ = _sweep(th, omega, Ks[::-1], config, dtype)
            down, down_s = down[::-1], down_s[::-1]
    r_stable, r_unstable = _theory(Ks, config)
    K_f, K_b = (float(x) for x in kuramoto.simplicial_transition(config.triadic, config.gamma))
    sim = np.r_[up, down]
    th = np.r_[r_stable, r_stable]
    steady = np.r_[up_s, down_s] < config.steady_std  # settled within the stay
    sync = (sim > 0.5) & np.isfinite(th) & steady
    results = {
        "K1": Ks,
        "r_up": up, "r_up_std": up_s, "r_down": down, "r_down_std": down_s,
        "r_stable": r_stable, "r_unstable": r_unstable,
        "K_forward": K_f, "K_backward": K_b,
        "K_up": _first_above(Ks, up), "K_down": _first_above(Ks, down),
        "max_error_synchronised": float(np.max(np.abs(sim - th)[sync])) if sync.any()
        else float("nan"),
        "n": n,
        "seconds": time.perf_counter() - t0,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _first_above(Ks, r, level=0.5):
    above = np.flatnonzero(np.asarray(r) > level)
    return float(Ks[above[0]]) if above.size else float("nan")


def _write(results: dict, config: Config, out: Path) -> None:
    Ks = results["K1"]
    fig, axes = _common.new_figure(1, 1, width=6.2, height=4.2)
    ax = axes[0]
    grid = np.linspace(0.0, Ks[-1], 400)
    rs, ru = _theory(grid, config)
    Kf, Kb = results["K_forward"], results["K_backward"]
    ax.plot(grid, rs, "k-", lw=1.5, label="Ott-Antonsen: stable $r_+$")
    ax.plot(grid, ru, "k--", lw=1.2, label="Ott-Antonsen: unstable $r_-$")
    ax.plot([0, Kf], [0, 0], "k-", lw=1.5)
    ax.plot([Kf, grid[-1]], [0, 0], "k:", lw=1.2, label="$r = 0$ (dotted: unstable)")
    ax.errorbar(Ks, results["r_up"], yerr=results["r_up_std"], fmt="^", color="C3", ms=6,
                capsize=2, label="simulation, $K_1$ increasing")
    ax.errorbar(Ks, results["r_down"], yerr=results["r_down_std"], fmt="v", color="C0", ms=6,
                mfc="none", capsize=2, label="simulation, $K_1$ decreasing")
    ax.axvspan(Kb, Kf, color="C1", alpha=0.12, label=f"bistable $K_b={Kb:.2f} < K_1 < K_f={Kf:.2f}$")
    ax.set(xlabel="pairwise coupling $K_1$", ylabel="$\\bar r$ (2nd half of each step)",
           ylim=(-0.03, 1.03),
           title=f"simplicial Kuramoto, $K_2={config.triadic:g}$, Lorentzian "
                 f"$\\gamma={config.gamma:g}$, N={config.n}")
    ax.legend(fontsize=8, loc="lower right", bbox_to_anchor=(1.0, 0.06))
    _common.save_figure(fig, out / "explosive.png")
    _common.write_csv(out / "branches.csv", {
        k: results[k] for k in ("K1", "r_up", "r_up_std", "r_down", "r_down_std", "r_stable",
                                "r_unstable")})
    _common.write_json(out / "results.json", {
        "study": NAME,
        **{k: results[k] for k in ("K_forward", "K_backward", "K_up", "K_down",
                                   "max_error_synchronised", "seconds")},
    })
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    return "\n".join([
        f"explosive: simplicial Kuramoto, N={results['n']}: theory K_f={results['K_forward']:.3f}, "
        f"K_b={results['K_backward']:.3f}",
        f"  simulation: r > 1/2 from K_1={results['K_up']:g} going up, down to "
        f"K_1={results['K_down']:g} coming down; max|r - r_+| where synchronised and settled "
        f"{results['max_error_synchronised']:.3f}",
        f"  ({results['seconds']:.1f} s)",
    ])

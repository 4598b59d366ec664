r"""Study `delay_branches`: the in-phase locked frequencies of delayed Kuramoto oscillators.

$$\dot\theta_i(t) = \omega + \frac KN\sum_j\sin\bigl(\theta_j(t - \tau) - \theta_i(t)\bigr)$$

for $N$ identical oscillators. Theory ([`syncattn.kuramoto.delay_locked_frequencies`][],
Yeung and Strogatz, *Phys. Rev. Lett.* 82, 648 (1999)): a synchronous state
$\theta_i = \Omega t + c$ rotates at a root of $\Omega = \omega - K\sin(\Omega\tau)$, stable
iff $K\cos(\Omega\tau) > 0$; for $K\tau > 1$ several branches coexist. Simulation
([`syncattn.kuramoto.delay_simulate`][], RK4 with Hermite history, fixed step): for each
delay $\tau$ of the grid, a batch of starts (constant histories equal to the initial phases):
near-synchronous phases, perturbed splay states (whose mean field vanishes at first, so the
oscillators rotate near $\omega$ while synchrony builds up, and lock onto a branch near
$\omega$) and uniformly random phases. The measured frequency is the slope of the mean
phase over the last `measure_fraction` of the run; a run counts as locked when $r > 0.99$
at every save time of that window. Each locked run is matched to the nearest theoretical
root: the study reports the distance and whether that root is a stable one.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "delay_branches"

__all__ = ["Config", "run", "summary"]

START_KINDS = ("sync", "splay", "random")


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `delay_branches` study."""

    seed: int = 0  # PRNG seed of the initial phases
    n: int = 16  # oscillators N (identical)
    omega: float = 1.0  # common natural frequency
    coupling: float = 1.5  # K (the row sum: K_ij = K/N)
    delays: tuple[float, ...] = tuple(0.5 * k for k in range(1, 17))  # tau grid (multiples of dt)
    starts: tuple[int, int, int] = (1, 4, 2)  # how many sync, splay, random starts per tau
    splay_noise: float = 0.3  # phase noise added to the splay starts
    sync_spread: float = 0.1  # standard deviation of the near-synchronous start
    t1: float = 300.0
    dt: float = 0.05
    n_save: int = 101
    measure_fraction: float = 0.2  # Omega from the mean-phase slope over this last fraction
    theory_points: int = 600  # tau values of the drawn branches

    @classmethod
    def smoke(cls) -> Config:
        """Test size: two delays, a few starts, a short run."""
        return cls(n=8, delays=(1.0, 5.0), starts=(1, 2, 1), t1=150.0, n_save=51,
                   theory_points=200)

    @classmethod
    def full(cls) -> Config:
        """Publication size: a fine delay grid, more starts, longer runs."""
        return cls(n=32, delays=tuple(0.25 * k for k in range(1, 41)), starts=(1, 8, 4),
                   t1=600.0, dt=0.025, n_save=201)

    def __post_init__(self):
        if self.n < 2:
            raise ValueError(f"n must be >= 2; got {self.n}.")
        if not self.delays or min(self.delays) < 0:
            raise ValueError(f"delays must be a non-empty grid of tau >= 0; got {self.delays}.")
        if len(self.starts) != 3 or min(self.starts) < 0 or sum(self.starts) < 1:
            raise ValueError(
                f"starts must be three counts (sync, splay, random) with a positive sum; got "
                f"{self.starts}."
            )
        if not (0.0 < self.measure_fraction < 1.0):
            raise ValueError(f"measure_fraction must lie in (0, 1); got {self.measure_fraction}.")
        if self.t1 <= 0 or self.dt <= 0 or self.n_save < 3:
            raise ValueError("t1 and dt must be > 0 and n_save >= 3.")


def _starts(config: Config, rng: np.random.Generator):
    """The initial phases `(B, N)` and the kind of each start."""
    n = config.n
    splay = 2 * np.pi * np.arange(n) / n
    rows, kinds = [], []
    for kind, count in zip(START_KINDS, config.starts, strict=True):
        for _ in range(count):
            if kind == "sync":
                rows.append(config.sync_spread * rng.standard_normal(n))
            elif kind == "splay":
                rows.append(splay + config.splay_noise * rng.standard_normal(n))
            else:
                rows.append(rng.uniform(-np.pi, np.pi, n))
            kinds.append(kind)
    return np.stack(rows), kinds


def run(config: Config, out: str | Path | None = None, *, progress: bool = False) -> dict:
    """Run the study; write `delay_branches.png`, `runs.csv`, `branches.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        A dict with the runs (`tau`, start kind, measured `Omega`, locked, nearest root,
        its stability, the distance), the theoretical branches on a fine delay grid, and
        the headline numbers (`max_error`: the largest distance of a locked run to its
        root; `on_stable`: the share of locked runs whose root is stable; `branches_hit`:
        how many distinct stable roots the runs found, summed over the delays).
    """
    import jax
    import jax.numpy as jnp

    from .. import kuramoto

    t_start = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    theta0, kinds = _starts(config, rng)
    th0 = jnp.asarray(theta0, dtype)
    rows = {k: [] for k in ("tau", "start", "Omega", "r_min", "locked", "root",
                            "root_stable", "error")}
    branches_hit = 0
    for tau in _common.progress(config.delays, desc="delays", enabled=progress):
        sol = kuramoto.delay_simulate(th0, config.omega, config.coupling, tau, config.t1,
                                      dt=config.dt, saveat=config.n_save)
        ts = np.asarray(sol.ts)
        mean_phase = np.asarray(sol.states).mean(axis=-1)  # (S, B): phases are not wrapped
        a = int(round((1 - config.measure_fraction) * (len(ts) - 1)))
        Omega = (mean_phase[-1] - mean_phase[a]) / (ts[-1] - ts[a])
        r_min = np.asarray(sol.r)[a:].min(axis=0)
        roots, stable = kuramoto.delay_locked_frequencies(config.omega, config.coupling, tau)
        found = set()
        for b, kind in enumerate(kinds):
            k = int(np.argmin(np.abs(roots - Omega[b])))
            locked = bool(r_min[b] > 0.99)
            if locked and stable[k]:
                found.add(k)
            for col, v in (("tau", tau), ("start", kind), ("Omega", Omega[b]),
                           ("r_min", r_min[b]), ("locked", locked), ("root", roots[k]),
                           ("root_stable", bool(stable[k])),
                           ("error", abs(Omega[b] - roots[k]))):
                rows[col].append(v)
        branches_hit += len(found)
    locked = np.asarray(rows["locked"])
    err = np.asarray(rows["error"])[locked]
    # the branches on a fine delay grid
    fine = np.linspace(0.0, max(config.delays) * 1.04, config.theory_points)
    theory = {"tau": [], "Omega": [], "stable": []}
    for tau in fine:
        roots, stable = kuramoto.delay_locked_frequencies(config.omega, config.coupling, tau)
        theory["tau"] += [tau] * len(roots)
        theory["Omega"] += list(roots)
        theory["stable"] += list(stable)
    results = {
        "runs": rows,
        "theory": theory,
        "locked_runs": int(locked.sum()),
        "total_runs": int(locked.size),
        "max_error": float(err.max()) if err.size else float("nan"),
        "on_stable": float(np.mean(np.asarray(rows["root_stable"])[locked])) if err.size
        else float("nan"),
        "branches_hit": branches_hit,
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _write(results: dict, config: Config, out: Path) -> None:
    th, runs = results["theory"], results["runs"]
    fig, axes = _common.new_figure(2, 1, width=4.8, height=3.8)
    ax = axes[0]
    tt, om, st = (np.asarray(th[k]) for k in ("tau", "Omega", "stable"))
    ax.plot(tt[st], om[st], ".", color="k", ms=1.5, label="theory: stable ($K\\cos\\Omega\\tau>0$)")
    ax.plot(tt[~st], om[~st], ".", color="0.7", ms=1.5, label="theory: unstable")
    styles = {"sync": ("o", "C0"), "splay": ("s", "C3"), "random": ("^", "C2")}
    tau, Om, lk = (np.asarray(runs[k]) for k in ("tau", "Omega", "locked"))
    kind = np.asarray(runs["start"])
    for k, (marker, color) in styles.items():
        sel = (kind == k) & lk
        if sel.any():
            ax.plot(tau[sel], Om[sel], marker, mfc="none", color=color, ms=7, mew=1.3,
                    label=f"simulation, {k} start")
    if (~lk).any():
        ax.plot(tau[~lk], Om[~lk], "x", color="C1", ms=7, label="not locked")
    ax.axhline(config.omega, color="0.5", ls=":", lw=0.8)
    ax.set(xlabel="delay $\\tau$", ylabel="locked frequency $\\Omega$",
           title=f"$\\Omega = \\omega - K\\sin\\Omega\\tau$, $\\omega={config.omega:g}$, "
                 f"$K={config.coupling:g}$, N={config.n}",
           ylim=(config.omega - abs(config.coupling) - 0.1,
                 config.omega + abs(config.coupling) + 0.1))
    ax.legend(fontsize=7, loc="lower left", markerscale=1.0)
    ax = axes[1]
    err = np.asarray(runs["error"])
    ax.semilogy(tau[lk], np.maximum(err[lk], 1e-16), "o", color="C0", mfc="none",
                label="locked runs")
    ax.set(xlabel="delay $\\tau$", ylabel="$|\\Omega_{sim} - \\Omega_{theory}|$",
           title=f"distance to the nearest root (max {results['max_error']:.1e}); "
                 f"{results['locked_runs']}/{results['total_runs']} locked",)
    ax.title.set_fontsize(9)
    ax.legend(fontsize=8)
    _common.save_figure(fig, out / "delay_branches.png")
    _common.write_csv(out / "runs.csv", runs)
    _common.write_csv(out / "branches.csv", th)
    _common.write_json(out / "results.json", {
        "study": NAME,
        **{k: results[k] for k in ("locked_runs", "total_runs", "max_error", "on_stable",
                                   "branches_hit", "seconds")},
    })
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    return "\n".join([
        "delay_branches: locked frequencies of delayed identical oscillators vs Yeung-Strogatz",
        f"  {results['locked_runs']}/{results['total_runs']} runs locked; max|Omega_sim - "
        f"Omega_root| = {results['max_error']:.2e}; on a stable root: {results['on_stable']:.0%};"
        f" distinct stable branches reached (summed over tau): {results['branches_hit']}",
        f"  ({results['seconds']:.1f} s)",
    ])

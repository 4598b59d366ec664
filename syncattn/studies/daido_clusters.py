r"""Study `daido_clusters`: two-cluster states of the Kuramoto-Daido flow with biharmonic coupling.

$$\dot\theta_i = \omega + \frac KN\sum_j H(\theta_j - \theta_i),\qquad
  H(\varphi) = a_1\sin\varphi + a_2\sin 2\varphi$$

for $N$ identical oscillators ([`syncattn.kuramoto.simulate`][] with `harmonics=`
[`syncattn.kuramoto.HarmonicCoupling`][]). With a repulsive first harmonic ($a_1 < 0$) and
$a_1 + 2a_2 < 0$, the in-phase state is unstable
([`syncattn.kuramoto.in_phase_exponents`][]: $-KH'(0) > 0$) and random phases split into two
clusters. $H$ is odd, so every split $p$ has the gap $\Delta = \pi$
([`syncattn.kuramoto.two_cluster_drift`][] vanishes there), with the exponents
([`syncattn.kuramoto.two_cluster_exponents`][])
$\lambda_A = -K[pH'(0) + (1-p)H'(\pi)]$ (inside cluster A, the share $p$),
$\lambda_B = -K[(1-p)H'(0) + pH'(\pi)]$ (inside B) and $\lambda_C = -K H'(\pi)$ (the gap):
the state is stable for the splits $p$ where all three are negative.

Measured: (i) from `trials` random starts, the final phases (their histogram), the split
$p$ (the share on one side of the axis $\arg Z_2 / 2$, $Z_2$ the second Daido order
parameter), the gap between the clusters' circular means, and $|Z_2|$ (1 for two
point clusters); (ii) for each prepared split of `splits`, the decay of a small
perturbation of the exact cluster state: the spread inside A, inside B and the gap error
$|\Delta - \pi|$, whose exponential rates (`syncattn.stats.exponential_rate_fit`) are
compared with $\lambda_A$, $\lambda_B$, $\lambda_C$.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "daido_clusters"

__all__ = ["Config", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `daido_clusters` study."""

    seed: int = 0  # PRNG seed of the starts and perturbations
    n: int = 200  # oscillators N
    amplitudes: tuple[float, float] = (-1.0, 0.4)  # (a_1, a_2) of H
    coupling: float = 1.0  # K
    trials: int = 12  # random starts
    t1: float = 200.0  # horizon of the random starts
    splits: tuple[float, ...] = (0.25, 0.5, 0.7)  # prepared splits p for the exponents
    perturbation: float = 1e-5  # standard deviation of the perturbation of the cluster state
    t_decay: float = 6.0  # horizon of the decay runs
    n_save: int = 61  # save points of the decay runs

    @classmethod
    def smoke(cls) -> Config:
        """Test size: seconds."""
        return cls(n=60, trials=3, t1=100.0, splits=(0.25, 0.5), t_decay=4.0, n_save=41)

    @classmethod
    def full(cls) -> Config:
        """Publication size: more oscillators, trials and splits."""
        return cls(n=1000, trials=48, t1=400.0, splits=(0.15, 0.25, 0.35, 0.5, 0.65, 0.8))

    def __post_init__(self):
        if self.n < 4:
            raise ValueError(f"n must be >= 4; got {self.n}.")
        if len(self.amplitudes) != 2:
            raise ValueError(f"amplitudes must be (a_1, a_2); got {self.amplitudes}.")
        if any(not (0.0 < p < 1.0) for p in self.splits):
            raise ValueError(f"every split must lie in (0, 1); got {self.splits}.")
        if self.trials < 1 or self.t1 <= 0 or self.t_decay <= 0 or self.n_save < 3:
            raise ValueError("trials >= 1, t1 > 0, t_decay > 0 and n_save >= 3 are required.")


def _clusters(theta):
    """Split, gap and |Z_2| of phases `(B, N)` near a two-cluster state."""
    from .. import kuramoto

    Z2 = np.asarray(kuramoto.daido_order_parameters(theta, 2))[..., 1]
    axis = np.angle(Z2) / 2
    in_a = np.cos(theta - axis[:, None]) > 0
    za = np.sum(np.exp(1j * theta) * in_a, axis=-1)
    zb = np.sum(np.exp(1j * theta) * ~in_a, axis=-1)
    gap = np.abs(np.angle(zb * np.conj(za)))
    return in_a.mean(axis=-1), gap, np.abs(Z2), axis


def run(config: Config, out: str | Path | None = None, *, progress: bool = False) -> dict:
    """Run the study; write `daido_clusters.png`, `trials.csv`, `exponents.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        A dict with the random trials (split, gap, $|Z_2|$, final phases of the first),
        the theory (in-phase exponent, the stable splits), and per prepared split the
        measured and theoretical exponents and the largest relative error.
    """
    import jax
    import jax.numpy as jnp

    from .. import kuramoto
    from ..stats import exponential_rate_fit

    t0 = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    n, K = config.n, config.coupling
    h = kuramoto.HarmonicCoupling.from_amplitudes(jnp.asarray(config.amplitudes, dtype))
    # (i) random starts
    th0 = jnp.asarray(rng.uniform(-np.pi, np.pi, (config.trials, n)), dtype)
    sol = kuramoto.simulate(th0, 0.0, K, config.t1, harmonics=h, saveat=3, save_phases=False)
    final = np.asarray(sol.final)
    split, gap, z2, axis = _clusters(final)
    in_phase = np.asarray(kuramoto.in_phase_exponents(h, K, n=n)).real
    grid = np.linspace(0.0, 1.0, 201)
    lam = np.asarray(kuramoto.two_cluster_exponents(h, grid, np.pi, K))
    stable = np.all(lam < 0, axis=-1)
    drift = np.asarray(kuramoto.two_cluster_drift(h, grid, np.pi, K))
    # (ii) prepared splits: decay of a perturbation
    exps = {k: [] for k in ("p", "lambda_A", "lambda_B", "lambda_C", "measured_A",
                            "measured_B", "measured_C")}
    curves = {}
    ts = None
    for p in _common.progress(config.splits, desc="splits", enabled=progress):
        na = int(round(p * n))
        base = np.r_[np.zeros(na), np.full(n - na, np.pi)]
        th = jnp.asarray(base + config.perturbation * rng.standard_normal(n), dtype)
        s = kuramoto.simulate(th, 0.0, K, config.t_decay, harmonics=h, saveat=config.n_save,
                              rtol=1e-10, atol=1e-12)
        ts = np.asarray(s.ts)
        phases = np.asarray(s.states)
        a, b = phases[:, :na], phases[:, na:]
        spread_a, spread_b = a.std(axis=-1), b.std(axis=-1)
        gap_err = np.abs(np.angle(np.exp(1j * (b.mean(axis=-1) - a.mean(axis=-1) - np.pi))))
        theory = np.asarray(kuramoto.two_cluster_exponents(h, na / n, np.pi, K))
        exps["p"].append(na / n)
        for i, (label, y) in enumerate((("A", spread_a), ("B", spread_b), ("C", gap_err))):
            exps[f"lambda_{label}"].append(float(theory[i]))
            exps[f"measured_{label}"].append(-exponential_rate_fit(ts, y)["rate"])
        curves[na / n] = (spread_a, spread_b, gap_err)
    meas = np.array([exps[f"measured_{c}"] for c in "ABC"])
    theo = np.array([exps[f"lambda_{c}"] for c in "ABC"])
    stable_p = grid[stable]
    results = {
        "trials": {"split": split, "gap": gap, "abs_Z2": z2},
        "final_phases": final[0], "axis": float(axis[0]),
        "in_phase_exponent": float(in_phase[np.argmax(np.abs(in_phase))]),  # the N - 1 fold one
        "grid": grid, "lambda_grid": lam, "stable_splits": [float(stable_p.min()),
                                                             float(stable_p.max())]
        if stable_p.size else [float("nan")] * 2,
        "max_drift_at_pi": float(np.max(np.abs(drift))),
        "exponents": exps,
        "max_relative_exponent_error": float(np.max(np.abs(meas - theo) / np.abs(theo))),
        "max_gap_error": float(np.max(np.abs(gap - np.pi))),
        "min_abs_Z2": float(z2.min()),
        "decay": {"t": ts, "curves": curves},
        "seconds": time.perf_counter() - t0,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _write(results: dict, config: Config, out: Path) -> None:
    fig, axes = _common.new_figure(3, 1, width=4.0, height=3.5)
    ax = axes[0]
    rel = np.mod(results["final_phases"] - results["axis"] + np.pi / 2, 2 * np.pi) - np.pi / 2
    ax.hist(rel, bins=72, range=(-np.pi / 2, 3 * np.pi / 2), color="C0")
    for x in (0, np.pi):
        ax.axvline(x, color="k", ls=":", lw=1)
    p0 = results["trials"]["split"][0]
    ax.set(xlabel="phase relative to the axis $\\arg Z_2/2$", ylabel="oscillators",
           title=f"random start: split p={p0:.2f}, gap {results['trials']['gap'][0]:.4f}",
           xticks=[-np.pi / 2, 0, np.pi / 2, np.pi, 3 * np.pi / 2],
           xticklabels=["$-\\pi/2$", "0", "$\\pi/2$", "$\\pi$", "$3\\pi/2$"])
    ax.title.set_fontsize(9)
    ax = axes[1]
    grid, lam = results["grid"], results["lambda_grid"]
    for i, (c, name) in enumerate(zip(("C0", "C3", "C2"), ("A", "B", "C (gap)"), strict=True)):
        ax.plot(grid, lam[:, i], "-", color=c, lw=1.3, label=f"$\\lambda_{{{name[0]}}}$ theory"
                + (" (gap)" if name.startswith("C") else ""))
        ax.plot(results["exponents"]["p"], results["exponents"][f"measured_{name[0]}"], "o",
                color=c, mfc="none", ms=7, mew=1.4)
    lo, hi = results["stable_splits"]
    ax.axvspan(lo, hi, color="0.85", zorder=0, label="stable splits")
    ax.axhline(0, color="k", lw=0.8)
    for p in results["trials"]["split"]:
        ax.axvline(p, ymin=0.0, ymax=0.05, color="k", lw=1)
    ax.set(xlabel="split $p$ (share of cluster A)", ylabel="exponent",
           title="two-cluster exponents at $\\Delta=\\pi$ (circles: measured;\n"
                 "ticks: splits of the random starts)")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7, loc="upper center")
    ax = axes[2]
    t = results["decay"]["t"]
    p = sorted(results["decay"]["curves"])[0]
    sa, sb, ge = results["decay"]["curves"][p]
    lam_p = results["exponents"]
    i = lam_p["p"].index(p)
    for y, c, name in ((sa, "C0", "A"), (sb, "C3", "B"), (ge, "C2", "C")):
        ax.semilogy(t, y, "-", color=c, lw=1.5, label=f"{name}: measured {lam_p[f'measured_{name}'][i]:.3f}")
        ax.semilogy(t, y[0] * np.exp(lam_p[f"lambda_{name}"][i] * (t - t[0])), "--", color=c,
                    lw=1, label=f"{name}: theory {lam_p[f'lambda_{name}'][i]:.3f}")
    ax.set(xlabel="time", ylabel="spread in A, in B; gap error",
           title=f"perturbation decay at p={p:.2f} (dashed: theory)")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7, ncols=2, loc="lower left")
    a1, a2 = config.amplitudes
    fig.suptitle(f"Kuramoto-Daido, $H = {a1:g}\\sin\\varphi + {a2:g}\\sin 2\\varphi$, K={config.coupling:g}, "
                 f"N={config.n}; in-phase exponent {results['in_phase_exponent']:+.2f} (unstable)",
                 fontsize=10)
    _common.save_figure(fig, out / "daido_clusters.png")
    _common.write_csv(out / "trials.csv", results["trials"])
    _common.write_csv(out / "exponents.csv", results["exponents"])
    keep = ("in_phase_exponent", "stable_splits", "max_drift_at_pi", "max_relative_exponent_error",
            "max_gap_error", "min_abs_Z2", "seconds")
    _common.write_json(out / "results.json", {"study": NAME, **{k: results[k] for k in keep},
                                               "exponents": results["exponents"]})
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    tr = results["trials"]
    lo, hi = results["stable_splits"]
    return "\n".join([
        f"daido_clusters: in-phase exponent {results['in_phase_exponent']:+.3f}; stable splits "
        f"p in [{lo:.3f}, {hi:.3f}]",
        f"  {len(tr['split'])} random starts: splits {np.round(tr['split'], 3).tolist()}, "
        f"max|gap - pi| {results['max_gap_error']:.2e}, min|Z_2| {results['min_abs_Z2']:.4f}",
        f"  exponents at the prepared splits: max relative error "
        f"{results['max_relative_exponent_error']:.2e}",
        f"  ({results['seconds']:.1f} s)",
    ])

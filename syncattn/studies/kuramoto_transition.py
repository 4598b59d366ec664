r"""Study `kuramoto`: the synchronisation transition $r(K)$ and the Ott-Antonsen trajectory.

For three frequency densities $g$ (Lorentzian $\gamma = 0.5$, Gaussian
$\sigma = 1$, uniform on $[-\Delta, \Delta]$ with $\Delta = 1$) the all-to-all
(mean-field, scalar $K$) Kuramoto model with $N$ oscillators is integrated by
[`syncattn.kuramoto.simulate`][] from uniformly random phases, and the order
parameter is averaged over the second half $[t_1/2, t_1]$. Theory:

* the onset $K_c = 2/(\pi g(0))$ ([`syncattn.kuramoto.critical_coupling`][]);
* Lorentzian: $r_\infty = \sqrt{1 - 2\gamma/K}$
  ([`syncattn.kuramoto.lorentzian_order_parameter`][]);
* Gaussian and uniform: the partially locked branch of Kuramoto's
  self-consistency equation, solved numerically (scipy `quad` + `brentq`,
  `self_consistent_r`)

  $$r = K r \int_{-\pi/2}^{\pi/2} \cos^2\theta\; g(K r \sin\theta)\, d\theta ;$$

  for the uniform density it jumps from 0 to $\pi/4$ at $K_c = 4\Delta/\pi$
  (first-order transition).

Frequencies are, by default, the deterministic quantiles
$\omega_i = G^{-1}((i - \tfrac12)/N)$ of $g$ (`frequencies="quantile"`), which
removes the sampling noise of the frequency distribution (the remaining
finite-size noise is $O(N^{-1/2})$ from the phases); `"random"` draws them i.i.d.

Ott-Antonsen: Lorentzian frequencies, phases drawn on the Ott-Antonsen manifold
with small $r_0$ (wrapped Cauchy of mean resultant length $r_0$, independent of
$\omega$), simulated $r(t)$ against [`syncattn.kuramoto.ott_antonsen`][].
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "kuramoto"

__all__ = ["Config", "Density", "densities", "self_consistent_r", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `kuramoto` study."""

    seed: int = 0  # PRNG seed for the initial phases (and random frequencies)
    n: int = 10_000  # oscillators N
    gamma: float = 0.5  # Lorentzian half width
    sigma: float = 1.0  # Gaussian standard deviation
    halfwidth: float = 1.0  # uniform half width Delta
    # K / K_c grid; |K/K_c - 1| < critical_window is plotted but not scored
    k_over_kc: tuple[float, ...] = (
        0.5,
        0.75,
        0.9,
        0.97,
        1.03,
        1.1,
        1.25,
        1.5,
        1.75,
        2.0,
        2.5,
        3.0,
    )
    t1: float = 200.0  # integration horizon; r is averaged over [t1/2, t1]
    n_save: int = 201  # save points in [0, t1]
    # simulate's adaptive tolerances: 1e-5 changes the time-averaged r by < 1e-3
    # against 1e-6 (measured at N = 1e4) at a quarter of the steps
    rtol: float = 1e-5
    atol: float = 1e-7
    frequencies: str = (
        "quantile"  # "quantile" (omega_i = G^{-1}((i-1/2)/N)) or "random"
    )
    critical_window: float = 0.12  # |K/K_c - 1| below this is excluded from the error
    oa_coupling: float = 2.0  # Ott-Antonsen run: K (Lorentzian, gamma as above)
    oa_r0: float = 0.05  # initial order parameter on the OA manifold
    oa_t1: float = (
        30.0  # Ott-Antonsen horizon (saved at n_save points: same shapes, one compile)
    )

    @classmethod
    def smoke(cls) -> Config:
        """Test size: a few seconds."""
        return cls(n=2000, k_over_kc=(0.6, 2.0), t1=40.0, n_save=41, oa_t1=20.0)

    @classmethod
    def full(cls) -> Config:
        """Publication size: N = 1e5, a finer coupling grid, longer averaging."""
        grid = tuple(
            float(x)
            for x in np.round(
                np.r_[np.linspace(0.4, 0.96, 8), np.linspace(1.02, 3.0, 18)], 4
            )
        )
        return cls(
            n=100_000, k_over_kc=grid, t1=300.0, n_save=301, rtol=1e-6, atol=1e-8
        )

    def __post_init__(self):
        if self.n < 2:
            raise ValueError(f"n must be >= 2; got {self.n}.")
        if self.frequencies not in ("quantile", "random"):
            raise ValueError(
                f"frequencies must be 'quantile' or 'random'; got {self.frequencies!r}."
            )
        if not (0.0 < self.oa_r0 < 1.0):
            raise ValueError(f"oa_r0 must lie in (0, 1); got {self.oa_r0}.")
        if min(self.gamma, self.sigma, self.halfwidth, self.t1) <= 0 or any(
            k < 0 for k in self.k_over_kc
        ):
            raise ValueError(
                "gamma, sigma, halfwidth and t1 must be > 0 and every k_over_kc >= 0."
            )


# --------------------------------------------------------------------------- densities


@dataclasses.dataclass(frozen=True)
class Density:
    """A symmetric unimodal frequency density $g$: pdf, quantile function and sampler."""

    name: str
    label: str
    pdf: object  # float -> float, g(omega)
    ppf: object  # numpy callable G^{-1}(q)
    rvs: object  # numpy callable (rng, size) -> samples
    breaks: tuple[float, ...] = ()  # points where g is discontinuous (for quad)


def densities(config: Config) -> dict[str, Density]:
    """The three densities of the study; quantiles and samples from `scipy.stats`.

    The pdfs are written out (plain `math`) because `quad` calls them thousands
    of times and a frozen `scipy.stats` pdf costs tens of microseconds a call.
    """
    from scipy import stats

    g, s, h = config.gamma, config.sigma, config.halfwidth
    pdfs = {
        "lorentzian": lambda w: g / (math.pi * (w * w + g * g)),
        "gaussian": lambda w: (
            math.exp(-0.5 * (w / s) ** 2) / (s * math.sqrt(2 * math.pi))
        ),
        "uniform": lambda w: 1.0 / (2 * h) if abs(w) <= h else 0.0,
    }
    laws = {
        "lorentzian": (stats.cauchy(scale=g), f"Lorentzian $\\gamma={g:g}$", ()),
        "gaussian": (stats.norm(scale=s), f"Gaussian $\\sigma={s:g}$", ()),
        "uniform": (
            stats.uniform(loc=-h, scale=2 * h),
            f"uniform $[-{h:g}, {h:g}]$",
            (-h, h),
        ),
    }
    return {
        k: Density(
            k,
            label,
            pdfs[k],
            law.ppf,
            lambda rng, size, law=law: law.rvs(size=size, random_state=rng),
            br,
        )
        for k, (law, label, br) in laws.items()
    }


def self_consistent_r(K: float, density: Density) -> float:
    """[`syncattn.kuramoto.self_consistent_order_parameter`][] for a study density."""
    from .. import kuramoto

    return kuramoto.self_consistent_order_parameter(
        K, density.pdf, breaks=density.breaks
    )


# --------------------------------------------------------------------------- simulation


def _frequencies(
    config: Config, density: Density, rng: np.random.Generator
) -> np.ndarray:
    n = config.n
    if config.frequencies == "quantile":
        return density.ppf((np.arange(1, n + 1) - 0.5) / n)
    return density.rvs(rng, n)


def _oa_phases(config: Config, rng: np.random.Generator) -> np.ndarray:
    r"""Phases on the Ott-Antonsen manifold: wrapped Cauchy with $|\langle e^{i\theta}\rangle| = r_0$.

    A wrapped Cauchy of scale $s$ has first circular moment $e^{-s}$, so $s = -\log r_0$;
    deterministic quantiles (low noise), randomly permuted so phases are independent of
    the (sorted) frequencies.
    """
    n = config.n
    q = (np.arange(1, n + 1) - 0.5) / n
    theta = -math.log(config.oa_r0) * np.tan(np.pi * (q - 0.5))
    return rng.permutation(np.mod(theta + np.pi, 2 * np.pi) - np.pi)


def run(
    config: Config, out: str | Path | None = None, *, progress: bool = False
) -> dict:
    """Run the study; write `kuramoto.png`, `transition.csv`, `ott_antonsen.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        A dict with, per density, `K_c`, the simulated and theoretical `r(K)` and the
        maximum absolute error away from the critical window, and the Ott-Antonsen
        comparison (`oa`: times, simulated and theoretical $r(t)$, maximum deviation).
    """
    import jax
    import jax.numpy as jnp

    t_start = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, config.n), dtype)
    dens = densities(config)
    omegas = {
        name: jnp.asarray(_frequencies(config, d, rng), dtype)
        for name, d in dens.items()
    }
    per = _sweep(config, dens, theta0, omegas, progress)
    rows = _against_theory(config, dens, per)
    results = {
        "distributions": per,
        "uniform_jump_theory": math.pi / 4,
        "oa": _ott_antonsen_run(config, rng, omegas["lorentzian"], dtype),
        "frequencies": config.frequencies,
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out), rows)
    return results


def _sweep(config: Config, dens: dict, theta0, omegas: dict, progress: bool) -> dict:
    """Per density, the simulated r(K) (mean and standard deviation over the second
    half of the run) at every K = k K_c of the grid."""
    import jax.numpy as jnp

    from .. import kuramoto

    dtype = theta0.dtype
    ts = jnp.linspace(0.0, config.t1, config.n_save, dtype=dtype)
    late = np.asarray(ts) >= config.t1 / 2
    jobs = [(name, k) for name in dens for k in config.k_over_kc]
    per: dict[str, dict] = {}
    for name, kk in _common.progress(jobs, desc="kuramoto r(K)", enabled=progress):
        d = dens[name]
        if name not in per:
            g0 = float(d.pdf(0.0))
            per[name] = {
                "label": d.label,
                "g0": g0,
                "K_c": float(kuramoto.critical_coupling(g0)),
                "K": [],
                "r": [],
                "r_std": [],
            }
        K = kk * per[name]["K_c"]
        sol = kuramoto.simulate(
            theta0,
            omegas[name],
            jnp.asarray(K, dtype),
            config.t1,
            saveat=ts,
            rtol=config.rtol,
            atol=config.atol,
            save_phases=False,
        )
        r_late = np.asarray(sol.r)[late]
        per[name]["K"].append(K)
        per[name]["r"].append(float(r_late.mean()))
        per[name]["r_std"].append(float(r_late.std()))
    return per


def _against_theory(config: Config, dens: dict, per: dict) -> dict[str, list]:
    """Add each density's theory r(K) and its errors outside the critical window to
    `per`; return the rows of `transition.csv`."""
    rows: dict[str, list] = {
        k: []
        for k in ("distribution", "K", "K_over_Kc", "r_sim", "r_sim_std", "r_theory")
    }
    for name, d in dens.items():
        p = per[name]
        K = np.asarray(p["K"])
        p["r_theory"] = [_theory(name, k, d, config) for k in K]
        ok = np.abs(K / p["K_c"] - 1.0) >= config.critical_window
        err = np.abs(np.asarray(p["r"]) - np.asarray(p["r_theory"]))
        p["max_abs_error"] = float(err[ok].max()) if ok.any() else float("nan")
        up = K > p["K_c"] * (1 + config.critical_window)
        p["max_abs_error_above"] = float(err[up].max()) if up.any() else float("nan")
        below = K < p["K_c"] * (1 - config.critical_window)
        p["max_r_below"] = (
            float(np.max(np.asarray(p["r"])[below])) if below.any() else float("nan")
        )
        for k, r, s, rt in zip(K, p["r"], p["r_std"], p["r_theory"], strict=True):
            for col, v in zip(rows, (name, k, k / p["K_c"], r, s, rt), strict=True):
                rows[col].append(v)
    return rows


def _ott_antonsen_run(config: Config, rng: np.random.Generator, omega, dtype) -> dict:
    """The Lorentzian population's r(t) from the study's Ott-Antonsen start against
    the Ott-Antonsen trajectory from the same r(0)."""
    import jax.numpy as jnp

    from .. import kuramoto

    ts_oa = jnp.linspace(0.0, config.oa_t1, config.n_save, dtype=dtype)
    th_oa = jnp.asarray(_oa_phases(config, rng), dtype)
    sol = kuramoto.simulate(
        th_oa,
        omega,
        jnp.asarray(config.oa_coupling, dtype),
        config.oa_t1,
        saveat=ts_oa,
        rtol=config.rtol,
        atol=config.atol,
        save_phases=False,
    )
    r_sim = np.asarray(sol.r)
    r0_sim = float(r_sim[0])
    r_oa = np.asarray(
        kuramoto.ott_antonsen(r0_sim, config.oa_coupling, config.gamma, ts_oa)
    )
    return {
        "K": config.oa_coupling,
        "gamma": config.gamma,
        "r0": r0_sim,
        "t": np.asarray(ts_oa),
        "r_sim": r_sim,
        "r_theory": r_oa,
        "max_abs_error": float(np.max(np.abs(r_sim - r_oa))),
    }


def _theory(name: str, K: float, density: Density, config: Config) -> float:
    from .. import kuramoto

    if name == "lorentzian":
        return float(kuramoto.lorentzian_order_parameter(K, config.gamma))
    return self_consistent_r(float(K), density)


def _write(results: dict, config: Config, out: Path, rows: dict) -> None:
    per, oa = results["distributions"], results["oa"]
    dens = densities(config)
    fig, axes = _common.new_figure(2, 2, width=4.4, height=3.3)
    for ax, (name, p) in zip(axes, per.items(), strict=False):
        Kc = p["K_c"]
        Kmax = max(p["K"]) * 1.05
        grid = np.unique(np.r_[np.linspace(0.0, Kmax, 120), Kc, Kc * (1 + 1e-9)])
        curve = [_theory(name, k, dens[name], config) for k in grid]
        ax.plot(grid, curve, "k-", lw=1.2, label="theory")
        ax.errorbar(
            p["K"],
            p["r"],
            yerr=p["r_std"],
            fmt="o",
            ms=4,
            color="C0",
            label=f"simulation N={config.n}",
        )
        ax.axvline(Kc, color="C3", ls=":", lw=1, label=f"$K_c={Kc:.3f}$")
        if name == "uniform":
            ax.plot(
                [Kc],
                [results["uniform_jump_theory"]],
                "s",
                mfc="none",
                color="C3",
                label="jump $\\pi/4$",
            )
        ax.set(
            xlabel="coupling $K$",
            ylabel="$\\bar r$ (2nd half)",
            title=p["label"],
            ylim=(-0.02, 1.02),
        )
        ax.legend(fontsize=7, loc="lower right")
    ax = axes[3]
    ax.plot(oa["t"], oa["r_sim"], "C0-", lw=1.5, label=f"simulation N={config.n}")
    ax.plot(oa["t"], oa["r_theory"], "k--", lw=1.2, label="Ott-Antonsen")
    ax.set(
        xlabel="time $t$",
        ylabel="$r(t)$",
        title=f"Ott-Antonsen: K={oa['K']:g}, $\\gamma$={oa['gamma']:g}, $r_0$={oa['r0']:.3f}",
        ylim=(0, 1),
    )
    ax.legend(fontsize=7, loc="lower right")
    _common.save_figure(fig, out / "kuramoto.png")
    _common.write_csv(out / "transition.csv", rows)
    _common.write_csv(
        out / "ott_antonsen.csv",
        {"t": oa["t"], "r_sim": oa["r_sim"], "r_theory": oa["r_theory"]},
    )
    summary_json = {
        name: {
            k: p[k]
            for k in (
                "K_c",
                "g0",
                "max_abs_error",
                "max_abs_error_above",
                "max_r_below",
            )
        }
        for name, p in per.items()
    }
    _common.write_json(
        out / "results.json",
        {
            "study": NAME,
            "frequencies": results["frequencies"],
            "critical_window": config.critical_window,
            "distributions": summary_json,
            "uniform_jump_theory": results["uniform_jump_theory"],
            "ott_antonsen": {k: oa[k] for k in ("K", "gamma", "r0", "max_abs_error")},
            "seconds": results["seconds"],
        },
    )
    _common.write_config(config, out, NAME)


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    lines = [
        f"kuramoto: r(K) vs theory ({results['frequencies']} frequencies), Ott-Antonsen"
    ]
    for name, p in results["distributions"].items():
        lines.append(
            f"  {name:<10} K_c={p['K_c']:.4f}  max|r_sim - r_theory|: above K_c {p['max_abs_error_above']:.4f},"
            f" all K outside the window {p['max_abs_error']:.4f}; max r below K_c {p['max_r_below']:.4f}"
        )
    oa = results["oa"]
    lines.append(
        f"  Ott-Antonsen K={oa['K']:g}: max|r_sim(t) - r_OA(t)| = {oa['max_abs_error']:.4f}"
    )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)

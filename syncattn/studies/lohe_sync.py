r"""Study `lohe`: synchronisation of the Lohe model on $S^{d-1}$, $d \in \{2, 3, 4\}$.

The all-to-all Lohe model (scalar coupling $K$, $K_{ij} = K/n$)

$$\dot x_i = \Omega_i x_i + \frac Kn \sum_j \bigl(x_j - \langle x_i, x_j\rangle x_i\bigr)$$

is integrated by [`syncattn.lohe.simulate`][] from uniform starts, with random
natural frequencies $\Omega_i = \sigma (A_i - A_i^\top)/\sqrt2$, $A_i$ with i.i.d.
$\mathcal N(0, 1)$ entries, so each entry of $\Omega_i$ above the diagonal is
$\mathcal N(0, \sigma^2)$ (frequency scale $\sigma$ = `freq_scale`). The
order parameter $\rho = \|\frac1n\sum_i x_i\|$ is averaged over $[t_1/2, t_1]$
and plotted against $K$. For $d = 2$, $\Omega_i = \omega_i J$ with $J = [[0,-1],[1,0]]$
and $\omega_i \sim \mathcal N(0, \sigma^2)$: the Kuramoto model with Gaussian
frequencies, whose infinite-$n$ curve (Kuramoto's self-consistency,
`syncattn.studies.kuramoto_transition.self_consistent_r`) is drawn.

Second panel: the $d = 2$ Lohe model against [`syncattn.kuramoto.simulate`][]
on the same oscillators ($x_i = (\cos\theta_i, \sin\theta_i)$,
$\Omega_i = \omega_i J$): $\rho(t)$ and $r(t)$ on one axis, with the maximal
deviation of the order parameters and of the phases reported.
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _common


NAME = "lohe"

__all__ = ["Config", "random_frequencies", "run", "summary"]


@dataclasses.dataclass(frozen=True)
class Config(_common.DefaultSize):
    """Configuration of the `lohe` study."""

    seed: int = 0  # PRNG seed (numpy) for frequencies and starts
    n: int = 1000  # oscillators
    dims: tuple[int, ...] = (2, 3, 4)  # sphere S^{d-1} in R^d
    freq_scale: float = 1.0  # sigma: std of each independent entry of Omega_i
    couplings: tuple[float, ...] = (
        0.25,
        0.5,
        0.75,
        1.0,
        1.25,
        1.5,
        1.75,
        2.0,
        2.25,
        2.5,
        3.0,
        3.5,
        4.0,
        5.0,
        6.0,
    )
    t1: float = 100.0  # rho averaged over [t1/2, t1]
    n_save: int = 101
    rtol: float = 1e-6  # lohe.simulate tolerances for the sweep
    atol: float = 1e-8
    match_n: int = 200  # the d = 2 Lohe vs Kuramoto check
    match_coupling: float = 2.0
    match_t1: float = 20.0
    match_rtol: float = 1e-10

    @classmethod
    def smoke(cls) -> Config:
        """Test size."""
        return cls(
            n=400,
            dims=(2, 3),
            couplings=(0.5, 3.0),
            t1=40.0,
            n_save=41,
            match_n=100,
            match_t1=10.0,
        )

    @classmethod
    def full(cls) -> Config:
        """Publication size: n = 10 000, a finer coupling grid."""
        grid = tuple(float(k) for k in np.round(np.linspace(0.25, 6.0, 24), 4))
        return cls(n=10_000, couplings=grid, t1=200.0, n_save=201, match_n=1000)

    def __post_init__(self):
        if any(int(d) < 2 for d in self.dims) or not self.dims:
            raise ValueError(f"dims must be non-empty ints >= 2; got {self.dims}.")
        if self.n < 2 or self.match_n < 2 or self.t1 <= 0 or self.freq_scale < 0:
            raise ValueError("n, match_n must be >= 2, t1 > 0 and freq_scale >= 0.")


def random_frequencies(
    rng: np.random.Generator, n: int, d: int, sigma: float
) -> np.ndarray:
    r"""$\Omega_i = \sigma (A_i - A_i^\top)/\sqrt2$, $A_i$ i.i.d. standard Gaussian $(d, d)$.

    Every entry above the diagonal is $\mathcal N(0, \sigma^2)$; for $d = 2$,
    $\Omega_i = \omega_i J$ with $\omega_i = \Omega_{i,10} \sim \mathcal N(0, \sigma^2)$.

    Returns:
        `(n, d, d)` skew-symmetric matrices (float64 numpy).
    """
    A = rng.standard_normal((n, d, d))
    return sigma * (A - np.swapaxes(A, -1, -2)) / math.sqrt(2.0)


def run(
    config: Config, out: str | Path | None = None, *, progress: bool = False
) -> dict:
    """Run the study; write `lohe.png`, `order_parameter.csv`, `d2_match.csv`,
    `results.json` and `config.json` to `out` (nothing is written when `out` is None).

    Returns:
        `{"sweep": {d: {"K", "rho", "rho_std"}}, "theory_d2": ..., "match": {...}}`.
    """
    import jax
    import jax.numpy as jnp

    t_start = time.perf_counter()
    dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    rng = np.random.default_rng(config.seed)
    sweep = _sweep(config, rng, dtype, progress)
    results = {
        "sweep": sweep,
        "theory_d2": _theory_d2(sweep, config.freq_scale),
        "match": _d2_match(config, rng, dtype),
        "freq_scale": config.freq_scale,
        "n": config.n,
        "seconds": time.perf_counter() - t_start,
    }
    if out is not None:
        _write(results, config, _common.make_outdir(NAME, out))
    return results


def _sweep(config: Config, rng: np.random.Generator, dtype, progress: bool) -> dict:
    """Per d, the simulated order parameter rho(K) (mean and standard deviation over the
    second half of the run) at every coupling of the grid, from one uniform start."""
    import jax
    import jax.numpy as jnp

    from .. import lohe, sphere

    late = np.linspace(0.0, config.t1, config.n_save) >= config.t1 / 2
    sweep: dict[int, dict] = {}
    inputs = {}
    start_keys = jax.random.split(_common.prng_key(config.seed), len(config.dims))
    for d, k in zip(config.dims, start_keys, strict=True):
        # the sphere check of lohe.simulate uses the working dtype's tolerance
        x0 = sphere.sample_uniform(k, (config.n,), d, dtype=dtype)
        inputs[d] = (
            x0,
            jnp.asarray(random_frequencies(rng, config.n, d, config.freq_scale), dtype),
        )
        sweep[d] = {"K": [], "rho": [], "rho_std": []}
    jobs = [(d, K) for d in config.dims for K in config.couplings]
    for d, K in _common.progress(jobs, desc="lohe rho(K)", enabled=progress):
        x0, Omega = inputs[d]
        sol = lohe.simulate(
            x0,
            Omega,
            jnp.asarray(K, dtype),
            config.t1,
            saveat=config.n_save,
            rtol=config.rtol,
            atol=config.atol,
        )
        rho = np.asarray(sol.rho)[late]
        sweep[d]["K"].append(float(K))
        sweep[d]["rho"].append(float(rho.mean()))
        sweep[d]["rho_std"].append(float(rho.std()))
    return sweep


def _gaussian(s: float):
    """The Gaussian density of standard deviation `s` (the d = 2 frequencies)."""
    from .kuramoto_transition import Density

    return Density(
        "gaussian",
        f"Gaussian sigma={s:g}",
        lambda w: math.exp(-0.5 * (w / s) ** 2) / (s * math.sqrt(2 * math.pi)),
        None,
        None,
    )


def _theory_d2(sweep: dict, s: float) -> dict:
    """The d = 2 theory (the Kuramoto self-consistency for Gaussian frequencies) at the
    sweep's couplings, and the sweep's errors against it away from the transition."""
    from .. import kuramoto
    from .kuramoto_transition import self_consistent_r

    gauss = _gaussian(s)
    K_c2 = float(kuramoto.critical_coupling(1.0 / (s * math.sqrt(2 * math.pi))))
    theory_d2 = {
        "K_c": K_c2,
        "K": list(sweep[2]["K"]) if 2 in sweep else [],
        "rho": [self_consistent_r(K, gauss) for K in sweep.get(2, {"K": []})["K"]],
    }
    if 2 in sweep:
        K = np.asarray(theory_d2["K"])
        rho2 = np.asarray(sweep[2]["rho"])
        above = K >= 1.25 * K_c2  # away from the transition, which finite n rounds off
        below = K < K_c2
        err = np.abs(rho2 - np.asarray(theory_d2["rho"]))
        theory_d2["max_abs_error_above"] = (
            float(err[above].max()) if above.any() else float("nan")
        )
        theory_d2["max_rho_below"] = (
            float(rho2[below].max()) if below.any() else float("nan")
        )
    return theory_d2


def _d2_match(config: Config, rng: np.random.Generator, dtype) -> dict:
    """d = 2: the Lohe flow against the Kuramoto flow on the same oscillators (order
    parameters and phases)."""
    import jax.numpy as jnp

    from .. import kuramoto, lohe, torus

    s = config.freq_scale
    n2 = config.match_n
    theta0 = rng.uniform(-np.pi, np.pi, n2)
    omega = s * rng.standard_normal(n2)
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    Omega2 = omega[:, None, None] * J
    x0 = np.stack([np.cos(theta0), np.sin(theta0)], axis=-1)
    ts = np.linspace(0.0, config.match_t1, 201)
    tol = dict(rtol=config.match_rtol, atol=config.match_rtol * 1e-2)
    sol_l = lohe.simulate(
        jnp.asarray(x0, dtype),
        jnp.asarray(Omega2, dtype),
        config.match_coupling,
        config.match_t1,
        saveat=jnp.asarray(ts, dtype),
        **tol,
    )
    sol_k = kuramoto.simulate(
        jnp.asarray(theta0, dtype),
        jnp.asarray(omega, dtype),
        config.match_coupling,
        config.match_t1,
        saveat=jnp.asarray(ts, dtype),
        **tol,
    )
    rho_l, r_k = np.asarray(sol_l.rho), np.asarray(sol_k.r)
    xs = np.asarray(sol_l.x)
    phase_l = np.arctan2(xs[..., 1], xs[..., 0])
    phase_gap = np.asarray(
        torus.angle_diff(jnp.asarray(phase_l), jnp.asarray(np.asarray(sol_k.theta)))
    )
    return {
        "n": n2,
        "K": config.match_coupling,
        "theta0": theta0,
        "omega": omega,
        "t": ts,
        "rho_lohe": rho_l,
        "r_kuramoto": r_k,
        "max_order_deviation": float(np.max(np.abs(rho_l - r_k))),
        "max_phase_deviation": float(np.max(np.abs(phase_gap))),
    }


def _write(results: dict, config: Config, out: Path) -> None:
    """`lohe.png` (the sweep and the d = 2 match), the two CSV tables, `results.json`
    and `config.json` in `out`."""
    fig, (ax1, ax2) = _common.new_figure(2, 1, width=4.8, height=3.7)
    _sweep_panel(ax1, results, config)
    _match_panel(ax2, results["match"])
    _common.save_figure(fig, out / "lohe.png")
    _tables(results, out)
    _common.write_config(config, out, NAME)


def _sweep_panel(ax1, results: dict, config: Config) -> None:
    """rho(K) per d, with the d = 2 theory."""
    from .kuramoto_transition import self_consistent_r

    sweep, th = results["sweep"], results["theory_d2"]
    for j, (d, p) in enumerate(sweep.items()):
        ax1.errorbar(
            p["K"],
            p["rho"],
            yerr=p["rho_std"],
            fmt="o-",
            ms=4,
            lw=0.8,
            color=f"C{j}",
            capsize=2,
            label=f"Lohe $S^{{{d - 1}}}$ (d={d}), n={results['n']}",
        )
    if 2 in sweep:
        gauss = _gaussian(results["freq_scale"])
        grid = np.linspace(0.0, max(config.couplings) * 1.02, 150)
        ax1.plot(
            grid,
            [self_consistent_r(K, gauss) for K in grid],
            "k--",
            lw=1,
            label=f"d=2 theory (Gaussian $\\omega$), $K_c$={th['K_c']:.3f}",
        )
    ax1.set(
        xlabel="coupling $K$",
        ylabel="$\\bar\\rho$ (2nd half)",
        ylim=(-0.02, 1.02),
        title=f"Lohe order parameter, $\\Omega$ entries $\\sim N(0, {results['freq_scale']:g}^2)$",
    )
    ax1.legend(fontsize=7, loc="lower right")


def _match_panel(ax2, mt: dict) -> None:
    """d = 2: the Lohe rho(t) over the Kuramoto r(t)."""
    ax2.plot(
        mt["t"],
        mt["r_kuramoto"],
        "-",
        color="C0",
        lw=2.5,
        alpha=0.6,
        label=f"kuramoto.simulate $r(t)$, n={mt['n']}, K={mt['K']:g}",
    )
    ax2.plot(
        mt["t"], mt["rho_lohe"], "k--", lw=1, label="lohe.simulate $\\rho(t)$, d=2"
    )
    ax2.set(
        xlabel="time $t$",
        ylabel="order parameter",
        ylim=(0, 1),
        title=f"d=2: Lohe vs Kuramoto, max$|\\rho - r|$ = {mt['max_order_deviation']:.1e}",
    )
    ax2.legend(fontsize=7, loc="lower right")


def _tables(results: dict, out: Path) -> None:
    """`order_parameter.csv`, `d2_match.csv` and `results.json`."""
    sweep, th, mt = results["sweep"], results["theory_d2"], results["match"]
    cols: dict[str, list] = {
        "d": [],
        "K": [],
        "rho": [],
        "rho_std": [],
        "theory_d2": [],
    }
    for d, p in sweep.items():
        for i, K in enumerate(p["K"]):
            cols["d"].append(d)
            cols["K"].append(K)
            cols["rho"].append(p["rho"][i])
            cols["rho_std"].append(p["rho_std"][i])
            cols["theory_d2"].append(th["rho"][i] if d == 2 else float("nan"))
    _common.write_csv(out / "order_parameter.csv", cols)
    _common.write_csv(
        out / "d2_match.csv",
        {"t": mt["t"], "rho_lohe": mt["rho_lohe"], "r_kuramoto": mt["r_kuramoto"]},
    )
    _common.write_json(
        out / "results.json",
        {
            "study": NAME,
            "n": results["n"],
            "freq_scale": results["freq_scale"],
            "sweep": {str(d): p for d, p in sweep.items()},
            "theory_d2": th,
            "d2_match": {
                k: mt[k]
                for k in ("n", "K", "max_order_deviation", "max_phase_deviation")
            },
            "seconds": results["seconds"],
        },
    )


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    lines = [
        f"lohe: order parameter vs K on S^(d-1), n={results['n']}, frequency scale {results['freq_scale']:g}"
    ]
    for d, p in results["sweep"].items():
        pairs = ", ".join(
            f"{K:g}:{r:.3f}" for K, r in zip(p["K"], p["rho"], strict=True)
        )
        lines.append(f"  d={d}: rho(K) = {pairs}")
    th = results["theory_d2"]
    if "max_abs_error_above" in th:
        lines.append(
            f"  d=2 vs Gaussian self-consistency (K_c={th['K_c']:.4f}): max |rho - r| for K >= 1.25 K_c"
            f" {th['max_abs_error_above']:.4f}; max rho below K_c {th['max_rho_below']:.4f} (finite-n floor)"
        )
    mt = results["match"]
    lines.append(
        f"  d=2 Lohe vs kuramoto.simulate: max |rho - r| = {mt['max_order_deviation']:.2e},"
        f" max phase gap = {mt['max_phase_deviation']:.2e}"
    )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)

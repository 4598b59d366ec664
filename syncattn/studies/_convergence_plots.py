"""The figures and tables of the `convergence` study ([`syncattn.studies.convergence`][])."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import _common


def write(results: dict, config, out: Path, name: str) -> None:
    """The figures, tables and config of the study `name` (`convergence`) in `out`."""
    per_d = results["per_d"]
    dims = np.array([p["d"] for p in per_d])
    fig, (ax1, ax2, ax3) = _common.new_figure(3, 1, width=4.3, height=3.7)
    _times_panel(ax1, results, dims)
    _cdf_panel(ax2, results, dims)
    _failure_panel(ax3, results, dims, config.confidence)
    _common.save_figure(fig, out / "convergence.png")
    _tables(results, out, name)
    _common.write_config(config, out, name)


def _times_panel(ax1, results: dict, dims: np.ndarray) -> None:
    """The measured time to delta against its closed form, one colour per d."""
    d_all, tm, tp = results["d"], results["t_measured"], results["t_predicted"]
    ok = np.isfinite(tm) & (tm > 0)
    for j, d in enumerate(dims):
        s = ok & (d_all == d)
        ax1.loglog(tp[s], tm[s], ".", ms=2, color=f"C{j % 10}", label=f"d={d}")
    lim = [max(tp[ok].min(), 1e-4), results["horizon"]] if ok.any() else [1e-3, 1]
    ax1.plot(lim, lim, "k-", lw=0.8)
    ax1.set(
        xlabel="closed form lohe.time_to_converge",
        ylabel="diffrax event time",
        title=f"time to within $\\delta$={results['delta']:g} (max rel. err {results['max_rel_error']:.1e})",
    )
    ax1.legend(fontsize=6, markerscale=4, ncol=2, loc="upper left")


def _cdf_panel(ax2, results: dict, dims: np.ndarray) -> None:
    """The empirical distribution of the time against the theory, for a few d."""
    per_d = results["per_d"]
    shown = [d for d in dims if d in (2, 4, 16, 64)] or list(dims[:4])
    for j, d in enumerate(dims):
        if d not in shown:
            continue
        p = per_d[j]
        ax2.step(
            results["grid"],
            p["cdf_empirical"],
            where="post",
            color=f"C{j % 10}",
            lw=1.3,
            label=f"d={d} (KS {p['ks_distance']:.3f})",
        )
        ax2.plot(results["grid"], p["cdf_theory"], "k--", lw=0.8)
    ax2.plot([], [], "k--", lw=0.8, label="theory")
    ax2.set(
        xlabel="t",
        ylabel="P(time to $\\delta$ $\\leq$ t)",
        title="distribution of the time (empirical vs theory)",
    )
    ax2.legend(fontsize=7, loc="lower right")


def _failure_panel(ax3, results: dict, dims: np.ndarray, confidence: float) -> None:
    """The fraction not converged by T against d: theory, counts and the d -> oo limit."""
    per_d = results["per_d"]
    frac = np.array([p["fraction"] for p in per_d])
    lo = np.array([p["ci_lo"] for p in per_d])
    hi = np.array([p["ci_hi"] for p in per_d])
    theory = np.array([p["p_theory"] for p in per_d])
    ax3.semilogy(
        dims,
        theory,
        "k-",
        marker=".",
        lw=1.2,
        label=f"theory, fitted rate {results['rate_theory']:.3f}",
    )
    hit = frac > 0
    _common.plot_counts(
        ax3,
        dims,
        frac,
        lo,
        hi,
        hit,
        ~hit,
        "C0",
        label=f"diffrax, n={per_d[0]['n']} per d ({confidence:.0%} CI)",
        zero_label="zero count: upper bound",
    )
    lim = results["limit"]
    ax3.axhspan(lim["ci_lo"], lim["ci_hi"], color="C3", alpha=0.2)
    ax3.axhline(
        lim["p"],
        color="C3",
        ls="--",
        lw=1.0,
        label=f"$d\\to\\infty$: P($\\|w\\|_2$ < log cot($\\delta$/2)/T"
        f" = {lim['critical_norm']:.2f}) = {lim['p']:.3f}",
    )
    ax3.set(
        xlabel="$d_{osc}$",
        ylabel=f"P(angle > $\\delta$ at T={results['horizon']:g})",
        title="not converged by T: saturates in d",
    )
    _common.dim_ticks(ax3, dims)
    ax3.legend(fontsize=7, loc="upper right")


# the per-d columns of failure.csv and of results.json's per_d
_PER_D_KEYS = (
    "d",
    "n",
    "not_converged",
    "fraction",
    "ci_lo",
    "ci_hi",
    "p_theory",
    "z_score",
    "ks_distance",
    "median_rel_error",
    "max_rel_error",
    "max_steps_used",
    "mean_norm_h",
    "mean_norm_h_sq",
)


def _tables(results: dict, out: Path, name: str) -> None:
    """`times.csv` (one row per instance), `failure.csv` (one per d), `results.json`."""
    per_d, keys = results["per_d"], _PER_D_KEYS
    _common.write_csv(
        out / "times.csv",
        {
            "d": results["d"],
            "phi0": results["phi0"],
            "norm_h": results["norm_h"],
            "t_measured": results["t_measured"],
            "t_predicted": results["t_predicted"],
            "converged": results["converged"],
        },
    )
    _common.write_csv(out / "failure.csv", {k: [p[k] for p in per_d] for k in keys})
    _common.write_json(
        out / "results.json",
        {
            "study": name,
            **{
                k: results[k]
                for k in (
                    "delta",
                    "horizon",
                    "max_rel_error",
                    "median_rel_error",
                    "classification_mismatches",
                    "max_abs_z",
                    "max_ks_distance",
                    "rate_theory",
                    "rate_mc",
                    "limit",
                    "seconds",
                )
            },
            "per_d": [{k: p[k] for k in keys} for p in per_d],
        },
    )

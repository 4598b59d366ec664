"""The ``failure`` study's outputs: the four-panel figure, the CSV and JSON files, the summary."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .. import _common
from ._config import NAME, Config


def write(results: dict, config: Config, out: Path) -> None:
    """Write `failure.png`, the four CSV tables, `results.json` and `config.json` into `out`."""
    _figure(results, out)
    _tables(results, out)
    _common.write_json(out / "results.json", _results_json(results))
    _common.write_config(config, out, NAME)


def _figure(results: dict, out: Path) -> None:
    """The four panels (antipodal, degenerate, scale-free, finite time) as `failure.png`."""
    dims = np.asarray(results["antipodal"]["dims"])
    fig, (ax1, ax2, ax3, ax4) = _common.new_figure(2, 2, width=5.0, height=3.9)
    _antipodal_panel(ax1, results, dims)
    _degenerate_panel(ax2, results["degenerate"], dims)
    _scale_free_panel(ax3, results["scale_free"], dims)
    _threshold_panel(ax4, results["threshold"], dims)
    _common.save_figure(fig, out / "failure.png")


def _antipodal_panel(ax1, results: dict, dims: np.ndarray) -> None:
    """P(start within alpha of the antipode) against d: theory lines, Monte Carlo counts."""
    a = results["antipodal"]
    for j, alpha in enumerate(a["alphas"]):
        c = f"C{j}"
        deg = alpha * 180 / math.pi
        ax1.semilogy(
            a["d_curve"],
            a["p_curve"][:, j],
            "-",
            color=c,
            lw=1.2,
            label=f"$\\alpha={deg:.0f}°$ theory, $\\lambda$={a['rate_theory'][j]:.3f}",
        )
        hit = a["count"][:, j] > 0
        x = dims + (j - (len(a["alphas"]) - 1) / 2) * 0.012 * dims.max()  # dodge
        _common.plot_counts(
            ax1, x, a["p_mc"][:, j], a["ci_lo"][:, j], a["ci_hi"][:, j], hit, ~hit, c
        )
    ax1.plot(
        [],
        [],
        "ko",
        ms=4,
        label=f"Monte Carlo, n={a['n']:.0e} ({results['confidence']:.0%} CI)",
    )
    ax1.plot([], [], "kv", mfc="none", label="zero count: upper bound")
    ax1.set(
        xlabel="$d_{osc}$",
        ylabel="P(start within $\\alpha$ of antipode)",
        title="antipodal start (line: theory; $\\lambda$: fitted rate of $\\log p$ in $d$)",
    )
    _common.dim_ticks(ax1, dims)
    ax1.legend(fontsize=7, loc="lower left")


def _degenerate_panel(ax2, g: dict, dims: np.ndarray) -> None:
    """P(||h|| < eps) against d: the exact Bessel integral, Monte Carlo, the d -> oo plateau."""
    ax2.semilogy(
        dims,
        g["p_theory"],
        "k-",
        lw=1.2,
        label=f"exact (Bessel integral), $\\lambda$={g['rate_theory']:.3f}",
    )
    ok = np.asarray(g["count"]) >= 0
    hit = ok & (np.asarray(g["count"]) > 0)
    zero = ok & (np.asarray(g["count"]) == 0)
    _common.plot_counts(
        ax2,
        dims,
        np.asarray(g["p_mc"]),
        g["ci_lo"],
        g["ci_hi"],
        hit,
        zero,
        "C0",
        label=f"Monte Carlo (lohe.degenerate_probability), n={g['n']:.0e}",
        zero_label="zero count: upper bound",
    )
    lo_p, hi_p = g["plateau"]
    ax2.axhspan(lo_p, hi_p, color="0.5", alpha=0.5)
    ax2.axhline(
        np.sqrt(lo_p * hi_p),
        color="0.4",
        ls="--",
        lw=1.0,
        label=f"$d\\to\\infty$ plateau P($\\|w\\|_2 < {g['eps']:g}$) = {np.sqrt(lo_p * hi_p):.1e}",
    )
    ax2.set(
        xlabel="$d_{osc}$",
        ylabel=f"P($\\|h\\| < {g['eps']:g}$)",
        title=f"absolute event, m={g['n_anchors']}: plateaus (it measures w)",
    )
    _common.dim_ticks(ax2, dims)
    ax2.legend(fontsize=7, loc="lower left")


def _scale_free_panel(ax3, sf: dict, dims: np.ndarray) -> None:
    """The scale-free events against d: the relative event and its bound, the convex hull."""
    dc = np.asarray(sf["d_curve"])
    hit = np.asarray(sf["count_relative"]) > 0
    _common.plot_counts(
        ax3,
        dims,
        np.asarray(sf["p_relative"]),
        sf["ci_lo_relative"],
        sf["ci_hi_relative"],
        hit,
        ~hit,
        "C0",
        label=f"P($\\|h\\| < {sf['rel_eps']:g}\\,\\|w\\|_2$), MC n={sf['n']:.0e}",
    )
    ax3.semilogy(
        dc,
        np.maximum(sf["relative_bound"], 1e-300),
        "C0:",
        lw=1.2,
        label="its proved bound (mean over w)",
    )
    he = np.asarray(sf["hull_exact_curve"])
    pos = he > 0
    ax3.semilogy(
        dc[pos],
        he[pos],
        "C2-",
        lw=1.2,
        label=f"P(0 $\\in$ conv), Wendel; 0 for d $\\geq$ {sf['n_anchors']}",
    )
    hb = np.asarray(sf["hull_bound_curve"])
    ax3.semilogy(dc[hb > 0], hb[hb > 0], "C2:", lw=1.0, label="Hoeffding bound")
    hd = np.asarray(sf["hull_dims"])
    hc = np.asarray(sf["hull_count"]) / sf["n_hull"]
    if hd.size:
        ax3.plot(
            hd[hc > 0],
            hc[hc > 0],
            "D",
            color="C2",
            ms=4,
            mfc="none",
            label=f"hull MC (linprog), n={sf['n_hull']}",
        )
    ax3.set(
        xlabel="$d_{osc}$",
        ylabel="probability",
        title="scale-free events: decay in d",
        ylim=(max(1e-7, 0.3 / sf["n"]), 1.5),
    )
    _common.dim_ticks(ax3, dims)
    ax3.legend(fontsize=6.5, loc="lower left")


def _threshold_panel(ax4, th: dict, dims: np.ndarray) -> None:
    """P(phi(T) > delta) against d at horizons on either side of the threshold."""
    for j, ratio in enumerate(th["ratios"]):
        c = f"C{j}"
        ax4.plot(
            th["d_curve"],
            th["p_curve"][:, j],
            "-",
            color=c,
            lw=1.2,
            label=f"$\\|h\\|T$ = {ratio:g} log cot($\\delta$/2)",
        )
        ax4.plot(dims, th["p_mc"][:, j], "o", color=c, ms=3.5, mfc="none")
    ax4.plot(
        [], [], "ko", ms=3.5, mfc="none", label=f"MC (exact angle), n={th['n']:.0e}"
    )
    ax4.set(
        xlabel="$d_{osc}$",
        ylabel=f"P($\\varphi(T) > \\delta$), $\\delta$={th['delta']:g}",
        title=f"finite time: threshold $\\|h\\|T$ = log cot($\\delta$/2) = {th['log_cot']:.2f}",
        ylim=(-0.02, 1.02),
    )
    _common.dim_ticks(ax4, dims)
    ax4.legend(fontsize=6.5, loc="center right")


def _antipodal_rows(a: dict) -> dict[str, list]:
    """One row per (d, alpha): the counts, the interval, the theory and its p-value."""
    rows: dict[str, list] = {
        k: []
        for k in (
            "d",
            "alpha",
            "n",
            "count",
            "p_mc",
            "ci_lo",
            "ci_hi",
            "p_theory",
            "p_value",
        )
    }
    for i, d in enumerate(a["dims"]):
        for j, alpha in enumerate(a["alphas"]):
            for col, v in zip(
                rows,
                (
                    d,
                    alpha,
                    a["n"],
                    a["count"][i, j],
                    a["p_mc"][i, j],
                    a["ci_lo"][i, j],
                    a["ci_hi"][i, j],
                    a["p_theory"][i, j],
                    a["p_value"][i, j],
                ),
                strict=True,
            ):
                rows[col].append(v)
    return rows


def _tables(results: dict, out: Path) -> None:
    """`antipodal.csv`, `degenerate.csv`, `scale_free.csv` and `threshold.csv`."""
    a, g = results["antipodal"], results["degenerate"]
    _common.write_csv(out / "antipodal.csv", _antipodal_rows(a))
    _common.write_csv(
        out / "degenerate.csv",
        {
            "d": g["dims"],
            "n": [g["n"]] * len(g["dims"]),
            "count": g["count"],
            "p_mc": g["p_mc"],
            "ci_lo": g["ci_lo"],
            "ci_hi": g["ci_hi"],
            "se_mc": g["se_mc"],
            "p_theory": g["p_theory"],
            "p_value": g["p_value"],
        },
    )
    sf, th = results["scale_free"], results["threshold"]
    _common.write_csv(
        out / "scale_free.csv",
        {
            "d": sf["dims"],
            "n": [sf["n"]] * len(sf["dims"]),
            "count_relative": sf["count_relative"],
            "p_relative": sf["p_relative"],
            "ci_lo_relative": sf["ci_lo_relative"],
            "ci_hi_relative": sf["ci_hi_relative"],
            "hull_exact": sf["hull_exact_all"],
            "hull_count": [
                int(sf["hull_count"][sf["hull_dims"].index(d)])
                if d in sf["hull_dims"]
                else -1
                for d in sf["dims"]
            ],
        },
    )
    _common.write_csv(
        out / "threshold.csv",
        {
            "d": np.repeat(th["dims"], len(th["ratios"])),
            "ratio": np.tile(th["ratios"], len(th["dims"])),
            "T": np.tile(th["horizons"], len(th["dims"])),
            "n": [th["n"]] * (len(th["dims"]) * len(th["ratios"])),
            "count": np.asarray(th["count"]).reshape(-1),
            "p_mc": np.asarray(th["p_mc"]).reshape(-1),
            "p_theory": np.asarray(th["p_theory"]).reshape(-1),
            "p_value": np.asarray(th["p_value"]).reshape(-1),
        },
    )


def _results_json(results: dict) -> dict:
    """The headline numbers of `results.json` (the curves stay in the CSV files)."""
    a, g = results["antipodal"], results["degenerate"]
    sf, th = results["scale_free"], results["threshold"]
    return {
        "study": NAME,
        "scale_free": {
            k: sf[k]
            for k in (
                "n_anchors",
                "rel_eps",
                "n",
                "p_relative",
                "rate_relative_mc",
                "d_curve",
                "relative_bound",
                "hull_dims",
                "n_hull",
                "hull_count",
                "hull_exact",
                "hull_p_value",
            )
        },
        "threshold": {
            k: th[k] for k in ("delta", "log_cot", "ratios", "horizons", "n", "p_value")
        },
        "confidence": results["confidence"],
        "antipodal": {
            k: a[k]
            for k in (
                "alphas",
                "n",
                "min_p_value",
                "rate_theory",
                "rate_theory_mc_points",
                "rate_mc",
                "rate_asymptotic",
            )
        },
        "degenerate": {
            k: g[k]
            for k in (
                "n_anchors",
                "eps",
                "scale",
                "n",
                "min_p_value",
                "rate_theory",
                "rate_theory_mc_points",
                "rate_mc",
                "p_theory",
                "plateau",
            )
        },
        "dims": a["dims"],
        "seconds": results["seconds"],
    }


def summary(results: dict) -> str:
    """A few lines with the headline numbers."""
    a, g = results["antipodal"], results["degenerate"]
    lines = ["failure: antipodal and degenerate-drive probabilities vs d"]
    for j, alpha in enumerate(a["alphas"]):
        lines.append(
            f"  antipodal alpha={alpha:.4f}: rate theory {a['rate_theory'][j]:.4f} (all d),"
            f" {a['rate_theory_mc_points'][j]:.4f} (d with MC counts), MC {a['rate_mc'][j]:.4f},"
            f" asymptotic -log sin(alpha) = {a['rate_asymptotic'][j]:.4f}"
        )
    lines.append(
        f"  antipodal: smallest binomial p-value of the theory = {a['min_p_value']:.3g}"
    )
    lines.append(
        f"  degenerate (m={g['n_anchors']}, eps={g['eps']:g}): rate exact {g['rate_theory']:.4f} (all d),"
        f" {g['rate_theory_mc_points']:.4f} (d with MC counts), MC {g['rate_mc']:.4f};"
        f" smallest p-value {g['min_p_value']:.3g}"
    )
    lo_p, hi_p = g["plateau"]
    lines.append(
        f"  degenerate plateau (d -> infinity): P(||w||_2 < {g['eps']:g}) in [{lo_p:.3g}, {hi_p:.3g}]"
    )
    sf, th = results["scale_free"], results["threshold"]
    rel = ", ".join(f"{p:.3g}" for p in sf["p_relative"])
    lines.append(
        f"  relative P(||h|| < {sf['rel_eps']:g} ||w||_2) at d={sf['dims']}: {rel};"
        f" fitted rate {sf['rate_relative_mc']:.3f}"
    )
    hull = ", ".join(
        f"d={d}: {k}/{sf['n_hull']} (exact {p:.4f})"
        for d, k, p in zip(
            sf["hull_dims"], sf["hull_count"], sf["hull_exact"], strict=True
        )
    )
    lines.append(f"  convex hull (LP): {hull}")
    lines.append(
        f"  finite-time threshold log cot(delta/2) = {th['log_cot']:.4f};"
        f" smallest binomial p-value {float(np.min(th['p_value'])):.3g}"
    )
    lines.append(f"  ({results['seconds']:.1f} s)")
    return "\n".join(lines)

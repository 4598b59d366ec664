"""The ladder's figure: test BPC against parameters for both models, and the gap with its fit."""

from __future__ import annotations

import math

import numpy as np

from .._common import new_figure, save_figure


def plot(agg: dict, paper: dict, path, families, gap_label: str):
    """Left: test BPC per seed (dots) and mean ± std against $N$ (log axis), every family.
    Right: the paired gap (`gap_label`) per rung with its t interval, the fitted $a + b \\ln N$ with its
    bootstrap band, and the paper's gaps at 1 M and 5 M (enwik8)."""
    fig, (ax, bx) = new_figure(2, 1, width=4.4)
    for i, f in enumerate(families):
        m, col = f.name, f"C{i}"
        xs, means, stds = [], [], []
        for e in agg["rungs"]:
            n = e["shape"]["params"][m]
            t = e["models"][m]["test"]
            vals = [v for v in t["values"] if math.isfinite(v)]
            ax.scatter([n] * len(vals), vals, s=12, color=col, alpha=0.5)
            if t["mean"] is not None:
                xs.append(n)
                means.append(t["mean"])
                stds.append(t["std"] or 0.0)
        if xs:
            ax.errorbar(xs, means, yerr=stds, fmt="o-", color=col, capsize=3, label=f.label or m)
    ns = [e["shape"]["params"][families[0].name] for e in agg["rungs"]]
    span = (min(ns) / 1.5, max(max(ns), 5e6) * 1.3)
    ax.set_xscale("log")
    ax.set_xlim(*span)
    ax.xaxis.set_minor_formatter("")
    ax.set_xlabel("parameters N")
    ax.set_ylabel("test BPC (best lr per model)")
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"ladder on {corpus} (20 N tokens per cell)", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    gx, gy, lo, hi = [], [], [], []
    for e in agg["rungs"]:
        g = e["gap"]
        if g["mean"] is None:
            continue
        gx.append(e["shape"]["params"][families[0].name])
        gy.append(g["mean"])
        ci = g.get("ci") or (g["mean"], g["mean"])
        lo.append(g["mean"] - ci[0])
        hi.append(ci[1] - g["mean"])
    if gx:
        bx.errorbar(gx, gy, yerr=[lo, hi], fmt="o", color="C2", capsize=3,
                    label="ours (paired, t interval)")
    fit = agg["fit"]
    if fit["status"] == "ok":
        xs = np.geomspace(min(gx), 5e6, 60)
        bx.plot(xs, fit["a"] + fit["b"] * np.log(xs), "-", color="C2", lw=1,
                label=f"fit {fit['a']:.3f} + {fit['b']:.4f} ln N")
        for p in fit["predictions"]:
            bx.errorbar([p["x"]], [p["y"]], yerr=[[p["y"] - p["ci"][0]], [p["ci"][1] - p["y"]]],
                        fmt="s", mfc="none", color="C2", capsize=3)
    g1 = paper["gap"]["1000000"]
    g5 = paper["gap"]["5000000"]
    bx.scatter([1e6, 5e6, 5e6], [g1, g5["median"], g5["mean"]], marker="*", s=70, color="k",
               zorder=3, label="paper (enwik8): 1M, 5M median/mean")
    bx.axhline(0, color="grey", lw=0.8)
    bx.set_xscale("log")
    bx.set_xlim(*span)
    bx.xaxis.set_minor_formatter("")
    bx.set_xlabel("parameters N")
    bx.set_ylabel(f"{gap_label} (test BPC)")
    bx.set_title(fit["status"] if fit["status"] != "ok" else "gap against N", fontsize=9)
    bx.legend(fontsize=7)
    return save_figure(fig, path)

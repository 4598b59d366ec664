"""One figure per task: the loss against each non-ideality's strength, the theory beside it."""

from __future__ import annotations

import numpy as np

from .._common import new_figure, save_figure
from ._sweep import HARSHER, SYMBOLS


_THEORY = {
    "noise": ("contrast_kept", "theory: mean A_d(2|h|/sigma^2)"),
    "frequency_disorder": ("locked_fraction", "theory: locked fraction"),
    "settle_time": ("mean_error", "theory: mean E|z(T) - h/|h||"),
}


def plot(task: str, entries: dict, config, path):
    """Panels per non-ideality: the models' losses (points, or % PPL) with their draws'
    spread, the tolerance limit, and (right axis, dotted) the theory's curve per model."""
    kinds = list(config.nonidealities)
    ncols = min(3, len(kinds))
    nrows = -(-len(kinds) // ncols)
    fig, axes = new_figure(ncols, nrows, width=4.0, height=3.2)
    for ax in axes[len(kinds) :]:
        ax.set_visible(False)
    pct = task != "agreement"
    for ax, kind in zip(axes, kinds, strict=False):
        twin = None
        for j, (key, e) in enumerate(entries.items()):
            c = e["curves"].get(kind)
            if c is None:
                continue
            colour = f"C{j}"
            s = np.asarray(c["strengths"], float)
            scale = 100.0 if pct else 1.0
            y = scale * np.asarray(c["loss"])
            spread = np.array(
                [
                    scale * (np.max(v) - np.min(v)) / 2 if len(v) > 1 else 0.0
                    for v in c["draws"]
                ]
            )
            if pct:  # each draw's relative loss from its own mean: the same scale
                spread = spread / c.get("ideal", e["ideal"])
            ls = "--" if e["model"] == "softmax" else "-"
            ax.errorbar(
                s,
                y,
                yerr=spread,
                fmt="o" + ls,
                color=colour,
                ms=3,
                lw=1,
                capsize=2,
                label=key.split("-", 1)[1],
            )
            th = (e.get("theory") or {}).get(kind)
            if th is not None and kind in _THEORY:
                twin = twin or ax.twinx()
                name, label = _THEORY[kind]
                twin.plot(
                    list(e["theory_strengths"][kind]),
                    th[name],
                    ":",
                    color=colour,
                    lw=1.2,
                )
                twin.set_ylabel(label, fontsize=7)
                if kind == "settle_time":
                    ax.axvline(
                        th["horizon_quantiles"]["0.5"], color=colour, lw=0.6, alpha=0.6
                    )
        lim = config.acc_limit if not pct else 100 * config.ppl_limit
        ax.axhline(lim, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log")
        grid = sorted(
            {
                float(x)
                for e in entries.values()
                for x in e["theory_strengths"].get(kind, ())
            }
        )
        ax.set_xticks(grid, [f"{g:g}" for g in grid])
        ax.xaxis.set_minor_formatter("")
        if HARSHER[kind] == "smaller":
            ax.invert_xaxis()
        ax.set_xlabel(SYMBOLS[kind] + (" (harsher to the right)"))
        ax.set_ylabel(
            "points of hard accuracy lost" if not pct else "% perplexity increase"
        )
        ax.set_title(kind.replace("_", " "), fontsize=9)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6)
        else:
            ax.text(
                0.5,
                0.5,
                "not measured",
                transform=ax.transAxes,
                ha="center",
                fontsize=8,
            )
    title = (
        "agreement classifier (d_osc = 2)"
        if task == "agreement"
        else "language models (validation)"
    )
    fig.suptitle(
        f"robustness: {title}; dotted: theory (right axis); vertical: median horizon",
        fontsize=9,
    )
    return save_figure(fig, path)

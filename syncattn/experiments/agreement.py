r"""Experiment 4 (seed 001's agreement task): the oscillator classifier against softmax at d_osc = 2.

Subject-verb agreement with an attractor (../shared/EXPERIMENTS.md B2; data from
[`syncattn.data.sva`][]): one training per (model, seed) of the "config G"
classifier (1 layer, d_model 32, 1 head, d_ff 64, d_osc 2), AdamW lr 5e-4, weight
decay 1e-4, per-step cosine to 0, batch 64, clip 1.0, 20 epochs. Each training is
scored by its final-epoch validation accuracy on all, simple (no distractor) and hard
(distractor of the other number) sentences, and *fails* when

$$\mathrm{acc}_\mathrm{hard} < 85\,\%$$

(seed 001's criterion, [`syncattn.training.sva_metrics`][]). The failure rate
$k/n$ over seeds gets a Clopper-Pearson and a Wilson interval
([`syncattn.stats.clopper_pearson`][], [`syncattn.stats.wilson`][]).

Each model's failure count is compared with the paper's 50-seed count by Fisher's exact
test ([`syncattn.stats.fisher_exact`][]), and the two models with each other; the
hard-accuracy gain gets a paired Student-t interval over the seeds both models finished
([`syncattn.stats.t_interval`][]).

**Results that outlive the machine**, as the ladder's: with ``export=true`` each finished
cell's ``result.json`` and the evaluation rows of its ``log.jsonl`` are written to
``committed`` (``"auto"``: ``results/experiments/agreement/agreement-full`` of the
checkout, for the generated sentences; the default size's five seeds are the same cells
as the cohort's first five, so both sizes share that folder), and committed cells with the
same settings are adopted instead of trained. ``syncattn experiment agreement
--from-results DIR`` ([`rebuild`][syncattn.experiments.agreement.rebuild]) rebuilds the
tables and the plot from such a folder alone.

**Ablation arms** (issue 29): ``models`` may also name the arms of
`syncattn.experiments._variants` (``"oscillator-frozen-wv"``,
``"softmax-frozen-wv"``: $W_V$ frozen at its random initialisation; ``"oscillator-l3"``,
``"oscillator-l4"``: seed 001's Appendix C ablations); every pair of arms in its
``COMPARISONS`` gets the paired differences of the hard and overall accuracy with
Student-t intervals. A run with a committed folder other than the cohort's adopts the
cohort's base cells (``oscillator``, ``softmax``) from
``results/experiments/agreement/agreement-full`` when their settings are the same.

Paper: 5 seeds, hard accuracy 97.38 ± 0.33 (oscillator) vs 92.11 ± 7.87 (softmax),
+5.27 points, 0/5 vs 1/5 failures; 50 seeds: 3/50 vs 12/50 failures.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from . import _protocol as protocol
from ._agreement_stats import PAPER, aggregate
from ._common import (
    fmt_mean_std,
    new_figure,
    save_figure,
    write_csv,
    write_json,
)
from ._grid import RESULT, Grid
from ._protocol import Context, Experiment, committed_dir
from ._sva import (
    SVACell as SVACell,
    SVARecipe,
    sva_cell,
    sva_cells,
    sva_fit as sva_fit,
    sva_splits as sva_splits,
)
from ._variants import check_models


__all__ = [
    "Config",
    "SVARecipe",
    "SVACell",
    "sva_cell",
    "sva_fit",
    "sva_splits",
    "cells",
    "run",
    "rebuild",
    "summary",
    "PAPER",
]

NAME = "agreement"


@dataclasses.dataclass(frozen=True)
class Config(SVARecipe):
    """Experiment 4's settings.

    Attributes:
        models: ``"oscillator"``, ``"softmax"`` and the ablation arms of
            `syncattn.experiments._variants`.
        seeds: training seeds (one cell per model and seed).
        d_osc, epochs, batch_size, lr, weight_decay, n_train, n_val, data_path: the
            recipe of every cell
            ([`SVARecipe`][syncattn.experiments._sva.SVARecipe]).
        confidence: level of the failure-rate and gain intervals.
        committed: the folder of committed results (``"auto"``, a path or ``None``).
        export: write each finished cell into `committed`.
    """

    models: tuple[str, ...] = ("oscillator", "softmax")
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    confidence: float = 0.95
    committed: str | None = "auto"
    export: bool = False

    def __post_init__(self):
        if not self.models or not self.seeds:
            raise ValueError("models and seeds must be non-empty.")
        check_models(self.models)
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie in (0, 1); got {self.confidence}.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: 2 seeds x 2 models, 1 epoch on 256 sentences, 128 for validation."""
        return cls(seeds=(0, 1), epochs=1, n_train=256, n_val=128, committed=None)

    @classmethod
    def default(cls) -> Config:
        """About 30 minutes on this CPU: the paper's recipe (20 epochs, 40,000 sentences)
        on 5 seeds per model, as the paper's 5-seed table."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The paper's 50-seed cohort (failure rates 3/50 vs 12/50)."""
        return cls(seeds=tuple(range(50)))


def cells(config: Config) -> list[SVACell]:
    """One [`SVACell`][syncattn.experiments._sva.SVACell] per (model, seed), seed by
    seed (both models of a seed before the next: a grid cut short is already paired)."""
    return sva_cells(config, config.models, config.seeds)


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` and ``runs.csv``."""
    cell_list, results = walked
    agg = aggregate(config, cell_list, results)
    data = next((r.get("data") for r in results if r.get("data")), None)
    extra = {} if ctx.rebuilt_from is None else {"rebuilt_from": ctx.rebuilt_from}
    payload = {"experiment": NAME, **agg, "data": data, "paper": PAPER, **extra}
    files = {"results": write_json(ctx.out / "results.json", payload)}
    rows = agg["rows"]
    keys = ("model", "seed", "status", "acc_all", "acc_simple", "acc_hard", "failed")
    files["csv"] = write_csv(
        ctx.out / "runs.csv", {k: [r[k] for r in rows] for k in keys}
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``agreement.png``."""
    return {"png": _plot(config, results, Path(out) / "agreement.png")}


def _committed(config: Config, size: str | None) -> Path | None:
    # the default size's seeds are the cohort's first five: one folder for both sizes
    return committed_dir(config, "full" if size == "default" else size, NAME)


def _same_settings(cell: SVACell, result: Path) -> bool:
    """`result` (a committed cell's result.json) exists and was trained with `cell`'s settings."""
    import json

    if not result.is_file():
        return False
    mine = json.loads(json.dumps(dataclasses.asdict(cell)))
    return json.loads(result.read_text()).get("cell") == mine


def _cohort(config: Config) -> Path | None:
    """The committed 50-seed cohort's folder, whose base cells an ablation run adopts."""
    return _committed(dataclasses.replace(config, committed="auto"), "full")


def _walk(config: Config, ctx: Context) -> tuple:
    """The cells and their results; in a run, first the committed 50-seed cohort's cells
    with the same settings adopted (when the committed folder is another)."""
    cell_list = cells(config)
    adopt = config.committed is not None and not ctx.rebuilding
    base = _cohort(config) if adopt else None
    if base is not None and base != ctx.committed and (base / "runs").is_dir():
        protocol.fetcher(ctx.grid, ctx.runs, None, ctx.cell, NAME, adopt_from=base)(
            [c for c in cell_list if _same_settings(c, base / "runs" / c.name / RESULT)]
        )
    return cell_list, ctx.fetch(cell_list)


def _plot(config, agg, path):
    fig, (ax, bx) = new_figure(2, 1, width=4.2)
    for j, m in enumerate(config.models):
        vals = [r["acc_hard"] for r in agg["rows"] if r["model"] == m]
        ax.scatter(
            np.full(len(vals), j) + np.linspace(-0.15, 0.15, len(vals)),
            vals,
            s=16,
            color=f"C{j}",
            alpha=0.8,
        )
        p = PAPER["5 seeds"].get(m)
        if p:
            ax.errorbar(
                [j + 0.3],
                [p["hard"]],
                yerr=[p["hard_std"]],
                fmt="*",
                color="k",
                capsize=3,
                label="paper, 5 seeds" if j == 0 else None,
            )
        t = agg["table"][m]
        if not t["n"]:
            continue
        lo, hi = t["clopper_pearson"]
        bx.errorbar(
            [j],
            [t["failure_rate"]],
            yerr=[[t["failure_rate"] - lo], [hi - t["failure_rate"]]],
            fmt="o",
            color=f"C{j}",
            capsize=4,
        )
        p50 = PAPER["50 seeds"].get(m)
        if p50:
            bx.scatter(
                [j + 0.2],
                [p50["failures"] / p50["n"]],
                marker="*",
                s=80,
                color="k",
                label="paper, 50 seeds" if j == 0 else None,
            )
    ax.axhline(85, color="grey", ls="--", lw=1)
    ax.set_xticks(range(len(config.models)), config.models, rotation=30, fontsize=7)
    ax.set_ylabel("hard-sentence accuracy (%)")
    n_seeds = len({r["seed"] for r in agg["rows"]})
    ax.set_title(f"final val accuracy (dots: {n_seeds} seeds)")
    ax.legend(fontsize=8)
    bx.set_xticks(range(len(config.models)), config.models, rotation=30, fontsize=7)
    bx.set_ylabel("failure rate (hard < 85%)")
    bx.set_ylim(-0.02, 1.02)
    bx.set_title(f"failures, {int(100 * config.confidence)}% Clopper-Pearson")
    bx.legend(fontsize=8)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The table as text, next to the paper's 5- and 50-seed numbers, with Fisher's tests."""
    paper = results["paper"]
    lines = [
        "SVA final validation accuracy (%), mean ± std over seeds | paper (5 seeds)"
    ]
    for m, t in results["table"].items():
        p = paper["5 seeds"].get(m, {})
        lines.append(
            f"  {m:<10} all {fmt_mean_std(t['all'], 2)}  simple {fmt_mean_std(t['simple'], 2)}  "
            f"hard {fmt_mean_std(t['hard'], 2)}"
            + (f" | paper all {p['all']} hard {p['hard']}" if p else "")
        )
        if not t["n"]:
            lines.append(f"  {'':<10} no finished seed")
            continue
        lo, hi = t["clopper_pearson"]
        line = f"  {'':<10} failures {t['failures']}/{t['n']} (CI {100 * lo:.1f}-{100 * hi:.1f}%)"
        if m in paper["50 seeds"]:
            p50 = paper["50 seeds"][m]["failures"]
            line += (
                f" | paper {p.get('failures')}/5, {p50}/50; "
                f"Fisher p = {t['fisher_vs_paper_50']:.3g} against {p50}/50"
            )
        lines.append(line)
    if results.get("hard_gain_points") is not None:
        g = results.get("paired_hard_gain") or {}
        ci = g.get("ci")
        pair = (
            f", paired over {g['n']} seeds CI {ci[0]:+.2f} to {ci[1]:+.2f}"
            if ci
            else ""
        )
        lines.append(
            f"  hard gain oscillator - softmax: {results['hard_gain_points']:+.2f} points"
            f"{pair} | paper {paper['hard_gain_points']:+.2f}"
        )
    b = results.get("fisher_between_models")
    if b:
        lines.append(
            f"  failures, oscillator against softmax: Fisher p = {b['oscillator_vs_softmax']:.3g}"
            f" | paper's 3/50 against 12/50: p = {b['paper_50']:.3g}"
        )
    for c in results.get("comparisons") or ():
        if c["a"] == "oscillator" and c["b"] == "softmax":
            continue  # the hard gain above
        parts = []
        for key in ("hard", "all"):
            d = c[key]
            if d["mean"] is None:
                continue
            ci = f" [{d['ci'][0]:+.2f}, {d['ci'][1]:+.2f}]" if d["ci"] else ""
            parts.append(f"{key} {d['mean']:+.2f}{ci}")
        if parts:
            lines.append(
                f"  {c['a']} - {c['b']} (paired, {c['hard']['n']} seeds): "
                + ", ".join(parts)
            )
    if results.get("missing"):
        lines.append(f"  missing cells: {len(results['missing'])}")
    return "\n".join(lines)


EXPERIMENT = Experiment(
    NAME,
    Config,
    _walk,
    tables,
    plots,
    sva_cell,
    summary=summary,
    committed_dir=_committed,
    tables_at=("full",),
)
"""Experiment 4 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the grid (resuming; adopting committed cells), write config.json,
    results.json, runs.csv, agreement.png (and, with ``export``, the cells, and at the
    full size the tables, into the committed folder)."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and the plot rebuilt into `out` from `src` alone (``config.json`` and
    ``runs/CELL/result.json``; cells not there are listed in ``missing``).

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)

r"""Experiment 8 (seed 001's keyword spotting, Table 1), on a synthetic proxy: oscillator attention at d_osc = 2 against softmax.

**A synthetic proxy.** Seed 001 trains on Google Speech Commands v0.02, which cannot
be downloaded here. The data are instead the espeak-ng keyword set of
[`syncattn.data.kws`][]: the same ten keywords plus ``"unknown"`` and ``"silence"``
(12 classes, the paper drops the other words: 10), many synthetic voices, split by
voice (test speakers never heard in training), additive noise at several SNRs, and
seed 001's log-mel front end (49 frames x 40 mels, standardised per mel with the
training statistics). Accuracies on it are not Speech Commands accuracies; the
comparison of the two attentions under one recipe is what carries over.

Model (../shared/EXPERIMENTS.md B1, R:oscillator_attention/kws_pe_model.py with
``pe="none"``): a [`syncattn.models.Classifier`][] with a linear input projection
40 -> 32 (``in_features``), dropout 0.1, no positions, one pre-LN block (d_model 32,
2 heads, d_osc 2, GELU feed-forward 128), no final norm, mean-pool over frames and a
linear 32 -> 12 (``n_classes``). Optimiser: [`kws_optimizer`][syncattn.experiments.kws.kws_optimizer]
(Adam with coupled L2 weight decay 1e-4, lr 1e-3 on a cosine stepped per epoch over
30 epochs, clip 1.0), batch 64, cross-entropy.

Metrics per training: the best validation accuracy over the epochs (the paper's
metric), the test accuracy at that epoch (held-out voices: the headline here) and at
the last epoch. Per model: mean, sample sd and a Student-t interval over seeds
([`t_interval`][syncattn.experiments.kws.t_interval]); the gap oscillator - softmax
paired by seed with its t interval.

Paper (no positions, 5 seeds): oscillator 88.79 ± 0.29 %, softmax 87.71 ± 0.70 %;
the abstract states +1.00 point (the per-seed files give +1.07).

**Frozen $W_V$** (issue 29; seed 001's keyword_spotting/frozen_value.py): ``models``
may also name ``"oscillator-frozen-wv"`` and ``"softmax-frozen-wv"`` ($W_V$ kept at its
random initialisation, [`syncattn.nn.FrozenLinear`][]); every pair of
`syncattn.experiments._variants`'s ``COMPARISONS`` present gets its paired
difference with a t interval (``comparisons``). Published: frozen-$W_V$ oscillator
88.5 % at seed 0 (best validation accuracy, Speech Commands).
"""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import numpy as np

from . import _protocol as protocol
from ._common import (
    describe_values,
    fmt_mean_std,
    new_figure,
    recipe_fields,
    save_figure,
    write_csv,
    write_json,
)
from ._grid import Grid
from ._kws_training import (
    KWSCell,
    KWSRecipe,
    kws_cell,
    kws_model,
    kws_optimizer,
    kws_task,
)
from ._protocol import Context, Experiment
from ._variants import COMPARISONS, check_models, paired as paired_difference


__all__ = [
    "Config",
    "rebuild",
    "KWSRecipe",
    "KWSCell",
    "PAPER",
    "kws_cell",
    "kws_task",
    "kws_model",
    "kws_optimizer",
    "cells",
    "aggregate",
    "t_interval",
    "run",
    "summary",
]

NAME = "kws"

PAPER = {
    "source": "seed 001 (arXiv 2606.12059) Table 1; ../shared/EXPERIMENTS.md B1",
    "data": "Google Speech Commands v0.02, 10 keywords, official splits",
    "metric": "best validation accuracy over 30 epochs, seeds 0-4",
    "softmax": {
        "mean": 87.71,
        "std": 0.70,
        "values": [87.69, 88.63, 86.85, 87.28, 88.12],
    },
    "oscillator": {
        "mean": 88.79,
        "std": 0.29,
        "values": [88.90, 88.63, 88.41, 89.20, 88.79],
    },
    "gain_points": 1.00,
    "gain_points_files": 1.07,
    "oscillator-frozen-wv": {"seed 0": 88.5},
}

PROXY_NOTE = (
    "synthetic proxy: espeak-ng speech (syncattn.data.kws), 12 classes, split by voice; "
    "not Speech Commands, so the accuracies are not comparable to the paper's, only the "
    "sign and size of the oscillator - softmax gap under one recipe"
)


@dataclasses.dataclass(frozen=True)
class Config(KWSRecipe):
    """Experiment 8's settings.

    Attributes:
        models: ``"oscillator"``, ``"softmax"`` and the frozen-$W_V$ arms.
        seeds: training seeds (one cell per model and seed).
        workers: espeak-ng processes at once while generating the set.
        confidence: level of the t intervals.
        data_seed, voices, clips_per_class, d_osc, normalize_anchors, d_model, n_heads, d_ff, n_layers,
            dropout, positions, epochs, batch_size, lr, weight_decay, clip_norm: the
            recipe of every cell ([`KWSRecipe`][syncattn.experiments.kws.KWSRecipe]).
    """

    models: tuple[str, ...] = ("oscillator", "softmax")
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    workers: int = 2
    confidence: float = 0.95

    def __post_init__(self):
        if not self.models or not self.seeds:
            raise ValueError("models and seeds must be non-empty.")
        check_models(
            self.models,
            ("oscillator", "softmax", "oscillator-frozen-wv", "softmax-frozen-wv"),
        )
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie in (0, 1); got {self.confidence}.")
        if self.epochs < 1 or self.batch_size < 1:
            raise ValueError("epochs and batch_size must be >= 1.")
        self.data_config()  # validates voices and clips_per_class

    @classmethod
    def smoke(cls) -> Config:
        """Seconds (CI): 7 voices x 2 clips per class (168 clips), 2 epochs of batch 16,
        2 seeds x 2 models."""
        return cls(
            seeds=(0, 1), voices=(3, 2, 2), clips_per_class=2, epochs=2, batch_size=16
        )

    @classmethod
    def default(cls) -> Config:
        """This CPU: 100 voices (70 / 15 / 15) x 8 clips per class (9,600 clips, 6,720 for
        training), the paper's recipe (30 epochs of batch 64), 5 seeds per model."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """About Speech Commands' size: 32 clips per class and voice (26,880 training
        clips against its ~30,800), 5 seeds."""
        return cls(clips_per_class=32)


def cells(config: Config) -> list[KWSCell]:
    """One [`KWSCell`][syncattn.experiments.kws.KWSCell] per (model, seed), seed by seed
    (both models of a seed before the next seed: a partial grid is already paired)."""
    return [
        KWSCell(
            name=f"{m}-d{config.d_osc}{_suffix(config, m)}-seed{s}",
            model=m,
            seed=s,
            **recipe_fields(config, KWSRecipe),
        )
        for s in config.seeds
        for m in config.models
    ]


def _suffix(config: KWSRecipe, model: str) -> str:
    return (
        "-raw"
        if model.startswith("oscillator") and not config.normalize_anchors
        else ""
    )


def t_interval(values, confidence: float = 0.95) -> tuple[float, float] | None:
    r"""Student-t interval of a mean: $\bar x \mp t_{(1+c)/2,\,n-1}\, s/\sqrt n$
    ([`syncattn.stats.t_interval`][]; ``None`` for fewer than 2 values)."""
    from .. import stats

    return stats.t_interval(values, confidence)


def aggregate(config: Config, cell_list, results) -> dict:
    """Per model: test accuracy at the best validation epoch, best val and final test
    accuracy (percent; mean, sd, t interval); the paired gap oscillator - softmax."""
    keys = ("test_at_best", "best_val", "final_test")
    rows = []
    for c, r in zip(cell_list, results, strict=True):
        r = protocol.CellResult.of(r)
        ok = r.ok
        rows.append(
            {
                "model": c.model,
                "seed": c.seed,
                "status": r.status.value,
                "test_at_best": 100 * r["test_at_best"] if ok else math.nan,
                "best_val": 100 * r["best_val_acc"] if ok else math.nan,
                "final_test": 100 * r["final_test_acc"] if ok else math.nan,
                "best_epoch": r.get("best_epoch", -1),
            }
        )
    table = {}
    for m in config.models:
        sel = [r for r in rows if r["model"] == m]
        table[m] = {}
        for k in keys:
            vals = [r[k] for r in sel]
            finite = [v for v in vals if math.isfinite(v)]
            ci = t_interval(finite, config.confidence)
            table[m][k] = describe_values(vals) | {"ci": ci}
    gap = None
    if {"oscillator", "softmax"} <= set(config.models):
        by = {(r["model"], r["seed"]): r for r in rows}
        gap = {}
        for k in keys:
            d = [by["oscillator", s][k] - by["softmax", s][k] for s in config.seeds]
            d = [v for v in d if math.isfinite(v)]
            gap[k] = describe_values(d) | {"ci": t_interval(d, config.confidence)}

    def paired(k, a, b):
        by_cell = {(r["model"], r["seed"]): r[k] for r in rows}
        return paired_difference(by_cell, config.seeds, a, b, config.confidence)

    comparisons = [
        {"a": a, "b": b} | {k: paired(k, a, b) for k in keys}
        for a, b in COMPARISONS
        if {a, b} <= set(config.models)
    ]
    return {
        "rows": rows,
        "table": table,
        "gap": gap,
        "comparisons": comparisons,
        "confidence": config.confidence,
    }


def _walk(config, ctx: Context) -> tuple:
    """In a run: the data generated (cached) and the cells trained; in a rebuild: the
    cells read and the data set's record taken from the source's ``results.json``."""
    import json

    cell_list = cells(config)
    if ctx.rebuilding:
        prior = ctx.committed / "results.json"
        info = json.loads(prior.read_text()).get("data", {}) if prior.is_file() else {}
        return cell_list, ctx.fetch(cell_list), info | {"seconds_this_run": None}
    from ..data import kws

    t0 = time.time()
    data = kws.load_kws(
        config.data_config(), workers=config.workers, progress=ctx.grid.progress
    )
    data_seconds = time.time() - t0
    results = ctx.fetch(cell_list)
    man = data.manifest
    info = {
        "hash": man["hash"],
        "path": str(data.path),
        "espeak_ng": man["espeak_ng"],
        "librosa": man["librosa"],
        "counts": man["counts"],
        "speakers": man["speakers"],
        "classes": man["classes"],
        "seconds_this_run": data_seconds,
    }
    return cell_list, results, info


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` and ``runs.csv``."""
    cell_list, results, data_info = walked
    agg = aggregate(config, cell_list, results)
    params = {c.model: r.get("params") for c, r in zip(cell_list, results, strict=True)}
    payload = {
        "experiment": NAME,
        "note": PROXY_NOTE,
        **agg,
        "data": data_info,
        "params": params,
        "paper": PAPER,
        "rebuilt_from": ctx.rebuilt_from,
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(
        ctx.out / "runs.csv", {k: [r[k] for r in rows] for k in rows[0]}
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``kws.png``."""
    return {"png": _plot(config, results, Path(out) / "kws.png")}


def _plot(config, agg, path):
    fig, (ax, bx) = new_figure(2, 1, width=4.2)
    for j, m in enumerate(config.models):
        vals = [r["test_at_best"] for r in agg["rows"] if r["model"] == m]
        ax.scatter(
            np.full(len(vals), j) + np.linspace(-0.15, 0.15, len(vals)),
            vals,
            s=16,
            color=f"C{j}",
            alpha=0.8,
        )
        t = agg["table"][m]["test_at_best"]
        if t["ci"]:
            ax.errorbar(
                [j + 0.25],
                [t["mean"]],
                yerr=[[t["mean"] - t["ci"][0]], [t["ci"][1] - t["mean"]]],
                fmt="o",
                color=f"C{j}",
                capsize=4,
            )
    ax.set_xticks(range(len(config.models)), config.models, rotation=30, fontsize=7)
    ax.set_ylabel("test accuracy at best val epoch (%)")
    ax.set_title("synthetic KWS proxy (dots: seeds)", fontsize=9)
    if agg["gap"]:
        for i, k in enumerate(("test_at_best", "best_val", "final_test")):
            g = agg["gap"][k]
            if g["mean"] is None:
                continue
            err = (
                [[g["mean"] - g["ci"][0]], [g["ci"][1] - g["mean"]]]
                if g["ci"]
                else None
            )
            bx.errorbar([i], [g["mean"]], yerr=err, fmt="o", color="C2", capsize=4)
        bx.axhline(
            PAPER["gain_points"],
            color="k",
            ls="--",
            lw=1,
            label="paper +1.00 (Speech Commands)",
        )
        bx.axhline(0, color="grey", lw=0.8)
        bx.set_xticks(range(3), ["test@best", "best val", "final test"])
        bx.set_ylabel("oscillator - softmax (points)")
        bx.set_title(
            f"paired gap, {int(100 * config.confidence)}% t interval", fontsize=9
        )
        bx.legend(fontsize=7)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The table as text, next to the paper's numbers."""
    lines = [
        f"KWS ({results['note']})",
        "accuracy (%), mean ± sd over seeds [t interval] | paper best val (Speech Commands)",
    ]

    def ci(d):
        return f"[{d['ci'][0]:.2f}, {d['ci'][1]:.2f}]" if d.get("ci") else ""

    for m, t in results["table"].items():
        p = results["paper"].get(m, {})
        lines.append(
            f"  {m:<10} test@best {fmt_mean_std(t['test_at_best'], 2)} {ci(t['test_at_best'])}  "
            f"best val {fmt_mean_std(t['best_val'], 2)}  final test {fmt_mean_std(t['final_test'], 2)}"
            + (
                f" | paper {p['mean']} ± {p['std']}"
                if "mean" in p
                else "".join(f" | paper {k}: {v}" for k, v in p.items())
            )
        )
    g = results.get("gap")
    if g and g["test_at_best"]["mean"] is not None:
        lines.append(
            f"  gap oscillator - softmax (paired): test@best {g['test_at_best']['mean']:+.2f} "
            f"{ci(g['test_at_best'])}, best val {g['best_val']['mean']:+.2f} {ci(g['best_val'])} "
            f"| paper {results['paper']['gain_points']:+.2f}"
        )
    for c in results.get("comparisons") or ():
        if (c["a"], c["b"]) == ("oscillator", "softmax"):
            continue
        parts = [
            f"{k} {c[k]['mean']:+.2f}{ci(c[k])}"
            for k in ("test_at_best", "best_val")
            if c[k]["mean"] is not None
        ]
        if parts:
            lines.append(
                f"  {c['a']} - {c['b']} (paired, {c['best_val']['n']} seeds): "
                + ", ".join(parts)
            )
    return "\n".join(lines)


EXPERIMENT = Experiment(NAME, Config, _walk, tables, plots, kws_cell, summary=summary)
"""The keyword-spotting experiment as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Generate the data (cached), train the grid (resuming), write config.json,
    results.json, runs.csv and kws.png."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The table and plot of the experiment in `src` (its ``config.json``, its
    ``results.json`` for the data set's record, and ``runs/CELL/result.json``; e.g. the
    committed ``results/experiments/kws/kws-default``) rebuilt into `out` from those files
    alone: no data are generated, nothing is trained (cells not there are reported
    missing).

    Raises:
        FileNotFoundError: `src` has no kws ``config.json``.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)

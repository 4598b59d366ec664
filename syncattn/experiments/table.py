r"""Experiment 1 (seed 000's table): the Kuramoto LM against the matched RoPE + SwiGLU transformer.

Validation bits per character (BPC) of byte-level language models, one training
per (size, model, seed) cell, summarised per (size, model) as mean ± sample
standard deviation and median over the seeds, as the paper reports them:

$$\mathrm{BPC} = \frac{\bar\ell}{\ln 2},\qquad
  \bar\ell = \text{mean next-byte cross-entropy (nats) on the validation split.}$$

The corpus is enwik8 when ``data_path`` is given (its standard 90/5/5 MB split),
and the embedded corpus (the King James Bible shipped with the package) otherwise;
``results.json`` says which. Paper (arXiv 2606.11585, ../shared/EXPERIMENTS.md A):
1.637 ± 0.010 (Kuramoto) vs 1.616 ± 0.004 (transformer) at 1M parameters;
median 1.448 vs 1.452 (mean 1.468 vs 1.456) at 5M, 5 seeds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ._common import (
    TableRecipe,
    describe_values,
    fmt_mean_std,
    new_figure,
    save_figure,
    write_csv,
    write_json,
)
from ._grid import Grid, TrainCell
from ._papers import TABLE
from ._protocol import Context, Experiment, walk_cells
from ._seed000 import (
    corpus_choice as corpus_choice,
    table_cell,
    train_overrides as train_overrides,
)


__all__ = ["Config", "run", "summary", "cells", "table_cell", "PAPER"]

NAME = "table"

PAPER = TABLE


@dataclasses.dataclass(frozen=True)
class Config(TableRecipe):
    """Experiment 1's settings.

    Attributes:
        sizes: model presets (``"tiny"``, ``"1m"``, ``"5m"``).
        models: ``"kuramoto"`` and ``"softmax"`` (the RoPE + SwiGLU transformer).
        seeds: training seeds (one cell per seed).
        data, data_path, steps, batch_size, seq_len, eval_batches, train: the training
            recipe ([`TableRecipe`][syncattn.experiments._common.TableRecipe]).
    """

    sizes: tuple[str, ...] = ("1m",)
    models: tuple[str, ...] = ("kuramoto", "softmax")
    seeds: tuple[int, ...] = (0, 1, 2)

    def __post_init__(self):
        for m in self.models:
            if m not in ("kuramoto", "softmax", "oscillator"):
                raise ValueError(f"models: unknown model {m!r}.")
        if not self.seeds or not self.sizes or not self.models:
            raise ValueError("sizes, models and seeds must be non-empty.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: the tiny preset, 2 models x 2 seeds x 8 steps (tests)."""
        return cls._smoke(sizes=("tiny",), seeds=(0, 1))

    @classmethod
    def default(cls) -> Config:
        """About 30 minutes on an idle 2-core CPU: "1m", 2 models x 3 seeds x 300 steps
        of 16 x 128 bytes (the paper trains far longer: see docs/experiments.md)."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The paper's table: "1m" and "5m", 5 seeds, the presets' steps and batches
        (enwik8 when ``data_path`` is given). For a GPU."""
        return cls._full(sizes=("1m", "5m"), seeds=(0, 1, 2, 3, 4))


def cells(config) -> list[TrainCell]:
    """One [`TrainCell`][syncattn.experiments.TrainCell] per (size, model, seed)."""
    return [
        table_cell(config, size, model, seed)
        for size in config.sizes
        for model in config.models
        for seed in config.seeds
    ]


def aggregate(config, cell_list, results) -> dict:
    """Per (size, model): the BPC summary over seeds; per size: the paired difference."""
    rows = []
    table: dict = {}
    for cell, res in zip(cell_list, results, strict=True):
        ok = res.get("status") == "ok"
        rows.append(
            {
                "size": cell.config,
                "model": cell.model,
                "seed": cell.seed,
                "status": res.get("status"),
                "params": res.get("params"),
                "step": res.get("step"),
                "val_bpc": res["val"]["bpc"] if ok else None,
            }
        )
    for size in config.sizes:
        table[size] = {}
        for model in config.models:
            sel = [r for r in rows if r["size"] == size and r["model"] == model]
            bpcs = [r["val_bpc"] for r in sel if r["val_bpc"] is not None]
            table[size][model] = describe_values(bpcs) | {
                "params": sel[0]["params"] if sel else None,
                "diverged": sum(r["status"] == "diverged" for r in sel),
            }
        if "kuramoto" in config.models and "softmax" in config.models:
            k = {
                r["seed"]: r["val_bpc"]
                for r in rows
                if r["size"] == size and r["model"] == "kuramoto"
            }
            s = {
                r["seed"]: r["val_bpc"]
                for r in rows
                if r["size"] == size and r["model"] == "softmax"
            }
            diffs = [
                k[x] - s[x]
                for x in config.seeds
                if k.get(x) is not None and s.get(x) is not None
            ]
            table[size]["kuramoto_minus_softmax"] = describe_values(diffs)
    first = next((r for r in results if r.get("status") == "ok"), {})
    return {"rows": rows, "table": table, "corpus": first.get("corpus")}


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` and ``table.csv``."""
    agg = aggregate(config, *walked)
    payload = {
        "experiment": NAME,
        **agg,
        "paper": PAPER,
        "paper_corpus_matches": (agg.get("corpus") or {}).get("name") == "enwik8",
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(
        ctx.out / "table.csv",
        {
            k: [("" if r[k] is None else r[k]) for r in rows]
            for k in ("size", "model", "seed", "status", "params", "step", "val_bpc")
        },
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``table.png``."""
    return {"png": _plot(config, results, Path(out) / "table.png")}


def _plot(config, agg, path):
    fig, (ax,) = new_figure(width=2.2 + 1.4 * len(config.sizes) * len(config.models))
    xs, labels = [], []
    for i, size in enumerate(config.sizes):
        for j, model in enumerate(config.models):
            x = i * (len(config.models) + 1) + j
            vals = [
                r["val_bpc"]
                for r in agg["rows"]
                if r["size"] == size
                and r["model"] == model
                and r["val_bpc"] is not None
            ]
            ax.scatter([x] * len(vals), vals, s=18, color=f"C{j}", alpha=0.7)
            d = agg["table"][size][model]
            if d["mean"] is not None:
                ax.errorbar(
                    [x + 0.25],
                    [d["mean"]],
                    yerr=[d["std"] or 0.0],
                    fmt="o",
                    color=f"C{j}",
                    capsize=3,
                )
            paper = PAPER.get(size, {}).get(model, {})
            if "mean" in paper:
                ax.scatter(
                    [x + 0.25],
                    [paper["mean"]],
                    marker="*",
                    s=80,
                    color="k",
                    zorder=3,
                    label="paper (enwik8)" if not xs else None,
                )
            xs.append(x)
            labels.append(f"{model}\n{size}")
    ax.set_xticks(xs, labels)
    ax.set_ylabel("validation BPC")
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"seed 000 table on {corpus} (dots: seeds)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The table as text, next to the paper's numbers."""
    lines = [
        f"validation BPC on {(results.get('corpus') or {}).get('name')} "
        "(mean ± std over seeds, median) | paper on enwik8"
    ]
    for size, models in results["table"].items():
        for model, d in models.items():
            if model == "kuramoto_minus_softmax":
                lines.append(
                    f"  {size:<5} kuramoto - softmax: {fmt_mean_std(d, 4)} (paired by seed)"
                )
                continue
            paper = results["paper"].get(size, {}).get(model, {})
            p = "-"
            if paper:
                p = f"{paper['mean']:.3f}"
                p += f" ± {paper['std']:.3f}" if "std" in paper else ""
                p += f", median {paper['median']:.3f}" if "median" in paper else ""
            med = "-" if d["median"] is None else f"{d['median']:.3f}"
            lines.append(
                f"  {size:<5} {model:<9} {fmt_mean_std(d)} median {med} (n={d['n']}) | {p}"
            )
    lines.append(
        "paper (enwik8): 1m kuramoto 1.637 ± 0.010, softmax 1.616 ± 0.004; "
        "5m median 1.448 vs 1.452 (mean 1.468 vs 1.456), 5 seeds"
    )
    return "\n".join(lines)


EXPERIMENT = Experiment(
    NAME, Config, walk_cells(cells), tables, plots, summary=summary, rebuildable=False
)
"""Experiment 1 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the grid (resuming), aggregate, write config.json, results.json,
    table.csv and table.png into ``out``; return the files written."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)

r"""Experiment 2 (seed 000's ablations): what each part of the Kuramoto LM is worth, in BPC.

Three variants of the Kuramoto LM, each trained with the full model's settings
and seeds, reported as the difference in validation BPC to the full model,
paired by seed:

$$\Delta_v = \operatorname{mean}_s\big(\mathrm{BPC}_{v,s} - \mathrm{BPC}_{\text{full},s}\big)$$

| variant | model switch | paper $\Delta$ |
|---|---|---|
| learned value projection | ``value="learned"`` | +0.25 |
| no feed-forward block | ``ffn="none"`` | +0.27 |
| no metric gates | ``gates=False`` | +0.09 |

The full model's cells are named as experiment 1's (``SIZE-kuramoto-seedS``), so
``runs=`` pointing at experiment 1's ``runs/`` folder reuses its trainings
(a cell trained with other settings is refused by its run folder's config check).
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
from ._papers import ABLATIONS
from ._protocol import Context, Experiment
from ._seed000 import table_cell


__all__ = ["Config", "run", "summary", "cells", "VARIANTS", "PAPER"]

NAME = "ablations"

VARIANTS = {
    "full": {},
    "learned-value": {"value": "learned"},
    "no-ffn": {"ffn": "none"},
    "no-gates": {"gates": False},
}
"""Variant name -> model overrides of the Kuramoto LM."""

PAPER = ABLATIONS


@dataclasses.dataclass(frozen=True)
class Config(TableRecipe):
    """Experiment 2's settings (the training fields are experiment 1's).

    Attributes:
        size: the model preset (``"tiny"``, ``"1m"``, ``"5m"``).
        variants: among ``full``, ``learned-value``, ``no-ffn``, ``no-gates``
            (``full`` is always trained: it is the reference).
        seeds: training seeds, one cell per (variant, seed).
        data, data_path, steps, batch_size, seq_len, eval_batches, train: as in
            experiment 1 ([`TableRecipe`][syncattn.experiments._common.TableRecipe]).
        runs: the folder of the run folders (``None``: ``OUT/runs``); experiment
            1's ``runs/`` shares its full-model cells.
    """

    size: str = "1m"
    variants: tuple[str, ...] = ("full", "learned-value", "no-ffn", "no-gates")
    seeds: tuple[int, ...] = (0, 1, 2)
    runs: str | None = None

    def __post_init__(self):
        bad = [v for v in self.variants if v not in VARIANTS]
        if bad:
            raise ValueError(f"variants: unknown {bad}; choose among {list(VARIANTS)}.")
        if not self.seeds:
            raise ValueError("seeds must be non-empty.")
        if "full" not in self.variants:
            object.__setattr__(self, "variants", ("full", *self.variants))

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: the tiny preset, 4 variants x 1 seed x 8 steps (tests)."""
        return cls._smoke(size="tiny", seeds=(0,))

    @classmethod
    def default(cls) -> Config:
        """About 30 minutes on an idle 2-core CPU (9 new cells when experiment 1's
        full-model cells are shared): "1m", 3 seeds x 300 steps of 16 x 128 bytes."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The paper's size as far as it is known: "5m", 5 seeds, the preset's steps
        (the paper does not say at which size it ablated). For a GPU."""
        return cls._full(size="5m", seeds=(0, 1, 2, 3, 4))


def cells(config) -> list[TrainCell]:
    """One Kuramoto-LM [`TrainCell`][syncattn.experiments.TrainCell] per (variant, seed)."""
    return [
        table_cell(
            config,
            config.size,
            "kuramoto",
            seed,
            "" if variant == "full" else variant,
            VARIANTS[variant],
        )
        for variant in config.variants
        for seed in config.seeds
    ]


def aggregate(config, cell_list, results) -> dict:
    rows = []
    for i, res in enumerate(results):
        variant = config.variants[i // len(config.seeds)]
        seed = cell_list[i].seed
        ok = res.get("status") == "ok"
        rows.append(
            {
                "variant": variant,
                "seed": seed,
                "status": res.get("status"),
                "params": res.get("params"),
                "step": res.get("step"),
                "val_bpc": res["val"]["bpc"] if ok else None,
            }
        )
    full = {r["seed"]: r["val_bpc"] for r in rows if r["variant"] == "full"}
    table = {}
    for variant in config.variants:
        sel = [r for r in rows if r["variant"] == variant]
        entry = describe_values([r["val_bpc"] for r in sel if r["val_bpc"] is not None])
        entry["params"] = sel[0]["params"]
        if variant != "full":
            diffs = [
                r["val_bpc"] - full[r["seed"]]
                for r in sel
                if r["val_bpc"] is not None and full.get(r["seed"]) is not None
            ]
            entry["delta"] = describe_values(diffs)
            entry["paper_delta"] = PAPER["delta_bpc"][variant]
        table[variant] = entry
    first = next((r for r in results if r.get("status") == "ok"), {})
    return {"rows": rows, "table": table, "corpus": first.get("corpus")}


def _walk(config, ctx: Context) -> tuple:
    """The variants' cells, trained (or reused) in ``config.runs`` (default ``OUT/runs``)."""
    cell_list = cells(config)
    runs = Path(config.runs) if config.runs else ctx.runs
    return cell_list, ctx.grid.run(cell_list, runs, ctx.cell, desc=NAME), runs


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` and ``ablations.csv``."""
    cell_list, results, runs = walked
    agg = aggregate(config, cell_list, results)
    payload = {
        "experiment": NAME,
        "size": config.size,
        "runs": str(runs),
        **agg,
        "paper": PAPER,
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    files["csv"] = write_csv(
        ctx.out / "ablations.csv",
        {
            k: [("" if r[k] is None else r[k]) for r in agg["rows"]]
            for k in ("variant", "seed", "status", "params", "step", "val_bpc")
        },
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``ablations.png``."""
    return {"png": _plot(config, results, Path(out) / "ablations.png")}


def _plot(config, agg, path):
    variants = [v for v in config.variants if v != "full"]
    fig, (ax,) = new_figure(width=1.6 + 1.3 * max(len(variants), 1))
    for i, v in enumerate(variants):
        d = agg["table"][v]["delta"]
        vals = [x for x in d["values"] if x == x]
        ax.scatter(
            [i - 0.12] * len(vals),
            vals,
            s=16,
            color="C0",
            alpha=0.7,
            label="ours, per seed" if i == 0 else None,
        )
        if d["mean"] is not None:
            ax.errorbar(
                [i + 0.05],
                [d["mean"]],
                yerr=[d["std"] or 0.0],
                fmt="o",
                color="C0",
                capsize=3,
                label="ours, mean ± std" if i == 0 else None,
            )
        ax.scatter(
            [i + 0.2],
            [PAPER["delta_bpc"][v]],
            marker="*",
            s=90,
            color="k",
            label="paper" if i == 0 else None,
        )
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set_xticks(range(len(variants)), variants)
    ax.set_ylabel("BPC - BPC(full model)")
    corpus = (agg.get("corpus") or {}).get("name", "?")
    ax.set_title(f"seed 000 ablations, {config.size} on {corpus}")
    ax.legend(fontsize=8)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The BPC differences next to the paper's."""
    lines = [
        f"ablations at {results['size']} on {(results.get('corpus') or {}).get('name')}: "
        "delta BPC to the full model (paired by seed) | paper"
    ]
    full = results["table"]["full"]
    lines.append(f"  full model     BPC {fmt_mean_std(full)} (n={full['n']})")
    for v, d in results["table"].items():
        if v == "full":
            continue
        lines.append(
            f"  {v:<14} {fmt_mean_std(d['delta'], 3):>16} | {d['paper_delta']:+.2f}"
        )
    return "\n".join(lines)


EXPERIMENT = Experiment(
    NAME, Config, _walk, tables, plots, summary=summary, rebuildable=False
)
"""Experiment 2 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the variants (resuming; sharing ``runs``), write config.json,
    results.json, ablations.csv and ablations.png; return the files."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)

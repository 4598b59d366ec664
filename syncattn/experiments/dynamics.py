r"""Experiment 3 (seed 000's dynamics): order parameters and learned frequencies per layer.

For trained Kuramoto LMs (the cells of experiment 1, trained here if missing) and,
as a reference, the same models at initialisation, on ``n_sequences`` validation
windows, per layer $\ell$ (the phases $\theta$ entering layer $\ell$'s
[`syncattn.nn.KuramotoAttention`][], read from
[`syncattn.models.KuramotoLM`][]'s ``diagnostics=True``):

$$R^{\text{loc}}_\ell = \operatorname{mean}_{b,t,j}\,\Big|\sum_{u\le t} A^{h(j)}_{tu}
  e^{i\theta_{uj}}\Big|,\qquad
  R^{\text{glob}}_\ell = \operatorname{mean}_{b,j}\,\Big|\frac1T\sum_{t} e^{i\theta_{tj}}\Big|,
  \qquad \bar\omega_\ell = \operatorname{mean}_j |\omega_{\ell j}|.$$

The paper's claims (seed 000), and the criterion each verdict uses:

* local order near 1: $R^{\text{loc}}_\ell \ge$ ``local_threshold`` (0.9) in every layer;
* global order falling with depth: $R^{\text{glob}}_\ell$ decreasing in $\ell$
  ("holds" if it decreases at every layer, "partly" if only last < first);
* omega higher in early layers: $\bar\omega_\ell$ decreasing in $\ell$ (same rule).
  At initialisation every layer has the same frequencies $\omega_j = b^{-j'/k_h}$,
  so any depth trend is learned.

The verdicts are taken on the mean over seeds, and reported per seed too.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from ._common import (
    TableRecipe,
    new_figure,
    save_figure,
    write_csv,
    write_json,
)
from ._dynamics import (
    block_grad_norms as block_grad_norms,
    layer_statistics as layer_statistics,
    measure_run,
    verdicts as verdicts,
)
from ._grid import Grid, TrainCell
from ._protocol import Context, Experiment
from ._seed000 import table_cell


__all__ = [
    "Config",
    "run",
    "summary",
    "cells",
    "layer_statistics",
    "measure_run",
    "block_grad_norms",
    "verdicts",
]

NAME = "dynamics"


@dataclasses.dataclass(frozen=True)
class Config(TableRecipe):
    """Experiment 3's settings (the training fields are experiment 1's).

    Attributes:
        size: the model preset.
        seeds: the Kuramoto cells to analyse (trained if missing).
        data, data_path, steps, batch_size, seq_len, eval_batches, train: as in
            experiment 1 ([`TableRecipe`][syncattn.experiments._common.TableRecipe]).
        runs: the folder of the run folders (``None``: ``OUT/runs``); experiment
            1's ``runs/`` reuses its trained Kuramoto models.
        n_sequences: validation windows the statistics average over.
        local_threshold: "near 1" means at least this.
    """

    size: str = "1m"
    seeds: tuple[int, ...] = (0, 1, 2)
    runs: str | None = None
    n_sequences: int = 16
    local_threshold: float = 0.9

    def __post_init__(self):
        if not self.seeds:
            raise ValueError("seeds must be non-empty.")
        if self.n_sequences < 1:
            raise ValueError(f"n_sequences must be >= 1; got {self.n_sequences}.")
        if not 0.0 < self.local_threshold <= 1.0:
            raise ValueError(
                f"local_threshold must lie in (0, 1]; got {self.local_threshold}."
            )

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: one tiny model, 8 steps, 2 windows (tests)."""
        return cls._smoke(size="tiny", seeds=(0,), n_sequences=2)

    @classmethod
    def default(cls) -> Config:
        """Experiment 1's default Kuramoto cells ("1m", 3 seeds, 300 steps): free when
        ``runs`` points at experiment 1's ``runs/``, about 15 minutes otherwise."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """The "5m" models of the paper-size table, 5 seeds, 64 windows. For a GPU."""
        return cls._full(size="5m", seeds=(0, 1, 2, 3, 4), n_sequences=64)


def cells(config) -> list[TrainCell]:
    """The Kuramoto cells, named as experiment 1's (``SIZE-kuramoto-seedS``)."""
    return [table_cell(config, config.size, "kuramoto", seed) for seed in config.seeds]


def _walk(config, ctx: Context) -> tuple:
    """The Kuramoto cells, trained (or reused) in ``config.runs`` (default ``OUT/runs``),
    and each finished one measured with its initial model."""
    cell_list = cells(config)
    runs = Path(config.runs) if config.runs else ctx.runs
    results = ctx.grid.run(cell_list, runs, ctx.cell, desc=NAME)
    per_seed = []
    corpus_name = None
    for cell, res in zip(cell_list, results, strict=True):
        if res.get("status") != "ok":
            per_seed.append({"seed": cell.seed, "status": res.get("status")})
            continue
        m = measure_run(runs / cell.name, config.n_sequences, config.local_threshold)
        corpus_name = m.pop("corpus")
        per_seed.append(
            {
                "seed": cell.seed,
                "status": "ok",
                "step": m.pop("step"),
                "val_bpc": res["val"]["bpc"],
                **m,
            }
        )
    return per_seed, corpus_name, runs


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` (the means over seeds, the verdicts) and ``dynamics.csv``."""
    per_seed, corpus_name, runs = walked
    ok = [p for p in per_seed if p["status"] == "ok"]

    def mean_of(kind, keys):
        if not ok:
            return {}
        return {k: np.mean([p[kind][k] for p in ok], 0).tolist() for k in keys}

    orders = ("local_order", "global_order", "omega_abs")
    mean = mean_of("trained", (*orders, "omega_abs_median"))
    mean_init = mean_of("init", orders)
    payload = {
        "experiment": NAME,
        "size": config.size,
        "runs": str(runs),
        "corpus": corpus_name,
        "n_sequences": config.n_sequences,
        "per_seed": per_seed,
        "mean": mean,
        "mean_init": mean_init,
        "verdicts": verdicts(mean, config.local_threshold) if ok else {},
        "claims": (
            "seed 000: local order near 1, global order falling with depth, "
            "omega higher in early layers"
        ),
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    rows = [
        (
            p["seed"],
            kind,
            layer,
            p[kind]["local_order"][layer],
            p[kind]["global_order"][layer],
            p[kind]["omega_abs"][layer],
        )
        for p in ok
        for kind in ("trained", "init")
        for layer in range(len(p[kind]["local_order"]))
    ]
    columns = (
        "seed",
        "model",
        "layer",
        "local_order",
        "global_order",
        "omega_abs_mean",
    )
    files["csv"] = write_csv(
        ctx.out / "dynamics.csv",
        {name: [r[i] for r in rows] for i, name in enumerate(columns)},
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``dynamics.png``."""
    ok = [p for p in results["per_seed"] if p["status"] == "ok"]
    path = Path(out) / "dynamics.png"
    return {"png": _plot(config, ok, results["mean"], results["mean_init"], path)}


def _plot(config, ok, mean, mean_init, path):
    fig, axes = new_figure(3, width=3.6, height=3.2)
    keys = (
        ("local_order", "local order $R^{loc}$"),
        ("global_order", "global order $R^{glob}$"),
        ("omega_abs", r"mean $|\omega|$"),
    )
    for ax, (k, label) in zip(axes, keys, strict=True):
        for p in ok:
            y = p["trained"][k]
            ax.plot(range(1, len(y) + 1), y, color="C0", alpha=0.35, lw=1)
        if mean:
            y = mean[k]
            ax.plot(
                range(1, len(y) + 1), y, "o-", color="C0", lw=2, label="trained (mean)"
            )
            ax.plot(
                range(1, len(y) + 1),
                mean_init[k],
                "s--",
                color="0.5",
                label="at initialisation",
            )
            ax.set_xticks(range(1, len(y) + 1))
        if k == "local_order":
            ax.axhline(
                config.local_threshold,
                color="C3",
                lw=0.8,
                ls=":",
                label=f"'near 1' = {config.local_threshold}",
            )
        ax.set_xlabel("layer")
        ax.set_title(label)
    axes[0].legend(fontsize=7)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """Per-layer means and the verdicts on the paper's claims."""
    m, mi = results.get("mean") or {}, results.get("mean_init") or {}
    if not m:
        return "dynamics: no trained model finished."
    lines = [
        f"dynamics at {results['size']} on {results['corpus']} "
        f"({len(results['per_seed'])} seed(s), {results['n_sequences']} windows)",
        "  layer  local  global  mean|omega|   (init: local global |omega|)",
    ]
    for i in range(len(m["local_order"])):
        lines.append(
            f"  {i + 1:>5}  {m['local_order'][i]:.3f}  {m['global_order'][i]:.3f}  "
            f"{m['omega_abs'][i]:.4f}      ({mi['local_order'][i]:.3f} "
            f"{mi['global_order'][i]:.3f} {mi['omega_abs'][i]:.4f})"
        )
    for claim, verdict in results["verdicts"].items():
        lines.append(f"  {claim}: {verdict}")
    return "\n".join(lines)


EXPERIMENT = Experiment(
    NAME, Config, _walk, tables, plots, summary=summary, rebuildable=False
)
"""Experiment 3 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train (or reuse) the Kuramoto cells, measure them and their initial models,
    write config.json, results.json, dynamics.csv and dynamics.png."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)

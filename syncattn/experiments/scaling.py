r"""Experiment 5 (seed 001's d_osc sweep): the oscillator LM against softmax on a word-level corpus.

One training per (d_osc, seed) of seed 001's causal LM ("paper-b-lm": 2 layers,
d_model 128, 4 heads, d_ff 512, dropout 0.1; ../shared/EXPERIMENTS.md B3) with the
published recipe (AdamW lr 5e-4, weight decay 1e-4, cosine to 0 with no warm-up,
clip 1.0), plus the softmax baseline on the same seeds and a sweep of the readout
exponent $p$ at one $d$. The gap to softmax,

$$\Delta(d) = \overline{\mathrm{PPL}}_\mathrm{osc}(d) - \overline{\mathrm{PPL}}_\mathrm{softmax}
  \approx C d^{-\alpha},$$

is fitted by least squares of $\log\Delta$ on $\log d$ over the per-$d$ means, with a
percentile bootstrap interval for $\alpha$ (2,000 resamples of the seeds within each
$d$ and within the baseline, `numpy.random.default_rng(0)`):
[`syncattn.stats.power_law_bootstrap`][].

Corpus: WikiText-2 (``data_path`` to its files) or TinyStories (a path whose name
contains "tinystories"); without a path the word-level view of the embedded corpus
(``"embedded-words"``: the King James Bible with WikiText-2's tokenisation), which is
not the paper's corpus, and ``results.json`` says so.

Paper: WikiText-2 +11.09 -> +2.98 and TinyStories +2.39 -> +0.57 from d = 2 to 32;
published 5-point fit alpha = 0.420 (CI 0.386-0.463) on WikiText-2 and 0.599
(0.572-0.627) on TinyStories; "alpha ~ 0.5" in the text.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from ._common import (
    CPU_STEPS as CPU_STEPS,
    CPU_TRAIN as CPU_TRAIN,
    ScalingRecipe,
    write_csv,
    write_json,
)
from ._dosc import (
    PAPER as PAPER,
    RECIPE as RECIPE,
    corpus_choice as corpus_choice,
    law as law,
    lm_cell as lm_cell,
    plot_law as plot_law,
    summary as summary,
)
from ._grid import Grid, TrainCell
from ._protocol import Context, Experiment, walk_cells


__all__ = [
    "Config",
    "cells",
    "lm_cell",
    "law",
    "run",
    "summary",
    "PAPER",
    "CPU_STEPS",
    "CPU_TRAIN",
    "corpus_choice",
    "plot_law",
]

NAME = "scaling"

# CPU_STEPS, CPU_TRAIN (the default size's recipe) live in _common, beside the recipes


@dataclasses.dataclass(frozen=True)
class Config(ScalingRecipe):
    """Experiment 5's settings.

    Attributes:
        dims: oscillator dimensions $d$.
        seeds: training seeds (every $d$, the baseline and the $p$ sweep).
        p_values: readout exponents of the sweep at `p_dim` ($p = 1$ is the main grid's).
        p_dim: the $d$ of the $p$ sweep.
        data, data_path, steps, batch_size, eval_batches, train: the training recipe
            ([`ScalingRecipe`][syncattn.experiments._common.ScalingRecipe]).
        n_boot, boot_seed, confidence: the bootstrap of the fit.
        coupling, impl: the oscillator layer (experiment 7 changes them).
    """

    dims: tuple[int, ...] = (2, 4, 8, 16, 32)
    seeds: tuple[int, ...] = (0, 1)
    p_values: tuple[int, ...] = (2, 4)
    p_dim: int = 8
    n_boot: int = 2000
    boot_seed: int = 0
    confidence: float = 0.95
    coupling: str = "softplus"
    impl: str = "quadratic"

    def __post_init__(self):
        if not self.dims or not self.seeds:
            raise ValueError("dims and seeds must be non-empty.")
        # models imports JAX (heavy): only when a config is built
        from ..models import check_d_osc

        for d in self.dims:
            check_d_osc(d, "each of dims")
        check_d_osc(self.p_dim, "p_dim")
        if any(p < 1 for p in self.p_values):
            raise ValueError(f"p_values must be >= 1; got {self.p_values}.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: d in {2, 4}, one seed, p = 2 at d = 2, 3 steps of 4 rows."""
        return cls._smoke(dims=(2, 4), seeds=(0,), p_values=(2,), p_dim=2, n_boot=50)

    @classmethod
    def default(cls) -> Config:
        """About 30 minutes of this CPU: 5 dims x 2 seeds + softmax + p in {2, 4} at d = 8,
        300 steps of 32 rows with the changes in `CPU_TRAIN`
        (far from converged)."""
        return cls._cpu()

    @classmethod
    def full(cls) -> Config:
        """The paper's grid: 5 seeds, 30 epochs of batch 64 on WikiText-2 (about 21,000
        steps), the whole validation split. For a GPU."""
        return cls._full(seeds=(0, 1, 2, 3, 4))


def cells(config: Config) -> list[TrainCell]:
    """Oscillator cells per (d, seed) at p = 1, the softmax cells, the p sweep."""
    out = [
        lm_cell(config, "oscillator", s, d) for d in config.dims for s in config.seeds
    ]
    out += [lm_cell(config, "softmax", s) for s in config.seeds]
    out += [
        lm_cell(config, "oscillator", s, config.p_dim, p)
        for p in config.p_values
        if p != 1
        for s in config.seeds
    ]
    return out


def _ppl(res):
    return res["val"]["ppl"] if res.get("status") == "ok" else math.nan


def aggregate(config: Config, cell_list, results) -> dict:
    """Per-d PPL summaries, the softmax baseline, the gaps and their power-law fit."""
    by = {c.name: r for c, r in zip(cell_list, results, strict=True)}
    osc = {
        d: [_ppl(by[lm_cell(config, "oscillator", s, d).name]) for s in config.seeds]
        for d in config.dims
    }
    soft = [_ppl(by[lm_cell(config, "softmax", s).name]) for s in config.seeds]
    sweep = {
        p: [
            _ppl(by[lm_cell(config, "oscillator", s, config.p_dim, p).name])
            for s in config.seeds
        ]
        for p in config.p_values
        if p != 1
    }
    first = next((r for r in results if r.get("status") == "ok"), {})
    return law(config, osc, soft, sweep) | {
        "corpus": first.get("corpus"),
        "params": {
            c.name: r.get("params") for c, r in zip(cell_list, results, strict=True)
        },
    }


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` (the law) and ``runs.csv``."""
    cell_list, results = walked
    agg = aggregate(config, cell_list, results)
    name = (agg.get("corpus") or {}).get("name")
    payload = {
        "experiment": NAME,
        **agg,
        "paper": PAPER,
        "paper_corpus_matches": name in ("wikitext2", "tinystories"),
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    files["csv"] = write_csv(
        ctx.out / "runs.csv",
        {
            "cell": [c.name for c in cell_list],
            "status": [r.get("status") for r in results],
            "val_ppl": [_ppl(r) for r in results],
        },
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``scaling.png`` ([`plot_law`][syncattn.experiments._dosc.plot_law])."""
    return {"png": plot_law(config, results, Path(out) / "scaling.png")}


EXPERIMENT = Experiment(
    NAME, Config, walk_cells(cells), tables, plots, summary=summary, rebuildable=False
)
"""Experiment 5 as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the grid (resuming), fit, write config.json, results.json, runs.csv, scaling.png."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)

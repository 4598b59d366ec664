r"""Issue 20, item 1: seed 000's table as a compute-matched size ladder, each cell trained to a defined end.

The Kuramoto LM against the matched RoPE + SwiGLU transformer (byte-level, validation
and test BPC) at a ladder of sizes, each size trained on a Chinchilla-style budget:

$$D = \lceil \kappa N \rceil \text{ tokens},\quad \kappa = 20,\qquad
  S = e\left\lceil \frac{D}{e\,B\,T} \right\rceil \text{ steps of } B\times T \text{ bytes,}$$

with the training package's warm-up + cosine schedule ending at $S$ (to 10 % of the
peak, ``min_lr_ratio``), $e$ evaluations spread evenly over the run, and $N$ the rung's
parameter count (the Kuramoto model's total count, embeddings included, as the 1m/5m
presets count them; the transformer lies within 5 % of it).

**The rung rule** ([`rung_shape`][syncattn.experiments._protocol.rung_shape], the protocol's), for a target
$N^\ast$: depth $L$ = 1 below 30 k, 2 up to 140 k, 3 up to 280 k, 4 up to 3 M, 6 above
(the 1m and 5m presets' depths); heads of width 16 ($n_{heads} = d/16$); the Kuramoto
model's feed-forward $d_{ff}$ = the multiple of 8 nearest $2.75\,d$ (the 1m preset's
ratio); $d$ = the multiple of 16 whose Kuramoto count is closest to $N^\ast$ (in
$|\ln(N/N^\ast)|$); the transformer has the same $d$, $L$ and heads, and the multiple of 8
for its $d_{ff}$ that brings its count closest to the Kuramoto's. Counts are those of
the real models (`syncattn.models.config_params`). Default rungs: 46 k, 92 k, 125 k,
209 k parameters (targets 50 k, 100 k, 150 k, 200 k); ``--full`` adds 411 k, 1 M and 5 M.

**Per rung and model:** a learning-rate sweep at the first seed: ``lrs`` at the first
rung, and above it as many values of the same geometric grid centred on the model's
best lr of the rung below ([`rung_lrs`][syncattn.experiments.ladder.rung_lrs]); extended
one grid value at a time past an edge while the best lies on it (``extend`` at most);
the lr with
the lowest final validation BPC is then trained on the other seeds (the largest rung
on ``top_seeds`` seeds in all, when set). Every lr's BPC is reported, and a best lr at
the edge of the sweep is flagged. The headline BPC is on the **test** split (the
validation split chose the lr); the gap Kuramoto - transformer is paired by seed with a
Student-t interval ([`syncattn.stats.t_interval`][]), and fitted against $N$ as
$\mathrm{gap} = a + b\ln N$ through the rung means with a percentile bootstrap over the
seeds ([`syncattn.stats.log_linear_bootstrap`][]), predicted at 1 M and 5 M against the
paper's +0.021 and about 0 (median -0.004, mean +0.012).

**Convergence record:** a cell is converged when its validation BPC fell by less than
1 % over the last 20 % of its steps ([`syncattn.stats.relative_improvement`][] on the
evaluations logged during training); the cells that were not are listed.

**Results that outlive the machine.** Each finished cell's ``result.json`` (with its
evaluation curve, test BPC and tokens/s) and the evaluation rows of its ``log.jsonl``
are written, with ``export=true``, to ``committed`` (default ``"auto"``: the
checkout's ``results/experiments/ladder/ladder-SIZE``, for the embedded corpus); a cell
found there with the same settings is not trained again, on any machine. Checkpoints
stay in ``--out``. ``syncattn experiment ladder --from-results DIR`` rebuilds the
tables and plots from such a folder alone ([`rebuild`][syncattn.experiments.ladder.rebuild]).

**For issue 20's later items.** Every cell is an ordinary run folder
(``OUT/runs/RUNG-MODEL-lrLR-seedS``: config, log, checkpoints; its ``result.json`` also
in the committed folder), and ``results.json`` names per rung each model's chosen lr
(``rungs[i]["best_lr"]``) and lists every cell (``rows``, with its convergence record).
Item 2 (ablations at a converged rung) builds the variants with
[`rung_cell`][syncattn.experiments.ladder.rung_cell] at the rung's Kuramoto lr and
seeds (``variant="noffn", extra={"model.ffn": "none"}``: same shape, budget and
schedule; a re-matched no-feed-forward variant adds ``"model.d_ff"``), and pairs them
with the rung's finished full-model cells, which it reuses as they are. Item 3
(dynamics per rung) reads the Kuramoto checkpoints of those cells, as ``dynamics``
reads experiment 1's (``runs=OUT/runs``). Items 4 and 5 (seed 001's tasks) reuse the
machinery rather than the cells: the budget rule
([`rung_budget`][syncattn.experiments.ladder.rung_budget]), the sweep
([`rung_lrs`][syncattn.experiments.ladder.rung_lrs], ``next_lr``, ``best_lr``), the
convergence record ([`syncattn.stats.relative_improvement`][]) and the committed
round trip (``committed_dir``, adopt/export, ``rebuild``).
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

from ... import models
from .. import _protocol as protocol
from .._grid import Grid, TrainCell
from .._protocol import (
    CellResult as CellResult,
    Context,
    Experiment,
    ProtocolConfig,
    Status as Status,
    best_lr as best_lr,
    centred_lrs,
    check_protocol as check_protocol,
    converged as converged,
    corpus_choice as corpus_choice,
    fetcher as fetcher,
    lr_grid as lr_grid,
    next_lr as next_lr,
    rung_budget as rung_budget,
    rung_cell as rung_cell,
    rung_depth as rung_depth,
    rung_overrides as rung_overrides,
    rung_shape as rung_shape,
    scored_cell,
)
from . import _items
from ._cells import (
    FAMILIES as FAMILIES,
    MODELS as MODELS,
    NAME,
    rung_seeds as rung_seeds,
    seed_cells as seed_cells,
    sweep_cells as sweep_cells,
)
from ._items import (
    ABLATIONS as ABLATIONS,
    PROBES as PROBES,
    matched_depth as matched_depth,
)
from ._report import (
    PAPER as PAPER,
    PREDICT_AT as PREDICT_AT,
    aggregate as aggregate,
    plots,
    record_lines as record_lines,
    summary as summary,
    tables,
)


__all__ = [
    "Config",
    "EXPERIMENT",
    "run",
    "rebuild",
    "walk",
    "summary",
    "aggregate",
    "rung_depth",
    "rung_shape",
    "rung_budget",
    "rung_overrides",
    "rung_seeds",
    "rung_cell",
    "corpus_choice",
    "ladder_cell",
    "sweep_cells",
    "seed_cells",
    "best_lr",
    "next_lr",
    "lr_grid",
    "rung_lrs",
    "committed_dir",
    "PAPER",
    "ABLATIONS",
    "PROBES",
    "matched_depth",
    "FAMILIES",
    "MODELS",
]

HEAD_WIDTH, FF_RATIO, DEPTHS = models.HEAD_WIDTH, models.FF_RATIO, models.DEPTHS
ladder_cell = scored_cell
"""The ladder's cell function ([`scored_cell`][syncattn.experiments._protocol.scored_cell])."""
committed_dir = functools.partial(protocol.committed_dir, name=NAME)
"""The ladder's folder of committed results
([`committed_dir`][syncattn.experiments._protocol.committed_dir] with its name)."""
# the convergence record under its other names
_converged = convergence_record = converged


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    """The ladder's settings: the protocol's
    ([`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig]: ``lrs``,
    ``extend``, ``seeds``, the budget, the schedule, the convergence record, the
    intervals, ``committed``, ``export``, ``train``) and these.

    Attributes:
        targets: target parameter counts $N^\\ast$ of the rungs (the rule picks the shapes).
        top_seeds: seeds (counting the sweep's) at the largest rung (``None``: all).
        data: ``"auto"`` (enwik8 for a file named enwik8*, any other file as text with
            5 % validation and 5 % test, the embedded corpus without a path) or a corpus.
        data_path: the corpus file (``--data-path``).
        ablate_at: the rung (a target of `targets`) of the ablations (item 2;
            ``None``: none), at its Kuramoto lr and seeds.
        ablations: the variants there, among
            [`ABLATIONS`][syncattn.experiments.ladder.ABLATIONS].
        probes: why the gap: the choices seed 000 leaves open, changed one at a time at
            the same rung ([`PROBES`][syncattn.experiments.ladder.PROBES]).
        probe_seeds: the rung's first seeds the probes train.
        dynamics: measure the dynamics (item 3) of every rung's Kuramoto cells.
        dynamics_sequences: validation windows of that measurement.
        local_threshold: "local order near 1" means at least this.
    """

    targets: tuple[int, ...] = (50_000, 100_000, 150_000, 200_000)
    top_seeds: int | None = 2
    ablate_at: int | None = 50_000
    ablations: tuple[str, ...] = ABLATIONS
    probes: tuple[str, ...] = tuple(PROBES)
    probe_seeds: int = 2
    dynamics: bool = True
    dynamics_sequences: int = 16
    local_threshold: float = 0.9

    def __post_init__(self):
        if self.ablate_at is not None and self.ablate_at not in self.targets:
            raise ValueError(
                f"ablate_at must be one of targets {self.targets} or None; "
                f"got {self.ablate_at}."
            )
        bad = [v for v in self.ablations if v not in ABLATIONS]
        if bad:
            raise ValueError(
                f"ablations: unknown {bad}; choose among {list(ABLATIONS)}."
            )
        bad = [v for v in self.probes if v not in PROBES]
        if bad:
            raise ValueError(f"probes: unknown {bad}; choose among {list(PROBES)}.")
        if self.probe_seeds < 1:
            raise ValueError(f"probe_seeds must be >= 1; got {self.probe_seeds}.")
        if self.dynamics_sequences < 1 or not 0 < self.local_threshold <= 1:
            raise ValueError(
                "dynamics_sequences must be >= 1 and local_threshold in (0, 1]."
            )
        if not self.targets:
            raise ValueError("targets must be non-empty.")
        if len(set(self.targets)) != len(self.targets) or min(self.targets) < 1000:
            raise ValueError(
                f"targets must be distinct and >= 1000; got {self.targets}."
            )
        if (
            self.seeds
            and self.top_seeds is not None
            and not 1 <= self.top_seeds <= len(self.seeds)
        ):
            raise ValueError(
                f"top_seeds must lie in [1, len(seeds)]; got {self.top_seeds}."
            )
        super().__post_init__()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: two one-layer rungs (12 k, 31 k), 2 lrs, 2 seeds, 0.1 N tokens."""
        return cls(
            targets=(12_000, 30_000),
            lrs=(3e-3, 1e-2),
            seeds=(0, 1),
            top_seeds=None,
            tokens_per_param=0.1,
            batch_size=4,
            seq_len=32,
            evals=5,
            eval_batches=2,
            final_batches=2,
            n_boot=50,
            extend=0,
            committed=None,
            ablate_at=12_000,
            ablations=("no-ffn-matched",),
            probes=("tau-4",),
            probe_seeds=1,
            dynamics_sequences=2,
        )

    @classmethod
    def default(cls) -> Config:
        """Issue 20's CPU protocol: 4 rungs of 46 k-209 k parameters, 3 lrs (+ extensions),
        3 seeds (2 at 209 k), 20 N tokens each (about 2 h of an idle 2-core CPU, estimated
        from measured tokens/s: docs/experiments.md)."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """For a GPU: 7 rungs up to 5 M parameters (1 M and 5 M are the paper's sizes),
        5 seeds on every rung, larger final scores, the ablations at 1 M."""
        return cls(
            targets=(50_000, 100_000, 150_000, 200_000, 400_000, 1_000_000, 5_000_000),
            seeds=(0, 1, 2, 3, 4),
            top_seeds=None,
            final_batches=200,
            ablate_at=1_000_000,
            dynamics_sequences=64,
        )


def rung_lrs(config: Config, prior: float | None) -> list[float]:
    """The sweep of a rung: ``config.lrs`` at the first rung (`prior` None); above it,
    as many grid values ([`lr_grid`][syncattn.experiments._protocol.lr_grid]) centred on
    the best lr of the rung below (`prior`), centre first."""
    return centred_lrs(config.lrs, prior)


def walk(config: Config, fetch) -> tuple[list[TrainCell], list[CellResult], dict]:
    """Every cell, rung by rung ([`rung_walk`][syncattn.experiments._protocol.rung_walk]
    over ``targets`` with ``top_seeds``): the sweep (centred on the rung below's best lrs,
    the first rung's family by family, the others' interleaved; extended past an edge),
    then the seeds at the best lr. `fetch(cells)` returns their results (training them,
    or reading them)."""
    return protocol.rung_walk(config, fetch, config.targets, config.top_seeds, FAMILIES)


def _walk(config: Config, ctx: Context) -> tuple:
    """The ladder's cells, then its items: the ablations at ``ablate_at`` and the
    dynamics of each rung's Kuramoto cells (measured in a run, read in a rebuild)."""
    cells, results, best = walk(config, ctx.fetch)
    abl = _items.ablation_cells(config, best)
    abl_results = ctx.fetch(abl) if abl else []
    dyn = _items.dynamics_cells(config, cells, best)
    dyn_results = [results[cells.index(c)] for c in dyn]
    if ctx.rebuilding:
        measured = _items.read_dynamics_of(config, ctx.committed, dyn, dyn_results)
    else:
        measured = _items.measure(
            config,
            dyn,
            dyn_results,
            ctx.runs,
            ctx.out / "retrain",
            ctx.grid,
            ctx.cell,
            ctx.committed,
            config.export,
        )
    return cells, results, best, (abl, abl_results, dyn, measured)


EXPERIMENT = Experiment(
    NAME, Config, _walk, tables, plots, ladder_cell, FAMILIES, summary
)
"""The ladder as an [`Experiment`][syncattn.experiments._protocol.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the ladder (resuming; adopting committed cells), write config.json,
    results.json, cells.csv, rungs.csv and ladder.png; return the files written."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and plots of the ladder in `src` (a folder with ``config.json`` and
    ``runs/CELL/result.json``, e.g. the committed one) rebuilt into `out` from those
    files alone (cells not there are reported missing).

    Raises:
        FileNotFoundError: `src` has no ladder ``config.json``.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)

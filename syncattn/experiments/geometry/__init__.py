r"""Issue 29, section 1: what the geometry buys, the Kuramoto gap taken apart.

The size ladder (``syncattn experiment ladder``) measured the Kuramoto LM at about
+0.2 BPC behind a matched RoPE + SwiGLU transformer at every rung. This experiment asks
which part of that gap the feed-forward block, the readout and the state's geometry
explain, on the ladder's protocol ([`syncattn.experiments._protocol`][]: a 20 N token
budget, each family at its own lr from a sweep of 3 extended past an edge, 3 seeds at
the best lr, test BPC, paired intervals, a convergence record, committed cells,
``--from-results``), at the ladder's rungs 50 k and 150 k on the embedded corpus.

**Families** ([`FAMILIES`][syncattn.experiments.geometry.FAMILIES], data: an attention
and model override items), each against the same softmax cells:

1. ``kuramoto``: seed 000's model as published, the ladder's own cells (adopted from
   ``results/experiments/ladder/ladder-default``, never trained here);
2. ``kuramoto-lift``: its feed-forward on the lift $(\cos\theta, \sin\theta)$
   (``ffn="lift"``), width re-matched;
3. ``kuramoto-vonmises`` and ``kuramoto-liftlinear``: the readouts
   ``sync.readout=vonmises`` ($\ell_{tv} = \sum_j \kappa_{vj}\cos(\theta_{tj} -
   \varphi_{vj})$) and ``sync.readout=lift_linear`` (a linear head on the lift);
4. ``kuramoto-best``: 2 and 3 combined by the rule of
   [`choose_best`][syncattn.experiments.geometry.choose_best];
5. ``sphere-n3``, ``sphere-n4``, ``sphere-n8``: states on $S^{n-1}$
   (``attention="sphere"``, ``sync.sphere_dim=n``, the lift feed-forward);
6. ``so3``, ``u2``: group states (``attention="group"``, ``sync.group``).

**Sizes.** A rung is the ladder's ([`rung_shape`][syncattn.experiments._protocol.rung_shape]:
depth, heads, the Kuramoto width $d$, the budget $S$ from the Kuramoto count); the
reference families keep the ladder's cells. Every other family is matched to the
rung's *softmax* count $N_s$ by [`family_shape`][syncattn.experiments.geometry.family_shape]:
the ladder's feed-forward rule (the multiple of 8 of $d_{ff}$ whose count is nearest
$N_s$) at the rung's width; where that cannot come within ``match_tol`` (2 %; a sphere
or group model's embedding and readout grow as $V k n$ or $V k n^2$, so at the rung's
width even $d_{ff} = 8$ is too large), the width $k$ = ``d_model`` is lowered in steps
of the rung's head count (heads and depth kept) to the largest width whose matched count
lies within it. At each width $d_{ff}$ is a multiple of 8 where that comes within the
tolerance, else any integer $\ge 8$ (the lift's step of 8 is 5 % of the 150 k rung's
count). The state size per token
([`state_size`][syncattn.experiments.geometry.state_size]) is reported beside.

**Learning rates.** A family's sweep at the first rung is centred on the Kuramoto
model's best lr of that rung (the ladder's), at the rungs above on its own best lr of
the rung below ([`centred_lrs`][syncattn.experiments._protocol.centred_lrs]); extended
past an edge (``extend``); its best lr then trained at every seed.

**Report** ([`compare`][syncattn.experiments.geometry.compare]): per family and rung
the paired test-BPC gap to softmax with its Student-t interval, the paired difference to
the Kuramoto model, and the fraction of the Kuramoto gap closed,

$$f = \frac{\bar g_K - \bar g_F}{\bar g_K}, \qquad
  \bar g_X = \frac1{|S|}\sum_{s\in S}\big(\mathrm{BPC}_{X,s} - \mathrm{BPC}_{\text{softmax},s}\big),$$

over the seeds $S$ all three hold, with the interval of the paired mean of
$\mathrm{BPC}_{K,s} - \mathrm{BPC}_{F,s}$ divided by $\bar g_K$ (conditional on the
Kuramoto gap); each comparison's paired t test p-value with Holm's adjustment over
every comparison of its kind the report makes
([`adjust`][syncattn.experiments.geometry.adjust]); a verdict per family in words
([`verdict`][syncattn.experiments.geometry.verdict]); the tables in Markdown
(``gaps.md``); one plot, the gap against the
state dimension $n$ (torus at $n = 2$).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .. import _protocol as protocol
from .._grid import Grid
from .._protocol import Context, Experiment, ProtocolConfig, scored_cell
from ._families import (
    BEST as BEST,
    DIM as DIM,
    FAMILIES as FAMILIES,
    KURAMOTO as KURAMOTO,
    NAME,
    NUMBER as NUMBER,
    READOUTS as READOUTS,
    REFERENCES as REFERENCES,
    SOFTMAX as SOFTMAX,
    _best_family,
    available,
    choose_best as choose_best,
    choose_top as choose_top,
    family_shape as family_shape,
    geometry_cell,
    ladder_dir,
    state_dim as state_dim,
    state_size as state_size,
)
from ._report import (
    _rows,
    adjust as adjust,
    aggregate as aggregate,
    compare as compare,
    fraction_closed as fraction_closed,
    plot as plot,
    plots,
    summary as summary,
    tables,
    verdict as verdict,
)


__all__ = [
    "Config",
    "EXPERIMENT",
    "run",
    "rebuild",
    "summary",
    "aggregate",
    "FAMILIES",
    "REFERENCES",
    "family_shape",
    "state_size",
    "state_dim",
    "geometry_cell",
    "available",
    "choose_best",
    "choose_top",
    "compare",
    "adjust",
    "fraction_closed",
    "verdict",
    "ladder_dir",
    "plot",
]


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    """The geometry experiment's settings: the protocol's
    ([`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig]) and these.

    Attributes:
        targets: the ladder's rungs (target counts) compared here.
        ladder_targets: the ladder's rungs whose walk gives the reference cells (its lr
            sweep at a rung is centred on the rung below, so the walk runs from the
            first rung up to the largest of `targets`; every rung keeps all seeds).
        families: the families run besides the references (names of
            [`FAMILIES`][syncattn.experiments.geometry.FAMILIES] and ``kuramoto-best``).
        match_tol: the largest relative count difference to the rung's softmax cell.
        top_target: a rung above `targets` (the largest of `ladder_targets`) at which only
            the *top family* runs: of the families other than the references, the one
            with the lowest mean validation BPC at its best lr at the largest of
            `targets` ([`choose_top`][syncattn.experiments.geometry.choose_top]); its
            sweep is centred on its best lr of that rung (``None``: no such rung).
        top_seeds: the seeds (counting the sweep's) at `top_target`, for the top family
            and the references alike (the ladder's ``top_seeds``).
        cut: families run at the first of `targets` only (a budget cut: reported as not
            run at the rungs above, never chosen as the top family).
        ladder: the ladder's committed folder the reference cells are adopted from
            (``"auto"``: the checkout's ``results/experiments/ladder/ladder-default`` on
            the embedded corpus; ``None``: none, they are trained).
    """

    targets: tuple[int, ...] = (50_000, 150_000)
    ladder_targets: tuple[int, ...] = (50_000, 100_000, 150_000)
    families: tuple[str, ...] = (*(f.name for f in FAMILIES), BEST)
    match_tol: float = 0.02
    ladder: str | None = "auto"
    top_target: int | None = None
    top_seeds: int = 2
    cut: tuple[str, ...] = ()

    def __post_init__(self):
        names = {f.name for f in FAMILIES} | {BEST}
        bad = [f for f in self.families if f not in names]
        if bad:
            raise ValueError(f"families: unknown {bad}; choose among {sorted(names)}.")
        if not set(self.cut) <= set(self.families):
            raise ValueError(
                f"cut: {sorted(set(self.cut) - set(self.families))} not among "
                f"families {self.families}."
            )
        if not self.targets or not set(self.targets) <= set(self.ladder_targets):
            raise ValueError(
                f"targets {self.targets} must be non-empty and among "
                f"ladder_targets {self.ladder_targets}."
            )
        if not 0 < self.match_tol < 1:
            raise ValueError(f"match_tol must lie in (0, 1); got {self.match_tol}.")
        if self.top_target is not None and (
            self.top_target != max(self.ladder_targets)
            or self.top_target <= max(self.targets)
        ):
            raise ValueError(
                f"top_target {self.top_target} must be the largest of ladder_targets "
                f"{self.ladder_targets} and above every target {self.targets} "
                "(or None)."
            )
        if not 1 <= self.top_seeds <= max(1, len(self.seeds)):
            raise ValueError(
                f"top_seeds must lie in [1, len(seeds)]; got {self.top_seeds}."
            )
        super().__post_init__()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds of training (a minute with compiling): the ladder's first smoke rung
        (12 k), one lr, 2 seeds, 0.1 N tokens, families 2, 5 (n = 3) and 4."""
        return cls(
            targets=(12_000,),
            ladder_targets=(12_000,),
            lrs=(1e-2,),
            seeds=(0, 1),
            families=("kuramoto-lift", "sphere-n3", BEST),
            tokens_per_param=0.1,
            batch_size=4,
            seq_len=32,
            evals=5,
            eval_batches=2,
            final_batches=2,
            n_boot=50,
            extend=0,
            committed=None,
            ladder=None,
        )

    @classmethod
    def default(cls) -> Config:
        """Issue 29's CPU protocol: rungs 50 k and 150 k, 3 lrs (+ extensions), 3 seeds;
        then the top family at the 200 k rung on 2 seeds."""
        return cls(
            ladder_targets=(50_000, 100_000, 150_000, 200_000), top_target=200_000
        )

    @classmethod
    def full(cls) -> Config:
        """The default at 5 seeds (the references' extra seeds are trained)."""
        return cls(seeds=(0, 1, 2, 3, 4))


# --------------------------------------------------------------------------- the walk


def _walk(config: Config, fetch, ref_fetch) -> dict:
    """Every cell in order: the references (the ladder's walk over ``ladder_targets``,
    [`rung_walk`][syncattn.experiments._protocol.rung_walk], every seed at every rung,
    ``top_seeds`` at ``top_target`` when set; adopted), then rung by rung
    each family's sweep (interleaved) and seeds at its best lr; family 4 is chosen after
    the first rung and run from there on (the ``cut`` families at the first rung only);
    last, at ``top_target``, the top family alone."""
    top_seeds = None if config.top_target is None else config.top_seeds
    ref_cells, ref_results, ref_best = protocol.rung_walk(
        config, ref_fetch, config.ladder_targets, top_seeds
    )
    mine = {
        protocol.rung_shape(t)["name"]
        for t in (*config.targets, config.top_target)
        if t
    }
    keep = [i for i, c in enumerate(ref_cells) if c.name.split("-")[0] in mine]
    cells, results = [ref_cells[i] for i in keep], [ref_results[i] for i in keep]
    unavailable = {
        f.name: why
        for f in FAMILIES
        if f.name in config.families and (why := available(f)) is not None
    }
    fams = [
        f for f in FAMILIES if f.name in config.families and f.name not in unavailable
    ]
    best, prior, choice = {}, {}, None
    for i, target in enumerate(sorted(config.targets)):
        best[target] = dict(ref_best[target])
        todo = [f for f in fams if i == 0 or f.name not in config.cut]
        for rnd in range(2):  # the families, then (first rung) family 4 once chosen
            if not todo:
                break
            centre = best[target].get("kuramoto")
            lrs = {
                f.name: protocol.centred_lrs(config.lrs, prior.get(f.name, centre))
                for f in todo
            }
            sw, got, _, b = protocol.sweep(
                config,
                todo,
                lambda f, lr, t=target: geometry_cell(
                    config, t, f, lr, config.seeds[0]
                ),
                fetch,
                lrs=lrs,
            )
            more = protocol.at_best(
                todo,
                b,
                config.seeds[1:],
                lambda f, lr, s, t=target: geometry_cell(config, t, f, lr, s),
            )
            cells += sw + more
            results += got + (fetch(more) if more else [])
            best[target] |= b
            todo = []
            if i == 0 and rnd == 0 and BEST in config.families:
                names = ["kuramoto", "softmax", *(f.name for f in fams)]
                choice = choose_best(
                    _rows(config, cells, results, names),
                    protocol.rung_shape(target)["name"],
                    best[target],
                )
                bf = _best_family(choice)
                if bf is not None and (why := available(bf)) is None:
                    fams.append(bf)
                    todo = [bf]
                elif bf is not None:
                    unavailable[BEST] = why
        prior = {f: lr for f, lr in best[target].items() if lr is not None}
    top = None
    if config.top_target is not None:
        top = _top_rung(config, fetch, ref_best, cells, results, best, prior, fams)
    return {
        "cells": cells,
        "results": results,
        "best": best,
        "choice": choice,
        "top": top,
        "families": [KURAMOTO, SOFTMAX, *fams],
        "unavailable": unavailable,
    }


def _top_rung(config: Config, fetch, ref_best, cells, results, best, prior, fams):
    """The walk's last step, at ``top_target``: the top family of the last rung
    ([`choose_top`][syncattn.experiments.geometry.choose_top]) swept around its prior lr
    and run on ``top_seeds`` seeds; `cells`, `results` and `best` grow in place; returns
    the choice."""
    t, last = config.top_target, protocol.rung_shape(max(config.targets))["name"]
    rows = _rows(
        config,
        cells,
        results,
        [KURAMOTO.name, SOFTMAX.name, *(f.name for f in fams)],
    )
    top = choose_top(rows, last, best[max(config.targets)], [f.name for f in fams])
    best[t] = dict(ref_best[t])
    tf = [f for f in fams if f.name == top["family"]]
    if tf:
        sw, got, _, b = protocol.sweep(
            config,
            tf,
            lambda f, lr: geometry_cell(config, t, f, lr, config.seeds[0]),
            fetch,
            lrs={tf[0].name: protocol.centred_lrs(config.lrs, prior.get(tf[0].name))},
        )
        more = protocol.at_best(
            tf,
            b,
            config.seeds[1 : config.top_seeds],
            lambda f, lr, s: geometry_cell(config, t, f, lr, s),
        )
        cells.extend(sw + more)
        results.extend(got + (fetch(more) if more else []))
        best[t] |= b
    return top


# --------------------------------------------------------------------------- run, rebuild


def _experiment_walk(config: Config, ctx: Context) -> dict:
    """The walk of a run (the references adopted from the ladder's committed folder
    first) or of a rebuild (every cell read from the source)."""
    if ctx.rebuilding:
        return _walk(config, ctx.fetch, ctx.fetch)
    src = ladder_dir(config)

    def ref_fetch(cells):
        # the ladder's committed cells, copied in as finished
        protocol.adopt(cells, src, ctx.runs)
        return ctx.fetch(cells)

    return _walk(config, ctx.fetch, ref_fetch)


EXPERIMENT = Experiment(
    NAME,
    Config,
    _experiment_walk,
    tables,
    plots,
    scored_cell,
    (*REFERENCES, *FAMILIES),
    summary,
)
"""The geometry experiment as an [`Experiment`][syncattn.experiments._protocol.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the experiment (resuming; the reference cells adopted from the ladder's
    committed folder, any cell from this experiment's), write config.json, results.json,
    cells.csv, gaps.csv and geometry.png; return the files written."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and the plot rebuilt into `out` from `src` alone (``config.json`` and
    ``runs/CELL/result.json``; cells not there are reported missing).

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)

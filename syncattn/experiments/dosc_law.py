r"""Issue 20, item 4: seed 001's d_osc law with every cell trained to a defined end.

Experiment 5 (``scaling``) measures the law on a 300-step snapshot of seed 001's
"paper-b-lm". This experiment asks the same question (the oscillator LM at
$d_{osc} \in \{2, 4, 8, 16, 32\}$ against softmax, the gap's power law, the readout
exponent $p$) with the protocol of the size ladder
([`syncattn.experiments.ladder`][]): a stated compute budget, each model family at its
own learning rate, a convergence record per cell, committed results that rebuild the
tables.

**Size (our choice, for this CPU).** Seed 001's LM shape at 7/16 of its width: 2
layers, $d = 56$, 4 heads, $d_{ff} = 224$ ($4d$, as the paper's), dropout 0.1,
sinusoidal positions, LayerNorm, GELU, untied head; a 2,000-word vocabulary
(experiment 5's default) of the word-level embedded corpus (``embedded-words``: 50-word
rows, 49 predicted tokens each, 90/5/5 split) unless ``--data-path`` names WikiText-2
or TinyStories (as ``scaling``). The width was chosen so that the default grid fits
about an hour of this CPU (docs/experiments.md, section 5b).

**Budget rule.** Every cell is trained on the same number of tokens,

$$D = \lceil \kappa N \rceil,\quad \kappa = 20,\qquad
  S = e\left\lceil \frac{D}{e\,B\,T} \right\rceil \text{ steps of } B \times T \text{ tokens}$$

([`rung_budget`][syncattn.experiments._protocol.rung_budget]), with $N$ the
**non-embedding** parameter count of the softmax model (everything but the $V \times d$
token embedding and the $d \times V + V$ output layer: 76,496 at the default size, so
$D$ = 1.54 M tokens, 980 steps of 32 x 49, about 1.7 passes over the training
split). The oscillator layers add a few hundred to a few thousand parameters over
$d_{osc}$ (reported per cell); the token budget is the same for all. Seed 001's
optimiser (AdamW, weight decay $10^{-4}$, betas 0.9 / 0.999, clip 1.0, cosine to 0)
with a linear warm-up over 5 % of the steps.

**Fair lr.** Each family (the oscillator LM, swept at $d_{osc}$ = ``sweep_dim`` with
$p = 1$, and softmax) gets its own peak lr: the lowest final validation loss of the
sweep ``lrs`` at ``seeds[0]``, extended one half-decade at a time past an edge while
the best lies on it (``extend`` at most;
[`next_lr`][syncattn.experiments._protocol.next_lr],
[`best_lr`][syncattn.experiments._protocol.best_lr]). The oscillator's lr then serves
every $d_{osc}$ and $p$. Every lr's score is reported.

**Scores.** The validation split chose the lr, so the headline PPLs (the law, the gap,
$\alpha$, the $p$ sweep) are on the **test** split, scored on the whole split
(``final_batches`` ``None``); the same law on the validation split is reported beside
it. The gap and its fit are experiment 5's ([`law`][syncattn.experiments._dosc.law]):
$\Delta(d) = \overline{\mathrm{PPL}}(d) - \overline{\mathrm{PPL}}_\mathrm{softmax}
\approx C d^{-\alpha}$ with a percentile bootstrap interval of $\alpha$ over the seeds.

**Convergence record.** A cell is converged when its validation loss (nats per token,
so the ladder's rule on BPC: the two are proportional) fell by less than 1 % over the
last 20 % of its steps ([`syncattn.stats.relative_improvement`][]); the fall of the
validation PPL over the same window is recorded too. ``results.json`` lists the cells
that were not converged. With a cosine schedule to 0 the last 20 % of the steps run
at under 10 % of the peak lr, so the rule is easier to meet than under a constant lr.

**Results that outlive the machine**, as the ladder's: with ``export=true`` each
finished cell's ``result.json`` and the evaluation rows of its ``log.jsonl`` go to
``committed`` (``"auto"``: ``results/experiments/dosc_law/dosc_law-SIZE`` of the
checkout, for the embedded corpus); committed cells with the same settings are adopted,
not trained again; ``syncattn experiment dosc_law --from-results DIR`` rebuilds the
tables and the plot from such a folder ([`rebuild`][syncattn.experiments.dosc_law.rebuild]).

**Order.** The sweep (both families interleaved), then seed 0 at every $d$ and softmax,
then the other seeds, then the $p$ sweep: a run cut short still holds a complete law
at one seed.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from . import _protocol as protocol
from ._common import write_csv, write_json
from ._dosc import PAPER, law, plot_law, summary as law_summary
from ._dosc_cells import (
    FAMILIES,
    budget,
    budget_params,
    cell,
    dosc_cell,
    walk,
)
from ._grid import Grid, TrainCell
from ._protocol import Context, Experiment, ProtocolConfig, record_lines


__all__ = [
    "Config",
    "EXPERIMENT",
    "run",
    "rebuild",
    "walk",
    "summary",
    "aggregate",
    "budget",
    "cell",
    "dosc_cell",
    "budget_params",
    "PAPER",
    "FAMILIES",
]

NAME = "dosc_law"


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    """The d_osc law's settings: the protocol's
    ([`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig]: ``lrs``,
    ``extend``, ``seeds``, the budget, the schedule, the convergence record, the
    intervals, ``committed``, ``export``, ``train``) and these.

    Attributes:
        dims: oscillator dimensions $d_{osc}$ of the law ($p = 1$).
        seeds: every $d$, softmax and the $p$ sweep; the lr sweep runs at ``seeds[0]``.
        p_values: readout exponents at `p_dim` ($p = 1$ is the law's cell).
        p_dim: the $d_{osc}$ of the $p$ sweep.
        sweep_dim: the $d_{osc}$ at which the oscillator family's lr is swept.
        d_model, n_layers, n_heads, d_ff, vocab_size: the model shape and vocabulary.
        batch_size: rows per step.
        seq_len: predicted tokens per row (49 for the word corpora's 50-word rows): the
            budget's $T$.
        final_batches: batches of the final validation and test scores (``None``: the
            whole splits).
        data, data_path: the corpus (as experiment 5's: ``"auto"`` is embedded-words
            without a path, WikiText-2 or TinyStories with one).
    """

    # the protocol's fields whose defaults differ here
    seeds: tuple[int, ...] = (0, 1)
    batch_size: int = 32
    seq_len: int = 49
    final_batches: int | None = None
    # the law's own
    dims: tuple[int, ...] = (2, 4, 8, 16, 32)
    p_values: tuple[int, ...] = (2, 4)
    p_dim: int = 8
    sweep_dim: int = 8
    d_model: int = 56
    n_layers: int = 2
    n_heads: int = 4
    d_ff: int = 224
    vocab_size: int = 2000

    def __post_init__(self):
        from ..models import check_d_osc

        if not self.dims:
            raise ValueError("dims must be non-empty.")
        for d in self.dims:
            check_d_osc(d, "each of dims")
        check_d_osc(self.p_dim, "p_dim")
        check_d_osc(self.sweep_dim, "sweep_dim")
        if any(p < 1 for p in self.p_values):
            raise ValueError(f"p_values must be >= 1; got {self.p_values}.")
        super().__post_init__()

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: d in {2, 4}, 2 lrs, 2 seeds, p = 2 at d = 2, a 16-wide model on
        0.2 N tokens."""
        return cls(
            dims=(2, 4),
            seeds=(0, 1),
            p_values=(2,),
            p_dim=2,
            sweep_dim=2,
            lrs=(3e-3, 1e-2),
            extend=0,
            d_model=16,
            n_heads=2,
            d_ff=32,
            vocab_size=200,
            tokens_per_param=0.2,
            batch_size=4,
            evals=4,
            eval_batches=1,
            final_batches=2,
            n_boot=50,
            committed=None,
        )

    @classmethod
    def default(cls) -> Config:
        """The CPU protocol: 5 dims + softmax at 2 seeds, 3 lrs per family (+ up to 2
        extensions), p in {2, 4} at d = 8; 1.54 M tokens per cell (23 cells of 3-4
        CPU-minutes each, as committed)."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """For a GPU: seed 001's width (d 128, d_ff 512), its 10,000-word vocabulary and
        5 seeds, p swept at d = 8."""
        return cls(seeds=(0, 1, 2, 3, 4), d_model=128, d_ff=512, vocab_size=10_000)


# --------------------------------------------------------------------------- outputs


def gap_interval(osc: dict, soft: dict, config) -> dict:
    r"""The test-PPL gap at one $d_{osc}$ paired by seed, $\mathrm{PPL}_{osc,s} -
    \mathrm{PPL}_{softmax,s}$ (each family at its own lr, the same seed's data order),
    with its Student-t interval and two-sided t test p-value
    ([`syncattn.stats.t_pvalue`][]; both ``None`` under two seeds)."""
    from .. import stats

    d = protocol.paired(osc, soft, config.seeds, config.confidence)
    return d | {"p": stats.t_pvalue(d["values"]) if d["values"] else None}


def _head(c: TrainCell) -> dict:
    """A cell's labels in its row: its model, d_osc and p."""
    d, p = c.overrides.get("model.d_osc"), c.overrides.get("model.p")
    return {"model": c.model, "d_osc": d, "p": p}


def aggregate(config, cells, results, best) -> dict:
    """Per cell its scores and convergence record; the lr sweep; the law on the test
    and the validation split; the test gap at each $d_{osc}$ paired by seed with its t
    interval ([`gap_interval`][syncattn.experiments.dosc_law.gap_interval])."""
    scores = {
        "val_loss": ("val", "loss"),
        "val_ppl": ("val", "ppl"),
        "test_ppl": ("test", "ppl"),
    }
    rows = [
        protocol.cell_row(config, c, r, _head(c), scores, "loss", also=("ppl",))
        for c, r in zip(cells, results, strict=True)
    ]
    by = {(w["model"], w["d_osc"], w["p"], w["lr"], w["seed"]): w for w in rows}

    def per_seed(split, model, d=None, p=None):
        lr = best[model]
        return [
            by.get((model, d, p, lr, s), {}).get(f"{split}_ppl", math.nan)
            for s in config.seeds
        ]

    laws = {}
    for split in ("test", "val"):
        laws[split] = law(
            config,
            {d: per_seed(split, "oscillator", d, 1) for d in config.dims},
            per_seed(split, "softmax"),
            {
                p: per_seed(split, "oscillator", config.p_dim, p)
                for p in config.p_values
                if p != 1
            },
        )
    names = [f.name for f in FAMILIES]
    soft = dict(zip(config.seeds, per_seed("test", "softmax")))
    osc = {
        d: dict(zip(config.seeds, per_seed("test", "oscillator", d, 1)))
        for d in config.dims
    }
    gap_paired = {d: gap_interval(osc[d], soft, config) for d in config.dims}
    sweep = {
        f: protocol.lr_sweep(
            rows,
            "val_loss",
            lambda w, f=f: (
                w["seed"] == config.seeds[0]
                and w["model"] == f
                and (f == "softmax" or (w["d_osc"], w["p"]) == (config.sweep_dim, 1))
            ),
        )
        for f in names
    }
    return {
        **laws["test"],
        "gap_paired": gap_paired,
        "val_law": laws["val"],
        "budget": budget(config),
        "best_lr": best,
        "lr_sweep": sweep,
        "lr_at_edge": {f: protocol.at_edge(best[f], sweep[f]) for f in names},
        "sweep_complete": {
            f: all(math.isfinite(v) for v in sweep[f].values()) for f in names
        },
        "rows": rows,
        **protocol.record(rows),
        "compute": protocol.compute(rows, tokens=False),
        "corpus": protocol.corpus(results),
    }


def tables(config, walked, ctx: Context) -> tuple[dict, dict[str, Path]]:
    """``results.json`` and ``cells.csv`` of the walk's cells and best lrs."""
    agg = aggregate(config, *walked)
    corpus = (agg.get("corpus") or {}).get("name")
    payload = {
        "experiment": NAME,
        **agg,
        "paper": PAPER,
        "rebuilt_from": ctx.rebuilt_from,
        "split": "test",
        "paper_corpus_matches": corpus in ("wikitext2", "tinystories"),
    }
    files = {"results": write_json(ctx.out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(
        ctx.out / "cells.csv",
        {k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]},
    )
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``dosc_law.png``: the law's figure on the test PPL
    ([`plot_law`][syncattn.experiments._dosc.plot_law])."""
    return {"png": plot_law(config, results, Path(out) / f"{NAME}.png", "test")}


def summary(results: dict) -> str:
    """The law (test PPL), the fit, the p sweep, the lrs and the convergence record."""
    b = results["budget"]
    lines = [
        law_summary(results).replace("validation PPL", "test PPL", 1),
        f"  budget: N = {b['params']:,} non-embedding parameters, {b['tokens']:,} tokens, "
        f"{b['steps']} steps",
    ]
    f = results["val_law"]["fit"]
    if f["status"] == "ok":
        a_ci = f["alpha_ci"]
        val_fit = f"alpha = {f['alpha']:.3f} (CI {a_ci[0]:.3f}-{a_ci[1]:.3f})"
    else:
        val_fit = f["status"]
    lines.append("  the same fit on the validation split: " + val_fit)
    for d, g in (results.get("gap_paired") or {}).items():
        ci, head = g.get("ci"), f"  d = {d}: test gap paired by seed {g['mean']:+.2f}"
        if ci:
            head += (
                f" [{ci[0]:+.2f}, {ci[1]:+.2f}] (t, {g['n']} seeds), p = {g['p']:.2g}"
            )
        lines.append(head)
    for fam, sweep in results["lr_sweep"].items():
        vals = ", ".join(
            f"{lr}: {v:.3f}"
            for lr, v in sweep.items()
            if v is not None and math.isfinite(v)
        )
        edge = " (at the sweep's edge)" if results["lr_at_edge"][fam] else ""
        if not results["sweep_complete"][fam]:
            edge += " (provisional: the sweep has unfinished cells)"
        lines.append(
            f"  {fam} lr {results['best_lr'][fam]}{edge}; val loss by lr: {vals}"
        )
    return "\n".join(lines + record_lines(results, "val loss"))


EXPERIMENT = Experiment(
    NAME,
    Config,
    lambda config, ctx: walk(config, ctx.fetch),
    tables,
    plots,
    dosc_cell,
    FAMILIES,
    summary,
)
"""The d_osc law as an [`Experiment`][syncattn.experiments._protocol.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train the grid (resuming; adopting committed cells), write config.json,
    results.json, cells.csv and dosc_law.png; return the files written."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and the plot rebuilt into `out` from `src` alone (``config.json`` and
    ``runs/CELL/result.json``; cells not there are reported missing).

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    return EXPERIMENT.rebuild(src, out, progress=progress)

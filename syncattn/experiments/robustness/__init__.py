r"""Robustness (issue 19): what a non-ideal substrate does to trained oscillator models.

Seed 001 reads fixed-query oscillator attention as a blueprint for attention computed
by physics, a substrate that settles instead of computing exponentials. A real
substrate is noisy, mismatched, has its own frequencies and settles for a finite time.
This experiment takes trained models, the agreement classifier at $d_\mathrm{osc} = 2$
(experiment 4's cell) and language models at several $d_\mathrm{osc}$ (experiment 5's
cells), and sweeps each non-ideality of [`syncattn.nn.Substrate`][] **alone**, at
inference only ([`syncattn.nn.with_substrate`][], substrate draws from their own keys):

=====================  =======================================  ==============================
non-ideality           the substrate's field                    harsher when
=====================  =======================================  ==============================
state noise            ``noise`` $\sigma$                       larger
coupling mismatch      ``coupling_mismatch`` $\varepsilon$      larger
frequency disorder     ``frequency_disorder`` $\|\Omega\|$      larger
finite settling        ``settle_time`` $T_\mathrm{set}$         smaller
readout precision      ``readout_bits`` $b$                     smaller
=====================  =======================================  ==============================

It reports the hard-sentence accuracy (classifier) or the validation perplexity / BPC
(language models) against the strength, mean and spread over `draws` substrate draws;
the softmax model beside it where the same perturbation means something (see
[`SOFTMAX`][syncattn.experiments.robustness.SOFTMAX]); the theory's prediction
wherever the library has one, evaluated on the model's own drives
([`syncattn.experiments.robustness._theory`][]: the vMF flattening
$A_d(2\|h\|/\sigma^2)$ for noise, the locking threshold $|\omega| \le \|h\|$ for
disorder, the exact angle law and the horizon $\log\cot(\delta/2)/\|h\|$ for settling);
and, per model and non-ideality, the *tolerance*: the strength at which the model has
lost 1 point of hard accuracy or 1 % of perplexity
([`syncattn.experiments.robustness._tolerance`][]).

How the costly points are computed. A noise point integrates the SDE from the layer's
start to the horizon $T_\sigma$ with steps $\Delta t_\sigma$ chosen from the model's own
drives by the flow's relaxation rates (all but 10 % of the queries relax for 5
relaxation times; [`noise_schedule`][syncattn.experiments.robustness._theory.noise_schedule]),
not to the layer's $T = 30$ at $\Delta t = 0.01$. A classifier's disorder point solves
its ODE to the layer's $T = 30$ at ``disorder_rtol``/``disorder_atol`` (1e-5/1e-7)
rather than the layer's 1e-8/1e-10; a language model's, whose $T = 30$ solve of drifting
32-dimensional queries is the run's costliest, to the horizon $T_\Omega$ at which all
but 10 % of the locked queries have relaxed for 5 of their own relaxation times
$1/\lambda^\star$, $\lambda^\star = z^\star\cdot h$
([`disorder_schedule`][syncattn.experiments.robustness._theory.disorder_schedule]), at
``lm_disorder_rtol``/``lm_disorder_atol`` (1e-3/1e-5). Each choice is measured against
a finer one on the first validation batch, with the same keys (``checks`` in
``results.json``).
Noise and disorder may run on a subset of the validation data
(``dynamic_sentences``/``dynamic_batches``), their losses taken against the ideal on
that subset.

Resumable: the trainings are grid cells (experiment 4's and 5's, reused from
``agreement_from`` / ``runs_from`` when given), each model's sweep is written point by
point to ``OUT/sweeps/``.

Files: `_models.py` (the trained models: train or reuse, load, score), `_sweep.py` (the
sweep over strengths and draws, resumable), `_perturb.py` (each non-ideality's
substrate, the softmax analogues, the checks of the schedules), `_theory.py` (the
predictions and schedules from the drives), `_tolerance.py` (the loss and the
tolerance), `_tables.py` (curves, CSV rows, tolerance table, summary), `_plots.py` (the figures).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .._common import write_csv, write_json
from .._grid import Grid
from .._protocol import Context, Experiment
from .._reuse import ReusedRecipe
from . import _models, _sweep, _theory
from ._perturb import SOFTMAX, applies, measure_checks, perturber
from ._sweep import HARSHER, NONIDEALITIES, sweep
from ._tables import curves, rows, summary, tolerance_table


__all__ = ["Config", "run", "summary", "NONIDEALITIES", "SOFTMAX", "PAPER"]

NAME = "robustness"

PAPER = {
    "source": (
        "seed 001 (arXiv 2606.12059); its published code has robustness scripts for "
        "coupling mismatch, state noise, frequency disorder and finite settling time"
    ),
    "claim": (
        "the mechanism is substrate-independent; the paper reports no tolerance numbers "
        "that this run could be set beside"
    ),
}


@dataclasses.dataclass(frozen=True)
class Config(ReusedRecipe):
    """The robustness experiment's settings.

    Attributes:
        seeds: the classifier's training seeds (one model per model kind and seed).
        lm_seeds: the language models' training seeds.
        tasks: ``"agreement"`` (the classifier) and/or ``"lm"`` (the language models).
        models: the classifier's models: ``"oscillator"`` and/or ``"softmax"``.
        lm_models: the language models' (softmax: the ideal reference only, unless a
            non-ideality has a softmax analogue).
        dims: the $d_\\mathrm{osc}$ of the language models (the classifier's is 2).
        sva_epochs, sva_n_train, sva_n_val, sva_data_path: experiment 4's recipe
            ([`SVARecipe`][syncattn.experiments.agreement.SVARecipe]).
        agreement_from: an experiment-4 output folder whose finished cells are used.
        runs_from, data, data_path, steps, batch_size, eval_batches, train: experiment
            5's folder to reuse, else its recipe
            ([`ReusedRecipe`][syncattn.experiments._reuse.ReusedRecipe]).
        nonidealities: which of the five to sweep.
        noise, coupling_mismatch, frequency_disorder, settle_time, readout_bits: the
            strengths of each (all $> 0$).
        draws: substrate draws per point of a stochastic non-ideality.
        substrate_seed: seed of the substrate keys.
        sweep_sentences: validation sentences of the classifier's sweep (``None``: all
            of its validation split).
        sweep_batches: validation batches of the language models' sweep (``None``:
            ``eval_batches``).
        noise_horizon, noise_quantile, noise_drift_step, noise_diffusion_step: the noisy
            settling's schedule $c_T, \\alpha, c_\\Delta, \\epsilon_\\sigma$
            ([`noise_schedule`][syncattn.experiments.robustness._theory.noise_schedule]):
            each noise point runs the SDE to $T_\\sigma$ with steps $\\Delta t_\\sigma$
            from the model's own drives (capped at the layer's `ode_t1`).
        disorder_horizon, disorder_quantile: the LMs' disordered settling's horizon
            $c_T, \\alpha$ ([`disorder_schedule`][syncattn.experiments.robustness._theory.disorder_schedule]):
            each LM disorder point runs its ODE to $T_\\Omega$ from the locked queries'
            relaxation rates (capped at the layer's `ode_t1`; ``disorder_horizon=None``:
            to `ode_t1`). The classifier's run to `ode_t1`: its disorder loss depends on
            the horizon (measured: 1-2 points at $\\|\\Omega\\| = 3$ between $T_\\Omega$ and 30).
        disorder_rtol, disorder_atol: the ODE tolerances of the classifier's disorder
            points (``None``: the layer's own, 1e-8/1e-10; the check below measures the
            difference).
        lm_disorder_rtol, lm_disorder_atol: the same for the LMs' disorder points.
        check_noise, check_disorder: the strengths at which the first validation batch
            is also measured on a finer schedule ($2T_\\sigma$, $\\Delta t_\\sigma/2$;
            disorder: $2T_\\Omega$, and for the classifier the layer's own $T = 30$ at its
            own tolerances), with the same keys (``None``: no check).
        check_rows: the LMs' disorder check runs on the first `check_rows` rows of the
            first batch (``None``: the whole batch).
        lm_every: the LMs sweep every `lm_every`-th strength of each grid, counted
            from the harshest (1: all of them).
        lm_draws: the LMs' draws per stochastic point (``None``: `draws`).
        dynamic_sentences, dynamic_batches: the classifier's sentences / the LMs'
            batches (the first ones of the sweep's data) on which noise and disorder, the
            points that integrate an SDE or ODE, are measured, against the ideal on the
            same subset (``None``: all of the sweep's data).
        delta: the angle $\\delta$ of the settling horizon $\\log\\cot(\\delta/2)/\\|h\\|$.
        acc_limit, ppl_limit: the loss that defines the tolerance: points of hard
            accuracy, relative perplexity (or BPC) increase.
        measure: ``False`` writes the results from the points measured so far (in
            ``OUT/sweeps/``) without measuring more: a report of an unfinished run.
    """

    seeds: tuple[int, ...] = (0, 1)
    lm_seeds: tuple[int, ...] = (0,)
    tasks: tuple[str, ...] = ("agreement", "lm")
    models: tuple[str, ...] = ("oscillator", "softmax")
    lm_models: tuple[str, ...] = ("oscillator", "softmax")
    dims: tuple[int, ...] = (2, 8, 32)
    sva_epochs: int = 20
    sva_n_train: int | None = None
    sva_n_val: int | None = None
    sva_data_path: str | None = None
    agreement_from: str | None = None
    nonidealities: tuple[str, ...] = NONIDEALITIES
    noise: tuple[float, ...] = (0.1, 0.3, 1.0, 2.0, 4.0)
    coupling_mismatch: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0)
    frequency_disorder: tuple[float, ...] = (0.3, 1.0, 2.0, 4.0, 10.0)
    settle_time: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0)
    readout_bits: tuple[int, ...] = (1, 2, 3, 4, 6, 8)
    draws: int = 3
    substrate_seed: int = 0
    sweep_sentences: int | None = None
    sweep_batches: int | None = 4
    noise_horizon: float = 5.0
    noise_quantile: float = 0.1
    noise_drift_step: float = 0.5
    noise_diffusion_step: float = 0.1
    disorder_horizon: float | None = 5.0
    disorder_quantile: float = 0.1
    disorder_rtol: float | None = 1e-5
    disorder_atol: float = 1e-7
    lm_disorder_rtol: float | None = 1e-3
    lm_disorder_atol: float = 1e-5
    check_noise: float | None = 1.0
    check_disorder: float | None = 3.0
    check_rows: int | None = 8
    lm_every: int = 1
    lm_draws: int | None = None
    dynamic_sentences: int | None = None
    dynamic_batches: int | None = None
    delta: float = 0.01
    acc_limit: float = 1.0
    ppl_limit: float = 0.01
    measure: bool = True

    def __post_init__(self):
        models = ("oscillator", "softmax")
        for name, allowed in (
            ("tasks", ("agreement", "lm")),
            ("models", models),
            ("lm_models", models),
            ("nonidealities", NONIDEALITIES),
        ):
            vals = getattr(self, name)
            bad = [v for v in vals if v not in allowed]
            if not vals or bad:
                raise ValueError(
                    f"{name} must be a non-empty subset of {allowed}; got {vals}."
                )
        if "oscillator" not in self.models or "oscillator" not in self.lm_models:
            raise ValueError(
                "models and lm_models must include 'oscillator' (the substrate's model)."
            )
        for name in ("seeds", "lm_seeds"):
            vals = getattr(self, name)
            if not vals or any(
                isinstance(v, bool) or int(v) != v or v < 0 for v in vals
            ):
                raise ValueError(f"{name} must be non-empty ints >= 0; got {vals}.")
        if not self.dims or any(d < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty, each >= 2; got {self.dims}.")
        for kind in NONIDEALITIES:
            s = getattr(self, kind)
            if kind in self.nonidealities and (not s or any(not x > 0 for x in s)):
                raise ValueError(
                    f"{kind}: the strengths must be non-empty and > 0; got {s}."
                )
        if any(int(b) != b or b < 1 for b in self.readout_bits):
            raise ValueError(
                f"readout_bits must be ints >= 1; got {self.readout_bits}."
            )
        if self.lm_every < 1 or (self.lm_draws is not None and self.lm_draws < 1):
            raise ValueError(
                f"lm_every and lm_draws must be >= 1; got {self.lm_every}, {self.lm_draws}."
            )
        if self.draws < 1:
            raise ValueError(f"draws must be >= 1; got {self.draws}.")
        for name in ("noise_quantile", "disorder_quantile"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(
                    f"{name} must lie in (0, 1); got {getattr(self, name)}."
                )
        if self.disorder_horizon is not None and not self.disorder_horizon > 0:
            raise ValueError(
                f"disorder_horizon must be > 0 or None; got {self.disorder_horizon}."
            )
        if self.check_rows is not None and not self.check_rows >= 1:
            raise ValueError(f"check_rows must be >= 1 or None; got {self.check_rows}.")
        for name in (
            "noise_horizon",
            "noise_drift_step",
            "noise_diffusion_step",
            "disorder_atol",
            "lm_disorder_atol",
        ):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0; got {getattr(self, name)}.")
        for name in ("disorder_rtol", "lm_disorder_rtol"):
            if getattr(self, name) is not None and not getattr(self, name) > 0:
                raise ValueError(
                    f"{name} must be > 0 or None; got {getattr(self, name)}."
                )
        if not 0 < self.delta < np.pi:
            raise ValueError(f"delta must lie in (0, pi); got {self.delta}.")
        if not (self.acc_limit > 0 and self.ppl_limit > 0):
            raise ValueError("acc_limit and ppl_limit must be > 0.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds of training (1 epoch on 256 sentences, a d = 2 LM for 3 steps), one
        seed, the softmax classifier but no softmax LM, one strength per non-ideality, 1
        draw, no checks (each strength is one more compilation of the model)."""
        return cls._smoke(
            seeds=(0,),
            lm_seeds=(0,),
            dims=(2,),
            models=("oscillator", "softmax"),
            lm_models=("oscillator",),
            sva_epochs=1,
            sva_n_train=256,
            sva_n_val=64,
            sweep_batches=1,
            noise=(1.0,),
            coupling_mismatch=(0.3,),
            frequency_disorder=(3.0,),
            settle_time=(0.1,),
            readout_bits=(2,),
            draws=1,
            check_noise=None,
            check_disorder=None,
        )

    @classmethod
    def default(cls) -> Config:
        """Meant for 30 minutes of a 2-core CPU with the trainings at hand; measured in
        parts on the loaded machine, not as one fresh run (docs/experiments.md: every
        point, the LMs' disorder to the horizon $T_\\Omega$, in 30 + 8 CPU-minutes over
        two sessions at load 4-11): experiment 4's recipe (20 epochs) on
        seeds 0 and 1 of both classifiers, experiment 5's default recipe at d = 2, 8, 32
        and softmax on seed 0; four strengths per non-ideality, 2 draws; the classifier
        on its whole validation split (4,000 sentences) but noise and disorder on the
        first 2,000, the LMs on 2 validation batches (noise and disorder on 1)."""
        return cls._cpu(
            seeds=(0, 1),
            lm_seeds=(0,),
            dims=(2, 8, 32),
            lm_every=2,
            lm_draws=1,
            noise=(0.5, 1.0, 2.0, 4.0),
            coupling_mismatch=(0.03, 0.1, 0.3, 1.0),
            frequency_disorder=(0.5, 1.0, 2.0, 4.0),
            settle_time=(0.1, 0.3, 1.0, 3.0),
            readout_bits=(1, 2, 4, 8),
            draws=2,
            sweep_sentences=None,
            dynamic_sentences=2000,
            sweep_batches=2,
            dynamic_batches=1,
        )

    @classmethod
    def full(cls) -> Config:
        """Experiment 5's full recipe (WikiText-2 with `data_path`), 8 validation batches,
        more strengths, 5 draws."""
        return cls._full(
            dims=(2, 4, 8, 16, 32),
            draws=5,
            sweep_batches=8,
            noise=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
            coupling_mismatch=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0),
            frequency_disorder=(0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0),
            settle_time=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
            readout_bits=(1, 2, 3, 4, 5, 6, 8, 10),
        )

    def grids(self, task: str = "agreement") -> dict[str, tuple]:
        """``{non-ideality: strengths}`` of the swept ones, for `task` (the LMs: every
        `lm_every`-th strength from the harshest, in the grid's order)."""
        out = {}
        for k in self.nonidealities:
            g = tuple(getattr(self, k))
            if task == "lm" and self.lm_every > 1:
                order = sorted(g, reverse=HARSHER[k] == "larger")  # harshest first
                keep = set(order[:: self.lm_every])
                g = tuple(x for x in g if x in keep)
            out[k] = g
        return out


def _walk(config: Config, ctx: Context) -> dict:
    """Every model trained (or reused), then swept (resuming ``OUT/sweeps``): per model
    its curves, checks, drives and the theory's predictions."""
    trained = _models.train(config, ctx.out, ctx.grid)
    (ctx.out / "sweeps").mkdir(exist_ok=True)
    per_model = {}
    for t in trained:
        key = f"{t.task}-{t.label}"
        if t.result.get("status") != "ok":
            per_model[key] = {"status": t.result.get("status"), "task": t.task}
            continue
        model, scorer, h = _models.load(t, config)
        perturb = perturber(config, t.model, model, h, t.task)
        dyn = _models.dynamic_scorer(scorer, config)
        draws = (
            config.lm_draws
            if t.task == "lm" and config.lm_draws is not None
            else config.draws
        )
        state = sweep(
            ctx.out / "sweeps" / f"{key}.json",
            model,
            scorer,
            config.grids(t.task),
            draws=draws,
            seed=config.substrate_seed,
            perturb=perturb,
            applies=applies(t.model),
            measure=config.measure,
            progress=ctx.grid.progress,
            desc=f"robustness: {key}",
            dynamic_scorer=dyn,
        )
        entry = {
            "task": t.task,
            "model": t.model,
            "d_osc": t.d_osc,
            "seed": t.seed,
            "run": str(t.folder),
            "metric": scorer.metric,
            "ideal": state["ideal"],
            "ideal_dynamic": state.get("ideal_dynamic"),
            "trained_val": t.result.get("val"),
            "settings": state.get("settings", {}),
            "seconds": state.get("seconds", {}),
        }
        checks = ctx.out / "sweeps" / f"{key}-checks.json"
        first_seed = min(config.seeds if t.task == "agreement" else config.lm_seeds)
        if t.model == "oscillator" and config.measure and t.seed == first_seed:
            entry["checks"] = measure_checks(config, checks, model, scorer, h, perturb)
        elif checks.is_file():  # a report: the checks measured so far
            entry["checks"] = _sweep._load(checks)
        entry["curves"] = curves(config, state, scorer.metric, t.task)
        entry["theory_strengths"] = config.grids(t.task)
        if h is not None:
            entry["drives"] = _theory.drive_summary(h)
            entry["theory"] = {
                k: th
                for k, g in config.grids(t.task).items()
                if (th := _theory.predict(k, h, g, delta=config.delta))
            }
        per_model[key] = entry
    return per_model


def tables(
    config: Config, per_model: dict, ctx: Context
) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``robustness.csv`` and ``tolerances.csv``."""
    out = ctx.out
    results = {
        "experiment": NAME,
        "models": per_model,
        "softmax_analogue": SOFTMAX,
        "limits": {
            "acc_hard_points": config.acc_limit,
            "ppl_relative": config.ppl_limit,
        },
        "paper": PAPER,
    }
    files = {"results": write_json(out / "results.json", results)}
    files["csv"] = write_csv(out / "robustness.csv", rows(per_model))
    files["tolerances"] = write_csv(out / "tolerances.csv", tolerance_table(per_model))
    return results, files


def plots(config: Config, results: dict, out: Path) -> dict[str, Path]:
    """One PNG per task, ``robustness_TASK.png``."""
    from ._plots import plot

    files = {}
    for task in config.tasks:
        sel = {
            k: v
            for k, v in results["models"].items()
            if v.get("task") == task and "curves" in v
        }
        if sel:
            files[f"png_{task}"] = plot(
                task, sel, config, Path(out) / f"robustness_{task}.png"
            )
    return files


EXPERIMENT = Experiment(
    NAME, Config, _walk, tables, plots, summary=summary, rebuildable=False
)
"""The robustness experiment as an [`Experiment`][syncattn.experiments.Experiment]."""


def run(
    config: Config,
    out,
    *,
    grid: Grid | None = None,
    progress: bool = True,
    size: str | None = None,
) -> dict[str, Path]:
    """Train (or reuse) the models, sweep them, write config.json, results.json,
    robustness.csv and one PNG per task."""
    return EXPERIMENT.run(config, out, grid=grid, progress=progress, size=size)

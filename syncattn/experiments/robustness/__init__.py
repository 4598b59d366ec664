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

Resumable: the trainings are grid cells (experiment 4's and 5's, reused from
``agreement_from`` / ``runs_from`` when given), each model's sweep is written point by
point to ``OUT/sweeps/``.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from .._common import start_run, write_csv, write_json
from .._grid import Grid
from .._reuse import ReusedRecipe
from . import _models, _theory, _tolerance
from ._sweep import HARSHER, NONIDEALITIES, SYMBOLS, sweep


__all__ = ["Config", "run", "summary", "NONIDEALITIES", "SOFTMAX", "PAPER"]

NAME = "robustness"

SOFTMAX = {
    "noise": {"run": False, "analogue": "none: softmax has no state that settles; noise on its "
              "scores would be a different perturbation, which the substrate does not model"},
    "coupling_mismatch": {"run": False, "analogue": "the unnormalised weights exp(s_ij)(1 + eps xi_ij); "
                          "not run: nn.Substrate acts on OscillatorAttention only"},
    "frequency_disorder": {"run": False, "analogue": "none: softmax has no dynamics"},
    "settle_time": {"run": False, "analogue": "none: softmax has no dynamics (one exact step)"},
    "readout_bits": {"run": False, "analogue": "b-bit attention weights or queries would be one; "
                     "not run: nn.Substrate acts on OscillatorAttention only"},
}
"""What each non-ideality means for the softmax model, and whether it is run: softmax
models enter as the ideal reference only."""

PAPER = {
    "source": "seed 001 (arXiv 2606.12059); its published code has robustness scripts for "
              "coupling mismatch, state noise, frequency disorder and finite settling time",
    "claim": "the mechanism is substrate-independent; the paper reports no tolerance numbers "
             "that this run could be set beside",
}


@dataclasses.dataclass(frozen=True)
class Config(ReusedRecipe):
    """The robustness experiment's settings.

    Attributes:
        seed: the training seed of every model.
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
        delta: the angle $\\delta$ of the settling horizon $\\log\\cot(\\delta/2)/\\|h\\|$.
        acc_limit, ppl_limit: the loss that defines the tolerance: points of hard
            accuracy, relative perplexity (or BPC) increase.
        measure: ``False`` writes the results from the points measured so far (in
            ``OUT/sweeps/``) without measuring more: a report of an unfinished run.
    """

    seed: int = 0
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
    noise: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0)
    coupling_mismatch: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0)
    frequency_disorder: tuple[float, ...] = (0.1, 0.3, 1.0, 3.0, 10.0)
    settle_time: tuple[float, ...] = (0.03, 0.1, 0.3, 1.0, 3.0)
    readout_bits: tuple[int, ...] = (1, 2, 3, 4, 6, 8)
    draws: int = 3
    substrate_seed: int = 0
    sweep_sentences: int | None = None
    sweep_batches: int | None = 4
    delta: float = 0.01
    acc_limit: float = 1.0
    ppl_limit: float = 0.01
    measure: bool = True

    def __post_init__(self):
        models = ("oscillator", "softmax")
        for name, allowed in (("tasks", ("agreement", "lm")), ("models", models),
                              ("lm_models", models), ("nonidealities", NONIDEALITIES)):  # fmt: skip
            vals = getattr(self, name)
            bad = [v for v in vals if v not in allowed]
            if not vals or bad:
                raise ValueError(f"{name} must be a non-empty subset of {allowed}; got {vals}.")
        if "oscillator" not in self.models or "oscillator" not in self.lm_models:
            raise ValueError("models and lm_models must include 'oscillator' (the substrate's model).")
        if not self.dims or any(d < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty, each >= 2; got {self.dims}.")
        for kind in NONIDEALITIES:
            s = getattr(self, kind)
            if kind in self.nonidealities and (not s or any(not x > 0 for x in s)):
                raise ValueError(f"{kind}: the strengths must be non-empty and > 0; got {s}.")
        if any(int(b) != b or b < 1 for b in self.readout_bits):
            raise ValueError(f"readout_bits must be ints >= 1; got {self.readout_bits}.")
        if self.draws < 1:
            raise ValueError(f"draws must be >= 1; got {self.draws}.")
        if not 0 < self.delta < np.pi:
            raise ValueError(f"delta must lie in (0, pi); got {self.delta}.")
        if not (self.acc_limit > 0 and self.ppl_limit > 0):
            raise ValueError("acc_limit and ppl_limit must be > 0.")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds of training (1 epoch on 256 sentences, a d = 2 LM for 3 steps), the
        oscillator models only, one strength per non-ideality, 1 draw (each strength is
        one more compilation of the model)."""
        return cls._smoke(
            dims=(2,), models=("oscillator",), lm_models=("oscillator",), sva_epochs=1,
            sva_n_train=256, sva_n_val=64, sweep_batches=1, noise=(1.0,),
            coupling_mismatch=(0.3,), frequency_disorder=(3.0,), settle_time=(0.1,),
            readout_bits=(2,), draws=1,
        )  # fmt: skip

    @classmethod
    def default(cls) -> Config:
        """Experiment 4's recipe (20 epochs, one seed), experiment 5's default recipe at
        d = 2, 8, 32 and softmax, five strengths per non-ideality (six bit widths), 3
        draws, 4 validation batches per LM point. Meant for about 30 minutes of an idle
        2-core CPU but not measured there: on the loaded machine one noisy evaluation of
        the classifier took over 12 minutes, so the noise sweep alone exceeds that
        budget (docs/experiments.md)."""
        return cls._cpu()

    @classmethod
    def full(cls) -> Config:
        """Experiment 5's full recipe (WikiText-2 with `data_path`), 8 validation batches,
        more strengths, 5 draws."""
        return cls._full(
            dims=(2, 4, 8, 16, 32), draws=5, sweep_batches=8,
            noise=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
            coupling_mismatch=(0.003, 0.01, 0.03, 0.1, 0.3, 1.0),
            frequency_disorder=(0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0),
            settle_time=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0),
            readout_bits=(1, 2, 3, 4, 5, 6, 8, 10),
        )  # fmt: skip

    def grids(self) -> dict[str, tuple]:
        """``{non-ideality: strengths}`` of the swept ones."""
        return {k: tuple(getattr(self, k)) for k in self.nonidealities}


def _applies(model: str):
    return (lambda kind: True) if model == "oscillator" else (lambda kind: SOFTMAX[kind]["run"])


def _curves(config, state, metric: str) -> dict:
    """Per swept non-ideality: strengths, mean/std/draws of the metric, loss, tolerance."""
    ideal = state["ideal"]
    out = {}
    for kind, strengths in config.grids().items():
        pts = state["points"].get(kind)
        if not pts:
            continue
        strengths = [s for s in strengths if str(s) in pts]  # all, unless unfinished
        vals = [pts[str(s)] for s in strengths]
        mean = [float(np.mean(v)) for v in vals]
        std = [float(np.std(v, ddof=1)) if len(v) > 1 else None for v in vals]
        lim = config.acc_limit if metric.startswith("acc") else config.ppl_limit
        loss = _tolerance.loss(metric, ideal, mean)
        tol = _tolerance.tolerance(strengths, loss, lim, harsher=HARSHER[kind])
        out[kind] = {"strengths": list(strengths), "mean": mean, "std": std, "draws": vals,
                     "loss": loss.tolist(), "tolerance": tol}  # fmt: skip
    return out


def run(config: Config, out, *, grid: Grid | None = None, progress: bool = True,
        size: str | None = None) -> dict[str, Path]:
    """Train (or reuse) the models, sweep them, write config.json, results.json,
    robustness.csv and one PNG per task."""
    from ._plots import plot

    out, grid, files = start_run(config, out, NAME, size, grid, progress)
    trained = _models.train(config, out, grid)
    (out / "sweeps").mkdir(exist_ok=True)
    per_model = {}
    for t in trained:
        key = f"{t.task}-{t.label}"
        if t.result.get("status") != "ok":
            per_model[key] = {"status": t.result.get("status"), "task": t.task}
            continue
        model, scorer, h = _models.load(t, config)
        state = sweep(out / "sweeps" / f"{key}.json", model, scorer, config.grids(),
                      draws=config.draws, seed=config.substrate_seed, applies=_applies(t.model),
                      measure=config.measure, progress=progress, desc=f"robustness: {key}")  # fmt: skip
        entry = {"task": t.task, "model": t.model, "d_osc": t.d_osc, "run": str(t.folder),
                 "metric": scorer.metric, "ideal": state["ideal"],
                 "trained_val": t.result.get("val")}  # fmt: skip
        entry["curves"] = _curves(config, state, scorer.metric)
        entry["theory_strengths"] = config.grids()
        if h is not None:
            entry["drives"] = _theory.drive_summary(h)
            entry["theory"] = {k: th for k in config.nonidealities
                               if (th := _theory.predict(k, h, getattr(config, k), delta=config.delta))}  # fmt: skip
        per_model[key] = entry
    results = {"experiment": NAME, "models": per_model, "softmax_analogue": SOFTMAX,
               "limits": {"acc_hard_points": config.acc_limit, "ppl_relative": config.ppl_limit},
               "paper": PAPER}  # fmt: skip
    files["results"] = write_json(out / "results.json", results)
    files["csv"] = write_csv(out / "robustness.csv", _rows(per_model))
    for task in config.tasks:
        sel = {k: v for k, v in per_model.items() if v.get("task") == task and "curves" in v}
        if sel:
            files[f"png_{task}"] = plot(task, sel, config, out / f"robustness_{task}.png")
    return files


def _rows(per_model) -> dict[str, list]:
    cols = {k: [] for k in ("task", "model", "d_osc", "nonideality", "strength", "metric",
                            "ideal", "mean", "std", "loss", "draws", "theory")}  # fmt: skip
    theory_key = {"noise": "contrast_kept", "frequency_disorder": "locked_fraction",
                  "settle_time": "mean_error"}  # fmt: skip
    for e in per_model.values():
        for kind, c in e.get("curves", {}).items():
            th = (e.get("theory") or {}).get(kind)
            grid = [str(x) for x in e["theory_strengths"].get(kind, [])]
            for j, s in enumerate(c["strengths"]):
                cols["task"].append(e["task"])
                cols["model"].append(e["model"])
                cols["d_osc"].append(e["d_osc"] if e["d_osc"] is not None else "")
                cols["nonideality"].append(kind)
                cols["strength"].append(float(s))
                cols["metric"].append(e["metric"])
                cols["ideal"].append(float(e["ideal"]))
                cols["mean"].append(c["mean"][j])
                cols["std"].append(c["std"][j] if c["std"][j] is not None else float("nan"))
                cols["loss"].append(c["loss"][j])
                cols["draws"].append(len(c["draws"][j]))
                cols["theory"].append(th[theory_key[kind]][grid.index(str(s))] if th else float("nan"))
    return cols


def summary(results: dict) -> str:
    """Per model: the ideal metric and the tolerance to each non-ideality."""
    lim = results["limits"]
    lines = [f"tolerance: strength at which hard accuracy drops {lim['acc_hard_points']:g} point "
             f"or perplexity rises {100 * lim['ppl_relative']:g} %"]  # fmt: skip
    for key, e in results["models"].items():
        if "curves" not in e:
            lines.append(f"  {key}: {e.get('status')}")
            continue
        tol = ", ".join(f"{SYMBOLS[k]} {_tolerance.describe(c['tolerance'], HARSHER[k])}"
                        for k, c in e["curves"].items())  # fmt: skip
        lines.append(f"  {key:<22} ideal {e['metric']} {e['ideal']:.2f} | {tol or 'no analogue swept'}")
    return "\n".join(lines)


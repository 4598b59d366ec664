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
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np

from .._common import start_run, write_csv, write_json
from .._grid import Grid
from .._reuse import ReusedRecipe
from . import _models, _sweep, _theory, _tolerance
from ._sweep import HARSHER, NONIDEALITIES, SYMBOLS, substrate, sweep


__all__ = ["Config", "run", "summary", "NONIDEALITIES", "SOFTMAX", "PAPER"]

NAME = "robustness"

SOFTMAX = {
    "noise": {"run": False, "analogue": "none: softmax has no state that settles; noise on its "
              "scores would be a different perturbation, which the substrate does not model"},
    "coupling_mismatch": {"run": True, "analogue": "the unnormalised weights exp(s_ij)(1 + eps xi_ij), "
                          "xi drawn as the oscillator's (_models.PerturbedSoftmax); one device per draw"},
    "frequency_disorder": {"run": False, "analogue": "none: softmax has no dynamics"},
    "settle_time": {"run": False, "analogue": "none: softmax has no dynamics (one exact step)"},
    "readout_bits": {"run": True, "analogue": "the query's direction read with the same b-bit "
                     "quantiser, its length kept (_models.PerturbedSoftmax)"},
}
"""What each non-ideality means for the softmax model, and whether it is run (mismatch
and bits, through [`PerturbedSoftmax`][syncattn.experiments.robustness._models.PerturbedSoftmax];
the other three have no softmax analogue)."""

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
        for name, allowed in (("tasks", ("agreement", "lm")), ("models", models),
                              ("lm_models", models), ("nonidealities", NONIDEALITIES)):  # fmt: skip
            vals = getattr(self, name)
            bad = [v for v in vals if v not in allowed]
            if not vals or bad:
                raise ValueError(f"{name} must be a non-empty subset of {allowed}; got {vals}.")
        if "oscillator" not in self.models or "oscillator" not in self.lm_models:
            raise ValueError("models and lm_models must include 'oscillator' (the substrate's model).")
        for name in ("seeds", "lm_seeds"):
            vals = getattr(self, name)
            if not vals or any(isinstance(v, bool) or int(v) != v or v < 0 for v in vals):
                raise ValueError(f"{name} must be non-empty ints >= 0; got {vals}.")
        if not self.dims or any(d < 2 for d in self.dims):
            raise ValueError(f"dims must be non-empty, each >= 2; got {self.dims}.")
        for kind in NONIDEALITIES:
            s = getattr(self, kind)
            if kind in self.nonidealities and (not s or any(not x > 0 for x in s)):
                raise ValueError(f"{kind}: the strengths must be non-empty and > 0; got {s}.")
        if any(int(b) != b or b < 1 for b in self.readout_bits):
            raise ValueError(f"readout_bits must be ints >= 1; got {self.readout_bits}.")
        if self.lm_every < 1 or (self.lm_draws is not None and self.lm_draws < 1):
            raise ValueError(f"lm_every and lm_draws must be >= 1; got {self.lm_every}, {self.lm_draws}.")
        if self.draws < 1:
            raise ValueError(f"draws must be >= 1; got {self.draws}.")
        for name in ("noise_quantile", "disorder_quantile"):
            if not 0 < getattr(self, name) < 1:
                raise ValueError(f"{name} must lie in (0, 1); got {getattr(self, name)}.")
        if self.disorder_horizon is not None and not self.disorder_horizon > 0:
            raise ValueError(f"disorder_horizon must be > 0 or None; got {self.disorder_horizon}.")
        if self.check_rows is not None and not self.check_rows >= 1:
            raise ValueError(f"check_rows must be >= 1 or None; got {self.check_rows}.")
        for name in ("noise_horizon", "noise_drift_step", "noise_diffusion_step", "disorder_atol",
                     "lm_disorder_atol"):  # fmt: skip
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0; got {getattr(self, name)}.")
        for name in ("disorder_rtol", "lm_disorder_rtol"):
            if getattr(self, name) is not None and not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0 or None; got {getattr(self, name)}.")
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
            seeds=(0,), lm_seeds=(0,), dims=(2,), models=("oscillator", "softmax"),
            lm_models=("oscillator",), sva_epochs=1, sva_n_train=256, sva_n_val=64,
            sweep_batches=1, noise=(1.0,), coupling_mismatch=(0.3,), frequency_disorder=(3.0,),
            settle_time=(0.1,), readout_bits=(2,), draws=1, check_noise=None, check_disorder=None,
        )  # fmt: skip

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
            seeds=(0, 1), lm_seeds=(0,), dims=(2, 8, 32), lm_every=2, lm_draws=1,
            noise=(0.5, 1.0, 2.0, 4.0),
            coupling_mismatch=(0.03, 0.1, 0.3, 1.0), frequency_disorder=(0.5, 1.0, 2.0, 4.0),
            settle_time=(0.1, 0.3, 1.0, 3.0), readout_bits=(1, 2, 4, 8), draws=2,
            sweep_sentences=None, dynamic_sentences=2000, sweep_batches=2, dynamic_batches=1,
        )  # fmt: skip

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


def _applies(model: str):
    return (lambda kind: True) if model == "oscillator" else (lambda kind: SOFTMAX[kind]["run"])


def _schedule(config, h, sigma: float, t1: float) -> dict:
    sch = _theory.noise_schedule(h, float(sigma), horizon=config.noise_horizon,
                                 quantile=config.noise_quantile, step=config.noise_drift_step,
                                 noise_step=config.noise_diffusion_step, t_max=t1)  # fmt: skip
    snapped = _theory.snap_schedule(sch)
    return {**snapped, "settle_time": min(snapped["settle_time"], t1),
            "steps": math.ceil(min(snapped["settle_time"], t1) / snapped["dt"] - 1e-9)}


def _disorder_horizon(config, h, s: float, t1: float) -> dict:
    if config.disorder_horizon is None:
        return {"settle_time": t1}
    sch = _theory.disorder_schedule(h, float(s), horizon=config.disorder_horizon,
                                    quantile=config.disorder_quantile, t_max=t1)  # fmt: skip
    snapped = _theory.snap_schedule(sch)
    return {**snapped, "settle_time": min(snapped["settle_time"], t1)}


def _perturber(config, kind_of_model: str, model, h, task: str = "agreement"):
    """``perturb(model, kind, strength, key) -> (perturbed, settings)`` of one trained model.

    Oscillator: [`syncattn.nn.with_substrate`][] with the non-ideality alone; noise on
    the schedule of its drives (`_theory.noise_schedule`); disorder at
    ``disorder_rtol``/``disorder_atol`` to the layer's `ode_t1` (the classifier), or at
    ``lm_disorder_rtol``/``lm_disorder_atol`` to the horizon of its locking rates (the
    LMs; `_theory.disorder_schedule`), times `horizon_factor`. Softmax: the analogue of mismatch or bits
    ([`perturb_softmax`][syncattn.experiments.robustness._models.perturb_softmax]).
    """
    from ... import nn

    if kind_of_model == "softmax":
        def perturb(m, kind, s, key):
            kw = {"mismatch": float(s)} if kind == "coupling_mismatch" else {"bits": int(s)}
            return _models.perturb_softmax(m, key, **kw), {"analogue": SOFTMAX[kind]["analogue"]}

        return perturb
    t1 = _models.ode_t1(model)
    horizons: dict = {}  # per strength: one horizon for every draw
    lm = task == "lm"
    rtol, atol = ((config.lm_disorder_rtol, config.lm_disorder_atol) if lm
                  else (config.disorder_rtol, config.disorder_atol))  # fmt: skip

    def perturb(m, kind, s, key, *, horizon_factor: float = 1.0):
        settings = {}
        if kind == "noise":
            settings = _schedule(config, h, s, t1)
            sub = nn.Substrate(noise=float(s), settle_time=settings["settle_time"], dt=settings["dt"])
        elif kind == "frequency_disorder":
            if s not in horizons:
                horizons[s] = _disorder_horizon(config, h, s, t1) if lm else {"settle_time": t1}
            settings = dict(horizons[s])
            settings["settle_time"] = horizon_factor * settings["settle_time"]
            sub = nn.Substrate(frequency_disorder=float(s), settle_time=settings["settle_time"])
        else:
            sub = substrate(kind, s)
        out = nn.with_substrate(m, sub)
        if kind == "frequency_disorder" and rtol is not None:
            out = _models.with_tolerances(out, rtol, atol)
            settings.update(rtol=rtol, atol=atol)
        return out, settings

    return perturb


def _checks(config, path: Path, model, scorer, h, perturb) -> dict:
    """The sweep's numerical choices measured against finer ones on the first batch, same keys.

    noise at ``check_noise``: the schedule $(T_\\sigma, \\Delta t_\\sigma)$ against
    $(2T_\\sigma, \\Delta t_\\sigma/2)$; disorder at ``check_disorder``: for the
    classifier ``disorder_rtol`` against the layer's own tolerances (both to $T = 30$), for
    the LMs the horizon $T_\\Omega$ against $2T_\\Omega$ (same tolerances, on the first
    ``check_rows`` rows). Written to `path` (resumable).
    """
    import jax

    from ... import nn

    out = _sweep._load(path)
    first = dataclasses.replace(scorer, data=scorer.data[:1])
    few = first  # the disorder check's data (the LMs: the first check_rows rows)
    if scorer.task == "lm" and config.check_rows is not None:
        few = dataclasses.replace(first, data=[b[: config.check_rows] for b in first.data])
    key = jax.random.key(config.substrate_seed)
    if config.check_noise is not None and "noise" in config.nonidealities and "noise" not in out:
        s = float(config.check_noise)
        m, sch = perturb(model, "noise", s, key)
        finer = nn.with_substrate(model, nn.Substrate(noise=s, settle_time=2 * sch["settle_time"],
                                                      dt=sch["dt"] / 2))  # fmt: skip
        out["noise"] = {"sigma": s, "schedule": sch, "value": first(m, key),
                        "finer": {"settle_time": 2 * sch["settle_time"], "dt": sch["dt"] / 2,
                                  "value": first(finer, key)}}  # fmt: skip
        _sweep._save(path, out)
    if (config.check_disorder is not None and "frequency_disorder" in config.nonidealities
            and "frequency_disorder" not in out):  # fmt: skip
        s = float(config.check_disorder)
        m, st = perturb(model, "frequency_disorder", s, key)
        entry = {"strength": s, "value": few(m, key), **st}
        if scorer.task == "lm":  # the horizon against twice it (T = 30: the cost it avoids)
            longer, lt = perturb(model, "frequency_disorder", s, key, horizon_factor=2.0)
            entry["longer"] = {"settle_time": lt["settle_time"], "value": few(longer, key)}
        elif config.disorder_rtol is not None:  # the tolerances against the layer's
            own = nn.with_substrate(model, substrate("frequency_disorder", s))  # T = ode_t1
            layer = next(a for a in jax.tree_util.tree_leaves(own, is_leaf=lambda a: isinstance(a, nn.OscillatorAttention))
                         if isinstance(a, nn.OscillatorAttention))  # fmt: skip
            entry["layer_tolerances"] = {"settle_time": layer.ode_t1, "rtol": layer.ode_rtol, "atol": layer.ode_atol,
                              "value": first(own, key)}  # fmt: skip
        out["frequency_disorder"] = entry
        _sweep._save(path, out)
    rows = (f" (the disorder check: its first {config.check_rows} rows)"
            if scorer.task == "lm" and config.check_rows else "")  # fmt: skip
    out["data"] = "the first validation batch of the sweep" + rows
    return out


def _curves(config, state, metric: str, task: str) -> dict:
    """Per swept non-ideality: strengths, mean/std/draws of the metric, loss, tolerance."""
    out = {}
    for kind, strengths in config.grids(task).items():
        pts = state["points"].get(kind)
        if not pts:
            continue
        ideal = state.get("ideal_dynamic", state["ideal"]) if kind in _sweep.DYNAMIC else state["ideal"]
        strengths = [s for s in strengths if str(s) in pts]  # all, unless unfinished
        vals = [pts[str(s)] for s in strengths]
        mean = [float(np.mean(v)) for v in vals]
        std = [float(np.std(v, ddof=1)) if len(v) > 1 else None for v in vals]
        lim = config.acc_limit if metric.startswith("acc") else config.ppl_limit
        loss = _tolerance.loss(metric, ideal, mean)
        tol = _tolerance.tolerance(strengths, loss, lim, harsher=HARSHER[kind])
        out[kind] = {"strengths": list(strengths), "ideal": ideal, "mean": mean, "std": std, "draws": vals,
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
        perturb = _perturber(config, t.model, model, h, t.task)
        dyn = _models.dynamic_scorer(scorer, config)
        draws = config.lm_draws if t.task == "lm" and config.lm_draws is not None else config.draws
        state = sweep(out / "sweeps" / f"{key}.json", model, scorer, config.grids(t.task),
                      draws=draws, seed=config.substrate_seed, perturb=perturb,
                      applies=_applies(t.model), measure=config.measure, progress=progress,
                      desc=f"robustness: {key}", dynamic_scorer=dyn)  # fmt: skip
        entry = {"task": t.task, "model": t.model, "d_osc": t.d_osc, "seed": t.seed,
                 "run": str(t.folder), "metric": scorer.metric, "ideal": state["ideal"],
                 "ideal_dynamic": state.get("ideal_dynamic"), "trained_val": t.result.get("val"),
                 "settings": state.get("settings", {}), "seconds": state.get("seconds", {})}  # fmt: skip
        if t.model == "oscillator" and config.measure and t.seed == min(
                config.seeds if t.task == "agreement" else config.lm_seeds):  # the first seed's
            entry["checks"] = _checks(config, out / "sweeps" / f"{key}-checks.json", model, scorer, h, perturb)
        elif (out / "sweeps" / f"{key}-checks.json").is_file():  # a report: the checks measured so far
            entry["checks"] = _sweep._load(out / "sweeps" / f"{key}-checks.json")
        entry["curves"] = _curves(config, state, scorer.metric, t.task)
        entry["theory_strengths"] = config.grids(t.task)
        if h is not None:
            entry["drives"] = _theory.drive_summary(h)
            entry["theory"] = {k: th for k, g in config.grids(t.task).items()
                               if (th := _theory.predict(k, h, g, delta=config.delta))}  # fmt: skip
        per_model[key] = entry
    results = {"experiment": NAME, "models": per_model, "softmax_analogue": SOFTMAX,
               "limits": {"acc_hard_points": config.acc_limit, "ppl_relative": config.ppl_limit},
               "paper": PAPER}  # fmt: skip
    files["results"] = write_json(out / "results.json", results)
    files["csv"] = write_csv(out / "robustness.csv", _rows(per_model))
    files["tolerances"] = write_csv(out / "tolerances.csv", tolerance_table(per_model))
    for task in config.tasks:
        sel = {k: v for k, v in per_model.items() if v.get("task") == task and "curves" in v}
        if sel:
            files[f"png_{task}"] = plot(task, sel, config, out / f"robustness_{task}.png")
    return files


def _rows(per_model) -> dict[str, list]:
    cols = {k: [] for k in ("task", "model", "d_osc", "seed", "nonideality", "strength", "metric",
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
                cols["seed"].append(e["seed"])
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


def tolerance_table(per_model: dict) -> dict[str, list]:
    """One row per (task, model, d_osc, non-ideality): the tolerance of each seed's model
    (``"0.19"``, ``"> 10"``; see [`describe`][syncattn.experiments.robustness._tolerance.describe]),
    and the geometric mean of the crossed ones."""
    groups: dict = {}
    for e in per_model.values():
        for kind, c in e.get("curves", {}).items():
            key = (e["task"], e["model"], e["d_osc"] if e["d_osc"] is not None else "", kind)
            groups.setdefault(key, []).append((e["seed"], c["tolerance"]))
    cols = {k: [] for k in ("task", "model", "d_osc", "nonideality", "seeds", "tolerances",
                            "crossed_geomean")}  # fmt: skip
    for (task, model, d, kind), vals in groups.items():
        vals.sort(key=lambda sv: sv[0])
        crossed = [t["value"] for _, t in vals if t["status"] == "crossed"]
        for name, v in zip(("task", "model", "d_osc", "nonideality"), (task, model, d, kind), strict=True):
            cols[name].append(v)
        cols["seeds"].append(" ".join(str(sd) for sd, _ in vals))
        cols["tolerances"].append(" / ".join(_tolerance.describe(t, HARSHER[kind]) for _, t in vals))
        cols["crossed_geomean"].append(float(np.exp(np.mean(np.log(crossed)))) if crossed else float("nan"))
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


r"""A run sized to a wall-clock budget: ``syncattn train --minutes M [--config auto]``.

**The budget** is $T = 60M$ seconds from the start of the process (its age is read
from ``/proc/self/stat``; elsewhere from the start of the command): importing,
loading the corpus, building the model, the warm-up, compiling, training, the
evaluations and the checkpoints all fall inside it.

**Steps** ([`plan_steps`][syncattn.training.plan_steps]). A warm-up runs the run's own
compiled step ([`measure_costs`][syncattn.training.measure_costs]): the first step's
time less a steady step's is the compilation $c$ (paid again by the run, whose
schedule has another horizon), the mean of the next ones (at least 3, for a few
seconds) the step time $\tau$; one evaluation batch and one checkpoint are timed too.
A run of $S$ steps evaluating every $E$ and saving every $C$ steps then takes

$$t(S) = c + S\tau + \lceil S/E\rceil\, t_e + \lceil S/C\rceil\, t_c,$$

and $S$ is the largest with $t(S) \le 0.97\,(T - t_{\text{now}})$ (3 % for what is not
modelled); by default $S$ is a multiple of $e = 10$, $E = S/e$, $C = 2E$, the warm-up
is $0.05\,S$ steps (the ladder's protocol) and the cosine schedule decays to step $S$.
A field given as ``key=value`` (``eval_every``, ``ckpt_every``, ``warmup_steps``,
``log_every``) is kept.

**Size** (``--config auto``, [`next_size`][syncattn.training.next_size]). The ladder's
compute-matched rule trains $N$ parameters on $D = \kappa N$ tokens, $\kappa = 20$. At
$r(N)$ tokens/s and $T'$ seconds of training, $\kappa N = r(N)\,T'$; with
$r \propto 1/N$ its solution is

$$N^\ast = \sqrt{N\, r(N)\, T' / \kappa},$$

computed from a measurement at $N$ (the first guess: $N\,r(N) = 10^{10}$, about 2
CPU cores). The shape of $N^\ast$ ([`syncattn.models.shape_for_params`][]) is measured
in turn, at most 3 times, stopping when $N^\ast$ lies within 10 % of the measured $N$
(when $r \propto N^{-b}$ the iteration contracts by $|1-b|/2$ in $\ln N$); the
measured shape whose $r(N)T'/N$ lies closest to $\kappa$ is trained. Its training
settings are the ladder's: batch 16 x 128 tokens, 10 evaluations of 10 batches, and the
peak lr that the ladder's sweep found best at the rung nearest $N$ in $\ln N$
([`auto_lr`][syncattn.training.auto_lr]).

**Re-planning** ([`Replanner`][syncattn.training.Replanner]). The plan takes the
warm-up's step time to last; a shared machine need not keep it (on this project's
2-core machines the same tiny run's steps drift by 20 to 40 % within minutes). So at
every evaluation but the last, the run compares what is left of its plan, at the step
time measured since the previous evaluation (everything but the evaluations and saves,
which are timed on their own),

$$r(S) = (S - s)\,\hat\tau + n_e(s, S)\, t_e + n_c(s, S)\, t_c,$$

with what is left of the budget, $L = 0.97\,(T - t_{\text{now}})$ ($n_e, n_c$ count the
evaluations and saves in $(s, S]$). When the plan would overrun $L$ by more than
$\delta$ = 2 % of $T$, or end early by more than $\delta$ plus a compilation, the run
takes the largest $S'$ with $r(S') + c \le L$ (one compilation $c$: the schedule's new
horizon is compiled into the step) and the cosine decay is re-aimed at $S'$ from the
phase it had reached ([`lr_schedule`][syncattn.training.lr_schedule]'s `horizons`), so
the rate stays continuous.

``config.json`` records all of it under ``budget``: the minutes, the measured costs
and tokens/s, the steps of the first plan, the parameters, the tokens per parameter,
the candidates and, after a re-plan, ``horizons`` and one ``replans`` entry each
(``train.steps`` is then the last plan's). Running the same command again resumes the
run with its recorded steps and horizons (nothing is measured again; a resumed run
does not re-plan).
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ._config import _PRESETS, run_overrides
from ._measure import measure_costs as measure_costs
from ._planning import (
    EVALS,
    TOKENS_PER_PARAM as TOKENS_PER_PARAM,
    StepCosts as StepCosts,
    auto_lr as auto_lr,
    next_size as next_size,
    plan_steps as plan_steps,
    planned_seconds as planned_seconds,
)
from ._replan import SAFETY, Replanner


__all__ = [
    "StepCosts",
    "measure_costs",
    "planned_seconds",
    "plan_steps",
    "next_size",
    "auto_lr",
    "budget_spec",
    "process_age",
    "Replanner",
    "TOKENS_PER_PARAM",
]

WARMUP_FRACTION = 0.05
FIRST_GUESS = 1e10  # N r(N), parameter-tokens per second (about 2 CPU cores)
CANDIDATES = 3
TOLERANCE = math.log(1.1)
SHAPE_KEYS = ("d_model", "n_layers", "n_heads", "d_ff")
PLAN_KEYS = ("eval_every", "ckpt_every", "warmup_steps", "log_every")

clock = time.perf_counter
"""The clock of the budget (a module attribute: a test replaces it)."""


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``), else 0."""
    try:
        stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - int(stat[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


# --------------------------------------------------------------------------- measuring


# --------------------------------------------------------------------------- the spec


def check_minutes(minutes) -> float:
    """`minutes` as a float; a clear error unless it is a finite number > 0."""
    if (
        isinstance(minutes, bool)
        or not isinstance(minutes, (int, float))
        or not (math.isfinite(minutes) and minutes > 0)
    ):
        raise ValueError(
            f"--minutes must be a finite number of minutes > 0; got {minutes!r}."
        )
    return float(minutes)


def _flat(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {f"{g}.{k}": v for g, fields in groups.items() for k, v in fields.items()}


def _planned_run(out: Path | None, minutes: float, config: str):
    """The RunSpec of a --minutes run in `out` to resume (it holds checkpoints), else None."""
    from ._run import RunConfigMismatch, RunFolderError, _holds_checkpoints, read_config

    if (
        out is None
        or not (Path(out) / "config.json").is_file()
        or not _holds_checkpoints(Path(out))
    ):
        return None
    try:
        old = read_config(out)
    except RunFolderError:
        return None  # train_run reports it
    if not isinstance(old.budget, dict):
        return None
    if (old.budget.get("minutes"), old.budget.get("config")) != (minutes, config):
        raise RunConfigMismatch(
            f"{out} holds a run planned for --minutes {old.budget.get('minutes'):g} --config "
            f"{old.budget.get('config')}; repeat those to resume it, or pass a new --out."
        )
    return old


def budget_spec(
    model: str,
    config: str,
    minutes: int | float | None,
    *,
    data: str = "embedded",
    data_path=None,
    steps: int | None = None,
    seed: int = 0,
    overrides: Iterable[str] | Mapping[str, Any] = (),
    out=None,
    log=None,
    started: int | float | None = None,
    age: int | float | None = None,
):
    """The [`RunSpec`][syncattn.training.RunSpec] (and corpus) of ``syncattn train
    --minutes M [--config auto]`` (module docstring), with ``spec.budget`` the record
    for ``config.json``; a run in `out` planned before is resumed with its steps.

    Args:
        started: `clock()` when the command started (default: now); `age`: seconds of
            the process before that (default: `process_age()` less the time since then).

    Raises:
        ValueError: ``minutes`` not > 0, ``--config auto`` without ``--minutes``,
            ``--steps`` with ``--minutes``, a shape override with ``auto``, several
            processes, a budget too short for the smallest run.
        RunConfigMismatch: `out` holds a run planned for another budget.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    now = clock()
    started = now if started is None else started
    age = max(0.0, process_age() - (now - started)) if age is None else age
    minutes = _check_request(config, minutes, steps)
    user = _flat(run_overrides(overrides))
    if config == "auto" and (given := [k for k in SHAPE_KEYS if f"model.{k}" in user]):
        raise ValueError(
            f"--config auto chooses {', '.join(SHAPE_KEYS)}; do not set {given}."
        )
    deadline = started - age + 60.0 * minutes
    req = _Request(model, config, minutes, data, data_path, seed, user, deadline)
    old = _planned_run(out, minutes, config)
    if old is not None:
        spec, corpus = _resumed(req, old)
        log(
            f"resuming a --minutes {minutes:g} run: its {old.train.steps} planned steps "
            "are kept (nothing is measured again)."
        )
        return dataclasses.replace(spec, budget=old.budget), corpus
    spec, corpus = req.spec()
    candidates, shape = [], None
    if req.auto:
        spec, corpus, costs, shape, candidates = _auto_size(req, corpus, log)
    else:
        costs = measure_costs(spec, corpus, seconds=_warm_seconds(minutes), clock=clock)
    spec, plan = _planned(req, spec, costs, lambda: clock() - started + age)
    budget = _record(req, costs, plan, shape, candidates, clock() - started + age)
    tokens = budget["tokens"]
    log(
        f"--minutes {minutes:g}: {costs.params:,} parameters at "
        f"{costs.tokens_per_s:,.0f} tokens/s (a step {costs.step_s:.3g} s, compiling "
        f"{costs.compile_s:.0f} s, an evaluation {costs.eval_s:.2g} s, a checkpoint "
        f"{costs.ckpt_s:.2g} s): {plan['steps']} steps = {tokens:,} tokens "
        f"({tokens / costs.params:.1f} per parameter), planned to end "
        f"{budget['before_s'] + plan['planned_s']:.0f} s after the start"
    )
    return dataclasses.replace(spec, budget=budget), corpus


def _check_request(config: str, minutes, steps) -> float:
    """`minutes` checked, with what excludes a budget (``--steps``, several hosts)."""
    import jax

    if minutes is None:
        raise ValueError(
            "--config auto sizes the model to a time budget: give --minutes M."
        )
    minutes = check_minutes(minutes)
    if steps is not None:
        raise ValueError(
            "--steps and --minutes exclude each other: --minutes chooses the steps."
        )
    if jax.process_count() > 1:
        raise ValueError(
            "--minutes plans one process's run; give --steps on several hosts."
        )
    return minutes


@dataclasses.dataclass(frozen=True)
class _Request:
    """What ``syncattn train --minutes`` asked for (`budget_spec`'s arguments, checked;
    `user` the flat ``key=value`` overrides, `deadline` the budget's end in `clock()`
    seconds)."""

    model: str
    config: str
    minutes: float
    data: str
    data_path: Any
    seed: int
    user: dict[str, Any]
    deadline: float

    @property
    def auto(self) -> bool:
        return self.config == "auto"

    def spec(self, shape: Mapping[str, int] | None = None, plan=(), n_steps=None):
        """``(spec, corpus)`` with `shape`'s sizes and `plan`'s settings (a
        ``key=value`` the user gave wins); with ``--config auto`` the auto preset."""
        from ._run import make_spec

        auto = self.auto
        defaults = (
            {f"train.{k}": v for k, v in _PRESETS["auto"].items()} if auto else {}
        )
        sizes = {f"model.{k}": shape[k] for k in SHAPE_KEYS} if shape else {}
        spec, corpus = make_spec(
            self.model,
            "1m" if auto else self.config,
            data=self.data,
            data_path=self.data_path,
            steps=n_steps,
            seed=self.seed,
            overrides=defaults | sizes | dict(plan) | self.user,
        )
        if auto:
            model = dataclasses.replace(spec.model, name="auto")
            spec = dataclasses.replace(spec, preset="auto", model=model)
        return spec, corpus


def _resumed(req: _Request, old):
    """``(spec, corpus)`` of the run `old` planned before: its shape, steps and
    settings (nothing is measured again)."""
    shape = {k: getattr(old.model, k) for k in SHAPE_KEYS} if req.auto else None
    keys = PLAN_KEYS + ("lr",) * req.auto
    plan = {f"train.{k}": getattr(old.train, k) for k in keys}
    return req.spec(shape, plan, old.train.steps)


def _auto_size(req: _Request, corpus, log):
    """``--config auto`` (module docstring, "Size"): measure up to `CANDIDATES`
    shapes towards $N^\\ast$ and keep the one whose tokens per parameter lie closest
    to $\\kappa$; ``(spec, corpus, costs, shape, candidates)``."""
    from .. import models

    target = next_size(1.0, FIRST_GUESS, _train_seconds(req.deadline, 0.0))
    measured, candidates = {}, []
    for _ in range(CANDIDATES):
        shape = models.shape_for_params(target, corpus.vocab_size, (req.model,))
        key = tuple(shape["shapes"][req.model][k] for k in SHAPE_KEYS)
        if key in measured:
            break
        cand = dict(zip(SHAPE_KEYS, key, strict=True))
        spec, corpus = req.spec(cand)
        c = measure_costs(
            spec,
            corpus,
            seconds=_warm_seconds(req.minutes),
            evaluation=False,
            checkpoint=False,
            clock=clock,
        )
        T = _train_seconds(req.deadline, c.compile_s + EVALS * _eval_guess(spec, c))
        measured[key] = (spec, c, T)
        per_param = c.tokens_per_s * T / c.params
        candidates.append(
            {
                **cand,
                "params": c.params,
                "tokens_per_s": c.tokens_per_s,
                "compile_s": c.compile_s,
                "tokens_per_param": per_param,
            }
        )
        log(
            f"--config auto: {c.params:,} parameters run at {c.tokens_per_s:,.0f} "
            f"tokens/s (compiling {c.compile_s:.0f} s): {per_param:.1f} tokens per "
            "parameter in the time left"
        )
        target = next_size(c.params, c.tokens_per_s, T)
        if abs(math.log(target / c.params)) < TOLERANCE:
            break
    kappa = TOKENS_PER_PARAM
    best = min(candidates, key=lambda r: abs(math.log(r["tokens_per_param"] / kappa)))
    spec, c, _ = measured[tuple(best[k] for k in SHAPE_KEYS)]
    extra = measure_costs(spec, corpus, step_timing=False, clock=clock)
    costs = dataclasses.replace(c, eval_s=extra.eval_s, ckpt_s=extra.ckpt_s)
    return spec, corpus, costs, {k: best[k] for k in SHAPE_KEYS}, candidates


def _planned(req: _Request, spec, costs: StepCosts, spent):
    """``(spec, plan)``: `spec` with the steps that fit what is left of the budget and
    their settings ([`plan_steps`][syncattn.training.plan_steps]; the user's
    ``key=value`` kept); `spent()`: the seconds gone, for the error of a budget too
    short."""
    user = req.user
    fixed = {
        k: user[f"train.{k}"]
        for k in ("eval_every", "ckpt_every")
        if f"train.{k}" in user
    }
    try:
        plan = plan_steps(_train_seconds(req.deadline, 0.0), costs, **fixed)
    except ValueError as e:
        raise ValueError(
            f"--minutes {req.minutes:g}: {spent():.0f} s went to start-up and the "
            f"warm-up, and {e} Give more --minutes or a smaller --config."
        ) from None
    S, E = plan["steps"], plan["eval_every"]
    settings = {
        "steps": S,
        "eval_every": E,
        "ckpt_every": plan["ckpt_every"],
        "warmup_steps": user.get("train.warmup_steps", round(WARMUP_FRACTION * S)),
        "log_every": user.get("train.log_every", max(1, E // 5)),
    }
    if req.auto and "train.lr" not in user:
        settings["lr"] = auto_lr(req.model, costs.params)
    train = dataclasses.replace(spec.train, **settings)
    return dataclasses.replace(spec, train=train), plan


def _record(req: _Request, costs: StepCosts, plan, shape, candidates, before_s):
    """The ``budget`` record of ``config.json`` (module docstring)."""
    S = plan["steps"]
    tokens = S * costs.tokens_per_step
    return {
        "minutes": req.minutes,
        "config": req.config,
        "steps": S,
        "tokens_per_s": costs.tokens_per_s,
        "step_s": costs.step_s,
        "compile_s": costs.compile_s,
        "eval_s": costs.eval_s,
        "ckpt_s": costs.ckpt_s,
        "planned_s": plan["planned_s"],
        "before_s": before_s,
        "params": costs.params,
        "tokens": tokens,
        "tokens_per_param": tokens / costs.params,
        "shape": shape,
        "candidates": candidates,
        "rule": (
            "steps: the most whose compile + steps + evaluations + checkpoints fit "
            "0.97 of the time left; --config auto: D = 20 N (syncattn.training._budget)"
        ),
    }


def _train_seconds(deadline: float, overhead: float) -> float:
    """What is left of the budget to plan, less `overhead` seconds."""
    return SAFETY * (deadline - clock()) - overhead


def _warm_seconds(minutes: float) -> float:
    """Seconds of timed warm-up steps: 0.5 % of the budget, within [2, 5]."""
    return min(5.0, max(2.0, 0.3 * minutes))


def _eval_guess(spec, costs: StepCosts) -> float:
    """One evaluation before it is measured: its batches at a third of a step each."""
    return spec.train.eval_batches * costs.step_s / 3

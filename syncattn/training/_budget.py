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
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ._config import _PRESETS, run_overrides
from ._replan import SAFETY, Replanner


__all__ = ["StepCosts", "measure_costs", "planned_seconds", "plan_steps", "next_size",
           "auto_lr", "budget_spec", "process_age", "Replanner", "TOKENS_PER_PARAM"]  # fmt: skip

TOKENS_PER_PARAM = 20.0
"""$\\kappa$ of the compute-matched rule $D = \\kappa N$ (the ladder's)."""
EVALS = 10
WARMUP_FRACTION = 0.05
FIRST_GUESS = 1e10  # N r(N), parameter-tokens per second (about 2 CPU cores)
CANDIDATES = 3
TOLERANCE = math.log(1.1)
SHAPE_KEYS = ("d_model", "n_layers", "n_heads", "d_ff")
PLAN_KEYS = ("eval_every", "ckpt_every", "warmup_steps", "log_every")

LADDER_LRS = (
    (50_000, {"kuramoto": 3e-2, "softmax": 3e-2}),
    (100_000, {"kuramoto": 3e-2, "softmax": 1e-2}),
    (150_000, {"kuramoto": 1e-2, "softmax": 1e-2}),
    (200_000, {"kuramoto": 1e-2, "softmax": 1e-2}),
)
"""The ladder's best lr per rung target and model (issue 20's CPU protocol, committed in
``results/experiments/ladder/ladder-default/results.json``)."""

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


@dataclasses.dataclass(frozen=True)
class StepCosts:
    """What a warm-up measured: seconds of compilation $c$, of one step $\\tau$, of one
    evaluation $t_e$ and one checkpoint $t_c$; the model's parameters and tokens per step.
    ``tokens_per_s`` = tokens per step / $\\tau$."""

    params: int
    tokens_per_step: int
    compile_s: float
    step_s: float
    eval_s: float = 0.0
    ckpt_s: float = 0.0

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_s


def planned_seconds(steps: int, costs: StepCosts, *, eval_every: int, ckpt_every: int) -> float:
    r"""$t(S) = c + S\tau + \lceil S/E\rceil\, t_e + \lceil S/C\rceil\, t_c$ (the loop
    evaluates and saves every $E$, $C$ steps and at the last)."""
    return (costs.compile_s + steps * costs.step_s + math.ceil(steps / eval_every) * costs.eval_s
            + math.ceil(steps / ckpt_every) * costs.ckpt_s)  # fmt: skip


def plan_steps(seconds: int | float, costs: StepCosts, *, evals: int = EVALS,
               eval_every: int | None = None, ckpt_every: int | None = None) -> dict[str, Any]:  # fmt: skip
    r"""The largest $S$ with $t(S) \le$ `seconds` ([`planned_seconds`][syncattn.training.planned_seconds]).

    Without `eval_every`, $S$ is a multiple of `evals` and $E = S/$`evals`; without
    `ckpt_every`, $C = 2E$.

    Returns:
        ``{"steps", "eval_every", "ckpt_every", "planned_s"}``.

    Raises:
        ValueError: not even the smallest run fits in `seconds` (the message says how
            long it would take).
    """
    unit = evals if eval_every is None else 1

    def settings(k):
        E = eval_every or k
        return {"steps": k * unit, "eval_every": E, "ckpt_every": ckpt_every or 2 * E}

    def t(k):
        s = settings(k)
        return planned_seconds(s["steps"], costs, eval_every=s["eval_every"], ckpt_every=s["ckpt_every"])

    if t(1) > seconds:
        raise ValueError(
            f"the time budget is too short: the shortest run ({unit} steps; compiling "
            f"{costs.compile_s:.0f} s, a step {costs.step_s:.3g} s, an evaluation "
            f"{costs.eval_s:.3g} s) takes {t(1):.0f} s and {max(seconds, 0.0):.0f} s remain."
        )
    lo, hi = 1, 2
    while t(hi) <= seconds:
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # t(lo) <= seconds < t(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if t(mid) <= seconds else (lo, mid)
    return settings(lo) | {"planned_s": t(lo)}


def auto_lr(attention: str, params: int | float) -> float:
    r"""The peak lr of ``--config auto``: the ladder's best (``LADDER_LRS``) at the rung
    whose target $N_r$ minimises $|\ln(N/N_r)|$ for $N$ = `params`; $10^{-2}$ for an
    attention the ladder did not train."""
    _, best = min(LADDER_LRS, key=lambda r: abs(math.log(params / r[0])))
    return best.get(attention, 1e-2)


def next_size(params: int | float, tokens_per_s: int | float, seconds: int | float,
              tokens_per_param: int | float = TOKENS_PER_PARAM) -> float:  # fmt: skip
    r"""$N^\ast = \sqrt{N\, r\, T' / \kappa}$: the size that trains on $\kappa N^\ast$
    tokens in $T'$ = `seconds` when the tokens/s $r$ measured at $N$ = `params` scales
    as $1/N$."""
    return math.sqrt(params * tokens_per_s * max(seconds, 0.0) / tokens_per_param)


# --------------------------------------------------------------------------- measuring


def measure_costs(spec, corpus, *, seconds: int | float = 3.0, max_steps: int = 200,
                  step_timing: bool = True, evaluation: bool = True, checkpoint: bool = True,
                  devices=None, clock=None) -> StepCosts:  # fmt: skip
    """Time the run `spec`'s compiled step on `corpus` (see the module docstring): with
    `step_timing`, the first step, then steps until `seconds` have passed (at least 3,
    at most `max_steps`); with `evaluation`, one validation batch (after one that compiles);
    with `checkpoint`, one checkpoint of the whole state (in a temporary folder).
    The model and the compiled programs are those the run reuses."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np

    from .. import data
    from .._trees import cast_floating
    from . import _loop
    from ._checkpoint import save_checkpoint
    from ._resume import host_tree
    from ._run import _build_model, validate_run
    from ._sharding import data_mesh, replicate, shard_batch
    from ._task import evaluate, host_value, language_model_task

    clock = clock or globals()["clock"]
    mcfg, tcfg = validate_run(spec, corpus)
    task = language_model_task(corpus, tcfg)
    model = _build_model(mcfg, tcfg.seed)
    model = cast_floating(model, "float64" if tcfg.compute_dtype == "float64" else "float32")
    optimizer, _, step = _loop._compiled(_loop._math_fields(tcfg), task.loss, tcfg.compute_dtype,
                                         task.optimizer)  # fmt: skip
    mesh = data_mesh(devices)
    state = [replicate(model, mesh),
             replicate(optimizer.init(eqx.filter(model, eqx.is_inexact_array)), mesh),
             replicate(jnp.asarray(jax.random.PRNGKey(tcfg.seed + 1)), mesh)]  # fmt: skip

    def one(s):
        batch = jax.tree.map(lambda x: shard_batch(np.asarray(x), mesh), task.sample_batch(s))
        m, o, k, metrics = step(*state, batch)
        state[:] = [m, o, k]
        host_value(metrics["loss"])

    first = step_s = eval_s = ckpt_s = 0.0
    if step_timing:
        t0 = clock()
        one(0)
        first = clock() - t0
        n, t1 = 0, clock()
        while n < 3 or (clock() - t1 < seconds and n < max_steps):
            n += 1
            one(n)
        step_s = (clock() - t1) / n
    if evaluation:
        windows = data.num_eval_windows(corpus.val, tcfg.seq_len)
        batches = min(tcfg.eval_batches, -(-windows // tcfg.batch_size))
        kw = dict(kind=corpus.kind, pad_id=corpus.pad_id, batch_size=tcfg.batch_size,
                  seq_len=tcfg.seq_len, compute_dtype=tcfg.compute_dtype, devices=devices)  # fmt: skip
        evaluate(state[0], corpus.val, max_batches=1, **kw)  # compiles
        t = clock()
        evaluate(state[0], corpus.val, max_batches=1, **kw)
        eval_s = (clock() - t) * batches
    if checkpoint:
        with tempfile.TemporaryDirectory(prefix="syncattn-budget-") as tmp:
            t = clock()
            save_checkpoint(Path(tmp), 1, host_tree(
                {"model": state[0], "opt_state": state[1], "key": state[2],
                 "step": np.asarray(1, np.int64)}), keep=1)  # fmt: skip
            ckpt_s = clock() - t
    from .. import models

    return StepCosts(params=models.count_params(model), tokens_per_step=task.tokens_per_step,
                     compile_s=max(0.0, first - step_s), step_s=step_s, eval_s=eval_s,
                     ckpt_s=ckpt_s)  # fmt: skip


# --------------------------------------------------------------------------- the spec


def check_minutes(minutes) -> float:
    """`minutes` as a float; a clear error unless it is a finite number > 0."""
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or not (
        math.isfinite(minutes) and minutes > 0
    ):
        raise ValueError(f"--minutes must be a finite number of minutes > 0; got {minutes!r}.")
    return float(minutes)


def _flat(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {f"{g}.{k}": v for g, fields in groups.items() for k, v in fields.items()}


def _planned_run(out: Path | None, minutes: float, config: str):
    """The RunSpec of a --minutes run in `out` to resume (it holds checkpoints), else None."""
    from ._run import RunConfigMismatch, RunFolderError, _holds_checkpoints, read_config

    if out is None or not (Path(out) / "config.json").is_file() or not _holds_checkpoints(Path(out)):
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


def budget_spec(model: str, config: str, minutes: int | float | None, *, data: str = "embedded",
                data_path=None, steps: int | None = None, seed: int = 0,
                overrides: Iterable[str] | Mapping[str, Any] = (), out=None, log=None,
                started: int | float | None = None, age: int | float | None = None):  # fmt: skip
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
    import jax

    from .. import models
    from ._run import make_spec

    log = log or (lambda msg: print(msg, file=sys.stderr))
    now = clock()
    started = now if started is None else started
    age = max(0.0, process_age() - (now - started)) if age is None else age
    if minutes is None:
        raise ValueError("--config auto sizes the model to a time budget: give --minutes M.")
    minutes = check_minutes(minutes)
    if steps is not None:
        raise ValueError("--steps and --minutes exclude each other: --minutes chooses the steps.")
    if jax.process_count() > 1:
        raise ValueError("--minutes plans one process's run; give --steps on several hosts.")
    auto = config == "auto"
    user = _flat(run_overrides(overrides))
    if auto and (given := [k for k in SHAPE_KEYS if f"model.{k}" in user]):
        raise ValueError(f"--config auto chooses {', '.join(SHAPE_KEYS)}; do not set {given}.")
    defaults = {f"train.{k}": v for k, v in _PRESETS["auto"].items()} if auto else {}
    deadline = started - age + 60.0 * minutes

    def spec_for(shape: Mapping[str, int] | None, plan: Mapping[str, int], n_steps=None):
        sizes = {f"model.{k}": shape[k] for k in SHAPE_KEYS} if shape else {}
        spec, corpus = make_spec(model, "1m" if auto else config, data=data, data_path=data_path,
                                 steps=n_steps, seed=seed,
                                 overrides=defaults | sizes | dict(plan) | user)  # fmt: skip
        if auto:
            spec = dataclasses.replace(spec, preset="auto",
                                       model=dataclasses.replace(spec.model, name="auto"))
        return spec, corpus

    old = _planned_run(out, minutes, config)
    if old is not None:
        shape = {k: getattr(old.model, k) for k in SHAPE_KEYS} if auto else None
        plan = {f"train.{k}": getattr(old.train, k) for k in PLAN_KEYS + ("lr",) * auto}
        spec, corpus = spec_for(shape, plan, old.train.steps)
        log(f"resuming a --minutes {minutes:g} run: its {old.train.steps} planned steps "
            "are kept (nothing is measured again).")
        return dataclasses.replace(spec, budget=old.budget), corpus

    spec, corpus = spec_for(None, {})
    candidates, costs, shape = [], None, None
    if auto:
        target = next_size(1.0, FIRST_GUESS, _train_seconds(deadline, 0.0))
        measured = {}
        for _ in range(CANDIDATES):
            shape = models.shape_for_params(target, corpus.vocab_size, (model,))
            key = tuple(shape["shapes"][model][k] for k in SHAPE_KEYS)
            if key in measured:
                break
            cand = dict(zip(SHAPE_KEYS, key, strict=True))
            spec, corpus = spec_for(cand, {})
            c = measure_costs(spec, corpus, seconds=_warm_seconds(minutes),
                              evaluation=False, checkpoint=False)  # fmt: skip
            T = _train_seconds(deadline, c.compile_s + EVALS * _eval_guess(spec, c))
            measured[key] = (spec, c, T)
            candidates.append({**cand, "params": c.params, "tokens_per_s": c.tokens_per_s,
                               "compile_s": c.compile_s, "tokens_per_param":
                               c.tokens_per_s * T / c.params})  # fmt: skip
            log(f"--config auto: {c.params:,} parameters run at {c.tokens_per_s:,.0f} tokens/s "
                f"(compiling {c.compile_s:.0f} s): {c.tokens_per_s * T / c.params:.1f} tokens "
                "per parameter in the time left")
            target = next_size(c.params, c.tokens_per_s, T)
            if abs(math.log(target / c.params)) < TOLERANCE:
                break
        best = min(candidates, key=lambda r: abs(math.log(r["tokens_per_param"] / TOKENS_PER_PARAM)))
        spec, c, _ = measured[tuple(best[k] for k in SHAPE_KEYS)]
        shape = {k: best[k] for k in SHAPE_KEYS}
        extra = measure_costs(spec, corpus, step_timing=False)
        costs = dataclasses.replace(c, eval_s=extra.eval_s, ckpt_s=extra.ckpt_s)
    else:
        costs = measure_costs(spec, corpus, seconds=_warm_seconds(minutes))
    tcfg = spec.train
    fixed = {k: user[f"train.{k}"] for k in ("eval_every", "ckpt_every") if f"train.{k}" in user}
    try:
        plan = plan_steps(_train_seconds(deadline, 0.0), costs, **fixed)
    except ValueError as e:
        raise ValueError(
            f"--minutes {minutes:g}: {clock() - started + age:.0f} s went to start-up and the "
            f"warm-up, and {e} Give more --minutes or a smaller --config."
        ) from None
    S = plan["steps"]
    settings = {"steps": S, "eval_every": plan["eval_every"], "ckpt_every": plan["ckpt_every"],
                "warmup_steps": user.get("train.warmup_steps", round(WARMUP_FRACTION * S)),
                "log_every": user.get("train.log_every", max(1, plan["eval_every"] // 5))}  # fmt: skip
    if auto and "train.lr" not in user:
        settings["lr"] = auto_lr(model, costs.params)
    spec = dataclasses.replace(spec, train=dataclasses.replace(tcfg, **settings))
    tokens = S * costs.tokens_per_step
    budget = {
        "minutes": minutes, "config": config, "steps": S, "tokens_per_s": costs.tokens_per_s,
        "step_s": costs.step_s, "compile_s": costs.compile_s, "eval_s": costs.eval_s,
        "ckpt_s": costs.ckpt_s, "planned_s": plan["planned_s"],
        "before_s": clock() - started + age, "params": costs.params, "tokens": tokens,
        "tokens_per_param": tokens / costs.params, "shape": shape, "candidates": candidates,
        "rule": "steps: the most whose compile + steps + evaluations + checkpoints fit 0.97 "
                "of the time left; --config auto: D = 20 N (syncattn.training._budget)",
    }  # fmt: skip
    log(f"--minutes {minutes:g}: {costs.params:,} parameters at {costs.tokens_per_s:,.0f} tokens/s"
        f" (a step {costs.step_s:.3g} s, compiling {costs.compile_s:.0f} s, an evaluation "
        f"{costs.eval_s:.2g} s, a checkpoint {costs.ckpt_s:.2g} s): {S} steps = {tokens:,} "
        f"tokens ({tokens / costs.params:.1f} per parameter), planned to end "
        f"{budget['before_s'] + plan['planned_s']:.0f} s after the start")
    return dataclasses.replace(spec, budget=budget), corpus


def _train_seconds(deadline: float, overhead: float) -> float:
    """What is left of the budget to plan, less `overhead` seconds."""
    return SAFETY * (deadline - clock()) - overhead


def _warm_seconds(minutes: float) -> float:
    """Seconds of timed warm-up steps: 0.5 % of the budget, within [2, 5]."""
    return min(5.0, max(2.0, 0.3 * minutes))


def _eval_guess(spec, costs: StepCosts) -> float:
    """One evaluation before it is measured: its batches at a third of a step each."""
    return spec.train.eval_batches * costs.step_s / 3

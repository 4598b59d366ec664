r"""Re-planning a ``--minutes`` run as it goes (the rule: `syncattn.training._budget`'s
docstring, "Re-planning"): [`Replanner`][syncattn.training.Replanner] decides, and
`apply_replan` is what [`syncattn.training.fit`][] does with its answer."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from ._files import append_line
from ._optim import check_horizons


__all__ = ["Replanner", "apply_replan"]

SAFETY = 0.97  # the share of the time left that a plan fills (the first plan's too)
REPLAN_TOLERANCE = 0.02  # of the budget: how far the plan may drift before a re-plan


def _count_due(s: int, S: int, every: int) -> int:
    """Evaluations (or saves) in steps $(s, S]$: every `every` steps and at $S$."""
    return S // every - s // every + (1 if S % every else 0)


@dataclasses.dataclass
class Replanner:
    r"""The re-planning of a ``--minutes`` run (module docstring): called by
    [`syncattn.training.fit`][] after each evaluation with its progress, it returns
    ``None`` or the new step count $S'$: the largest with $r(S') + c \le L$, at least
    ``step + 1``. It re-plans when the plan would overrun, $r(S) > L + \delta$, or end
    early by more than a compilation, $r(S) < L - c - \delta$, with $\delta$ =
    `tolerance` $\times$ `budget_s` (in the warm-up of the schedule it does not).

    Attributes:
        deadline: the budget's end, in `clock()` seconds.
        budget_s: the budget $T$ in seconds (the tolerance is a fraction of it).
        compile_s: $c$, one compilation of the step (the warm-up's).
        ckpt_s: a save's seconds until the run has timed one (the warm-up's).
        tolerance: the drift that triggers a re-plan, as a fraction of `budget_s`.
        clock: the clock of `deadline` (``syncattn train``: the budget's).
    """

    deadline: float
    budget_s: float
    compile_s: float = 0.0
    ckpt_s: float = 0.0
    tolerance: float = REPLAN_TOLERANCE
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self):
        import math

        for name, low in (
            ("deadline", None),
            ("budget_s", 0.0),
            ("compile_s", 0.0),
            ("ckpt_s", 0.0),
            ("tolerance", 0.0),
        ):
            v = getattr(self, name)
            ok = (
                isinstance(v, (int, float))
                and not isinstance(v, bool)
                and math.isfinite(v)
            )
            if not ok or (
                low is not None and (v < low or (name == "budget_s" and v == 0))
            ):
                want = "a finite number" + (
                    "" if low is None else " > 0" if name == "budget_s" else " >= 0"
                )
                raise ValueError(f"Replanner: {name} must be {want}; got {v!r}.")

    @classmethod
    def for_spec(
        cls,
        spec,
        *,
        started: float,
        age: float,
        clock: Callable[[], float] = time.perf_counter,
    ):
        """The re-planner of a planned `spec` (``spec.budget`` set by
        [`budget_spec`][syncattn.training.budget_spec]) started at `clock()` = `started`
        by a process `age` s old then, on `clock`; ``None`` for a run without a budget."""
        b = spec.budget
        if not isinstance(b, Mapping) or "minutes" not in b:
            return None
        T = 60.0 * float(b["minutes"])
        return cls(
            deadline=started - age + T,
            budget_s=T,
            compile_s=float(b.get("compile_s", 0.0)),
            ckpt_s=float(b.get("ckpt_s", 0.0)),
            clock=clock,
        )

    def rest(self, progress: Mapping[str, Any], steps: int) -> float:
        """$r(S)$ for $S$ = `steps` from `progress` (see `syncattn.training.fit`'s `replan`)."""
        s = int(progress["step"])
        t_c = (
            self.ckpt_s if progress.get("ckpt_s") is None else float(progress["ckpt_s"])
        )
        n_eval = _count_due(s, steps, int(progress["eval_every"]))
        n_ckpt = _count_due(s, steps, int(progress["ckpt_every"]))
        return (
            (steps - s) * float(progress["step_s"])
            + n_eval * float(progress["eval_s"])
            + n_ckpt * t_c
        )

    def __call__(self, progress: Mapping[str, Any]) -> int | None:
        s, S = int(progress["step"]), int(progress["steps"])
        if (
            s < int(progress.get("warmup_steps", 0))
            or s >= S
            or not progress["step_s"] > 0
        ):
            return None  # the warm-up's schedule is not re-aimed; nothing timed
        left = SAFETY * (self.deadline - self.clock())
        room, slack = left - self.compile_s, self.tolerance * self.budget_s
        rest = self.rest(progress, S)
        if not (rest > left + slack or rest < room - slack):
            return None  # on time, or too little to gain to pay for a compilation
        lo = s + 1
        if self.rest(progress, lo) <= room:
            hi = lo + 1
            while self.rest(progress, hi) <= room:
                lo, hi = hi, 2 * hi - s
            while hi - lo > 1:  # rest(lo) <= room < rest(hi)
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if self.rest(progress, mid) <= room else (lo, mid)
        return None if lo == S else lo


def apply_replan(
    replan,
    step: int,
    step_s: float,
    timing: Mapping[str, Any],
    config,
    horizons,
    *,
    log,
    log_path,
    main,
    on_replan=None,
):
    """Ask `replan` at `step` of the run `config` (its progress: `fit`'s `replan`, the
    mean `step_s` since the last call, `timing`'s ``eval_s`` and ``ckpt_s``); on a new
    step count $S'$ return ``(config, horizons, record)``: the config with ``steps`` =
    $S'$, the horizons grown by ``(step, S')`` (checked) and the re-plan's record
    ``{"step", "was", "steps", "step_s", "eval_s", "ckpt_s"}``, after logging it (as a
    ``{"kind": "replan"}`` line in `log_path` on the main process, and a message); else
    ``None``. On the main process, `on_replan` (``fit``'s) is given the record and the
    checked horizons *before* the log line: ``config.json``, which a resumed run follows,
    is written first, so that a crash between the two never leaves a logged re-plan
    that the resumed run does not follow."""
    progress = {
        "step": step,
        "steps": config.steps,
        "warmup_steps": config.warmup_steps,
        "eval_every": config.eval_every,
        "ckpt_every": config.ckpt_every,
        "step_s": step_s,
        "eval_s": timing["eval_s"],
        "ckpt_s": timing["ckpt_s"],
    }
    new = replan(progress)
    if new is None:
        return None
    step, was = int(progress["step"]), int(progress["steps"])
    new = int(new)
    if not step < new:
        raise ValueError(
            f"replan returned {new} steps at step {step}; it must be > {step}."
        )
    config = dataclasses.replace(config, steps=new)
    horizons = check_horizons((horizons or ((0, was),)) + ((step, new),), config)
    record = {
        "step": step,
        "was": was,
        "steps": new,
        **{k: progress[k] for k in ("step_s", "eval_s", "ckpt_s")},
    }
    if main:
        if on_replan is not None:
            on_replan(record, horizons)
        append_line(log_path, json.dumps({"kind": "replan", **record}))
    log(
        f"re-planned at step {step}: {was} -> {new} steps (a step now takes "
        f"{progress['step_s']:.3g} s)"
    )
    return config, horizons, record

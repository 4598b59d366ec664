r"""The warm-up of a ``--minutes`` run (`syncattn.training._budget`'s docstring,
"Steps"): [`measure_costs`][syncattn.training.measure_costs] times the run's own
compiled step, one evaluation and one checkpoint, as
[`StepCosts`][syncattn.training.StepCosts]."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import Any

from ._planning import StepCosts


__all__ = ["measure_costs"]


def measure_costs(
    spec,
    corpus,
    *,
    seconds: int | float = 3.0,
    max_steps: int = 200,
    step_timing: bool = True,
    evaluation: bool = True,
    checkpoint: bool = True,
    devices=None,
    clock=None,
) -> StepCosts:
    """Time the run `spec`'s compiled step on `corpus` (see the module docstring): with
    `step_timing`, the first step, then steps until `seconds` have passed (at least 3,
    at most `max_steps`); with `evaluation`, one validation batch (after one that compiles);
    with `checkpoint`, one checkpoint of the whole state (in a temporary folder).
    The model and the compiled programs are those the run reuses. `clock`: by default
    ``time.perf_counter`` ([`budget_spec`][syncattn.training.budget_spec] passes the
    budget's)."""
    from .. import models

    clock = clock or time.perf_counter
    warm = _WarmUp.start(spec, corpus, devices)
    first = step_s = eval_s = ckpt_s = 0.0
    if step_timing:
        first, step_s = warm.time_steps(clock, seconds, max_steps)
    if evaluation:
        eval_s = warm.time_evaluation(clock)
    if checkpoint:
        ckpt_s = warm.time_checkpoint(clock)
    return StepCosts(
        params=models.count_params(warm.model),
        tokens_per_step=warm.task.tokens_per_step,
        compile_s=max(0.0, first - step_s),
        step_s=step_s,
        eval_s=eval_s,
        ckpt_s=ckpt_s,
    )


@dataclasses.dataclass
class _WarmUp:
    """The run's model, task and compiled step, with the state it trains (replicated
    on `mesh`: model, optimiser state, dropout key)."""

    tcfg: Any
    corpus: Any
    task: Any
    model: Any
    step: Any
    mesh: Any
    devices: Any
    state: list

    @classmethod
    def start(cls, spec, corpus, devices) -> _WarmUp:
        import equinox as eqx
        import jax
        import jax.numpy as jnp

        from .._trees import cast_floating
        from . import _loop
        from ._run import _build_model, validate_run
        from ._sharding import data_mesh, replicate
        from ._task import language_model_task

        mcfg, tcfg = validate_run(spec, corpus)
        task = language_model_task(corpus, tcfg)
        model = _build_model(mcfg, tcfg.seed)
        dtype = "float64" if tcfg.compute_dtype == "float64" else "float32"
        model = cast_floating(model, dtype)
        optimizer, _, step = _loop._compiled(
            _loop._math_fields(tcfg), task.loss, tcfg.compute_dtype, task.optimizer
        )
        mesh = data_mesh(devices)
        state = [
            replicate(model, mesh),
            replicate(optimizer.init(eqx.filter(model, eqx.is_inexact_array)), mesh),
            replicate(jnp.asarray(jax.random.PRNGKey(tcfg.seed + 1)), mesh),
        ]
        return cls(tcfg, corpus, task, model, step, mesh, devices, state)

    def one(self, s: int) -> None:
        """Train step `s` (its loss brought to the host: the step is done)."""
        import jax
        import numpy as np

        from ._sharding import shard_batch
        from ._task import host_value

        batch = jax.tree.map(
            lambda x: shard_batch(np.asarray(x), self.mesh), self.task.sample_batch(s)
        )
        m, o, k, metrics = self.step(*self.state, batch)
        self.state[:] = [m, o, k]
        host_value(metrics["loss"])

    def time_steps(self, clock, seconds, max_steps) -> tuple[float, float]:
        """``(first, step_s)``: the first step's seconds (it compiles) and the mean of
        the next (at least 3, until `seconds` have passed, at most `max_steps`)."""
        t0 = clock()
        self.one(0)
        first = clock() - t0
        n, t1 = 0, clock()
        while n < 3 or (clock() - t1 < seconds and n < max_steps):
            n += 1
            self.one(n)
        return first, (clock() - t1) / n

    def time_evaluation(self, clock) -> float:
        """One evaluation's seconds: a validation batch's (after one that compiles)
        times the batches of an evaluation."""
        from .. import data
        from ._task import evaluate

        tcfg, corpus = self.tcfg, self.corpus
        windows = data.num_eval_windows(corpus.val, tcfg.seq_len)
        batches = min(tcfg.eval_batches, -(-windows // tcfg.batch_size))
        kw = dict(
            kind=corpus.kind,
            pad_id=corpus.pad_id,
            batch_size=tcfg.batch_size,
            seq_len=tcfg.seq_len,
            compute_dtype=tcfg.compute_dtype,
            devices=self.devices,
        )
        evaluate(self.state[0], corpus.val, max_batches=1, **kw)  # compiles
        t = clock()
        evaluate(self.state[0], corpus.val, max_batches=1, **kw)
        return (clock() - t) * batches

    def time_checkpoint(self, clock) -> float:
        """One checkpoint's seconds (of the whole state, in a temporary folder)."""
        import numpy as np

        from ._checkpoint import save_checkpoint
        from ._resume import host_tree

        model, opt_state, key = self.state
        tree = {"model": model, "opt_state": opt_state, "key": key}
        tree["step"] = np.asarray(1, np.int64)
        with tempfile.TemporaryDirectory(prefix="syncattn-budget-") as tmp:
            t = clock()
            save_checkpoint(Path(tmp), 1, host_tree(tree), keep=1)
            return clock() - t

r"""The training loop, written once for every task: resume, step, evaluate, checkpoint,
log; stop on a non-finite loss or a signal.

A [`syncattn.training.Task`][] brings the loss, the batch of step $s$ and the
evaluation (the language model: [`syncattn.training.language_model_task`][]; the
agreement classifier: [`syncattn.training.sva_task`][]); everything else is here.
Run-folder files written here (by process 0 only):

* ``checkpoints/`` (see [`syncattn.training.save_checkpoint`][]): the model, the
  optimiser state, the dropout key and the step;
* ``log.jsonl``: one JSON object per line, ``{"kind": "train", "step", "loss",
  "lr", "grad_norm", "tokens_per_s", ...}`` every `log_every` steps (tasks with
  ``log_train``) and ``{"kind": "eval", "step", "split", ...}`` with the task's
  metrics at every evaluation. ``step`` counts the updates done. On resume,
  lines past the restored step are dropped, so the log always describes one run.
  Lines are appended whole (`syncattn.training._files.append_line`) and the log is
  flushed to disk before each checkpoint. A task that summarises its training
  losses in its eval records (the classifier's epoch mean) has them written as a
  ``{"kind": "train_losses", "step", "losses"}`` record before a checkpoint that
  falls between two evaluations, so that a resumed run summarises the same steps.

With ``stop_on_signal``, SIGINT and SIGTERM finish the current step, save a
checkpoint and raise [`TrainingInterrupted`][syncattn.training.TrainingInterrupted];
the same call resumes exactly where it stopped.

Resuming needs no data-loader state: batch $s$ is ``task.sample_batch(s)``, a pure
function; the dropout key is part of the saved state.

Testing hook: the environment variable ``SYNCATTN_DEBUG_STEP_DELAY`` (seconds)
sleeps after every step, so that the kill-and-resume test's SIGKILL lands mid-run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._trees import cast_floating, count_parameters
from ._checkpoint import save_checkpoint
from ._config import BOOKKEEPING_FIELDS, TrainConfig
from ._files import append_line, fsync_file
from ._optim import check_horizons, lr_schedule, make_optimizer
from ._progress import Throughput, progress_bar, show
from ._replan import apply_replan
from ._resume import Folder, State, held_run_folder, host_tree, logged_end, resume
from ._runlog import read_log
from ._sharding import data_mesh, replicate, shard_batch
from ._step import make_train_step
from ._stops import (
    TrainingDiverged,
    TrainingInterrupted,
    diverged,
    interrupted,
    stop_on_signals,
)
from ._task import Task, evaluate, host_value, language_model_task


__all__ = [
    "fit",
    "evaluate",
    "held_run_folder",
    "TrainingDiverged",
    "TrainingInterrupted",
    "read_log",
    "count_parameters",
]


# --------------------------------------------------------------------------- fit


def _math_fields(config: TrainConfig) -> TrainConfig:
    """`config` with the fields that do not enter the compiled step at their defaults."""
    unused = BOOKKEEPING_FIELDS | {"seed", "batch_size", "seq_len"}
    return dataclasses.replace(config, **{f: getattr(TrainConfig, f) for f in unused})


clock = time.perf_counter
"""The loop's clock for the re-planning measurements (a module attribute: a test replaces it)."""


@functools.lru_cache(maxsize=16)
def _compiled(config: TrainConfig, loss, compute_dtype, make=None, horizons=()):
    # One jitted step per (optimiser config, task loss, dtype, task optimiser, horizons): a
    # second `fit` in the same process (resume, a sweep cell, the tests) reuses the program.
    if make is not None and horizons:
        raise ValueError(
            "horizons (a re-planned schedule) need the default optimiser; this "
            "task brings its own."
        )
    optimizer, schedule = (
        make(config)
        if make is not None
        else (make_optimizer(config, horizons), lr_schedule(config, horizons))
    )
    return (
        optimizer,
        schedule,
        make_train_step(optimizer, compute_dtype=compute_dtype, loss=loss),
    )


@dataclasses.dataclass(frozen=True)
class _Program:
    """The schedule in force and its compiled step: a re-plan replaces all five."""

    config: TrainConfig
    horizons: tuple
    optimizer: Any
    schedule: Any
    train_step: Any


def _program(task: Task, config: TrainConfig, horizons) -> _Program:
    """The (cached) compiled step of `config`'s schedule re-aimed at `horizons`."""
    optimizer, schedule, train_step = _compiled(
        _math_fields(config), task.loss, config.compute_dtype, task.optimizer, horizons
    )
    return _Program(config, horizons, optimizer, schedule, train_step)


# ------------------------------------------------------------ one step and its records


@dataclasses.dataclass
class _Loop:
    """The state that `fit`'s steps update, placed on the data-parallel `mesh`, and
    what they record: the training losses that the next evaluation summarises
    (`pending`), the last evaluation and the seconds of the last evaluation and save."""

    task: Task
    folder: Folder
    program: _Program
    mesh: Any
    model: Any
    opt_state: Any
    key: Any
    pending: list
    last_eval: dict | None = None
    timing: dict = dataclasses.field(
        default_factory=lambda: {"eval_s": 0.0, "ckpt_s": None}
    )

    @classmethod
    def place(cls, state: State, task, folder, program, pending, mesh) -> _Loop:
        """The loop from `state`, replicated on `mesh`."""
        model = replicate(state.model, mesh)
        opt_state = replicate(state.opt_state, mesh)
        key = replicate(jnp.asarray(state.key), mesh)
        return cls(task, folder, program, mesh, model, opt_state, key, pending)

    @property
    def devices(self) -> list:
        return list(self.mesh.devices.flat)

    def update(self, s: int) -> tuple[float, float]:
        """Step $s$: one update on batch $s$; ``(loss, grad_norm)``. A non-finite one
        raises `TrainingDiverged` and leaves the state as it was."""
        batch = jax.tree.map(
            lambda x: shard_batch(np.asarray(x), self.mesh), self.task.sample_batch(s)
        )
        step_fn = self.program.train_step
        new_model, new_opt, new_key, metrics = step_fn(
            self.model, self.opt_state, self.key, batch
        )
        metrics = {k: host_value(v) for k, v in metrics.items()}
        loss, grad_norm = metrics["loss"], metrics["grad_norm"]
        if not metrics["finite"]:
            lr = self.program.config.lr
            raise diverged(self.folder.ckpt_dir, s + 1, loss, grad_norm, lr)
        self.model, self.opt_state, self.key = new_model, new_opt, new_key
        if self.task.train_summary is not None:
            self.pending.append(loss)
        return loss, grad_norm

    def log_train(self, s: int, loss: float, grad_norm: float, throughput) -> None:
        """The ``{"kind": "train"}`` line of step $s$ when it is due (restarting the
        throughput's count)."""
        config, step = self.program.config, s + 1
        due = step % config.log_every == 0 or step == config.steps
        if not (self.folder.main and self.task.log_train and due):
            return
        record = {
            "kind": "train",
            "step": step,
            "loss": loss,
            **self.task.train_metrics(loss),
            "lr": float(self.program.schedule(s)),
            "grad_norm": grad_norm,
            "tokens_per_s": throughput.value,
            "devices": self.mesh.devices.size,
            "time": time.time(),
        }
        append_line(self.folder.log_path, json.dumps(record))
        throughput.restart()

    def evaluate(self, step: int) -> dict:
        """The ``{"kind": "eval"}`` record of the model after `step` (logged)."""
        t = clock()
        record = {"kind": "eval", "step": step}
        if self.task.train_summary is not None:
            record.update(self.task.train_summary(step, list(self.pending)))
            self.pending.clear()
        record["split"] = "val"
        record.update(self.task.evaluate(self.model, self.devices))
        if self.folder.main:
            append_line(self.folder.log_path, json.dumps(record))
        self.timing["eval_s"] = clock() - t
        self.last_eval = record
        return record

    def save(self, step: int) -> None:
        """``checkpoints/step_{step}``, after flushing the log (and the training losses
        that the next evaluation summarises, so that they survive an interruption)."""
        t = clock()
        if self.folder.main:
            log_path = self.folder.log_path
            if self.pending:
                record = {
                    "kind": "train_losses",
                    "step": step,
                    "losses": list(self.pending),
                }
                append_line(log_path, json.dumps(record))
            fsync_file(log_path)  # the log is durable up to the checkpoint
            tree = {"model": self.model, "opt_state": self.opt_state, "key": self.key}
            tree["step"] = np.asarray(step, np.int64)
            save_checkpoint(
                self.folder.ckpt_dir,
                step,
                host_tree(tree),
                keep=self.program.config.keep,
            )
        self.timing["ckpt_s"] = clock() - t


# --------------------------------------------------------------------------- re-planning


@dataclasses.dataclass
class _Replanning:
    """`fit`'s `replan` between two calls: the steps since the last call and their
    seconds (everything but evaluations and saves), not counting a step that compiles
    (the session's first, or the first after a re-plan)."""

    replan: Callable | None
    on_replan: Callable | None
    steps: int = 0
    seconds: float = 0.0
    compiling: bool = True

    def count(self, t_iter: float, extra: float) -> None:
        """Count the step begun at `clock()` = `t_iter`, less `extra` seconds."""
        if self.compiling:
            self.compiling = False
        else:
            self.steps += 1
            self.seconds += clock() - t_iter - extra

    def due(self, step: int, steps: int, evaluated: bool) -> bool:
        return self.replan is not None and evaluated and step < steps and self.steps > 0

    def apply(self, loop: _Loop, step: int, bar) -> None:
        """Ask `replan` at `step`; on a new step count, `loop` follows the re-aimed
        schedule (compiled again) and the bar its new total."""
        program, folder = loop.program, loop.folder
        replanned = apply_replan(
            self.replan,
            step,
            self.seconds / self.steps,
            loop.timing,
            program.config,
            program.horizons,
            log=folder.log,
            log_path=folder.log_path,
            main=folder.main,
            on_replan=self.on_replan,
        )
        self.steps, self.seconds = 0, 0.0
        if replanned is None:
            return
        config, horizons, _ = replanned
        loop.program = _program(loop.task, config, horizons)
        self.compiling = True
        if bar is not None:
            bar.total = config.steps
            bar.refresh()


# --------------------------------------------------------------------------- fit


def _train(loop: _Loop, start: int, replanning: _Replanning, stop_on_signal, bar):
    """`_steps` with the signals caught (`fit`'s `stop_on_signal`); the bar is closed at
    the end."""
    with contextlib.ExitStack() as stack:
        stop = stack.enter_context(stop_on_signals(stop_on_signal))
        if bar is not None:
            stack.callback(bar.close)
        return _steps(loop, start, replanning, stop, bar)


def _steps(loop: _Loop, start: int, replanning: _Replanning, stop, bar) -> float:
    """Steps `start`, ..., S-1 (S: the schedule's steps, re-planned as it goes), each
    followed by what is due: its log line, an evaluation, a save, a re-plan, and the
    stop that a signal asked for (``stop["signum"]``, after a save). Returns the last
    step's loss (``nan`` without one)."""
    delay = float(os.environ.get("SYNCATTN_DEBUG_STEP_DELAY", "0") or 0)  # tests only
    throughput = Throughput(loop.task.tokens_per_step)
    loss = math.nan
    s = start - 1
    while s + 1 < loop.program.config.steps:
        s += 1
        t0 = time.perf_counter()
        t_iter, extra = clock(), 0.0
        loss, grad_norm = loop.update(s)
        step = s + 1
        if delay:
            time.sleep(delay)
        throughput.add(t0)
        loop.log_train(s, loss, grad_norm, throughput)
        config = loop.program.config
        evaluated = step % config.eval_every == 0 or step == config.steps
        if evaluated:
            loop.evaluate(step)
            extra += loop.timing["eval_s"]
        if step % config.ckpt_every == 0 or step == config.steps:
            loop.save(step)
            extra += loop.timing["ckpt_s"]
        show(bar, loop.task, loss, throughput.value, loop.last_eval)
        replanning.count(t_iter, extra)
        if replanning.due(step, config.steps, evaluated):
            replanning.apply(loop, step, bar)
        config = loop.program.config
        if stop["signum"] is not None and step < config.steps:
            if step % config.ckpt_every != 0:
                loop.save(step)
            raise interrupted(
                stop["signum"], step, config.steps, loss, loop.folder.ckpt_dir
            )
    return loss


def _task_of(data, config: TrainConfig, sample_batch, eval_batches) -> Task:
    """`fit`'s `data` as a `Task`."""
    if not isinstance(data, Task):
        return language_model_task(
            data, config, sample_batch=sample_batch, eval_batches=eval_batches
        )
    if sample_batch is not None or eval_batches is not None:
        raise TypeError(
            "sample_batch and eval_batches go with a corpus; a Task has its own."
        )
    return data


def fit(
    model,
    config: TrainConfig,
    data,
    run_dir: str | Path,
    *,
    devices=None,
    progress: bool = True,
    log=None,
    sample_batch=None,
    eval_batches=None,
    restart: bool = False,
    stop_on_signal: bool = False,
    horizons=(),
    replan=None,
    on_replan=None,
) -> dict[str, Any]:
    r"""Train `model` on a task into `run_dir`, resuming from its latest checkpoint.

    Step $s = 0, 1, \dots, S-1$ draws the task's batch $s$, applies one AdamW update on
    the task's loss ([`syncattn.training.make_train_step`][]) and then, when due, logs,
    evaluates and saves ``checkpoints/step_{s+1}``. The final step always evaluates and
    saves. The same loop trains the language model (`data` a corpus:
    [`syncattn.training.language_model_task`][]) and the agreement classifier
    ([`syncattn.training.sva_task`][], behind
    [`syncattn.training.fit_classifier`][]).

    Args:
        model: the initial model (also the template a checkpoint is loaded into).
            Its floating parameters are cast to float32 (float64 when
            ``config.compute_dtype == "float64"``).
        config: the [`syncattn.training.TrainConfig`][].
        data: a [`syncattn.training.Task`][], or a corpus (an object with ``kind``
            ("byte" | "word"), ``train``, ``val`` token arrays and ``pad_id``, e.g.
            from `syncattn.data.load_corpus`) for next-token prediction.
        run_dir: the run folder (``checkpoints/`` and ``log.jsonl`` go there).
        devices: the devices of the data-parallel mesh (default: all).
        progress: show a tqdm bar (loss, the task's metrics, tokens/s).
        log: a function of one string for messages (default: print to stderr).
        sample_batch, eval_batches: with a corpus, the data functions (default:
            `syncattn.data`'s); a `Task` brings its own.
        restart: when ``checkpoints/`` holds checkpoints but none is readable (or
            only ``corrupt-step_*`` folders set aside by an earlier attempt), train
            again from step 0. Without it that case raises `CheckpointError`: a run
            never restarts silently.
        stop_on_signal: SIGINT and SIGTERM finish the current step, save a
            checkpoint of it and raise `TrainingInterrupted` (main thread only; a
            second signal acts at once).
        horizons: the schedule's re-planned horizons ``((0, S_0), (s_1, S_1), ...)``
            (see [`syncattn.training.lr_schedule`][]); the last is ``config.steps``.
        replan: re-planning (a ``--minutes`` run, [`syncattn.training.Replanner`][]):
            called after every evaluation before the last, in a run that did not resume,
            with ``{"step", "steps", "warmup_steps", "eval_every", "ckpt_every",
            "step_s", "eval_s", "ckpt_s"}`` (the mean seconds of a step since the last
            call, everything but evaluations and saves counted, and the last evaluation's
            and save's seconds, ``None`` before the first save); it returns ``None`` or a
            new step count $S' >$ ``step``, which re-aims the schedule at $S'$ from this
            step on (`horizons` grows by ``(step, S')``; the step is compiled again) and
            is logged as a ``{"kind": "replan"}`` record.
        on_replan: called (main process) at each re-plan, before its log line, with its
            record and the checked horizons in force (`train_run` writes config.json).

    Returns:
        ``{"step", "loss", "eval", "resumed_from", "params", "devices", "model"}``:
        ``eval`` is the last eval record (when a finished run is called again: the
        logged one, or a fresh evaluation if the log lost it).

    Raises:
        CheckpointError: no readable checkpoint where some existed (see `restart`).
        TrainingInterrupted: a signal stopped the run (with `stop_on_signal`).
        TrainingDiverged: when a loss or gradient norm is NaN/inf. The state of that
            step is not applied and not saved; ``checkpoints/`` keeps the last good
            checkpoint.
    """
    task = _task_of(data, config, sample_batch, eval_batches)
    folder = Folder.create(run_dir, log)
    dtype = "float64" if config.compute_dtype == "float64" else "float32"
    model = cast_floating(model, dtype)
    program = _program(task, config, check_horizons(horizons, config))
    state, resumed_from, pending = resume(model, program, task, folder, restart)
    loop = _Loop.place(state, task, folder, program, pending, data_mesh(devices))
    # a resumed run follows the plan it recorded: no re-planning
    replanning = _Replanning(replan if resumed_from is None else None, on_replan)
    bar = progress_bar(config.steps, state.step, progress and folder.main, task.name)
    loss = _train(loop, state.step, replanning, stop_on_signal, bar)
    steps = loop.program.config.steps
    if state.step >= steps:  # nothing to do: report the logged end state
        loss, loop.last_eval = logged_end(loop, state.step)
    return {
        "step": max(state.step, steps),
        "loss": loss,
        "eval": loop.last_eval,
        "resumed_from": resumed_from,
        "params": count_parameters(state.model),
        "devices": loop.mesh.devices.size,
        "model": loop.model,
    }

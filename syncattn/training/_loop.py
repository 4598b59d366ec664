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
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._trees import cast_floating, count_parameters
from ._checkpoint import (
    CheckpointError,
    list_checkpoints,
    restore_checkpoint,
    save_checkpoint,
)
from ._config import BOOKKEEPING_FIELDS, TrainConfig
from ._files import (
    append_line,
    check_folder_target,
    clean_stale,
    fsync_file,
    records_lock,
    run_lock,
)
from ._optim import check_horizons, lr_schedule, make_optimizer
from ._replan import apply_replan
from ._runlog import pending_losses, read_log, truncate_log
from ._sharding import (
    broadcast_from_main,
    data_mesh,
    is_main_process,
    replicate,
    shard_batch,
)
from ._step import make_train_step
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


class TrainingDiverged(RuntimeError):
    """The loss or gradient became NaN or infinite; the last good checkpoint is kept
    (command-line exit status 3)."""

    exit_code = 3


class TrainingInterrupted(RuntimeError):
    """SIGINT or SIGTERM stopped training after a step and a checkpoint.

    Attributes:
        signum: the signal; ``exit_code`` is ``128 + signum`` (130 for SIGINT, 143
            for SIGTERM), the shell's convention.
        step: the step saved.
    """

    def __init__(self, message: str, signum: int, step: int):
        super().__init__(message)
        self.signum = signum
        self.step = step
        self.exit_code = 128 + int(signum)


@contextlib.contextmanager
def _stop_on_signals(enabled: bool):
    """While active, SIGINT / SIGTERM set ``state["signum"]`` instead of acting; a
    second one acts at once (the previous handler is put back by the first)."""
    state: dict[str, Any] = {"signum": None}
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = {}

    def handler(signum, frame):
        state["signum"] = signum
        signal.signal(signum, previous[signum])

    for sig in (signal.SIGINT, signal.SIGTERM):
        old = signal.getsignal(sig)
        previous[sig] = signal.SIG_DFL if old is None else old
        signal.signal(sig, handler)
    try:
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def held_run_folder(run_dir: str | Path, *, what: str, log=None):
    """Hold `run_dir` for one trainer: create it, take its ``.lock`` (`RunBusy` if another
    process holds it) and remove what a crashed process left in it and in
    ``checkpoints/`` (process 0 only; the others just enter)."""
    log = log or (lambda msg: print(msg, file=sys.stderr))
    run_dir = check_folder_target(run_dir, "run_dir")
    if not is_main_process():
        yield run_dir
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    with run_lock(run_dir, what=what):
        with records_lock(run_dir):
            cleaned = clean_stale(run_dir)
        cleaned += clean_stale(run_dir / "checkpoints")
        if cleaned:
            log(f"removed what an interrupted process left in {run_dir}: {', '.join(cleaned)}")
        yield run_dir


def _host_tree(tree):
    """Every array leaf as a NumPy array on this host (for saving)."""
    def get(x):
        if isinstance(x, jax.Array) and not x.is_fully_addressable:
            x = x.addressable_data(0)
        return np.asarray(x)

    arrays, static = eqx.partition(tree, eqx.is_array)
    return eqx.combine(jax.tree.map(get, arrays), static)


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
        raise ValueError("horizons (a re-planned schedule) need the default optimiser; this "
                         "task brings its own.")
    optimizer, schedule = make(config) if make is not None else (
        make_optimizer(config, horizons), lr_schedule(config, horizons))
    return (
        optimizer,
        schedule,
        make_train_step(optimizer, compute_dtype=compute_dtype, loss=loss),
    )


@dataclasses.dataclass
class _State:
    model: Any
    opt_state: Any
    key: Any
    step: int


def _progress(total, initial, enabled, desc):
    if not enabled:
        return None
    from tqdm.auto import tqdm  # imported only with a progress bar (slow to import)

    return tqdm(total=total, initial=initial, desc=desc, dynamic_ncols=True, file=sys.stderr)


def _diverged(ckpt_dir: Path, step: int, loss, grad_norm, config: TrainConfig):
    good = [p.name for _, p in list_checkpoints(ckpt_dir)]
    where = good[0] if good else "none (no checkpoint was saved yet)"
    return TrainingDiverged(
        f"non-finite loss or gradient at step {step} (loss={loss}, grad_norm={grad_norm}); "
        f"training stopped. The last good checkpoint is {where} in {ckpt_dir}. Lower lr "
        f"(now {config.lr}), raise warmup_steps or set clip_norm, and train into a new "
        "--out folder."
    )


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
    if isinstance(data, Task):
        if sample_batch is not None or eval_batches is not None:
            raise TypeError("sample_batch and eval_batches go with a corpus; a Task has its own.")
        task = data
    else:
        task = language_model_task(data, config, sample_batch=sample_batch, eval_batches=eval_batches)
    log = log or (lambda msg: print(msg, file=sys.stderr))
    run_dir = Path(run_dir)
    main = is_main_process()
    if main:
        run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_dir = run_dir / "checkpoints"
    log_path = run_dir / "log.jsonl"

    model = cast_floating(model, "float64" if config.compute_dtype == "float64" else "float32")
    horizons = check_horizons(horizons, config)
    optimizer, schedule, train_step = _compiled(_math_fields(config), task.loss, config.compute_dtype,
                                                   task.optimizer, horizons)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))
    key = jax.random.PRNGKey(config.seed + 1)  # raw uint32[2]: saved as plain data
    state = _State(model, opt_state, key, 0)

    template = {"model": model, "opt_state": opt_state, "key": key, "step": np.asarray(0, np.int64)}
    try:
        restored = restore_checkpoint(ckpt_dir, template, quarantine=main, log=log)
    except CheckpointError:
        if not restart:
            raise
        log(f"--restart: no readable checkpoint in {ckpt_dir}; training again from step 0 "
            "(the unreadable ones are kept as corrupt-step_*).")
        restored = None
    resumed_from = None
    pending: list[float] = []  # training losses since the last evaluation
    if restored is not None:
        tree, step, path = restored
        state = _State(tree["model"], tree["opt_state"], tree["key"], int(step))
        resumed_from = int(step)
        log(f"resumed from {path} (step {step})")
        if main:
            truncate_log(log_path, step)
            if task.train_summary is not None:
                pending = pending_losses(log_path, int(step))
    elif main and log_path.exists():
        if read_log(log_path):
            log(f"{ckpt_dir} holds no checkpoint yet: training from step 0 "
                "(log.jsonl restarts).")
        truncate_log(log_path, 0)
    # several hosts: process 0's state is the run's (the others may not see its disk)
    *tree, step = broadcast_from_main((state.model, state.opt_state, state.key, np.int64(state.step)))
    state = _State(*tree, int(step))

    mesh = data_mesh(devices)
    n_dev = mesh.devices.size
    mesh_devices = list(mesh.devices.flat)
    n_params = count_parameters(state.model)
    model_r, opt_r = replicate(state.model, mesh), replicate(state.opt_state, mesh)
    key_r = replicate(jnp.asarray(state.key), mesh)

    def run_eval(model_now, step):
        t = clock()
        record = {"kind": "eval", "step": step}
        if task.train_summary is not None:
            record.update(task.train_summary(step, list(pending)))
            pending.clear()
        record["split"] = "val"
        record.update(task.evaluate(model_now, mesh_devices))
        if main:
            append_line(log_path, json.dumps(record))
        timing["eval_s"] = clock() - t
        return record

    def save(step):
        t = clock()
        if main:
            if pending:
                # what the next evaluation summarises survives an interruption
                append_line(log_path, json.dumps(
                    {"kind": "train_losses", "step": step, "losses": list(pending)}))
            fsync_file(log_path)  # the log is durable up to the checkpoint
            save_checkpoint(
                ckpt_dir, step,
                _host_tree({"model": model_r, "opt_state": opt_r, "key": key_r,
                            "step": np.asarray(step, np.int64)}),
                keep=config.keep,
            )
        timing["ckpt_s"] = clock() - t

    timing: dict[str, Any] = {"eval_s": 0.0, "ckpt_s": None}
    since = {"steps": 0, "seconds": 0.0}  # steps and their seconds since the last re-plan check
    compiling = True
    delay = float(os.environ.get("SYNCATTN_DEBUG_STEP_DELAY", "0") or 0)  # tests only
    bar = _progress(config.steps, state.step, progress and main, task.name)
    last_eval = None
    loss, tps = math.nan, None
    step_time, step_count, first = 0.0, 0, True
    with contextlib.ExitStack() as stack:
        stop = stack.enter_context(_stop_on_signals(stop_on_signal))
        if bar is not None:
            stack.callback(bar.close)
        s = state.step - 1
        while s + 1 < config.steps:
            s += 1
            t0 = time.perf_counter()
            t_iter, extra = clock(), 0.0
            batch = jax.tree.map(lambda x: shard_batch(np.asarray(x), mesh), task.sample_batch(s))
            new_model, new_opt, new_key, metrics = train_step(model_r, opt_r, key_r, batch)
            metrics = {k: host_value(v) for k, v in metrics.items()}
            loss = metrics["loss"]
            if not metrics["finite"]:
                raise _diverged(ckpt_dir, s + 1, loss, metrics["grad_norm"], config)
            model_r, opt_r, key_r = new_model, new_opt, new_key
            if task.train_summary is not None:
                pending.append(loss)
            step = s + 1
            if delay:
                time.sleep(delay)
            # throughput: time in the step itself (batch, update, loss to host), not
            # in evals or saves, and not the first step of a session (compilation)
            if first:
                first = False
            elif task.tokens_per_step:
                step_time += time.perf_counter() - t0
                step_count += 1
                tps = task.tokens_per_step * step_count / step_time
            if main and task.log_train and (step % config.log_every == 0 or step == config.steps):
                append_line(log_path, json.dumps({
                    "kind": "train", "step": step, "loss": loss, **task.train_metrics(loss),
                    "lr": float(schedule(s)), "grad_norm": metrics["grad_norm"],
                    "tokens_per_s": tps, "devices": n_dev, "time": time.time(),
                }))
                step_time, step_count = 0.0, 0
            evaluated = step % config.eval_every == 0 or step == config.steps
            if evaluated:
                last_eval = run_eval(model_r, step)
                extra += timing["eval_s"]
            if step % config.ckpt_every == 0 or step == config.steps:
                save(step)
                extra += timing["ckpt_s"]
            if bar is not None:
                post = {"loss": f"{loss:.4f}"}
                post.update({k: f"{v:.3f}" for k, v in task.train_metrics(loss).items()})
                if tps:
                    post["tok/s"] = f"{tps:,.0f}"
                if last_eval is not None:
                    m = task.metrics[0]
                    post[f"val_{m}"] = f"{last_eval[m]:.3f}"
                bar.set_postfix(post, refresh=False)
                bar.update(1)
            if compiling:  # the session's first step, or the first after a re-plan
                compiling = False
            else:
                since["steps"] += 1
                since["seconds"] += clock() - t_iter - extra
            if (replan is not None and resumed_from is None and evaluated
                    and step < config.steps and since["steps"] > 0):
                replanned = apply_replan(replan, step, since["seconds"] / since["steps"], timing,
                                         config, horizons, log=log, log_path=log_path, main=main,
                                         on_replan=on_replan)  # fmt: skip
                since.update(steps=0, seconds=0.0)
                if replanned is not None:
                    config, horizons, _ = replanned
                    optimizer, schedule, train_step = _compiled(
                        _math_fields(config), task.loss, config.compute_dtype, task.optimizer,
                        horizons)  # fmt: skip
                    compiling = True
                    if bar is not None:
                        bar.total = config.steps
                        bar.refresh()
            if stop["signum"] is not None and step < config.steps:
                if step % config.ckpt_every != 0:
                    save(step)
                raise TrainingInterrupted(
                    f"stopped by {signal.Signals(stop['signum']).name} after step {step} of "
                    f"{config.steps} (train loss {loss:.4f}); checkpoint step_{step:08d} is "
                    f"saved in {ckpt_dir}. Run the same command to resume from it.",
                    stop["signum"], step,
                )
    if state.step >= config.steps:  # nothing to do: report the logged end state
        records = read_log(log_path)
        evals = [r for r in records if r.get("kind") == "eval"]
        trains = [r for r in records if r.get("kind") == "train"]
        last_eval = evals[-1] if evals else None
        loss = trains[-1]["loss"] if trains else math.nan
        if last_eval is None:  # the log lost it: evaluate the restored model
            last_eval = {"kind": "eval", "step": state.step, "split": "val",
                         **task.evaluate(model_r, mesh_devices)}
    return {
        "step": max(state.step, config.steps),
        "loss": loss,
        "eval": last_eval,
        "resumed_from": resumed_from,
        "params": n_params,
        "devices": n_dev,
        "model": model_r,
    }

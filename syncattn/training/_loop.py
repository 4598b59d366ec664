r"""The training loop: resume, step, evaluate, checkpoint, log; stop on a non-finite loss.

Run-folder files written here (by process 0 only):

* ``checkpoints/`` (see [`syncattn.training.save_checkpoint`][]);
* ``log.jsonl``: one JSON object per line, ``{"kind": "train", "step", "loss",
  "lr", "grad_norm", "tokens_per_s", ...}`` every `log_every` steps and
  ``{"kind": "eval", "step", "loss", "bpc" | "ppl", ...}`` at every evaluation.
  ``step`` counts the updates done. On resume, lines past the restored step are
  dropped, so the log always describes one run. Lines are appended whole
  (`syncattn.training._files.append_line`) and the log is flushed to disk before
  each checkpoint.

With ``stop_on_signal``, SIGINT and SIGTERM finish the current step, save a
checkpoint and raise [`TrainingInterrupted`][syncattn.training.TrainingInterrupted];
the same call resumes exactly where it stopped.

Resuming needs no data-loader state: batch $s$ is ``sample_batch(train, seed,
step=s)``, a pure function; the dropout key is part of the saved state.

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

from ._checkpoint import CheckpointError, restore_checkpoint, save_checkpoint
from ._config import BOOKKEEPING_FIELDS, TrainConfig
from ._files import append_line, atomic_write, fsync_file
from ._optim import lr_schedule, make_optimizer
from ._sharding import (
    broadcast_from_main,
    data_mesh,
    is_main_process,
    replicate,
    shard_batch,
)
from ._step import cast_floating, make_eval_step, make_train_step, metric_from_loss


__all__ = [
    "fit",
    "evaluate",
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


def count_parameters(model) -> int:
    """The number of scalar parameters (floating-point array entries) of `model`."""
    leaves = jax.tree.leaves(eqx.filter(model, eqx.is_inexact_array))
    return int(sum(np.prod(x.shape, dtype=np.int64) for x in leaves))


def _host(x):
    """A replicated scalar as a Python number (multi-host arrays are not fully
    addressable, but every process holds the whole value)."""
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        x = x.addressable_data(0)
    return np.asarray(x).item()


def _host_tree(tree):
    """Every array leaf as a NumPy array on this host (for saving)."""
    def get(x):
        if isinstance(x, jax.Array) and not x.is_fully_addressable:
            x = x.addressable_data(0)
        return np.asarray(x)

    arrays, static = eqx.partition(tree, eqx.is_array)
    return eqx.combine(jax.tree.map(get, arrays), static)


# --------------------------------------------------------------------------- log file


def read_log(path: str | Path) -> list[dict]:
    """The records of a ``log.jsonl``; a torn last line (killed mid-write) is skipped."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def _truncate_log(path: Path, step: int) -> None:
    records = [r for r in read_log(path) if r.get("step", 0) <= step]
    atomic_write(path, "".join(json.dumps(r) + "\n" for r in records))


def _append(path: Path, record: dict) -> None:
    append_line(path, json.dumps(record))


# --------------------------------------------------------------------------- data access


def _data_fns(sample_batch, eval_batches):
    if sample_batch is None or eval_batches is None:
        from .. import data

        sample_batch = sample_batch or data.sample_batch
        eval_batches = eval_batches or data.eval_batches
    return sample_batch, eval_batches


def evaluate(
    model,
    tokens,
    *,
    kind: str,
    pad_id: int | None,
    batch_size: int,
    seq_len: int,
    max_batches: int | None = None,
    compute_dtype: str = "float32",
    devices=None,
    eval_batches=None,
    _eval_step=None,
) -> dict[str, float]:
    r"""Mean next-token loss of `model` over a token array, and its BPC or perplexity.

    $$\bar\ell = \frac{\sum_{b,t} m_{b,t}\,\ell_{b,t}}{\sum_{b,t} m_{b,t}}$$

    summed in float64 over the batches of `eval_batches(tokens, batch_size=...,
    seq_len=..., max_batches=...)` (a short final batch is padded with masked
    rows), then $\mathrm{BPC} = \bar\ell/\ln 2$ (byte) or $\mathrm{PPL} = e^{\bar\ell}$
    (word); see [`syncattn.training.metric_from_loss`][].

    Returns:
        ``{"loss", "bpc" | "ppl", "tokens"}`` (tokens: targets counted).

    Raises:
        ValueError: if the array yields no batch.
    """
    if eval_batches is None:
        from ..data import eval_batches
    mesh = data_mesh(devices)
    n_dev = mesh.devices.size
    bs = -(-batch_size // n_dev) * n_dev
    step = _eval_step or _cached_eval_step(pad_id, compute_dtype)
    model = replicate(model, mesh)
    total, count = 0.0, 0.0
    for batch in eval_batches(tokens, batch_size=batch_size, seq_len=seq_len, max_batches=max_batches):
        batch = np.asarray(batch, dtype=np.int32)
        rows = batch.shape[0]
        weights = np.ones(bs, np.float32)
        if rows < bs:
            fill = np.zeros((bs - rows, batch.shape[1]), np.int32)
            if pad_id is not None:
                fill[:] = pad_id
            batch = np.concatenate([batch, fill])
            weights[rows:] = 0.0
        s, c = step(model, shard_batch(batch, mesh), shard_batch(weights, mesh))
        total += _host(s)
        count += _host(c)
    if count == 0:
        raise ValueError("the evaluation data gave no target token (empty split?).")
    loss = total / count
    return {"loss": loss, **metric_from_loss(loss, kind), "tokens": int(count)}


# --------------------------------------------------------------------------- fit


def _math_fields(config: TrainConfig) -> TrainConfig:
    """`config` with the fields that do not enter the compiled step at their defaults."""
    unused = BOOKKEEPING_FIELDS | {"seed", "batch_size", "seq_len"}
    return dataclasses.replace(config, **{f: getattr(TrainConfig, f) for f in unused})


@functools.lru_cache(maxsize=16)
def _cached_eval_step(pad_id, compute_dtype):
    return make_eval_step(pad_id=pad_id, compute_dtype=compute_dtype)


@functools.lru_cache(maxsize=16)
def _compiled(config: TrainConfig, pad_id, compute_dtype):
    # One jitted step per (optimiser config, pad id, dtype): a second `fit` in the same
    # process (resume, a sweep cell, the tests) reuses the compiled program.
    optimizer = make_optimizer(config)
    return (
        optimizer,
        lr_schedule(config),
        make_train_step(optimizer, pad_id=pad_id, compute_dtype=compute_dtype),
        _cached_eval_step(pad_id, compute_dtype),
    )


@dataclasses.dataclass
class _State:
    model: Any
    opt_state: Any
    key: Any
    step: int


def _progress(total, initial, enabled):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, desc="train", dynamic_ncols=True, file=sys.stderr)


def fit(
    model,
    config: TrainConfig,
    corpus,
    run_dir: str | Path,
    *,
    devices=None,
    progress: bool = True,
    log=None,
    sample_batch=None,
    eval_batches=None,
    restart: bool = False,
    stop_on_signal: bool = False,
) -> dict[str, Any]:
    r"""Train `model` on `corpus` into `run_dir`, resuming from its latest checkpoint.

    Step $s = 0, 1, \dots, S-1$ draws batch ``sample_batch(corpus.train, seed,
    step=s)``, applies one AdamW update ([`syncattn.training.make_train_step`][])
    and then, when due, logs, evaluates on ``corpus.val`` and saves
    ``checkpoints/step_{s+1}``. The final step always evaluates and saves.

    Args:
        model: the initial model (also the template a checkpoint is loaded into).
            Its floating parameters are cast to float32 (float64 when
            ``config.compute_dtype == "float64"``).
        config: the [`syncattn.training.TrainConfig`][].
        corpus: an object with ``kind`` ("byte" | "word"), ``train``, ``val`` token
            arrays and ``pad_id`` (e.g. from `syncattn.data.load_corpus`).
        run_dir: the run folder (``checkpoints/`` and ``log.jsonl`` go there).
        devices: the devices of the data-parallel mesh (default: all).
        progress: show a tqdm bar (loss, BPC or PPL, tokens/s).
        log: a function of one string for messages (default: print to stderr).
        sample_batch, eval_batches: the data functions (default: `syncattn.data`'s).
        restart: when ``checkpoints/`` holds checkpoints but none is readable (or
            only ``corrupt-step_*`` folders set aside by an earlier attempt), train
            again from step 0. Without it that case raises `CheckpointError`: a run
            never restarts silently.
        stop_on_signal: SIGINT and SIGTERM finish the current step, save a
            checkpoint of it and raise `TrainingInterrupted` (main thread only; a
            second signal acts at once).

    Returns:
        ``{"step", "loss", "eval", "resumed_from", "params", "devices"}``.

    Raises:
        CheckpointError: no readable checkpoint where some existed (see `restart`).
        TrainingInterrupted: a signal stopped the run (with `stop_on_signal`).
        TrainingDiverged: when a loss or gradient norm is NaN/inf. The state of that
            step is not applied and not saved; ``checkpoints/`` keeps the last good
            checkpoint.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    sample_batch, eval_batches = _data_fns(sample_batch, eval_batches)
    run_dir = Path(run_dir)
    main = is_main_process()
    if main:
        run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_dir = run_dir / "checkpoints"
    log_path = run_dir / "log.jsonl"
    kind, pad_id = corpus.kind, corpus.pad_id

    param_dtype = jnp.float64 if config.compute_dtype == "float64" else jnp.float32
    model = cast_floating(model, param_dtype)
    optimizer, schedule, train_step, eval_step = _compiled(
        _math_fields(config), pad_id, config.compute_dtype
    )
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
    if restored is not None:
        tree, step, path = restored
        state = _State(tree["model"], tree["opt_state"], tree["key"], int(step))
        resumed_from = int(step)
        log(f"resumed from {path} (step {step})")
        if main:
            _truncate_log(log_path, step)
    elif main and log_path.exists():
        if read_log(log_path):
            log(f"{ckpt_dir} holds no checkpoint yet: training from step 0 "
                "(log.jsonl restarts).")
        _truncate_log(log_path, 0)
    # several hosts: process 0's state is the run's (the others may not see its disk)
    *tree, step = broadcast_from_main((state.model, state.opt_state, state.key, np.int64(state.step)))
    state = _State(*tree, int(step))

    mesh = data_mesh(devices)
    n_dev = mesh.devices.size
    n_params = count_parameters(state.model)
    model_r = replicate(state.model, mesh)
    opt_r = replicate(state.opt_state, mesh)
    key_r = replicate(jnp.asarray(state.key), mesh)

    def run_eval(model_now, step):
        res = evaluate(
            model_now, corpus.val, kind=kind, pad_id=pad_id,
            batch_size=config.batch_size, seq_len=config.seq_len,
            max_batches=config.eval_batches, devices=list(mesh.devices.flat),
            eval_batches=eval_batches, _eval_step=eval_step,
        )
        record = {"kind": "eval", "step": step, "split": "val", **res}
        if main:
            _append(log_path, record)
        return record

    def save(step):
        if main:
            fsync_file(log_path)  # the log is durable up to the checkpoint
            save_checkpoint(
                ckpt_dir, step,
                _host_tree({"model": model_r, "opt_state": opt_r, "key": key_r,
                            "step": np.asarray(step, np.int64)}),
                keep=config.keep,
            )

    delay = float(os.environ.get("SYNCATTN_DEBUG_STEP_DELAY", "0") or 0)  # tests only
    tokens_per_step = config.batch_size * config.seq_len
    bar = _progress(config.steps, state.step, progress and main)
    last_eval = None
    loss = math.nan
    step_time, step_count, first = 0.0, 0, True
    tps = None
    with contextlib.ExitStack() as stack:
        stop = stack.enter_context(_stop_on_signals(stop_on_signal))
        if bar is not None:
            stack.callback(bar.close)
        for s in range(state.step, config.steps):
            t0 = time.perf_counter()
            batch = np.asarray(
                sample_batch(corpus.train, seed=config.seed, step=s,
                             batch_size=config.batch_size, seq_len=config.seq_len),
                dtype=np.int32,
            )
            new_model, new_opt, new_key, metrics = train_step(
                model_r, opt_r, key_r, shard_batch(batch, mesh)
            )
            metrics = {k: _host(v) for k, v in metrics.items()}
            loss = metrics["loss"]
            if not metrics["finite"]:
                good = [r for r in (ckpt_dir.iterdir() if ckpt_dir.is_dir() else [])
                        if r.name.startswith("step_")]
                where = max(good).name if good else "none (no checkpoint was saved yet)"
                raise TrainingDiverged(
                    f"non-finite loss or gradient at step {s + 1} (loss={loss}, "
                    f"grad_norm={metrics['grad_norm']}); training stopped. The "
                    f"last good checkpoint is {where} in {ckpt_dir}. Lower lr (now "
                    f"{config.lr}), raise warmup_steps or set clip_norm, and train into "
                    f"a new --out folder."
                )
            model_r, opt_r, key_r = new_model, new_opt, new_key
            step = s + 1
            if delay:
                time.sleep(delay)
            # throughput: time in the step itself (batch, update, loss to host), not
            # in evals or saves, and not the first step of a session (compilation)
            if first:
                first = False
            else:
                step_time += time.perf_counter() - t0
                step_count += 1
                tps = tokens_per_step * step_count / step_time
            if main and (step % config.log_every == 0 or step == config.steps):
                _append(log_path, {
                    "kind": "train", "step": step, "loss": loss,
                    **metric_from_loss(loss, kind),
                    "lr": float(schedule(s)), "grad_norm": metrics["grad_norm"],
                    "tokens_per_s": tps, "devices": n_dev, "time": time.time(),
                })
                step_time, step_count = 0.0, 0
            if step % config.eval_every == 0 or step == config.steps:
                last_eval = run_eval(model_r, step)
            if step % config.ckpt_every == 0 or step == config.steps:
                save(step)
            if bar is not None:
                post = {"loss": f"{loss:.4f}"}
                post.update({k: f"{v:.3f}" for k, v in metric_from_loss(loss, kind).items()})
                if tps:
                    post["tok/s"] = f"{tps:,.0f}"
                if last_eval is not None:
                    m = "bpc" if kind == "byte" else "ppl"
                    post[f"val_{m}"] = f"{last_eval[m]:.3f}"
                bar.set_postfix(post, refresh=False)
                bar.update(1)
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
    return {
        "step": max(state.step, config.steps),
        "loss": loss,
        "eval": last_eval,
        "resumed_from": resumed_from,
        "params": n_params,
        "devices": n_dev,
        "model": model_r,
    }

"""The run folder around [`syncattn.training.fit`][]'s steps: holding it
([`held_run_folder`][syncattn.training.held_run_folder]), resuming from its latest
checkpoint (`resume`), a host copy of the state to save (`host_tree`) and what a
finished run logged (`logged_end`). Process 0 writes; the others follow its state."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import numpy as np

from ._checkpoint import CheckpointError, restore_checkpoint
from ._files import check_folder_target, clean_stale, records_lock, run_lock
from ._runlog import pending_losses, read_log, truncate_log
from ._sharding import broadcast_from_main, is_main_process
from ._task import Task


__all__ = ["Folder", "State", "held_run_folder", "host_tree", "logged_end", "resume"]


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
            log(
                f"removed what an interrupted process left in {run_dir}: {', '.join(cleaned)}"
            )
        yield run_dir


def host_tree(tree):
    """Every array leaf as a NumPy array on this host (for saving)."""

    def get(x):
        if isinstance(x, jax.Array) and not x.is_fully_addressable:
            x = x.addressable_data(0)
        return np.asarray(x)

    arrays, static = eqx.partition(tree, eqx.is_array)
    return eqx.combine(jax.tree.map(get, arrays), static)


@dataclasses.dataclass(frozen=True)
class Folder:
    """Where a run writes (process 0, `main`, only) and where its messages go."""

    ckpt_dir: Path
    log_path: Path
    main: bool
    log: Callable[[str], None]

    @classmethod
    def create(cls, run_dir: str | Path, log=None) -> Folder:
        """`run_dir`'s (created by process 0); `log` by default prints to stderr."""
        run_dir, main = Path(run_dir), is_main_process()
        if main:
            run_dir.mkdir(parents=True, exist_ok=True)
        log = log or (lambda msg: print(msg, file=sys.stderr))
        return cls(run_dir / "checkpoints", run_dir / "log.jsonl", main, log)


@dataclasses.dataclass
class State:
    model: Any
    opt_state: Any
    key: Any
    step: int


def _restore(folder: Folder, template, restart: bool):
    """The latest readable checkpoint as ``(tree, step, path)``, or ``None`` (none
    saved; or none readable with `restart`, `fit`'s)."""
    try:
        return restore_checkpoint(
            folder.ckpt_dir, template, quarantine=folder.main, log=folder.log
        )
    except CheckpointError:
        if not restart:
            raise
        folder.log(
            f"--restart: no readable checkpoint in {folder.ckpt_dir}; training again "
            "from step 0 (the unreadable ones are kept as corrupt-step_*)."
        )
        return None


def resume(model, program, task: Task, folder: Folder, restart: bool):
    """``(state, resumed_from, pending)``: the state to train from (the latest
    checkpoint, else step 0 with a fresh optimiser and dropout key), the step resumed
    from (``None``: from scratch) and the training losses that the next evaluation
    summarises. ``log.jsonl`` is cut back to the state's step. On several hosts,
    process 0's state is the run's (the others may not see its disk)."""
    opt_state = program.optimizer.init(eqx.filter(model, eqx.is_inexact_array))
    # the dropout key: a raw uint32[2], saved as plain data
    key = jax.random.PRNGKey(program.config.seed + 1)
    state = State(model, opt_state, key, 0)
    template = {"model": model, "opt_state": opt_state, "key": key}
    restored = _restore(folder, {**template, "step": np.asarray(0, np.int64)}, restart)
    resumed_from, pending = None, []
    log_path = folder.log_path
    if restored is not None:
        tree, step, path = restored
        state = State(tree["model"], tree["opt_state"], tree["key"], int(step))
        resumed_from = int(step)
        folder.log(f"resumed from {path} (step {step})")
        if folder.main:
            truncate_log(log_path, step)
            if task.train_summary is not None:
                pending = pending_losses(log_path, int(step))
    elif folder.main and log_path.exists():
        if read_log(log_path):
            folder.log(
                f"{folder.ckpt_dir} holds no checkpoint yet: training from step 0 "
                "(log.jsonl restarts)."
            )
        truncate_log(log_path, 0)
    state_tree = (state.model, state.opt_state, state.key, np.int64(state.step))
    *tree, step = broadcast_from_main(state_tree)
    return State(*tree, int(step)), resumed_from, pending


def logged_end(loop, step: int) -> tuple[float, dict]:
    """A finished run called again: ``(loss, eval)`` as logged (the last training loss,
    ``nan`` without one; the last evaluation, evaluated again if the log lost it)."""
    records = read_log(loop.folder.log_path)
    evals = [r for r in records if r.get("kind") == "eval"]
    trains = [r for r in records if r.get("kind") == "train"]
    loss = trains[-1]["loss"] if trains else math.nan
    if evals:
        return loss, evals[-1]
    evaluation = loop.task.evaluate(loop.model, loop.devices)
    return loss, {"kind": "eval", "step": step, "split": "val", **evaluation}

"""Training into a run folder ([`syncattn.training.train_run`][]): hold the folder,
write its ``config.json`` on a fresh start (or check it on resume), train with
[`syncattn.training.fit`][] and record each re-plan in ``config.json``."""

from __future__ import annotations

import datetime
import functools
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from ._files import atomic_write, check_folder_target
from ._run import (
    RunConfigMismatch,
    RunFolderError,
    RunSpec,
    _build_model,
    _holds_checkpoints,
    _write_json,
    check_compatible,
    revision,
    validate_run,
)


__all__ = ["train_run"]


def train_run(
    spec: RunSpec,
    corpus,
    out: str | os.PathLike,
    *,
    progress: bool = True,
    devices=None,
    log=None,
    restart: bool = False,
    stop_on_signal: bool = False,
    replan=None,
) -> dict[str, Any]:
    """Train (or resume) the run `spec` in folder `out`; see [`syncattn.training.fit`][].

    First validates the whole run ([`syncattn.training.validate_run`][])
    and the folder (`out` may not be a file): a bad run writes nothing. Then it
    holds ``out/.lock`` for the whole run (a second process into the same folder
    is refused), removes the temporaries a crashed process left behind, and writes
    ``config.json`` and ``revision`` on a fresh start, or, on resume, checks that
    the folder's config matches `spec`. A folder whose config differs but which
    holds no checkpoint (nothing was saved) is taken over, with a message.

    Args:
        restart: when every checkpoint is unreadable, train again from step 0
            (without it, such a run is refused; see [`syncattn.training.fit`][]).
        stop_on_signal: SIGINT / SIGTERM finish the step, save a checkpoint and
            raise [`TrainingInterrupted`][syncattn.training.TrainingInterrupted]
            (the command line turns on; main thread only).
        replan: a ``--minutes`` run's [`syncattn.training.Replanner`][] (see `fit`); each
            re-plan rewrites ``config.json``: ``train.steps``, ``budget.horizons`` and
            one ``budget.replans`` entry. The schedule follows ``spec.budget``'s
            ``horizons`` when it has them (a resumed re-planned run).

    Raises:
        ValueError: an invalid run (see `validate_run`), `out` is a file.
        RunConfigMismatch: the folder holds a different run with checkpoints.
        RunFolderError: the folder's config.json is broken and it holds checkpoints.
        RunBusy: another process trains into `out`.
        TrainingDiverged: NaN/inf loss (the last good checkpoint is kept).
        TrainingInterrupted: a signal stopped the run (with `stop_on_signal`).
        OSError: the file system refused a write (full, read-only, ...); nothing
            partial is left behind.
    """

    import jax

    from .. import models
    from ._loop import fit, held_run_folder

    log = log or (lambda msg: print(msg, file=sys.stderr))
    out = check_folder_target(out, "--out")
    mcfg, tcfg = validate_run(spec, corpus)
    model = _build_model(mcfg, tcfg.seed)
    n_params = models.count_params(model)
    with held_run_folder(out, what="syncattn train", log=log):
        if _taken_over(out, spec, log):
            _write_config(out, spec, n_params, devices)
        log(
            f"{mcfg.attention} model, config {spec.preset!r}: {n_params:,} parameters; "
            f"data {spec.data['name']} ({spec.data['kind']}, vocab {spec.data['vocab_size']}); "
            f"{tcfg.steps} steps of {tcfg.batch_size} x {tcfg.seq_len} tokens on "
            f"{len(devices or jax.devices())} device(s) -> {out}"
        )
        horizons = tuple(tuple(h) for h in (spec.budget or {}).get("horizons") or ())
        return fit(
            model,
            tcfg,
            corpus,
            out,
            devices=devices,
            progress=progress,
            log=log,
            restart=restart,
            stop_on_signal=stop_on_signal,
            horizons=horizons,
            replan=replan,
            on_replan=functools.partial(_record_replan, out),
        )


def _taken_over(out: Path, spec: RunSpec, log) -> bool:
    """Whether process 0 starts `out` afresh (it writes ``config.json``): true when
    `out` holds no ``config.json``, or one of another run but no checkpoint (taken
    over, with a message); false on the other processes and for a run to resume
    (``config.json`` matches `spec`: `check_compatible`)."""
    from ._sharding import is_main_process

    main = is_main_process()
    if not (out / "config.json").exists():
        return main
    try:
        check_compatible(out, spec)
        return False
    except (RunConfigMismatch, RunFolderError) as e:
        if not main or _holds_checkpoints(out):
            raise
        log(
            f"{out} holds no checkpoint, so nothing of the run it described is "
            f"kept; it now holds this run. (Was: {str(e).splitlines()[0]})"
        )
    return True


def _write_config(out: Path, spec: RunSpec, n_params: int, devices) -> None:
    """A fresh run's ``config.json`` (the spec, its parameters, the versions, the
    devices, the time) and ``revision``."""
    import jax

    payload = spec.to_json() | {
        "params": n_params,
        "versions": {
            "syncattn": _version(),
            "jax": jax.__version__,
            "python": platform.python_version(),
        },
        "devices": [str(d) for d in (devices or jax.devices())],
        "written": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    _write_json(out / "config.json", payload)
    atomic_write(out / "revision", revision() + "\n")


def _record_replan(out: Path, record, horizons_now) -> None:
    """`fit`'s `on_replan`: ``config.json`` gets the re-plan's steps, `fit`'s checked
    horizons and its logged record, as they are."""
    raw = json.loads((out / "config.json").read_text())
    b = raw.get("budget") or {}
    b["horizons"] = [list(h) for h in horizons_now]
    b.setdefault("replans", []).append(dict(record))
    raw["train"]["steps"], raw["budget"] = int(record["steps"]), b
    _write_json(out / "config.json", raw)


def _version() -> str:
    from .. import __version__

    return __version__

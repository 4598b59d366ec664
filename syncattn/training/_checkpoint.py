r"""Checkpoints: equinox serialisation behind an atomic temp-then-rename, last k kept.

Layout of ``RUN/checkpoints/``::

    step_00000100/state.eqx   the leaves of (model, optimiser state, step, PRNG key)
    step_00000100/meta.json   {"step", "bytes", "sha256", "format"}

A checkpoint is written to ``.tmp-step_...`` in the same folder, flushed to disk
(``fsync``), and only then renamed to ``step_...``: a crash at any moment leaves
either the complete checkpoint or none. On restore, a checkpoint whose
``meta.json`` is missing, whose size or SHA-256 disagrees, or which fails to
deserialise is reported (with the reason) and the next older one is tried; when
training, the bad folder is renamed ``corrupt-step_...`` so that it is kept for
inspection but never picked again.

The leaves are written by `equinox.tree_serialise_leaves` (NumPy ``.npy`` records),
so every array, the optimiser's moments and counters and the raw ``uint32`` key,
round-trips bit for bit.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import equinox as eqx


__all__ = [
    "save_checkpoint",
    "restore_checkpoint",
    "list_checkpoints",
    "CheckpointError",
]

_NAME = re.compile(r"^step_(\d{8,})$")
_FORMAT = 1


class CheckpointError(RuntimeError):
    """No readable checkpoint where one was expected."""


def _name(step: int) -> str:
    return f"step_{int(step):08d}"


def list_checkpoints(directory: str | Path) -> list[tuple[int, Path]]:
    """The ``(step, folder)`` pairs of the complete-looking checkpoints, newest first."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    found = []
    for p in directory.iterdir():
        m = _NAME.match(p.name)
        if m and p.is_dir():
            found.append((int(m.group(1)), p))
    return sorted(found, reverse=True)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_checkpoint(directory: str | Path, step: int, state: Any, *, keep: int) -> Path:
    """Write `state` (a pytree of arrays) as checkpoint `step`; keep the newest `keep`.

    Atomic: written to a temporary folder, fsynced, then renamed. An existing
    checkpoint of the same step is replaced.

    Args:
        directory: the ``checkpoints/`` folder (created if missing).
        step: the number of updates the state holds.
        state: the pytree to save (non-array leaves are skipped by equinox and come
            from the template on restore).
        keep: how many checkpoints to keep (older ones are deleted), >= 1.

    Returns:
        The checkpoint's folder.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1; got {keep}.")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    final = directory / _name(step)
    tmp = directory / f".tmp-{_name(step)}-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    blob = tmp / "state.eqx"
    with blob.open("wb") as f:
        eqx.tree_serialise_leaves(f, state)
        f.flush()
        os.fsync(f.fileno())
    meta = {
        "step": int(step),
        "bytes": blob.stat().st_size,
        "sha256": _sha256(blob),
        "format": _FORMAT,
    }
    with (tmp / "meta.json").open("w") as f:
        json.dump(meta, f)
        f.flush()
        os.fsync(f.fileno())
    _fsync_dir(tmp)
    if final.exists():
        old = directory / f".old-{final.name}-{os.getpid()}"
        final.rename(old)
        tmp.rename(final)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(final)
    _fsync_dir(directory)
    for _, path in list_checkpoints(directory)[keep:]:
        shutil.rmtree(path, ignore_errors=True)
    return final


def _check(path: Path) -> dict:
    meta_path = path / "meta.json"
    blob = path / "state.eqx"
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise CheckpointError("meta.json is missing") from None
    except (OSError, ValueError) as e:
        raise CheckpointError(f"meta.json is unreadable ({e})") from None
    if not blob.is_file():
        raise CheckpointError("state.eqx is missing")
    size = blob.stat().st_size
    if size != meta.get("bytes"):
        raise CheckpointError(
            f"state.eqx has {size} bytes, meta.json says {meta.get('bytes')} (truncated?)"
        )
    if _sha256(blob) != meta.get("sha256"):
        raise CheckpointError("state.eqx fails its SHA-256 check (corrupted)")
    return meta


def restore_checkpoint(
    directory: str | Path, template: Any, *, quarantine: bool = False, log=None
) -> tuple[Any, int, Path] | None:
    """Load the newest readable checkpoint of `directory` into the structure of `template`.

    A bad checkpoint (missing or inconsistent ``meta.json``, wrong size, SHA-256
    mismatch, or a deserialisation error such as a shape change) is reported
    through `log` (default: stderr) with its reason, and the next older one is
    tried.

    Args:
        directory: the ``checkpoints/`` folder.
        template: a pytree with the same structure, shapes and dtypes as the saved one.
        quarantine: rename a bad checkpoint to ``corrupt-step_...`` (training does
            this, so that the bad folder is never chosen again).
        log: a function of one string for the messages.

    Returns:
        ``(state, step, folder)``, or ``None`` when the folder holds no checkpoint.

    Raises:
        CheckpointError: if checkpoints exist but none is readable.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    found = list_checkpoints(directory)
    if not found:
        return None
    reasons = []
    for i, (step, path) in enumerate(found):
        try:
            meta = _check(path)
            if int(meta.get("step", -1)) != step:
                raise CheckpointError(f"meta.json says step {meta.get('step')}")
            with (path / "state.eqx").open("rb") as f:
                state = eqx.tree_deserialise_leaves(f, template)
        except Exception as e:  # noqa: BLE001 - any failure means: try an older one
            reason = str(e) if isinstance(e, CheckpointError) else f"{type(e).__name__}: {e}"
            reasons.append(f"{path.name}: {reason}")
            nxt = found[i + 1][1].name if i + 1 < len(found) else None
            msg = f"checkpoint {path} is unreadable: {reason}. "
            msg += f"Falling back to {nxt}." if nxt else "No older checkpoint is left."
            if quarantine:
                bad = path.with_name(f"corrupt-{path.name}")
                if bad.exists():
                    shutil.rmtree(bad, ignore_errors=True)
                path.rename(bad)
                msg += f" (kept as {bad.name})"
            log(msg)
            continue
        return state, step, path
    raise CheckpointError(
        f"no readable checkpoint in {directory}: " + "; ".join(reasons)
        + ". Delete the folder to start afresh, or train into a new --out folder."
    )

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
inspection but never picked again. When every checkpoint has been set aside,
restoring raises rather than returning "nothing to resume": a run restarts from
step 0 only when asked (``syncattn train --restart``). A write that fails (a full
disk) removes its temporary folder; the temporaries of a killed process are
removed by the next training run (`syncattn.training._files.clean_stale`).

The leaves are written by `equinox.tree_serialise_leaves` (NumPy ``.npy`` records),
so every array, the optimiser's moments and counters and the raw ``uint32`` key,
round-trips bit for bit.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import equinox as eqx

from ._files import fsync_dir as _fsync_dir, temp_path


__all__ = [
    "save_checkpoint",
    "restore_checkpoint",
    "list_checkpoints",
    "list_quarantined",
    "CheckpointError",
]

_NAME = re.compile(r"^step_(\d{8,})$")
_FORMAT = 1


class CheckpointError(RuntimeError):
    """No readable checkpoint where one was expected (command-line exit status 4)."""

    exit_code = 4


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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def save_checkpoint(directory: str | Path, step: int, state: Any, *, keep: int) -> Path:
    """Write `state` (a pytree of arrays) as checkpoint `step`; keep the newest `keep`.

    Atomic: written to a temporary folder, fsynced, then renamed. An existing
    checkpoint of the same step is replaced. If the write fails (a full disk, a
    signal), the temporary folder is removed and the error, with a note naming the
    newest complete checkpoint, propagates; the earlier checkpoints are untouched.

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
    tmp = temp_path(final)
    try:
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
            try:
                tmp.rename(final)
            except BaseException:
                old.rename(final)
                raise
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(final)
    except BaseException as e:
        os_err = _os_error_in(e)
        if os_err is not None and os_err.errno is None:
            os_err = _short_write(os_err, directory)
        shutil.rmtree(tmp, ignore_errors=True)
        if os_err is None:
            raise
        if os_err.filename is None:
            os_err.filename = str(final)
        prev = [p.name for s_, p in list_checkpoints(directory) if s_ != step]
        os_err.add_note(
            f"while writing checkpoint {final.name} in {directory}: its partial "
            "files were removed; the newest complete checkpoint is "
            f"{prev[0] if prev else 'none (nothing was saved yet)'}."
        )
        if os_err is e:
            raise
        # equinox wraps it in a TreePathError naming the leaf; NumPy's short write
        # has no errno (see _short_write)
        raise os_err from None
    _fsync_dir(directory)
    for _, path in list_checkpoints(directory)[keep:]:
        shutil.rmtree(path, ignore_errors=True)
    return final


def _os_error_in(err: BaseException) -> OSError | None:
    """`err` if it is an OSError, else the first OSError among its causes."""
    seen = 0
    while err is not None and seen < 16:
        if isinstance(err, OSError):
            return err
        err, seen = err.__cause__ or err.__context__, seen + 1
    return None


def _short_write(err: OSError, directory: Path) -> OSError:
    """NumPy reports a short write (``"4096 requested and 3741 written"``) without an
    errno; with under 1 MiB left on the disk it is ENOSPC, else EIO."""
    try:
        free = shutil.disk_usage(directory).free
    except OSError:  # pragma: no cover
        free = None
    code = errno.ENOSPC if free is not None and free < 2**20 else errno.EIO
    new = OSError(code, os.strerror(code))
    new.add_note(f"(a short write: {err})")
    new.__cause__ = err
    return new


def list_quarantined(directory: str | Path) -> list[Path]:
    """The ``corrupt-step_*`` folders that training set aside as unreadable, newest first."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(
        (p for p in directory.iterdir() if p.name.startswith("corrupt-step_")), reverse=True
    )


_RESTART_HINT = (
    "To train this run again from step 0 in the same folder, repeat its `syncattn "
    "train` command with --restart (the unreadable checkpoints stay, as "
    "corrupt-step_*); or train into a new --out folder."
)


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
        CheckpointError: if checkpoints exist but none is readable, or if none is
            left but earlier ones were quarantined (``corrupt-step_*``): a run never
            restarts from step 0 silently.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr))
    found = list_checkpoints(directory)
    if not found:
        bad = list_quarantined(directory)
        if bad:
            raise CheckpointError(
                f"every checkpoint in {directory} is unreadable (set aside earlier as "
                f"{', '.join(p.name for p in bad)}); there is nothing to resume from. "
                + _RESTART_HINT
            )
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
        + ". " + _RESTART_HINT
    )

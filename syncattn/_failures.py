"""How a command fails: one message and one documented exit status per error, no traceback.

A command body runs under `run_command`. Each
error becomes one line (or a few) on stderr that names the file or the argument
and says what to do, and an exit status:

====  ==================================================================
0     success
1     an unexpected error (a bug: rerun with ``--debug`` and report it), or out of memory
2     bad input: an argument, an override, the data, a run folder holding another run,
      a broken ``config.json``
3     training stopped on a NaN/inf loss (the last good checkpoint is kept)
4     no readable checkpoint (``syncattn train --restart`` starts the run again)
5     the run folder is in use by another training process
6     the file system refused: disk full, read-only, permission denied, a file where a
      folder is needed, ...
130   SIGINT (Ctrl-C): training saved a checkpoint of the last step first
141   the output pipe closed (``syncattn sample ... | head``); no message
143   SIGTERM: like SIGINT
====  ==================================================================

Errors that carry an ``exit_code`` attribute (the training errors) choose their
own status. ``--debug`` or the environment variable ``SYNCATTN_DEBUG=1`` re-raises
instead, with the full traceback. This module imports nothing heavy (the CLI's
``--help`` stays fast).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable


__all__ = ["EXIT_CODES", "run_command", "describe", "debug_requested"]

EXIT_CODES = {
    0: "success",
    1: "unexpected error (a bug), or out of memory",
    2: "bad input or configuration",
    3: "training diverged (NaN/inf loss)",
    4: "no readable checkpoint",
    5: "run folder in use by another process",
    6: "file-system error",
    130: "interrupted by SIGINT (Ctrl-C)",
    141: "output pipe closed",
    143: "interrupted by SIGTERM",
}

_OS_HINTS = {
    errno.ENOSPC: (
        "The disk is full. Free some space (or use a folder on another disk) and run "
        "the same command again: nothing complete was lost, and training resumes from "
        "its newest checkpoint."
    ),
    errno.EROFS: (
        "The file system is read-only. Train into a writable --out folder; `eval` and "
        "`sample` record into the run folder, so copy it somewhere writable first."
    ),
    errno.EACCES: "Permission denied: check the owner and permissions of that path, or use another folder.",
    errno.EPERM: "Operation not permitted: check the owner and permissions of that path, or use another folder.",
    errno.ENOTDIR: "A part of that path is a file where a folder is needed: choose another path.",
    errno.EEXIST: "That path already exists (as a file?): choose another path.",
    errno.EISDIR: "That path is a folder where a file is needed: choose another path.",
    errno.ENOENT: "It does not exist (moved or deleted while the command ran?).",
    errno.EIO: "The disk (or network file system) failed to read or write: check it, then run the command again.",
}
if hasattr(errno, "EDQUOT"):
    _OS_HINTS[errno.EDQUOT] = _OS_HINTS[errno.ENOSPC].replace("The disk is full", "The disk quota is used up")


def debug_requested(flag: bool = False) -> bool:
    """``--debug`` was given, or ``SYNCATTN_DEBUG`` is set to anything but ``""``/``0``."""
    return bool(flag) or os.environ.get("SYNCATTN_DEBUG", "") not in ("", "0")


def _with_notes(err: BaseException) -> str:
    notes = [str(n) for n in getattr(err, "__notes__", ())]
    return "\n  ".join([str(err), *notes])


def describe(err: BaseException, cmd: str) -> tuple[int, str]:
    """``(exit status, message)`` for an error raised by command `cmd`."""
    prefix = f"syncattn {cmd}: "
    if isinstance(err, KeyboardInterrupt):
        return 130, prefix + (
            "interrupted (Ctrl-C). A training run resumes from its newest checkpoint "
            "with the same command."
        )
    code = getattr(err, "exit_code", None)
    if isinstance(code, int) and not isinstance(code, bool):
        return code, prefix + _with_notes(err)
    if isinstance(err, OSError) and err.errno is not None:
        name = errno.errorcode.get(err.errno, f"errno {err.errno}")
        where = "".join(f": {f}" for f in (err.filename, err.filename2) if f is not None)
        lines = [f"{prefix}{err.strerror or err} ({name}){where}."]
        lines += [str(n) for n in getattr(err, "__notes__", ())]
        lines.append(_OS_HINTS.get(
            err.errno, "Check that path and the disk, then run the same command again."))
        return 6, "\n  ".join(lines)
    if isinstance(err, (ValueError, TypeError, OSError)):  # OSError here: no errno, our message
        return 2, prefix + _with_notes(err)
    text = str(err)
    if isinstance(err, MemoryError) or "RESOURCE_EXHAUSTED" in text:
        first = text.strip().splitlines()[0] if text.strip() else type(err).__name__
        return 1, prefix + (
            f"out of memory ({first}). Lower batch_size or seq_len, use a smaller model "
            "(--config), or sample fewer tokens (--length)."
        )
    return 1, prefix + (
        f"unexpected error {type(err).__name__}: {text}\n  This is a bug: run the command "
        "again with --debug (or SYNCATTN_DEBUG=1) for the traceback, and report it."
    )


def _quiet_stdout() -> None:
    """After a broken pipe (``syncattn sample ... | head``): send the rest of stdout
    nowhere, so that Python's exit flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


def run_command(cmd: str, body: Callable[[], int | None], *, debug: bool = False) -> int:
    """Run ``body()`` and return its exit status; map any error to its message and status.

    With `debug` (or ``SYNCATTN_DEBUG=1``) an error propagates with its traceback.
    ``SystemExit`` always propagates.
    """
    try:
        return int(body() or 0)
    except SystemExit:
        raise
    except BaseException as err:  # noqa: BLE001 - every error gets its message
        if isinstance(err, BrokenPipeError):
            _quiet_stdout()
            return 141  # 128 + SIGPIPE, what a shell reports for a closed pipe
        if debug_requested(debug):
            raise
        code, message = describe(err, cmd)
        try:
            print(message, file=sys.stderr)
        except OSError:  # pragma: no cover - stderr gone too
            pass
        return code

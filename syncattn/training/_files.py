r"""Run-folder file I/O: atomic writes, whole-line appends, stale temporaries, the run lock.

Every file of a run folder is written by one of three means, so that a crash, a
full disk or a signal at any moment leaves either the old content or the new one,
never a mixture:

* `atomic_write`: the bytes go to a
  temporary file ``.tmp-PID-RANDOM-NAME`` beside the target, are flushed and
  ``fsync``-ed, and the temporary is renamed onto the target (``os.replace`` is
  atomic on POSIX). If anything fails, the temporary is removed before the error
  propagates.
* `append_line`: one line appended to a
  log; a failed write (``ENOSPC``) truncates the file back to its previous length,
  and a torn last line left by a killed process is cut before the next append.
* checkpoints: a temporary folder renamed whole (``_checkpoint.py``), using the
  same naming, so that `clean_stale` finds
  the leftovers of a crashed process.

A run folder is held by one training process at a time through an OS lock
(``fcntl.flock`` via the `filelock` library) on ``RUN/.lock``: the kernel drops it
when the holder dies, so the file left behind by a killed process does not block.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
from pathlib import Path

import filelock


__all__ = [
    "RunBusy",
    "TMP_PREFIX",
    "atomic_write",
    "append_line",
    "atomic_save",
    "check_folder_target",
    "clean_stale",
    "fsync_file",
    "run_lock",
]

TMP_PREFIX = ".tmp-"
LOCK_NAME = ".lock"
RECORDS_LOCK_NAME = ".records.lock"


class RunBusy(RuntimeError):
    """Another process holds the run folder's lock (another ``syncattn train`` into it)."""

    exit_code = 5


def temp_path(target: Path) -> Path:
    """A fresh temporary name beside `target`: ``.tmp-PID-HEX-NAME`` (the suffix kept)."""
    return target.with_name(f"{TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}-{target.name}")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def fsync_dir(path: Path) -> None:
    """``fsync`` a folder, so that a rename in it is durable (best effort)."""
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


def atomic_write(path: str | os.PathLike, data: str | bytes) -> Path:
    """Replace `path`'s content by `data` atomically (temp file, fsync, rename).

    A failure at any point (a full disk, a read-only file system, a signal) leaves
    the previous content of `path` (or no file) and no temporary file.
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    tmp = temp_path(path)
    try:
        with open(tmp, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        _remove(tmp)
        _name_file(e, path)
        raise
    fsync_dir(path.parent)
    return path


def _name_file(err: BaseException, path) -> None:
    """Give an OSError raised by a write on an open file (no file name) the target's name."""
    if isinstance(err, OSError) and err.filename is None:
        err.filename = str(path)


def atomic_save(path: str | os.PathLike, save) -> Path:
    """``save(tmp)`` writes a file at the temporary path `tmp`; it is then renamed onto
    `path` (for writers that take a file name, e.g. ``matplotlib.Figure.savefig``)."""
    path = Path(path)
    tmp = temp_path(path)
    try:
        save(tmp)
        fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException as e:
        _remove(tmp)
        _name_file(e, path)
        raise
    return path


def fsync_file(path: str | os.PathLike) -> None:
    """Flush a file's data to disk (no-op if it does not exist)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def append_line(path: str | os.PathLike, line: str) -> None:
    """Append ``line + "\\n"`` to `path` whole or not at all.

    A torn last line (no final newline: a process killed mid-write) is cut off
    first; if the write fails (a full disk), the file is truncated back to its
    previous length before the error propagates.
    """
    raw = (line.rstrip("\n") + "\n").encode("utf-8")
    with open(path, "ab+") as f:
        size = f.seek(0, os.SEEK_END)
        if size:
            f.seek(size - 1)
            if f.read(1) != b"\n":
                size = _last_newline(f, size)
                f.truncate(size)
        f.seek(size)
        try:
            f.write(raw)
            f.flush()
        except BaseException as e:
            with contextlib.suppress(OSError):
                f.truncate(size)
            _name_file(e, path)
            raise


def _last_newline(f, size: int) -> int:
    """The length of the file up to and including its last newline (0 if none)."""
    pos = size
    while pos > 0:
        start = max(0, pos - (1 << 16))
        f.seek(start)
        block = f.read(pos - start)
        i = block.rfind(b"\n")
        if i >= 0:
            return start + i + 1
        pos = start
    return 0


def clean_stale(folder: str | os.PathLike) -> list[str]:
    """Remove the temporaries a crashed process left in `folder` (one level).

    ``.tmp-*`` files and folders are deleted. A checkpoint parked as
    ``.old-step_N-PID`` while its replacement was renamed in is put back as
    ``step_N`` when no ``step_N`` exists (the crash came between the two renames),
    and deleted otherwise. Call it only while holding the run lock.

    Returns:
        The names removed or restored (for the log).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    done = []
    for p in sorted(folder.iterdir()):
        if p.name.startswith(TMP_PREFIX):
            _remove(p)
            done.append(p.name)
        elif p.name.startswith(".old-step_"):
            final = folder / p.name[len(".old-"):].rsplit("-", 1)[0]
            if not final.exists():
                p.rename(final)
                done.append(f"{p.name} -> {final.name}")
            else:
                _remove(p)
                done.append(p.name)
    return done


def check_folder_target(path: str | os.PathLike, what: str) -> Path:
    """`path` as a folder to write into: it may be missing (it is created), but not a file.

    Raises:
        ValueError: ``"{what} PATH is a file, not a folder ..."``.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(
            f"{what} {path} is a file, not a folder; pass a folder (it is created if "
            "missing)."
        )
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"{what} {path}: {parent} is a file, not a folder.")
            break
    return path


@contextlib.contextmanager
def run_lock(run_dir: str | os.PathLike, *, what: str = "syncattn train"):
    """Hold ``run_dir/.lock`` exclusively for the duration of the block.

    Raises:
        RunBusy: another process holds it (the message names the folder).
        OSError: the lock file cannot be created (read-only or full file system).
    """
    run_dir = Path(run_dir)
    lock = filelock.FileLock(str(run_dir / LOCK_NAME), timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise RunBusy(
            f"{run_dir} is in use by another process ({what} holds {run_dir / LOCK_NAME}). "
            "Wait for it to finish, or train into another --out folder."
        ) from None
    try:
        yield lock
    finally:
        lock.release()


@contextlib.contextmanager
def records_lock(run_dir: str | os.PathLike, timeout: float = 60.0):
    """A short lock for read-modify-write of ``eval.json`` / ``samples.txt``: concurrent
    ``syncattn eval`` or ``sample`` runs wait for each other instead of losing a record."""
    lock = filelock.FileLock(str(Path(run_dir) / RECORDS_LOCK_NAME), timeout=timeout)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise OSError(
            errno.EBUSY, "another process has held this lock for a minute",
            str(Path(run_dir) / RECORDS_LOCK_NAME),
        ) from None
    try:
        yield
    finally:
        lock.release()

"""Writing an app's results (a leaf below studies/ and experiments/): JSON, CSV, figures, progress.

Nothing here is mathematics; both kinds of app (studies and experiments) write
their folders through these, so their files look alike:

* `to_jsonable`, `write_json`, `write_csv`: NumPy and JAX values to plain JSON
  (non-finite floats become ``null``) and equal-length columns to CSV;
* `progress`: a ``tqdm`` bar on stderr, or the bare iterable;
* `revision`: the git revision of the code (recorded in every run and app folder);
* `new_figure`, `save_figure`: Matplotlib's object API on the Agg canvas (no
  pyplot, no global backend), PNG at 100 dpi.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np


__all__ = [
    "revision","new_figure", "progress", "save_figure", "to_jsonable", "write_csv", "write_json"]


def to_jsonable(obj: Any) -> Any:
    """Convert NumPy/JAX scalars and arrays, tuples and dataclasses to plain JSON types.

    Non-finite floats become ``None`` (JSON has no NaN/inf).
    """
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = dataclasses.asdict(obj)
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (str, bool)) or obj is None:
        return obj
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if hasattr(obj, "__array__"):
        arr = np.asarray(obj)
        if arr.dtype == bool:
            return arr.tolist()
        if arr.ndim == 0:
            return to_jsonable(arr.item())
        return [to_jsonable(v) for v in arr]
    raise TypeError(f"cannot write {type(obj).__name__} to JSON.")


def write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` (after `to_jsonable`) as indented JSON; return the path."""
    path = Path(path)
    path.write_text(json.dumps(to_jsonable(obj), indent=2) + "\n")
    return path


def write_csv(path: str | Path, columns: Mapping[str, Iterable]) -> Path:
    """Write equal-length columns as a CSV file with a header row; return the path.

    Raises:
        ValueError: if the columns have different lengths.
    """
    cols = {k: np.asarray(v).reshape(-1) for k, v in columns.items()}
    lengths = {k: len(v) for k, v in cols.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns must have equal lengths; got {lengths}.")
    path = Path(path)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(cols))
        for row in zip(*cols.values(), strict=True):
            w.writerow([_fmt(v) for v in row])
    return path


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.bool_, bool)):
        return str(bool(v))
    return str(v.item() if hasattr(v, "item") else v)


def progress(
    iterable: Iterable, *, desc: str, total: int | None = None, enabled: bool = True
):
    """``tqdm`` progress bar on stderr (a plain iterator when ``enabled`` is false)."""
    if not enabled:
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, leave=False, dynamic_ncols=True)


def new_figure(
    ncols: int = 1, nrows: int = 1, *, width: float = 4.6, height: float = 3.6
):
    """A Matplotlib figure on the Agg canvas (no pyplot, no global backend change).

    Returns:
        ``(fig, axes)`` with ``axes`` a flat list of ``nrows * ncols`` axes.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def save_figure(fig, path: str | Path, *, dpi: int = 100) -> Path:
    """Save ``fig`` as a PNG at ``dpi`` (100 keeps committed images small)."""
    path = Path(path)
    fig.savefig(path, dpi=dpi)
    return path


def revision() -> str:
    """The git revision of the installed code (``+dirty`` with local changes)."""
    from . import __version__  # the package root: read at call time

    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
            timeout=10, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()
        return f"{rev}{'+dirty' if dirty else ''}"
    except (OSError, subprocess.SubprocessError):
        return f"syncattn {__version__} (not a git checkout)"

r"""Shared plumbing for the studies: configs, output folders, progress, plots, intervals.

Nothing here is mathematics of the flows (that lives in the foundation modules);
it is the bookkeeping every study needs:

* `make_outdir` creates the output folder (default
  ``syncattn-study-NAME-YYYYmmdd-HHMMSS`` in the working directory);
* `write_config`, `write_json`, `write_csv` write the config
  and the results (NumPy and JAX values are converted to plain JSON);
* `progress` wraps ``tqdm`` (to stderr; off when ``enabled=False``);
* `new_figure` / `save_figure` draw with Matplotlib's object API on
  the Agg canvas, so no global backend is touched and no display is needed;
* ``clopper_pearson`` and ``wilson`` (binomial confidence intervals) live in
  [`syncattn.stats`][] and are re-exported here;
* `fit_exponential_rate` fits $\log p = a - \lambda d$;
* `prng_key` makes the studies' JAX keys.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import platform
import warnings
from pathlib import Path
from typing import Any

from .._outputs import (
    new_figure as new_figure,
    progress as progress,
    revision,
    save_figure as save_figure,
    to_jsonable as to_jsonable,
    write_csv as write_csv,
    write_json as write_json,
)
from ..stats import (
    clopper_pearson as clopper_pearson,
    exponential_rate_fit as exponential_rate_fit,
    wilson as wilson,
)


__all__ = [
    "SIZES",
    "DefaultSize",
    "at_size",
    "default_outdir",
    "finished_run",
    "make_outdir",
    "write_config",
    "write_json",
    "write_csv",
    "progress",
    "new_figure",
    "save_figure",
    "dim_ticks",
    "plot_counts",
    "clopper_pearson",
    "wilson",
    "fit_exponential_rate",
    "to_jsonable",
    "prng_key",
]

SIZES = ("smoke", "default", "full")
"""The sizes of every app, studies and experiments alike (``small`` is the deprecated
name of ``smoke``)."""


# --------------------------------------------------------------------------- keys


class DefaultSize:
    """Base of every study's ``Config``: its ``default()`` size is the dataclass
    defaults (``smoke()`` and ``full()`` are each study's)."""

    @classmethod
    def default(cls):
        """About a minute on 2 CPU cores."""
        return cls()

    @classmethod
    def small(cls):
        """Deprecated name of ``smoke()`` (the experiments' name of the test size)."""
        warnings.warn(
            f"{cls.__module__}.Config.small() is deprecated; use Config.smoke().",
            DeprecationWarning,
            stacklevel=2,
        )
        return cls.smoke()


def at_size(config_cls, size: str):
    """``config_cls.smoke()`` / ``default()`` / ``full()`` for `size` (``"small"``: the
    deprecated name of ``"smoke"``, with a warning).

    Raises:
        ValueError: another size.
    """
    if size == "small":
        warnings.warn(
            "size 'small' is deprecated; use 'smoke'.", DeprecationWarning, stacklevel=2
        )
        size = "smoke"
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}; got {size!r}.")
    return getattr(config_cls, size)()


def prng_key(seed: int):
    """A JAX PRNG key for ``seed``, with the ``rbg`` implementation.

    Why not the default threefry: on CPU every jitted sampler built on threefry took
    4-8 s to compile here (``rbg``, XLA's RngBitGenerator: about 0.5 s), which
    dominated the small studies. Results are reproducible for a seed on a given
    backend and JAX version.
    """
    import jax

    return jax.random.key(int(seed), impl="rbg")


# --------------------------------------------------------------------------- files


def make_outdir(name: str, out: str | Path | None = None) -> Path:
    """Create and return the output folder of study ``name``.

    Args:
        name: the study name (used in the default folder name).
        out: a folder to use (created with its parents if missing); ``None`` makes a
            fresh ``syncattn-study-NAME-YYYYmmdd-HHMMSS`` in the working directory
            (suffixed ``-2``, ``-3``... if that already exists).

    Returns:
        The folder, as a `pathlib.Path`.
    """
    if out is not None:
        path = Path(out)
        path.mkdir(parents=True, exist_ok=True)
        return path
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(f"syncattn-study-{name}-{stamp}")
    path, k = base, 1
    while path.exists():
        k += 1
        path = Path(f"{base}-{k}")
    path.mkdir(parents=True)
    return path


def default_outdir(name: str, size: str) -> Path:
    """``syncattn-study-NAME-SIZE`` in the working directory: a fixed name (as the
    experiments' ``syncattn-experiment-NAME-SIZE``), so that the same command run
    again finds its finished folder."""
    return Path(f"syncattn-study-{name}-{size}")


def finished_run(outdir: str | Path, study: str, config: Any) -> dict | None:
    """The ``config.json`` of a finished run of this study and config in `outdir`, or
    ``None`` when `outdir` holds no finished run.

    A study writes ``config.json`` last, after its results, so a folder with one
    holds the whole run: a study resumes at the granularity of the whole run
    (finished: reused; interrupted: run again from the start).

    Raises:
        ValueError: `outdir` holds a finished run of another study or another config
            (the message names the differing fields).
    """
    path = Path(outdir) / "config.json"
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(old, dict) or not (Path(outdir) / "results.json").is_file():
        return None
    new = to_jsonable(dataclasses.asdict(config))
    if old.get("study") != study:
        raise ValueError(
            f"{outdir} holds a run of study {old.get('study')!r}, not {study!r}; pass "
            "another --out."
        )
    was = old.get("config") or {}
    diffs = [
        f"{k}: {was.get(k, '<absent>')!r} in the folder, {v!r} now"
        for k, v in new.items()
        if json.dumps(was.get(k)) != json.dumps(v)
    ]
    if diffs:
        raise ValueError(
            f"{outdir} holds a finished {study} run with another config:\n  "
            + "\n  ".join(diffs)
            + "\nRepeat its settings to reuse it, or pass another --out."
        )
    return old


def write_config(config: Any, outdir: str | Path, study: str) -> Path:
    """Write ``config.json``: the study name, its frozen config, and the software versions."""
    import jax

    from .. import __version__

    payload = {
        "study": study,
        "config": dataclasses.asdict(config),
        "revision": revision(),
        "syncattn": __version__,
        "jax": jax.__version__,
        "x64": bool(jax.config.jax_enable_x64),
        "python": platform.python_version(),
        "written": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    return write_json(Path(outdir) / "config.json", payload)


# --------------------------------------------------------------------------- progress and plots


def dim_ticks(ax, dims) -> None:
    """Ticks at every ``d`` of the grid on a linear axis, labelling those that do not crowd."""
    dims = sorted(int(d) for d in dims)
    gap = 0.04 * max(dims[-1] - dims[0], 1)
    labels, last = [], None
    for d in dims:
        show = last is None or d - last >= gap
        labels.append(str(d) if show else "")
        last = d if show else last
    ax.set_xticks(dims, labels)


def plot_counts(ax, x, p, lo, hi, hit, zero, color, label=None, zero_label=None):
    """Monte Carlo frequencies ``p`` with their interval ``[lo, hi]`` where ``hit`` (a
    count > 0), and the upper end ``hi`` as an open triangle where ``zero``."""
    if hit.any():
        ax.errorbar(
            x[hit],
            p[hit],
            yerr=[p[hit] - lo[hit], hi[hit] - p[hit]],
            fmt="o",
            ms=4,
            color=color,
            capsize=2,
            label=label,
        )
    if zero.any():
        ax.plot(x[zero], hi[zero], "v", color=color, ms=6, mfc="none", label=zero_label)


# --------------------------------------------------------------------------- statistics

# the rate fit lives in syncattn.stats (apps hold no maths); the old name stays
fit_exponential_rate = exponential_rate_fit

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
import platform
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

SIZES = ("small", "default", "full")


# --------------------------------------------------------------------------- keys


class DefaultSize:
    """Base of every study's ``Config``: its ``default()`` size is the dataclass
    defaults (``small()`` and ``full()`` are each study's)."""

    @classmethod
    def default(cls):
        """About a minute on 2 CPU cores."""
        return cls()


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

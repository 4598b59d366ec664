r"""Shared plumbing of the experiments: configs, output folders, statistics.

The file writers, plots and progress bars are the studies' ones
(`syncattn.studies._common`), re-exported here; this module adds what the
experiments need on top:

* [`apply_overrides`][syncattn.experiments._common.apply_overrides]: ``key=value``
  strings onto a frozen config, typed by the field annotations (``seeds=0,1,2``,
  ``sizes=1m,5m``, ``data_path=None``) through `syncattn._overrides`, the parser
  ``syncattn train`` and ``syncattn study`` use; an unknown key is an error;
* [`write_experiment_config`][syncattn.experiments._common.write_experiment_config]:
  ``config.json`` with the experiment name, size, config, code revision and versions;
* [`describe_values`][syncattn.experiments._common.describe_values]: mean, sample
  standard deviation and median of per-seed values (the papers' summaries);
* [`TableRecipe`][syncattn.experiments._common.TableRecipe] and
  [`ScalingRecipe`][syncattn.experiments._common.ScalingRecipe]: the training fields
  of experiments 1-3 and 5-7, which the later experiments share with the first;
* [`start_run`][syncattn.experiments._common.start_run]: the output folder, its
  ``config.json`` and the grid, as every ``run`` begins.
"""

from __future__ import annotations

import dataclasses
import datetime
import platform
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import _overrides
from .._outputs import (
    new_figure as new_figure,
    progress as progress,
    revision,
    save_figure as save_figure,
    to_jsonable as to_jsonable,
    write_csv as write_csv,
    write_json as write_json,
)
from ._grid import Grid, cell_overrides


__all__ = [
    "SIZES",
    "ScalingRecipe",
    "TableRecipe",
    "apply_overrides",
    "layered_overrides",
    "default_outdir",
    "describe_values",
    "new_figure",
    "progress",
    "recipe_fields",
    "save_figure",
    "start_run",
    "to_jsonable",
    "write_csv",
    "write_experiment_config",
    "write_json",
]

SIZES = ("smoke", "default", "full")


# --------------------------------------------------------------------------- overrides


def parse_field(key: str, tp: Any, text: str) -> Any:
    """Deprecated alias of `syncattn._overrides.parse_value` (the text of field
    ``key`` with annotation ``tp``)."""
    warnings.warn(
        "syncattn.experiments._common.parse_field is deprecated; use "
        "syncattn._overrides.parse_value.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _overrides.parse_value(key, tp, text)


def apply_overrides(config, items: Iterable[str]):
    """``config`` with the ``key=value`` items applied (`syncattn._overrides.apply`:
    typed by the field annotations, ``seeds=0,1,2``, ``seeds=0-4``, ``sizes=1m,5m``,
    ``data_path=None``).

    Raises:
        ValueError: an item without ``=``, an unknown key (the message suggests the
            closest and lists the fields), a value of the wrong type, a key given twice.
    """
    return _overrides.apply(config, items)


# --------------------------------------------------------------------------- files


def default_outdir(name: str, size: str) -> Path:
    """``syncattn-experiment-NAME-SIZE`` in the working directory.

    A fixed name (no time stamp), so that running the same command again resumes it.
    """
    return Path(f"syncattn-experiment-{name}-{size}")


def write_experiment_config(
    config, out: str | Path, name: str, size: str | None
) -> Path:
    """Write ``config.json``: experiment name, size, config, revision and versions."""
    import jax

    from .. import __version__

    payload = {
        "experiment": name,
        "size": size,
        "config": dataclasses.asdict(config),
        "revision": revision(),
        "syncattn": __version__,
        "jax": jax.__version__,
        "python": platform.python_version(),
        "written": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    return write_json(Path(out) / "config.json", payload)


def start_run(
    config, out, name: str, size: str | None, grid=None, progress: bool = True
):
    """Begin experiment `name`'s ``run``: ``(out, grid, files)``.

    ``out`` is created (as a `Path`), its ``config.json`` written
    ([`write_experiment_config`][syncattn.experiments._common.write_experiment_config]);
    ``grid`` is the one given, else a sequential [`Grid`][syncattn.experiments.Grid]
    with ``progress``; ``files`` is ``{"config": path of config.json}``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    grid = grid or Grid(progress=progress)
    return out, grid, {"config": write_experiment_config(config, out, name, size)}


def layered_overrides(*layers) -> dict[str, Any]:
    """One typed override mapping from layers (recipe, then the cell's settings, then
    the config's ``train``), a later layer's key replacing an earlier one's: an alias of
    [`cell_overrides`][syncattn.experiments._grid.cell_overrides].

    Raises:
        ValueError: an item without ``=``, an unknown key or a wrong type, or a key
            given twice within one layer.
    """
    return cell_overrides(*layers)


# --------------------------------------------------------------------------- recipes

CPU_STEPS = 300
CPU_TRAIN = ("lr=3e-3", "warmup_steps=30", "data.vocab_size=2000")
"""The default (CPU) size's changes to the recipe, our choice: 300 steps of 32 rows is
about 470 k tokens, under one pass over the corpus. With the published lr 5e-4, no
warm-up and 10,000 words every model stays at the unigram level there (validation PPL
about 1,050 for every d and for softmax after 60 steps, measured). A 2,000-word
vocabulary (the output layer is most of the cost), lr 3e-3 and a 30-step warm-up let the
models learn word order within the budget (PPL 87 vs 84 for d = 2 vs softmax at 300 steps,
one seed, measured); ``--full`` keeps the published recipe."""


def recipe_fields(config, recipe) -> dict[str, Any]:
    """``{name: value}`` in `config` of the fields of the dataclass `recipe` (a base of
    ``type(config)``, or any class whose fields `config` has)."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(recipe)}


@dataclasses.dataclass(frozen=True)
class TableRecipe:
    """The training fields of experiment 1 (seed 000's byte-level LMs), which experiments
    2 and 3 share so that their Kuramoto cells are experiment 1's.

    Attributes:
        data: ``"auto"`` (enwik8 when ``data_path`` is given, else the embedded
            corpus) or a corpus name of `syncattn.data.load_corpus`.
        data_path: the enwik8 file (or another corpus file).
        steps: optimiser steps per cell (``None``: the preset's: 5,000 at 1m,
            20,000 at 5m).
        batch_size, seq_len: per step (``None``: the preset's, 32/64 x 256).
        eval_batches: validation batches of the final BPC (``None``: whole split).
        train: further ``key=value`` training or model overrides for every cell
            (default: a 30-step warm-up, as the presets' 200-500 suit their 5,000-20,000
            steps, not 300).
    """

    data: str = "auto"
    data_path: str | None = None
    steps: int | None = 300
    batch_size: int | None = 16
    seq_len: int | None = 128
    eval_batches: int | None = 40
    train: tuple[str, ...] = ("warmup_steps=30", "eval_every=100", "ckpt_every=50")

    @classmethod
    def _smoke(cls, **fields):
        """``cls(**fields)`` trained for seconds: 8 steps of 4 x 32 bytes (the tests)."""
        return cls(
            **{
                "steps": 8,
                "batch_size": 4,
                "seq_len": 32,
                "eval_batches": 2,
                "train": (
                    "eval_every=4",
                    "ckpt_every=4",
                    "log_every=2",
                    "eval_batches=1",
                    "warmup_steps=2",
                ),
            }
            | fields
        )

    @classmethod
    def _full(cls, **fields):
        """``cls(**fields)`` with the presets' own steps, batches and warm-up, evaluated
        on the whole validation split."""
        return cls(
            **{
                "steps": None,
                "batch_size": None,
                "seq_len": None,
                "eval_batches": None,
                "train": (),
            }
            | fields
        )


@dataclasses.dataclass(frozen=True)
class ScalingRecipe:
    """The training fields of experiment 5 (seed 001's LM recipe), which experiments 6
    and 7 share so that they can reuse experiment 5's run folders.

    Attributes:
        data: ``"auto"`` (WikiText-2 / TinyStories from `data_path`, else
            ``"embedded-words"``) or a corpus name.
        data_path: the corpus files.
        steps, batch_size: per training (the paper: 30 epochs of batch 64 on WikiText-2).
        eval_batches: validation batches of the final PPL (``None``: the whole split).
        train: further ``key=value`` overrides for every cell.
    """

    data: str = "auto"
    data_path: str | None = None
    steps: int = 150
    batch_size: int = 32
    eval_batches: int | None = 10
    train: tuple[str, ...] = ()

    @classmethod
    def _smoke(cls, **fields):
        """``cls(**fields)`` trained for seconds: 3 steps of 4 rows (the tests)."""
        return cls(
            **{
                "steps": 3,
                "batch_size": 4,
                "eval_batches": 1,
                "train": (
                    "eval_every=3",
                    "ckpt_every=3",
                    "log_every=1",
                    "eval_batches=1",
                ),
            }
            | fields
        )

    @classmethod
    def _cpu(cls, **fields):
        """``cls(**fields)`` with the default (CPU) size's changes to the recipe
        ([`CPU_STEPS`][syncattn.experiments._common.CPU_STEPS] steps and
        [`CPU_TRAIN`][syncattn.experiments._common.CPU_TRAIN])."""
        return cls(**{"steps": CPU_STEPS, "train": CPU_TRAIN} | fields)

    @classmethod
    def _full(cls, **fields):
        """``cls(**fields)`` with the paper's recipe: about 21,000 steps of batch 64 (30
        epochs of WikiText-2), the whole validation split."""
        return cls(**{"steps": 21_000, "batch_size": 64, "eval_batches": None} | fields)


# --------------------------------------------------------------------------- statistics


def describe_values(values: Sequence[float]) -> dict[str, Any]:
    r"""Summary of per-seed values: [`syncattn.stats.summarize`][] over the finite ones.

    $$\bar x = \frac1n\sum_i x_i,\qquad s = \sqrt{\frac{1}{n-1}\sum_i (x_i-\bar x)^2}$$

    Unlike ``summarize``, it accepts the outcome of a grid as it is: non-finite
    values (diverged trainings) are kept out and counted in ``n_dropped``, ``std``
    is ``None`` for $n < 2$, and every statistic is ``None`` for $n = 0$.
    """
    from .. import stats

    x = np.asarray([float(v) for v in values], dtype=float)
    ok = x[np.isfinite(x)]
    n = int(ok.size)
    out: dict[str, Any] = {"n": n, "n_dropped": int(x.size - n), "values": x.tolist()}
    if n == 0:
        return out | dict.fromkeys(("mean", "std", "median", "min", "max"))
    s = stats.summarize(ok)
    return out | s | {"std": s["std"] if n > 1 else None}


def fmt_mean_std(d: dict[str, Any], digits: int = 3) -> str:
    """``"1.637 ± 0.010"`` (or ``"1.637"`` for one value, ``"-"`` for none)."""
    if d.get("mean") is None:
        return "-"
    if d.get("std") is None:
        return f"{d['mean']:.{digits}f}"
    return f"{d['mean']:.{digits}f} ± {d['std']:.{digits}f}"

"""Experiments 6 and 7 reuse experiment 5's run folders: the recipe and where each cell lives."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ._grid import RESULT, Grid


def recipe(config):
    """The [`scaling.Config`][syncattn.experiments.scaling.Config] whose cells this run shares.

    With ``config.runs_from`` (an experiment-5 output folder) its ``config.json``
    gives the recipe; otherwise the recipe fields of ``config`` itself do.
    """
    from .scaling import Config as ScalingConfig

    fields = {f.name for f in dataclasses.fields(ScalingConfig)}
    if config.runs_from is not None:
        path = Path(config.runs_from) / "config.json"
        if not path.is_file():
            raise FileNotFoundError(
                f"runs_from={config.runs_from!r} holds no config.json; pass the --out folder "
                "of `syncattn experiment scaling`."
            )
        raw = json.loads(path.read_text())["config"]
        kw = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items() if k in fields}
        return ScalingConfig(**kw)
    own = {k: getattr(config, k) for k in ("data", "data_path", "steps", "batch_size",
                                          "eval_batches", "train") if hasattr(config, k)}  # fmt: skip
    return ScalingConfig(**own)


def run_cells(config, cells, out: Path, grid: Grid, desc: str) -> tuple[list[dict], list[Path]]:
    """Results and folders of `cells`: finished ones in ``runs_from/runs`` are reused, the
    others are trained (or resumed) in ``out/runs``."""
    shared = Path(config.runs_from) / "runs" if config.runs_from is not None else None
    folders = [
        shared / c.name if shared is not None and (shared / c.name / RESULT).is_file()
        else out / "runs" / c.name
        for c in cells
    ]  # fmt: skip
    todo = [c for c, f in zip(cells, folders, strict=True) if f.parent == out / "runs"]
    grid.run(todo, out / "runs", desc=desc)
    results = [json.loads((f / RESULT).read_text()) for f in folders]
    return results, folders

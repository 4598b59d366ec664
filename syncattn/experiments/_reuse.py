"""Experiments 6 and 7 reuse experiment 5's run folders: the recipe and where each cell lives.

Their configs are [`ReusedRecipe`][syncattn.experiments._reuse.ReusedRecipe]s: experiment
5's training fields and ``runs_from``; their ``run`` trains its cells through
[`run_cells`][syncattn.experiments._reuse.run_cells].
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ._common import ScalingRecipe, recipe_fields
from ._dosc import LMRecipe
from ._grid import RESULT, Grid


@dataclasses.dataclass(frozen=True)
class ReusedRecipe(ScalingRecipe):
    """Experiment 5's training fields and the experiment-5 folder to take the cells from.

    Attributes:
        runs_from: an experiment-5 output folder whose finished cells are reused
            (``None``: train them here with the recipe fields, which are experiment
            5's: [`ScalingRecipe`][syncattn.experiments._common.ScalingRecipe]).
    """

    runs_from: str | None = None


def recipe(config) -> LMRecipe:
    """The recipe of experiment 5 whose cells this run shares (an
    [`LMRecipe`][syncattn.experiments._dosc.LMRecipe]: what
    [`lm_cell`][syncattn.experiments._dosc.lm_cell] reads).

    With ``config.runs_from`` (an experiment-5 output folder) its ``config.json``
    gives the recipe; otherwise the recipe fields of ``config`` itself do.
    """
    fields = {f.name for f in dataclasses.fields(LMRecipe)}
    if config.runs_from is not None:
        path = Path(config.runs_from) / "config.json"
        if not path.is_file():
            raise FileNotFoundError(
                f"runs_from={config.runs_from!r} holds no config.json; pass the --out folder "
                "of `syncattn experiment scaling`."
            )
        raw = json.loads(path.read_text())["config"]
        kw = {
            k: tuple(v) if isinstance(v, list) else v
            for k, v in raw.items()
            if k in fields
        }
        return LMRecipe(**kw)
    return LMRecipe(**recipe_fields(config, ScalingRecipe))


def run_cells(
    config, cells, out: Path, grid: Grid, desc: str
) -> tuple[list[dict], list[Path]]:
    """Results and folders of `cells`: finished ones in ``runs_from/runs`` are reused, the
    others are trained (or resumed) in ``out/runs``."""
    shared = Path(config.runs_from) / "runs" if config.runs_from is not None else None

    def folder(c):
        if shared is not None and (shared / c.name / RESULT).is_file():
            return shared / c.name
        return out / "runs" / c.name

    folders = [folder(c) for c in cells]
    todo = [c for c, f in zip(cells, folders, strict=True) if f.parent == out / "runs"]
    grid.run(todo, out / "runs", desc=desc)
    results = [json.loads((f / RESULT).read_text()) for f in folders]
    return results, folders

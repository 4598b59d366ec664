"""The ladder's committed results: adopt the finished cells found there, export new ones."""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
from pathlib import Path

from .._common import to_jsonable, write_json
from .._grid import RESULT, TrainCell, read_result
from ._cells import NAME


def committed_dir(config, size: str | None, name: str = NAME) -> Path | None:
    """The folder of committed results: ``config.committed`` as a path; for ``"auto"``
    the checkout's ``results/experiments/NAME/NAME-SIZE`` (`name`: the experiment, the
    ladder by default; only with a size, on the embedded corpus, and when the package
    runs from a checkout); ``None``: none."""
    if config.committed is None:
        return None
    if config.committed != "auto":
        return Path(config.committed)
    root = Path(__file__).resolve().parents[3] / "results" / "experiments"
    if size is None or config.data_path is not None or not root.is_dir():
        return None
    return root / name / f"{name}-{size}"


def _same_cell(cell: TrainCell, result: dict) -> bool:
    mine = json.loads(json.dumps(to_jsonable(dataclasses.asdict(cell))))
    return result.get("cell") == mine


def _adopt(cells, src: Path | None, runs: Path) -> None:
    """Copy the committed result of every unfinished cell of `runs` found in `src`."""
    for c in cells if src is not None else ():
        theirs, mine = src / "runs" / c.name, runs / c.name
        res = read_result(theirs)
        if res is None or (mine / RESULT).is_file():
            continue
        if not _same_cell(c, res):
            warnings.warn(f"{theirs} holds other settings than cell {c.name}: trained here.",
                          stacklevel=3)
            continue
        mine.mkdir(parents=True, exist_ok=True)
        for f in ("log.jsonl", RESULT):  # the result last: it marks the cell finished
            if (theirs / f).is_file():
                shutil.copyfile(theirs / f, mine / f)


def _export(cells, runs: Path, dst: Path) -> None:
    """Write each finished cell's result.json and the eval rows of its log.jsonl to `dst`."""
    for c in cells:
        res = read_result(runs / c.name)
        if res is None or read_result(dst / "runs" / c.name) is not None:
            continue
        folder = dst / "runs" / c.name
        folder.mkdir(parents=True, exist_ok=True)
        log = runs / c.name / "log.jsonl"
        if log.is_file():
            rows = [ln for ln in log.read_text().splitlines() if '"kind": "eval"' in ln]
            (folder / "log.jsonl").write_text("".join(ln + "\n" for ln in rows))
        write_json(folder / RESULT, res)



def fetcher(grid, runs: Path, export_to: Path | None, fn, name: str, *, adopt_from: Path | None):
    """``fetch(cells) -> results``: adopt the cells committed in `adopt_from`, train the
    others into `runs` with the cell function `fn` (one at a time without Ray, so that
    each is exported to `export_to`, when given, as soon as it ends)."""

    def fetch(cells):
        _adopt(cells, adopt_from, runs)
        batches = [cells] if grid.uses_ray else [[c] for c in cells]
        got = []
        for b in batches:
            got += grid.run(b, runs, fn, desc=f"{name} {b[0].name}")
            if export_to is not None:
                _export(b, runs, export_to)
        return got

    return fetch

"""Committed cells: adopt those found in a checked-in folder, export new ones, rebuild from it."""

from __future__ import annotations

import dataclasses
import json
import shutil
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path

from .._common import start_run, to_jsonable, write_experiment_config, write_json
from .._grid import RESULT, read_result
from ._provenance import stamping
from ._result import CellResult


def committed_dir(config, size: str | None, name: str) -> Path | None:
    """The folder of committed results: ``config.committed`` as a path; for ``"auto"``
    the checkout's ``results/experiments/NAME/NAME-SIZE`` (only with a size, on the
    embedded corpus, and when the package runs from a checkout); ``None``: none."""
    if config.committed is None:
        return None
    if config.committed != "auto":
        return Path(config.committed)
    root = Path(__file__).resolve().parents[3] / "results" / "experiments"
    if size is None or config.data_path is not None or not root.is_dir():
        return None
    return root / name / f"{name}-{size}"


def _same_cell(cell, result: Mapping) -> bool:
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
                          stacklevel=4)
            continue
        mine.mkdir(parents=True, exist_ok=True)
        for f in ("log.jsonl", RESULT):  # the result last: it marks the cell finished
            if (theirs / f).is_file():
                shutil.copyfile(theirs / f, mine / f)


def adopt(cells, src: Path | None, runs: Path) -> None:
    """Copy into ``RUNS/CELL`` the committed result (and evaluation rows) of every cell of
    `cells` not finished there that ``SRC/runs/CELL`` holds with the same settings (another
    experiment's committed folder too: the geometry experiment adopts the ladder's cells);
    `src` ``None``: nothing."""
    _adopt(cells, src, runs)


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
    """``fetch(cells) -> [CellResult]``: adopt the cells committed in `adopt_from`, train
    the others into `runs` with the cell function `fn` (one at a time without Ray, so
    that each is exported to `export_to`, when given, as soon as it ends); a cell trained
    here records its ``provenance`` ([`stamping`][syncattn.experiments._protocol.stamping])."""
    fn = stamping(fn)

    def fetch(cells):
        _adopt(cells, adopt_from, runs)
        batches = [cells] if grid.uses_ray else [[c] for c in cells]
        got = []
        for b in batches:
            got += grid.run(b, runs, fn, desc=f"{name} {b[0].name}")
            if export_to is not None:
                _export(b, runs, export_to)
        return [CellResult.of(r) for r in got]

    return fetch


def committed_fetch(src) -> Callable:
    """``fetch(cells) -> [CellResult]`` reading ``SRC/runs/CELL/result.json`` alone
    (missing where absent): a rebuild's."""
    src = Path(src)
    return lambda cells: [CellResult.of(read_result(src / "runs" / c.name)) for c in cells]


def run(config, out, name: str, fn, body: Callable, *, grid=None, progress: bool = True,
        size: str | None = None, dst: Path | None | str = "auto", tables: bool = True) -> dict:
    """An experiment's ``run``: the output folder and its ``config.json``, the fetcher
    (adopting committed cells, training the others with the cell function `fn`,
    exporting them with ``config.export``), then ``body(fetch, out, grid, dst)``, the
    experiment's walk and tables (the files it wrote); with ``export`` and `tables`, the
    settings (first: a partial folder rebuilds) and the tables go to the committed
    folder `dst` too (default: [`committed_dir`][syncattn.experiments._protocol.committed_dir])."""
    out, grid, files = start_run(config, out, name, size, grid, progress)
    dst = committed_dir(config, size, name) if dst == "auto" else dst
    copy = dst is not None and config.export and tables
    if copy:
        dst.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files["config"], dst / "config.json")
    fetch = fetcher(grid, out / "runs", dst if config.export else None, fn, name, adopt_from=dst)
    files |= body(fetch, out, grid, dst)
    if copy:
        for f in files.values():
            shutil.copyfile(f, dst / Path(f).name)
    return files


def rebuild(module, src, out, body: Callable) -> dict:
    """An experiment's ``rebuild``: the ``module.Config`` recorded in ``SRC/config.json``,
    ``body(config, fetch, src, out)`` with a fetch that reads the results in `src` alone
    ([`committed_fetch`][syncattn.experiments._protocol.committed_fetch]), and the
    settings written to ``OUT/config.json``.

    Raises:
        FileNotFoundError: `src` has no ``config.json`` of this experiment.
    """
    from .._from_results import committed_config

    config, raw = committed_config(module, src)
    src, out = Path(src), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {"config": write_experiment_config(config, out, module.NAME, raw.get("size"))}
    return files | body(config, committed_fetch(src), src, out)

r"""An experiment is one object: its name, config type, families, cell function, walk,
tables and plots, with one ``run``, ``rebuild``, ``summary`` and ``adopt`` for all.

The walk lists every cell in order and asks for their results through
``ctx.fetch(cells)``; the same walk serves a training run (``fetch`` adopts committed
cells and trains the others with the cell function) and a rebuild (``fetch`` reads the
committed ``runs/CELL/result.json`` alone), so that a rebuild is the run's tables and
plots from the results, byte for byte:

$$\text{run} = \text{plots} \circ \text{tables} \circ \text{walk}_{\text{train}},\qquad
  \text{rebuild} = \text{plots} \circ \text{tables} \circ \text{walk}_{\text{read}}.$$

An experiment whose ``Config`` has the fields ``committed`` and ``export`` (as
[`ProtocolConfig`][syncattn.experiments._protocol.ProtocolConfig] has) keeps committed
results: committed cells are adopted and, with ``export``, new ones exported; any other
config is run as a plain grid, its cells trained into ``OUT/runs`` in one call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .._common import start_run, write_experiment_config
from .._grid import Grid, train_cell
from ._committed import adopt as _adopt, committed_fetch, run as _protocol_run
from ._sweep import Family


@dataclasses.dataclass(frozen=True)
class Context:
    """What a walk and its tables see of the run (or rebuild) in progress.

    Attributes:
        fetch: ``fetch(cells) -> [result]``: trains (or adopts) the cells, or, in a
            rebuild, reads their committed results (missing where absent).
        out: the output folder (its ``runs/`` holds the run folders of a training run).
        grid: the [`Grid`][syncattn.experiments.Grid] of a training run (``None`` in a
            rebuild).
        committed: the committed folder: the one cells are adopted from and exported to
            in a run (``None``: none), the source in a rebuild.
        rebuilt_from: the source folder of a rebuild, as text (``None`` in a run).
        cell: the experiment's cell function (a walk that trains a cell again, outside
            ``fetch``, passes it to the grid).
    """

    fetch: Callable[[Sequence[Any]], list]
    out: Path
    grid: Grid | None = None
    committed: Path | None = None
    rebuilt_from: str | None = None
    cell: Callable[[Any, Path], dict] = train_cell

    @property
    def rebuilding(self) -> bool:
        """Whether this is a rebuild (nothing may be trained)."""
        return self.rebuilt_from is not None

    @property
    def runs(self) -> Path:
        """``OUT/runs``, the run folders of the cells."""
        return self.out / "runs"


def _no_plots(config, results: dict, out: Path) -> dict[str, Path]:
    return {}


def walk_cells(cells: Callable[[Any], Sequence[Any]]) -> Callable[[Any, Context], tuple]:
    """The walk of an experiment whose cells are known up front: ``cells(config)`` and
    their results, ``(cells, results)``."""

    def walk(config, ctx: Context) -> tuple:
        got = list(cells(config))
        return got, ctx.fetch(got)

    return walk


@dataclasses.dataclass(frozen=True)
class Experiment:
    """One experiment of ``syncattn experiment NAME``.

    Attributes:
        name: its name on the command line, in ``config.json`` and its committed folder
            (``results/experiments/NAME/NAME-SIZE``).
        config: its frozen config class, with ``smoke()``, ``default()`` and ``full()``.
        walk: ``walk(config, ctx) -> walked``: every cell in order, their results from
            ``ctx.fetch`` (a [`Context`][syncattn.experiments._protocol.Context]); anything
            the tables need.
        tables: ``tables(config, walked, ctx) -> (results, files)``: writes
            ``results.json`` (with ``ctx.rebuilt_from``) and the CSV files into ``ctx.out``;
            returns the results written and ``{key: path}``.
        plots: ``plots(config, results, out) -> files``: the PNG files, drawn from the
            results alone.
        cell: the cell function ``cell(cell, folder) -> dict`` that trains one cell (a
            module-level function: Ray sends it by reference).
        families: the model families it compares (for the reader and the tools).
        summary: ``summary(results) -> str``, the text printed after a run.
        rebuildable: whether ``--from-results`` can rebuild it from committed results.
        committed_dir: ``committed_dir(config, size)``, the committed folder of a run
            (``None``: [`committed_dir`][syncattn.experiments._protocol.committed_dir]
            with the name: ``results/experiments/NAME/NAME-SIZE``).
        tables_at: the sizes whose tables an ``export`` run copies into the committed
            folder beside its cells (``None``: every size).
    """

    name: str
    config: type
    walk: Callable[[Any, Context], Any]
    tables: Callable[[Any, Any, Context], tuple[dict, dict[str, Path]]]
    plots: Callable[[Any, dict, Path], dict[str, Path]] = _no_plots
    cell: Callable[[Any, Path], dict] = train_cell
    families: tuple[Family, ...] = ()
    summary: Callable[[dict], str] | None = None
    rebuildable: bool = True
    committed_dir: Callable[[Any, str | None], Path | None] | None = None
    tables_at: tuple[str, ...] | None = None

    def __post_init__(self):
        if not self.name or not self.name.replace("_", "").isalnum():
            raise ValueError(f"name must be letters, digits and '_'; got {self.name!r}.")
        for f in ("smoke", "default", "full"):
            if not callable(getattr(self.config, f, None)):
                raise ValueError(f"config {self.config.__name__} needs a classmethod {f}() "
                                 "(the sizes smoke, default and full).")

    def report(self, config, ctx: Context) -> dict[str, Path]:
        """The walk, its tables and its plots: the files written into ``ctx.out``."""
        results, files = self.tables(config, self.walk(config, ctx), ctx)
        return files | self.plots(config, results, ctx.out)

    def run(self, config, out, *, grid: Grid | None = None, progress: bool = True,
            size: str | None = None) -> dict[str, Path]:
        """Run the experiment into `out` (resuming): ``config.json``, the cells (on the
        protocol: committed ones adopted, new ones exported with ``export``), the tables
        and the plots; returns the files written."""
        if hasattr(config, "committed") and hasattr(config, "export"):

            def body(fetch, out, grid, dst):
                return self.report(config, Context(fetch, out, grid, dst, cell=self.cell))

            dst = "auto" if self.committed_dir is None else self.committed_dir(config, size)
            return _protocol_run(config, out, self.name, self.cell, body, grid=grid,
                                 progress=progress, size=size, dst=dst,
                                 tables=self.tables_at is None or size in self.tables_at)
        out, grid, files = start_run(config, out, self.name, size, grid, progress)

        def fetch(cells):
            return grid.run(list(cells), out / "runs", self.cell, desc=self.name)

        return files | self.report(config, Context(fetch, out, grid, cell=self.cell))

    def rebuild(self, src, out, *, progress: bool = True) -> dict[str, Path]:
        """The tables and plots of the run in `src` (its ``config.json`` and
        ``runs/CELL/result.json``, e.g. a committed folder) rebuilt into `out` from those
        files alone; cells not there are reported missing, nothing is trained.

        Raises:
            FileNotFoundError: `src` has no ``config.json`` of this experiment.
        """
        from .._from_results import read_config

        config, raw = read_config(self.name, self.config, src)
        src, out = Path(src), Path(out)
        out.mkdir(parents=True, exist_ok=True)
        files = {"config": write_experiment_config(config, out, self.name, raw.get("size"))}
        ctx = Context(committed_fetch(src), out, None, src, str(src), self.cell)
        return files | self.report(config, ctx)

    def adopt(self, cells, src: Path | None, runs: Path) -> None:
        """Copy into ``RUNS/CELL`` every cell of `cells` committed in ``SRC/runs/CELL``
        with the same settings ([`adopt`][syncattn.experiments._protocol.adopt])."""
        _adopt(cells, src, runs)

    def make_config(self, size: str = "default"):
        """The config at `size` (``"smoke"``, ``"default"`` or ``"full"``)."""
        if size not in ("smoke", "default", "full"):
            raise ValueError(f"size must be one of smoke, default, full; got {size!r}.")
        return getattr(self.config, size)()

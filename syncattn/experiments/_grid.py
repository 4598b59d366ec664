r"""Grids of independent trainings: one run folder per cell, sequential or through Ray.

An experiment such as seed 000's table is a grid of trainings (model x size x
seed x ...). Each point of the grid is a *cell*: a frozen dataclass with a
``name`` (its folder under the grid's root). A *cell function* ``fn(cell,
folder) -> dict`` trains it into ``folder`` and returns its final metrics;
[`Grid`][syncattn.experiments.Grid] runs the cells and writes each result to
``folder/result.json``.

* A cell whose ``result.json`` exists is finished: its result is read back and it
  is not run again.
* A cell without one is run; the training package resumes it from the latest
  checkpoint of its run folder (a cell interrupted at step 900 of 1000 restarts
  at step 900, not 0).
* ``Grid()`` runs the cells one after another in this process;
  ``Grid(workers=N)`` starts an in-process Ray instance with ``N`` CPUs
  (``ray.init``) and runs up to ``N`` cells at once; ``Grid(address=...)`` joins
  an existing Ray cluster (``ray start --head`` on one machine, ``ray start
  --address=HEAD:6379`` on the others; the code and the data path must exist on
  every node). Every cell is a pure function of its fields, so both paths give
  the same results.

[`TrainCell`][syncattn.experiments.TrainCell] and
[`train_cell`][syncattn.experiments.train_cell] are the cell and function of a
language-model training (``syncattn train`` with the same choices), followed by
a validation evaluation over ``eval_batches`` batches.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._mappings import relieve
from .._outputs import progress, to_jsonable


__all__ = [
    "Grid", "TrainCell", "train_cell", "RESULT", "read_result", "use_compile_cache",
    "cell_overrides",
]

RESULT = "result.json"
"""The file that marks a finished cell (its final metrics)."""

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=+-]*$")


# --------------------------------------------------------------------------- one cell


def cell_overrides(*layers: Iterable[str] | Mapping[str, Any]) -> dict[str, Any]:
    """Typed training overrides ``{"train.lr": 5e-4, "model.d_osc": 8, "data.x": ...}``
    from layers of overrides (``key=value`` text or ``{key: value}``), a later layer's
    key replacing an earlier one's.

    Each layer is resolved to its groups and typed by
    [`run_overrides`][syncattn.training.run_overrides] (the parser of ``syncattn
    train``), so a key given twice within one layer (also as ``lr`` and ``train.lr``)
    is an error;
    the layers are the experiment's own choices stacked in a fixed order (recipe, the
    cell's settings, the config's ``train``), so across layers a repeated key is a
    deliberate refinement.

    Raises:
        ValueError: a malformed item, an unknown key, a wrong type, a key given twice
            within one layer.
    """
    # training imports JAX (heavy): only when cells are built
    from ..training import run_overrides

    merged: dict[str, Any] = {}
    for layer in layers:
        for group, values in run_overrides(layer).items():
            merged |= {f"{group}.{k}": v for k, v in values.items()}
    return merged



@dataclasses.dataclass(frozen=True)
class TrainCell:
    """One language-model training of a grid (the arguments of ``syncattn train``).

    Attributes:
        name: the run folder's name under the grid root (letters, digits, ``._=+-``).
        model: ``"kuramoto"``, ``"oscillator"`` or ``"softmax"``.
        config: the model preset (``"tiny"``, ``"1m"``, ``"5m"``, ``"paper-b-lm"``).
        seed: the training seed (initialisation, data order, dropout).
        data: corpus name (``"embedded"``, ``"enwik8"``, ``"wikitext2"``, ...).
        data_path: file or folder of the corpus (``None`` for the embedded ones).
        steps: optimiser steps (``None``: the preset's).
        overrides: training / model / ``data.`` overrides: typed values keyed
            ``train.FIELD``, ``model.FIELD`` or ``data.OPTION`` (given as ``key=value``
            text or a mapping, they are resolved and typed here, once, by
            [`cell_overrides`][syncattn.experiments._grid.cell_overrides]).
        eval_batches: validation batches of the final evaluation (``None``: the
            whole split).
    """

    name: str
    model: str
    config: str
    seed: int = 0
    data: str = "embedded"
    data_path: str | None = None
    steps: int | None = None
    overrides: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    eval_batches: int | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not _SAFE.match(self.name):
            raise ValueError(
                f"cell name must be a plain folder name (letters, digits, ._=+-); got {self.name!r}."
            )
        object.__setattr__(self, "overrides", cell_overrides(self.overrides))


def train_cell(cell: TrainCell, folder: str | os.PathLike, *, progress: bool = False) -> dict:
    """Train (or resume) ``cell`` into ``folder``; evaluate on the validation split.

    Returns:
        ``{"status": "ok", "step", "params", "train_loss", "val": {"loss", "bpc" |
        "ppl", "tokens"}, "corpus": source}``, or ``{"status": "diverged",
        "error": message}`` when the loss became NaN/inf (a deterministic outcome
        of the cell, recorded rather than retried).
    """
    from ..training import TrainingDiverged, evaluate, make_spec, train_run

    spec, corpus = make_spec(
        cell.model, cell.config, data=cell.data, data_path=cell.data_path,
        steps=cell.steps, seed=cell.seed, overrides=cell.overrides,
    )
    logs: list[str] = []
    try:
        res = train_run(spec, corpus, folder, progress=progress, log=logs.append)
    except TrainingDiverged as e:
        return {"status": "diverged", "error": str(e)}
    train = spec.train
    last = res.get("eval") or {}
    if cell.eval_batches is not None and cell.eval_batches == train.eval_batches and last:
        # the loop's final evaluation is this one (same model, same batches)
        val = {k: last[k] for k in ("loss", "bpc", "ppl", "tokens") if k in last}
    else:
        val = evaluate(
            res["model"], corpus.val, kind=corpus.kind, pad_id=corpus.pad_id,
            batch_size=train.batch_size, seq_len=train.seq_len,
            max_batches=cell.eval_batches, compute_dtype=train.compute_dtype,
        )
    return {
        "status": "ok",
        "step": int(res["step"]),
        "params": int(res["params"]),
        "train_loss": float(res["loss"]),
        "resumed_from": res.get("resumed_from"),
        "val": val,
        "corpus": {"name": corpus.name, "kind": corpus.kind, "source": corpus.source},
    }


def read_result(folder: str | os.PathLike) -> dict | None:
    """The result of a finished cell folder, or ``None`` (missing or unreadable file)."""
    path = Path(folder) / RESULT
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write_result(folder: Path, result: dict) -> None:

    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / (RESULT + ".tmp")
    tmp.write_text(json.dumps(to_jsonable(result), indent=2) + "\n")
    os.replace(tmp, folder / RESULT)


def use_compile_cache(path: str | os.PathLike | None) -> None:
    """Keep JAX's compiled programs in ``path`` (JAX's persistent compilation cache).

    The cells of a grid differ only in their seeds and flags, so most of them
    compile the same programs; with the cache, only the first one pays. This sets
    JAX's global options ``jax_compilation_cache_dir`` and
    ``jax_persistent_cache_min_compile_time_secs = 0``. ``None`` does nothing.
    """
    if path is None:
        return
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    path = str(Path(path).expanduser())
    if jax.config.jax_compilation_cache_dir == path:
        return
    Path(path).mkdir(parents=True, exist_ok=True)
    compilation_cache.reset_cache()
    jax.config.update("jax_compilation_cache_dir", path)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


def _run_one(
    fn: Callable, cell, folder: str, x64: bool | None = None, cache: str | None = None
) -> dict:
    """Run one cell (in this process or a Ray worker) and write its result file."""
    if x64 is not None:  # a Ray worker follows the driver's precision
        import jax

        jax.config.update("jax_enable_x64", bool(x64))
    use_compile_cache(cache)
    folder_p = Path(folder)
    t0 = time.perf_counter()
    result = dict(fn(cell, folder_p))
    result["cell"] = dataclasses.asdict(cell)
    result["wall_s"] = time.perf_counter() - t0
    _write_result(folder_p, result)
    relieve()  # many cells in one process: stay under vm.max_map_count
    return result


def _takes_progress(fn: Callable) -> bool:
    """Whether a cell function takes a ``progress`` keyword (a bar of its training
    steps): `train_cell` and the cell functions built on it."""
    try:
        return "progress" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------- the grid


class Grid:
    """Runs the cells of an experiment: sequentially, or through Ray.

    Args:
        workers: ``1`` (default): sequential, in this process. ``N > 1``: an
            in-process Ray instance with ``N`` CPUs, one cell per CPU.
        address: a Ray cluster to join (``"auto"`` or ``"HOST:PORT"``); the cells
            then run wherever the cluster has a free CPU.
        progress: tqdm bars (cells done; training steps when sequential).
        compile_cache: a folder for JAX's persistent compilation cache, shared by
            the cells (and the Ray workers on this machine); see
            [`use_compile_cache`][syncattn.experiments._grid.use_compile_cache].
            ``None`` (default) leaves JAX's settings alone.

    Raises:
        ImportError: Ray was asked for (``workers > 1`` or ``address``) and is not
            installed (``pip install "syncattn[cluster]"``).
    """

    def __init__(
        self,
        workers: int = 1,
        address: str | None = None,
        progress: bool = True,
        compile_cache: str | os.PathLike | None = None,
    ):
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
            raise ValueError(f"workers must be an int >= 1; got {workers!r}.")
        self.workers, self.address, self.progress = workers, address, bool(progress)
        self.compile_cache = None if compile_cache is None else str(compile_cache)
        if self.uses_ray:
            try:
                import ray  # noqa: F401
            except ImportError:
                raise ImportError(
                    "running cells through Ray (--workers > 1 or --address) needs the "
                    "`cluster` extra: pip install 'syncattn[cluster]' (or pip install ray)."
                ) from None

    @property
    def uses_ray(self) -> bool:
        return self.workers > 1 or self.address is not None

    def __repr__(self) -> str:
        where = (
            f"ray at {self.address}" if self.address else
            f"ray, {self.workers} workers" if self.workers > 1 else "sequential"
        )
        return f"Grid({where})"

    def run(
        self,
        cells: Sequence[Any],
        root: str | os.PathLike,
        fn: Callable[[Any, Path], dict] = train_cell,
        *,
        desc: str = "cells",
    ) -> list[dict]:
        """Run every unfinished cell into ``root/cell.name``; return all results in order.

        Args:
            cells: frozen dataclasses with a unique ``name``.
            root: the folder of the run folders.
            fn: the cell function, a module-level function ``fn(cell, folder) ->
                dict`` (Ray sends it to the workers by reference).
            desc: label of the progress bar.

        Returns:
            One result dict per cell (what ``fn`` returned, plus ``"cell"`` and
            ``"wall_s"``), in the order of ``cells``.

        Raises:
            ValueError: two cells share a name.
        """
        root = Path(root)
        names = [c.name for c in cells]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"cell names must be unique; repeated: {dup}.")
        results: list[dict | None] = [read_result(root / c.name) for c in cells]
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            use_compile_cache(self.compile_cache)
            run = self._run_ray if self.uses_ray else self._run_sequential
            for i, res in run([cells[i] for i in todo], root, fn, desc):
                results[todo[i]] = res
        return results  # type: ignore[return-value]

    def _run_sequential(self, cells, root, fn, desc):

        kwargs = {"progress": True} if self.progress and _takes_progress(fn) else {}
        call = (lambda c, f: fn(c, f, **kwargs)) if kwargs else fn
        for i, cell in enumerate(
            progress(cells, desc=desc, total=len(cells), enabled=self.progress)
        ):
            yield i, _run_one(call, cell, str(root / cell.name), None, self.compile_cache)

    def _run_ray(self, cells, root, fn, desc):
        import jax
        import ray

        started = False
        if not ray.is_initialized():
            if self.address is not None:
                ray.init(address=self.address, log_to_driver=self.progress)
            else:
                # workers find this checkout of syncattn through PYTHONPATH
                here = str(Path(__file__).resolve().parents[2])
                path = os.pathsep.join(
                    p for p in (here, os.environ.get("PYTHONPATH", "")) if p
                )
                ray.init(
                    num_cpus=self.workers, include_dashboard=False,
                    log_to_driver=self.progress,
                    runtime_env={"env_vars": {"PYTHONPATH": path}},
                )
            started = True
        try:
            task = ray.remote(num_cpus=1)(_run_one)
            x64 = bool(jax.config.jax_enable_x64)
            refs = {
                task.remote(fn, cell, str((root / cell.name).resolve()), x64,
                            self.compile_cache): i
                for i, cell in enumerate(cells)
            }
            pending = list(refs)
            bar = None
            if self.progress:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(cells), desc=f"{desc} (ray)", file=sys.stderr)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    yield refs[ref], ray.get(ref)
                    if bar is not None:
                        bar.update(1)
            if bar is not None:
                bar.close()
        finally:
            if started:
                ray.shutdown()

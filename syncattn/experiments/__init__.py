r"""The papers' experiments: ``syncattn experiment NAME [--smoke|--full] [--out DIR] ...``.

Each experiment is one [`Experiment`][syncattn.experiments.Experiment] object (its
module's ``EXPERIMENT``): a name, a frozen ``Config`` dataclass (``smoke()`` runs in
seconds for the tests, ``default()`` fits about 30 minutes of this CPU, ``full()`` is
the paper's size, for a GPU), its families, its cell function, its walk over the cells,
its tables and its plots; its ``run(config, out, *, grid=None, progress=True)`` returns
the files it wrote (``config.json``, ``results.json``, CSV and PNG). The registry
([`experiment`][syncattn.experiments.experiment]) finds the built-in ones by name and
any other one given to [`register`][syncattn.experiments.register]
(docs/experiments.md, "Adding an experiment"). Trainings are cells of a
[`Grid`][syncattn.experiments.Grid], each in its own run folder under
``out/runs/``, so running the same command again skips the finished cells and
resumes the interrupted ones from their checkpoints.

=============  =================================================================
name           what (../shared/EXPERIMENTS.md)
=============  =================================================================
table          seed 000: Kuramoto LM vs RoPE + SwiGLU transformer, val BPC
ablations      seed 000: learned value, no feed-forward, no metric gates (dBPC)
dynamics       seed 000: per-layer local / global order and learned omega
agreement      seed 001: oscillator vs softmax classifier on SVA, failures with CI
scaling        seed 001: oscillator LM vs softmax over d_osc, gap fit C d^-alpha, p sweep
convergence    seed 001 Table 6: flow convergence in trained models, predicted vs measured
linear         beyond: experiment 5 at its largest d with the linear-time layer
kws            seed 001: oscillator vs softmax keyword spotting (synthetic espeak-ng proxy)
robustness     issue 19: noise, mismatch, disorder, settling, bits on trained models
ladder         issue 20: seed 000's table as a compute-matched size ladder (20 N tokens)
dosc_law       issue 20: seed 001's d_osc law at a 20 N budget, each family at its own lr
geometry       issue 29: the Kuramoto gap taken apart (feed-forward, readout, sphere, group)
frustrated     issue 40: frustrated attention vs softmax and Kuramoto, pre-registered (Holm over 17)
=============  =================================================================

Command line: ``--seed N`` (or ``--seeds 0,1,2`` / ``--seeds 0-4``) sets the
seeds, ``--data-path`` the corpus file, ``key=value`` any other config field
(an unknown key is an error), ``--workers N`` runs N cells at once through an
in-process Ray instance and ``--address HOST:PORT`` joins a Ray cluster
(optional extra ``cluster``); without them the cells run one after another.
``--from-results DIR`` trains nothing: it rebuilds the tables and plots into ``--out``
from the results in ``DIR`` alone (committed results, e.g.
``results/experiments/ladder/ladder-default``), for the experiments listed by
[`rebuildable`][syncattn.experiments.rebuildable]. ``replicate=CELL [committed=DIR]``
re-runs one committed cell at today's code and reports the difference
([`replicate`][syncattn.experiments._protocol.replicate]).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
import warnings
from pathlib import Path

from .. import _overrides
from .._commands import parse_command_line, registered_module
from ._grid import (
    RESULT as RESULT,
    Grid as Grid,
    TrainCell as TrainCell,
    train_cell as train_cell,
)
from ._registry import (
    BUILT_IN,
    Experiment as Experiment,
    experiment as experiment,
    names as names,
    register as register,
)


EXPERIMENTS = BUILT_IN
"""Experiment name -> module of `syncattn.experiments` (its ``EXPERIMENT``; imported on
first use)."""

__all__ = ["EXPERIMENTS", "Experiment", "Grid", "TrainCell", "train_cell", "get", "experiment",
           "register", "names", "make_config", "main", "rebuildable"]


def get(name: str):
    """The module of experiment ``name`` (one of [`EXPERIMENTS`][syncattn.experiments.EXPERIMENTS]).

    Raises:
        ValueError: for an unknown name.
    """
    return registered_module(EXPERIMENTS, name, __name__, "experiment")


def make_config(
    name: str,
    size: str = "default",
    overrides=(),
    *,
    seed: int | None = None,
    seeds: str | None = None,
    data_path: str | None = None,
):
    """The config of experiment ``name`` at ``size`` with the command line's choices.

    Args:
        name: the experiment.
        size: ``"smoke"``, ``"default"`` or ``"full"`` (the studies' sizes;
            ``"small"`` is a deprecated name of ``"smoke"``).
        overrides: ``key=value`` strings, typed by the config's fields
            (`syncattn._overrides`, the parser of every command); ``train.KEY=VALUE``
            sets ``KEY=VALUE`` in the config's ``train`` (the training overrides of
            every cell, e.g. ``train.lr=1e-3``, ``train.data.vocab_size=2000``),
            replacing the same key there.
        seed: one seed (``seeds=(seed,)`` for a multi-seed config, else ``seed``).
        seeds: the text of ``--seeds`` (``0,1,2`` or ``0-4``).
        data_path: the corpus file (config field ``data_path``).

    Raises:
        ValueError: unknown size or key (suggesting the closest), a value of the wrong
            type, a key given twice (also ``--seed`` with ``seeds=``), or a seed option
            the config has no field for.
    """
    from ._common import SIZES, apply_overrides

    if size == "small":  # the studies' old name of the test size
        warnings.warn("size 'small' is deprecated; use 'smoke'.", DeprecationWarning,
                      stacklevel=2)
        size = "smoke"
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}; got {size!r}.")
    config = experiment(name).make_config(size)
    fields = {f.name for f in dataclasses.fields(config)}
    items = []
    if seed is not None and seeds is not None:
        raise ValueError("give --seed or --seeds, not both.")
    if seed is not None:
        items.append(("seeds", (seed,)) if "seeds" in fields else ("seed", seed))
    if seeds is not None:
        if "seeds" not in fields:
            raise ValueError(f"experiment {name!r} takes one --seed, not --seeds.")
        items.append(("seeds", seeds))  # the text of --seeds: 0,1,2 or 0-4
    if data_path is not None:
        if "data_path" not in fields:
            raise ValueError(f"experiment {name!r} takes no --data-path.")
        # absolute, so that Ray workers (another working directory) find it too
        items.append(("data_path", str(Path(data_path).expanduser().resolve())))
    # train.KEY=VALUE: one more training override of every cell (appended to `train`)
    nested = [o for o in overrides if isinstance(o, str) and o.strip().startswith("train.")]
    if nested and "train" not in fields:
        raise ValueError(f"experiment {name!r} has no training overrides (train.KEY=VALUE).")
    config = apply_overrides(config, [*items, *(o for o in overrides if o not in nested)])
    if nested:
        from ._grid import cell_overrides

        extra = tuple(o.strip()[len("train."):] for o in nested)
        cell_overrides(extra)  # checked now (keys, types, twice), not at the first cell
        # a key of the config's own `train` is replaced, the others appended
        merged = _overrides.stack(config.train, extra)
        config = dataclasses.replace(config, train=tuple(f"{k}={v}" for k, v in merged.items()))
    return config


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="syncattn experiment",
        description=(
            "Run one of the papers' experiments; write config.json, results.json, CSV "
            "and PNG into --out. Re-running the same command resumes it."
        ),
    )
    p.add_argument("name", choices=names(), help="which experiment")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--smoke", action="store_true", help="seconds: the tests' size")
    size.add_argument("--full", action="store_true", help="the paper's size (GPU)")
    p.add_argument(
        "--out", type=Path,
        help="output folder (default syncattn-experiment-NAME-SIZE; the same folder resumes)",
    )
    seeds = p.add_mutually_exclusive_group()
    seeds.add_argument("--seed", type=int, help="one seed")
    seeds.add_argument("--seeds", help="several seeds: 0,1,2 or 0-4")
    p.add_argument("--data-path", help="corpus file or folder (e.g. the enwik8 file)")
    p.add_argument("--workers", type=int, default=1,
                   help="cells at once through an in-process Ray instance (default 1: sequential)")
    p.add_argument("--address", help="join a Ray cluster (HOST:PORT or auto)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument("--from-results", type=Path, metavar="DIR",
                   help="train nothing: rebuild the tables and plots into --out from the "
                        "results in DIR alone (e.g. results/experiments/ladder/ladder-default)")
    p.add_argument("--no-compile-cache", action="store_true",
                   help="do not keep compiled programs in CACHE/jax-compile")
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config fields")
    return p


def _compile_cache_dir() -> str:
    import os

    from ..data import cache_dir

    return os.environ.get("JAX_COMPILATION_CACHE_DIR") or str(cache_dir() / "jax-compile")


def rebuildable() -> list[str]:
    """The experiments whose tables and plots ``--from-results`` rebuilds (an
    [`Experiment`][syncattn.experiments.Experiment] with ``rebuildable``)."""
    return [n for n in names() if experiment(n).rebuildable]


def _rebuild(args) -> int:
    """``--from-results DIR``: the module's ``rebuild(DIR, OUT)``, no training."""
    from ._common import default_outdir

    module = experiment(args.name)
    if not module.rebuildable:
        print(f"syncattn experiment: {args.name!r} cannot be rebuilt from results alone "
              f"(--from-results works for: {', '.join(rebuildable())}).", file=sys.stderr)
        return 2
    if args.overrides or args.seed is not None or args.seeds or args.data_path:
        print("syncattn experiment: --from-results takes the settings from DIR/config.json; "
              "give no KEY=VALUE, --seed(s) or --data-path.", file=sys.stderr)
        return 2
    out = args.out or default_outdir(args.name, "rebuilt")
    return _report(module, out, lambda: module.rebuild(args.from_results, out,
                                                       progress=not args.quiet),
                   "rebuilt", f"in {out} from {args.from_results}")


def _report(module, out: Path, make, verb: str, where: str) -> int:
    """Call ``make()`` (the files written), print the experiment's summary and ``VERB FILES
    WHERE in T s``; 2 on a usage error."""
    t0 = time.perf_counter()
    try:
        files = make()
    except (ValueError, FileNotFoundError) as e:
        print(f"syncattn experiment: {e}", file=sys.stderr)
        return 2
    results = out / "results.json"
    if module.summary is not None and results.is_file():
        print(module.summary(json.loads(results.read_text())))
    names = ", ".join(sorted(Path(f).name for f in files.values()))
    print(f"{verb} {names} {where} in {time.perf_counter() - t0:.1f} s")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``syncattn experiment``; returns the exit status (2: usage error)."""
    args = parse_command_line(_parser(), argv, intermixed=True)
    if isinstance(args, int):
        return args
    size = "smoke" if args.smoke else "full" if args.full else "default"
    if any(o.startswith("replicate=") for o in args.overrides):  # one committed cell again
        from ._common import default_outdir
        from ._protocol._replicate import command

        return command(args, default_outdir)
    if args.from_results is not None:
        return _rebuild(args)
    try:
        config = make_config(
            args.name, size, args.overrides, seed=args.seed, seeds=args.seeds,
            data_path=args.data_path,
        )
        grid = Grid(
            workers=args.workers, address=args.address, progress=not args.quiet,
            compile_cache=None if args.no_compile_cache else _compile_cache_dir(),
        )
    except (ValueError, ImportError) as e:
        print(f"syncattn experiment: {e}", file=sys.stderr)
        return 2
    from ._common import default_outdir

    module = experiment(args.name)
    out = args.out or default_outdir(args.name, size)
    out.mkdir(parents=True, exist_ok=True)
    print(f"syncattn experiment {args.name} ({size}, {grid!r}) -> {out}", file=sys.stderr)
    return _report(module, out, lambda: module.run(config, out, grid=grid,
                                                   progress=not args.quiet, size=size),
                   "wrote", f"to {out}")

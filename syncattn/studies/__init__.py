"""Numerical studies of the flows: `syncattn study NAME [--full] [--out DIR] [--seed N]`.

Each study is a module with a frozen `Config` dataclass (`small()` for the
tests, `default()` for a run of a minute or two on 2 CPU cores, `full()` for
publication size) and `run(config, out=None, *, progress=False) -> dict`, which
computes the simulation and its theory, and (when `out` is given) writes PNG
plots, CSV/JSON data and `config.json` there.

=============  ====================================================  ==========================
name           what                                                  module
=============  ====================================================  ==========================
failure        antipodal and degenerate-drive probabilities vs d     `syncattn.studies.failure`
convergence    fixed-query time-to-delta and finite-time failure     `syncattn.studies.convergence`
kuramoto       r(K) transitions and the Ott-Antonsen trajectory      `syncattn.studies.kuramoto_transition`
lohe           Lohe order parameter vs K on S^{d-1}, d = 2 check     `syncattn.studies.lohe_sync`
=============  ====================================================  ==========================

The command line switches float64 on (`jax_enable_x64`) for the run; calling
`run` from Python uses whatever precision is active.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import sys
import time
from pathlib import Path

from .._checks import split_override
from .._commands import parse_command_line, registered_module


STUDIES = {
    "failure": "failure",
    "convergence": "convergence",
    "kuramoto": "kuramoto_transition",
    "lohe": "lohe_sync",
}

__all__ = ["STUDIES", "get", "main"]


def get(name: str):
    """The module of study `name` (one of :data:`STUDIES`).

    Raises:
        ValueError: for an unknown name.
    """
    return registered_module(STUDIES, name, __name__, "study")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="syncattn study",
        description="Run a numerical study; write PNG plots, CSV/JSON data and config.json.",
    )
    p.add_argument("name", choices=list(STUDIES), help="which study")
    p.add_argument("--full", action="store_true", help="publication-size run (slow)")
    # hidden: the tests use --size small; --full is the public spelling of --size full
    p.add_argument(
        "--size", choices=("small", "default", "full"), help=argparse.SUPPRESS
    )
    p.add_argument(
        "--out",
        type=Path,
        help="output folder (default: a fresh syncattn-study-NAME-<time>)",
    )
    p.add_argument("--seed", type=int, help="PRNG seed (default: the config's)")
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one config field (Python literal), e.g. --set n_samples=200000",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _apply_overrides(config, overrides: list[str]):
    fields = {f.name for f in dataclasses.fields(config)}
    changes = {}
    for item in overrides:
        key, value = split_override(item, "--set expects")
        if key not in fields:
            raise ValueError(
                f"unknown config field {key!r}; fields are {sorted(fields)}."
            )
        try:
            changes[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            changes[key] = value  # a bare string such as --set frequencies=random
    return dataclasses.replace(config, **changes)


def main(argv: list[str] | None = None) -> int:
    """Entry point of `syncattn study`; returns the exit status."""
    args = parse_command_line(_parser(), argv)
    if isinstance(args, int):  # --help, or a usage error already printed by argparse
        return args
    if args.full and args.size not in (None, "full"):
        print("syncattn study: --full contradicts --size", file=sys.stderr)
        return 2
    size = "full" if args.full else (args.size or "default")

    import jax

    from ._common import make_outdir

    jax.config.update("jax_enable_x64", True)
    module = get(args.name)
    config = getattr(module.Config, size)()
    if args.seed is not None:
        config = dataclasses.replace(config, seed=args.seed)
    try:
        config = _apply_overrides(config, args.overrides)
    except ValueError as e:
        print(f"syncattn study: {e}", file=sys.stderr)
        return 2
    out = make_outdir(args.name, args.out)
    print(
        f"syncattn study {args.name} ({size}, seed {config.seed}) -> {out}",
        file=sys.stderr,
    )
    t0 = time.perf_counter()
    results = module.run(config, out, progress=not args.quiet)
    elapsed = time.perf_counter() - t0
    print(module.summary(results))
    files = sorted(p.name for p in out.iterdir())
    print(f"wrote {', '.join(files)} to {out} in {elapsed:.1f} s")
    return 0

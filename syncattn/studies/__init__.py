"""Numerical studies of the flows: `syncattn study NAME [--smoke | --full] [--out DIR] [--seed N] [KEY=VALUE ...]`.

Each study is a module with a frozen `Config` dataclass (`smoke()` for the
tests, `default()` for a run of a minute or two on 2 CPU cores, `full()` for
publication size: the sizes of the experiments; `small()` is the deprecated name of
`smoke()`) and `run(config, out=None, *, progress=False) -> dict`, which
computes the simulation and its theory, and (when `out` is given) writes PNG
plots, CSV/JSON data and `config.json` (with the code revision) there.

The command line takes `KEY=VALUE` overrides with the parser and messages of
`syncattn train` and `syncattn experiment` (`syncattn._overrides`; `--set KEY=VALUE`
is a deprecated alias). Its default folder is `syncattn-study-NAME-SIZE`; run again on
a finished folder of the same study and config, it reuses it (the granularity is the
whole study: `config.json` is written last, so an interrupted run starts again).

=============  ====================================================  ==========================
name           what                                                  module
=============  ====================================================  ==========================
failure        antipodal and degenerate-drive probabilities vs d     `syncattn.studies.failure`
convergence    fixed-query time-to-delta and finite-time failure     `syncattn.studies.convergence`
kuramoto       r(K) transitions and the Ott-Antonsen trajectory      `syncattn.studies.kuramoto_transition`
lohe           Lohe order parameter vs K on S^{d-1}, d = 2 check     `syncattn.studies.lohe_sync`
lohe_group     identical Lohe sync time on SO(3), U(n), S^{n-1}      `syncattn.studies.lohe_group`
inertia_hy...  r(K) swept up and down with inertia m > 0 and m = 0   `syncattn.studies.inertia_hysteresis`
delay_bran...  delay-locked frequency branches against simulation    `syncattn.studies.delay_branches`
daido_clus...  biharmonic two-cluster state against its theory       `syncattn.studies.daido_clusters`
explosive      simplicial (triadic) r(K_1) loop vs Ott-Antonsen      `syncattn.studies.explosive`
=============  ====================================================  ==========================

(``inertia_hy...`` is ``inertia_hysteresis``, ``delay_bran...`` ``delay_branches``,
``daido_clus...`` ``daido_clusters``.)

The command line switches float64 on (`jax_enable_x64`) for the run; calling
`run` from Python uses whatever precision is active.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .. import _overrides
from .._commands import parse_command_line, registered_module
from ._common import at_size, default_outdir, finished_run, make_outdir


STUDIES = {
    "failure": "failure",
    "convergence": "convergence",
    "kuramoto": "kuramoto_transition",
    "lohe": "lohe_sync",
    "lohe_group": "lohe_group",
    "inertia_hysteresis": "inertia_hysteresis",
    "delay_branches": "delay_branches",
    "daido_clusters": "daido_clusters",
    "explosive": "explosive",
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
        description=(
            "Run a numerical study; write PNG plots, CSV/JSON data and config.json into "
            "--out. Re-running the same command on its finished folder reuses it."
        ),
    )
    p.add_argument("name", choices=list(STUDIES), help="which study")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--smoke", action="store_true", help="seconds: the tests' size")
    size.add_argument("--full", action="store_true", help="publication-size run (slow)")
    # hidden: --size smoke|default|full (small: the deprecated name of smoke)
    p.add_argument(
        "--size", choices=("smoke", "small", "default", "full"), help=argparse.SUPPRESS
    )
    p.add_argument(
        "--out",
        type=Path,
        help="output folder (default syncattn-study-NAME-SIZE; a finished one is reused)",
    )
    p.add_argument("--seed", type=int, help="PRNG seed (default: the config's)")
    p.add_argument(
        "--set",
        dest="deprecated_set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="deprecated: give KEY=VALUE without --set",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE",
        help="config fields, typed as syncattn train's (e.g. n_samples=200000 dims=2,3,4)",
    )
    return p


def _apply_overrides(config, overrides: list[str]):
    """Deprecated: `config` with the ``KEY=VALUE`` items applied
    (`syncattn._overrides.apply`, the parser of every command)."""
    return _overrides.apply(config, overrides)


def _size(args) -> str:
    chosen = "smoke" if args.smoke else "full" if args.full else None
    if args.size is not None and chosen is not None:
        named = "smoke" if args.size == "small" else args.size
        if named != chosen:
            raise ValueError(f"--{chosen} contradicts --size {args.size}")
    size = chosen or args.size or "default"
    if size == "small":
        print("syncattn study: --size small is deprecated; use --smoke.", file=sys.stderr)
        size = "smoke"
    return size


def main(argv: list[str] | None = None) -> int:
    """Entry point of `syncattn study`; returns the exit status."""
    args = parse_command_line(_parser(), argv, intermixed=True)
    if isinstance(args, int):  # --help, or a usage error already printed by argparse
        return args
    if args.deprecated_set:
        print("syncattn study: --set is deprecated; give KEY=VALUE without it.",
              file=sys.stderr)
    try:
        size = _size(args)
        module = get(args.name)
        items = [*args.deprecated_set, *args.overrides]
        if args.seed is not None:
            items.append(("seed", args.seed))
        config = _overrides.apply(at_size(module.Config, size), items)
        out = args.out or default_outdir(args.name, size)
        done = finished_run(out, args.name, config)
    except ValueError as e:
        print(f"syncattn study: {e}", file=sys.stderr)
        return 2
    if done is not None:
        files = sorted(p.name for p in Path(out).iterdir())
        print(
            f"syncattn study {args.name} ({size}, seed {config.seed}): {out} already holds "
            f"this run (finished {done.get('written', '?')}, revision "
            f"{done.get('revision', '?')}); reused: {', '.join(files)}. Pass another --out "
            "to run it again.", file=sys.stderr,
        )
        return 0

    import jax

    jax.config.update("jax_enable_x64", True)
    out = make_outdir(args.name, out)
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

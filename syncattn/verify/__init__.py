"""``syncattn verify``: run every proof and numeric theorem check, and write a report.

The statements live in the ``proofs/`` folder at the top of the source tree
(``proofs/proof_<name>.py``, one per statement; ``proofs/README.md`` indexes
them). The wheel ships that folder inside the package as ``syncattn/_proofs``
(no top-level ``proofs`` package is installed), so an installed syncattn
verifies itself; from a source checkout the ``proofs/`` folder is used (see
[`find_proofs`][syncattn.verify.find_proofs]). Each module's ``test_*`` functions are its checks, labelled

* ``symbolic``: a sympy proof (exact, no sampling);
* ``numeric``: the lambdified statement against the syncattn functions it
  mirrors in float64 at seeded random points, or a numerical theorem check
  (Monte Carlo, an independent ODE solve, a simulation);
* ``mutation``: the same proof applied to a deliberately wrong variant must
  fail, so that no proof can pass vacuously.

This command imports them, runs every check with float64 enabled, prints one
row per statement (statement, kind, checks passed, result, seconds), writes
``report.json`` and ``report.md`` to ``--out`` (default: a fresh folder
``syncattn-verify-YYYYmmdd-HHMMSS`` in the current directory) and exits with
status 0 if everything passed, 1 if a check failed, 2 on a usage error.

``--quick`` skips the simulation-based theorem checks (diffrax solves, whose
compilation dominates the run time) and shrinks the Monte Carlo sample sizes.
By default the statements are spread over ``min(2, CPUs)`` spawned worker
processes (``--jobs``; ``--jobs 1`` runs everything in this process). Every
random point and sample is seeded (``--seed``), and ``report.json`` records the
configuration and library versions.

Example:
    >>> main(["--only", "readout", "--out", "report"])  # doctest: +SKIP
    0
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .._commands import parse_command_line
from ._report import (
    _cell as _cell,
    _config,
    _fresh_folder,
    _markdown,
    _statement_rows,
    _table,
)
from ._runner import _checks, run as run
from ._statements import (
    WHEEL_PACKAGE as WHEEL_PACKAGE,
    CheckResult as CheckResult,
    Statement as Statement,
    _package_name as _package_name,
    _select,
    find_proofs as find_proofs,
    load_statements as load_statements,
)


__all__ = ["main", "find_proofs", "load_statements", "run", "Statement", "CheckResult"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


# --------------------------------------------------------------------------- CLI
def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="syncattn verify",
        description="Run every proof (sympy) and numeric theorem check of syncattn; write report.json and report.md.",
        epilog="Exit status: 0 all passed, 1 a check failed, 2 usage error.",
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the statements and their checks, then exit",
    )
    p.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run only this statement (name, e.g. kuramoto_identity, or its number); repeatable",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="skip the simulation checks and shrink Monte Carlo sizes",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="report folder (default: ./syncattn-verify-YYYYmmdd-HHMMSS)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of every random point and sample (default 0)",
    )
    p.add_argument(
        "--proofs",
        type=Path,
        help="the proofs folder (default: the copy shipped in the package, else the checkout's proofs/)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="worker processes, one statement at a time each (default: min(2, CPUs)); 1 = in-process",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``syncattn verify``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_command_line(_parser(), argv)
    if isinstance(args, int):  # --help (0) or a usage error (2)
        return args
    args.argv = argv
    try:
        proofs_dir = find_proofs(args.proofs)
        statements = load_statements(proofs_dir)
        selected = _select(statements, args.only)
    except (FileNotFoundError, ImportError, KeyError) as e:
        msg = e.args[0] if e.args else str(e)
        print(f"syncattn verify: {msg}", file=sys.stderr)
        return EXIT_USAGE

    if args.list:
        for s in statements:
            if s.module is None:
                print(f"{s.number:>2}  {s.name:<22} IMPORT ERROR: {s.import_error}")
                continue
            checks = _checks(s)
            kinds = ", ".join(
                f"{sum(c.kind == k for c in checks)} {k}"
                for k in ("symbolic", "numeric", "mutation")
            )
            print(f"{s.number:>2}  {s.name:<22} {s.title}")
            print(f"    {'':<22} checks: {kinds}; file: proofs/{s.path.name}")
        return EXIT_OK

    out = args.out if args.out is not None else _fresh_folder(Path.cwd())
    t0, started = time.perf_counter(), time.strftime("%Y-%m-%dT%H:%M:%S%z")
    print(
        f"syncattn verify: {len(selected)} statement(s), seed {args.seed}{', quick' if args.quick else ''}",
        flush=True,
    )
    if args.jobs < 1:
        print(
            f"syncattn verify: --jobs must be >= 1; got {args.jobs}.", file=sys.stderr
        )
        return EXIT_USAGE
    results = run(
        selected,
        quick=args.quick,
        seed=args.seed,
        progress=not args.no_progress,
        jobs=args.jobs,
    )
    seconds = time.perf_counter() - t0
    rows = _statement_rows(selected, results)
    n_fail = sum(r.result == "FAIL" for r in results)
    summary = dict(
        ok=n_fail == 0,
        statements=len(rows),
        checks=len(results),
        passed=sum(r.result == "pass" for r in results),
        failed=n_fail,
        skipped=sum(r.result == "skipped" for r in results),
        seconds=round(seconds, 2),
    )
    report = dict(
        config=_config(args, proofs_dir, out),
        started=started,
        finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        summary=summary,
        statements=rows,
    )
    print(_table(rows))
    for r in results:
        if r.result == "FAIL":
            print(f"FAIL {r.statement}::{r.check} ({r.kind}): {r.error}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(_markdown(report))
    verdict = "all checks passed" if summary["ok"] else f"{n_fail} check(s) FAILED"
    print(
        f"{verdict}: {summary['passed']} passed, {n_fail} failed, {summary['skipped']} skipped "
        f"in {seconds:.1f} s. Report: {out / 'report.md'}"
    )
    return EXIT_OK if summary["ok"] else EXIT_FAILED


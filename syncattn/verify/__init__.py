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

Coq column: each statement lists its claims as ``PARTS`` (``proofs/_parts.py``), each
proved by Coq, by sympy (exact, with float64 checks and mutants) or measured. A Coq part
is the theorem ``<thm>`` of ``proofs/coq/<name>.v`` whose type must be exactly the
specification ``<thm>_spec`` of the pinned ``proofs/coq/<name>_spec.v`` (see
``syncattn/verify/_coq.py`` and ``docs/coq.md``). The cell reads "checked" only when
every part of the statement is in Coq and checked, "k/m parts" when k of its m parts
are; "not installed" without ``coqc`` (never a failure); "FAIL" (a failure) when a
specification's pin, a compile, a theorem's type or an axiom is wrong. ``--coq``
requires ``coqc`` (a usage error without it); ``--no-coq`` skips the column;
``--pins`` prints the current hashes of the specification files.

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
from ._coq import (
    coq_dir as _coq_dir,
    coq_files as _coq_files,
    declared as _declared,
    find_coqc,
    sha256_file as _sha256_file,
)
from ._coq_check import check_all as _coq_check_all, core_pin_of as _core_pin_of
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
    coq = p.add_mutually_exclusive_group()
    coq.add_argument(
        "--coq",
        action="store_true",
        help="require the Coq proofs: error if coqc is not on PATH, failure if one does not check",
    )
    coq.add_argument(
        "--no-coq", action="store_true", help="skip the Coq column (coq: skipped)"
    )
    p.add_argument(
        "--write-coverage",
        type=Path,
        metavar="FILE",
        help="rewrite the coverage section of FILE (docs/coq.md) from the parts registry, then exit",
    )
    p.add_argument(
        "--pins",
        action="store_true",
        help="print each Coq specification file's SHA-256 beside its pin, then exit",
    )
    return p


def _parts_rows(rows: list[dict], statements, coq: dict) -> None:
    """Add the parts (registry) and the ``coq`` cell to ``rows``."""
    by_name = {s.name: s for s in statements}
    for r in rows:
        decl = _declared(by_name[r["name"]])
        c = coq.get(r["name"])
        checked = {p.label: p for p in (c.part_results if c else ())}
        r["parts"] = [
            dict(
                label=p.label,
                claim=p.claim,
                kind=p.kind,
                coq=p.coq,
                why=p.why,
                result=(
                    checked[p.label].result
                    if p.label in checked
                    else (c.result if c and p.kind == "coq" else "-")
                ),
            )
            for p in decl.parts
        ]
        r["coq_parts"] = f"{sum(p.kind == 'coq' for p in decl.parts)}/{len(decl.parts)}"
        r["coq"] = c.cell() if c else "skipped"
        r["coq_result"] = c.result if c else "skipped"
        r["coq_files"] = list(c.files) if c else []
        if c and c.error:
            r["coq_error"] = c.error


def _parts_line(summary: dict) -> str:
    p = summary["parts"]
    return (
        f"parts: {p['coq']} of {p['total']} in Coq ({p['coq_checked']} checked in this run), "
        f"{p['sympy']} sympy, {p['measured']} measured"
    )


def _print_pins(proofs_dir: Path, statements) -> int:
    files = _coq_files(proofs_dir)
    core = files.get("CoreSpec")
    pin = _core_pin_of(statements)
    stale = 0
    if core is not None:
        now = _sha256_file(core)
        stale += now != pin
        print(
            f"proofs/coq/CoreSpec.v  {now}  {'ok' if now == pin else f'PINNED {pin}'} (CORE_SPEC_SHA256, proofs/_parts.py)"
        )
    for s in statements:
        spec = files.get(f"{s.name}_spec")
        if spec is None:
            continue
        now, pin = _sha256_file(spec), getattr(s.module, "COQ_SPEC_SHA256", None)
        stale += now != pin
        print(
            f"{_coq_dir(proofs_dir).name}/{spec.name}  {now}  {'ok' if now == pin else f'PINNED {pin}'} (COQ_SPEC_SHA256, proofs/{s.path.name})"
        )
    return EXIT_OK if not stale else EXIT_FAILED


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
    if args.pins:
        return _print_pins(proofs_dir, statements)
    if args.write_coverage is not None:
        return _write_coverage(args.write_coverage, statements)
    if args.list:
        return _print_list(statements)
    if args.coq and find_coqc() is None:
        print(
            "syncattn verify: --coq needs coqc on PATH (Debian/Ubuntu: apt-get install coq "
            "libcoq-coquelicot libcoq-interval libcoq-gappa gappa); see docs/coq.md.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return _verify(args, proofs_dir, selected)


def _write_coverage(path: Path, statements) -> int:
    """``--write-coverage``: rewrite `path`'s coverage section from the registry."""
    from ._coverage import write_coverage

    try:
        changed = write_coverage(path, statements)
    except (OSError, ValueError) as e:
        print(f"syncattn verify: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{path}: {'rewritten' if changed else 'up to date'}")
    return EXIT_OK


def _print_list(statements) -> int:
    """``--list``: each statement, its checks by kind, its file and its Coq parts."""
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
        decl = _declared(s)
        coq = sum(p.kind == "coq" for p in decl.parts)
        coq = (
            f"; parts: {coq}/{len(decl.parts)} in Coq (proofs/coq/{s.name}.v)"
            if coq
            else ""
        )
        print(f"    {'':<22} checks: {kinds}; file: proofs/{s.path.name}{coq}")
    return EXIT_OK


def _verify(args, proofs_dir: Path, selected) -> int:
    """Run the `selected` statements' checks and their Coq parts, print the table and
    the failures, and write ``report.json`` and ``report.md`` to ``--out``."""
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
    coq = {} if args.no_coq else _run_coq(selected, proofs_dir, args.jobs)
    seconds = time.perf_counter() - t0
    rows = _statement_rows(selected, results)
    _parts_rows(rows, selected, coq)
    summary = _summary(rows, results, coq, seconds, no_coq=args.no_coq)
    report = dict(
        config=_config(args, proofs_dir, out),
        started=started,
        finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        summary=summary,
        statements=rows,
    )
    print(_table(rows))
    coq_fail = [c for c in coq.values() if c.result == "FAIL"]
    for r in results:
        if r.result == "FAIL":
            print(f"FAIL {r.statement}::{r.check} ({r.kind}): {r.error}")
    for c in coq_fail:
        print(f"FAIL coq {c.name}: {c.error}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(_markdown(report))
    print(_verdict(summary, len(coq_fail), seconds, out))
    print(_parts_line(summary))
    return EXIT_OK if summary["ok"] else EXIT_FAILED


def _run_coq(selected, proofs_dir: Path, jobs: int) -> dict:
    """The Coq column: each selected statement's Coq parts checked (by name)."""
    with_coq = [s for s in selected if _declared(s).theorems]
    if with_coq and find_coqc() is not None:
        print(
            f"syncattn verify: coqc on the Coq parts of {len(with_coq)} statement(s)",
            flush=True,
        )
    return _coq_check_all(selected, proofs_dir, jobs=jobs)


def _summary(rows: list[dict], results, coq: dict, seconds: float, *, no_coq) -> dict:
    """``report.json``'s ``summary``: the counts of checks, Coq results and parts."""
    coq_fail = [c for c in coq.values() if c.result == "FAIL"]
    n_fail = sum(r.result == "FAIL" for r in results)
    all_parts = [p for r in rows for p in r["parts"]]
    return dict(
        ok=n_fail == 0 and not coq_fail,
        statements=len(rows),
        checks=len(results),
        passed=sum(r.result == "pass" for r in results),
        failed=n_fail,
        skipped=sum(r.result == "skipped" for r in results),
        seconds=round(seconds, 2),
        coq=dict(
            statements=sum(c.result != "-" for c in coq.values()),
            checked=sum(c.result == "checked" for c in coq.values()),
            failed=len(coq_fail),
            not_installed=sum(c.result == "not installed" for c in coq.values()),
            skipped=bool(no_coq),
        ),
        parts=dict(
            total=len(all_parts),
            coq=sum(p["kind"] == "coq" for p in all_parts),
            coq_checked=sum(p["result"] == "checked" for p in all_parts),
            sympy=sum(p["kind"] == "sympy" for p in all_parts),
            measured=sum(p["kind"] == "measured" for p in all_parts),
        ),
    )


def _verdict(summary: dict, coq_failed: int, seconds: float, out: Path) -> str:
    """The last line but one: all passed, or how many checks failed."""
    n_fail = summary["failed"]
    verdict = (
        "all checks passed"
        if summary["ok"]
        else f"{n_fail + coq_failed} check(s) FAILED"
        + (f" ({coq_failed} Coq)" if coq_failed else "")
    )
    return (
        f"{verdict}: {summary['passed']} passed, {n_fail} failed, {summary['skipped']} skipped "
        f"in {seconds:.1f} s. Report: {out / 'report.md'}"
    )

"""``syncattn verify``: run every proof and numeric theorem check, and write a report.

The statements live in the ``proofs/`` folder of a syncattn source checkout
(``proofs/proof_<name>.py``, one per statement; ``proofs/README.md`` indexes
them). Each module's ``test_*`` functions are its checks, labelled

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
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import platform
import re
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType


__all__ = ["main", "find_proofs", "load_statements", "run", "Statement", "CheckResult"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclasses.dataclass
class Statement:
    """One proof module: ``proofs/proof_<name>.py``."""

    number: int
    name: str
    title: str
    path: Path
    mirrors: tuple[str, ...]
    source: str
    module: ModuleType | None
    import_error: str | None = None


@dataclasses.dataclass
class CheckResult:
    statement: str
    check: str
    kind: str
    result: str  # "pass" | "FAIL" | "skipped"
    seconds: float
    error: str | None = None


# --------------------------------------------------------------------------- discovery
def find_proofs(proofs_dir: str | os.PathLike | None = None) -> Path:
    """The ``proofs/`` folder: ``proofs_dir`` if given, else next to the syncattn package.

    Raises:
        FileNotFoundError: with a message saying how to get a checkout.
    """
    if proofs_dir is None:
        import syncattn

        candidate = Path(syncattn.__file__).resolve().parents[1] / "proofs"
    else:
        candidate = Path(proofs_dir).resolve()
    if not (candidate / "__init__.py").is_file() or not any(
        candidate.glob("proof_*.py")
    ):
        raise FileNotFoundError(
            f"no proofs found in {candidate}. `syncattn verify` runs the proof modules of a "
            "syncattn source checkout: clone the repository and install it editable "
            "(`pip install -e .`), or pass --proofs PATH/TO/proofs."
        )
    return candidate


def _import_proofs_package(proofs_dir: Path) -> None:
    root = str(proofs_dir.parent)
    loaded = sys.modules.get("proofs")
    if loaded is not None:
        where = Path(getattr(loaded, "__file__", "") or "").resolve().parent
        if where != proofs_dir:
            raise ImportError(
                f"a different `proofs` package is already imported (from {where}); expected {proofs_dir}."
            )
        return
    if root not in sys.path:
        sys.path.insert(0, root)
    importlib.import_module("proofs")


def _source_paragraph(doc: str) -> str:
    m = re.search(r"^Source:(.*?)(?:\n\s*\n|\Z)", doc or "", flags=re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def load_statements(proofs_dir: Path) -> list[Statement]:
    """Import every ``proof_*.py`` module of ``proofs_dir``, ordered by ``NUMBER``.

    A module that fails to import becomes a statement with ``import_error`` set
    (reported as a failure), so one broken file does not hide the others.
    """
    _import_proofs_package(proofs_dir)
    out = []
    for path in sorted(proofs_dir.glob("proof_*.py")):
        name = path.stem.removeprefix("proof_")
        try:
            module = importlib.import_module(f"proofs.{path.stem}")
        except Exception as e:  # report, do not crash
            out.append(
                Statement(
                    10**6,
                    name,
                    "(module failed to import)",
                    path,
                    (),
                    "",
                    None,
                    _one_line(e),
                )
            )
            continue
        out.append(
            Statement(
                number=int(getattr(module, "NUMBER", 10**6)),
                name=name,
                title=str(
                    getattr(
                        module,
                        "TITLE",
                        (module.__doc__ or name).strip().splitlines()[0],
                    )
                ),
                path=path,
                mirrors=tuple(getattr(module, "MIRRORS", ())),
                source=_source_paragraph(module.__doc__ or ""),
                module=module,
            )
        )
    return sorted(out, key=lambda s: (s.number, s.name))


def _select(statements: list[Statement], only: list[str] | None) -> list[Statement]:
    if not only:
        return statements
    keys = {}
    for s in statements:
        for k in (s.name, f"proof_{s.name}", f"proof_{s.name}.py", str(s.number)):
            keys[k] = s
    unknown = [o for o in only if o not in keys]
    if unknown:
        known = ", ".join(f"{s.number}:{s.name}" for s in statements)
        raise KeyError(
            f"unknown statement {', '.join(map(repr, unknown))}; choose from {known}."
        )
    chosen = {keys[o].name for o in only}
    return [s for s in statements if s.name in chosen]


# --------------------------------------------------------------------------- running
def _one_line(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    if len(msg) > 600:
        msg = msg[:600] + " ..."
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def _checks(statement: Statement):
    from proofs import _harness

    return _harness.collect(statement.module)


def run(
    statements: list[Statement], *, quick: bool, seed: int, progress: bool = True
) -> list[CheckResult]:
    """Run the checks of ``statements`` (float64 on) and return one result per check."""
    import jax

    jax.config.update("jax_enable_x64", True)
    from proofs import _harness

    plan = [(s, c) for s in statements if s.module is not None for c in _checks(s)]
    results = [
        CheckResult(s.name, "import", "symbolic", "FAIL", 0.0, s.import_error)
        for s in statements
        if s.module is None
    ]
    bar = _progress(len(plan), progress)
    with _harness.configured(quick=quick, seed=seed):
        for s, c in plan:
            bar.set_description(f"{s.name}: {c.name}"[:60])
            if quick and c.slow:
                results.append(
                    CheckResult(
                        s.name,
                        c.name,
                        c.kind,
                        "skipped",
                        0.0,
                        "simulation check skipped by --quick",
                    )
                )
                bar.update()
                continue
            t0 = time.perf_counter()
            try:
                c.fn()
                res = CheckResult(
                    s.name, c.name, c.kind, "pass", time.perf_counter() - t0
                )
            except Exception as e:  # a failing check is a result, not a crash
                tb = traceback.extract_tb(e.__traceback__)
                where = f" [{Path(tb[-1].filename).name}:{tb[-1].lineno}]" if tb else ""
                res = CheckResult(
                    s.name,
                    c.name,
                    c.kind,
                    "FAIL",
                    time.perf_counter() - t0,
                    _one_line(e) + where,
                )
            results.append(res)
            bar.update()
    bar.close()
    return results


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        file=sys.stderr,
        disable=not enabled,
        unit="check",
        leave=False,
        dynamic_ncols=True,
    )


# --------------------------------------------------------------------------- reporting
def _statement_rows(
    statements: list[Statement], results: list[CheckResult]
) -> list[dict]:
    rows = []
    for s in statements:
        mine = [r for r in results if r.statement == s.name]
        kinds = [k for k in ("symbolic", "numeric") if any(r.kind == k for r in mine)]
        ran = [r for r in mine if r.result != "skipped"]
        failed = [r for r in ran if r.result == "FAIL"]
        result = "FAIL" if failed else ("pass" if ran else "skipped")
        rows.append(
            dict(
                number=s.number,
                name=s.name,
                title=s.title,
                file=f"proofs/{s.path.name}",
                mirrors=list(s.mirrors),
                source=s.source,
                kind="+".join(kinds) or "-",
                result=result,
                passed=sum(r.result == "pass" for r in mine),
                failed=len(failed),
                skipped=sum(r.result == "skipped" for r in mine),
                mutations=sum(
                    r.kind == "mutation" and r.result == "pass" for r in mine
                ),
                seconds=round(sum(r.seconds for r in mine), 3),
                checks=[
                    dataclasses.asdict(r) | {"seconds": round(r.seconds, 3)}
                    for r in mine
                ],
            )
        )
    return rows


def _table(rows: list[dict]) -> str:
    head = ("#", "statement", "kind", "checks", "result", "seconds")
    body = [
        (
            str(r["number"]),
            r["name"],
            r["kind"],
            f"{r['passed']}/{r['passed'] + r['failed']}"
            + (f" (+{r['skipped']} skipped)" if r["skipped"] else ""),
            r["result"],
            f"{r['seconds']:.1f}",
        )
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = lambda cells: "  ".join(
        c.ljust(w) if i < 5 else c.rjust(w)
        for i, (c, w) in enumerate(zip(cells, widths))
    )
    return "\n".join([fmt(head), fmt(tuple("-" * w for w in widths)), *map(fmt, body)])


def _config(args, proofs_dir: Path, out: Path) -> dict:
    import jax
    import numpy
    import scipy
    import sympy

    import syncattn

    return dict(
        command="syncattn verify " + " ".join(args.argv),
        seed=args.seed,
        quick=args.quick,
        only=args.only or [],
        proofs_dir=str(proofs_dir),
        out=str(out),
        float64=bool(jax.config.jax_enable_x64),
        versions=dict(
            syncattn=syncattn.__version__,
            python=platform.python_version(),
            jax=jax.__version__,
            sympy=sympy.__version__,
            numpy=numpy.__version__,
            scipy=scipy.__version__,
        ),
        platform=platform.platform(),
        cpu_count=os.cpu_count(),
        jax_devices=[str(d) for d in jax.devices()],
    )


def _markdown(report: dict) -> str:
    cfg, summ = report["config"], report["summary"]
    status = "all checks passed" if summ["ok"] else f"{summ['failed']} check(s) FAILED"
    lines = [
        "# syncattn verify report",
        "",
        f"**{status}**: {summ['passed']} passed, {summ['failed']} failed, {summ['skipped']} skipped, "
        f"over {summ['statements']} statements in {summ['seconds']:.1f} s.",
        "",
        f"Command: `{cfg['command']}` (seed {cfg['seed']}, quick={cfg['quick']}, float64={cfg['float64']}).",
        "Versions: "
        + ", ".join(f"{k} {v}" for k, v in cfg["versions"].items())
        + f"; {cfg['platform']}.",
        "",
        "Kinds: *symbolic* = a sympy proof; *numeric* = the lambdified statement against the code in float64,",
        "or a numerical theorem check; each statement also has *mutation* checks (its proof must reject a",
        "deliberately wrong variant). Statements and proofs: `proofs/README.md`, `docs/theory/`.",
        "",
        "## Statements",
        "",
        "| # | statement | kind | checks | mutations caught | result | seconds | file |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in report["statements"]:
        checks = f"{r['passed']}/{r['passed'] + r['failed']}" + (
            f" (+{r['skipped']} skipped)" if r["skipped"] else ""
        )
        lines.append(
            f"| {r['number']} | {r['title']} | {r['kind']} | {checks} | {r['mutations']} | **{r['result']}** "
            f"| {r['seconds']:.1f} | `{r['file']}` |"
        )
    lines += [
        "",
        "## Checks",
        "",
        "| statement | check | kind | result | seconds |",
        "|---|---|---|---|---|",
    ]
    for r in report["statements"]:
        for c in r["checks"]:
            lines.append(
                f"| {r['name']} | {c['check']} | {c['kind']} | {c['result']} | {c['seconds']:.2f} |"
            )
    failures = [
        (r, c)
        for r in report["statements"]
        for c in r["checks"]
        if c["result"] == "FAIL"
    ]
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- `{r['name']}::{c['check']}`: {c['error']}" for r, c in failures]
    lines += ["", "## What each statement ties to", ""]
    for r in report["statements"]:
        lines.append(
            f"- **{r['number']}. {r['name']}**: mirrors {', '.join(f'`{m}`' for m in r['mirrors']) or '-'}."
        )
        if r["source"]:
            lines.append(f"  Source: {r['source']}")
    return "\n".join(lines) + "\n"


def _fresh_folder(base: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out, k = base / f"syncattn-verify-{stamp}", 1
    while out.exists():
        out, k = base / f"syncattn-verify-{stamp}-{k}", k + 1
    return out


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
        help="the proofs/ folder (default: next to the installed package)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``syncattn verify``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error (2)
        return int(e.code or 0)
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
    results = run(
        selected, quick=args.quick, seed=args.seed, progress=not args.no_progress
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

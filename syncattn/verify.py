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

from .cli import parse_command_line


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
WHEEL_PACKAGE = (
    "syncattn._proofs"  # where the wheel ships the proofs (see pyproject.toml)
)


def _is_proofs_dir(path: Path) -> bool:
    return (path / "__init__.py").is_file() and any(path.glob("proof_*.py"))


def find_proofs(proofs_dir: str | os.PathLike | None = None) -> Path:
    """The folder of proof modules that ``syncattn verify`` runs.

    ``proofs_dir`` if given; otherwise the copy shipped inside the installed
    package (``syncattn/_proofs``, which the wheel build maps from the
    repository's ``proofs/``), and failing that the ``proofs/`` folder of a
    source checkout next to the package (an editable install, or ``PYTHONPATH``
    pointing at a clone).

    Raises:
        FileNotFoundError: naming the folders searched and how to get a checkout.
    """
    if proofs_dir is not None:
        candidates = [Path(proofs_dir).resolve()]
    else:
        import syncattn

        package = Path(syncattn.__file__).resolve().parent
        candidates = [package / "_proofs", package.parent / "proofs"]
    for candidate in candidates:
        if _is_proofs_dir(candidate):
            return candidate
    searched = " or ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"no proofs found in {searched}. The syncattn wheel ships them as "
        "syncattn/_proofs; reinstall it (`pip install --force-reinstall syncattn`), or "
        "run from a source checkout (`pip install -e .`), or pass --proofs PATH/TO/proofs."
    )


def _package_name(proofs_dir: Path) -> str:
    """The import name of ``proofs_dir``: ``syncattn._proofs`` for the shipped copy,
    otherwise the folder's own name, imported with its parent on ``sys.path``."""
    import syncattn

    if proofs_dir == Path(syncattn.__file__).resolve().parent / "_proofs":
        return WHEEL_PACKAGE
    if not proofs_dir.name.isidentifier():
        raise ImportError(
            f"the proofs folder {proofs_dir} cannot be imported as a package: its name "
            f"{proofs_dir.name!r} is not a Python identifier."
        )
    return proofs_dir.name


def _import_proofs_package(proofs_dir: Path) -> str:
    """Import the proofs package of ``proofs_dir``; return its import name.

    The proof modules import their shared machinery relatively
    (``from ._harness import ...``), so they work under either name.
    """
    name = _package_name(proofs_dir)
    loaded = sys.modules.get(name)
    if loaded is not None:
        where = Path(getattr(loaded, "__file__", "") or "").resolve().parent
        if where != proofs_dir:
            raise ImportError(
                f"a different `{name}` package is already imported (from {where}); expected {proofs_dir}."
            )
        return name
    if name != WHEEL_PACKAGE:
        root = str(proofs_dir.parent)
        if root not in sys.path:
            sys.path.insert(0, root)
    importlib.import_module(name)
    return name


def _harness_of(package: str) -> ModuleType:
    return importlib.import_module(f"{package}._harness")


def _source_paragraph(doc: str) -> str:
    m = re.search(r"^Source:(.*?)(?:\n\s*\n|\Z)", doc or "", flags=re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def load_statements(proofs_dir: Path) -> list[Statement]:
    """Import every ``proof_*.py`` module of ``proofs_dir``, ordered by ``NUMBER``.

    A module that fails to import becomes a statement with ``import_error`` set
    (reported as a failure), so one broken file does not hide the others.
    """
    package = _import_proofs_package(proofs_dir)
    out = []
    for path in sorted(proofs_dir.glob("proof_*.py")):
        name = path.stem.removeprefix("proof_")
        try:
            module = importlib.import_module(f"{package}.{path.stem}")
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
    return _harness_of(statement.module.__package__).collect(statement.module)


def _run_check(statement: str, c, quick: bool) -> CheckResult:
    if quick and c.slow:
        return CheckResult(
            statement,
            c.name,
            c.kind,
            "skipped",
            0.0,
            "simulation check skipped by --quick",
        )
    t0 = time.perf_counter()
    try:
        c.fn()
        return CheckResult(statement, c.name, c.kind, "pass", time.perf_counter() - t0)
    except Exception as e:  # a failing check is a result, not a crash
        tb = traceback.extract_tb(e.__traceback__)
        where = f" [{Path(tb[-1].filename).name}:{tb[-1].lineno}]" if tb else ""
        return CheckResult(
            statement,
            c.name,
            c.kind,
            "FAIL",
            time.perf_counter() - t0,
            _one_line(e) + where,
        )


_WORKER_PACKAGE = ""  # the proofs package of a worker process (set by _worker_init)


def _worker_init(proofs_dir: str, quick: bool, seed: int) -> None:
    global _WORKER_PACKAGE
    import jax

    jax.config.update("jax_enable_x64", True)
    _WORKER_PACKAGE = _import_proofs_package(Path(proofs_dir))
    harness = _harness_of(_WORKER_PACKAGE)
    harness.CONFIG.quick, harness.CONFIG.seed = quick, seed


def _worker_statement(name: str, quick: bool) -> list[CheckResult]:
    module = importlib.import_module(f"{_WORKER_PACKAGE}.proof_{name}")
    return [
        _run_check(name, c, quick) for c in _harness_of(_WORKER_PACKAGE).collect(module)
    ]


def run(
    statements: list[Statement],
    *,
    quick: bool,
    seed: int,
    progress: bool = True,
    jobs: int = 1,
) -> list[CheckResult]:
    """Run the checks of ``statements`` (float64 on) and return one result per check.

    With ``jobs > 1`` and several statements, the statements are spread over
    ``jobs`` spawned worker processes (each with float64 and the same seed); the
    checks of one statement always run together, in order, in one process.
    """
    import jax

    jax.config.update("jax_enable_x64", True)
    runnable = [s for s in statements if s.module is not None]
    results = [
        CheckResult(s.name, "import", "symbolic", "FAIL", 0.0, s.import_error)
        for s in statements
        if s.module is None
    ]
    if jobs > 1 and len(runnable) > 1:
        return results + _run_parallel(
            runnable, quick=quick, seed=seed, progress=progress, jobs=jobs
        )
    plan = [(s, c) for s in runnable for c in _checks(s)]
    if not plan:
        return results
    harness = _harness_of(runnable[0].module.__package__)
    bar = _progress(len(plan), progress, "check")
    with harness.configured(quick=quick, seed=seed):
        for s, c in plan:
            bar.set_description(f"{s.name}: {c.name}"[:60])
            results.append(_run_check(s.name, c, quick))
            bar.update()
    bar.close()
    return results


def _cost(s: Statement, quick: bool) -> tuple:
    """A rough cost key (simulations first, then numeric checks): longest statements start first."""
    checks = _checks(s)
    return (
        not quick and any(c.slow for c in checks),
        sum(c.kind == "numeric" for c in checks),
    )


def _run_parallel(
    statements: list[Statement], *, quick, seed, progress, jobs
) -> list[CheckResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    proofs_dir = statements[0].path.parent
    order = sorted(statements, key=lambda s: _cost(s, quick), reverse=True)
    done: dict[str, list[CheckResult]] = {}
    bar = _progress(len(order), progress, "statement")
    ctx = multiprocessing.get_context(
        "spawn"
    )  # fork is unsafe once JAX has started threads
    init = (str(proofs_dir), quick, seed)
    with ProcessPoolExecutor(
        jobs, mp_context=ctx, initializer=_worker_init, initargs=init
    ) as ex:
        futures = {ex.submit(_worker_statement, s.name, quick): s for s in order}
        for fut in as_completed(futures):
            s = futures[fut]
            try:
                done[s.name] = fut.result()
            except Exception as e:  # a crashed worker fails its statement, not the run
                done[s.name] = [
                    CheckResult(s.name, "worker", "numeric", "FAIL", 0.0, _one_line(e))
                ]
            bar.set_description(s.name)
            bar.update()
    bar.close()
    return [r for s in statements for r in done[s.name]]


def _progress(total: int, enabled: bool, unit: str):
    from tqdm import tqdm

    return tqdm(
        total=total,
        file=sys.stderr,
        disable=None if enabled else True,  # None: off when stderr is not a terminal
        unit=unit,
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
        jobs=args.jobs,
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


def _cell(text: str) -> str:
    """Escape a markdown table cell (titles contain norms like ||h||)."""
    return text.replace("|", "\\|")


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
            f"| {r['number']} | {_cell(r['title'])} | {r['kind']} | {checks} | {r['mutations']} | **{r['result']}** "
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

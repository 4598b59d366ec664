"""Running the checks of ``syncattn verify``: in this process or spread over spawned workers."""

from __future__ import annotations

import importlib
import multiprocessing
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from tqdm import tqdm

from ._statements import (
    CheckResult,
    Statement,
    _harness_of,
    _import_proofs_package,
    _one_line,
)


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
    import jax  # heavy: imported only when checks run (--list, --help stay fast)

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
    import jax  # heavy: imported only when checks run (--list, --help stay fast)

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
    return tqdm(
        total=total,
        file=sys.stderr,
        disable=None if enabled else True,  # None: off when stderr is not a terminal
        unit=unit,
        leave=False,
        dynamic_ncols=True,
    )

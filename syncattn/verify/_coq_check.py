"""The Coq check of ``syncattn verify``: build once, audit each statement (see ``_coq.py``)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
import time
from pathlib import Path

from ._coq import (
    _TIMEOUT_S,
    COQ_SUBDIR,
    CoqResult,
    PartResult,
    _Declared,
    _fail,
    _key,
    _run_coqc,
    _split_audit,
    _tail,
    audit_source,
    cache_dir,
    closure,
    coq_files,
    coqc_version,
    declared,
    disallowed_axioms,
    find_coqc,
    forbidden_words,
    parse_assumptions,
    pin_errors,
    requires,
    uses_interval,
)


def _prepare(statement, proofs_dir, files, coqc, core_pin, version, use_cache):
    """The statement's declaration, files and audit; a final result where no build is
    needed (no Coq part, a forbidden word, a pin, no coqc, a cached success)."""
    decl = declared(statement)
    if not decl.theorems:
        return decl, (), None, CoqResult(decl.name, (), "-", len(decl.parts), 0)
    try:
        order = closure(f"{decl.name}_spec", files)
        order += [n for n in closure(decl.name, files) if n not in order]
    except FileNotFoundError as e:
        return decl, (), None, _fail(decl, (), str(e))
    rel = tuple(f"proofs/{COQ_SUBDIR}/{n}.v" for n in order)
    bad = {n: forbidden_words(files[n].read_text()) for n in order}
    bad = {n: w for n, w in bad.items() if w}
    if bad:
        error = "; ".join(f"proofs/coq/{n}.v: {', '.join(w)}" for n, w in bad.items())
        return decl, order, None, _fail(decl, rel, f"forbidden in source: {error}")
    package = getattr(statement.module, "__package__", None)
    pins = pin_errors(decl, files, core_pin, order, package)
    if pins:
        return decl, order, None, _fail(decl, rel, "; ".join(pins))
    if coqc is None:
        result = CoqResult(
            decl.name, rel, "not installed", len(decl.parts), len(decl.theorems)
        )
        return decl, order, None, result
    audit = audit_source(decl.name, [t for _, t in decl.theorems])
    stamp = cache_dir() / f"{_key([files[n] for n in order], audit, version)}.json"
    if use_cache and stamp.is_file():
        try:
            cached = json.loads(stamp.read_text())["parts"]
            results = tuple(
                PartResult(p["label"], p["theorem"], "checked", tuple(p["axioms"]))
                for p in cached
            )
            if [(p.label, p.theorem) for p in results] == decl.theorems:
                result = CoqResult(
                    decl.name,
                    rel,
                    "checked",
                    len(decl.parts),
                    len(decl.theorems),
                    results,
                    cached=True,
                )
                return decl, order, stamp, result
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache entry: compile again
    return decl, order, stamp, None


def _build(coqc, folder, files, names, jobs, timeout) -> dict[str, tuple[int, str]]:
    """Compile ``names`` (closed under dependencies) in ``folder``, each file once all
    the files it requires have compiled, ``jobs`` at a time. Returns
    ``{name: (exit status, output)}``; a file whose dependency failed is not compiled
    (status -1)."""
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    for n in names:
        shutil.copy2(files[n], folder / f"{n}.v")
    deps = {n: set(requires(files[n].read_text())) for n in names}
    done: dict[str, tuple[int, str]] = {}
    running = {}
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        while len(done) < len(names):
            for n in names:
                if n in done or n in running.values():
                    continue
                failed = [d for d in deps[n] if d in done and done[d][0] != 0]
                if failed:
                    done[n] = (-1, f"not compiled: proofs/coq/{failed[0]}.v failed")
                elif all(d in done for d in deps[n]):
                    running[ex.submit(_run_coqc, coqc, folder, f"{n}.v", timeout)] = n
            if not running:
                continue
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for f in finished:
                done[running.pop(f)] = f.result()
    return done


def _audited(decl, rel, outputs, primitive_ok, seconds) -> CoqResult:
    results = []
    for label, thm in decl.theorems:
        rc, out = outputs[thm]
        if rc != 0:
            results.append(
                PartResult(label, thm, "FAIL", error=_theorem_error(thm, out))
            )
            continue
        axioms = parse_assumptions(out)
        if "Axioms:" not in out and "Closed under the global context" not in out:
            results.append(
                PartResult(
                    label, thm, "FAIL", error="no Print Assumptions in the audit"
                )
            )
            continue
        disallowed = disallowed_axioms(axioms, primitive_ok)
        if disallowed:
            error = f"axioms outside the allowlist: {', '.join(disallowed)}"
            results.append(PartResult(label, thm, "FAIL", tuple(axioms), error))
            continue
        results.append(PartResult(label, thm, "checked", tuple(sorted(set(axioms)))))
    failed = [p for p in results if p.result == "FAIL"]
    if failed:
        error = "; ".join(f"part {p.label} ({p.theorem}): {p.error}" for p in failed)
        return _fail(decl, rel, error, seconds, results)
    return CoqResult(
        decl.name,
        rel,
        "checked",
        len(decl.parts),
        len(decl.theorems),
        tuple(results),
        seconds,
    )


def _theorem_error(thm: str, output: str) -> str:
    text = " ".join(output.split())
    if "has type" in text and "expected to have type" in text:
        return (
            f"the theorem's type is not its specification {thm}_spec (a weakened or "
            f"changed theorem): {text[-400:]}"
        )
    if (
        "was not found" in text
        or "not a defined object" in text
        or "Unable to locate" in text
    ):
        return f"theorem {thm} or specification {thm}_spec not found: {text[-400:]}"
    return text[-600:] or "the audit failed"


def _audit(coqc: str, folder: Path, decl: _Declared, audit: str, timeout: float):
    """Run the statement's audit; on an error, audit each theorem alone to name it.

    Returns ``{theorem: (exit status, its section of the output)}``.
    """
    (folder / "syncattn_audit.v").write_text(audit)
    rc, output = _run_coqc(coqc, folder, "syncattn_audit.v", timeout)
    sections = _split_audit(output)
    if rc == 0:
        return {t: (0, sections.get(t, "")) for _, t in decl.theorems}
    results = {}
    for _, thm in decl.theorems:
        (folder / "syncattn_audit1.v").write_text(audit_source(decl.name, [thm]))
        rc1, out1 = _run_coqc(coqc, folder, "syncattn_audit1.v", timeout)
        results[thm] = (rc1, _split_audit(out1).get(thm, out1) if rc1 == 0 else out1)
    return results


def core_pin_of(statements) -> str | None:
    """``CORE_SPEC_SHA256`` of the proofs package the statements come from."""
    import importlib

    for s in statements:
        package = getattr(s.module, "__package__", None)
        if package:
            try:
                return importlib.import_module(f"{package}._parts").CORE_SPEC_SHA256
            except (ImportError, AttributeError):
                return None
    return None


def check_all(
    statements,
    proofs_dir: Path,
    *,
    jobs: int = 1,
    use_cache: bool = True,
    core_pin: str | None = None,
    timeout: float = _TIMEOUT_S,
) -> dict[str, CoqResult]:
    """Check the Coq parts of ``statements`` with ``coqc`` from PATH: every file they
    need compiled once in one fresh folder (``jobs`` at a time, in dependency order),
    then one audit per statement. Statements with Coq parts are "not installed" when
    there is no ``coqc``; ``core_pin`` defaults to the proofs package's
    ``CORE_SPEC_SHA256``."""
    t0 = time.perf_counter()
    coqc = find_coqc()
    version = coqc_version(coqc) if coqc else ""
    core_pin = core_pin if core_pin is not None else core_pin_of(statements)
    files = coq_files(proofs_dir)
    results: dict[str, CoqResult] = {}
    todo = []
    for s in statements:
        decl, order, stamp, result = _prepare(
            s, proofs_dir, files, coqc, core_pin, version, use_cache
        )
        if result is not None:
            results[s.name] = result
        else:
            todo.append((decl, order, stamp))
    if todo:
        names = []
        for _, order, _ in todo:
            names += [n for n in order if n not in names]
        with tempfile.TemporaryDirectory(prefix="syncattn-coq-") as tmp:
            folder = Path(tmp)
            built = _build(coqc, folder, files, names, jobs, timeout)
            for decl, order, stamp in todo:
                rel = tuple(f"proofs/{COQ_SUBDIR}/{n}.v" for n in order)
                broken = [n for n in order if built[n][0] != 0]
                if broken:
                    rc, output = built[broken[0]]
                    results[decl.name] = _fail(
                        decl,
                        rel,
                        f"coqc exit {rc} on proofs/coq/{broken[0]}.v: {_tail(output)}",
                        time.perf_counter() - t0,
                    )
                    continue
                audit = audit_source(decl.name, [t for _, t in decl.theorems])
                outputs = _audit(coqc, folder, decl, audit, timeout)
                primitive_ok = uses_interval([files[n].read_text() for n in order])
                result = _audited(
                    decl, rel, outputs, primitive_ok, time.perf_counter() - t0
                )
                results[decl.name] = result
                if result.result == "checked":
                    try:
                        stamp.parent.mkdir(parents=True, exist_ok=True)
                        parts = [dataclasses.asdict(p) for p in result.part_results]
                        stamp.write_text(
                            json.dumps(
                                dict(statement=decl.name, version=version, parts=parts)
                            )
                        )
                    except OSError:
                        pass  # an unwritable cache only costs a recompile
    return {s.name: results[s.name] for s in statements}

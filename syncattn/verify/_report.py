"""The report of ``syncattn verify``: per-statement rows, the printed table, report.md."""

from __future__ import annotations

import dataclasses
import os
import platform
import time
from pathlib import Path

from ._statements import CheckResult, Statement


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


def _coq_cell(cell: str | None) -> str:
    return "-" if cell in (None, "-") else f"coq: {cell}"


def _table(rows: list[dict]) -> str:
    head = ("#", "statement", "kind", "checks", "result", "coq", "seconds")
    body = [
        (
            str(r["number"]),
            r["name"],
            r["kind"],
            f"{r['passed']}/{r['passed'] + r['failed']}"
            + (f" (+{r['skipped']} skipped)" if r["skipped"] else ""),
            r["result"],
            _coq_cell(r.get("coq")),
            f"{r['seconds']:.1f}",
        )
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = lambda cells: "  ".join(
        c.ljust(w) if i < 6 else c.rjust(w)
        for i, (c, w) in enumerate(zip(cells, widths))
    )
    return "\n".join([fmt(head), fmt(tuple("-" * w for w in widths)), *map(fmt, body)])


def _config(args, proofs_dir: Path, out: Path) -> dict:
    import jax  # heavy, like the rest: the versions are read only for a report
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
    """``report.md``: the summary, then the tables of statements, checks, failures,
    parts and what each statement ties to."""
    lines = _md_summary(report)
    for section in (_md_statements, _md_checks, _md_failures, _md_parts, _md_ties):
        lines += section(report)
    return "\n".join(lines) + "\n"


def _md_summary(report: dict) -> list[str]:
    cfg, summ = report["config"], report["summary"]
    n_failed = summ["failed"] + summ.get("coq", {}).get("failed", 0)
    status = "all checks passed" if summ["ok"] else f"{n_failed} check(s) FAILED"
    return [
        "# syncattn verify report",
        "",
        f"**{status}**: {summ['passed']} passed, {summ['failed']} failed, {summ['skipped']} skipped, "
        f"over {summ['statements']} statements in {summ['seconds']:.1f} s.",
        "",
        f"Parts (claims): {summ['parts']['coq']} of {summ['parts']['total']} in Coq "
        f"({summ['parts']['coq_checked']} checked in this run), {summ['parts']['sympy']} sympy, "
        f"{summ['parts']['measured']} measured.",
        "",
        f"Command: `{cfg['command']}` (seed {cfg['seed']}, quick={cfg['quick']}, float64={cfg['float64']}).",
        "Versions: "
        + ", ".join(f"{k} {v}" for k, v in cfg["versions"].items())
        + f"; {cfg['platform']}.",
        "",
        "Kinds: *symbolic* = a sympy proof; *numeric* = the lambdified statement against the code in float64,",
        "or a numerical theorem check; each statement also has *mutation* checks (its proof must reject a",
        "deliberately wrong variant). Statements and proofs: `proofs/README.md`, `docs/theory/`.",
        "*coq*: the statement's parts (claims) proved in Coq (docs/coq.md): each is a theorem of",
        "`proofs/coq/<name>.v` whose type is exactly its pinned specification in `proofs/coq/<name>_spec.v`.",
        "*checked* = every part of the statement is in Coq and checked (compiled in this run or cached",
        "by hash, only allowed axioms); *k/m parts* = k of its m parts are; not installed (no coqc); FAIL.",
        "",
    ]


def _md_statements(report: dict) -> list[str]:
    lines = [
        "## Statements",
        "",
        "| # | statement | kind | checks | mutations caught | result | coq | seconds | file |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["statements"]:
        checks = f"{r['passed']}/{r['passed'] + r['failed']}" + (
            f" (+{r['skipped']} skipped)" if r["skipped"] else ""
        )
        lines.append(
            f"| {r['number']} | {_cell(r['title'])} | {r['kind']} | {checks} | {r['mutations']} | **{r['result']}** "
            f"| {_coq_cell(r.get('coq'))} | {r['seconds']:.1f} | `{r['file']}` |"
        )
    return lines


def _md_checks(report: dict) -> list[str]:
    lines = [
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
    return lines


def _md_failures(report: dict) -> list[str]:
    failures = [
        (r, c)
        for r in report["statements"]
        for c in r["checks"]
        if c["result"] == "FAIL"
    ]
    coq_failures = [
        (r["name"], r.get("coq_error"))
        for r in report["statements"]
        if r.get("coq_result") == "FAIL"
    ]
    if not (failures or coq_failures):
        return []
    lines = ["", "## Failures", ""]
    lines += [f"- `{r['name']}::{c['check']}`: {c['error']}" for r, c in failures]
    lines += [f"- coq `{n}`: {e}" for n, e in coq_failures]
    return lines


def _md_parts(report: dict) -> list[str]:
    lines = ["", "## Parts: what proves each claim", ""]
    lines += [
        "| # | part | claim | proved by | result |",
        "|---|---|---|---|---|",
    ]
    for r in report["statements"]:
        for p in r.get("parts", []):
            by = (
                f"Coq `{p['coq']}`"
                if p["kind"] == "coq"
                else f"{p['kind']} ({p['why']})"
            )
            lines.append(
                f"| {r['number']} | {_cell(p['label'])} | {_cell(p['claim'])} | {_cell(by)} | {p['result']} |"
            )
    return lines


def _md_ties(report: dict) -> list[str]:
    lines = ["", "## What each statement ties to", ""]
    for r in report["statements"]:
        lines.append(
            f"- **{r['number']}. {r['name']}**: mirrors {', '.join(f'`{m}`' for m in r['mirrors']) or '-'}."
        )
        if r["source"]:
            lines.append(f"  Source: {r['source']}")
    return lines


def _fresh_folder(base: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out, k = base / f"syncattn-verify-{stamp}", 1
    while out.exists():
        out, k = base / f"syncattn-verify-{stamp}-{k}", k + 1
    return out

"""The tables every protocol writes: a row per cell, the record, the sweep, the paired gap."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._common import describe_values
from ._result import CellResult, Status, converged


def cell_row(
    config,
    cell,
    result,
    head: Mapping[str, Any],
    scores: Mapping[str, tuple[str, str]],
    metric: str,
    also: Sequence[str] = (),
) -> dict:
    """One cell's row: its name, `head` (the experiment's labels), lr, seed, status,
    parameters, steps, ``{column: score(split, metric)}`` of `scores`, tokens/s, wall
    time and its convergence record on `metric` (with ``improvement_M`` for each `also`)."""
    r = CellResult.of(result)
    conv = converged(config, r, metric)
    more = {
        f"improvement_{m}": (c := converged(config, r, m)) and c["improvement"]
        for m in also
    }
    return {
        "cell": cell.name,
        **head,
        "lr": cell.overrides["train.lr"],
        "seed": cell.seed,
        "status": r.status.value,
        "params": r.get("params"),
        "steps": cell.steps,
        **{k: r.score(*v) for k, v in scores.items()},
        "tokens_per_s": r.get("tokens_per_s"),
        "wall_s": r.get("wall_s"),
        "improvement": conv and conv["improvement"],
        **more,
        "converged": conv and conv["converged"],
    }


def record_lines(results: dict, metric: str) -> list[str]:
    """A summary's lines on the cells not converged (by `metric`) and missing."""
    nc = results["not_converged"]
    lines = [
        f"  not converged ({metric} fell >= 1 % over the last 20 %): {', '.join(nc) or 'none'}"
    ]
    if results.get("missing"):
        lines.append(f"  missing cells: {len(results['missing'])}")
    return lines


def record(rows) -> dict:
    """``{"not_converged": [cells], "missing": [cells]}`` of the rows."""
    return {
        "not_converged": [w["cell"] for w in rows if w["converged"] is False],
        "missing": [w["cell"] for w in rows if w["status"] == Status.MISSING.value],
    }


def compute(rows, tokens: bool = True) -> dict:
    """Cells finished, their wall time (and median training tokens/s): as measured, on a
    machine that may have been shared."""
    done = [w for w in rows if w["status"] == Status.OK.value]
    out = {"cells": len(done), "wall_s": sum(w["wall_s"] or 0.0 for w in done)}
    if tokens:
        tps = [w["tokens_per_s"] for w in done if w["tokens_per_s"]]
        out["tokens_per_s"] = statistics.median(tps) if tps else None
    return out


def corpus(results) -> dict | None:
    """The corpus record of the first finished cell."""
    return next((r.get("corpus") for r in map(CellResult.of, results) if r.ok), None)


def lr_sweep(rows, score: str, keep: Callable[[dict], bool]) -> dict[str, float]:
    """``{lr (as %g text): row[score]}`` of the rows `keep` selects, by lr."""
    return {
        f"{w['lr']:g}": w[score] for w in sorted(rows, key=lambda w: w["lr"]) if keep(w)
    }


def at_edge(lr: float | None, sweep_scores: Mapping[str, float]) -> bool:
    """Whether `lr` is the smallest or largest of a sweep of more than one lr."""
    keys = list(sweep_scores)
    return (
        lr is not None
        and len(keys) > 1
        and f"{lr:g}" in (min(keys, key=float), max(keys, key=float))
    )


def paired(
    a: Mapping[int, float], b: Mapping[int, float], seeds, confidence: float
) -> dict:
    r"""$a_s - b_s$ over the `seeds` both hold (finite ones), summarised
    ([`describe_values`][syncattn.experiments._common.describe_values]) with a Student-t
    interval ([`syncattn.stats.t_interval`][]; ``None`` under two values)."""
    from ... import stats

    d = [a[s] - b[s] for s in seeds if s in a and s in b]
    d = [v for v in d if math.isfinite(v)]
    return describe_values(d) | {"ci": stats.t_interval(d, confidence) if d else None}

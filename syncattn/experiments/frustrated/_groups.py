"""The frustrated experiment's groups of cells (a family's cells at its best lr at a rung)
and the paired test of two groups: shared by the registered comparisons and the controls."""

from __future__ import annotations

import math

from .. import _protocol as protocol
from .._common import describe_values
from .._protocol import Status


def finite(x) -> bool:
    """Whether `x` is a number, not ``None``, NaN or infinite."""
    return x is not None and math.isfinite(x)


def copy_summary(results) -> dict | None:
    """Mean over cells (seeds) of each copy-depth bucket's BPC (``novel``: depth 0,
    ``at_least[i]``: depth >= ``depths[i]``; empty buckets left out) and the positions in
    each (the test windows are the same in every cell); ``None`` without a split."""
    cds = [r["copy_depth"] for r in results if r.ok and r.get("copy_depth")]
    if not cds:
        return None

    def mean(xs):
        xs = [x for x in xs if finite(x)]
        return sum(xs) / len(xs) if xs else None

    return {
        "n": len(cds),
        "n_context": cds[0]["n"],
        "depths": cds[0]["depths"],
        "novel": mean(c["loss_novel"] for c in cds),
        "at_least": [
            mean(c["loss"][i] for c in cds) for i in range(len(cds[0]["depths"]))
        ],
        "all": mean(c["loss_all"] for c in cds),
        "count_novel": cds[0]["count_novel"],
        "count": cds[0]["count"],
        "count_all": cds[0]["count_all"],
        "same_counts": all(
            (c["count_novel"], c["count"]) == (cds[0]["count_novel"], cds[0]["count"])
            for c in cds
        ),
    }


def group(entries, phases, target: int, name: str, lr, seeds, state: str) -> dict:
    """A family's cells at its best lr in `phases` at `target`: ``status`` (``failed``:
    every swept lr diverged; ``pending``: a planned cell not finished or not planned yet;
    else ``complete``), test BPC per seed, its summary, the copy-depth summary."""
    mine = [
        e
        for e in entries
        if e.phase in phases
        and e.target == target
        and e.family == name
        and lr is not None
        and e.cell.overrides["train.lr"] == lr
        and e.cell.seed in seeds
    ]
    done = [e for e in mine if e.result.status is not Status.MISSING]
    if state == "failed":
        status = "failed"
    elif state != "ok" or len(done) < len(seeds):
        status = "pending"
    else:
        status = "complete"
    test = {e.cell.seed: e.result.score("test", "bpc") for e in mine}
    return {
        "status": status,
        "lr": lr,
        "seeds": list(seeds),
        "test_by_seed": {str(s): v for s, v in sorted(test.items())},
        "test": describe_values([v for _, v in sorted(test.items())]),
        "copy": copy_summary([e.result for e in mine]),
        "results": {e.cell.seed: e.result for e in mine},
    }


def paired_test(a: dict, b: dict, seeds, confidence: float) -> dict:
    """$\\Delta_s = a_s - b_s$ over the `seeds` both hold finite: the paired summary and
    two-sided t interval ([`paired`][syncattn.experiments._protocol.paired]), the seeds,
    and the one-sided p of $\\mathbb E\\Delta < 0$ ([`syncattn.stats.t_pvalue`][],
    ``"less"``; ``None`` under two seeds)."""
    from ... import stats

    common = [s for s in seeds if finite(a.get(s)) and finite(b.get(s))]
    d = protocol.paired(a, b, common, confidence)
    p = stats.t_pvalue(d["values"], "less") if len(d["values"]) >= 2 else None
    return d | {"seeds": common, "p": p}


def status_of(*groups) -> str:
    """A comparison's status from its groups': ``failed``, else ``pending``, else
    ``complete``."""
    got = {g["status"] for g in groups}
    return (
        "failed" if "failed" in got else "pending" if "pending" in got else "complete"
    )


def test_by_seed(g: dict) -> dict:
    """Seed -> test BPC of a group's cells."""
    return {s: r.score("test", "bpc") for s, r in g["results"].items()}


def copy_values(g: dict) -> dict:
    """Seed -> ``(BPC at depth >= 1, BPC at depth 0)`` of a group's cells."""
    out = {}
    for s, r in g["results"].items():
        cd = r.get("copy_depth") if r.ok else None
        ge1 = cd["loss"][cd["depths"].index(1)] if cd and 1 in cd["depths"] else None
        if finite(ge1) and finite(cd["loss_novel"]):
            out[s] = (ge1, cd["loss_novel"])
    return out

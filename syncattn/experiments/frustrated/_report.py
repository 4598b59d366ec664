"""The frustrated experiment's outputs: per-cell rows, each family's rung, the 17
pre-registered comparisons with Holm's adjustment, the copy-depth summaries, the files."""

from __future__ import annotations

import math
from pathlib import Path

from .. import _protocol as protocol
from .._common import describe_values, write_csv, write_json
from .._protocol import CellResult, Status
from ._cells import FAMILIES, NAME, budget_tag, cell_budget, family_shape, rung_name
from ._markdown import markdown
from ._walk import PHASES, long_seeds, planned, rung_seeds


HYPOTHESES = (
    ("H1", "frustrated", "softmax"),
    ("H2", "frustrated", "kuramoto"),
    ("H3", "frustrated-mf", "softmax"),
    ("H4", "frustrated-mf", "kuramoto"),
)
"""The pre-registered hypotheses: ``(id, F, X)``, each $\\mathbb E(F - X) < 0$ in test BPC."""
COPY = ("C", "frustrated", "kuramoto")
"""The copy-depth comparison: $(F - K)_{\\ge 1} - (F - K)_{0} < 0$, paired by seed."""


def _finite(x) -> bool:
    return x is not None and math.isfinite(x)


def rows(config, entries) -> list[dict]:
    """One row per cell: phase, rung, family, budget, lr, seed, status, parameters, steps,
    validation and test BPC, the copy-depth BPC of novel positions and of depth >= 1,
    tokens/s, wall time and the convergence record."""
    out = []
    for e in entries:
        cd = e.result.get("copy_depth") or {}
        head = {
            "phase": e.phase,
            "rung": rung_name(e.target),
            "family": e.family,
            "budget": budget_tag(config)
            if e.phase == "long"
            else f"{config.tokens_per_param:g}N",
        }
        w = protocol.cell_row(
            config,
            e.cell,
            e.result,
            head,
            {"val_bpc": ("val", "bpc"), "test_bpc": ("test", "bpc")},
            "bpc",
        )
        ge1 = (cd.get("loss") or [None])[0]
        out.append(w | {"copy_novel_bpc": cd.get("loss_novel"), "copy_ge1_bpc": ge1})
    return out


def copy_summary(results) -> dict | None:
    """Mean over cells (seeds) of each copy-depth bucket's BPC (``novel``: depth 0,
    ``at_least[i]``: depth >= ``depths[i]``; empty buckets left out) and the positions in
    each (the test windows are the same in every cell); ``None`` without a split."""
    cds = [r["copy_depth"] for r in results if r.ok and r.get("copy_depth")]
    if not cds:
        return None

    def mean(xs):
        xs = [x for x in xs if _finite(x)]
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


def _group(entries, phases, target: int, name: str, lr, seeds, state: str) -> dict:
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


def _rung(config, walked, target: int, rws) -> dict:
    r = rung_name(target)
    fams = {}
    for f in FAMILIES:
        state, best = walked["state"][r][f.name], walked["best"][r][f.name]
        g = _group(
            walked["entries"],
            ("sweep", "seeds"),
            target,
            f.name,
            best,
            rung_seeds(config, target),
            state,
        )
        sweep = protocol.lr_sweep(
            rws,
            "val_bpc",
            lambda w, n=f.name: (
                w["rung"] == r and w["family"] == n and w["phase"] == "sweep"
            ),
        )
        fams[f.name] = g | {
            "shape": family_shape(target, f),
            "state": state,
            "lrs": walked["lrs"][r].get(f.name),
            "sweep": sweep,
            "best_lr": best,
            "lr_at_edge": protocol.at_edge(best, sweep),
            "fallback": f.name in walked["fallback"][r],
        }
    return {
        "name": r,
        "target": target,
        **cell_budget(config, target),
        "families": fams,
    }


def _long(config, walked) -> dict | None:
    t = config.long_target
    if t is None:
        return None
    r = rung_name(t)
    fams = {
        f.name: _group(
            walked["entries"],
            ("long",),
            t,
            f.name,
            walked["best"][r][f.name],
            long_seeds(config),
            walked["state"][r][f.name],
        )
        for f in FAMILIES
    }
    return {
        "name": f"{r} {budget_tag(config)}",
        "target": t,
        **cell_budget(config, t, True),
        "families": fams,
    }


# --------------------------------------------------------------------------- comparisons


def paired_test(a: dict, b: dict, seeds, confidence: float) -> dict:
    """$\\Delta_s = a_s - b_s$ over the `seeds` both hold finite: the paired summary and
    two-sided t interval ([`paired`][syncattn.experiments._protocol.paired]), the seeds,
    and the one-sided p of $\\mathbb E\\Delta < 0$ ([`syncattn.stats.t_pvalue`][],
    ``"less"``; ``None`` under two seeds)."""
    from ... import stats

    common = [s for s in seeds if _finite(a.get(s)) and _finite(b.get(s))]
    d = protocol.paired(a, b, common, confidence)
    p = stats.t_pvalue(d["values"], "less") if len(d["values"]) >= 2 else None
    return d | {"seeds": common, "p": p}


def _status(*groups) -> str:
    got = {g["status"] for g in groups}
    return (
        "failed" if "failed" in got else "pending" if "pending" in got else "complete"
    )


def _bpc(g: dict) -> dict:
    return {s: r.score("test", "bpc") for s, r in g["results"].items()}


def _copy_values(g: dict) -> dict:
    """Seed -> ``(BPC at depth >= 1, BPC at depth 0)`` of a group's cells."""
    out = {}
    for s, r in g["results"].items():
        cd = r.get("copy_depth") if r.ok else None
        ge1 = cd["loss"][cd["depths"].index(1)] if cd and 1 in cd["depths"] else None
        if _finite(ge1) and _finite(cd["loss_novel"]):
            out[s] = (ge1, cd["loss_novel"])
    return out


def comparisons(config, rungs: list[dict], long: dict | None) -> list[dict]:
    """The pre-registered comparisons, in order: H1-H4 at each rung, H1-H4 at the longer
    budget, then the copy-depth comparison at ``copy_target`` (17 by default)."""
    out = []
    blocks = [
        (e["name"], e["families"], e["families"]["softmax"]["seeds"]) for e in rungs
    ]
    if long is not None:
        blocks.append(
            (long["name"], long["families"], long["families"]["softmax"]["seeds"])
        )
    for where, fams, seeds in blocks:
        for h, a, b in HYPOTHESES:
            t = paired_test(_bpc(fams[a]), _bpc(fams[b]), seeds, config.confidence)
            out.append(
                {
                    "id": f"{h} {where}",
                    "hypothesis": h,
                    "where": where,
                    "a": a,
                    "b": b,
                    "what": f"{a} − {b}, test BPC",
                    "status": _status(fams[a], fams[b]),
                    "planned_n": len(seeds),
                    **t,
                }
            )
    if config.copy_target is not None:
        e = next(x for x in rungs if x["target"] == config.copy_target)
        h, a, b = COPY
        fa, fb = _copy_values(e["families"][a]), _copy_values(e["families"][b])
        both = set(fa) & set(fb)
        dd = {s: (fa[s][0] - fb[s][0]) - (fa[s][1] - fb[s][1]) for s in both}
        t = paired_test(
            dd, dict.fromkeys(both, 0.0), e["families"][a]["seeds"], config.confidence
        )
        out.append(
            {
                "id": f"{h} {e['name']}",
                "hypothesis": h,
                "where": e["name"],
                "a": a,
                "b": b,
                "what": f"({a} − {b}) at depth ≥ 1 − at depth 0, test BPC",
                "status": _status(e["families"][a], e["families"][b]),
                "planned_n": len(e["families"][a]["seeds"]),
                **t,
            }
        )
    return out


def decide(comps: list[dict], alpha: float) -> dict:
    r"""Holm's step-down adjustment ([`syncattn.stats.holm`][]) over **every** comparison
    in `comps` (the pre-registered family): a comparison without a p-value (failed,
    pending, under two seeds) enters at $p = 1$, so the family always has $m$ =
    ``len(comps)`` members and, while some are pending, every adjusted p is an upper
    bound of its final value (Holm's procedure is monotone in the p-values). Writes
    ``p_in_holm``, ``p_holm``, ``rejected`` ($\tilde p \le \alpha$) and ``decision`` in
    place; returns ``{"m", "alpha", "final"}`` (final: none pending)."""
    from ... import stats

    final = all(c["status"] != "pending" for c in comps)
    ps = [1.0 if c["status"] == "failed" or c["p"] is None else c["p"] for c in comps]
    for c, p, q in zip(comps, ps, stats.holm(ps), strict=True):
        c["p_in_holm"], c["p_holm"], c["rejected"] = p, q, q <= alpha
        if c["status"] == "failed":
            c["decision"] = "not supported: a family failed at this rung (not rejected)"
        elif c["status"] == "pending":
            c["decision"] = f"pending: {c['n']} of {c['planned_n']} paired seeds"
        elif not final:
            c["decision"] = "provisional (Holm over a partial family): " + (
                "rejected so far" if c["rejected"] else "not rejected so far"
            )
        elif c["p"] is None:
            c["decision"] = "not supported (fewer than 2 paired seeds)"
        else:
            c["decision"] = "supported" if c["rejected"] else "not supported"
    return {"m": len(comps), "alpha": alpha, "final": final}


# --------------------------------------------------------------------------- the report


def _waiting(config, walked) -> list[str]:
    out = []
    for r, states in walked["state"].items():
        out += [
            f"{r} {n}: sweep waits for the rung below"
            for n, s in states.items()
            if s == "waiting"
        ]
    if config.long_target is not None:
        r = rung_name(config.long_target)
        out += [
            f"{r} {budget_tag(config)} {n}: waits for its {r} sweep"
            for n, s in walked["state"][r].items()
            if s in ("waiting", "pending")
        ]
    return out


def aggregate(config, walked: dict) -> dict:
    """Everything the files show: the rows, each rung (and the longer budget) per family,
    the comparisons and Holm's decisions, what is missing or not planned yet."""
    rws = rows(config, walked["entries"])
    rungs = [_rung(config, walked, t, rws) for t in sorted(config.targets)]
    long = _long(config, walked)
    comps = comparisons(config, rungs, long)
    holm = decide(comps, config.alpha)
    for block in [*rungs, *([long] if long else [])]:
        for g in block["families"].values():
            g.pop("results")
    done = sum(w["status"] != Status.MISSING.value for w in rws)
    plan = planned(config)
    return {
        "rungs": rungs,
        "long": long,
        "comparisons": comps,
        "holm": holm,
        "progress": {
            "planned": plan,
            "finished": done,
            "by_phase": {
                p: sum(w["phase"] == p and w["status"] != "missing" for w in rws)
                for p in PHASES
            },
            "waiting": _waiting(config, walked),
        },
        "rows": rws,
        **protocol.record(rws),
        "compute": protocol.compute(rws),
        "corpus": protocol.corpus([CellResult.of(e.result) for e in walked["entries"]]),
    }


def _or(v):
    return "" if v is None else v


def tables(config, walked: dict, ctx) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``cells.csv``, ``comparisons.csv`` and ``report.md``."""
    agg = aggregate(config, walked)
    payload = {"experiment": NAME, **agg, "rebuilt_from": ctx.rebuilt_from}
    out = Path(ctx.out)
    files = {"results": write_json(out / "results.json", payload)}
    rws = agg["rows"]
    keys = list(rws[0]) if rws else ["cell"]
    files["csv"] = write_csv(
        out / "cells.csv", {k: [_or(w.get(k)) for w in rws] for k in keys}
    )
    cs = agg["comparisons"]
    cols = ("id", "what", "status", "n", "planned_n", "mean", "p", "p_holm", "decision")
    table = {k: [_or(c.get(k)) for c in cs] for k in cols}
    table["ci_lo"] = [_or(c["ci"] and c["ci"][0]) for c in cs]
    table["ci_hi"] = [_or(c["ci"] and c["ci"][1]) for c in cs]
    files["comparisons"] = write_csv(out / "comparisons.csv", table)
    files["md"] = out / "report.md"
    files["md"].write_text(markdown(config, payload))
    return payload, files


def summary(results: dict) -> str:
    """The progress, each comparison's mean difference, interval, p, Holm's p and
    decision, and the record."""
    pr = results["progress"]
    lines = [
        f"frustrated (issue 40): {pr['finished']} of {pr['planned']['total']} planned cells "
        f"finished ({', '.join(f'{p} {n}' for p, n in pr['by_phase'].items())})",
    ]
    for c in results["comparisons"]:
        if c["mean"] is None:
            lines.append(f"  {c['id']:<14} {c['what']}: {c['decision']}")
            continue
        ci = c["ci"]
        ci = f" [{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else ""
        p = "" if c["p"] is None else f", p {c['p']:.2g}"
        lines.append(
            f"  {c['id']:<14} {c['mean']:+.3f}{ci} (n={c['n']}{p}, Holm "
            f"{c['p_holm']:.2g}): {c['decision']}"
        )
    h = results["holm"]
    lines.append(
        f"  Holm over {h['m']} comparisons at {h['alpha']}"
        + ("" if h["final"] else " (provisional: some pending)")
    )
    lines += [f"  not planned yet: {w}" for w in pr["waiting"]]
    return "\n".join(lines + protocol.record_lines(results, "val BPC"))

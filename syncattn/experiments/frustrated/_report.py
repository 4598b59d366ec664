"""The frustrated experiment's outputs: per-cell rows, each family's rung, the 17
pre-registered comparisons with Holm's adjustment, the copy-depth summaries, the files."""

from __future__ import annotations

from pathlib import Path

from .. import _protocol as protocol
from .._common import write_csv, write_json
from .._protocol import CellResult, Status
from ._cells import FAMILIES, NAME, budget_tag, cell_budget, family_shape, rung_name
from ._controls_report import (
    control_blocks,
    control_comparisons,
    control_waiting,
    descriptive,
    successor_reading,
)
from ._groups import (
    copy_values,
    group,
    paired_test,
    status_of,
    test_by_seed,
)
from ._heldout import (
    HELDOUT,
    read_scores,
    rung_cells,
    score_cells,
    summarise,
    write_scores,
)
from ._markdown import markdown
from ._timing import write_timing
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


def rows(config, entries) -> list[dict]:
    """One row per cell: phase, rung, family, budget, lr, seed, status, parameters, steps,
    validation and test BPC, the copy-depth BPC of novel positions and of depth >= 1,
    tokens/s, wall time and the convergence record."""
    out = []
    for e in entries:
        cd = e.result.get("copy_depth") or {}
        r = getattr(e.cell, "time_ratio", None)  # kuramoto-time: 20 r N
        head = {
            "phase": e.phase,
            "rung": rung_name(e.target),
            "family": e.family,
            "budget": budget_tag(config)
            if e.phase == "long"
            else f"{config.tokens_per_param * (1.0 if r is None else r):g}N",
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


def _rung(config, walked, target: int, rws) -> dict:
    r = rung_name(target)
    fams = {}
    for f in FAMILIES:
        state, best = walked["state"][r][f.name], walked["best"][r][f.name]
        g = group(
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
        f.name: group(
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
            t = paired_test(
                test_by_seed(fams[a]), test_by_seed(fams[b]), seeds, config.confidence
            )
            out.append(
                {
                    "id": f"{h} {where}",
                    "hypothesis": h,
                    "where": where,
                    "a": a,
                    "b": b,
                    "what": f"{a} − {b}, test BPC",
                    "status": status_of(fams[a], fams[b]),
                    "planned_n": len(seeds),
                    **t,
                }
            )
    if config.copy_target is not None:
        e = next(x for x in rungs if x["target"] == config.copy_target)
        h, a, b = COPY
        fa, fb = copy_values(e["families"][a]), copy_values(e["families"][b])
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
                "status": status_of(e["families"][a], e["families"][b]),
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


def decide_family(
    comps: list[dict], registered: int, alpha: float
) -> tuple[dict, dict]:
    """Holm over the whole family `comps` ([`decide`][syncattn.experiments.frustrated.decide]:
    the 17 registered and the controls' A1-A4, 25 by default), and over the first
    `registered` alone: their ``p_holm_registered`` and ``decision_registered``; A3's
    ``reading`` against the successor control
    ([`successor_reading`][syncattn.experiments.frustrated._controls_report.successor_reading]).
    Returns Holm's records ``(all, registered)``."""
    alone = [dict(c) for c in comps[:registered]]
    holm_registered = decide(alone, alpha)
    for c, a in zip(comps, alone, strict=False):
        c["p_holm_registered"], c["decision_registered"] = a["p_holm"], a["decision"]
    holm = decide(comps, alpha)
    for c in comps:
        if c["hypothesis"] == "A3":
            c["reading"] = successor_reading(c, holm["final"])
    return holm, holm_registered


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
    return out + control_waiting(walked)


def aggregate(config, walked: dict) -> dict:
    """Everything the files show: the rows, each rung (and the longer budget) per family,
    the controls per control rung, the comparisons and Holm's decisions (over all, and
    over the registered 17), the descriptive rows, the timing, what is missing or not
    planned yet."""
    rws = rows(config, walked["entries"])
    rungs = [_rung(config, walked, t, rws) for t in sorted(config.targets)]
    long = _long(config, walked)
    blocks = control_blocks(config, walked)
    registered = comparisons(config, rungs, long)
    comps = registered + control_comparisons(config, blocks)
    holm, holm_registered = decide_family(comps, len(registered), config.alpha)
    desc = descriptive(config, blocks, rungs)
    for block in [*rungs, *([long] if long else []), *blocks]:
        for g in block["families"].values():
            g.pop("results")
    done = sum(w["status"] != Status.MISSING.value for w in rws)
    plan = planned(config)
    return {
        "rungs": rungs,
        "long": long,
        "controls": blocks,
        "comparisons": comps,
        "holm": holm,
        "holm_registered": holm_registered,
        "descriptive": desc,
        "timing": walked.get("timing", {}),
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


def _descriptive_rows(desc: list[dict]) -> list[dict]:
    """comparisons.csv's rows without claims: successor − Kuramoto at equal tokens, and
    the ratio of the frustrated to the ``kuramoto-time`` cells' mean wall time."""
    out = []
    for d in desc:
        word = {"status": "descriptive", "decision": "no claim", "p": None}
        out.append({k: d[k] for k in ("id", "what", "n", "mean", "ci")} | word)
        r = "?" if d["time_ratio"] is None else f"{d['time_ratio']:.2f}"
        what = f"mean wall time, frustrated / kuramoto-time cells (r = {r})"
        row = {"id": f"W {d['where']}", "what": what, "mean": d["wall_ratio"]}
        out.append(row | {"n": d["walls"]["kuramoto-time"]["n"], "ci": None} | word)
    return out


def heldout(config, rungs: list[dict], ctx) -> dict | None:
    """The held-out corpus check at rung ``config.heldout_target`` (``None``: none): in a
    run, the best-lr cells of the hypotheses' families whose checkpoints are in
    ``OUT/runs`` and not yet scored are scored and recorded in ``OUT/heldout.json`` (and
    the committed folder's with ``export``); in a rebuild the source's scores are read
    and copied to ``OUT``. Then [`summarise`][syncattn.experiments.frustrated._heldout.summarise]."""
    rung = next((e for e in rungs if e["target"] == config.heldout_target), None)
    if rung is None:
        return None
    fams = sorted({f for _, a, b in HYPOTHESES for f in (a, b)})
    committed = read_scores(ctx.committed) if ctx.committed is not None else {}
    if ctx.rebuilding:
        scores = committed
        if scores:
            write_scores(ctx.out, scores)
    else:
        folders = [ctx.out]
        if ctx.committed is not None and config.export:
            folders.append(ctx.committed)
        progress = ctx.grid is not None and ctx.grid.progress
        names = rung_cells(rung, fams)
        scores = committed | score_cells(
            names, ctx.runs, folders, batch_size=config.batch_size,
            seq_len=config.seq_len, progress=progress,
        )
    return summarise(rung, scores, HYPOTHESES, config.confidence)


def tables(config, walked: dict, ctx) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``cells.csv``, ``comparisons.csv``, ``report.md`` and, with
    held-out scores, ``heldout.json``."""
    agg = aggregate(config, walked)
    agg["heldout"] = heldout(config, agg["rungs"], ctx)
    payload = {"experiment": NAME, **agg, "rebuilt_from": ctx.rebuilt_from}
    out = Path(ctx.out)
    files = {"results": write_json(out / "results.json", payload)}
    rws = agg["rows"]
    keys = list(rws[0]) if rws else ["cell"]
    files["csv"] = write_csv(
        out / "cells.csv", {k: [_or(w.get(k)) for w in rws] for k in keys}
    )
    cs = agg["comparisons"] + _descriptive_rows(agg["descriptive"])
    cols = ("id", "what", "status", "n", "planned_n", "mean", "p", "p_holm", "decision")
    table = {k: [_or(c.get(k)) for c in cs] for k in cols}
    table["ci_lo"] = [_or(c["ci"] and c["ci"][0]) for c in cs]
    table["ci_hi"] = [_or(c["ci"] and c["ci"][1]) for c in cs]
    for k in ("p_holm_registered", "decision_registered", "reading"):
        table[k] = [_or(c.get(k)) for c in cs]
    files["comparisons"] = write_csv(out / "comparisons.csv", table)
    if agg["timing"]:
        files["timing"] = write_timing(out, agg["timing"])
    if (out / HELDOUT).is_file():
        files["heldout"] = out / HELDOUT
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
        reading = f"; A3 reading: {c['reading']}" if c.get("reading") else ""
        lines.append(
            f"  {c['id']:<14} {c['mean']:+.3f}{ci} (n={c['n']}{p}, Holm "
            f"{c['p_holm']:.2g}): {c['decision']}{reading}"
        )
    h = results["holm"]
    lines.append(
        f"  Holm over {h['m']} comparisons at {h['alpha']}"
        + ("" if h["final"] else " (provisional: some pending)")
    )
    lines += [f"  not planned yet: {w}" for w in pr["waiting"]]
    return "\n".join(lines + protocol.record_lines(results, "val BPC"))

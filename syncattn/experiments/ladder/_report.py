"""The ladder's outputs: per-cell scores and convergence, per-rung tables, the gap's fit, text."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from .._common import describe_values, fmt_mean_std, write_csv, write_json
from ..table import PAPER as TABLE_PAPER
from ._cells import MODELS, NAME, _bpc, rung_budget, rung_seeds, rung_shape


PAPER = {
    "source": TABLE_PAPER["source"], "corpus": "enwik8",
    "gap": {"1000000": 1.637 - 1.616, "5000000": {"median": 1.448 - 1.452, "mean": 1.468 - 1.456}},
    "table": {k: TABLE_PAPER[k] for k in ("1m", "5m")},
}  # fmt: skip
PREDICT_AT = (1_000_000, 5_000_000)


def _converged(config, res: dict, metric: str = "bpc") -> dict | None:
    """The convergence record of a cell from its curve of `metric` (``None``: no curve)."""
    from ... import stats

    curve = res.get("curve") if res.get("status") == "ok" else None
    if not curve or len(curve) < 2:
        return None
    r = stats.relative_improvement([p["step"] for p in curve], [p[metric] for p in curve],
                                   config.window)  # fmt: skip
    return r | {"converged": r["improvement"] < config.tol}


def _rows(config, cells, results) -> list[dict]:
    """Per cell: its scores and its convergence record."""
    rows = []
    for c, r in zip(cells, results, strict=True):
        conv = _converged(config, r)
        rows.append({
            "cell": c.name, "rung": c.name.split("-")[0], "model": c.model,
            "lr": c.overrides["train.lr"], "seed": c.seed, "status": r.get("status"),
            "params": r.get("params"), "steps": c.steps, "val_bpc": _bpc(r),
            "test_bpc": _bpc(r, "test"), "tokens_per_s": r.get("tokens_per_s"),
            "wall_s": r.get("wall_s"), "improvement": conv and conv["improvement"],
            "converged": conv and conv["converged"],
        })  # fmt: skip
    return rows


def aggregate(config, cells, results, best) -> dict:
    """Per cell: scores and convergence; per rung: the sweep, the seeds at the best lr,
    the paired gap and its interval; the gap's fit against $N$."""
    from ... import stats

    rows = _rows(config, cells, results)
    rungs, xs, gaps = [], [], []
    for target in sorted(config.targets):
        shape = rung_shape(target)
        mine = [w for w in rows if w["rung"] == shape["name"]]
        entry = {"shape": shape, **rung_budget(config, shape["params"]["kuramoto"]),
                 "best_lr": best[target], "sweep": {}, "models": {}}  # fmt: skip
        seeds = rung_seeds(config, target)
        per = {}
        for m in ("kuramoto", "softmax"):
            sweep = {w["lr"]: w["val_bpc"] for w in mine
                     if w["model"] == m and w["seed"] == config.seeds[0]}  # fmt: skip
            entry["sweep"][m] = {f"{k:g}": v for k, v in sorted(sweep.items())}
            lr = best[target][m]
            per[m] = {w["seed"]: w for w in mine if w["model"] == m and w["lr"] == lr}
            entry["models"][m] = {
                "test": describe_values([per[m][s]["test_bpc"] for s in seeds if s in per[m]]),
                "val": describe_values([per[m][s]["val_bpc"] for s in seeds if s in per[m]]),
                "lr_at_edge": lr is not None and len(sweep) > 1 and lr in (min(sweep), max(sweep)),
            }  # fmt: skip
        entry["compute"] = {m: _compute([w for w in mine if w["model"] == m]) for m in MODELS}
        d = [per["kuramoto"][s]["test_bpc"] - per["softmax"][s]["test_bpc"] for s in seeds
             if s in per["kuramoto"] and s in per["softmax"]]  # fmt: skip
        d = [v for v in d if math.isfinite(v)]
        entry["gap"] = describe_values(d) | {"ci": stats.t_interval(d, config.confidence) if d else None}
        if d:
            xs.append(shape["params"]["kuramoto"])
            gaps.append(d)
        rungs.append(entry)
    fit = {"status": "no fit: fewer than 2 rungs with a gap"}
    if len(xs) >= 2:
        fit = {"status": "ok", "model": "gap = a + b ln N"} | stats.log_linear_bootstrap(
            xs, gaps, at=PREDICT_AT, n_boot=config.n_boot, seed=config.boot_seed,
            confidence=config.confidence)  # fmt: skip
    missing = [w["cell"] for w in rows if w["status"] == "missing"]
    not_conv = [w["cell"] for w in rows if w["converged"] is False]
    first = next((r for r in results if r.get("status") == "ok"), {})
    return {"rungs": rungs, "fit": fit, "rows": rows, "not_converged": not_conv,
            "missing": missing, "corpus": first.get("corpus")}  # fmt: skip


def _compute(rows) -> dict:
    """Cells run, their wall time and median training tokens/s (as measured, on a
    machine that may have been shared)."""
    done = [w for w in rows if w["status"] == "ok"]
    tps = [w["tokens_per_s"] for w in done if w["tokens_per_s"]]
    return {"cells": len(done), "wall_s": sum(w["wall_s"] or 0.0 for w in done),
            "tokens_per_s": statistics.median(tps) if tps else None}  # fmt: skip


def _write(config, out, cells, results, best, rebuilt_from=None, items=None) -> dict[str, Path]:
    from . import _items
    from ._plot import plot

    agg = aggregate(config, cells, results, best)
    if items is not None:
        abl, abl_results, dyn, measured = items
        agg |= _items.aggregate(config, best, abl, abl_results, agg["rows"], dyn, measured)
        agg["ablation_rows"] = _rows(config, abl, abl_results)
    payload = {"experiment": NAME, **agg, "paper": PAPER, "rebuilt_from": rebuilt_from,
               "paper_corpus_matches": (agg.get("corpus") or {}).get("name") == "enwik8"}  # fmt: skip
    files = {"results": write_json(out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(out / "cells.csv", {
        k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]})  # fmt: skip
    rr = [(e, m) for e in agg["rungs"] for m in ("kuramoto", "softmax")]
    files["rungs"] = write_csv(out / "rungs.csv", {
        "rung": [e["shape"]["name"] for e, _ in rr], "model": [m for _, m in rr],
        "params": [e["shape"]["params"][m] for e, m in rr],
        "d_model": [e["shape"]["d_model"] for e, _ in rr],
        "n_layers": [e["shape"]["n_layers"] for e, _ in rr],
        "d_ff": [e["shape"]["d_ff"][m] for e, m in rr], "tokens": [e["tokens"] for e, _ in rr],
        "steps": [e["steps"] for e, _ in rr],
        "best_lr": ["" if e["best_lr"][m] is None else e["best_lr"][m] for e, m in rr],
        "n_seeds": [e["models"][m]["test"]["n"] for e, m in rr],
        "test_bpc_mean": [_or(e["models"][m]["test"]["mean"]) for e, m in rr],
        "test_bpc_std": [_or(e["models"][m]["test"]["std"]) for e, m in rr],
        "gap_mean": [_or(e["gap"]["mean"]) for e, _ in rr],
    })  # fmt: skip
    files["png"] = plot(agg, PAPER, out / "ladder.png")
    if items is not None:
        files |= _items.write(out, agg)
    return files


def _or(v):
    return "" if v is None else v


def summary(results: dict) -> str:
    """The ladder as text: per rung the shape, the lrs, BPC per model, the gap; the fit;
    the convergence record."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [f"ladder on {corpus}: test BPC at each model's best lr (mean ± std over seeds)"]
    for e in results["rungs"]:
        s = e["shape"]
        lines.append(f"  {s['name']:>5} N={s['params']['kuramoto']:,} / {s['params']['softmax']:,} "
                     f"(d {s['d_model']}, L {s['n_layers']}), {e['tokens']:,} tokens, {e['steps']} steps")
        for m, t in e["models"].items():
            sweep = ", ".join(f"{lr}: {v:.3f}" for lr, v in e["sweep"][m].items() if v is not None and math.isfinite(v))
            edge = " (at the sweep's edge)" if t["lr_at_edge"] else ""
            lines.append(f"        {m:<9} {fmt_mean_std(t['test'])} (n={t['test']['n']}), "
                         f"lr {e['best_lr'][m]}{edge}; val BPC by lr: {sweep}")
        g = e["gap"]
        ci = f" [{g['ci'][0]:+.3f}, {g['ci'][1]:+.3f}]" if g.get("ci") else ""
        lines.append(f"        gap {fmt_mean_std(g, 3)}{ci} (paired, n={g['n']})")
    f = results["fit"]
    if f["status"] == "ok":
        preds = "; ".join(f"{p['x']:.0e}: {p['y']:+.3f} [{p['ci'][0]:+.3f}, {p['ci'][1]:+.3f}]"
                          for p in f["predictions"])  # fmt: skip
        lines.append(f"  fit gap = {f['a']:.3f} + {f['b']:.4f} ln N (R2 {f['r2']:.2f}); "
                     f"predicted {preds} | paper +0.021 at 1M, about 0 at 5M")
    else:
        lines.append(f"  fit: {f['status']}")
    lines += record_lines(results, "val BPC")
    if results.get("ablations") or results.get("dynamics"):
        from ._items import summary as items_summary

        more = items_summary(results)
        lines += [more] if more else []
    return "\n".join(lines)


def record_lines(results: dict, metric: str) -> list[str]:
    """The summary's lines on the cells not converged (by `metric`) and missing."""
    nc = results["not_converged"]
    lines = [f"  not converged ({metric} fell >= 1 % over the last 20 %): {', '.join(nc) or 'none'}"]
    if results.get("missing"):
        lines.append(f"  missing cells: {len(results['missing'])}")
    return lines


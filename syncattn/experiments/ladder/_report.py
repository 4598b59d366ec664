"""The ladder's outputs: per-cell scores and convergence, per-rung tables, the gap's fit, text."""

from __future__ import annotations

import math
from pathlib import Path

from .. import _protocol as protocol
from .._common import describe_values, fmt_mean_std, write_csv, write_json
from .._papers import TABLE as TABLE_PAPER
from .._protocol import family_of, record_lines, rung_budget, rung_shape
from ._cells import FAMILIES, MODELS, NAME, rung_seeds


PAPER = {
    "source": TABLE_PAPER["source"],
    "corpus": "enwik8",
    "gap": {
        "1000000": 1.637 - 1.616,
        "5000000": {"median": 1.448 - 1.452, "mean": 1.468 - 1.456},
    },
    "table": {k: TABLE_PAPER[k] for k in ("1m", "5m")},
}
PREDICT_AT = (1_000_000, 5_000_000)


def _rows(config, cells, results) -> list[dict]:
    """Per cell: its scores and its convergence record."""
    scores = {"val_bpc": ("val", "bpc"), "test_bpc": ("test", "bpc")}

    def head(c):
        return {"rung": c.name.split("-")[0], "model": family_of(c)}

    return [
        protocol.cell_row(config, c, r, head(c), scores, "bpc")
        for c, r in zip(cells, results, strict=True)
    ]


def aggregate(config, cells, results, best) -> dict:
    """Per cell: scores and convergence; per rung and family: the sweep, the seeds at the
    best lr; per rung the paired gap of the reference family (the first) to the baseline
    (the last) and its interval; the gap's fit against $N$."""
    from ... import stats

    rows = _rows(config, cells, results)
    rungs, xs, gaps = [], [], []
    ref, base = MODELS[0], MODELS[-1]
    for target in sorted(config.targets):
        shape = rung_shape(target)
        mine = [w for w in rows if w["rung"] == shape["name"]]
        entry = {
            "shape": shape,
            **rung_budget(config, shape["params"][ref]),
            "best_lr": best[target],
            "sweep": {},
            "models": {},
        }
        seeds = rung_seeds(config, target)
        per = {}
        for m in MODELS:
            entry["sweep"][m] = sweep = protocol.lr_sweep(
                mine,
                "val_bpc",
                lambda w, m=m: w["model"] == m and w["seed"] == config.seeds[0],
            )
            lr = best[target][m]
            per[m] = {w["seed"]: w for w in mine if w["model"] == m and w["lr"] == lr}
            entry["models"][m] = {
                "test": describe_values(
                    [per[m][s]["test_bpc"] for s in seeds if s in per[m]]
                ),
                "val": describe_values(
                    [per[m][s]["val_bpc"] for s in seeds if s in per[m]]
                ),
                "lr_at_edge": protocol.at_edge(lr, sweep),
            }
        entry["compute"] = {
            m: protocol.compute([w for w in mine if w["model"] == m]) for m in MODELS
        }
        test = {m: {s: w["test_bpc"] for s, w in per[m].items()} for m in (ref, base)}
        entry["gap"] = protocol.paired(test[ref], test[base], seeds, config.confidence)
        if entry["gap"]["n"]:
            xs.append(shape["params"][ref])
            gaps.append(entry["gap"]["values"])
        rungs.append(entry)
    fit = {"status": "no fit: fewer than 2 rungs with a gap"}
    if len(xs) >= 2:
        boot = stats.log_linear_bootstrap(
            xs,
            gaps,
            at=PREDICT_AT,
            n_boot=config.n_boot,
            seed=config.boot_seed,
            confidence=config.confidence,
        )
        fit = {"status": "ok", "model": "gap = a + b ln N"} | boot
    return {
        "rungs": rungs,
        "fit": fit,
        "rows": rows,
        **protocol.record(rows),
        "corpus": protocol.corpus(results),
    }


def tables(config, walked, ctx) -> tuple[dict, dict[str, Path]]:
    """``results.json``, ``cells.csv``, ``rungs.csv`` and the items' CSV files of the
    walk's cells, best lrs and items (the ablations and the dynamics)."""
    from . import _items_report

    cells, results, best, items = walked
    out, rebuilt_from = ctx.out, ctx.rebuilt_from
    agg = aggregate(config, cells, results, best)
    if items is not None:
        abl, abl_results, dyn, measured = items
        agg |= _items_report.aggregate(
            config, best, abl, abl_results, agg["rows"], dyn, measured
        )
        agg["ablation_rows"] = _rows(config, abl, abl_results)
    payload = {
        "experiment": NAME,
        **agg,
        "paper": PAPER,
        "rebuilt_from": rebuilt_from,
        "paper_corpus_matches": (agg.get("corpus") or {}).get("name") == "enwik8",
    }
    files = {"results": write_json(out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(
        out / "cells.csv",
        {k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]},
    )
    rr = [(e, m) for e in agg["rungs"] for m in MODELS]
    files["rungs"] = write_csv(
        out / "rungs.csv",
        {
            "rung": [e["shape"]["name"] for e, _ in rr],
            "model": [m for _, m in rr],
            "params": [e["shape"]["params"][m] for e, m in rr],
            "d_model": [e["shape"]["d_model"] for e, _ in rr],
            "n_layers": [e["shape"]["n_layers"] for e, _ in rr],
            "d_ff": [e["shape"]["d_ff"][m] for e, m in rr],
            "tokens": [e["tokens"] for e, _ in rr],
            "steps": [e["steps"] for e, _ in rr],
            "best_lr": [
                "" if e["best_lr"][m] is None else e["best_lr"][m] for e, m in rr
            ],
            "n_seeds": [e["models"][m]["test"]["n"] for e, m in rr],
            "test_bpc_mean": [_or(e["models"][m]["test"]["mean"]) for e, m in rr],
            "test_bpc_std": [_or(e["models"][m]["test"]["std"]) for e, m in rr],
            "gap_mean": [_or(e["gap"]["mean"]) for e, _ in rr],
        },
    )
    if items is not None:
        files |= _items_report.write(out, agg)
    return payload, files


def plots(config, results: dict, out: Path) -> dict[str, Path]:
    """``ladder.png`` (and ``ladder_items.png`` when there are items) from the results."""
    from . import _items_report
    from ._plot import plot

    files = {
        "png": plot(
            results, PAPER, out / "ladder.png", FAMILIES, "Kuramoto - transformer"
        )
    }
    return files | _items_report.plots(out, results)


def _or(v):
    return "" if v is None else v


def summary(results: dict) -> str:
    """The ladder as text: per rung the shape, the lrs, BPC per model, the gap; the fit;
    the convergence record."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [
        f"ladder on {corpus}: test BPC at each model's best lr (mean ± std over seeds)"
    ]
    for e in results["rungs"]:
        s = e["shape"]
        counts = " / ".join(f"{s['params'][m]:,}" for m in MODELS)
        lines.append(
            f"  {s['name']:>5} N={counts} "
            f"(d {s['d_model']}, L {s['n_layers']}), {e['tokens']:,} tokens, {e['steps']} steps"
        )
        for m, t in e["models"].items():
            sweep = ", ".join(
                f"{lr}: {v:.3f}"
                for lr, v in e["sweep"][m].items()
                if v is not None and math.isfinite(v)
            )
            edge = " (at the sweep's edge)" if t["lr_at_edge"] else ""
            lines.append(
                f"        {m:<9} {fmt_mean_std(t['test'])} (n={t['test']['n']}), "
                f"lr {e['best_lr'][m]}{edge}; val BPC by lr: {sweep}"
            )
        g = e["gap"]
        ci = f" [{g['ci'][0]:+.3f}, {g['ci'][1]:+.3f}]" if g.get("ci") else ""
        lines.append(f"        gap {fmt_mean_std(g, 3)}{ci} (paired, n={g['n']})")
    f = results["fit"]
    if f["status"] == "ok":
        preds = "; ".join(
            f"{p['x']:.0e}: {p['y']:+.3f} [{p['ci'][0]:+.3f}, {p['ci'][1]:+.3f}]"
            for p in f["predictions"]
        )
        lines.append(
            f"  fit gap = {f['a']:.3f} + {f['b']:.4f} ln N (R2 {f['r2']:.2f}); "
            f"predicted {preds} | paper +0.021 at 1M, about 0 at 5M"
        )
    else:
        lines.append(f"  fit: {f['status']}")
    lines += record_lines(results, "val BPC")
    if results.get("ablations") or results.get("dynamics"):
        from ._items_report import summary as items_summary

        more = items_summary(results)
        lines += [more] if more else []
    return "\n".join(lines)

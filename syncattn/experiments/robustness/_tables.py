r"""The robustness experiment's tables: per model the curves (mean, spread, loss and
tolerance against the strength), the CSV rows, the tolerance table and the summary."""

from __future__ import annotations

import numpy as np

from . import _sweep, _tolerance
from ._sweep import HARSHER, SYMBOLS


def curves(config, state, metric: str, task: str) -> dict:
    """Per swept non-ideality: strengths, mean/std/draws of the metric, loss, tolerance."""
    out = {}
    for kind, strengths in config.grids(task).items():
        pts = state["points"].get(kind)
        if not pts:
            continue
        ideal = (
            state.get("ideal_dynamic", state["ideal"])
            if kind in _sweep.DYNAMIC
            else state["ideal"]
        )
        strengths = [s for s in strengths if str(s) in pts]  # all, unless unfinished
        vals = [pts[str(s)] for s in strengths]
        mean = [float(np.mean(v)) for v in vals]
        std = [float(np.std(v, ddof=1)) if len(v) > 1 else None for v in vals]
        lim = config.acc_limit if metric.startswith("acc") else config.ppl_limit
        loss = _tolerance.loss(metric, ideal, mean)
        tol = _tolerance.tolerance(strengths, loss, lim, harsher=HARSHER[kind])
        out[kind] = {
            "strengths": list(strengths),
            "ideal": ideal,
            "mean": mean,
            "std": std,
            "draws": vals,
            "loss": loss.tolist(),
            "tolerance": tol,
        }
    return out


def rows(per_model) -> dict[str, list]:
    cols = {
        k: []
        for k in (
            "task",
            "model",
            "d_osc",
            "seed",
            "nonideality",
            "strength",
            "metric",
            "ideal",
            "mean",
            "std",
            "loss",
            "draws",
            "theory",
        )
    }
    theory_key = {
        "noise": "contrast_kept",
        "frequency_disorder": "locked_fraction",
        "settle_time": "mean_error",
    }
    for e in per_model.values():
        for kind, c in e.get("curves", {}).items():
            th = (e.get("theory") or {}).get(kind)
            grid = [str(x) for x in e["theory_strengths"].get(kind, [])]
            for j, s in enumerate(c["strengths"]):
                cols["task"].append(e["task"])
                cols["model"].append(e["model"])
                cols["d_osc"].append(e["d_osc"] if e["d_osc"] is not None else "")
                cols["seed"].append(e["seed"])
                cols["nonideality"].append(kind)
                cols["strength"].append(float(s))
                cols["metric"].append(e["metric"])
                cols["ideal"].append(float(e["ideal"]))
                cols["mean"].append(c["mean"][j])
                cols["std"].append(
                    c["std"][j] if c["std"][j] is not None else float("nan")
                )
                cols["loss"].append(c["loss"][j])
                cols["draws"].append(len(c["draws"][j]))
                cols["theory"].append(
                    th[theory_key[kind]][grid.index(str(s))] if th else float("nan")
                )
    return cols


def tolerance_table(per_model: dict) -> dict[str, list]:
    """One row per (task, model, d_osc, non-ideality): the tolerance of each seed's model
    (``"0.19"``, ``"> 10"``; see [`describe`][syncattn.experiments.robustness._tolerance.describe]),
    and the geometric mean of the crossed ones."""
    groups: dict = {}
    for e in per_model.values():
        for kind, c in e.get("curves", {}).items():
            key = (
                e["task"],
                e["model"],
                e["d_osc"] if e["d_osc"] is not None else "",
                kind,
            )
            groups.setdefault(key, []).append((e["seed"], c["tolerance"]))
    cols = {
        k: []
        for k in (
            "task",
            "model",
            "d_osc",
            "nonideality",
            "seeds",
            "tolerances",
            "crossed_geomean",
        )
    }
    for (task, model, d, kind), vals in groups.items():
        vals.sort(key=lambda sv: sv[0])
        crossed = [t["value"] for _, t in vals if t["status"] == "crossed"]
        for name, v in zip(
            ("task", "model", "d_osc", "nonideality"),
            (task, model, d, kind),
            strict=True,
        ):
            cols[name].append(v)
        cols["seeds"].append(" ".join(str(sd) for sd, _ in vals))
        cols["tolerances"].append(
            " / ".join(_tolerance.describe(t, HARSHER[kind]) for _, t in vals)
        )
        cols["crossed_geomean"].append(
            float(np.exp(np.mean(np.log(crossed)))) if crossed else float("nan")
        )
    return cols


def summary(results: dict) -> str:
    """Per model: the ideal metric and the tolerance to each non-ideality."""
    lim = results["limits"]
    lines = [
        f"tolerance: strength at which hard accuracy drops {lim['acc_hard_points']:g} point "
        f"or perplexity rises {100 * lim['ppl_relative']:g} %"
    ]
    for key, e in results["models"].items():
        if "curves" not in e:
            lines.append(f"  {key}: {e.get('status')}")
            continue
        tol = ", ".join(
            f"{SYMBOLS[k]} {_tolerance.describe(c['tolerance'], HARSHER[k])}"
            for k, c in e["curves"].items()
        )
        lines.append(
            f"  {key:<22} ideal {e['metric']} {e['ideal']:.2f} | {tol or 'no analogue swept'}"
        )
    return "\n".join(lines)

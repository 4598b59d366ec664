r"""Experiment 4's statistics (``agreement``): the paper's numbers and, per model, the
accuracy summaries, the failure counts with their intervals and Fisher's tests, the
hard-accuracy gain and the paired differences between the arms.
"""

from __future__ import annotations

import numpy as np

from ._common import describe_values
from ._protocol import CellResult
from ._variants import COMPARISONS, paired as paired_difference


PAPER = {
    "source": "seed 001 (arXiv 2606.12059); ../shared/EXPERIMENTS.md B2",
    "5 seeds": {
        "softmax": {
            "all": 92.19,
            "all_std": 7.80,
            "hard": 92.11,
            "hard_std": 7.87,
            "failures": 1,
            "n": 5,
        },
        "oscillator": {
            "all": 97.81,
            "all_std": 0.15,
            "hard": 97.38,
            "hard_std": 0.33,
            "failures": 0,
            "n": 5,
        },
    },
    "50 seeds": {
        "softmax": {"all": 91.04, "hard": 90.77, "failures": 12, "n": 50},
        "oscillator": {"all": 95.78, "hard": 95.76, "failures": 3, "n": 50},
    },
    "hard_gain_points": 5.27,
}


def _model_entry(config, m: str, sel: list[dict]) -> dict:
    """Model `m`'s accuracy summaries over its rows `sel` (percent), its failures with
    their intervals and Fisher's test against the paper's 50 seeds."""
    from .. import stats

    k, n = sum(r["failed"] for r in sel), len(sel)
    entry = {
        key: describe_values([r[f"acc_{key}"] for r in sel])
        for key in ("all", "simple", "hard")
    } | {"failures": k, "n": n}
    if n:
        cp = stats.clopper_pearson(k, n, config.confidence)
        wl = stats.wilson(k, n, config.confidence)
        p50 = PAPER["50 seeds"].get(m)
        entry |= {
            "failure_rate": k / n,
            "clopper_pearson": [float(cp[0]), float(cp[1])],
            "wilson": [float(wl[0]), float(wl[1])],
            "fisher_vs_paper_50": (
                None
                if p50 is None
                else stats.fisher_exact(k, n, p50["failures"], p50["n"])
            ),
        }
    return entry


def _gain(config, table: dict, rows: list[dict]) -> tuple:
    """``(gap, gain, between)``: the hard-accuracy gain oscillator - softmax (of the
    means; paired over the seeds, with its t interval) and Fisher's test between the
    models' failures; all ``None`` unless both models have results."""
    from .. import stats

    both = ("oscillator", "softmax")
    if not (set(both) <= set(config.models) and all(table[m]["n"] for m in both)):
        return None, None, None
    gap = table["oscillator"]["hard"]["mean"] - table["softmax"]["hard"]["mean"]
    hard = {(r["model"], r["seed"]): r["acc_hard"] for r in rows}
    paired = [
        hard["oscillator", s] - hard["softmax", s]
        for s in config.seeds
        if ("oscillator", s) in hard and ("softmax", s) in hard
    ]
    ci = stats.t_interval(paired, config.confidence) if len(paired) > 1 else None
    gain = {
        "mean": float(np.mean(paired)) if paired else None,
        "n": len(paired),
        "ci": None if ci is None else [float(ci[0]), float(ci[1])],
    }
    o, sm = table["oscillator"], table["softmax"]
    p50 = PAPER["50 seeds"]
    between = {
        "oscillator_vs_softmax": stats.fisher_exact(
            o["failures"], o["n"], sm["failures"], sm["n"]
        ),
        "paper_50": stats.fisher_exact(
            *(p50[m][f] for m in both for f in ("failures", "n"))
        ),
    }
    return gap, gain, between


def aggregate(config, cell_list, results) -> dict:
    """Per model: accuracy summaries (percent), failures with intervals and Fisher's test
    against the paper's 50 seeds; the hard-accuracy gain, with its paired interval, and
    Fisher's test between the models. Cells without a result are listed in ``missing``."""
    rows, missing = [], []
    for c, r in zip(cell_list, results, strict=True):
        r = CellResult.of(r)
        v = r.get("val")
        if not r.ok or not v:
            missing.append(c.name)
            continue
        rows.append(
            {
                "model": c.model,
                "seed": c.seed,
                "status": r.status.value,
                "acc_all": 100 * v["acc_all"],
                "acc_simple": 100 * v["acc_simple"],
                "acc_hard": 100 * v["acc_hard"],
                "failed": bool(v["failed"]),
            }
        )
    table = {
        m: _model_entry(config, m, [r for r in rows if r["model"] == m])
        for m in config.models
    }
    gap, gain, between = _gain(config, table, rows)
    acc = {
        key: {(r["model"], r["seed"]): r[f"acc_{key}"] for r in rows}
        for key in ("hard", "all")
    }

    def paired(key, a, b):
        return paired_difference(acc[key], config.seeds, a, b, config.confidence)

    comparisons = [
        {key: paired(key, a, b) for key in ("hard", "all")} | {"a": a, "b": b}
        for a, b in COMPARISONS
        if {a, b} <= set(config.models)
    ]
    return {
        "rows": rows,
        "table": table,
        "hard_gain_points": gap,
        "paired_hard_gain": gain,
        "fisher_between_models": between,
        "comparisons": comparisons,
        "missing": missing,
        "confidence": config.confidence,
    }

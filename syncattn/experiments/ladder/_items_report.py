r"""The ladder's items (``_items``) reported: the ablation table (paired test-BPC
differences from the full model), the probes of the gap, the dynamics per rung; their
CSV files, their figure and their text.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .._common import describe_values, new_figure, save_figure, write_csv
from .._papers import ABLATIONS as ABLATION_PAPER
from .._protocol import CellResult, rung_shape
from ._cells import rung_seeds
from ._items import _STATS, PROBES, _test, _variant, variant_overrides


def _paired(d: list[float], confidence: float) -> dict:
    """`describe_values` of the paired differences `d`, with their Student-t interval
    (``None`` under two)."""
    from ... import stats

    ci = stats.t_interval(d, confidence) if len(d) > 1 else None
    return describe_values(d) | {"ci": ci}


def _ablation_table(config, best, abl_cells, abl_results, full_rows) -> dict:
    """At rung ``config.ablate_at``: the full Kuramoto model's count and test BPC, and
    per ablation its count, switches, test BPC and paired difference from the full
    model, beside the paper's."""
    from .._common import to_jsonable

    target = config.ablate_at
    seeds = rung_seeds(config, target)
    name, lr = rung_shape(target)["name"], best[target]["kuramoto"]
    full = {
        w["seed"]: w
        for w in full_rows
        if w["rung"] == name and w["model"] == "kuramoto" and w["lr"] == lr
    }
    table = {
        "full": {
            "params": rung_shape(target)["params"]["kuramoto"],
            "test": describe_values([full[s]["test_bpc"] for s in seeds if s in full]),
        }
    }
    for v in config.ablations:
        mine = {
            c.seed: r
            for c, r in zip(abl_cells, abl_results, strict=True)
            if _variant(c) == v
        }
        d = [
            _test(mine[s]) - full[s]["test_bpc"]
            for s in seeds
            if s in mine and s in full
        ]
        d = [x for x in d if math.isfinite(x)]
        params = next((r.get("params") for r in mine.values() if r.get("params")), None)
        table[v] = {
            "params": params,
            "overrides": to_jsonable(variant_overrides(target, v)),
            "test": describe_values([_test(mine[s]) for s in seeds if s in mine]),
            "delta": _paired(d, config.confidence),
            "paper_delta": ABLATION_PAPER["delta_bpc"][v.replace("-matched", "")],
            "missing": [
                s for s in seeds if s not in mine or not CellResult.of(mine[s]).ok
            ],
        }
    return table


def _probe_table(config, best, abl_cells, abl_results, full_rows) -> dict:
    """At rung ``config.ablate_at``, on its first ``probe_seeds`` seeds: the gap of the
    Kuramoto model to softmax, and per probe its test BPC, its paired difference from
    the full Kuramoto model and the gap to softmax left."""
    target = config.ablate_at
    name, lr = rung_shape(target)["name"], best[target]

    def test_bpc(model):
        return {
            w["seed"]: w["test_bpc"]
            for w in full_rows
            if w["rung"] == name and w["model"] == model and w["lr"] == lr[model]
        }

    soft, kur = test_bpc("softmax"), test_bpc("kuramoto")
    seeds = rung_seeds(config, target)[: config.probe_seeds]
    gap = [kur[s] - soft[s] for s in seeds if s in kur and s in soft]
    probes = {"full": {"seeds": list(seeds), "gap": describe_values(gap)}}
    for v in config.probes:
        mine = {
            c.seed: _test(r)
            for c, r in zip(abl_cells, abl_results, strict=True)
            if _variant(c) == v and CellResult.of(r).ok
        }
        d = [mine[s] - kur[s] for s in seeds if s in mine and s in kur]
        g = [mine[s] - soft[s] for s in seeds if s in mine and s in soft]
        probes[v] = {
            "overrides": dict(PROBES[v]),
            "test": describe_values(list(mine.values())),
            "delta": _paired(d, config.confidence),
            "gap": describe_values(g),
        }
    return probes


def _dynamics_rungs(config, dyn_cells, dyn) -> dict:
    """Per rung: each measured seed's dynamics, their means over the seeds (trained and
    at initialisation), the verdicts on the mean and the mean gradient norms."""
    rungs = {}
    for c, m in zip(dyn_cells, dyn, strict=True):
        if m is None:
            continue
        e = rungs.setdefault(c.name.split("-")[0], {"seeds": [], "per_seed": []})
        e["seeds"].append(c.seed)
        e["per_seed"].append(
            {
                "seed": c.seed,
                "cell": c.name,
                "verdicts": m["verdicts"],
                "trained": m["trained"],
                "init": m["init"],
                "retrained": m.get("retrained", False),
                "test_bpc_committed": m.get("test_bpc_committed"),
                "test_bpc_retrained": m.get("test_bpc_retrained"),
                "grad_norms": m.get("grad_norms"),
            }
        )
    from .._dynamics import verdicts

    for e in rungs.values():
        per_seed = e["per_seed"]
        e["mean"] = {
            k: np.mean([p["trained"][k] for p in per_seed], 0).tolist() for k in _STATS
        }
        e["mean_init"] = {
            k: np.mean([p["init"][k] for p in per_seed], 0).tolist() for k in _STATS
        }
        e["verdicts"] = verdicts(e["mean"], config.local_threshold)
        gn = [p["grad_norms"] for p in per_seed if p.get("grad_norms")]
        e["grad_norms"] = (
            {
                kind: {b: float(np.mean([g[kind][b] for g in gn])) for b in gn[0][kind]}
                for kind in ("trained", "init")
            }
            if gn
            else None
        )
    return rungs


def aggregate(config, best, abl_cells, abl_results, full_rows, dyn_cells, dyn) -> dict:
    """The ablation table (paired test-BPC differences) and the dynamics per rung."""
    table = {}
    target = config.ablate_at
    if target is not None and abl_cells:
        table = _ablation_table(config, best, abl_cells, abl_results, full_rows)
    probes = {}
    if target is not None and abl_cells and config.probes:
        probes = _probe_table(config, best, abl_cells, abl_results, full_rows)
    rungs = _dynamics_rungs(config, dyn_cells, dyn)
    return {
        "ablations": {
            "rung": rung_shape(target)["name"] if target else None,
            "lr": best.get(target, {}).get("kuramoto") if target else None,
            "table": table,
            "paper": ABLATION_PAPER,
            "probes": probes,
        },
        "dynamics": {
            "n_sequences": config.dynamics_sequences,
            "local_threshold": config.local_threshold,
            "rungs": rungs,
        },
    }


def write(out: Path, items: dict) -> dict[str, Path]:
    """``ablations.csv``, ``dynamics.csv`` and ``dynamics_grads.csv`` (when there is anything)."""
    files = {}
    t = items["ablations"]["table"]
    if t:
        names = list(t)
        ci = {v: t[v].get("delta", {}).get("ci") or [None, None] for v in names}
        files["ablations"] = write_csv(
            out / "ablations.csv",
            {
                "variant": names,
                "params": [t[v]["params"] for v in names],
                "test_bpc_mean": [_or(t[v]["test"]["mean"]) for v in names],
                "test_bpc_std": [_or(t[v]["test"]["std"]) for v in names],
                "n": [t[v]["test"]["n"] for v in names],
                "delta_mean": [_or(t[v].get("delta", {}).get("mean")) for v in names],
                "delta_ci_low": [_or(ci[v][0]) for v in names],
                "delta_ci_high": [_or(ci[v][1]) for v in names],
                "paper_delta": [_or(t[v].get("paper_delta")) for v in names],
            },
        )
    rows = [
        (rung, p["seed"], kind, layer, *(p[kind][k][layer] for k in _STATS))
        for rung, e in items["dynamics"]["rungs"].items()
        for p in e["per_seed"]
        for kind in ("trained", "init")
        for layer in range(len(p[kind]["local_order"]))
    ]
    if rows:
        cols = (
            "rung",
            "seed",
            "model",
            "layer",
            "local_order",
            "global_order",
            "omega_abs_mean",
        )
        files["dynamics"] = write_csv(
            out / "dynamics.csv", {n: [r[i] for r in rows] for i, n in enumerate(cols)}
        )
    grads = [
        (rung, p["seed"], kind, b, v)
        for rung, e in items["dynamics"]["rungs"].items()
        for p in e["per_seed"]
        if p.get("grad_norms")
        for kind in ("trained", "init")
        for b, v in p["grad_norms"][kind].items()
    ]
    if grads:
        cols = ("rung", "seed", "model", "block", "grad_norm")
        files["grads"] = write_csv(
            out / "dynamics_grads.csv",
            {n: [r[i] for r in grads] for i, n in enumerate(cols)},
        )
    return files


def plots(out: Path, items: dict) -> dict[str, Path]:
    """``ladder_items.png`` when there are ablations or dynamics."""
    if "ablations" not in items or not (
        items["ablations"]["table"]
        or any(e["per_seed"] for e in items["dynamics"]["rungs"].values())
    ):
        return {}
    return {"items_png": _plot(items, out / "ladder_items.png")}


def _or(v):
    return "" if v is None else v


def _plot(items, path):
    fig, axes = new_figure(4, 1, width=3.5, height=3.2)
    ax = axes[0]
    t = items["ablations"]["table"]
    variants = [v for v in t if v != "full"]
    for i, v in enumerate(variants):
        d = t[v]["delta"]
        vals = [x for x in d["values"] if math.isfinite(x)]
        ax.scatter(
            [i - 0.12] * len(vals),
            vals,
            s=14,
            color="C0",
            alpha=0.6,
            label="per seed" if i == 0 else None,
        )
        if d["mean"] is not None:
            ci = d.get("ci") or (d["mean"], d["mean"])
            ax.errorbar(
                [i + 0.05],
                [d["mean"]],
                yerr=[[d["mean"] - ci[0]], [ci[1] - d["mean"]]],
                fmt="o",
                color="C0",
                capsize=3,
                label="mean, t interval" if i == 0 else None,
            )
        ax.scatter(
            [i + 0.2],
            [t[v]["paper_delta"]],
            marker="*",
            s=80,
            color="k",
            label="paper" if i == 0 else None,
        )
    probes = {
        v: e for v, e in (items["ablations"].get("probes") or {}).items() if v != "full"
    }
    for i, (v, e) in enumerate(probes.items(), start=len(variants)):
        vals = [x for x in e["delta"]["values"] if math.isfinite(x)]
        ax.scatter(
            [i] * len(vals),
            vals,
            s=14,
            color="C2",
            alpha=0.8,
            label="probe (why the gap), per seed" if i == len(variants) else None,
        )
    ax.axhline(0, color="0.6", lw=0.8)
    names = variants + list(probes)
    ax.set_xticks(range(len(names)), names, rotation=35, fontsize=6)
    ax.set_ylabel("test BPC - full model")
    ax.set_title(f"ablations and probes at {items['ablations']['rung']}", fontsize=9)
    if variants:
        ax.legend(fontsize=6, loc="center right")
    labels = {
        "local_order": "local order",
        "global_order": "global order",
        "omega_abs": r"mean $|\omega|$",
    }
    rungs = items["dynamics"]["rungs"]
    for bx, k in zip(axes[1:], _STATS, strict=True):
        for i, (rung, e) in enumerate(rungs.items()):
            y = e["mean"][k]
            bx.plot(range(1, len(y) + 1), y, "o-", color=f"C{i}", label=rung)
            bx.plot(range(1, len(y) + 1), e["mean_init"][k], ":", color=f"C{i}", lw=0.8)
        bx.set_xlabel("layer")
        depth = max((len(e["mean"][k]) for e in rungs.values()), default=1)
        bx.set_xticks(range(1, depth + 1))
        bx.set_title(f"{labels[k]} (dotted: init)", fontsize=9)
        if k == "local_order":
            bx.axhline(items["dynamics"]["local_threshold"], color="k", lw=0.6, ls="--")
        if rungs:
            bx.legend(fontsize=7)
    return save_figure(fig, path)


def summary(items: dict) -> str:
    """The ablation table and the per-rung dynamics verdicts as text."""
    lines = []
    a = items["ablations"]
    if a["table"]:
        lines.append(
            f"ablations at {a['rung']} (Kuramoto lr {a['lr']}): test BPC - full model, "
            "paired by seed | paper"
        )
        for v, e in a["table"].items():
            if v == "full":
                continue
            d = e["delta"]
            if d["mean"] is None:
                lines.append(f"  {v:<15} missing | {e['paper_delta']:+.2f}")
                continue
            ci = f" [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]" if d.get("ci") else ""
            lines.append(
                f"  {v:<15} {d['mean']:+.3f}{ci} (n={d['n']}, {e['params']:,} params)"
                f" | {e['paper_delta']:+.2f}"
            )
    pr = a.get("probes") or {}
    if pr:
        g = pr["full"]["gap"]
        gap = "n/a" if g["mean"] is None else f"{g['mean']:+.3f}"
        lines.append(
            f"why the gap at {a['rung']} (seeds {pr['full']['seeds']}; gap to the "
            f"transformer {gap}): test BPC - full Kuramoto model, gap left"
        )
        for v, e in pr.items():
            if v == "full":
                continue
            d, g = e["delta"], e["gap"]
            if d["mean"] is None:
                lines.append(f"  {v:<15} missing")
                continue
            lines.append(
                f"  {v:<15} {d['mean']:+.3f} (n={d['n']}), gap left {g['mean']:+.3f}"
            )
    for rung, e in items["dynamics"]["rungs"].items():
        v = "; ".join(f"{k}: {x}" for k, x in e["verdicts"].items())
        lines.append(f"  dynamics {rung} ({len(e['seeds'])} seeds): {v}")
        if e.get("grad_norms"):
            g = e["grad_norms"]
            per_block = [
                f"{b} {g['trained'][b]:.3g} ({g['init'][b]:.3g})" for b in g["trained"]
            ]
            lines.append(
                "    grad norm by block, trained (init): " + ", ".join(per_block)
            )
    return "\n".join(lines)

r"""Issue 20, items 2 and 3 on the ladder: seed 000's ablations at one rung, its dynamics at every rung.

**Ablations** (item 2; the variants of experiment 2, [`syncattn.experiments.ablations`][]):
at the rung ``ablate_at``, each variant of the Kuramoto LM is trained with the rung's
shape, budget, schedule, the Kuramoto model's chosen lr and the rung's seeds, and scored
by its test BPC minus the full model's at the same seed (the ladder's own cell),

$$\Delta_v = \operatorname{mean}_s\big(\mathrm{BPC}^{\text{test}}_{v,s}
  - \mathrm{BPC}^{\text{test}}_{\text{full},s}\big)$$

with a Student-t interval over the seeds ([`syncattn.stats.t_interval`][]). The
no-feed-forward variant runs both ways: ``no-ffn`` keeps the rung's shape (fewer
parameters), ``no-ffn-matched`` is re-matched in size by depth: the rung's width, and
the depth $L' \ge L$ whose count is closest to the full model's (in $|\ln(N'/N)|$;
[`matched_depth`][syncattn.experiments.ladder.matched_depth]). ``learned-value`` adds
the value projections' parameters, and ``no-gates`` keeps the (then unused) gate maps in
the parameter tree, so its count is the full model's while it trains fewer: both counts
are reported.

**Why the gap** (issue 20's "find out why"): the choices seed 000's description leaves
open are changed one at a time at the same rung, lr and budget
([`PROBES`][syncattn.experiments.ladder.PROBES]: the initial temperature, the bound on
the increments, the readout's initial scale, the natural frequencies' base, the gates'
normalisation), on the
rung's first ``probe_seeds`` seeds; each is reported as its paired test-BPC change and
the gap to the transformer that is left at those seeds.

**Dynamics** (item 3; experiment 3's statistics,
[`syncattn.experiments.dynamics.measure_run`][]): per rung, every seed of the Kuramoto
model at its chosen lr, measured on ``dynamics_sequences`` validation windows, beside the
same model at initialisation, with the three verdicts per seed and on the rung's mean.
The measurement needs the trained model: a cell adopted from the committed results has
no checkpoint, so it is trained again into ``OUT/retrain/CELL`` (the same cell, seed and
code; its test BPC is compared with the committed one and the difference reported).
Each measurement is written beside the cell's result as ``dynamics.json`` (and exported
with it), so that a rebuild reads it. It also holds the gradient norm of the loss per
block ([`block_grad_norms`][syncattn.experiments.dynamics.block_grad_norms]) of the
trained and the initial model, on the same windows.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import numpy as np

from .._common import describe_values, new_figure, save_figure, write_csv, write_json
from .._grid import TrainCell
from .._papers import ABLATIONS as ABLATION_PAPER
from .._protocol import CellResult, rung_cell, rung_shape
from ._cells import rung_seeds


def _test(result) -> float:
    return CellResult.of(result).score("test", "bpc")


ABLATIONS = ("learned-value", "no-ffn", "no-ffn-matched", "no-gates")
"""The ladder's ablation variants (experiment 2's, with the no-feed-forward one re-matched too)."""

PROBES = {
    "tau-4": {"model.tau": 4.0},
    "tau-0.25": {"model.tau": 0.25},
    "bound-4": {"model.bound": 4.0},
    "bound-16": {"model.bound": 16.0},
    "readout-4": {"model.readout_scale": 4.0},
    "rope-100": {"model.rope_base": 100.0},
    "gates-unnormalised": {"model.gate_norm": "none"},
}
r"""Why the gap (issue 20): the choices seed 000 leaves open, each changed alone from the
library's default (initial temperature $\tau$ = 1, increment bound $\beta$ = 1, readout
scale $\sigma\sqrt{k}$ = 1, natural frequencies from base $b$ = 10,000, gates divided by
their mean): a sharper and a flatter initial attention, looser bounds, a sharper initial
readout, faster initial drifts, gates without seed 000's normalisation."""

DYNAMICS = "dynamics.json"

_STATS = ("local_order", "global_order", "omega_abs")


@functools.lru_cache(maxsize=64)
def matched_depth(target: int) -> int:
    """The depth $L' \\ge L$ of the no-feed-forward Kuramoto LM, at the rung's width,
    whose count is closest to the rung's full model (in $|\\ln(N'/N)|$; searched up to
    $4L$)."""
    s = rung_shape(target)
    d, L, n = s["d_model"], s["n_layers"], s["params"]["kuramoto"]
    counts = {k: _noffn_count(d, k) for k in range(L, 4 * L + 1)}
    return min(counts, key=lambda k: (abs(math.log(counts[k] / n)), k))


def _noffn_count(d: int, L: int) -> int:
    from ... import models

    return models.config_params(models.get_config(
        "1m", attention="kuramoto", d_model=d, n_layers=L, n_heads=d // 16, ffn="none",
        vocab_size=256))  # fmt: skip


def variant_overrides(target: int, variant: str) -> dict:
    """The model switches of one ablation variant at rung `target`."""
    if variant == "learned-value":
        return {"model.value": "learned"}
    if variant == "no-ffn":
        return {"model.ffn": "none"}
    if variant == "no-ffn-matched":
        return {"model.ffn": "none", "model.n_layers": matched_depth(target)}
    if variant == "no-gates":
        return {"model.gates": False}
    if variant in PROBES:
        return dict(PROBES[variant])
    raise ValueError(f"unknown variant {variant!r}; choose among {list(ABLATIONS) + list(PROBES)}.")


def ablation_cells(config, best: dict) -> list[TrainCell]:
    """The variants' cells at rung ``config.ablate_at`` (none when it is ``None`` or the
    rung's Kuramoto lr is unknown): one per (ablation, seed of the rung), then one per
    (probe, first ``probe_seeds`` seeds of the rung)."""
    target = config.ablate_at
    lr = best.get(target, {}).get("kuramoto") if target is not None else None
    if lr is None:
        return []
    seeds = rung_seeds(config, target)
    pairs = [(v, s) for v in config.ablations for s in seeds]
    pairs += [(v, s) for v in config.probes for s in seeds[: config.probe_seeds]]
    return [rung_cell(config, target, "kuramoto", lr, s, variant=v,
                      extra=variant_overrides(target, v)) for v, s in pairs]  # fmt: skip


def dynamics_cells(config, cells, best) -> list[TrainCell]:
    """The ladder's Kuramoto cells at each rung's chosen lr (every seed)."""
    if not config.dynamics:
        return []
    lr = {rung_shape(t)["name"]: b.get("kuramoto") for t, b in best.items()}
    return [c for c in cells if c.model == "kuramoto" and
            c.overrides["train.lr"] == lr.get(c.name.split("-")[0]) and _variant(c) == "full"]


def _variant(cell: TrainCell) -> str:
    return next((v for v in (*ABLATIONS, *PROBES) if f"-{v}-lr" in cell.name), "full")


# --------------------------------------------------------------------------- dynamics


def _wanted(config, cell: TrainCell) -> dict:
    return {"cell": cell.name, "n_sequences": config.dynamics_sequences,
            "local_threshold": config.local_threshold}  # fmt: skip


def read_dynamics(config, cell: TrainCell, folder) -> dict | None:
    """The cell's ``dynamics.json`` in `folder`, when it was measured with these settings."""
    path = Path(folder) / DYNAMICS
    if not path.is_file():
        return None
    got = json.loads(path.read_text())
    same = all(got.get(k) == v for k, v in _wanted(config, cell).items())
    return got if same and "grad_norms" in got else None  # (older files lack the gradients)


def measure(config, cells, results, runs: Path, retrain: Path, grid, ladder_cell,
            dst: Path | None, export: bool) -> list[dict | None]:
    """The dynamics of each cell (read when measured before; else from its checkpoint,
    trained again into `retrain` when the cell was adopted without one)."""
    from ...training import CheckpointError
    from .. import _dynamics as dynamics

    out = []
    for c, r in zip(cells, results, strict=True):
        if not CellResult.of(r).ok:
            out.append(None)
            continue
        got = read_dynamics(config, c, runs / c.name)
        if got is None and dst is not None:
            got = read_dynamics(config, c, dst / "runs" / c.name)
        if got is None:
            extra = {}
            try:
                if not _has_model(runs / c.name):  # adopted: a result, no model
                    raise CheckpointError(f"{runs / c.name} holds no trained model.")
                m = dynamics.measure_run(runs / c.name, config.dynamics_sequences,
                                         config.local_threshold)  # fmt: skip
            except CheckpointError:
                (again,) = grid.run([c], retrain, ladder_cell, desc=f"retrain {c.name}")
                if not CellResult.of(again).ok:
                    out.append(None)
                    continue
                extra = {"retrained": True, "test_bpc_committed": _test(r),
                         "test_bpc_retrained": _test(again)}  # fmt: skip
                m = dynamics.measure_run(retrain / c.name, config.dynamics_sequences,
                                         config.local_threshold)  # fmt: skip
            got = _wanted(config, c) | {"retrained": False} | extra | m
            write_json(runs / c.name / DYNAMICS, got)
        if export and dst is not None:
            write_json(dst / "runs" / c.name / DYNAMICS, got)
        out.append(got)
    return out


def _has_model(folder: Path) -> bool:
    """A run folder with its config and checkpoints (an adopted cell has neither)."""
    ck = folder / "checkpoints"
    return (folder / "config.json").is_file() and ck.is_dir() and any(ck.iterdir())


# --------------------------------------------------------------------------- report


def aggregate(config, best, abl_cells, abl_results, full_rows, dyn_cells, dyn) -> dict:
    """The ablation table (paired test-BPC differences) and the dynamics per rung."""
    from ... import stats
    from .._common import to_jsonable

    table = {}
    target = config.ablate_at
    if target is not None and abl_cells:
        seeds = rung_seeds(config, target)
        name, lr = rung_shape(target)["name"], best[target]["kuramoto"]
        full = {w["seed"]: w for w in full_rows
                if w["rung"] == name and w["model"] == "kuramoto" and w["lr"] == lr}  # fmt: skip
        table["full"] = {"params": rung_shape(target)["params"]["kuramoto"],
                         "test": describe_values([full[s]["test_bpc"] for s in seeds if s in full])}
        for v in config.ablations:
            mine = {c.seed: r for c, r in zip(abl_cells, abl_results, strict=True)
                    if _variant(c) == v}  # fmt: skip
            d = [_test(mine[s]) - full[s]["test_bpc"] for s in seeds
                 if s in mine and s in full]  # fmt: skip
            d = [x for x in d if math.isfinite(x)]
            params = next((r.get("params") for r in mine.values() if r.get("params")), None)
            table[v] = {
                "params": params, "overrides": to_jsonable(variant_overrides(target, v)),
                "test": describe_values([_test(mine[s]) for s in seeds if s in mine]),
                "delta": describe_values(d) | {"ci": stats.t_interval(d, config.confidence) if len(d) > 1 else None},
                "paper_delta": ABLATION_PAPER["delta_bpc"][v.replace("-matched", "")],
                "missing": [s for s in seeds if s not in mine or not CellResult.of(mine[s]).ok],
            }  # fmt: skip
    probes = {}
    if target is not None and abl_cells and config.probes:
        name, lr = rung_shape(target)["name"], best[target]
        soft = {w["seed"]: w["test_bpc"] for w in full_rows if w["rung"] == name
                and w["model"] == "softmax" and w["lr"] == lr["softmax"]}  # fmt: skip
        kur = {w["seed"]: w["test_bpc"] for w in full_rows if w["rung"] == name
               and w["model"] == "kuramoto" and w["lr"] == lr["kuramoto"]}  # fmt: skip
        seeds = rung_seeds(config, target)[: config.probe_seeds]
        gap = [kur[s] - soft[s] for s in seeds if s in kur and s in soft]
        probes["full"] = {"seeds": list(seeds), "gap": describe_values(gap)}
        for v in config.probes:
            mine = {c.seed: _test(r) for c, r in zip(abl_cells, abl_results, strict=True)
                    if _variant(c) == v and CellResult.of(r).ok}  # fmt: skip
            d = [mine[s] - kur[s] for s in seeds if s in mine and s in kur]
            g = [mine[s] - soft[s] for s in seeds if s in mine and s in soft]
            probes[v] = {"overrides": dict(PROBES[v]), "test": describe_values(list(mine.values())),
                         "delta": describe_values(d) | {"ci": stats.t_interval(d, config.confidence) if len(d) > 1 else None},
                         "gap": describe_values(g)}  # fmt: skip
    rungs = {}
    for c, m in zip(dyn_cells, dyn, strict=True):
        if m is None:
            continue
        e = rungs.setdefault(c.name.split("-")[0], {"seeds": [], "per_seed": []})
        e["seeds"].append(c.seed)
        e["per_seed"].append({"seed": c.seed, "cell": c.name, "verdicts": m["verdicts"],
                              "trained": m["trained"], "init": m["init"],
                              "retrained": m.get("retrained", False),
                              "test_bpc_committed": m.get("test_bpc_committed"),
                              "test_bpc_retrained": m.get("test_bpc_retrained"),
                              "grad_norms": m.get("grad_norms")})  # fmt: skip
    from .._dynamics import verdicts

    for e in rungs.values():
        e["mean"] = {k: np.mean([p["trained"][k] for p in e["per_seed"]], 0).tolist() for k in _STATS}
        e["mean_init"] = {k: np.mean([p["init"][k] for p in e["per_seed"]], 0).tolist() for k in _STATS}
        e["verdicts"] = verdicts(e["mean"], config.local_threshold)
        gn = [p["grad_norms"] for p in e["per_seed"] if p.get("grad_norms")]
        e["grad_norms"] = {kind: {b: float(np.mean([g[kind][b] for g in gn])) for b in gn[0][kind]}
                           for kind in ("trained", "init")} if gn else None  # fmt: skip
    return {"ablations": {"rung": rung_shape(target)["name"] if target else None,
                          "lr": best.get(target, {}).get("kuramoto") if target else None,
                          "table": table, "paper": ABLATION_PAPER, "probes": probes},
            "dynamics": {"n_sequences": config.dynamics_sequences,
                         "local_threshold": config.local_threshold, "rungs": rungs}}  # fmt: skip


def write(out: Path, items: dict) -> dict[str, Path]:
    """``ablations.csv``, ``dynamics.csv`` and ``dynamics_grads.csv`` (when there is anything)."""
    files = {}
    t = items["ablations"]["table"]
    if t:
        names = list(t)
        files["ablations"] = write_csv(out / "ablations.csv", {
            "variant": names, "params": [t[v]["params"] for v in names],
            "test_bpc_mean": [_or(t[v]["test"]["mean"]) for v in names],
            "test_bpc_std": [_or(t[v]["test"]["std"]) for v in names],
            "n": [t[v]["test"]["n"] for v in names],
            "delta_mean": [_or(t[v].get("delta", {}).get("mean")) for v in names],
            "delta_ci_low": [_or((t[v].get("delta", {}).get("ci") or [None])[0]) for v in names],
            "delta_ci_high": [_or((t[v].get("delta", {}).get("ci") or [None, None])[1]) for v in names],
            "paper_delta": [_or(t[v].get("paper_delta")) for v in names],
        })  # fmt: skip
    rows = [(rung, p["seed"], kind, layer, *(p[kind][k][layer] for k in _STATS))
            for rung, e in items["dynamics"]["rungs"].items() for p in e["per_seed"]
            for kind in ("trained", "init") for layer in range(len(p[kind]["local_order"]))]
    if rows:
        cols = ("rung", "seed", "model", "layer", "local_order", "global_order", "omega_abs_mean")
        files["dynamics"] = write_csv(out / "dynamics.csv",
                                      {n: [r[i] for r in rows] for i, n in enumerate(cols)})
    grads = [(rung, p["seed"], kind, b, v) for rung, e in items["dynamics"]["rungs"].items()
             for p in e["per_seed"] if p.get("grad_norms")
             for kind in ("trained", "init") for b, v in p["grad_norms"][kind].items()]  # fmt: skip
    if grads:
        cols = ("rung", "seed", "model", "block", "grad_norm")
        files["grads"] = write_csv(out / "dynamics_grads.csv",
                                   {n: [r[i] for r in grads] for i, n in enumerate(cols)})
    return files


def plots(out: Path, items: dict) -> dict[str, Path]:
    """``ladder_items.png`` when there are ablations or dynamics."""
    if "ablations" not in items or not (items["ablations"]["table"] or any(
            e["per_seed"] for e in items["dynamics"]["rungs"].values())):
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
        ax.scatter([i - 0.12] * len(vals), vals, s=14, color="C0", alpha=0.6,
                   label="per seed" if i == 0 else None)
        if d["mean"] is not None:
            ci = d.get("ci") or (d["mean"], d["mean"])
            ax.errorbar([i + 0.05], [d["mean"]], yerr=[[d["mean"] - ci[0]], [ci[1] - d["mean"]]],
                        fmt="o", color="C0", capsize=3, label="mean, t interval" if i == 0 else None)
        ax.scatter([i + 0.2], [t[v]["paper_delta"]], marker="*", s=80, color="k",
                   label="paper" if i == 0 else None)
    probes = {v: e for v, e in (items["ablations"].get("probes") or {}).items() if v != "full"}
    for i, (v, e) in enumerate(probes.items(), start=len(variants)):
        vals = [x for x in e["delta"]["values"] if math.isfinite(x)]
        ax.scatter([i] * len(vals), vals, s=14, color="C2", alpha=0.8,
                   label="probe (why the gap), per seed" if i == len(variants) else None)
    ax.axhline(0, color="0.6", lw=0.8)
    names = variants + list(probes)
    ax.set_xticks(range(len(names)), names, rotation=35, fontsize=6)
    ax.set_ylabel("test BPC - full model")
    ax.set_title(f"ablations and probes at {items['ablations']['rung']}", fontsize=9)
    if variants:
        ax.legend(fontsize=6, loc="center right")
    labels = {"local_order": "local order", "global_order": "global order",
              "omega_abs": r"mean $|\omega|$"}  # fmt: skip
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
        lines.append(f"ablations at {a['rung']} (Kuramoto lr {a['lr']}): test BPC - full model, "
                     "paired by seed | paper")
        for v, e in a["table"].items():
            if v == "full":
                continue
            d = e["delta"]
            if d["mean"] is None:
                lines.append(f"  {v:<15} missing | {e['paper_delta']:+.2f}")
                continue
            ci = f" [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]" if d.get("ci") else ""
            lines.append(f"  {v:<15} {d['mean']:+.3f}{ci} (n={d['n']}, {e['params']:,} params)"
                         f" | {e['paper_delta']:+.2f}")
    pr = a.get("probes") or {}
    if pr:
        g = pr["full"]["gap"]
        gap = "n/a" if g["mean"] is None else f"{g['mean']:+.3f}"
        lines.append(f"why the gap at {a['rung']} (seeds {pr['full']['seeds']}; gap to the "
                     f"transformer {gap}): test BPC - full Kuramoto model, gap left")
        for v, e in pr.items():
            if v == "full":
                continue
            d, g = e["delta"], e["gap"]
            if d["mean"] is None:
                lines.append(f"  {v:<15} missing")
                continue
            lines.append(f"  {v:<15} {d['mean']:+.3f} (n={d['n']}), gap left {g['mean']:+.3f}")
    for rung, e in items["dynamics"]["rungs"].items():
        v = "; ".join(f"{k}: {x}" for k, x in e["verdicts"].items())
        lines.append(f"  dynamics {rung} ({len(e['seeds'])} seeds): {v}")
        if e.get("grad_norms"):
            g = e["grad_norms"]
            lines.append("    grad norm by block, trained (init): " + ", ".join(
                f"{b} {g['trained'][b]:.3g} ({g['init'][b]:.3g})" for b in g["trained"]))
    return "\n".join(lines)


def read_dynamics_of(config, src: Path, dyn_cells, dyn_results) -> list[dict | None]:
    """For a rebuild: the dynamics of the finished cells, read from `src` alone."""
    return [read_dynamics(config, c, src / "runs" / c.name) if CellResult.of(r).ok else None
            for c, r in zip(dyn_cells, dyn_results, strict=True)]  # fmt: skip

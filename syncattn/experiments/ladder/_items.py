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

from .._common import write_json
from .._grid import TrainCell
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

    return models.config_params(
        models.get_config(
            "1m",
            attention="kuramoto",
            d_model=d,
            n_layers=L,
            n_heads=d // 16,
            ffn="none",
            vocab_size=256,
        )
    )


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
    raise ValueError(
        f"unknown variant {variant!r}; choose among {list(ABLATIONS) + list(PROBES)}."
    )


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

    def cell(v, s):
        extra = variant_overrides(target, v)
        return rung_cell(config, target, "kuramoto", lr, s, variant=v, extra=extra)

    return [cell(v, s) for v, s in pairs]


def dynamics_cells(config, cells, best) -> list[TrainCell]:
    """The ladder's Kuramoto cells at each rung's chosen lr (every seed)."""
    if not config.dynamics:
        return []
    lr = {rung_shape(t)["name"]: b.get("kuramoto") for t, b in best.items()}
    return [
        c
        for c in cells
        if c.model == "kuramoto"
        and c.overrides["train.lr"] == lr.get(c.name.split("-")[0])
        and _variant(c) == "full"
    ]


def _variant(cell: TrainCell) -> str:
    return next((v for v in (*ABLATIONS, *PROBES) if f"-{v}-lr" in cell.name), "full")


# --------------------------------------------------------------------------- dynamics


def _wanted(config, cell: TrainCell) -> dict:
    return {
        "cell": cell.name,
        "n_sequences": config.dynamics_sequences,
        "local_threshold": config.local_threshold,
    }


def read_dynamics(config, cell: TrainCell, folder) -> dict | None:
    """The cell's ``dynamics.json`` in `folder`, when it was measured with these settings."""
    path = Path(folder) / DYNAMICS
    if not path.is_file():
        return None
    got = json.loads(path.read_text())
    same = all(got.get(k) == v for k, v in _wanted(config, cell).items())
    return (
        got if same and "grad_norms" in got else None
    )  # (older files lack the gradients)


def measure(
    config,
    cells,
    results,
    runs: Path,
    retrain: Path,
    grid,
    ladder_cell,
    dst: Path | None,
    export: bool,
) -> list[dict | None]:
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
                m = dynamics.measure_run(
                    runs / c.name, config.dynamics_sequences, config.local_threshold
                )
            except CheckpointError:
                (again,) = grid.run([c], retrain, ladder_cell, desc=f"retrain {c.name}")
                if not CellResult.of(again).ok:
                    out.append(None)
                    continue
                extra = {
                    "retrained": True,
                    "test_bpc_committed": _test(r),
                    "test_bpc_retrained": _test(again),
                }
                m = dynamics.measure_run(
                    retrain / c.name, config.dynamics_sequences, config.local_threshold
                )
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


def read_dynamics_of(config, src: Path, dyn_cells, dyn_results) -> list[dict | None]:
    """For a rebuild: the dynamics of the finished cells, read from `src` alone."""
    return [
        read_dynamics(config, c, src / "runs" / c.name) if CellResult.of(r).ok else None
        for c, r in zip(dyn_cells, dyn_results, strict=True)
    ]

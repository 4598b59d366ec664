"""The frustrated experiment's families, their shapes, budgets and cells, and its cell
function (the protocol's scored cell, then the copy-depth split of its test losses)."""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path

from ... import models
from .. import _protocol as protocol
from .._grid import TrainCell
from .._protocol import CellResult, Family, scored_cell


NAME = "frustrated"
_PRESET = (("sync.harmonics", 1), ("sync.delay", True))
FAMILIES = (
    Family("softmax", "softmax", "RoPE + SwiGLU"),
    Family("kuramoto", "kuramoto", "Kuramoto (seed 000)"),
    Family("frustrated", "frustrated", "frustrated", model=_PRESET),
    Family(
        "frustrated-mf", "frustrated-mf", "frustrated, modes (no MLP)", model=_PRESET
    ),
)
"""The four families of the pre-registration, in its table's order: the models of
``models.config_for_params(target, attention)``; the frustrated ones at their presets,
$M = 1$ harmonic and the delayed stream on, given explicitly."""

PREREGISTERED = {
    50_000: {
        "softmax": (32, 2, 2, 112, 46_496),
        "kuramoto": (32, 2, 2, 88, 45_827),
        "frustrated": (32, 2, 2, 88, 45_843),
        "frustrated-mf": (32, 2, 2, 96, 45_405),
    },
    150_000: {
        "softmax": (48, 3, 3, 168, 125_392),
        "kuramoto": (48, 3, 3, 136, 125_380),
        "frustrated": (48, 3, 3, 136, 125_416),
        "frustrated-mf": (48, 3, 3, 152, 124_429),
    },
    200_000: {
        "softmax": (64, 3, 4, 216, 207_040),
        "kuramoto": (64, 3, 4, 176, 208_644),
        "frustrated": (64, 3, 4, 176, 208_692),
        "frustrated-mf": (64, 3, 4, 200, 208_911),
    },
}
"""The pre-registration's table (docs/experiments.md, issue 40): per rung target and
family ``(d, L, heads, d_ff, parameters)`` (``frustrated-mf``'s $d_{ff}$ is its modes
$J$). The report sets each cell's shape beside it and names any difference."""

COPY_N = 6
"""The copy-depth diagnostic's matched context $n$ (pre-registered)."""


def family(name: str) -> Family:
    """The family named `name`."""
    return protocol.family(name, FAMILIES)


def rung_name(target: int) -> str:
    """``"50k"`` of target 50,000 (the size rule's name)."""
    return models.shape_for_params(target)["name"]


@functools.lru_cache(maxsize=256)
def family_shape(target: int, fam: Family) -> dict:
    """A family's shape at rung `target`: ``models.config_for_params(target, attention)``
    with the family's model fields; its count, and the pre-registered shape and count
    (``None`` off the pre-registered rungs).

    Returns:
        ``{"d_model", "n_layers", "n_heads", "d_ff", "params", "preregistered":
        {"d_model", ..., "params"} or None, "as_registered": bool or None}``.
    """
    c = models.config_for_params(target, fam.attention, **dict(fam.model))
    got = {
        "d_model": c.d_model,
        "n_layers": c.n_layers,
        "n_heads": c.n_heads,
        "d_ff": c.d_ff,
        "params": models.config_params(c),
    }
    reg = PREREGISTERED.get(target, {}).get(fam.name)
    reg = None if reg is None else dict(zip(got, reg, strict=True))
    return got | {
        "preregistered": reg,
        "as_registered": None if reg is None else reg == got,
    }


def reference_count(target: int) -> int:
    """$N$ of the budget $D = \\kappa N$: the rung's Kuramoto count."""
    return models.shape_for_params(target)["params"]["kuramoto"]


def cell_budget(config, target: int, long: bool = False) -> dict:
    """The budget of a cell at `target` ([`budget`][syncattn.experiments._protocol.budget]
    of the rung's Kuramoto count): $\\kappa$ = ``tokens_per_param`` (20 N), or
    ``long_tokens_per_param`` (100 N) for the longer-budget check."""
    if long:
        config = dataclasses.replace(
            config, tokens_per_param=config.long_tokens_per_param
        )
    return protocol.budget(config, reference_count(target))


def budget_tag(config) -> str:
    """``"100N"``: the longer budget's tag in its cells' names."""
    return f"{config.long_tokens_per_param:g}N"


def frustrated_cell(
    config, target: int, fam: Family, lr: float, seed: int, long: bool = False
) -> TrainCell:
    """The cell ``RUNG-FAMILY-lrLR-seedS`` (longer budget: ``RUNG-FAMILY-100N-lrLR-seedS``):
    the family's shape ([`family_shape`][syncattn.experiments.frustrated.family_shape]),
    its model fields and the ladder's per-cell protocol on the budget
    ([`cell_budget`][syncattn.experiments.frustrated.cell_budget]): AdamW, 5 % warm-up,
    cosine to 10 % of the peak `lr`, 10 evaluations, final scores on
    ``config.final_batches`` batches."""
    s = family_shape(target, fam)
    b = cell_budget(config, target, long)
    tag = f"{budget_tag(config)}-" if long else ""
    name = f"{rung_name(target)}-{fam.name}-{tag}lr{lr:g}-seed{seed}"
    return protocol.shaped_cell(config, name, fam, s, b, lr, seed)


# --------------------------------------------------------------------------- the cell function


def copy_depth_scores(folder, max_batches: int | None, n: int = COPY_N) -> dict:
    r"""The copy-depth split ([`syncattn.stats.copy_depth_losses`][], depths 1, 4, 16, 64,
    256) of the per-position test losses of the run in `folder`, in bits:
    $\ell_t/\ln 2$ with $\ell$ = [`syncattn.training.token_nll`][] of its latest
    checkpoint on the test windows the final score reads (``data.eval_batches`` of the
    test split, the run's batch size and $T$, `max_batches` batches); a row is one
    window of $T + 1$ tokens, so a repeat is looked for in the same $T$-byte window.
    ``loss_all`` is then the test BPC."""
    import equinox as eqx
    import jax.numpy as jnp
    import numpy as np

    from ... import data, stats
    from ...training import load_run, token_nll

    spec, corpus, model, _ = load_run(folder)
    nll = eqx.filter_jit(token_nll)
    rows, losses = [], []
    for batch in data.eval_batches(
        corpus.test,
        batch_size=spec.train.batch_size,
        seq_len=spec.train.seq_len,
        max_batches=max_batches,
    ):
        rows.append(batch)
        losses.append(np.asarray(nll(model, jnp.asarray(batch)), np.float64))
    bits = np.concatenate(losses) / math.log(2.0)  # BPC: nats / ln 2
    return stats.copy_depth_losses(np.concatenate(rows), bits, n, stats.COPY_DEPTHS)


def copy_depth_cell(cell: TrainCell, folder: Path, *, progress: bool = False) -> dict:
    """The experiment's cell function: [`scored_cell`][syncattn.experiments._protocol.scored_cell]
    (train, validation and test BPC on ``cell.eval_batches`` batches, the evaluation
    curve, tokens/s), then, for a cell that finished, ``copy_depth``: the split of its
    test losses ([`copy_depth_scores`][syncattn.experiments.frustrated.copy_depth_scores])."""
    res = scored_cell(cell, folder, progress=progress)
    if not CellResult.of(res).ok:
        return res
    return res | {"copy_depth": copy_depth_scores(folder, cell.eval_batches)}

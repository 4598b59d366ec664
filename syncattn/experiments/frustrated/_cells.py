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

CONTROLS = (
    Family(
        "c-only",
        "frustrated",
        "c-only (no delayed stream)",
        model=(("sync.harmonics", 1), ("sync.delay", False)),
    ),
    Family(
        "b-only",
        "frustrated",
        "b-only (c = 1 fixed)",
        model=(*_PRESET, ("sync.frustration", "delay-only")),
    ),
    Family(
        "successor",
        "frustrated",
        "successor control (c = 0, b = 1)",
        model=(*_PRESET, ("sync.frustration", "successor")),
    ),
    Family("kuramoto-time", "kuramoto", "Kuramoto at equal wall time"),
)
"""The controls of issue 44 (docs/experiments.md, "Controls: what in the frustrated layer
does the work"): the frustrated model with its delayed stream off (``c-only``), with
$c_1 = 1$ fixed (``b-only``, ``sync.frustration=delay-only``), the plain successor
control (``successor``: $c = 0$, $b_1 = 1$), each at the frustrated family's shape; and
the Kuramoto model on the budget of the frustrated model's wall time
(``kuramoto-time``)."""

ALL_FAMILIES = FAMILIES + CONTROLS
"""The registered families, then the controls: every family a cell's name can carry."""

COPY_N = 6
"""The copy-depth diagnostic's matched context $n$ (pre-registered)."""


def family(name: str) -> Family:
    """The family named `name` (a registered family or a control)."""
    return protocol.family(name, ALL_FAMILIES)


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


# --------------------------------------------------------------------------- the controls


@functools.lru_cache(maxsize=64)
def control_shape(target: int, fam: Family) -> dict:
    """A control's shape at rung `target`: the frustrated family's $d$, $L$, heads and
    $d_{ff}$ ([`family_shape`][syncattn.experiments.frustrated.family_shape]) with the
    control's model fields, and its own count; ``kuramoto-time``: the Kuramoto family's
    shape and count.

    Returns:
        ``{"d_model", "n_layers", "n_heads", "d_ff", "params", "of": family name}``.
    """
    of = "kuramoto" if fam.attention == "kuramoto" else "frustrated"
    s = family_shape(target, family(of))
    dims = {k: s[k] for k in ("d_model", "n_layers", "n_heads", "d_ff")}
    c = models.get_config(
        "1m", attention=fam.attention, vocab_size=256, **dims, **dict(fam.model)
    )
    return dims | {"params": models.config_params(c), "of": of}


def time_budget(config, target: int, r: float) -> dict:
    r"""The ``kuramoto-time`` budget at `target`: $D = \kappa\, r\, N$ tokens
    ([`budget`][syncattn.experiments._protocol.budget] with ``tokens_per_param``
    $= \kappa r$, $N$ the rung's Kuramoto count), $r$ the frustrated-to-Kuramoto
    step-time ratio; with ``tokens_per_param`` and ``time_ratio`` recorded."""
    kappa = config.tokens_per_param * r
    b = protocol.budget(
        dataclasses.replace(config, tokens_per_param=kappa), reference_count(target)
    )
    return b | {"tokens_per_param": kappa, "time_ratio": r}


@dataclasses.dataclass(frozen=True)
class TimedCell(TrainCell):
    r"""A [`TrainCell`][syncattn.experiments.TrainCell] on the budget of a wall-time
    ratio: ``time_ratio`` $r$ (its steps are those of $D = 20\,r\,N$) travels in the
    cell's settings, so its ``result.json`` records it and a cell of another $r$ is not
    adopted for it."""

    time_ratio: float | None = None


def control_cell(
    config, target: int, fam: Family, lr: float, seed: int, r: float | None = None
) -> TrainCell:
    """The control cell ``RUNG-FAMILY-lrLR-seedS`` of `fam` (one of
    [`CONTROLS`][syncattn.experiments.frustrated.CONTROLS]) at its shape
    ([`control_shape`][syncattn.experiments.frustrated.control_shape]) under the
    ladder's per-cell protocol: on the 20 N budget, or, for ``kuramoto-time``, on the
    budget of ratio `r` ([`time_budget`][syncattn.experiments.frustrated.time_budget],
    a [`TimedCell`][syncattn.experiments.frustrated.TimedCell]).

    Raises:
        ValueError: ``kuramoto-time`` without `r` (or `r` <= 0).
    """
    s = control_shape(target, fam)
    name = f"{rung_name(target)}-{fam.name}-lr{lr:g}-seed{seed}"
    if fam.name != "kuramoto-time":
        return protocol.shaped_cell(
            config, name, fam, s, cell_budget(config, target), lr, seed
        )
    if r is None or not r > 0:
        raise ValueError(f"kuramoto-time needs a time ratio r > 0; got {r!r}.")
    b = time_budget(config, target, r)
    cell = protocol.shaped_cell(config, name, fam, s, b, lr, seed)
    return TimedCell(**dataclasses.asdict(cell), time_ratio=float(r))


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


@dataclasses.dataclass(frozen=True)
class Entry:
    """One cell of the walk: its phase, rung target, family name, cell and result."""

    phase: str
    target: int
    family: str
    cell: object
    result: CellResult


def rung_seeds(config, target: int) -> tuple[int, ...]:
    """The seeds at rung `target`: the first ``first_seeds`` at the first rung, all of
    ``config.seeds`` above it (seed 0's sweep cell among them)."""
    if target == min(config.targets):
        return config.seeds[: config.first_seeds]
    return config.seeds


def long_seeds(config) -> tuple[int, ...]:
    """The seeds of the longer-budget check."""
    return config.seeds[: config.long_seeds]

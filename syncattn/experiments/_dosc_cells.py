r"""The d_osc law's cells (``dosc_law``): the budget every cell shares, one cell of
the grid, and the walk that orders them (the lr sweep of each family, the law at the
best lrs, the $p$ sweep).
"""

from __future__ import annotations

from . import _protocol as protocol
from ._common import layered_overrides
from ._dosc import RECIPE, corpus_choice
from ._grid import TrainCell
from ._protocol import Family, budget as protocol_budget, scored_cell


FAMILIES = (Family("oscillator", "oscillator"), Family("softmax", "softmax"))
"""The law's families: the oscillator LM (swept at ``sweep_dim``, $p = 1$; its lr then
serves every $d_{osc}$ and $p$) and softmax."""


def _model_config(config, model: str, d: int | None = None):
    from .. import models

    extra = {} if d is None else {"d_osc": d}
    return models.get_config(
        "paper-b-lm",
        attention=model,
        d_model=config.d_model,
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        d_ff=config.d_ff,
        vocab_size=config.vocab_size,
        **extra,
    )


def budget_params(config) -> int:
    """$N$: the softmax model's parameters less the token embedding ($Vd$) and the
    output layer ($dV + V$)."""
    from .. import models

    m = _model_config(config, "softmax")
    total = models.config_params(m)
    return total - m.vocab_size * m.d_model - (m.d_model * m.vocab_size + m.vocab_size)


def budget(config) -> dict:
    """``{"params", "tokens", "target_tokens", "steps", "warmup_steps", "eval_every"}``
    of every cell."""
    n = budget_params(config)
    return {"params": n} | protocol_budget(config, n)


def cell(
    config, model: str, lr: float, seed: int, d: int | None = None, p: int = 1
) -> TrainCell:
    """The cell ``oscillator-dD-pP-lrLR-seedS`` or ``softmax-lrLR-seedS``."""
    data, path = corpus_choice(config)
    b = budget(config)
    settings = {
        "model.d_model": config.d_model,
        "model.n_layers": config.n_layers,
        "model.n_heads": config.n_heads,
        "model.d_ff": config.d_ff,
        "data.vocab_size": config.vocab_size,
    } | protocol.schedule(config, b, lr, logs_per_eval=4)
    if model == "softmax":
        name = f"softmax-lr{lr:g}-seed{seed}"
    else:
        settings |= {"model.d_osc": d, "model.p": p}
        name = f"oscillator-d{d}-p{p}-lr{lr:g}-seed{seed}"
    return TrainCell(
        name=name,
        model=model,
        config="paper-b-lm",
        seed=seed,
        data=data,
        data_path=path,
        steps=b["steps"],
        overrides=layered_overrides(RECIPE, settings, config.train),
        eval_batches=config.final_batches,
    )


def dosc_cell(cell: TrainCell, folder) -> dict:
    """The protocol's cell function ([`scored_cell`][syncattn.experiments._protocol.scored_cell])
    on a word corpus: test scores, curves of the validation loss and PPL."""
    return scored_cell(cell, folder, metrics=("loss", "ppl"))


def _family_cell(config, family: str, lr: float) -> TrainCell:
    d = config.sweep_dim if family == "oscillator" else None
    return cell(config, family, lr, config.seeds[0], d)


def _law_cells(config, family: str, lr: float, seed: int) -> list[TrainCell]:
    if family == "softmax":
        return [cell(config, "softmax", lr, seed)]
    return [cell(config, "oscillator", lr, seed, d) for d in config.dims]


def walk(config, fetch) -> tuple[list[TrainCell], list, dict]:
    """Every cell in order (module docstring): `fetch(cells)` returns their results."""
    cells, results, _, best = protocol.sweep(
        config,
        FAMILIES,
        lambda f, lr: _family_cell(config, f.name, lr),
        fetch,
        metric="loss",
    )
    more = protocol.at_best(
        FAMILIES,
        best,
        config.seeds,
        lambda f, lr, s: _law_cells(config, f.name, lr, s),
        skip=cells,
    )
    if best["oscillator"] is not None:
        more += [
            cell(config, "oscillator", best["oscillator"], s, config.p_dim, p)
            for s in config.seeds
            for p in config.p_values
            if p != 1
        ]
    cells += more
    results += fetch(more) if more else []
    return cells, results, best

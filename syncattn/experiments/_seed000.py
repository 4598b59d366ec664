"""Seed 000's byte-level LM recipe: its corpus choice, training overrides and cell.

Experiments 1, 2 and 3 (``table``, ``ablations``, ``dynamics``) build their cells here,
so that the full Kuramoto models of 2 and 3 are (and reuse) experiment 1's, and none of
them imports another.
"""

from __future__ import annotations

from ._common import layered_overrides
from ._grid import TrainCell


def corpus_choice(config) -> tuple[str, str | None]:
    """``(corpus name, path)``: enwik8 when a path is given and ``data="auto"``."""
    if config.data == "auto":
        return ("enwik8" if config.data_path else "embedded"), config.data_path
    return config.data, config.data_path


def train_overrides(config) -> dict:
    """The cells' typed training overrides from the config (``{"train.batch_size": 16,
    ...}``, [`cell_overrides`][syncattn.experiments._grid.cell_overrides])."""
    settings = {
        k: getattr(config, k)
        for k in ("batch_size", "seq_len")
        if getattr(config, k) is not None
    }
    return layered_overrides(settings, config.train)


def table_cell(
    config, size: str, model: str, seed: int, variant: str = "", extra=()
) -> TrainCell:
    """The [`TrainCell`][syncattn.experiments.TrainCell] ``SIZE-MODEL-[VARIANT-]seedS`` of
    this recipe (`extra`: the variant's model overrides, ``{key: value}`` or
    ``key=value`` text, replacing the recipe's).

    Experiments 2 and 3 build their cells here, so that their full Kuramoto models
    are (and reuse) experiment 1's.
    """
    data, path = corpus_choice(config)
    tag = f"{variant}-" if variant else ""
    return TrainCell(
        name=f"{size}-{model}-{tag}seed{seed}",
        model=model,
        config=size,
        seed=seed,
        data=data,
        data_path=path,
        steps=config.steps,
        overrides=layered_overrides(train_overrides(config), extra),
        eval_batches=config.eval_batches,
    )

"""Seed 001's subject-verb agreement classifier: its recipe, its cells and the cell
function that trains one.

Shared by experiment 4 (``agreement``) and ``robustness``, which sweeps the same
trained models (neither imports the other).
"""

from __future__ import annotations

import dataclasses

from ._common import recipe_fields
from ._variants import variant_fields


@dataclasses.dataclass(frozen=True)
class SVARecipe:
    """Seed 001's classifier recipe: what every training of the grid shares.

    Attributes:
        d_osc: oscillator dimension (the paper: 2).
        epochs, batch_size, lr, weight_decay: the recipe (paper: 20, 64, 5e-4, 1e-4).
        n_train, n_val: use the first sentences of each split (``None``: all 40,000 /
            4,000).
        data_path: a folder with seed 001's ``sva_{train,val,test}.jsonl``
            (``None``: generated with seed 001's generator, the same sentences).
    """

    d_osc: int = 2
    epochs: int = 20
    batch_size: int = 64
    lr: float = 5e-4
    weight_decay: float = 1e-4
    n_train: int | None = None
    n_val: int | None = None
    data_path: str | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class SVACell(SVARecipe):
    """One SVA training: its folder name, model, seed and the recipe (a cell of the grid)."""

    name: str
    model: str
    seed: int


def sva_splits(recipe: SVARecipe) -> dict[str, list[dict]]:
    """The ``train`` and ``val`` sentences of `recipe` (its first `n_train` / `n_val`)."""
    from ..data import sva

    splits = sva.load_sva(recipe.data_path)

    def head(rows, n):
        return rows[:n] if n else rows

    return {
        "train": head(splits["train"], recipe.n_train),
        "val": head(splits["val"], recipe.n_val),
    }


def sva_fit(cell: SVACell, folder) -> dict:
    """Train (or resume) one classifier into `folder`: [`syncattn.training.fit_classifier`][]'s
    result, with the trained ``"model"`` (a finished folder is restored, not retrained)."""
    import jax

    from .. import models, training

    splits = sva_splits(cell)
    train, val = splits["train"], splits["val"]
    mcfg = models.get_config(
        "paper-b-sva", d_osc=cell.d_osc, **variant_fields(cell.model)
    )
    per_epoch = len(train) // cell.batch_size
    tcfg = training.TrainConfig(
        steps=cell.epochs * per_epoch,
        batch_size=cell.batch_size,
        seq_len=training.SVA_LENGTH,
        lr=cell.lr,
        min_lr_ratio=0.0,
        warmup_steps=0,
        weight_decay=cell.weight_decay,
        b1=0.9,
        b2=0.999,
        clip_norm=1.0,
        seed=cell.seed,
        keep=2,
    )
    model = models.build(mcfg, key=jax.random.key(cell.seed))
    return training.fit_classifier(
        model, tcfg, {"train": train, "val": val}, folder, epochs=cell.epochs
    )


def sva_cell(cell: SVACell, folder) -> dict:
    """Train (or resume) one classifier into `folder`; its final validation metrics."""
    from .. import models

    res = sva_fit(cell, folder)
    data = "files" if cell.data_path else "generated (seed 001's generator, seeds 0/1)"
    return {
        "status": "ok",
        "step": res["step"],
        "params": models.count_params(res["model"]),
        "val": res["val"],
        "data": data,
    }


def sva_cells(recipe: SVARecipe, models, seeds) -> list[SVACell]:
    """One [`SVACell`][syncattn.experiments._sva.SVACell] ``MODEL-dD-seedS`` per (model,
    seed) with the recipe fields of `recipe`, seed by seed."""
    return [
        SVACell(
            name=f"{m}-d{recipe.d_osc}-seed{s}",
            model=m,
            seed=s,
            **recipe_fields(recipe, SVARecipe),
        )
        for s in seeds
        for m in models
    ]

"""The ladder's families and cells: the protocol's rungs (`_protocol._rungs`) with the
references as families, the first rung's sweep and a rung's seeds at the best lr."""

from __future__ import annotations

from .. import _protocol as protocol
from .._grid import TrainCell
from .._protocol import REFERENCES, at_best, rung_cell


NAME = "ladder"
FAMILIES = REFERENCES
"""The ladder's families: the first is the reference (its count sets the rung's width),
the others are matched to its count by their feed-forward width."""
MODELS = tuple(f.name for f in FAMILIES)


def rung_seeds(config, target: int) -> tuple[int, ...]:
    """The seeds of a rung (``top_seeds`` of them at the largest)."""
    return protocol.rung_seeds(config, target, config.targets, config.top_seeds)


def sweep_cells(config, target: int) -> list[TrainCell]:
    """The first rung's lr sweep: every family, every lr of ``config.lrs``, at ``seeds[0]``
    (the rungs above centre theirs on the best lrs below: ``rung_lrs``)."""
    return [rung_cell(config, target, m, lr, config.seeds[0]) for m in MODELS for lr in config.lrs]


def seed_cells(config, target: int, best: dict) -> list[TrainCell]:
    """The best lr (``best[family]``, ``None``: none) at the rung's other seeds, family
    by family."""
    return at_best(FAMILIES, best, rung_seeds(config, target)[1:],
                   lambda f, lr, s: rung_cell(config, target, f.name, lr, s), by_seed=False)

r"""Rungs: the size ladder's sizing rule, its cells, its corpus choice, its walk and its cell function.

A *rung* is a target parameter count $N^\ast$; the rule
([`rung_shape`][syncattn.experiments._protocol.rung_shape]) gives its depth, width,
heads and each family's feed-forward width (the first family the reference, the others
matched to its count); [`rung_cell`][syncattn.experiments._protocol.rung_cell] is one
training at a rung, lr and seed on the budget of the reference's count;
[`rung_walk`][syncattn.experiments._protocol.rung_walk] is the ladder's order over
rungs (each rung's sweep centred on the rung below's best lrs, then the seeds at the
best lr); [`scored_cell`][syncattn.experiments._protocol.scored_cell] trains a cell and
scores it on the test split with its evaluation curve. The ladder, the geometry
experiment and the d_osc law build on these; none imports another.
"""

from __future__ import annotations

import functools
import math
import statistics
from pathlib import Path

from ... import models
from .._common import layered_overrides
from .._grid import TrainCell, train_cell
from ._result import CellResult
from ._sweep import Family, at_best, budget, centred_lrs, schedule, sweep


HEAD_WIDTH, FF_RATIO, DEPTHS = models.HEAD_WIDTH, models.FF_RATIO, models.DEPTHS
"""The size rule's constants (`syncattn.models.shape_for_params`, the rule for one
attention, which ``syncattn train --config auto`` uses; ``rung_shape`` applies it to
families)."""
REFERENCES = (
    Family("kuramoto", "kuramoto", "Kuramoto", ff_ratio=FF_RATIO),
    Family("softmax", "softmax", "RoPE + SwiGLU"),
)
"""The ladder's families, the references of the experiments on rungs: the first is the
reference of the rule (its count sets the rung's width), the others are matched to its
count by their feed-forward width."""


# --------------------------------------------------------------------------- rungs


def rung_depth(target: int) -> int:
    """Depth $L$ of the rung with target count `target`
    ([`syncattn.models.depth_for_params`][]: ``DEPTHS``; 6 above 3 M)."""
    return models.depth_for_params(target)


def _ff(ratio: float, d: int) -> int:
    return max(8, 8 * int(ratio * d / 8 + 0.5))


@functools.lru_cache(maxsize=256)
def _count(family: Family, d: int, L: int, ff: int, vocab: int = 256) -> int:
    return models.config_params(
        models.get_config(
            "1m",
            attention=family.attention,
            d_model=d,
            n_layers=L,
            n_heads=d // HEAD_WIDTH,
            d_ff=ff,
            vocab_size=vocab,
            **dict(family.model),
        )
    )


def _matched_ff(family: Family, d: int, L: int, n: int, vocab: int) -> int:
    """The multiple of 8 of the feed-forward width bringing `family`'s count closest to `n`."""
    base = _count(family, d, L, 8, vocab)
    per8 = _count(family, d, L, 16, vocab) - base
    return max(8, 8 + 8 * round((n - base) / per8)) if per8 else 8


@functools.lru_cache(maxsize=64)
def rung_shape(
    target: int, vocab: int = 256, families: tuple[Family, ...] = REFERENCES
) -> dict:
    """The rung rule (module docstring), for the first of `families` as the reference
    and the others matched to its count: ``{"name", "target", "d_model", "n_layers",
    "n_heads", "d_ff": {family: int}, "params": {family: int}, "mismatch"}`` with
    ``mismatch`` the largest relative count difference to the reference."""
    ref, L = families[0], rung_depth(target)
    best, d = None, HEAD_WIDTH
    while True:
        n = _count(ref, d, L, _ff(ref.ff_ratio, d), vocab)
        cand = (abs(math.log(n / target)), d)
        best = min(best or cand, cand)
        if n >= target:
            break
        d += HEAD_WIDTH
    d = best[1]
    n_ref = _count(ref, d, L, _ff(ref.ff_ratio, d), vocab)
    ff = {
        f.name: (
            _ff(f.ff_ratio, d)
            if f.ff_ratio is not None
            else _matched_ff(f, d, L, n_ref, vocab)
        )
        for f in families
    }
    params = {f.name: _count(f, d, L, ff[f.name], vocab) for f in families}
    name = (
        f"{target // 1_000_000}m"
        if target % 1_000_000 == 0
        else f"{round(target / 1000)}k"
    )
    return {
        "name": name,
        "target": target,
        "d_model": d,
        "n_layers": L,
        "n_heads": d // HEAD_WIDTH,
        "d_ff": ff,
        "params": params,
        "mismatch": max(
            (params[f.name] / n_ref - 1 for f in families[1:]), key=abs, default=0.0
        ),
    }


def family(name: str, families: tuple[Family, ...] = REFERENCES) -> Family:
    """The family named `name` among `families` (the references by default)."""
    for f in families:
        if f.name == name:
            return f
    raise ValueError(
        f"unknown family {name!r}; choose among {[f.name for f in families]}."
    )


def family_of(cell: TrainCell, families: tuple[Family, ...] = REFERENCES) -> str:
    """The name of the family of `cell` (named ``RUNG-FAMILY-...``; the longest match)."""
    rest = cell.name.split("-", 1)[1] + "-"
    return max((f.name for f in families if rest.startswith(f"{f.name}-")), key=len)


def rung_budget(config, params: int) -> dict:
    """Tokens $D$, steps $S$ and the schedule of a rung of `params` parameters
    ([`budget`][syncattn.experiments._protocol.budget])."""
    return budget(config, params)


def rung_overrides(
    config,
    shape: dict,
    model: str,
    lr: float,
    families: tuple[Family, ...] = REFERENCES,
) -> dict:
    """The typed overrides of one cell of family `model` (of `families`, whose first is
    the rung's reference): the shape, the family's model fields, the budget's schedule,
    the lr."""
    b = rung_budget(config, shape["params"][families[0].name])
    return layered_overrides(
        {
            "model.d_model": shape["d_model"],
            "model.n_layers": shape["n_layers"],
            "model.n_heads": shape["n_heads"],
            "model.d_ff": shape["d_ff"][model],
            "train.seq_len": config.seq_len,
        }
        | schedule(config, b, lr)
        | family(model, families).overrides(),
        config.train,
    )


def corpus_choice(config) -> tuple[str, str | None, dict]:
    """``(corpus, path, data options)``: see ``Config.data``."""
    if config.data != "auto":
        return config.data, config.data_path, {}
    if config.data_path is None:
        return "embedded", None, {}
    if Path(config.data_path).name.lower().startswith("enwik8"):
        return "enwik8", config.data_path, {}
    return (
        "text",
        config.data_path,
        {"data.val_fraction": 0.05, "data.test_fraction": 0.05},
    )


def rung_cell(
    config,
    target: int,
    model: str,
    lr: float,
    seed: int,
    variant: str = "",
    extra=(),
    families: tuple[Family, ...] = REFERENCES,
) -> TrainCell:
    """The [`TrainCell`][syncattn.experiments.TrainCell] ``RUNG-MODEL-[VARIANT-]lrLR-seedS``
    of family `model` at rung `target` (the rule applied to `families`, the ladder's by
    default): its shape, budget and schedule at peak lr `lr`; `extra` (a variant's model
    switches, ``{key: value}`` or ``key=value`` text) replaces the rung's settings, e.g.
    ``variant="noffn", extra={"model.ffn": "none"}``."""
    shape = rung_shape(target, families=families)
    data, path, opts = corpus_choice(config)
    tag = f"{variant}-" if variant else ""
    return TrainCell(
        name=f"{shape['name']}-{model}-{tag}lr{lr:g}-seed{seed}",
        model=family(model, families).attention,
        config="1m",
        seed=seed,
        data=data,
        data_path=path,
        steps=rung_budget(config, shape["params"][families[0].name])["steps"],
        overrides=layered_overrides(
            opts, rung_overrides(config, shape, model, lr, families), extra
        ),
        eval_batches=config.final_batches,
    )


def shaped_cell(
    config, name: str, fam: Family, shape: dict, b: dict, lr: float, seed: int
) -> TrainCell:
    """The [`TrainCell`][syncattn.experiments.TrainCell] `name` of family `fam` at its
    own `shape` (``d_model``, ``n_layers``, ``n_heads`` and a single ``d_ff``) on the
    budget `b` ([`budget`][syncattn.experiments._protocol.budget]): the shape, the
    budget's schedule at peak lr `lr`, the family's model fields, then
    ``config.train``; final scores on ``config.final_batches`` batches."""
    data, path, opts = corpus_choice(config)
    settings = {
        "model.d_model": shape["d_model"],
        "model.n_layers": shape["n_layers"],
        "model.n_heads": shape["n_heads"],
        "model.d_ff": shape["d_ff"],
        "train.seq_len": config.seq_len,
    }
    return TrainCell(
        name=name,
        model=fam.attention,
        config="1m",
        seed=seed,
        data=data,
        data_path=path,
        steps=b["steps"],
        overrides=layered_overrides(
            opts, settings | schedule(config, b, lr) | fam.overrides(), config.train
        ),
        eval_batches=config.final_batches,
    )


def rung_seeds(config, target: int, targets, top_seeds: int | None) -> tuple[int, ...]:
    """The seeds of rung `target` among `targets`: ``config.seeds``, the first
    `top_seeds` of them at the largest rung (``None``: all)."""
    top = target == max(targets) and top_seeds is not None
    return config.seeds[:top_seeds] if top else config.seeds


def rung_walk(
    config,
    fetch,
    targets,
    top_seeds: int | None = None,
    families: tuple[Family, ...] = REFERENCES,
):
    """Every cell of `families` at the rungs `targets`, rung by rung: the lr sweep at
    ``config.seeds[0]`` (the first rung's ``config.lrs``, family by family; above it as
    many values of the same grid centred on each family's best lr of the rung below,
    interleaved: [`centred_lrs`][syncattn.experiments._protocol.centred_lrs]; extended
    past an edge), then each family's best lr at the rung's other seeds
    ([`rung_seeds`][syncattn.experiments._protocol.rung_seeds]), family by family.
    `fetch(cells)` returns their results (training them, or reading them).

    Returns:
        ``(cells, results, best)`` with ``best[target][family]`` the best lr.
    """
    cells, results, best, prior = [], [], {}, {}
    for target in sorted(targets):
        sw, got, _, best[target] = sweep(
            config,
            families,
            lambda f, lr, t=target: rung_cell(
                config, t, f.name, lr, config.seeds[0], families=families
            ),
            fetch,
            lrs={f.name: centred_lrs(config.lrs, prior.get(f.name)) for f in families},
            interleave=bool(prior),
        )
        prior = {m: lr for m, lr in best[target].items() if lr is not None}
        more = at_best(
            families,
            best[target],
            rung_seeds(config, target, targets, top_seeds)[1:],
            lambda f, lr, s, t=target: rung_cell(
                config, t, f.name, lr, s, families=families
            ),
            by_seed=False,
        )
        cells += sw + more
        results += got + (fetch(more) if more else [])
    return cells, results, best


# --------------------------------------------------------------------------- one cell


def scored_cell(
    cell: TrainCell,
    folder,
    metrics: tuple[str, ...] = ("bpc",),
    *,
    progress: bool = False,
) -> dict:
    """[`train_cell`][syncattn.experiments.train_cell] (with a bar of its steps if
    `progress`), then the test scores over the same number of batches, the evaluation
    curve of `metrics` (BPC; a word-level experiment passes ``("loss", "ppl")``) and the
    median tokens/s from ``log.jsonl``."""
    from ...training import eval_run, read_log

    res = train_cell(cell, folder, progress=progress)
    if not CellResult.of(res).ok:
        return res
    log = read_log(Path(folder) / "log.jsonl")
    test = eval_run(folder, split="test", max_batches=cell.eval_batches, record=False)
    tps = [
        r["tokens_per_s"]
        for r in log
        if r.get("kind") == "train" and r.get("tokens_per_s")
    ]
    return res | {
        "test": {k: test[k] for k in ("loss", *metrics, "tokens") if k in test},
        "curve": [
            {"step": r["step"]} | {m: r[m] for m in metrics}
            for r in log
            if r.get("kind") == "eval"
        ],
        "tokens_per_s": statistics.median(tps) if tps else None,
    }

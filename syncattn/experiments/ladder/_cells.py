"""The ladder's rungs and cells: the rung rule, the budget, the cells, the cell function."""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from ... import models
from .._common import layered_overrides
from .._grid import TrainCell, train_cell


NAME = "ladder"
MODELS = ("kuramoto", "softmax")
HEAD_WIDTH, FF_RATIO, DEPTHS = models.HEAD_WIDTH, models.FF_RATIO, models.DEPTHS
"""The size rule's constants (`syncattn.models.shape_for_params`)."""


# --------------------------------------------------------------------------- rungs


def rung_depth(target: int) -> int:
    """Depth $L$ of the rung with target count `target`
    ([`syncattn.models.depth_for_params`][])."""
    return models.depth_for_params(target)


def rung_shape(target: int, vocab: int = 256) -> dict:
    """The rung rule (module docstring), [`syncattn.models.shape_for_params`][]:
    ``{"name", "target", "d_model", "n_layers", "n_heads", "d_ff": {model: int},
    "params": {model: int}, "mismatch"}`` with ``mismatch`` = transformer count /
    Kuramoto count - 1."""
    return models.shape_for_params(target, vocab, MODELS)


def check_protocol(config) -> None:
    """The checks of the protocol's fields shared by the ladder and ``dosc_law``: the
    lrs, ``extend``, the budget, the schedule and the convergence window.

    Raises:
        ValueError: naming the field.
    """
    if any(not lr > 0 for lr in config.lrs):
        raise ValueError(f"lrs must be > 0; got {config.lrs}.")
    if isinstance(config.extend, bool) or not isinstance(config.extend, int) or config.extend < 0:
        raise ValueError(f"extend must be an int >= 0; got {config.extend!r}.")
    if not config.tokens_per_param > 0 or config.evals < 2:
        raise ValueError("tokens_per_param must be > 0 and evals >= 2.")
    if not 0 <= config.warmup_fraction < 1 or not 0 < config.window < 1:
        raise ValueError("warmup_fraction must lie in [0, 1) and window in (0, 1).")


def rung_budget(config, params: int) -> dict:
    """Tokens $D$, steps $S$ and the schedule of a rung of `params` parameters."""
    per_step = config.batch_size * config.seq_len
    tokens = math.ceil(config.tokens_per_param * params)
    steps = config.evals * math.ceil(tokens / (config.evals * per_step))
    return {"tokens": steps * per_step, "target_tokens": tokens, "steps": steps,
            "warmup_steps": round(config.warmup_fraction * steps),
            "eval_every": steps // config.evals}  # fmt: skip


def rung_overrides(config, shape: dict, model: str, lr: float) -> dict:
    """The typed overrides of one cell: the shape, the budget's schedule, the lr."""
    b = rung_budget(config, shape["params"]["kuramoto"])
    return layered_overrides({
        "model.d_model": shape["d_model"], "model.n_layers": shape["n_layers"],
        "model.n_heads": shape["n_heads"], "model.d_ff": shape["d_ff"][model],
        "train.batch_size": config.batch_size, "train.seq_len": config.seq_len,
        "train.lr": float(lr), "train.warmup_steps": b["warmup_steps"],
        "train.eval_every": b["eval_every"], "train.eval_batches": config.eval_batches,
        "train.ckpt_every": 2 * b["eval_every"], "train.log_every": max(1, b["eval_every"] // 5),
    }, config.train)  # fmt: skip


def corpus_choice(config) -> tuple[str, str | None, dict]:
    """``(corpus, path, data options)``: see ``Config.data``."""
    if config.data != "auto":
        return config.data, config.data_path, {}
    if config.data_path is None:
        return "embedded", None, {}
    if Path(config.data_path).name.lower().startswith("enwik8"):
        return "enwik8", config.data_path, {}
    return "text", config.data_path, {"data.val_fraction": 0.05, "data.test_fraction": 0.05}


def rung_cell(config, target: int, model: str, lr: float, seed: int, variant: str = "",
              extra=()) -> TrainCell:  # fmt: skip
    """The [`TrainCell`][syncattn.experiments.TrainCell] ``RUNG-MODEL-[VARIANT-]lrLR-seedS``
    of rung `target`: its shape, budget and schedule at peak lr `lr`; `extra` (a
    variant's model switches, ``{key: value}`` or ``key=value`` text) replaces the
    rung's settings, e.g. ``variant="noffn", extra={"model.ffn": "none"}``."""
    shape = rung_shape(target)
    data, path, opts = corpus_choice(config)
    tag = f"{variant}-" if variant else ""
    return TrainCell(
        name=f"{shape['name']}-{model}-{tag}lr{lr:g}-seed{seed}", model=model, config="1m",
        seed=seed, data=data, data_path=path,
        steps=rung_budget(config, shape["params"]["kuramoto"])["steps"],
        overrides=layered_overrides(opts, rung_overrides(config, shape, model, lr), extra),
        eval_batches=config.final_batches,
    )  # fmt: skip


def sweep_cells(config, target: int) -> list[TrainCell]:
    """The first rung's lr sweep: both models, every lr of ``config.lrs``, at ``seeds[0]``
    (the rungs above centre theirs on the best lrs below: ``rung_lrs``)."""
    return [rung_cell(config, target, m, lr, config.seeds[0]) for m in MODELS for lr in config.lrs]


def rung_seeds(config, target: int) -> tuple[int, ...]:
    """The seeds of a rung (``top_seeds`` of them at the largest)."""
    top = target == max(config.targets) and config.top_seeds is not None
    return config.seeds[: config.top_seeds] if top else config.seeds


def seed_cells(config, target: int, best: dict) -> list[TrainCell]:
    """The best lr (``best[model]``, ``None``: none) at the rung's other seeds."""
    return [rung_cell(config, target, m, best[m], s) for m in MODELS
            if best.get(m) is not None for s in rung_seeds(config, target)[1:]]  # fmt: skip


def _bpc(res: dict | None, split: str = "val", metric: str = "bpc") -> float:
    if not res or res.get("status") != "ok":
        return math.nan
    return float(res["val" if split == "val" else "test"][metric])


def best_lr(config, results: dict[float, dict | None], metric: str = "bpc") -> float | None:
    """The lr whose cell has the lowest final validation `metric` (BPC; a word-level
    experiment passes ``"loss"``; ties: the smaller lr); ``None`` when no cell finished."""
    ok = [(b, lr) for lr, r in results.items() if math.isfinite(b := _bpc(r, "val", metric))]
    return min(ok)[1] if ok else None


# --------------------------------------------------------------------------- one cell


def ladder_cell(cell: TrainCell, folder, metrics: tuple[str, ...] = ("bpc",)) -> dict:
    """[`train_cell`][syncattn.experiments.train_cell], then the test scores over the same
    number of batches, the evaluation curve of `metrics` (BPC; a word-level experiment
    passes ``("loss", "ppl")``) and the median tokens/s from ``log.jsonl``."""
    from ...training import eval_run, read_log

    res = train_cell(cell, folder)
    if res.get("status") != "ok":
        return res
    log = read_log(Path(folder) / "log.jsonl")
    test = eval_run(folder, split="test", max_batches=cell.eval_batches, record=False)
    tps = [r["tokens_per_s"] for r in log if r.get("kind") == "train" and r.get("tokens_per_s")]
    return res | {
        "test": {k: test[k] for k in ("loss", *metrics, "tokens") if k in test},
        "curve": [{"step": r["step"]} | {m: r[m] for m in metrics} for r in log
                  if r.get("kind") == "eval"],
        "tokens_per_s": statistics.median(tps) if tps else None,
    }


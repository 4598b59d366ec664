"""The families, the shared fields, the budget, the lr sweep and the seeds at the best lr."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._result import CellResult


@dataclasses.dataclass(frozen=True)
class Family:
    """A model family of an experiment.

    Attributes:
        name: its name in the cells' names and the tables.
        attention: the model's ``attention`` (``"kuramoto"``, ``"softmax"``, ...).
        label: its name in the plots (``name`` when empty).
        model: further model fields at every size, ``(("ffn", "lift"),)``.
        ff_ratio: its feed-forward width as a multiple of ``d_model`` at a size whose
            reference it is (``None``: matched to the reference family's count).
        lrs: its own lr sweep (``None``: the config's ``lrs``).
    """

    name: str
    attention: str
    label: str = ""
    model: tuple[tuple[str, Any], ...] = ()
    ff_ratio: float | None = None
    lrs: tuple[float, ...] | None = None

    def overrides(self) -> dict[str, Any]:
        """``{"model.FIELD": value}`` of ``model``."""
        return {f"model.{k}": v for k, v in self.model}


@dataclasses.dataclass(frozen=True)
class ProtocolConfig:
    """The fields every compute-matched experiment shares.

    Attributes:
        lrs: the lr sweep (peak lr of the warm-up + cosine schedule).
        extend: lrs tried at most past an edge of the sweep when the best lies on it
            ([`next_lr`][syncattn.experiments._protocol.next_lr]), one at a time.
        seeds: the sweep runs at ``seeds[0]``; the best lr at every seed.
        tokens_per_param: $\\kappa$ in $D = \\kappa N$.
        batch_size, seq_len: $B \\times T$ tokens per step.
        warmup_fraction: warm-up steps as a fraction of $S$.
        evals: evaluations during training ($e$; $S$ is a multiple of it).
        eval_batches: validation batches of those evaluations.
        final_batches: validation and test batches of the final scores (``None``: the
            whole splits).
        window, tol: the convergence record (fell by < `tol` over the last `window`).
        confidence, n_boot, boot_seed: the intervals.
        data, data_path: the corpus (each experiment says what ``"auto"`` means).
        committed: the folder of committed results (``"auto"``, a path or ``None``).
        export: write each finished cell into `committed`.
        train: further ``key=value`` overrides of every cell.
    """

    lrs: tuple[float, ...] = (1e-3, 3e-3, 1e-2)
    extend: int = 2
    seeds: tuple[int, ...] = (0, 1, 2)
    tokens_per_param: float = 20.0
    batch_size: int = 16
    seq_len: int = 128
    warmup_fraction: float = 0.05
    evals: int = 10
    eval_batches: int = 10
    final_batches: int | None = 40
    window: float = 0.2
    tol: float = 0.01
    confidence: float = 0.95
    n_boot: int = 2000
    boot_seed: int = 0
    data: str = "auto"
    data_path: str | None = None
    committed: str | None = "auto"
    export: bool = False
    train: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.lrs or not self.seeds:
            raise ValueError("lrs and seeds must be non-empty.")
        check_protocol(self)


def check_protocol(config) -> None:
    """The checks of the shared fields: the lrs, ``extend``, the budget, the schedule
    and the convergence window.

    Raises:
        ValueError: naming the field.
    """
    if any(not lr > 0 for lr in config.lrs):
        raise ValueError(f"lrs must be > 0; got {config.lrs}.")
    if (
        isinstance(config.extend, bool)
        or not isinstance(config.extend, int)
        or config.extend < 0
    ):
        raise ValueError(f"extend must be an int >= 0; got {config.extend!r}.")
    if not config.tokens_per_param > 0 or config.evals < 2:
        raise ValueError("tokens_per_param must be > 0 and evals >= 2.")
    if not 0 <= config.warmup_fraction < 1 or not 0 < config.window < 1:
        raise ValueError("warmup_fraction must lie in [0, 1) and window in (0, 1).")


def budget(config, params: int) -> dict:
    """Tokens $D$, steps $S$ and the schedule of a cell of `params` parameters."""
    per_step = config.batch_size * config.seq_len
    tokens = math.ceil(config.tokens_per_param * params)
    steps = config.evals * math.ceil(tokens / (config.evals * per_step))
    return {
        "tokens": steps * per_step,
        "target_tokens": tokens,
        "steps": steps,
        "warmup_steps": round(config.warmup_fraction * steps),
        "eval_every": steps // config.evals,
    }


def schedule(config, b: dict, lr: float, logs_per_eval: int = 5) -> dict[str, Any]:
    """A cell's training overrides from its budget `b`
    ([`budget`][syncattn.experiments._protocol.budget]): batch size, peak lr, warm-up,
    ``config.eval_batches`` validation batches every ``b["eval_every"]`` steps, a
    checkpoint every two evaluations, `logs_per_eval` log rows per evaluation."""
    return {
        "train.batch_size": config.batch_size,
        "train.lr": float(lr),
        "train.warmup_steps": b["warmup_steps"],
        "train.eval_every": b["eval_every"],
        "train.eval_batches": config.eval_batches,
        "train.ckpt_every": 2 * b["eval_every"],
        "train.log_every": max(1, b["eval_every"] // logs_per_eval),
    }


# --------------------------------------------------------------------------- the lr sweep


def _step(lrs) -> float:
    lrs = sorted(lrs)
    return (lrs[-1] / lrs[0]) ** (1 / (len(lrs) - 1))


def lr_grid(lrs, k: int) -> float:
    r"""The $k$-th value of the sweep's geometric grid, $\min(lrs)\, g^k$ with
    $g = (\max/\min)^{1/(n-1)}$, to one significant digit (for 1e-3, 3e-3, 1e-2:
    ..., 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, ...)."""
    return float(f"{min(lrs) * _step(lrs) ** k:.1g}")


def _grid_index(lrs, lr: float) -> int:
    return round(math.log(lr / min(lrs)) / math.log(_step(lrs)))


def centred_lrs(lrs, prior: float | None) -> list[float]:
    """As many values of the grid of `lrs` as `lrs` holds, centred on `prior`, centre
    first (`lrs` itself when `prior` is ``None`` or `lrs` has one value)."""
    if prior is None or len(lrs) < 2:
        return list(lrs)
    n, k = len(lrs), _grid_index(lrs, prior)
    ks = sorted(
        range(k - (n - 1) // 2, k - (n - 1) // 2 + n), key=lambda j: (abs(j - k), j)
    )
    return [lr_grid(lrs, j) for j in ks]


def next_lr(lrs, tried, best: float | None) -> float | None:
    """The grid value ([`lr_grid`][syncattn.experiments._protocol.lr_grid] of the sweep
    `lrs`) beyond the edge of `tried` when `best` sits on that edge; ``None`` when `best`
    lies inside `tried` (or there is no best, or `lrs` has one value)."""
    tried = sorted(tried)
    if best is None or len(lrs) < 2 or tried[0] < best < tried[-1]:
        return None
    return lr_grid(lrs, _grid_index(lrs, best) + (1 if best == tried[-1] else -1))


def best_lr(results: Mapping[float, Any], metric: str = "bpc") -> float | None:
    """The lr whose cell has the lowest final validation `metric` (ties: the smaller
    lr); ``None`` when no cell finished. `results` maps lrs to cell results."""
    ok = [
        (b, lr)
        for lr, r in results.items()
        if math.isfinite(b := CellResult.of(r).score("val", metric))
    ]
    return min(ok)[1] if ok else None


def sweep(
    config,
    families: Sequence[Family],
    make: Callable,
    fetch: Callable,
    *,
    lrs: Mapping[str, Sequence[float]] | None = None,
    interleave: bool = True,
    metric: str = "bpc",
):
    """Each family's lr sweep at ``config.seeds[0]``, extended past an edge.

    `make(family, lr)` is the family's cell at `lr` (and the first seed); `fetch(cells)`
    their results. The sweep of a family is ``lrs[name]`` (default: its own ``lrs``, else
    ``config.lrs``), fetched in one go, families interleaved value by value (or one
    family after the other); then, family by family, up to ``config.extend`` values of
    its grid past the edge its best lies on, one at a time.

    Returns:
        ``(cells, results, tried, best)``: the cells in order, their results, per family
        ``{lr: result}``, and per family the best lr (lowest validation `metric`).
    """
    grids = {f.name: f.lrs or config.lrs for f in families}
    lrs = {f.name: list(lrs[f.name] if lrs else grids[f.name]) for f in families}
    by = {f.name: f for f in families}
    if interleave:
        n = max(len(v) for v in lrs.values())
        order = [(f, lr) for i in range(n) for f in lrs for lr in lrs[f][i : i + 1]]
    else:
        order = [(f, lr) for f in lrs for lr in lrs[f]]
    cells = [make(by[f], lr) for f, lr in order]
    results = [CellResult.of(r) for r in fetch(cells)]
    tried = {
        f: {lr: r for (g, lr), r in zip(order, results, strict=True) if g == f}
        for f in lrs
    }
    for f in lrs:
        for _ in range(config.extend):
            lr = next_lr(grids[f], tried[f], best_lr(tried[f], metric))
            if lr is None:
                break
            c = make(by[f], lr)
            (r,) = fetch([c])
            cells.append(c)
            results.append(CellResult.of(r))
            tried[f][lr] = results[-1]
    return cells, results, tried, {f: best_lr(tried[f], metric) for f in lrs}


def at_best(
    families: Sequence[Family],
    best: Mapping[str, float | None],
    seeds,
    make: Callable,
    *,
    by_seed: bool = True,
    skip=(),
) -> list:
    """The cells of each family at its best lr (none without one) and each of `seeds`:
    ``make(family, lr, seed)`` (a cell or a list of cells), seed by seed (`by_seed`) or
    family by family; the cells named as one of `skip` (the sweep's) left out."""
    pairs = (
        [(f, s) for s in seeds for f in families]
        if by_seed
        else [(f, s) for f in families for s in seeds]
    )
    out = []
    for f, s in pairs:
        if best.get(f.name) is not None:
            got = make(f, best[f.name], s)
            out += got if isinstance(got, list) else [got]
    names = {c.name for c in skip}
    return [c for c in out if c.name not in names]

r"""Issue 20, item 1: seed 000's table as a compute-matched size ladder, each cell trained to a defined end.

The Kuramoto LM against the matched RoPE + SwiGLU transformer (byte-level, validation
and test BPC) at a ladder of sizes, each size trained on a Chinchilla-style budget:

$$D = \lceil \kappa N \rceil \text{ tokens},\quad \kappa = 20,\qquad
  S = e\left\lceil \frac{D}{e\,B\,T} \right\rceil \text{ steps of } B\times T \text{ bytes,}$$

with the training package's warm-up + cosine schedule ending at $S$ (to 10 % of the
peak, ``min_lr_ratio``), $e$ evaluations spread evenly over the run, and $N$ the rung's
parameter count (the Kuramoto model's total count, embeddings included, as the 1m/5m
presets count them; the transformer lies within 5 % of it).

**The rung rule** ([`rung_shape`][syncattn.experiments.ladder.rung_shape]), for a target
$N^\ast$: depth $L$ = 1 below 30 k, 2 up to 140 k, 3 up to 280 k, 4 up to 3 M, 6 above
(the 1m and 5m presets' depths); heads of width 16 ($n_{heads} = d/16$); the Kuramoto
model's feed-forward $d_{ff}$ = the multiple of 8 nearest $2.75\,d$ (the 1m preset's
ratio); $d$ = the multiple of 16 whose Kuramoto count is closest to $N^\ast$ (in
$|\ln(N/N^\ast)|$); the transformer has the same $d$, $L$ and heads, and the multiple of 8
for its $d_{ff}$ that brings its count closest to the Kuramoto's. Counts are those of
the real models (`syncattn.models.config_params`). Default rungs: 45 k, 90 k, 209 k,
407 k parameters (targets 50 k, 100 k, 200 k, 400 k); ``--full`` adds 1 M and 5 M.

**Per rung and model:** a learning-rate sweep (``lrs``) at the first seed, extended one
lr at a time past an edge while the best lies on it (``extend`` at most); the lr with
the lowest final validation BPC is then trained on the other seeds (the largest rung
on ``top_seeds`` seeds in all, when set). Every lr's BPC is reported, and a best lr at
the edge of the sweep is flagged. The headline BPC is on the **test** split (the
validation split chose the lr); the gap Kuramoto - transformer is paired by seed with a
Student-t interval ([`syncattn.stats.t_interval`][]), and fitted against $N$ as
$\mathrm{gap} = a + b\ln N$ through the rung means with a percentile bootstrap over the
seeds ([`syncattn.stats.log_linear_bootstrap`][]), predicted at 1 M and 5 M against the
paper's +0.021 and about 0 (median -0.004, mean +0.012).

**Convergence record:** a cell is converged when its validation BPC fell by less than
1 % over the last 20 % of its steps ([`syncattn.stats.relative_improvement`][] on the
evaluations logged during training); the cells that were not are listed.

**Results that outlive the machine.** Each finished cell's ``result.json`` (with its
evaluation curve, test BPC and tokens/s) and the evaluation rows of its ``log.jsonl``
are written, with ``export=true``, to ``committed`` (default ``"auto"``: the
checkout's ``results/experiments/ladder/ladder-SIZE``, for the embedded corpus); a cell
found there with the same settings is not trained again, on any machine. Checkpoints
stay in ``--out``. ``syncattn experiment ladder --from-results DIR`` rebuilds the
tables and plots from such a folder alone ([`rebuild`][syncattn.experiments.ladder.rebuild]).

**For issue 20's later items.** The converged cells are ordinary run folders of
[`TrainCell`][syncattn.experiments.TrainCell]s named ``RUNG-MODEL-lrLR-seedS``
(``ladder_cells(config)`` lists them, ``best_lrs`` in ``results.json`` names the
chosen ones): the ablations (item 2) take a rung's Kuramoto cell settings
([`rung_overrides`][syncattn.experiments.ladder.rung_overrides] plus the variant's
switch, same lr and budget) and compare with its finished seeds; the dynamics (item 3)
read the Kuramoto checkpoints of ``OUT/runs/RUNG-kuramoto-lrBEST-seedS`` as
``dynamics`` reads experiment 1's.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import shutil
import statistics
import warnings
from pathlib import Path

from ._common import (
    describe_values,
    fmt_mean_std,
    layered_overrides,
    start_run,
    to_jsonable,
    write_csv,
    write_json,
)
from ._grid import RESULT, Grid, TrainCell, read_result, train_cell
from .table import PAPER as TABLE_PAPER


__all__ = [
    "Config", "run", "rebuild", "summary", "rung_depth", "rung_shape", "rung_budget",
    "rung_overrides", "ladder_cell", "sweep_cells", "seed_cells", "best_lr", "next_lr", "PAPER",
]  # fmt: skip

NAME = "ladder"
MODELS = ("kuramoto", "softmax")
HEAD_WIDTH = 16
FF_RATIO = 2.75
DEPTHS = ((30_000, 1), (140_000, 2), (280_000, 3), (3_000_000, 4))
"""``(upper bound on the target, depth)``; above the last bound, depth 6."""
PAPER = {
    "source": TABLE_PAPER["source"], "corpus": "enwik8",
    "gap": {"1000000": 1.637 - 1.616, "5000000": {"median": 1.448 - 1.452, "mean": 1.468 - 1.456}},
    "table": {k: TABLE_PAPER[k] for k in ("1m", "5m")},
}  # fmt: skip
PREDICT_AT = (1_000_000, 5_000_000)


@dataclasses.dataclass(frozen=True)
class Config:
    """The ladder's settings.

    Attributes:
        targets: target parameter counts $N^\\ast$ of the rungs (the rule picks the shapes).
        lrs: the learning-rate sweep (peak lr of the cosine schedule).
        extend: lrs tried at most beyond an edge of `lrs` when the best lies on it
            ([`next_lr`][syncattn.experiments.ladder.next_lr]), one at a time.
        seeds: the sweep runs at ``seeds[0]``; the best lr at every seed.
        top_seeds: seeds (counting the sweep's) at the largest rung (``None``: all).
        tokens_per_param: $\\kappa$ in $D = \\kappa N$.
        batch_size, seq_len: $B \\times T$ bytes per step.
        warmup_fraction: warm-up steps as a fraction of $S$.
        evals: evaluations during training ($e$; $S$ is a multiple of it).
        eval_batches: validation batches of those evaluations.
        final_batches: validation and test batches of the final scores.
        window, tol: the convergence record (fell by < `tol` over the last `window`).
        confidence, n_boot, boot_seed: the intervals.
        data: ``"auto"`` (enwik8 for a file named enwik8*, any other file as text with
            5 % validation and 5 % test, the embedded corpus without a path) or a corpus.
        data_path: the corpus file (``--data-path``).
        committed: the folder of committed results (``"auto"``, a path or ``None``).
        export: write each finished cell into `committed`.
        train: further ``key=value`` overrides of every cell.
    """

    targets: tuple[int, ...] = (50_000, 100_000, 200_000, 400_000)
    lrs: tuple[float, ...] = (1e-3, 3e-3, 1e-2)
    seeds: tuple[int, ...] = (0, 1, 2)
    top_seeds: int | None = 2
    tokens_per_param: float = 20.0
    batch_size: int = 16
    seq_len: int = 128
    warmup_fraction: float = 0.05
    evals: int = 10
    eval_batches: int = 10
    final_batches: int = 40
    window: float = 0.2
    tol: float = 0.01
    extend: int = 2
    confidence: float = 0.95
    n_boot: int = 2000
    boot_seed: int = 0
    data: str = "auto"
    data_path: str | None = None
    committed: str | None = "auto"
    export: bool = False
    train: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.targets or not self.lrs or not self.seeds:
            raise ValueError("targets, lrs and seeds must be non-empty.")
        if len(set(self.targets)) != len(self.targets) or min(self.targets) < 1000:
            raise ValueError(f"targets must be distinct and >= 1000; got {self.targets}.")
        if any(not lr > 0 for lr in self.lrs):
            raise ValueError(f"lrs must be > 0; got {self.lrs}.")
        if self.top_seeds is not None and not 1 <= self.top_seeds <= len(self.seeds):
            raise ValueError(f"top_seeds must lie in [1, len(seeds)]; got {self.top_seeds}.")
        if isinstance(self.extend, bool) or not isinstance(self.extend, int) or self.extend < 0:
            raise ValueError(f"extend must be an int >= 0; got {self.extend!r}.")
        if not self.tokens_per_param > 0 or self.evals < 2:
            raise ValueError("tokens_per_param must be > 0 and evals >= 2.")
        if not 0 <= self.warmup_fraction < 1 or not 0 < self.window < 1:
            raise ValueError("warmup_fraction must lie in [0, 1) and window in (0, 1).")

    @classmethod
    def smoke(cls) -> Config:
        """Seconds: two one-layer rungs (12 k, 31 k), 2 lrs, 2 seeds, 0.1 N tokens."""
        return cls(targets=(12_000, 30_000), lrs=(3e-3, 1e-2), seeds=(0, 1), top_seeds=None,
                   tokens_per_param=0.1, batch_size=4, seq_len=32, evals=5, eval_batches=2,
                   final_batches=2, n_boot=50, extend=0, committed=None)  # fmt: skip

    @classmethod
    def default(cls) -> Config:
        """Issue 20's CPU protocol: 4 rungs of 45 k-407 k parameters, 3 lrs, 3 seeds (2 at
        407 k), 20 N tokens each (about 2 h of an idle 2-core CPU: docs/experiments.md)."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """For a GPU: 6 rungs up to 5 M parameters (1 M and 5 M are the paper's sizes),
        5 seeds on every rung, whole-split-sized final scores."""
        return cls(targets=(50_000, 100_000, 200_000, 400_000, 1_000_000, 5_000_000),
                   seeds=(0, 1, 2, 3, 4), top_seeds=None, final_batches=200)  # fmt: skip


# --------------------------------------------------------------------------- rungs


def rung_depth(target: int) -> int:
    """Depth $L$ of the rung with target count `target` (``DEPTHS``; 6 above 3 M)."""
    return next((L for bound, L in DEPTHS if target <= bound), 6)


def _kuramoto_ff(d: int) -> int:
    return max(8, 8 * int(FF_RATIO * d / 8 + 0.5))


@functools.lru_cache(maxsize=256)
def _count(model: str, d: int, L: int, ff: int, vocab: int = 256) -> int:
    from .. import models

    return models.config_params(models.get_config(
        "1m", attention=model, d_model=d, n_layers=L, n_heads=d // HEAD_WIDTH, d_ff=ff,
        vocab_size=vocab))  # fmt: skip


@functools.lru_cache(maxsize=64)
def rung_shape(target: int, vocab: int = 256) -> dict:
    """The rung rule (module docstring): ``{"name", "target", "d_model", "n_layers",
    "n_heads", "d_ff": {model: int}, "params": {model: int}, "mismatch"}`` with
    ``mismatch`` = transformer count / Kuramoto count - 1."""
    L = rung_depth(target)
    best, d = None, HEAD_WIDTH
    while True:
        n = _count("kuramoto", d, L, _kuramoto_ff(d), vocab)
        cand = (abs(math.log(n / target)), d)
        best = min(best or cand, cand)
        if n >= target:
            break
        d += HEAD_WIDTH
    d = best[1]
    ff_k = _kuramoto_ff(d)
    n_k = _count("kuramoto", d, L, ff_k, vocab)
    base = _count("softmax", d, L, 8, vocab)
    per8 = _count("softmax", d, L, 16, vocab) - base
    ff_s = max(8, 8 + 8 * round((n_k - base) / per8))
    n_s = _count("softmax", d, L, ff_s, vocab)
    name = f"{target // 1_000_000}m" if target % 1_000_000 == 0 else f"{round(target / 1000)}k"
    return {"name": name, "target": target, "d_model": d, "n_layers": L,
            "n_heads": d // HEAD_WIDTH, "d_ff": {"kuramoto": ff_k, "softmax": ff_s},
            "params": {"kuramoto": n_k, "softmax": n_s}, "mismatch": n_s / n_k - 1}  # fmt: skip


def rung_budget(config: Config, params: int) -> dict:
    """Tokens $D$, steps $S$ and the schedule of a rung of `params` parameters."""
    per_step = config.batch_size * config.seq_len
    tokens = math.ceil(config.tokens_per_param * params)
    steps = config.evals * math.ceil(tokens / (config.evals * per_step))
    return {"tokens": steps * per_step, "target_tokens": tokens, "steps": steps,
            "warmup_steps": round(config.warmup_fraction * steps),
            "eval_every": steps // config.evals}  # fmt: skip


def rung_overrides(config: Config, shape: dict, model: str, lr: float) -> dict:
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


def corpus_choice(config: Config) -> tuple[str, str | None, dict]:
    """``(corpus, path, data options)``: see ``Config.data``."""
    if config.data != "auto":
        return config.data, config.data_path, {}
    if config.data_path is None:
        return "embedded", None, {}
    if Path(config.data_path).name.lower().startswith("enwik8"):
        return "enwik8", config.data_path, {}
    return "text", config.data_path, {"data.val_fraction": 0.05, "data.test_fraction": 0.05}


def _cell(config: Config, target: int, model: str, lr: float, seed: int) -> TrainCell:
    shape = rung_shape(target)
    data, path, opts = corpus_choice(config)
    return TrainCell(
        name=f"{shape['name']}-{model}-lr{lr:g}-seed{seed}", model=model, config="1m",
        seed=seed, data=data, data_path=path,
        steps=rung_budget(config, shape["params"]["kuramoto"])["steps"],
        overrides=layered_overrides(opts, rung_overrides(config, shape, model, lr)),
        eval_batches=config.final_batches,
    )  # fmt: skip


def sweep_cells(config: Config, target: int) -> list[TrainCell]:
    """The lr sweep of a rung: both models, every lr, at ``seeds[0]``."""
    return [_cell(config, target, m, lr, config.seeds[0]) for m in MODELS for lr in config.lrs]


def rung_seeds(config: Config, target: int) -> tuple[int, ...]:
    """The seeds of a rung (``top_seeds`` of them at the largest)."""
    top = target == max(config.targets) and config.top_seeds is not None
    return config.seeds[: config.top_seeds] if top else config.seeds


def seed_cells(config: Config, target: int, best: dict) -> list[TrainCell]:
    """The best lr (``best[model]``, ``None``: none) at the rung's other seeds."""
    return [_cell(config, target, m, best[m], s) for m in MODELS
            if best.get(m) is not None for s in rung_seeds(config, target)[1:]]  # fmt: skip


def _bpc(res: dict | None, split: str = "val") -> float:
    if not res or res.get("status") != "ok":
        return math.nan
    return float(res["val" if split == "val" else "test"]["bpc"])


def best_lr(config: Config, results: dict[float, dict | None]) -> float | None:
    """The lr whose cell has the lowest final validation BPC (ties: the smaller lr);
    ``None`` when no cell finished."""
    ok = [(b, lr) for lr, r in results.items() if math.isfinite(b := _bpc(r))]
    return min(ok)[1] if ok else None


# --------------------------------------------------------------------------- one cell


def ladder_cell(cell: TrainCell, folder) -> dict:
    """[`train_cell`][syncattn.experiments.train_cell], then the test BPC over the same
    number of batches, the evaluation curve and the median tokens/s from ``log.jsonl``."""
    from ..training import eval_run, read_log

    res = train_cell(cell, folder)
    if res.get("status") != "ok":
        return res
    log = read_log(Path(folder) / "log.jsonl")
    test = eval_run(folder, split="test", max_batches=cell.eval_batches, record=False)
    tps = [r["tokens_per_s"] for r in log if r.get("kind") == "train" and r.get("tokens_per_s")]
    return res | {
        "test": {k: test[k] for k in ("loss", "bpc", "tokens") if k in test},
        "curve": [{"step": r["step"], "bpc": r["bpc"]} for r in log if r.get("kind") == "eval"],
        "tokens_per_s": statistics.median(tps) if tps else None,
    }


# --------------------------------------------------------------------------- committed results


def _committed(config: Config, size: str | None) -> Path | None:
    if config.committed is None:
        return None
    if config.committed != "auto":
        return Path(config.committed)
    root = Path(__file__).resolve().parents[2] / "results" / "experiments"
    if size is None or config.data_path is not None or not root.is_dir():
        return None
    return root / NAME / f"{NAME}-{size}"


def _same_cell(cell: TrainCell, result: dict) -> bool:
    mine = json.loads(json.dumps(to_jsonable(dataclasses.asdict(cell))))
    return result.get("cell") == mine


def _adopt(cells, src: Path | None, runs: Path) -> None:
    """Copy the committed result of every unfinished cell of `runs` found in `src`."""
    for c in cells if src is not None else ():
        theirs, mine = src / "runs" / c.name, runs / c.name
        res = read_result(theirs)
        if res is None or (mine / RESULT).is_file():
            continue
        if not _same_cell(c, res):
            warnings.warn(f"{theirs} holds other settings than cell {c.name}: trained here.",
                          stacklevel=3)
            continue
        mine.mkdir(parents=True, exist_ok=True)
        for f in ("log.jsonl", RESULT):  # the result last: it marks the cell finished
            if (theirs / f).is_file():
                shutil.copyfile(theirs / f, mine / f)


def _export(cells, runs: Path, dst: Path) -> None:
    """Write each finished cell's result.json and the eval rows of its log.jsonl to `dst`."""
    for c in cells:
        res = read_result(runs / c.name)
        if res is None or read_result(dst / "runs" / c.name) is not None:
            continue
        folder = dst / "runs" / c.name
        folder.mkdir(parents=True, exist_ok=True)
        log = runs / c.name / "log.jsonl"
        if log.is_file():
            rows = [ln for ln in log.read_text().splitlines() if '"kind": "eval"' in ln]
            (folder / "log.jsonl").write_text("".join(ln + "\n" for ln in rows))
        write_json(folder / RESULT, res)


# --------------------------------------------------------------------------- run


def next_lr(lrs, tried, best: float | None) -> float | None:
    r"""The next lr beyond the sweep's edge when `best` sits on the edge of `tried`:
    the sweep `lrs` continued with its geometric step $g = (\max/\min)^{1/(n-1)}$,
    $\max(lrs)\,g^k$ (or $\min(lrs)/g^k$), to one significant digit (after 1e-3,
    3e-3, 1e-2: 3e-2, 1e-1, ...); ``None`` when `best` lies inside `tried` (or there
    is no best, or `lrs` has one value)."""
    lrs, tried = sorted(lrs), sorted(tried)
    if best is None or len(lrs) < 2 or tried[0] < best < tried[-1]:
        return None
    g = (lrs[-1] / lrs[0]) ** (1 / (len(lrs) - 1))
    up = best == tried[-1]
    for k in range(1, 100):
        lr = float(f"{(lrs[-1] * g**k if up else lrs[0] / g**k):.1g}")
        if (lr > best) if up else (lr < best):
            return lr
    return None


def _sweep(config: Config, target: int, fetch):
    """The rung's sweep, extended past an edge (``extend`` lrs at most per model)."""
    cells = sweep_cells(config, target)
    got = fetch(cells)
    tried = {m: {c.overrides["train.lr"]: r for c, r in zip(cells, got, strict=True)
                 if c.model == m} for m in MODELS}  # fmt: skip
    for m in MODELS:
        for _ in range(config.extend):
            lr = next_lr(config.lrs, tried[m], best_lr(config, tried[m]))
            if lr is None:
                break
            c = _cell(config, target, m, lr, config.seeds[0])
            (r,) = fetch([c])
            cells.append(c)
            got.append(r)
            tried[m][lr] = r
    return cells, got, {m: best_lr(config, tried[m]) for m in MODELS}


def _walk(config: Config, fetch) -> tuple[list[TrainCell], list[dict], dict]:
    """Every cell, rung by rung (sweep, then seeds at the best lr): `fetch(cells)`
    returns their results (training them, or reading them)."""
    cells, results, best = [], [], {}
    for target in sorted(config.targets):
        sweep, got, best[target] = _sweep(config, target, fetch)
        more = seed_cells(config, target, best[target])
        cells += sweep + more
        results += got + (fetch(more) if more else [])
    return cells, results, best


def run(config: Config, out, *, grid: Grid | None = None, progress: bool = True,
        size: str | None = None) -> dict[str, Path]:
    """Train the ladder (resuming; adopting committed cells), write config.json,
    results.json, cells.csv, rungs.csv and ladder.png; return the files written."""
    out, grid, files = start_run(config, out, NAME, size, grid, progress)
    runs, dst = out / "runs", _committed(config, size)

    def fetch(cells):
        _adopt(cells, dst, runs)
        if grid.uses_ray:
            batches = [cells]
        else:
            batches = [[c] for c in cells]  # one at a time: each is exported as it ends
        got = []
        for b in batches:
            got += grid.run(b, runs, ladder_cell, desc=f"{NAME} {b[0].name}")
            if dst is not None and config.export:
                _export(b, runs, dst)
        return got

    cells, results, best = _walk(config, fetch)
    files |= _write(config, out, cells, results, best)
    if dst is not None and config.export:
        dst.mkdir(parents=True, exist_ok=True)
        for f in files.values():
            shutil.copyfile(f, dst / Path(f).name)
    return files


def rebuild(src, out, *, progress: bool = True) -> dict[str, Path]:
    """The tables and plots of the ladder in `src` (a folder with ``config.json`` and
    ``runs/CELL/result.json``, e.g. the committed one) rebuilt into `out` from those
    files alone (cells not there are reported missing).

    Raises:
        FileNotFoundError: `src` has no ladder ``config.json``.
    """
    from ._common import write_experiment_config

    src, out = Path(src), Path(out)
    path = src / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{src} holds no config.json: pass a ladder output folder.")
    raw = json.loads(path.read_text())
    if raw.get("experiment") != NAME:
        raise FileNotFoundError(f"{path} is not a ladder's config (experiment {raw.get('experiment')!r}).")
    config = Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw["config"].items()})
    out.mkdir(parents=True, exist_ok=True)

    def fetch(cells):
        return [read_result(src / "runs" / c.name) or {"status": "missing"} for c in cells]

    cells, results, best = _walk(config, fetch)
    files = {"config": write_experiment_config(config, out, NAME, raw.get("size"))}
    return files | _write(config, out, cells, results, best, rebuilt_from=str(src))


# --------------------------------------------------------------------------- outputs


def _converged(config: Config, res: dict) -> dict | None:
    from .. import stats

    curve = res.get("curve") if res.get("status") == "ok" else None
    if not curve or len(curve) < 2:
        return None
    r = stats.relative_improvement([p["step"] for p in curve], [p["bpc"] for p in curve],
                                   config.window)  # fmt: skip
    return r | {"converged": r["improvement"] < config.tol}


def aggregate(config: Config, cells, results, best) -> dict:
    """Per cell: scores and convergence; per rung: the sweep, the seeds at the best lr,
    the paired gap and its interval; the gap's fit against $N$."""
    from .. import stats

    rows = []
    for c, r in zip(cells, results, strict=True):
        conv = _converged(config, r)
        rows.append({
            "cell": c.name, "rung": c.name.split("-")[0], "model": c.model,
            "lr": c.overrides["train.lr"], "seed": c.seed, "status": r.get("status"),
            "params": r.get("params"), "steps": c.steps, "val_bpc": _bpc(r),
            "test_bpc": _bpc(r, "test"), "tokens_per_s": r.get("tokens_per_s"),
            "wall_s": r.get("wall_s"), "improvement": conv and conv["improvement"],
            "converged": conv and conv["converged"],
        })  # fmt: skip
    rungs, xs, gaps = [], [], []
    for target in sorted(config.targets):
        shape = rung_shape(target)
        mine = [w for w in rows if w["rung"] == shape["name"]]
        entry = {"shape": shape, **rung_budget(config, shape["params"]["kuramoto"]),
                 "best_lr": best[target], "sweep": {}, "models": {}}  # fmt: skip
        seeds = rung_seeds(config, target)
        per = {}
        for m in ("kuramoto", "softmax"):
            sweep = {w["lr"]: w["val_bpc"] for w in mine
                     if w["model"] == m and w["seed"] == config.seeds[0]}  # fmt: skip
            entry["sweep"][m] = {f"{k:g}": v for k, v in sorted(sweep.items())}
            lr = best[target][m]
            per[m] = {w["seed"]: w for w in mine if w["model"] == m and w["lr"] == lr}
            entry["models"][m] = {
                "test": describe_values([per[m][s]["test_bpc"] for s in seeds if s in per[m]]),
                "val": describe_values([per[m][s]["val_bpc"] for s in seeds if s in per[m]]),
                "lr_at_edge": lr is not None and len(sweep) > 1 and lr in (min(sweep), max(sweep)),
            }  # fmt: skip
        d = [per["kuramoto"][s]["test_bpc"] - per["softmax"][s]["test_bpc"] for s in seeds
             if s in per["kuramoto"] and s in per["softmax"]]  # fmt: skip
        d = [v for v in d if math.isfinite(v)]
        entry["gap"] = describe_values(d) | {"ci": stats.t_interval(d, config.confidence) if d else None}
        if d:
            xs.append(shape["params"]["kuramoto"])
            gaps.append(d)
        rungs.append(entry)
    fit = {"status": "no fit: fewer than 2 rungs with a gap"}
    if len(xs) >= 2:
        fit = {"status": "ok", "model": "gap = a + b ln N"} | stats.log_linear_bootstrap(
            xs, gaps, at=PREDICT_AT, n_boot=config.n_boot, seed=config.boot_seed,
            confidence=config.confidence)  # fmt: skip
    missing = [w["cell"] for w in rows if w["status"] == "missing"]
    not_conv = [w["cell"] for w in rows if w["converged"] is False]
    first = next((r for r in results if r.get("status") == "ok"), {})
    return {"rungs": rungs, "fit": fit, "rows": rows, "not_converged": not_conv,
            "missing": missing, "corpus": first.get("corpus")}  # fmt: skip


def _write(config, out, cells, results, best, rebuilt_from=None) -> dict[str, Path]:
    from .ladder_plot import plot

    agg = aggregate(config, cells, results, best)
    payload = {"experiment": NAME, **agg, "paper": PAPER, "rebuilt_from": rebuilt_from,
               "paper_corpus_matches": (agg.get("corpus") or {}).get("name") == "enwik8"}  # fmt: skip
    files = {"results": write_json(out / "results.json", payload)}
    rows = agg["rows"]
    files["csv"] = write_csv(out / "cells.csv", {
        k: [("" if w[k] is None else w[k]) for w in rows] for k in rows[0]})  # fmt: skip
    rr = [(e, m) for e in agg["rungs"] for m in ("kuramoto", "softmax")]
    files["rungs"] = write_csv(out / "rungs.csv", {
        "rung": [e["shape"]["name"] for e, _ in rr], "model": [m for _, m in rr],
        "params": [e["shape"]["params"][m] for e, m in rr],
        "d_model": [e["shape"]["d_model"] for e, _ in rr],
        "n_layers": [e["shape"]["n_layers"] for e, _ in rr],
        "d_ff": [e["shape"]["d_ff"][m] for e, m in rr], "tokens": [e["tokens"] for e, _ in rr],
        "steps": [e["steps"] for e, _ in rr],
        "best_lr": ["" if e["best_lr"][m] is None else e["best_lr"][m] for e, m in rr],
        "n_seeds": [e["models"][m]["test"]["n"] for e, m in rr],
        "test_bpc_mean": [_or(e["models"][m]["test"]["mean"]) for e, m in rr],
        "test_bpc_std": [_or(e["models"][m]["test"]["std"]) for e, m in rr],
        "gap_mean": [_or(e["gap"]["mean"]) for e, _ in rr],
    })  # fmt: skip
    files["png"] = plot(agg, PAPER, out / "ladder.png")
    return files


def _or(v):
    return "" if v is None else v


def summary(results: dict) -> str:
    """The ladder as text: per rung the shape, the lrs, BPC per model, the gap; the fit;
    the convergence record."""
    corpus = (results.get("corpus") or {}).get("name")
    lines = [f"ladder on {corpus}: test BPC at each model's best lr (mean ± std over seeds)"]
    for e in results["rungs"]:
        s = e["shape"]
        lines.append(f"  {s['name']:>5} N={s['params']['kuramoto']:,} / {s['params']['softmax']:,} "
                     f"(d {s['d_model']}, L {s['n_layers']}), {e['tokens']:,} tokens, {e['steps']} steps")
        for m, t in e["models"].items():
            sweep = ", ".join(f"{lr}: {v:.3f}" for lr, v in e["sweep"][m].items() if math.isfinite(v))
            edge = " (at the sweep's edge)" if t["lr_at_edge"] else ""
            lines.append(f"        {m:<9} {fmt_mean_std(t['test'])} (n={t['test']['n']}), "
                         f"lr {e['best_lr'][m]}{edge}; val BPC by lr: {sweep}")
        g = e["gap"]
        ci = f" [{g['ci'][0]:+.3f}, {g['ci'][1]:+.3f}]" if g.get("ci") else ""
        lines.append(f"        gap {fmt_mean_std(g, 3)}{ci} (paired, n={g['n']})")
    f = results["fit"]
    if f["status"] == "ok":
        preds = "; ".join(f"{p['x']:.0e}: {p['y']:+.3f} [{p['ci'][0]:+.3f}, {p['ci'][1]:+.3f}]"
                          for p in f["predictions"])  # fmt: skip
        lines.append(f"  fit gap = {f['a']:.3f} + {f['b']:.4f} ln N (R2 {f['r2']:.2f}); "
                     f"predicted {preds} | paper +0.021 at 1M, about 0 at 5M")
    else:
        lines.append(f"  fit: {f['status']}")
    nc = results["not_converged"]
    lines.append(f"  not converged (val BPC fell >= 1 % over the last 20 %): {', '.join(nc) or 'none'}")
    if results.get("missing"):
        lines.append(f"  missing cells: {len(results['missing'])}")
    return "\n".join(lines)

r"""Experiment 8 (seed 001's keyword spotting, Table 1), on a synthetic proxy: oscillator attention at d_osc = 2 against softmax.

**A synthetic proxy.** Seed 001 trains on Google Speech Commands v0.02, which cannot
be downloaded here. The data are instead the espeak-ng keyword set of
[`syncattn.data.kws`][]: the same ten keywords plus ``"unknown"`` and ``"silence"``
(12 classes, the paper drops the other words: 10), many synthetic voices, split by
voice (test speakers never heard in training), additive noise at several SNRs, and
seed 001's log-mel front end (49 frames x 40 mels, standardised per mel with the
training statistics). Accuracies on it are not Speech Commands accuracies; the
comparison of the two attentions under one recipe is what carries over.

Model (../shared/EXPERIMENTS.md B1, R:oscillator_attention/kws_pe_model.py with
``pe="none"``): a [`syncattn.models.Classifier`][] with a linear input projection
40 -> 32 (``in_features``), dropout 0.1, no positions, one pre-LN block (d_model 32,
2 heads, d_osc 2, GELU feed-forward 128), no final norm, mean-pool over frames and a
linear 32 -> 12 (``n_classes``). Optimiser: [`kws_optimizer`][syncattn.experiments.kws.kws_optimizer]
(Adam with coupled L2 weight decay 1e-4, lr 1e-3 on a cosine stepped per epoch over
30 epochs, clip 1.0), batch 64, cross-entropy.

Metrics per training: the best validation accuracy over the epochs (the paper's
metric), the test accuracy at that epoch (held-out voices: the headline here) and at
the last epoch. Per model: mean, sample sd and a Student-t interval over seeds
([`t_interval`][syncattn.experiments.kws.t_interval]); the gap oscillator - softmax
paired by seed with its t interval.

Paper (no positions, 5 seeds): oscillator 88.79 ± 0.29 %, softmax 87.71 ± 0.70 %;
the abstract states +1.00 point (the per-seed files give +1.07).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

from ._common import (
    describe_values,
    fmt_mean_std,
    new_figure,
    recipe_fields,
    save_figure,
    start_run,
    write_csv,
    write_json,
)
from ._grid import Grid


__all__ = [
    "Config",
    "KWSRecipe",
    "KWSCell",
    "PAPER",
    "kws_cell",
    "kws_task",
    "kws_model",
    "kws_optimizer",
    "cells",
    "aggregate",
    "t_interval",
    "run",
    "summary",
]

NAME = "kws"

PAPER = {
    "source": "seed 001 (arXiv 2606.12059) Table 1; ../shared/EXPERIMENTS.md B1",
    "data": "Google Speech Commands v0.02, 10 keywords, official splits",
    "metric": "best validation accuracy over 30 epochs, seeds 0-4",
    "softmax": {"mean": 87.71, "std": 0.70, "values": [87.69, 88.63, 86.85, 87.28, 88.12]},
    "oscillator": {"mean": 88.79, "std": 0.29, "values": [88.90, 88.63, 88.41, 89.20, 88.79]},
    "gain_points": 1.00,
    "gain_points_files": 1.07,
}

PROXY_NOTE = (
    "synthetic proxy: espeak-ng speech (syncattn.data.kws), 12 classes, split by voice; "
    "not Speech Commands, so the accuracies are not comparable to the paper's, only the "
    "sign and size of the oscillator - softmax gap under one recipe"
)


@dataclasses.dataclass(frozen=True)
class KWSRecipe:
    """What every training of the grid shares: the data set and seed 001's recipe.

    Attributes:
        data_seed: seed of the generated set ([`syncattn.data.kws.KWSDataConfig`][]).
        voices: speakers per split ``(train, val, test)``.
        clips_per_class: clips of each class per speaker.
        d_osc: oscillator dimension (the paper: 2).
        normalize_anchors: keep the oscillator anchors on the sphere (the library's
            presets, as experiment 4); ``False`` is the published layer's raw anchors
            (shrunk by the weight decay). The oscillator cells' names end in
            ``-raw`` then.
        d_model, n_heads, d_ff, n_layers, dropout, positions: the model (paper: 32, 2,
            128, 1, 0.1, ``"none"``).
        epochs, batch_size, lr, weight_decay, clip_norm: the recipe (paper: 30, 64,
            1e-3, 1e-4, 1.0).
    """

    data_seed: int = 0
    voices: tuple[int, ...] = (70, 15, 15)
    clips_per_class: int = 8
    d_osc: int = 2
    normalize_anchors: bool = True
    d_model: int = 32
    n_heads: int = 2
    d_ff: int = 128
    n_layers: int = 1
    dropout: float = 0.1
    positions: str = "none"
    epochs: int = 30
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    clip_norm: float = 1.0

    def data_config(self):
        """The [`syncattn.data.kws.KWSDataConfig`][] of this recipe."""
        from ..data.kws import KWSDataConfig

        return KWSDataConfig(seed=self.data_seed, voices=tuple(self.voices),
                             clips_per_class=self.clips_per_class)  # fmt: skip


@dataclasses.dataclass(frozen=True, kw_only=True)
class KWSCell(KWSRecipe):
    """One training: its folder name, model (``"oscillator"`` / ``"softmax"``) and seed."""

    name: str
    model: str
    seed: int


def kws_model(recipe: KWSRecipe, attention: str, *, key, n_classes: int | None = None):
    """Seed 001's keyword spotter from the library's layers (see the module docstring)."""
    from .. import models
    from ..data import kws

    cfg = models.get_config(
        "paper-b-sva", attention=attention, d_osc=recipe.d_osc, d_model=recipe.d_model,
        n_heads=recipe.n_heads, d_ff=recipe.d_ff, n_layers=recipe.n_layers,
        dropout=recipe.dropout, positions=recipe.positions, max_len=kws.N_FRAMES,
        final_norm=False, pad_id=None, normalize_anchors=recipe.normalize_anchors,
    )  # fmt: skip
    return models.Classifier(cfg, key=key, in_features=kws.N_MELS,
                             n_classes=n_classes or len(kws.CLASSES))  # fmt: skip


def kws_optimizer(recipe: KWSRecipe, per_epoch: int):
    r"""Seed 001's KWS optimiser: PyTorch's Adam with coupled L2 decay, cosine per epoch.

    $$g \leftarrow g\,\min\!\Bigl(1, \frac{c}{\lVert g\rVert_2}\Bigr) + \lambda\theta,\qquad
      \theta \leftarrow \theta - \eta_e\,\frac{\hat m}{\sqrt{\hat v} + \epsilon},\qquad
      \eta_e = \frac{\eta}{2}\Bigl(1 + \cos\frac{\pi e}{E}\Bigr)$$

    with $\hat m, \hat v$ Adam's bias-corrected moments of the decayed gradient
    ($\beta = 0.9, 0.999$, $\epsilon = 10^{-8}$), $c$ = `clip_norm`, $\lambda$ =
    `weight_decay`, $\eta$ = `lr`, $e = \lfloor s / \text{per\_epoch}\rfloor$ the epoch of
    step $s$ and $E$ = `epochs` (``CosineAnnealingLR(T_max=E)`` stepped per epoch; the
    clip comes before the decay is added, as ``clip_grad_norm_`` then ``Adam.step``).
    """
    import jax.numpy as jnp
    import optax

    if per_epoch < 1:
        raise ValueError(f"per_epoch must be >= 1; got {per_epoch}.")

    def schedule(step):
        e = jnp.floor_divide(step, per_epoch)
        return 0.5 * recipe.lr * (1.0 + jnp.cos(jnp.pi * e / recipe.epochs))

    return optax.chain(
        optax.clip_by_global_norm(recipe.clip_norm),
        optax.add_decayed_weights(recipe.weight_decay),
        optax.scale_by_adam(b1=0.9, b2=0.999, eps=1e-8),
        optax.scale_by_learning_rate(schedule),
    )


def _accuracy(predict, model, x, y, batch: int = 512) -> float:
    hits = 0
    for i in range(0, len(y), batch):
        xb = x[i : i + batch]
        pad = batch - len(xb)
        if pad:  # one compiled shape per split size
            xb = np.concatenate([xb, np.zeros((pad, *xb.shape[1:]), xb.dtype)])
        pred = np.asarray(predict(model, xb))[: batch - pad]
        hits += int((pred == y[i : i + batch]).sum())
    return hits / len(y)


def _kws_loss(model, batch, key):
    # cross-entropy of the pooled logits (module level: hashable, one compiled step)
    import jax
    import jax.numpy as jnp

    x, y = batch["x"], batch["y"]
    keys = jax.random.split(key, x.shape[0])
    logits = jax.vmap(lambda a, k: model.pooled(a, key=k))(x, keys).astype(jnp.float32)
    return jnp.mean(jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, y[:, None], 1)[:, 0])


@dataclasses.dataclass(frozen=True)
class _KWSOptimizer:
    """[`kws_optimizer`][syncattn.experiments.kws.kws_optimizer] for the loop (hashable:
    the cells of one recipe share the compiled step)."""

    lr: float
    weight_decay: float
    clip_norm: float
    epochs: int
    per_epoch: int

    def recipe(self) -> KWSRecipe:
        return KWSRecipe(lr=self.lr, weight_decay=self.weight_decay,
                         clip_norm=self.clip_norm, epochs=self.epochs)  # fmt: skip

    def lr_at(self, step) -> float:
        e = int(step) // self.per_epoch
        return float(0.5 * self.lr * (1 + math.cos(math.pi * e / self.epochs)))

    def __call__(self, config):
        return kws_optimizer(self.recipe(), self.per_epoch), self.lr_at


def _eval_predict():
    import equinox as eqx
    import jax
    import jax.numpy as jnp

    @eqx.filter_jit
    def predict(m, x):
        return jnp.argmax(jax.vmap(m.pooled)(x), -1)

    return predict


def kws_task(cell: KWSRecipe, splits: dict, *, seed: int):
    r"""One keyword spotter's training as a [`syncattn.training.Task`][] of the one loop.

    With $n_b$ = ``len(train) // batch_size`` batches per epoch, step $s$ is batch
    $i = s \bmod n_b$ of epoch $e = \lfloor s / n_b\rfloor$: the clips
    ``order[i B:(i+1) B]`` of ``order = numpy.random.default_rng((seed, e)).permutation``
    (the last partial batch dropped). The loss is the mean cross-entropy of the
    mean-pooled logits (dropout on),

    $$\mathcal L = \frac1B\sum_b \Bigl(\operatorname{logsumexp}_c z_{b,c} - z_{b,y_b}\Bigr),$$

    the optimiser [`kws_optimizer`][syncattn.experiments.kws.kws_optimizer] (``Task.optimizer``),
    and the evaluation the accuracy $\frac1N\sum_n [\arg\max_c z_{n,c} = y_n]$ (no
    dropout) on ``splits["val"]`` and ``splits["test"]`` (``val_acc``, ``test_acc``).
    Each eval record also carries the epoch, the float32 mean training loss of the
    epoch, its learning rate $\eta_e$ and the seconds since the previous evaluation.

    Args:
        cell: the recipe (`batch_size`, `epochs`, `lr`, `weight_decay`, `clip_norm`).
        splits: ``{"train", "val", "test"}``, each ``{"x": (N, frames, mels) float32,
            "y": (N,) int}`` (standardised: [`syncattn.data.kws.normalize`][]).
        seed: the seed of the epoch orders.

    Raises:
        ValueError: fewer training clips than one batch.
    """
    from ..training import Task
    from ..training._classify import _mean_float32

    xtr, ytr = splits["train"]["x"], np.asarray(splits["train"]["y"]).astype(np.int32)
    bs = cell.batch_size
    per_epoch = len(ytr) // bs
    if per_epoch < 1:
        raise ValueError(f"batch_size={bs} exceeds the {len(ytr)} training clips.")
    opt = _KWSOptimizer(cell.lr, cell.weight_decay, cell.clip_norm, cell.epochs, per_epoch)
    predict = _eval_predict()
    order: dict[int, np.ndarray] = {}

    def batch(step: int) -> dict:
        e, i = divmod(step, per_epoch)
        if e not in order:
            order.clear()
            order[e] = np.random.default_rng((seed, e)).permutation(len(ytr))
        idx = order[e][i * bs : (i + 1) * bs]
        return {"x": xtr[idx], "y": ytr[idx]}

    clock = [time.time()]

    def summary(step: int, losses: list[float]) -> dict:
        now = time.time()
        seconds, clock[0] = now - clock[0], now
        e = -(-step // per_epoch)
        return {"epoch": e, "loss": _mean_float32(losses), "lr": opt.lr_at((e - 1) * per_epoch),
                "seconds": seconds}  # fmt: skip

    def evaluate(model, devices):
        return {f"{s}_acc": _accuracy(predict, model, splits[s]["x"], splits[s]["y"])
                for s in ("val", "test")}  # fmt: skip

    return Task(loss=_kws_loss, sample_batch=batch, evaluate=evaluate,
                metrics=("val_acc", "test_acc"), name="kws", log_train=False,
                train_summary=summary, optimizer=opt)  # fmt: skip


def kws_cell(cell: KWSCell, folder) -> dict:
    """Train (or resume) one keyword spotter into `folder`; its accuracies.

    [`syncattn.training.fit`][] of [`kws_task`][syncattn.experiments.kws.kws_task]
    (the loop, run folder, lock and faults of every training): epoch $e$ visits the
    training clips in the order of ``numpy.random.default_rng((seed, e)).permutation``
    in batches of `batch_size` (the last partial batch dropped); after each epoch the
    model (no dropout) is scored on the validation and test clips, ``log.jsonl`` gets
    an eval record and ``checkpoints/`` the state, so that an interrupted cell resumes
    after its last finished epoch. A non-finite loss or gradient ends the cell with
    status ``"diverged"``.
    """
    import jax

    from .. import models
    from ..data import kws
    from ..training import TrainConfig, TrainingDiverged, fit, read_log
    from ..training._loop import held_run_folder

    data = kws.load_kws(cell.data_config())  # generated by `run` beforehand
    splits = kws.normalize(data.splits)
    task = kws_task(cell, splits, seed=cell.seed)
    per_epoch = len(splits["train"]["y"]) // cell.batch_size
    steps = cell.epochs * per_epoch
    config = TrainConfig(
        steps=steps, batch_size=cell.batch_size, lr=cell.lr, warmup_steps=0,
        weight_decay=cell.weight_decay, clip_norm=cell.clip_norm, seed=cell.seed,
        eval_every=per_epoch, ckpt_every=per_epoch, keep=1, log_every=per_epoch,
    )  # fmt: skip
    model = kws_model(cell, cell.model, key=jax.random.key(cell.seed))
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    try:
        with held_run_folder(folder, what="kws_cell", log=log):
            res = fit(model, config, task, folder, progress=False, log=log)
    except TrainingDiverged as err:
        return {"status": "diverged", "error": str(err)}
    records = [r for r in read_log(Path(folder) / "log.jsonl") if r.get("kind") == "eval"]
    if not records:  # resumed after the last epoch with its log lost: fit scored it now
        records = [{"epoch": res["step"] // per_epoch, **res["eval"]}]
    best = max(records, key=lambda r: (r["val_acc"], -r["epoch"]))  # first best epoch
    return {
        "status": "ok", "epochs": cell.epochs, "steps": steps,
        "params": models.count_params(res["model"]), "best_epoch": best["epoch"],
        "best_val_acc": best["val_acc"], "test_at_best": best["test_acc"],
        "final_val_acc": records[-1]["val_acc"], "final_test_acc": records[-1]["test_acc"],
        "n": {s: int(len(splits[s]["y"])) for s in splits}, "data_hash": data.manifest["hash"],
    }  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Config(KWSRecipe):
    """Experiment 8's settings.

    Attributes:
        models: ``"oscillator"`` and/or ``"softmax"``.
        seeds: training seeds (one cell per model and seed).
        workers: espeak-ng processes at once while generating the set.
        confidence: level of the t intervals.
        data_seed, voices, clips_per_class, d_osc, normalize_anchors, d_model, n_heads, d_ff, n_layers,
            dropout, positions, epochs, batch_size, lr, weight_decay, clip_norm: the
            recipe of every cell ([`KWSRecipe`][syncattn.experiments.kws.KWSRecipe]).
    """

    models: tuple[str, ...] = ("oscillator", "softmax")
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    workers: int = 2
    confidence: float = 0.95

    def __post_init__(self):
        if not self.models or not self.seeds:
            raise ValueError("models and seeds must be non-empty.")
        for m in self.models:
            if m not in ("oscillator", "softmax"):
                raise ValueError(f"models: unknown model {m!r} (oscillator, softmax).")
        if not 0 < self.confidence < 1:
            raise ValueError(f"confidence must lie in (0, 1); got {self.confidence}.")
        if self.epochs < 1 or self.batch_size < 1:
            raise ValueError("epochs and batch_size must be >= 1.")
        self.data_config()  # validates voices and clips_per_class

    @classmethod
    def smoke(cls) -> Config:
        """Seconds (CI): 7 voices x 2 clips per class (168 clips), 2 epochs of batch 16,
        2 seeds x 2 models."""
        return cls(seeds=(0, 1), voices=(3, 2, 2), clips_per_class=2, epochs=2, batch_size=16)

    @classmethod
    def default(cls) -> Config:
        """This CPU: 100 voices (70 / 15 / 15) x 8 clips per class (9,600 clips, 6,720 for
        training), the paper's recipe (30 epochs of batch 64), 5 seeds per model."""
        return cls()

    @classmethod
    def full(cls) -> Config:
        """About Speech Commands' size: 32 clips per class and voice (26,880 training
        clips against its ~30,800), 5 seeds."""
        return cls(clips_per_class=32)


def cells(config: Config) -> list[KWSCell]:
    """One [`KWSCell`][syncattn.experiments.kws.KWSCell] per (model, seed), seed by seed
    (both models of a seed before the next seed: a partial grid is already paired)."""
    return [
        KWSCell(name=f"{m}-d{config.d_osc}{_suffix(config, m)}-seed{s}", model=m, seed=s,
                **recipe_fields(config, KWSRecipe))  # fmt: skip
        for s in config.seeds
        for m in config.models
    ]


def _suffix(config: KWSRecipe, model: str) -> str:
    return "-raw" if model == "oscillator" and not config.normalize_anchors else ""


def t_interval(values, confidence: float = 0.95) -> tuple[float, float] | None:
    r"""Student-t interval of a mean: $\bar x \mp t_{(1+c)/2,\,n-1}\, s/\sqrt n$.

    $s$ is the sample standard deviation; ``None`` for fewer than 2 values.
    """
    from scipy.stats import t

    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None
    half = float(t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return (float(x.mean() - half), float(x.mean() + half))


def aggregate(config: Config, cell_list, results) -> dict:
    """Per model: test accuracy at the best validation epoch, best val and final test
    accuracy (percent; mean, sd, t interval); the paired gap oscillator - softmax."""
    rows = []
    for c, r in zip(cell_list, results, strict=True):
        ok = r.get("status") == "ok"
        rows.append({
            "model": c.model, "seed": c.seed, "status": r.get("status"),
            "test_at_best": 100 * r["test_at_best"] if ok else math.nan,
            "best_val": 100 * r["best_val_acc"] if ok else math.nan,
            "final_test": 100 * r["final_test_acc"] if ok else math.nan,
            "best_epoch": r.get("best_epoch", -1),
        })  # fmt: skip
    table = {}
    for m in config.models:
        sel = [r for r in rows if r["model"] == m]
        table[m] = {}
        for k in ("test_at_best", "best_val", "final_test"):
            vals = [r[k] for r in sel]
            table[m][k] = describe_values(vals) | {"ci": t_interval(
                [v for v in vals if math.isfinite(v)], config.confidence)}  # fmt: skip
    gap = None
    if {"oscillator", "softmax"} <= set(config.models):
        by = {(r["model"], r["seed"]): r for r in rows}
        gap = {}
        for k in ("test_at_best", "best_val", "final_test"):
            d = [by["oscillator", s][k] - by["softmax", s][k] for s in config.seeds]
            d = [v for v in d if math.isfinite(v)]
            gap[k] = describe_values(d) | {"ci": t_interval(d, config.confidence)}
    return {"rows": rows, "table": table, "gap": gap, "confidence": config.confidence}


def run(config: Config, out, *, grid: Grid | None = None, progress: bool = True,
        size: str | None = None) -> dict[str, Path]:
    """Generate the data (cached), train the grid (resuming), write config.json,
    results.json, runs.csv and kws.png."""
    from ..data import kws

    out, grid, files = start_run(config, out, NAME, size, grid, progress)
    t0 = time.time()
    data = kws.load_kws(config.data_config(), workers=config.workers, progress=progress)
    data_seconds = time.time() - t0
    cell_list = cells(config)
    results = grid.run(cell_list, out / "runs", kws_cell, desc=NAME)
    agg = aggregate(config, cell_list, results)
    man = data.manifest
    files["results"] = write_json(out / "results.json", {
        "experiment": NAME, "note": PROXY_NOTE, **agg,
        "data": {"hash": man["hash"], "path": str(data.path), "espeak_ng": man["espeak_ng"],
                 "librosa": man["librosa"], "counts": man["counts"],
                 "speakers": man["speakers"], "classes": man["classes"],
                 "seconds_this_run": data_seconds},
        "params": {c.model: r.get("params") for c, r in zip(cell_list, results, strict=True)},
        "paper": PAPER,
    })  # fmt: skip
    rows = agg["rows"]
    files["csv"] = write_csv(out / "runs.csv", {k: [r[k] for r in rows] for k in rows[0]})
    files["png"] = _plot(config, agg, out / "kws.png")
    return files


def _plot(config, agg, path):
    fig, (ax, bx) = new_figure(2, 1, width=4.2)
    for j, m in enumerate(config.models):
        vals = [r["test_at_best"] for r in agg["rows"] if r["model"] == m]
        ax.scatter(np.full(len(vals), j) + np.linspace(-0.15, 0.15, len(vals)), vals,
                   s=16, color=f"C{j}", alpha=0.8)  # fmt: skip
        t = agg["table"][m]["test_at_best"]
        if t["ci"]:
            ax.errorbar([j + 0.25], [t["mean"]], yerr=[[t["mean"] - t["ci"][0]], [t["ci"][1] - t["mean"]]],
                        fmt="o", color=f"C{j}", capsize=4)  # fmt: skip
    ax.set_xticks(range(len(config.models)), config.models)
    ax.set_ylabel("test accuracy at best val epoch (%)")
    ax.set_title("synthetic KWS proxy (dots: seeds)", fontsize=9)
    if agg["gap"]:
        for i, k in enumerate(("test_at_best", "best_val", "final_test")):
            g = agg["gap"][k]
            if g["mean"] is None:
                continue
            err = [[g["mean"] - g["ci"][0]], [g["ci"][1] - g["mean"]]] if g["ci"] else None
            bx.errorbar([i], [g["mean"]], yerr=err, fmt="o", color="C2", capsize=4)
        bx.axhline(PAPER["gain_points"], color="k", ls="--", lw=1, label="paper +1.00 (Speech Commands)")
        bx.axhline(0, color="grey", lw=0.8)
        bx.set_xticks(range(3), ["test@best", "best val", "final test"])
        bx.set_ylabel("oscillator - softmax (points)")
        bx.set_title(f"paired gap, {int(100 * config.confidence)}% t interval", fontsize=9)
        bx.legend(fontsize=7)
    return save_figure(fig, path)


def summary(results: dict) -> str:
    """The table as text, next to the paper's numbers."""
    lines = [f"KWS ({results['note']})",
             "accuracy (%), mean ± sd over seeds [t interval] | paper best val (Speech Commands)"]  # fmt: skip

    def ci(d):
        return f"[{d['ci'][0]:.2f}, {d['ci'][1]:.2f}]" if d.get("ci") else ""

    for m, t in results["table"].items():
        p = results["paper"].get(m, {})
        lines.append(
            f"  {m:<10} test@best {fmt_mean_std(t['test_at_best'], 2)} {ci(t['test_at_best'])}  "
            f"best val {fmt_mean_std(t['best_val'], 2)}  final test {fmt_mean_std(t['final_test'], 2)}"
            f" | paper {p.get('mean')} ± {p.get('std')}"
        )
    g = results.get("gap")
    if g and g["test_at_best"]["mean"] is not None:
        lines.append(
            f"  gap oscillator - softmax (paired): test@best {g['test_at_best']['mean']:+.2f} "
            f"{ci(g['test_at_best'])}, best val {g['best_val']['mean']:+.2f} {ci(g['best_val'])} "
            f"| paper {results['paper']['gain_points']:+.2f}"
        )
    return "\n".join(lines)

r"""Experiment 8's training side: the keyword-spotting recipe, model, optimiser, task and
cell (one training through [`syncattn.training.fit`][]); the app is `syncattn.experiments.kws`."""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np


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

        return KWSDataConfig(
            seed=self.data_seed,
            voices=tuple(self.voices),
            clips_per_class=self.clips_per_class,
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class KWSCell(KWSRecipe):
    """One training: its folder name, model (``"oscillator"``, ``"softmax"`` or an ablation
    arm of `syncattn.experiments._variants`) and seed."""

    name: str
    model: str
    seed: int


def kws_model(recipe: KWSRecipe, attention: str, *, key, n_classes: int | None = None):
    """Seed 001's keyword spotter from the library's layers (see the module docstring);
    `attention` is a model arm of `syncattn.experiments._variants`."""
    from .. import models
    from ..data import kws
    from ._variants import variant_fields

    cfg = models.get_config(
        "paper-b-sva",
        **variant_fields(attention),
        d_osc=recipe.d_osc,
        d_model=recipe.d_model,
        n_heads=recipe.n_heads,
        d_ff=recipe.d_ff,
        n_layers=recipe.n_layers,
        dropout=recipe.dropout,
        positions=recipe.positions,
        max_len=kws.N_FRAMES,
        final_norm=False,
        pad_id=None,
        normalize_anchors=recipe.normalize_anchors,
    )
    return models.Classifier(
        cfg, key=key, in_features=kws.N_MELS, n_classes=n_classes or len(kws.CLASSES)
    )


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
    return jnp.mean(
        jax.nn.logsumexp(logits, -1) - jnp.take_along_axis(logits, y[:, None], 1)[:, 0]
    )


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
        return KWSRecipe(
            lr=self.lr,
            weight_decay=self.weight_decay,
            clip_norm=self.clip_norm,
            epochs=self.epochs,
        )

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
    from ..training import Task, mean_float32

    xtr, ytr = splits["train"]["x"], np.asarray(splits["train"]["y"]).astype(np.int32)
    bs = cell.batch_size
    per_epoch = len(ytr) // bs
    if per_epoch < 1:
        raise ValueError(f"batch_size={bs} exceeds the {len(ytr)} training clips.")
    opt = _KWSOptimizer(
        cell.lr, cell.weight_decay, cell.clip_norm, cell.epochs, per_epoch
    )
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
        return {
            "epoch": e,
            "loss": mean_float32(losses),
            "lr": opt.lr_at((e - 1) * per_epoch),
            "seconds": seconds,
        }

    def evaluate(model, devices):
        return {
            f"{s}_acc": _accuracy(predict, model, splits[s]["x"], splits[s]["y"])
            for s in ("val", "test")
        }

    return Task(
        loss=_kws_loss,
        sample_batch=batch,
        evaluate=evaluate,
        metrics=("val_acc", "test_acc"),
        name="kws",
        log_train=False,
        train_summary=summary,
        optimizer=opt,
    )


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
    from ..training import TrainConfig, TrainingDiverged, fit, held_run_folder, read_log

    data = kws.load_kws(cell.data_config())  # generated by `run` beforehand
    splits = kws.normalize(data.splits)
    task = kws_task(cell, splits, seed=cell.seed)
    per_epoch = len(splits["train"]["y"]) // cell.batch_size
    steps = cell.epochs * per_epoch
    config = TrainConfig(
        steps=steps,
        batch_size=cell.batch_size,
        lr=cell.lr,
        warmup_steps=0,
        weight_decay=cell.weight_decay,
        clip_norm=cell.clip_norm,
        seed=cell.seed,
        eval_every=per_epoch,
        ckpt_every=per_epoch,
        keep=1,
        log_every=per_epoch,
    )
    model = kws_model(cell, cell.model, key=jax.random.key(cell.seed))
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    try:
        with held_run_folder(folder, what="kws_cell", log=log):
            res = fit(model, config, task, folder, progress=False, log=log)
    except TrainingDiverged as err:
        return {"status": "diverged", "error": str(err)}
    records = [
        r for r in read_log(Path(folder) / "log.jsonl") if r.get("kind") == "eval"
    ]
    if not records:  # resumed after the last epoch with its log lost: fit scored it now
        records = [{"epoch": res["step"] // per_epoch, **res["eval"]}]
    best = max(records, key=lambda r: (r["val_acc"], -r["epoch"]))  # first best epoch
    return {
        "status": "ok",
        "epochs": cell.epochs,
        "steps": steps,
        "params": models.count_params(res["model"]),
        "best_epoch": best["epoch"],
        "best_val_acc": best["val_acc"],
        "test_at_best": best["test_acc"],
        "final_val_acc": records[-1]["val_acc"],
        "final_test_acc": records[-1]["test_acc"],
        "n": {s: int(len(splits[s]["y"])) for s in splits},
        "data_hash": data.manifest["hash"],
    }

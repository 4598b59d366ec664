r"""Training and scoring the agreement classifier (seed 001's SVA task, ../shared/EXPERIMENTS.md B2).

The model is a [`syncattn.models.Classifier`][] that reads ``BOS w_1 .. w_n EOS``
(padded) and gives one logit per position; the prediction is the logit at the verb.

* [`syncattn.training.verb_bce_loss`][]: binary cross-entropy at the verb;
* [`syncattn.training.sva_metrics`][]: accuracy on all / simple / hard sentences and
  the failure flag (hard accuracy below 85 %, seed 001's criterion);
* [`syncattn.training.evaluate_sva`][]: both on a split;
* [`syncattn.training.sva_task`][]: epochs of shuffled mini-batches as a task of the
  one training loop, [`syncattn.training.fit`][];
* [`syncattn.training.fit_classifier`][]: that task trained into a run folder
  (``log.jsonl``, ``checkpoints/`` at every epoch end), resuming from the last
  checkpoint.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int, PRNGKeyArray

from ..data.sva import sva_batch
from ._config import TrainConfig
from ._loop import fit, held_run_folder
from ._task import Task


__all__ = [
    "verb_bce_loss",
    "sva_metrics",
    "evaluate_sva",
    "fit_classifier",
    "mean_float32",
    "sva_task",
    "FAILURE_THRESHOLD",
    "SVA_METRICS",
    "SVA_LENGTH",
]

FAILURE_THRESHOLD = 0.85
"""A training fails when its hard-sentence accuracy is below this (seed 001's code)."""

SVA_LENGTH = 8
"""Padded row length: BOS + the longest sentence (6 words) + EOS."""

SVA_METRICS = (
    "acc_hard",
    "acc_all",
    "acc_simple",
    "n_all",
    "n_simple",
    "n_hard",
    "failed",
)
"""The names [`syncattn.training.sva_metrics`][] returns (the hard accuracy first)."""


def _verb_logits(model, tokens, mask, verb_pos, key):
    if key is None:
        return jax.vmap(lambda t, m, p: model.classify(t, p, mask=m))(
            tokens, mask, verb_pos
        )
    keys = jax.random.split(key, tokens.shape[0])
    return jax.vmap(lambda t, m, p, k: model.classify(t, p, mask=m, key=k))(
        tokens, mask, verb_pos, keys
    )


def verb_bce_loss(
    model,
    tokens: Int[ArrayLike, "B L"],
    mask: Bool[ArrayLike, "B L"],
    verb_pos: Int[ArrayLike, " B"],
    label: Int[ArrayLike, " B"],
    *,
    key: PRNGKeyArray | None = None,
) -> Float[Array, ""]:
    r"""Mean binary cross-entropy of the verb logits (BCE with logits).

    $$\mathcal L = \frac1B\sum_b \Bigl(\operatorname{softplus}(\ell_b) - y_b\,\ell_b\Bigr)
      = -\frac1B\sum_b \bigl(y_b\log\sigma(\ell_b) + (1-y_b)\log(1-\sigma(\ell_b))\bigr)$$

    with $\ell_b$ the logit of row $b$ at `verb_pos[b]` and $y_b$ = `label[b]`.

    Args:
        model: a [`syncattn.models.Classifier`][].
        tokens, mask: ``(B, L)`` ids and real-token mask (from `data.sva.sva_batch`).
        verb_pos: ``(B,)`` verb positions.
        label: ``(B,)`` 0/1 labels.
        key: dropout key, or ``None`` (no dropout).
    """
    logits = _verb_logits(model, tokens, mask, verb_pos, key).astype(jnp.float32)
    y = label.astype(logits.dtype)
    return jnp.mean(jax.nn.softplus(logits) - y * logits)


def sva_metrics(
    logits, label, hard, has_distractor, *, threshold: float = FAILURE_THRESHOLD
) -> dict[str, Any]:
    r"""Accuracy on all, simple and hard sentences, and the failure flag.

    $$\mathrm{acc}(S) = \frac{1}{|S|}\sum_{b\in S}\bigl[\,[\ell_b > 0] = y_b\,\bigr],\qquad
      \text{failed} = \mathrm{acc}(\text{hard}) < \tau$$

    over $S$ = all rows, the simple rows (no distractor) and the hard rows (distractor
    of the other number); $\tau$ = `threshold` (0.85). An empty subset has accuracy NaN.

    Args:
        logits: ``(N,)`` verb logits.
        label: ``(N,)`` 0/1 labels.
        hard, has_distractor: ``(N,)`` bools (from `data.sva.sva_batch`).
        threshold: $\tau \in (0, 1)$.

    Returns:
        ``{"acc_all", "acc_simple", "acc_hard", "n_all", "n_simple", "n_hard", "failed"}``.

    Raises:
        ValueError: shapes differ or are empty, NaN logits, labels not 0/1.
    """
    arrays = [np.asarray(a) for a in (logits, label, hard, has_distractor)]
    shape = arrays[0].shape
    if len(shape) != 1 or shape[0] == 0 or any(a.shape != shape for a in arrays):
        raise ValueError(
            "logits, label, hard and has_distractor must be non-empty 1-D arrays of one "
            f"length; got shapes {[a.shape for a in arrays]}."
        )
    logits, label, hard, has_d = arrays
    if not np.all(np.isfinite(logits)):
        raise ValueError("logits must be finite.")
    if not np.all((label == 0) | (label == 1)):
        raise ValueError("label must hold 0/1 values.")
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie in (0, 1); got {threshold!r}.")
    correct = (logits > 0).astype(int) == label.astype(int)
    hard, simple = hard.astype(bool), ~has_d.astype(bool)

    def acc(sel):
        return float(correct[sel].mean()) if sel.any() else math.nan

    out = {
        "acc_all": float(correct.mean()),
        "acc_simple": acc(simple),
        "acc_hard": acc(hard),
        "n_all": int(correct.size),
        "n_simple": int(simple.sum()),
        "n_hard": int(hard.sum()),
    }
    out["failed"] = bool(not out["acc_hard"] >= threshold)
    return out


def _pad(batch: dict) -> dict:
    L = batch["tokens"].shape[1]
    if L < SVA_LENGTH:
        extra = SVA_LENGTH - L
        batch = dict(batch)
        batch["tokens"] = np.pad(batch["tokens"], ((0, 0), (0, extra)))
        batch["mask"] = np.pad(batch["mask"], ((0, 0), (0, extra)))
    return batch


@eqx.filter_jit
def _eval_logits(model, tokens, mask, verb_pos):
    return _verb_logits(model, tokens, mask, verb_pos, None)


def evaluate_sva(
    model, examples: list[dict], *, batch_size: int = 512
) -> dict[str, Any]:
    """[`syncattn.training.sva_metrics`][] of `model` (no dropout) on the records `examples`."""
    if not examples:
        raise ValueError("examples must not be empty.")
    parts = {k: [] for k in ("logits", "label", "hard", "has_distractor")}
    for i in range(0, len(examples), batch_size):
        b = _pad(sva_batch(examples, np.arange(i, min(i + batch_size, len(examples)))))
        parts["logits"].append(
            np.asarray(_eval_logits(model, b["tokens"], b["mask"], b["verb_pos"]))
        )
        for k in ("label", "hard", "has_distractor"):
            parts[k].append(b[k])
    return sva_metrics(*(np.concatenate(parts[k]) for k in parts))


def _sva_loss(model, batch, key):
    # the task's loss (module level: hashable, so the compiled step is cached)
    return verb_bce_loss(
        model,
        batch["tokens"],
        batch["mask"],
        batch["verb_pos"],
        batch["label"],
        key=key,
    )


def mean_float32(losses: list[float]) -> float:
    r"""The mean of an epoch's losses, taken in float32 (the figure the classifiers log).

    $$\bar\ell = \mathrm{fl}_{32}\Bigl(\frac1n \sum_{i=1}^{n} \mathrm{fl}_{32}(\ell_i)\Bigr)$$

    each loss rounded to float32 and averaged by `jax.numpy.mean` in float32, so that a
    logged epoch loss is the same number whichever classifier (agreement, keyword
    spotting) logs it; NaN for no losses.

    Args:
        losses: the step losses of one epoch.

    Returns:
        $\bar\ell$ as a Python float (NaN when `losses` is empty).
    """
    if not losses:
        return math.nan
    return float(jnp.mean(jnp.asarray(np.asarray(losses, dtype=np.float32))))


def sva_task(
    config: TrainConfig, splits: dict[str, list[dict]], *, epochs: int
) -> Task:
    r"""The agreement classifier's training as a [`Task`][syncattn.training.Task].

    With $n_b$ = ``len(splits["train"]) // config.batch_size`` batches per epoch, step
    $s$ is batch $i = s \bmod n_b$ of epoch $e = \lfloor s / n_b \rfloor$: the records
    ``order[i B:(i+1) B]`` of ``order = numpy.random.default_rng((config.seed,
    e)).permutation(len(train))`` (the last partial batch is dropped), padded to
    [`SVA_LENGTH`][syncattn.training.SVA_LENGTH] tokens. The loss is
    [`syncattn.training.verb_bce_loss`][] (dropout on); the evaluation is
    [`syncattn.training.evaluate_sva`][] on ``splits["val"]`` (headline: the hard
    accuracy), and each eval record also carries the epoch, the float32 mean
    training loss of the steps since the previous evaluation and the seconds since it.
    No train records are logged. [`syncattn.training.fit_classifier`][] evaluates and
    saves at every epoch's end.

    Raises:
        ValueError: fewer training records than one batch, an empty val split, or
            `config.steps` other than `epochs` times the batches per epoch (the cosine
            schedule runs over all of them).
    """
    train, val = splits["train"], splits["val"]
    per_epoch = len(train) // config.batch_size
    if per_epoch < 1 or not val:
        raise ValueError(
            f"need at least one training batch of {config.batch_size} and a non-empty val split."
        )
    if config.steps != epochs * per_epoch:
        raise ValueError(
            f"config.steps={config.steps} must be epochs * batches per epoch = "
            f"{epochs} * {per_epoch} = {epochs * per_epoch}."
        )
    bs = config.batch_size

    @functools.lru_cache(maxsize=1)
    def order(epoch: int):
        return np.random.default_rng((config.seed, epoch)).permutation(len(train))

    def batch(step: int) -> dict:
        epoch, i = divmod(step, per_epoch)
        b = _pad(sva_batch(train, order(epoch)[i * bs : (i + 1) * bs]))
        return {k: b[k] for k in ("tokens", "mask", "verb_pos", "label")}

    clock = [time.perf_counter()]

    def summary(step: int, losses: list[float]) -> dict:
        # wall-clock seconds since the previous evaluation (the first: since the task was made)
        now = time.perf_counter()
        seconds, clock[0] = now - clock[0], now
        return {
            "epoch": -(-step // per_epoch),
            "loss": mean_float32(losses),
            "seconds": seconds,
        }

    return Task(
        loss=_sva_loss,
        sample_batch=batch,
        evaluate=lambda model, devices: evaluate_sva(model, val),
        metrics=SVA_METRICS,
        name="sva",
        log_train=False,
        train_summary=summary,
    )


def fit_classifier(
    model,
    config: TrainConfig,
    splits: dict[str, list[dict]],
    run_dir: str | Path,
    *,
    epochs: int,
    progress: bool = False,
    log=None,
    devices=None,
    restart: bool = False,
    stop_on_signal: bool = False,
) -> dict[str, Any]:
    r"""Train an SVA classifier for `epochs` epochs into `run_dir`, resuming if possible.

    [`syncattn.training.fit`][] of [`syncattn.training.sva_task`][] (the same loop,
    run folder and faults as the language model's), evaluating on ``splits["val"]``
    and saving ``checkpoints/step_N`` after each epoch: epoch $e$ visits
    ``splits["train"]`` in the order of ``numpy.random.default_rng((config.seed,
    e)).permutation``, in batches of `config.batch_size`, each step one
    [`syncattn.training.make_optimizer`][] update on
    [`syncattn.training.verb_bce_loss`][]. `config.steps` must equal `epochs` times
    the batches per epoch; its `eval_every` and `ckpt_every` are replaced by the
    epoch length. One process at a time trains into `run_dir` (its ``.lock``); a
    re-run resumes after the last saved step.

    Args:
        devices, restart, stop_on_signal: as for [`syncattn.training.fit`][].

    Returns:
        ``{"step", "epochs", "val" (the last epoch's metrics), "resumed_from", "model"}``.

    Raises:
        ValueError: `config.steps` inconsistent with `epochs`; empty splits.
        TrainingDiverged: a non-finite loss or gradient (a `RuntimeError`; the last
            good checkpoint is kept).
        RunBusy: another process trains into `run_dir`.
    """
    task = sva_task(config, splits, epochs=epochs)
    per_epoch = config.steps // epochs
    config = dataclasses.replace(config, eval_every=per_epoch, ckpt_every=per_epoch)
    with held_run_folder(run_dir, what="fit_classifier", log=log):
        res = fit(
            model,
            config,
            task,
            run_dir,
            devices=devices,
            progress=progress,
            log=log,
            restart=restart,
            stop_on_signal=stop_on_signal,
        )
    return {
        "step": res["step"],
        "epochs": epochs,
        "val": {k: res["eval"][k] for k in SVA_METRICS},
        "resumed_from": res["resumed_from"],
        "model": res["model"],
    }

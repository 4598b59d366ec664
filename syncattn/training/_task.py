r"""What [`syncattn.training.fit`][] trains on: a `Task` (its loss, batches and evaluation).

The loop (``_loop.py``) owns the run folder and the schedule; a task owns the maths
and the data of one kind of training:

* [`syncattn.training.language_model_task`][]: next-token prediction on a corpus
  (the loss [`syncattn.training.next_token_loss`][], batch $s$ =
  ``sample_batch(corpus.train, seed, step=s)``, BPC or perplexity on ``corpus.val``
  by [`syncattn.training.evaluate`][]);
* [`syncattn.training.sva_task`][]: the agreement classifier (seed 001's SVA task).

A task of one's own is a `Task` of three functions; see the "Building models"
page of the documentation.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

from .. import data
from ._sharding import data_mesh, replicate, shard_batch
from ._step import make_eval_step, metric_from_loss, next_token_loss


__all__ = ["Task", "language_model_task", "evaluate"]


def _no_metrics(loss: float) -> dict[str, float]:
    return {}


def host_value(x):
    """A replicated scalar as a Python number (multi-host arrays are not fully
    addressable, but every process holds the whole value)."""
    if isinstance(x, jax.Array) and not x.is_fully_addressable:
        x = x.addressable_data(0)
    return np.asarray(x).item()


@dataclasses.dataclass(frozen=True)
class Task:
    r"""One kind of training for [`syncattn.training.fit`][]: its loss, batches and evaluation.

    Step $s = 0, 1, \dots$ of `fit` applies one optimiser update on
    $\nabla_\theta\,$``loss(model, sample_batch(s), key)``.

    Attributes:
        loss: ``loss(model, batch, key) -> scalar``, differentiable in the model's
            floating leaves; `key` is the step's dropout key. It must be hashable
            (a module-level function or a frozen dataclass): the compiled step is
            cached per (loss, optimiser settings, compute dtype), so that a second
            `fit` of the same task reuses it.
        sample_batch: ``sample_batch(s) -> batch``, a pytree of NumPy arrays whose
            leaves have the batch on axis 0 (sharded over the devices). A pure
            function of the step: resuming needs no data-loader state.
        evaluate: ``evaluate(model, devices) -> {name: value}`` (no dropout), at
            every evaluation; the values go into the ``log.jsonl`` eval record.
        metrics: the names `evaluate` returns; the first is shown on the progress
            bar (e.g. ``("bpc", "loss", "tokens")``).
        name: the progress bar's label.
        train_metrics: ``train_metrics(loss) -> {name: value}`` added to the train
            records and the bar (the LM's BPC or perplexity of the training loss).
        log_train: write a ``train`` record every `log_every` steps.
        train_summary: ``train_summary(step, losses) -> {name: value}`` added to
            each eval record, from the training losses of the steps since the
            previous evaluation (the classifier's epoch and mean loss), or ``None``.
        tokens_per_step: for the tokens-per-second figure (``None``: not shown).
        optimizer: ``optimizer(config) -> (transformation, schedule)``, the optax
            optimiser of the steps and the learning rate of step $s$ (for the train
            records), or ``None``: [`syncattn.training.make_optimizer`][] and
            [`syncattn.training.lr_schedule`][] of `config`. Hashable, as `loss`
            (experiment 8's PyTorch-style Adam: ``syncattn.experiments.kws.kws_task``).
    """

    loss: Callable[[Any, Any, Any], Any]
    sample_batch: Callable[[int], Any]
    evaluate: Callable[[Any, Sequence[Any]], dict[str, Any]]
    metrics: tuple[str, ...]
    name: str = "train"
    train_metrics: Callable[[float], dict[str, float]] = _no_metrics
    log_train: bool = True
    train_summary: Callable[[int, list[float]], dict[str, Any]] | None = None
    tokens_per_step: int | None = None
    optimizer: Callable[[Any], tuple[Any, Callable[[Any], Any]]] | None = None

    def __post_init__(self):
        for field in ("loss", "sample_batch", "evaluate", "train_metrics"):
            if not callable(getattr(self, field)):
                raise TypeError(f"Task.{field} must be callable; got {getattr(self, field)!r}.")
        if not self.metrics or not all(isinstance(m, str) for m in self.metrics):
            raise ValueError(f"Task.metrics must be a non-empty tuple of names; got {self.metrics!r}.")
        try:
            hash(self.loss)
        except TypeError:
            raise TypeError(
                "Task.loss must be hashable (a module-level function or a frozen "
                f"dataclass); got {self.loss!r}."
            ) from None
        if self.optimizer is not None:
            if not callable(self.optimizer):
                raise TypeError(f"Task.optimizer must be callable or None; got {self.optimizer!r}.")
            try:
                hash(self.optimizer)
            except TypeError:
                raise TypeError(f"Task.optimizer must be hashable; got {self.optimizer!r}.") from None


# --------------------------------------------------------------------------- the LM


@functools.lru_cache(maxsize=16)
def _cached_eval_step(pad_id, compute_dtype):
    return make_eval_step(pad_id=pad_id, compute_dtype=compute_dtype)


def evaluate(
    model,
    tokens,
    *,
    kind: str,
    pad_id: int | None,
    batch_size: int,
    seq_len: int,
    max_batches: int | None = None,
    compute_dtype: str = "float32",
    devices=None,
    eval_batches=None,
    _eval_step=None,
) -> dict[str, float]:
    r"""Mean next-token loss of `model` over a token array, and its BPC or perplexity.

    $$\bar\ell = \frac{\sum_{b,t} m_{b,t}\,\ell_{b,t}}{\sum_{b,t} m_{b,t}}$$

    summed in float64 over the batches of `eval_batches(tokens, batch_size=...,
    seq_len=..., max_batches=...)` (a short final batch is padded with masked
    rows), then $\mathrm{BPC} = \bar\ell/\ln 2$ (byte) or $\mathrm{PPL} = e^{\bar\ell}$
    (word); see [`syncattn.training.metric_from_loss`][].

    Returns:
        ``{"loss", "bpc" | "ppl", "tokens"}`` (tokens: targets counted).

    Raises:
        ValueError: if the array yields no batch.
    """
    eval_batches = eval_batches or data.eval_batches
    mesh = data_mesh(devices)
    n_dev = mesh.devices.size
    bs = -(-batch_size // n_dev) * n_dev
    step = _eval_step or _cached_eval_step(pad_id, compute_dtype)
    model = replicate(model, mesh)
    total, count = 0.0, 0.0
    for batch in eval_batches(tokens, batch_size=batch_size, seq_len=seq_len, max_batches=max_batches):
        batch = np.asarray(batch, dtype=np.int32)
        rows = batch.shape[0]
        weights = np.ones(bs, np.float32)
        if rows < bs:
            fill = np.zeros((bs - rows, batch.shape[1]), np.int32)
            if pad_id is not None:
                fill[:] = pad_id
            batch = np.concatenate([batch, fill])
            weights[rows:] = 0.0
        s, c = step(model, shard_batch(batch, mesh), shard_batch(weights, mesh))
        total += host_value(s)
        count += host_value(c)
    if count == 0:
        raise ValueError("the evaluation data gave no target token (empty split?).")
    loss = total / count
    return {"loss": loss, **metric_from_loss(loss, kind), "tokens": int(count)}


@dataclasses.dataclass(frozen=True)
class _NextTokenLoss:
    """The LM's loss as a hashable callable (one compiled step per pad id)."""

    pad_id: int | None

    def __call__(self, model, tokens, key):
        return next_token_loss(model, tokens, pad_id=self.pad_id, key=key)


def language_model_task(corpus, config, *, sample_batch=None, eval_batches=None) -> Task:
    r"""Next-token prediction on `corpus` as a [`Task`][syncattn.training.Task].

    Batch $s$ is ``sample_batch(corpus.train, seed=config.seed, step=s,
    batch_size=config.batch_size, seq_len=config.seq_len)`` (int32, ``(B, T + 1)``);
    the loss is [`syncattn.training.next_token_loss`][] with ``corpus.pad_id``; the
    evaluation is [`syncattn.training.evaluate`][] on ``corpus.val`` (at most
    ``config.eval_batches`` batches), whose BPC (byte corpus) or perplexity (word
    corpus) is the headline metric.

    Args:
        corpus: an object with ``kind`` ("byte" | "word"), ``train``, ``val`` token
            arrays and ``pad_id`` (e.g. from `syncattn.data.load_corpus`).
        config: the [`syncattn.training.TrainConfig`][].
        sample_batch, eval_batches: the data functions (default: `syncattn.data`'s).
    """
    sample_batch = sample_batch or data.sample_batch
    eval_batches = eval_batches or data.eval_batches
    kind, pad_id = corpus.kind, corpus.pad_id
    metric_from_loss(0.0, kind)  # checks the kind

    def batch(step: int):
        return np.asarray(
            sample_batch(corpus.train, seed=config.seed, step=step,
                         batch_size=config.batch_size, seq_len=config.seq_len),
            dtype=np.int32,
        )

    def run_eval(model, devices):
        return evaluate(
            model, corpus.val, kind=kind, pad_id=pad_id, batch_size=config.batch_size,
            seq_len=config.seq_len, max_batches=config.eval_batches, devices=devices,
            eval_batches=eval_batches,
            _eval_step=_cached_eval_step(pad_id, config.compute_dtype),
        )

    headline = "bpc" if kind == "byte" else "ppl"
    return Task(
        loss=_NextTokenLoss(pad_id),
        sample_batch=batch,
        evaluate=run_eval,
        metrics=(headline, "loss", "tokens"),
        name="train",
        train_metrics=lambda loss: metric_from_loss(loss, kind),
        tokens_per_step=config.batch_size * config.seq_len,
    )

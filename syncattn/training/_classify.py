r"""Training and scoring the agreement classifier (seed 001's SVA task, ../shared/EXPERIMENTS.md B2).

The model is a [`syncattn.models.Classifier`][] that reads ``BOS w_1 .. w_n EOS``
(padded) and gives one logit per position; the prediction is the logit at the verb.

* [`syncattn.training.verb_bce_loss`][]: binary cross-entropy at the verb;
* [`syncattn.training.sva_metrics`][]: accuracy on all / simple / hard sentences and
  the failure flag (hard accuracy below 85 %, seed 001's criterion);
* [`syncattn.training.evaluate_sva`][]: both on a split;
* [`syncattn.training.fit_classifier`][]: epochs of shuffled mini-batches into a run
  folder (``log.jsonl``, ``checkpoints/`` at every epoch end), resuming from the last
  checkpoint.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Bool, Float, Int, PRNGKeyArray

from ._checkpoint import restore_checkpoint, save_checkpoint
from ._config import TrainConfig
from ._optim import make_optimizer


__all__ = [
    "verb_bce_loss",
    "sva_metrics",
    "evaluate_sva",
    "fit_classifier",
    "FAILURE_THRESHOLD",
    "SVA_LENGTH",
]

FAILURE_THRESHOLD = 0.85
"""A training fails when its hard-sentence accuracy is below this (seed 001's code)."""

SVA_LENGTH = 8
"""Padded row length: BOS + the longest sentence (6 words) + EOS."""


def _verb_logits(model, tokens, mask, verb_pos, key):
    if key is None:
        return jax.vmap(lambda t, m, p: model.classify(t, p, mask=m))(tokens, mask, verb_pos)
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


def evaluate_sva(model, examples: list[dict], *, batch_size: int = 512) -> dict[str, Any]:
    """[`syncattn.training.sva_metrics`][] of `model` (no dropout) on the records `examples`."""
    from ..data.sva import sva_batch

    if not examples:
        raise ValueError("examples must not be empty.")
    parts = {k: [] for k in ("logits", "label", "hard", "has_distractor")}
    for i in range(0, len(examples), batch_size):
        b = _pad(sva_batch(examples, np.arange(i, min(i + batch_size, len(examples)))))
        parts["logits"].append(np.asarray(_eval_logits(model, b["tokens"], b["mask"], b["verb_pos"])))
        for k in ("label", "hard", "has_distractor"):
            parts[k].append(b[k])
    return sva_metrics(*(np.concatenate(parts[k]) for k in parts))


def _append(path: Path, record: dict) -> None:
    import json

    with path.open("a") as f:
        f.write(json.dumps(record) + "\n")


def fit_classifier(
    model,
    config: TrainConfig,
    splits: dict[str, list[dict]],
    run_dir: str | Path,
    *,
    epochs: int,
    progress: bool = False,
    log=None,
) -> dict[str, Any]:
    r"""Train an SVA classifier for `epochs` epochs into `run_dir`, resuming if possible.

    Epoch $e$ visits ``splits["train"]`` in the order of
    ``numpy.random.default_rng((config.seed, e)).permutation``, in batches of
    `config.batch_size` (the last partial batch is dropped), padded to
    [`SVA_LENGTH`][syncattn.training.SVA_LENGTH] tokens. Each step is one
    [`syncattn.training.make_optimizer`][] update on
    [`syncattn.training.verb_bce_loss`][] (dropout on). `config.steps` must equal
    `epochs` times the batches per epoch (the cosine schedule runs over all of them).
    After each epoch the model is scored on ``splits["val"]``
    ([`syncattn.training.evaluate_sva`][]), the record appended to ``log.jsonl`` and
    ``checkpoints/step_N`` saved; a re-run resumes after the last saved epoch.

    Returns:
        ``{"step", "epochs", "val" (the last epoch's metrics), "resumed_from"}``.

    Raises:
        ValueError: `config.steps` inconsistent with `epochs`; empty splits.
        RuntimeError: a non-finite loss.
    """
    from ..data.sva import sva_batch

    log = log or (lambda msg: print(msg, file=sys.stderr))
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
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt, log_path = run_dir / "checkpoints", run_dir / "log.jsonl"
    model = jax.tree.map(
        lambda x: x.astype(jnp.float32) if eqx.is_inexact_array(x) else x, model
    )
    optimizer = make_optimizer(config)
    opt_state = optimizer.init(eqx.filter(model, eqx.is_inexact_array))
    key = jax.random.PRNGKey(config.seed + 1)
    template = {"model": model, "opt_state": opt_state, "key": key, "step": np.asarray(0, np.int64)}
    restored = restore_checkpoint(ckpt, template, quarantine=True, log=log)
    step0, resumed = 0, None
    if restored is not None:
        tree, step0, _ = restored
        model, opt_state, key = tree["model"], tree["opt_state"], tree["key"]
        resumed = int(step0)
        if log_path.exists():  # drop records written after the checkpoint
            import json

            keep = [ln for ln in log_path.read_text().splitlines()
                    if ln.strip() and json.loads(ln).get("step", 0) <= step0]  # fmt: skip
            log_path.write_text("".join(k + "\n" for k in keep))
    elif log_path.exists():
        log_path.unlink()

    def loss_fn(m, tokens, mask, verb_pos, label, k):
        return verb_bce_loss(m, tokens, mask, verb_pos, label, key=k)

    @eqx.filter_jit
    def step_fn(m, opt, k, tokens, mask, verb_pos, label):
        k, sub = jax.random.split(k)
        loss, grads = eqx.filter_value_and_grad(loss_fn)(m, tokens, mask, verb_pos, label, sub)
        updates, opt = optimizer.update(grads, opt, eqx.filter(m, eqx.is_inexact_array))
        return eqx.apply_updates(m, updates), opt, k, loss

    last = None
    e0 = int(step0) // per_epoch
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=config.steps, initial=int(step0), desc="sva", file=sys.stderr)
    for e in range(e0, epochs):
        order = np.random.default_rng((config.seed, e)).permutation(len(train))
        t0, losses = time.time(), []
        for i in range(per_epoch):
            b = _pad(sva_batch(train, order[i * config.batch_size:(i + 1) * config.batch_size]))
            model, opt_state, key, loss = step_fn(
                model, opt_state, key, b["tokens"], b["mask"], b["verb_pos"], b["label"]
            )
            losses.append(loss)
            if bar is not None:
                bar.update(1)
        mean_loss = float(jnp.mean(jnp.stack(losses)))
        if not math.isfinite(mean_loss):
            raise RuntimeError(f"non-finite training loss in epoch {e + 1}; lower lr.")
        step = (e + 1) * per_epoch
        last = evaluate_sva(model, val)
        _append(log_path, {"kind": "eval", "step": step, "epoch": e + 1, "loss": mean_loss,
                           "split": "val", "seconds": time.time() - t0, **last})  # fmt: skip
        save_checkpoint(
            ckpt, step,
            {"model": model, "opt_state": opt_state, "key": key, "step": np.asarray(step, np.int64)},
            keep=config.keep,
        )  # fmt: skip
    if bar is not None:
        bar.close()
    if last is None:  # resumed after the final epoch: score the restored model
        last = evaluate_sva(model, val)
    return {"step": epochs * per_epoch, "epochs": epochs, "val": last,
            "resumed_from": resumed, "model": model}  # fmt: skip

r"""The loss, the compiled train step and the compiled evaluation step.

Conventions: a causal LM is an `equinox.Module` called on one UNBATCHED int32 token
array, ``model(tokens, *, key=None) -> logits (T, vocab)`` (``key=None``: no
dropout). A batch is an int32 array ``(B, T + 1)``: row $b$ gives inputs
$x_{b,1..T}$ and targets $x_{b,2..T+1}$. Targets equal to `pad_id` carry no loss.
"""

from __future__ import annotations

import math
import os

import equinox as eqx
import jax
import jax.numpy as jnp
import optax
from jaxtyping import Array, Float, Int, PRNGKeyArray

from .._trees import cast_floating, float_dtype


__all__ = [
    "token_nll",
    "auto_splits",
    "next_token_loss",
    "make_train_step",
    "make_eval_step",
    "cast_floating",
    "metric_from_loss",
    "descent_gradient",
]

def token_nll(
    model,
    tokens: Int[Array, "batch T1"],
    *,
    key: PRNGKeyArray | None = None,
    splits: int | str = "auto",
) -> Float[Array, "batch T"]:
    r"""Per-token negative log-likelihood of the next token.

    $$\ell_{b,t} = -\log \operatorname{softmax}\!\big(f_\theta(x_{b,1..T})_t\big)_{x_{b,t+1}}
      = \operatorname{logsumexp}_v z_{b,t,v} - z_{b,t,x_{b,t+1}}$$

    with $z = f_\theta(x_{b,1..T})$ the model's logits, computed in float32 (or
    float64 when the logits are float64) whatever the compute dtype.

    **Row blocks.** The batch is evaluated as `splits` blocks of consecutive rows,
    each its own vmapped call of the model, and the blocks' $\ell$ are stacked back in
    order: the same function of the same rows with the same per-row dropout keys (only
    the summation order of the parameter gradients changes, within float rounding).
    The blocks share no work, so XLA:CPU's thread pool runs their kernels side by side;
    within one kernel most of XLA:CPU's elementwise loops run on a single core. At
    "1m" on 2 cores two blocks made the train step about 0.9x the time
    (docs/benchmarks.md). `"auto"` ([`auto_splits`][syncattn.training.auto_splits])
    takes 2 on a multi-core CPU with a single device, else 1.

    Args:
        model: the causal LM (called on one unbatched row, vmapped over the batch).
        tokens: int token ids ``(B, T + 1)``.
        key: dropout key (split per row), or ``None`` for no dropout.
        splits: row blocks, an int >= 1 (at most B are used) or `"auto"`.

    Returns:
        $\ell$, shape ``(B, T)``.

    Raises:
        ValueError: `splits` is neither `"auto"` nor an int >= 1.
    """
    B = tokens.shape[0]
    n = min(auto_splits(B) if splits == "auto" else _check_splits(splits), max(B, 1))
    keys = None if key is None else jax.random.split(key, B)
    cuts = [B * i // n for i in range(n + 1)]
    parts = [
        _block_nll(model, tokens[a:b], None if keys is None else keys[a:b])
        for a, b in zip(cuts[:-1], cuts[1:])
    ]
    return parts[0] if n == 1 else jnp.concatenate(parts, 0)


def _block_nll(model, tokens, keys):
    """`token_nll` of one block of rows with its per-row dropout keys (or None)."""
    inputs, targets = tokens[:, :-1], tokens[:, 1:]
    if keys is None:
        logits = jax.vmap(lambda x: model(x, key=None))(inputs)
    else:
        logits = jax.vmap(lambda x, k: model(x, key=k))(inputs, keys)
    if logits.dtype != jnp.float64:
        logits = logits.astype(jnp.float32)
    lse = jax.nn.logsumexp(logits, axis=-1)
    picked = jnp.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]
    return lse - picked


def _check_splits(splits):
    if isinstance(splits, bool) or not isinstance(splits, int) or splits < 1:
        raise ValueError(f"splits must be 'auto' or an int >= 1; got {splits!r}.")
    return splits


def auto_splits(batch: int) -> int:
    r"""The row blocks that [`token_nll`][syncattn.training.token_nll] uses at
    `splits="auto"`: 2 when JAX runs on the CPU backend with one device, the machine
    may run on at least 2 cores (its affinity) and `batch` >= 2; else 1 (a GPU runs one batched kernel
    across its cores anyway, and a multi-device mesh shards the batch itself)."""
    cpu = jax.default_backend() == "cpu" and jax.device_count() == 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return 2 if cpu and (cores or 1) >= 2 and batch >= 2 else 1


def _weights(tokens, pad_id, row_weights=None):
    targets = tokens[:, 1:]
    w = jnp.ones(targets.shape, jnp.float32)
    if pad_id is not None:
        w = jnp.where(targets == pad_id, 0.0, w)
    if row_weights is not None:
        w = w * row_weights[:, None].astype(w.dtype)
    return w


def next_token_loss(
    model,
    tokens: Int[Array, "batch T1"],
    *,
    pad_id: int | None = None,
    key: PRNGKeyArray | None = None,
    splits: int | str = "auto",
) -> Float[Array, ""]:
    r"""Mean next-token cross-entropy over the non-padding targets (nats per token).

    $$\mathcal L(\theta) = \frac{\sum_{b,t} m_{b,t}\,\ell_{b,t}}{\max\!\big(1, \sum_{b,t} m_{b,t}\big)},
      \qquad m_{b,t} = [x_{b,t+1} \ne \text{pad}]$$

    with $\ell$ = [`syncattn.training.token_nll`][].

    Args:
        model: the causal LM.
        tokens: int ids ``(B, T + 1)``.
        pad_id: the padding id whose targets are ignored (``None``: none).
        key: dropout key or ``None``.
        splits: the row blocks of [`token_nll`][syncattn.training.token_nll].
    """
    nll = token_nll(model, tokens, key=key, splits=splits)
    w = _weights(tokens, pad_id)
    return jnp.sum(nll * w) / jnp.maximum(jnp.sum(w), 1.0)


def make_train_step(
    optimizer: optax.GradientTransformation,
    *,
    pad_id=None,
    compute_dtype="float32",
    loss=None,
):
    r"""A jit-compiled train step ``step(model, opt_state, key, batch) -> (model, opt_state, key, metrics)``.

    One AdamW update on $\nabla_\theta \mathcal L$ with the dropout key split off
    `key`: $\mathcal L$ is ``loss(model, batch, key)`` when `loss` is given (the task's
    loss, e.g. [`syncattn.training.verb_bce_loss`][] of the classifier), else
    [`syncattn.training.next_token_loss`][] of the token array `batch` with `pad_id`. The gradient is taken through a copy of
    the parameters cast to `compute_dtype` (parameters and optimiser state stay in
    their own dtype, float32 by default). When the loss or the gradient norm is not
    finite the update is skipped (model and optimiser state come back unchanged), so
    that the caller can stop with the last good state.

    **Complex parameters** ($U(n)$ models' embeddings and prototypes). For a real loss
    of $z = x + iy$, `jax.grad` returns $\partial_x \mathcal L - i\,\partial_y
    \mathcal L$, the conjugate of the direction of steepest ascent
    $\partial_x \mathcal L + i\,\partial_y \mathcal L$; optax applies what it is
    given, so the step conjugates complex gradient leaves first
    ([`descent_gradient`][syncattn.training.descent_gradient]). Each complex entry is
    then updated as the pair $(x, y)$ would be by plain gradient descent; Adam's second
    moment is $|g|^2$ per entry (optax), shared by $x$ and $y$.

    Under a `jax.sharding` mesh with the batch sharded on axis 0 and the parameters
    replicated, XLA turns the batch mean into an all-reduce: the step is the
    data-parallel step without code changes.

    Returns:
        The step function; `metrics` holds ``loss`` (float32), ``grad_norm``
        (before clipping) and ``finite`` (bool).
    """
    cdtype = float_dtype(compute_dtype)
    if loss is None:
        def loss(model, tokens, key):
            return next_token_loss(model, tokens, pad_id=pad_id, key=key)

    def loss_fn(model, tokens, key):
        if cdtype is not None:
            model = cast_floating(model, cdtype)
        return loss(model, tokens, key)

    @eqx.filter_jit
    def step(model, opt_state, key, tokens):
        key, sub = jax.random.split(key)
        loss, grads = eqx.filter_value_and_grad(loss_fn)(model, tokens, sub)
        grads = cast_floating(grads, jnp.float32) if cdtype == jnp.bfloat16 else grads
        grads = descent_gradient(grads)
        gnorm = _global_norm(grads)
        finite = jnp.isfinite(loss) & jnp.isfinite(gnorm)
        params = eqx.filter(model, eqx.is_inexact_array)
        updates, new_opt = optimizer.update(grads, opt_state, params)
        new_model = eqx.apply_updates(model, updates)
        # a non-finite step leaves the state as it was (the caller then stops)
        keep = lambda new, old: jnp.where(finite, new, old)  # noqa: E731
        new_model = _select(finite, new_model, model)
        new_opt = jax.tree.map(keep, new_opt, opt_state)
        metrics = {"loss": loss.astype(jnp.float32), "grad_norm": gnorm, "finite": finite}
        return new_model, new_opt, key, metrics

    return step


def descent_gradient(grads):
    r"""`grads` (from `jax.grad` of a real loss) with every complex leaf conjugated:
    $g \mapsto \bar g = \partial_x \mathcal L + i\,\partial_y \mathcal L$ for
    $z = x + iy$, the steepest-ascent direction that a gradient-descent optimiser
    expects (real leaves unchanged)."""
    conj = lambda g: jnp.conj(g) if eqx.is_array(g) and jnp.iscomplexobj(g) else g  # noqa: E731
    return jax.tree.map(conj, grads)


def _global_norm(tree):
    leaves = jax.tree.leaves(eqx.filter(tree, eqx.is_inexact_array))
    # |x|^2 of complex leaves (U(n) models' embeddings and prototypes): a cast to float32
    # would drop their imaginary parts
    real = lambda x: jnp.abs(x) if jnp.iscomplexobj(x) else x  # noqa: E731
    return jnp.sqrt(sum(jnp.sum(jnp.square(real(x).astype(jnp.float32))) for x in leaves))


def _select(pred, new, old):
    new_arr, static = eqx.partition(new, eqx.is_array)
    old_arr, _ = eqx.partition(old, eqx.is_array)
    merged = jax.tree.map(lambda a, b: jnp.where(pred, a, b), new_arr, old_arr)
    return eqx.combine(merged, static)


def make_eval_step(*, pad_id, compute_dtype="float32"):
    r"""A jit-compiled ``eval_step(model, tokens, row_weights) -> (nll_sum, n_targets)``.

    $$S = \sum_{b,t} w_b\, m_{b,t}\, \ell_{b,t}, \qquad N = \sum_{b,t} w_b\, m_{b,t}$$

    (no dropout), with $w_b \in \{0, 1\}$ masking the rows that only pad a short
    final batch. Sums are float32 per batch; accumulate them in float64 on the host.
    """
    cdtype = float_dtype(compute_dtype)

    @eqx.filter_jit
    def eval_step(model, tokens, row_weights):
        model = cast_floating(model, cdtype)
        nll = token_nll(model, tokens, key=None)
        w = _weights(tokens, pad_id, row_weights)
        return jnp.sum(nll * w), jnp.sum(w)

    return eval_step


def metric_from_loss(loss: float, kind: str) -> dict[str, float]:
    r"""The corpus metric of a mean loss $\bar\ell$ in nats per token.

    Byte corpora: bits per character $\mathrm{BPC} = \bar\ell / \ln 2$ (one byte is one
    character of the byte-level benchmarks such as enwik8). Word corpora: perplexity
    $\mathrm{PPL} = e^{\bar\ell}$.
    """
    if kind == "byte":
        return {"bpc": loss / math.log(2.0)}
    if kind == "word":
        return {"ppl": math.exp(loss) if loss < 700 else float("inf")}
    raise ValueError(f"kind must be 'byte' or 'word'; got {kind!r}.")

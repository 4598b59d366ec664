"""Autoregressive sampling from a causal LM, compiled as one `lax.fori_loop`."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jaxtyping import Array, ArrayLike, Float, Int, PRNGKeyArray

from .._types import ScalarLike


__all__ = ["generate", "sampling_logits"]


def sampling_logits(
    logits: Float[Array, " vocab"], *, temperature: ScalarLike, top_k: int | None,
    banned_id: int | None = None,
) -> Float[Array, " vocab"]:
    r"""The logits that next-token sampling draws from.

    $$p(v) \propto \begin{cases} \exp(z_v / \tau) & z_v \ge z_{(k)} \\ 0 & \text{else}\end{cases}$$

    with $\tau$ = `temperature` $> 0$ and $z_{(k)}$ the $k$-th largest logit
    (`top_k`; ``None``: all tokens). `banned_id` (e.g. padding) gets probability 0.
    """
    z = logits.astype(jnp.float32)
    if banned_id is not None:
        z = z.at[banned_id].set(-jnp.inf)
    if top_k is not None and top_k < z.shape[-1]:
        kth = jax.lax.top_k(z, top_k)[0][-1]
        z = jnp.where(z < kth, -jnp.inf, z)
    return z / temperature


@eqx.filter_jit
def _generate(model, buf, key, n_prompt, temperature, *, context, top_k, greedy, banned_id):
    total = buf.shape[0]
    width = min(context, total)

    def body(i, carry):
        buf, key = carry
        # the last `width` tokens before position i (causal: later slots are ignored)
        start = jnp.clip(i - width, 0, total - width)
        window = jax.lax.dynamic_slice(buf, (start,), (width,))
        z = model(window, key=None)[i - 1 - start]
        if greedy:
            z = sampling_logits(z, temperature=1.0, top_k=None, banned_id=banned_id)
            tok = jnp.argmax(z)
        else:
            key, sub = jax.random.split(key)
            z = sampling_logits(z, temperature=temperature, top_k=top_k, banned_id=banned_id)
            tok = jax.random.categorical(sub, z)
        return buf.at[i].set(tok.astype(buf.dtype)), key

    buf, _ = jax.lax.fori_loop(n_prompt, total, body, (buf, key))
    return buf


def generate(
    model,
    prompt: Int[ArrayLike, " P"],
    *,
    length: int,
    context: int,
    key: PRNGKeyArray,
    temperature: float = 1.0,
    top_k: int | None = None,
    banned_id: int | None = None,
) -> Int[Array, " n_out"]:  # n_out = P + length (an argument, not an axis)
    r"""Continue `prompt` by `length` tokens, each drawn from the model's next-token law.

    $$x_{t} \sim \operatorname{softmax}\!\big(\tilde z_{t-1} / \tau\big), \qquad
      \tilde z = \text{top-}k\big(f_\theta(x_{t-W..t-1})\big),$$

    see [`syncattn.training.sampling_logits`][]; $W$ = `context` is the longest
    window the model is shown (the training `seq_len`); `temperature` 0 means greedy
    ($x_t = \arg\max_v z_{t-1,v}$). The whole loop is one compiled `lax.fori_loop`
    over a fixed-size buffer (no Python loop over tokens); each new token costs one
    forward pass over the window.

    Args:
        model: causal LM, ``model(tokens (W,), key=None) -> logits (W, vocab)``.
        prompt: int ids ``(P,)``, ``P >= 1``.
        length: tokens to add, ``>= 0``.
        context: window $W \ge 1$.
        key: PRNG key (ignored when greedy).
        temperature: $\tau \ge 0$.
        top_k: keep the $k \ge 1$ most likely tokens, or ``None``.
        banned_id: a token id never sampled (padding), or ``None``.

    Returns:
        ``(P + length,)`` int32 ids, the prompt first.

    Raises:
        ValueError: empty prompt, negative length, bad temperature / top_k / context.
    """
    prompt = np.asarray(prompt)
    if prompt.ndim != 1 or prompt.size == 0:
        raise ValueError(f"prompt must be a non-empty 1-D id array; got shape {prompt.shape}.")
    if not np.issubdtype(prompt.dtype, np.integer):
        raise TypeError(f"prompt must hold integer ids; got dtype {prompt.dtype}.")
    if int(length) < 0:
        raise ValueError(f"length must be >= 0; got {length}.")
    if int(context) < 1:
        raise ValueError(f"context must be >= 1; got {context}.")
    if not np.isfinite(temperature) or temperature < 0:
        raise ValueError(f"temperature must be a finite number >= 0; got {temperature}.")
    if top_k is not None and int(top_k) < 1:
        raise ValueError(f"top_k must be >= 1 or None; got {top_k}.")
    n = prompt.size
    buf = jnp.zeros(n + int(length), jnp.int32).at[:n].set(jnp.asarray(prompt, jnp.int32))
    if length == 0:
        return buf
    greedy = temperature == 0
    return _generate(
        model, buf, key, n, jnp.float32(temperature if not greedy else 1.0),
        context=int(context), top_k=None if top_k is None else int(top_k),
        greedy=greedy, banned_id=banned_id,
    )

"""Test doubles: a tiny causal LM, and (until syncattn.data lands) a stand-in sampler."""

from __future__ import annotations

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


class TinyLM(eqx.Module):
    """Embedding, causal running mean, dropout, linear readout: logits_t depends on x_{<=t}."""

    embed: jax.Array
    mix: jax.Array
    out: eqx.nn.Linear
    dropout: float = eqx.field(static=True, default=0.0)

    def __init__(self, vocab, dim=16, *, key, dropout=0.0):
        k1, k2, k3 = jax.random.split(key, 3)
        self.embed = jax.random.normal(k1, (vocab, dim)) * 0.5
        self.mix = jax.random.normal(k2, (dim, dim)) / jnp.sqrt(dim)
        self.out = eqx.nn.Linear(dim, vocab, key=k3)
        self.dropout = dropout

    def __call__(self, tokens, *, key=None):
        e = self.embed[tokens]
        t = jnp.arange(1, tokens.shape[0] + 1, dtype=e.dtype)[:, None]
        h = e + jnp.tanh(jnp.cumsum(e, axis=0) / t @ self.mix)
        if key is not None and self.dropout > 0:
            keep = jax.random.bernoulli(key, 1 - self.dropout, h.shape)
            h = jnp.where(keep, h / (1 - self.dropout), 0.0)
        return jax.vmap(self.out)(h)


@dataclasses.dataclass
class Corpus:
    name: str
    kind: str
    vocab_size: int
    train: np.ndarray
    val: np.ndarray
    test: np.ndarray
    pad_id: int | None = None


def toy_corpus(n=4000, vocab=11, seed=0):
    """A byte-like corpus with structure (a noisy repeating pattern) so the loss falls."""
    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(vocab, dtype=np.uint8), n // vocab + 1)[:n]
    noise = rng.random(n) < 0.2
    toks = np.where(noise, rng.integers(0, vocab, n), base).astype(np.uint8)
    return Corpus("toy", "byte", vocab, toks[: n * 8 // 10], toks[n * 8 // 10 : n * 9 // 10], toks[n * 9 // 10 :])


def sample_batch(tokens, *, seed, step, batch_size, seq_len):
    rng = np.random.default_rng([seed, step])
    tokens = np.asarray(tokens)
    if tokens.ndim == 2:
        rows = rng.integers(0, tokens.shape[0], batch_size)
        return tokens[rows, : seq_len + 1].astype(np.int32)
    starts = rng.integers(0, len(tokens) - seq_len - 1, batch_size)
    return np.stack([tokens[s : s + seq_len + 1] for s in starts]).astype(np.int32)


def eval_batches(tokens, *, batch_size, seq_len, max_batches=None):
    tokens = np.asarray(tokens)
    if tokens.ndim == 2:
        rows = tokens[:, : seq_len + 1]
    else:
        n = (len(tokens) - 1) // seq_len
        rows = np.stack([tokens[i * seq_len : i * seq_len + seq_len + 1] for i in range(n)])
    k = 0
    for i in range(0, len(rows), batch_size):
        if max_batches is not None and k >= max_batches:
            return
        yield rows[i : i + batch_size].astype(np.int32)
        k += 1


DATA = dict(sample_batch=sample_batch, eval_batches=eval_batches)

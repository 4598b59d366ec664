"""Test doubles: a tiny causal LM (embedding, running mean, linear) and a toy corpus."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from syncattn import data


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


def toy_corpus(n=4000, vocab=11, seed=0):
    """A byte-like corpus with structure (a noisy repeating pattern) so the loss falls."""
    rng = np.random.default_rng(seed)
    base = np.tile(np.arange(vocab, dtype=np.uint8), n // vocab + 1)[:n]
    noise = rng.random(n) < 0.2
    toks = np.where(noise, rng.integers(0, vocab, n), base).astype(np.uint8)
    return data.Corpus(
        "toy", "byte", vocab,
        toks[: n * 8 // 10], toks[n * 8 // 10 : n * 9 // 10], toks[n * 9 // 10 :],
    )


DATA = dict(sample_batch=data.sample_batch, eval_batches=data.eval_batches)

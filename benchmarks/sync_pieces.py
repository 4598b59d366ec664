"""Benchmark: where a synchronisation LM's training time goes, piece by piece.

For each model at a preset (default "1m"), batch 16 x 256, float32: the forward and
backward (value and gradient in the piece's parameters, jit-compiled, `jax.vmap` over
the batch) of one attention layer, one feed-forward, the readout, the embedding, and
the whole model. Median of `--repeats` calls after a warm-up; the models run one after
the other (not interleaved), so compare them on an idle machine only.

Usage:
    PYTHONPATH=. python benchmarks/sync_pieces.py                      # kuramoto sphere group
    PYTHONPATH=. python benchmarks/sync_pieces.py --models kuramoto group:u2
Prints one line per model (milliseconds).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from syncattn import models
from syncattn.models import _layers


sys.path.insert(0, os.path.dirname(__file__))
from training import model_config  # noqa: E402


def _timed(f, *args, repeats):
    jax.block_until_ready(f(*args))
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(*args))
        ts.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(ts)


def _sq(x):
    return jnp.sum(jnp.abs(x) ** 2)


def pieces(spec, config, tokens, repeats):
    m = models.cast(models.build(model_config(spec, config), key=jax.random.key(0)), jnp.float32)
    state = jax.vmap(m.embedding)(tokens)

    def grad_of(call):
        return eqx.filter_jit(eqx.filter_value_and_grad(lambda p, x: _sq(jax.vmap(lambda s: call(p, s))(x))))

    res = {"attention": _timed(grad_of(lambda p, s: _layers.call_sync_attention(p, s)),
                               m.attentions[0], state, repeats=repeats)}  # fmt: skip
    if m.ffns is not None:
        res["feed-forward"] = _timed(grad_of(_layers.call_sync_ffn), m.ffns[0], state, repeats=repeats)
    res["readout"] = _timed(grad_of(lambda p, s: p(s)), m.readout, state, repeats=repeats)
    res["embedding"] = _timed(grad_of(lambda p, t: p(t)), m.embedding, tokens, repeats=repeats)
    res["model"] = _timed(grad_of(lambda p, t: p(t)), m, tokens, repeats=repeats)
    return res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default="1m")
    p.add_argument("--models", nargs="+", default=["kuramoto", "sphere", "group"])
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--repeats", type=int, default=5)
    a = p.parse_args(argv)
    rng = np.random.default_rng(0)
    tokens = jnp.asarray(rng.integers(0, 256, (a.batch_size, a.seq_len)), jnp.int32)
    print(f"1-minute load average before: {os.getloadavg()[0]:.2f}")
    for spec in a.models:
        res = pieces(spec, a.config, tokens, a.repeats)
        print(spec, {k: round(v, 1) for k, v in res.items()}, flush=True)
    print(f"1-minute load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

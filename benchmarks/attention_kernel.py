"""Benchmark: the fused CPU attention kernel against XLA's attention, in isolation.

The "1m" attention shapes (batch 16 x T 256, 4 heads; head width 32 for softmax, 64
for the Kuramoto and sphere models' lifted features), forward and forward+backward,
as the models call it (one sequence, vmapped over the batch), compiled. The XLA side is
the models' own pure-XLA path (`nn._common.attend` with the kernel switched off: the
blocked causal softmax). Rounds interleave kernel and XLA; medians; the 1-minute load
average before and after is printed with the numbers.

Usage:
    python benchmarks/attention_kernel.py [--repeats 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import jax
import jax.numpy as jnp

from syncattn._kernels import _library, status
from syncattn.nn._common import attend


def _timed(fn, args, n):
    jax.block_until_ready(fn(*args))
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        out.append(time.perf_counter() - t0)
    return out


def _compiled(kernel: bool, args):
    """The forward and the gradient, traced and compiled now with the kernel on or off."""
    old = os.environ.get(_library.ENV)
    os.environ[_library.ENV] = "1" if kernel else "0"
    attn = jax.vmap(lambda q, k, v: attend(q, k, v, True))
    fwd = jax.jit(attn)
    loss = lambda q, k, v: jnp.sum(jnp.sin(attn(q, k, v)))  # noqa: E731
    bwd = jax.jit(jax.grad(loss, (0, 1, 2)))
    try:
        jax.block_until_ready((fwd(*args), bwd(*args)))
        return fwd, bwd
    finally:
        if old is None:
            os.environ.pop(_library.ENV)
        else:
            os.environ[_library.ENV] = old


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=256)
    a = p.parse_args(argv)
    print(f"kernel: {status()}; load average before {os.getloadavg()}")
    print(
        "| D = E | kernel fwd (ms) | XLA fwd (ms) | kernel fwd+bwd (ms) | XLA fwd+bwd (ms) | fwd+bwd XLA / kernel |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    for d in (32, 64):
        ks = jax.random.split(jax.random.key(0), 3)
        shape = (a.batch, a.seq_len, 4, d)
        q, k, v = (jax.random.normal(x, shape, jnp.float32) / d**0.25 for x in ks)
        fns = {}
        for kernel in (True, False):
            fns[kernel] = _compiled(kernel, (q, k, v))
        t = {key: [] for key in ("kf", "xf", "kb", "xb")}
        for _ in range(max(1, a.repeats // 5)):
            t["kf"] += _timed(fns[True][0], (q, k, v), 5)
            t["xf"] += _timed(fns[False][0], (q, k, v), 5)
            t["kb"] += _timed(fns[True][1], (q, k, v), 5)
            t["xb"] += _timed(fns[False][1], (q, k, v), 5)
        m = {key: 1e3 * statistics.median(x) for key, x in t.items()}
        print(
            f"| {d} | {m['kf']:.1f} | {m['xf']:.1f} | {m['kb']:.1f} | {m['xb']:.1f} | {m['xb'] / m['kb']:.2f} |"
        )
    print(f"load average after {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The causal fixed-query kernels, dense against query-blocked, interleaved in one process.

Times value and gradient of one oscillator layer's two (T, T) products,
`lohe.masked_drive` (softplus couplings) then `lohe.readout_sums` (p = 1), vmapped
over the batch with the anchors shared across it (as the position-anchor table is),
at the "1m" sizes by default: batch 16, 4 heads, T = 256, d_h = 32, d_osc = 8.
"dense" passes the causal mask whole (`causal=False`: every (T, T) entry formed);
"blocked" passes it with `causal=True` (on CPU: XLA by query blocks, no key block
above the diagonal); "fused" passes no mask and `causal=True`, which on the CPU in
float32 is the fused pair-map kernel (`syncattn._kernels.pair_map`, as the
oscillator layer calls it). Gradients with respect to q, k, v and the anchors. Prints
the median process CPU time (user + system) and wall time per call, the variants taking
turns.

Usage:
    python benchmarks/causal_kernels.py            # 1m sizes, 7 rounds
    python benchmarks/causal_kernels.py --seq-len 1024 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--d-head", type=int, default=32)
    p.add_argument("--d-osc", type=int, default=8)
    p.add_argument("--rounds", type=int, default=7)
    a = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's syncattn
    import jax
    import jax.numpy as jnp
    import numpy as np

    from syncattn import lohe

    B, H, T = a.batch_size, a.heads, a.seq_len
    ks = jax.random.split(jax.random.key(0), 4)
    q = jax.random.normal(ks[0], (B, H, T, a.d_head))
    k = jax.random.normal(ks[1], (B, H, T, a.d_head))
    v = jax.random.normal(ks[3], (B, H, T, a.d_head))
    r = jax.random.normal(ks[2], (H, T, a.d_osc))
    r = r / jnp.linalg.norm(r, axis=-1, keepdims=True)
    mask = jnp.tril(jnp.ones((T, T), bool))[None]

    def make(causal, m=mask):
        def layer(q, k, v, r):
            h = lohe.masked_drive(q, k, r, mask=m, kind="softplus", causal=causal)
            z = h / jnp.linalg.norm(h, axis=-1, keepdims=True)
            num, den = lohe.readout_sums(z, r, v, mask=m, p=1, causal=causal)
            return jnp.sum(num / den)

        batched = jax.vmap(layer, (0, 0, 0, None))
        return jax.jit(jax.value_and_grad(lambda *x: jnp.sum(batched(*x)), (0, 1, 2, 3)))

    fs = {"dense": make(False), "blocked": make(True), "fused": make(True, None)}
    vals = {n: float(f(q, k, v, r)[0]) for n, f in fs.items()}
    cpu = {n: [] for n in fs}
    wall = {n: [] for n in fs}
    load0 = os.getloadavg()[0]
    for i in range(a.rounds):
        for n in fs if i % 2 == 0 else list(fs)[::-1]:
            c0, w0 = time.process_time(), time.perf_counter()
            jax.block_until_ready(fs[n](q, k, v, r))
            cpu[n].append(time.process_time() - c0)
            wall[n].append(time.perf_counter() - w0)
    load1 = os.getloadavg()[0]
    print(f"\nB={B}, H={H}, T={T}, d_h={a.d_head}, d_osc={a.d_osc}, {a.rounds} rounds, "
          f"{jax.default_backend()}; 1-min load average {load0:.2f} -> {load1:.2f}; "
          "values " + ", ".join(f"{n} {x:.6g}" for n, x in vals.items()) + "\n")
    print("| | dense | blocked | fused | dense / blocked | blocked / fused |\n"
          "|---|---:|---:|---:|---:|---:|")
    for label, t in (("CPU ms/call", cpu), ("wall ms/call", wall)):
        d, b, f = (1e3 * np.median(t[n]) for n in ("dense", "blocked", "fused"))
        print(f"| {label} | {d:.1f} | {b:.1f} | {f:.1f} | {d / b:.2f}x | {b / f:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: forward + backward of one attention layer, side by side with SoftmaxAttention.

Setup (issue 9): causal self-attention at T in {256, 1024, 4096}, batch 8, width 256,
4 heads for every layer (head width 64 for the softmax and Kuramoto layers, whose
queries and keys are the lifted phases: k = 128 phases give 2k = 256 features). One
step = value and gradient of mean(layer(x)^2) with respect to the parameters and the
input, jit-compiled, vmapped over the batch, float32 by default.

Layers:
    softmax       nn.SoftmaxAttention (RoPE), jax.nn.dot_product_attention
    kuramoto      nn.KuramotoAttention, efficient path (jax.nn.dot_product_attention)
    osc-closed    nn.OscillatorAttention, softplus coupling, closed-form equilibrium, quadratic
    osc-linear    nn.OscillatorAttention, coupling="elu1_features" (the kernel
                  phi(q).phi(k)/d_h, phi = elu + 1; not the published elu1), impl="linear"
    osc-chunked   nn.OscillatorAttention, softplus coupling, impl="chunked"

Time: median (and min) wall time of the compiled step over --repeats rounds; the
layers take turns within each round (round-robin), so machine load hits them alike.
Memory: XLA's buffer assignment for the compiled step (compiled.memory_analysis():
temporaries + arguments + outputs), which is what the step needs at its peak; on a
GPU the allocator's peak_bytes_in_use is recorded too. A configuration whose compiled
memory exceeds --mem-limit-gb is timed at the largest batch 8/2^j that fits and its
time is scaled to the full batch (flagged "scaled from batch b"; attention is
independent per example, so time is linear in the batch up to cache effects).

Usage:
    python benchmarks/attention.py            # T = 256, 1024, 4096 (CPU: tens of minutes)
    python benchmarks/attention.py --quick    # T = 64, 256, batch 2, width 64 (a minute)
Writes OUT/config.json, OUT/results.json, OUT/results.csv, OUT/attention.png
(default OUT = benchmarks/results/attention) and prints a markdown table.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from tqdm import tqdm

from syncattn import nn


LAYERS = ("softmax", "kuramoto", "osc-closed", "osc-linear", "osc-chunked")


def make_layer(name, cfg, T, key):
    W, H = cfg["width"], cfg["heads"]
    if name == "softmax":
        return nn.SoftmaxAttention(W, H, key=key)
    if name == "kuramoto":
        return nn.KuramotoAttention(W // 2, H, key=key)
    common = dict(key=key, causal=True)
    if name == "osc-closed":
        return nn.OscillatorAttention(W, H, cfg["d_osc"], T, **common)
    if name == "osc-linear":
        return nn.OscillatorAttention(
            W,
            H,
            cfg["d_osc"],
            T,
            coupling="elu1_features",
            impl="linear",
            chunk=cfg["chunk"],
            **common,
        )
    if name == "osc-chunked":
        return nn.OscillatorAttention(
            W, H, cfg["d_osc"], T, impl="chunked", chunk=cfg["chunk_softplus"], **common
        )
    raise ValueError(name)


def make_input(name, cfg, T, batch, key, dtype):
    width = cfg["width"] // 2 if name == "kuramoto" else cfg["width"]
    x = jax.random.normal(key, (batch, T, width), jnp.float32)
    return (3.0 * x if name == "kuramoto" else x).astype(dtype)


def compile_step(layer, x):
    """AOT-compiled value_and_grad of mean(layer(x)^2) in (parameters, x)."""
    params, static = eqx.partition(layer, eqx.is_inexact_array)

    def loss(p, x):
        y = jax.vmap(eqx.combine(p, static))(x)
        return jnp.mean(y.astype(jnp.float32) ** 2)

    step = jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))
    compiled = step.lower(params, x).compile()
    return compiled, params


def memory_bytes(compiled):
    m = compiled.memory_analysis()
    if m is None:  # pragma: no cover - backend without the analysis
        return None, None
    temp = int(m.temp_size_in_bytes)
    total = temp + int(m.argument_size_in_bytes) + int(m.output_size_in_bytes)
    total -= int(getattr(m, "alias_size_in_bytes", 0) or 0)
    return temp, total


def run(cfg, out: Path):
    dtype = jnp.dtype(cfg["dtype"])
    key = jax.random.key(cfg["seed"])
    limit = cfg["mem_limit_gb"] * 2**30
    rows = []
    for T in cfg["ts"]:
        entries = {}
        for name in tqdm(cfg["layers"], desc=f"compile T={T}", leave=False):
            k1, k2 = jax.random.split(jax.random.fold_in(key, T))
            layer = make_layer(name, cfg, T, k1)
            x = make_input(name, cfg, T, cfg["batch"], k2, dtype)
            t0 = time.perf_counter()
            compiled, params = compile_step(layer, x)
            compile_s = time.perf_counter() - t0
            temp, total = memory_bytes(compiled)
            b = cfg["batch"]
            while total is not None and total > limit and b > 1:
                b //= 2
                x = make_input(name, cfg, T, b, k2, dtype)
                compiled_b, _ = compile_step(layer, x)
                _, total_b = memory_bytes(compiled_b)
                compiled = compiled_b
                if total_b <= limit:
                    break
            entries[name] = dict(
                compiled=compiled,
                params=params,
                x=x,
                batch_run=b,
                temp=temp,
                total=total,
                compile_s=compile_s,
                times=[],
            )
            jax.block_until_ready(compiled(params, x))  # warm-up
        for _ in tqdm(range(cfg["repeats"]), desc=f"time T={T}", leave=False):
            for e in entries.values():  # round-robin: every layer in every round
                t0 = time.perf_counter()
                jax.block_until_ready(e["compiled"](e["params"], e["x"]))
                e["times"].append(time.perf_counter() - t0)
        base = entries.get("softmax")
        for name, e in entries.items():
            scale = cfg["batch"] / e["batch_run"]
            med = float(np.median(e["times"])) * scale
            row = dict(
                T=T,
                layer=name,
                batch=cfg["batch"],
                time_s=med,
                time_min_s=float(np.min(e["times"])) * scale,
                batch_run=e["batch_run"],
                mem_total_mb=None if e["total"] is None else e["total"] / 2**20,
                mem_temp_mb=None if e["temp"] is None else e["temp"] / 2**20,
                compile_s=e["compile_s"],
            )
            if base is not None:
                bmed = (
                    float(np.median(base["times"])) * cfg["batch"] / base["batch_run"]
                )
                row["time_ratio"] = med / bmed
                row["mem_ratio"] = (
                    None if e["total"] is None else e["total"] / base["total"]
                )
            rows.append(row)
        print(table([r for r in rows if r["T"] == T]), flush=True)
        # the rows so far, in case the run is stopped (main overwrites it at the end)
        (out / "results.json").write_text(json.dumps(dict(config=cfg, rows=rows, partial=True), indent=2))
    return rows


def table(rows):
    lines = [
        "| T | layer | time (s) | x softmax | memory (MiB) | x softmax | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        note = "" if r["batch_run"] == r["batch"] else f"timed at batch {r['batch_run']}, scaled"
        lines.append(
            f"| {r['T']} | {r['layer']} | {r['time_s']:.4g} | {r.get('time_ratio', float('nan')):.2f} "
            f"| {r['mem_total_mb']:.0f} | {r.get('mem_ratio', float('nan')):.2f} | {note} |"
        )
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name in dict.fromkeys(r["layer"] for r in rows):
        rs = [r for r in rows if r["layer"] == name]
        ts = [r["T"] for r in rs]
        axes[0].loglog(ts, [r["time_s"] for r in rs], "o-", label=name)
        axes[1].loglog(ts, [r["mem_total_mb"] for r in rs], "o-", label=name)
    for ax in axes:
        ts = sorted({r["T"] for r in rows})
        ax.set_xticks(ts, [str(t) for t in ts])
        ax.minorticks_off()
    axes[0].set(xlabel="T", ylabel="forward + backward (s)", title="time")
    axes[1].set(xlabel="T", ylabel="compiled memory (MiB)", title="memory")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--ts", type=int, nargs="+", default=None)
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--width", type=int, default=None)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-osc", type=int, default=8)
    ap.add_argument("--chunk", type=int, default=64, help="osc-linear chunk")
    ap.add_argument("--chunk-softplus", type=int, default=256, help="osc-chunked chunk")
    ap.add_argument("--layers", nargs="+", default=list(LAYERS), choices=LAYERS)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    ap.add_argument("--mem-limit-gb", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="benchmarks/results/attention")
    a = ap.parse_args(argv)
    quick = a.quick
    cfg = dict(
        ts=a.ts or ([64, 256] if quick else [256, 1024, 4096]),
        batch=a.batch or (2 if quick else 8),
        width=a.width or (64 if quick else 256),
        heads=a.heads,
        d_osc=a.d_osc,
        chunk=a.chunk,
        chunk_softplus=a.chunk_softplus,
        layers=a.layers,
        repeats=a.repeats or (2 if quick else 3),
        dtype=a.dtype,
        mem_limit_gb=a.mem_limit_gb,
        seed=a.seed,
        quick=quick,
    )
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(
        jax=jax.__version__,
        backend=jax.default_backend(),
        devices=[str(d) for d in jax.devices()],
        platform=platform.platform(),
        cpus=os.cpu_count(),
        loadavg_start=os.getloadavg() if hasattr(os, "getloadavg") else None,
        command="python benchmarks/attention.py "
        + " ".join(argv if argv is not None else __import__("sys").argv[1:]),
    )
    (out / "config.json").write_text(json.dumps({**cfg, **env}, indent=2))
    rows = run(cfg, out)
    env["loadavg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    (out / "results.json").write_text(
        json.dumps(dict(config=cfg, env=env, rows=rows), indent=2)
    )
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, out / "attention.png")
    print(table(rows))
    print(f"load average {env['loadavg_start']} -> {env['loadavg_end']}; wrote {out}")


if __name__ == "__main__":
    main()

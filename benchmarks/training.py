"""Benchmark: training throughput of the three LMs, and the train step against a bare forward + backward.

For each attention (softmax, oscillator, kuramoto) at one model preset (default
"1m"), on the same random byte batch:

* **train step**: `syncattn.training.make_train_step` (loss, gradient, global-norm
  clip, AdamW update, NaN guard), compiled, as `syncattn train` runs it on one
  device; tokens/s = batch_size * seq_len / step time;
* **fwd+bwd**: `equinox.filter_value_and_grad` of the same loss, compiled, with no
  optimiser: the model's own cost.

Timings are medians over `--repeats` rounds; each round times every model in turn
(interleaved, so a load spike on a shared machine hits all models alike). Compile
time is excluded (a warm-up call first). The ratios to softmax are measured side by
side in this one run.

Usage:
    python benchmarks/training.py                       # "1m", batch 16 x 256, 5 rounds
    python benchmarks/training.py --config 5m --batch-size 64   # e.g. on a GPU
Writes benchmarks/results/training[-CONFIG-BACKEND].json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from syncattn import models
from syncattn.training import (
    TrainConfig,
    make_optimizer,
    make_train_step,
    next_token_loss,
)


ATTENTIONS = ("softmax", "oscillator", "kuramoto")


def _block(tree):
    jax.block_until_ready(jax.tree.leaves(eqx.filter(tree, eqx.is_array)))


def setup(attention, config, batch, dtype):
    cfg = models.get_config(config, attention=attention)
    model = models.build(cfg, key=jax.random.key(0))
    model = jax.tree.map(lambda x: x.astype(jnp.float32) if eqx.is_inexact_array(x) else x, model)
    tcfg = TrainConfig.preset(config, steps=1000, batch_size=batch.shape[0],
                              seq_len=batch.shape[1] - 1, compute_dtype=dtype)
    opt = make_optimizer(tcfg)
    step = make_train_step(opt, pad_id=None, compute_dtype=dtype)
    opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    key = jax.random.PRNGKey(0)

    @eqx.filter_jit
    def fwd_bwd(model, tokens):
        return eqx.filter_value_and_grad(lambda m: next_token_loss(m, tokens))(model)

    state = {"model": model, "opt": opt_state, "key": key}

    def run_step():
        m, o, k, metrics = step(state["model"], state["opt"], state["key"], batch)
        _block((m, o, metrics))
        state.update(model=m, opt=o, key=k)

    def run_plain():
        _block(fwd_bwd(model, batch))

    t0 = time.perf_counter()
    run_step()
    compile_step = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_plain()
    compile_plain = time.perf_counter() - t0
    return {
        "params": models.count_params(model), "step": run_step, "plain": run_plain,
        "compile_step_s": compile_step, "compile_plain_s": compile_plain,
    }


def timed(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default="1m")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--inner", type=int, default=2, help="calls per timing")
    p.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    p.add_argument("--models", nargs="+", default=list(ATTENTIONS), choices=ATTENTIONS)
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)

    rng = np.random.default_rng(0)
    batch = jnp.asarray(rng.integers(0, 256, (a.batch_size, a.seq_len + 1)), jnp.int32)
    runs = {}
    for att in a.models:
        print(f"compiling {att} ...", file=sys.stderr)
        runs[att] = setup(att, a.config, batch, a.dtype)
    times = {att: {"step": [], "plain": []} for att in runs}
    for r in range(a.repeats):
        for att, run in runs.items():
            times[att]["step"].append(timed(run["step"], a.inner))
            times[att]["plain"].append(timed(run["plain"], a.inner))
        print(f"round {r + 1}/{a.repeats} done", file=sys.stderr)

    tokens = a.batch_size * a.seq_len
    rows = {}
    for att, run in runs.items():
        step = statistics.median(times[att]["step"])
        plain = statistics.median(times[att]["plain"])
        rows[att] = {
            "params": run["params"], "step_s": step, "fwd_bwd_s": plain,
            "tokens_per_s": tokens / step, "step_over_fwd_bwd": step / plain,
            "compile_step_s": run["compile_step_s"], "compile_plain_s": run["compile_plain_s"],
            "step_s_all": times[att]["step"], "fwd_bwd_s_all": times[att]["plain"],
        }
    base = rows.get("softmax")
    for row in rows.values():
        row["tokens_per_s_vs_softmax"] = row["tokens_per_s"] / base["tokens_per_s"] if base else None
        row["time_vs_softmax"] = row["step_s"] / base["step_s"] if base else None

    backend = jax.default_backend()
    result = {
        "config": a.config, "batch_size": a.batch_size, "seq_len": a.seq_len,
        "dtype": a.dtype, "repeats": a.repeats, "inner": a.inner,
        "backend": backend, "devices": [str(d) for d in jax.devices()],
        "jax": jax.__version__, "python": platform.python_version(),
        "command": " ".join(["python", "benchmarks/training.py", *(argv or sys.argv[1:])]),
        "rows": rows,
    }
    out = a.out or Path(__file__).parent / "results" / (
        "training.json" if (a.config, backend) == ("1m", "cpu") else f"training-{a.config}-{backend}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")

    print(f"\nconfig {a.config}, batch {a.batch_size} x {a.seq_len}, {a.dtype}, {backend}, "
          f"median of {a.repeats} rounds\n")
    print("| model | params | train step (ms) | tokens/s | step time / softmax | "
          "tokens/s / softmax | fwd+bwd (ms) | step / fwd+bwd |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for att, row in rows.items():
        print(f"| {att} | {row['params']:,} | {1e3 * row['step_s']:.1f} | "
              f"{row['tokens_per_s']:,.0f} | {row['time_vs_softmax'] or float('nan'):.2f} | "
              f"{row['tokens_per_s_vs_softmax'] or float('nan'):.2f} | "
              f"{1e3 * row['fwd_bwd_s']:.1f} | {row['step_over_fwd_bwd']:.2f} |")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the time of one compiled train step goes on XLA:CPU: a per-op profile by category.

Runs `syncattn.training.make_train_step` for one model preset under `jax.profiler`
(perfetto trace) with the optimised HLO dumped (`--xla_dump_to`), joins every timed
XLA op of the trace to its HLO instruction (shape, op name, JAX source op), and sums
the op times by category:

* **matmul**: library (YNNPACK/Eigen) dot fusions outside attention;
* **attention dot / elementwise**: the ops on per-head buffers (4-D and more: the
  scores and their mask, softmax and gradient, the per-head products);
* **copy/transpose**: layout copies XLA inserts (e.g. the transposed activations
  the weight gradients are taken from);
* **elementwise**: the other model fusions (norms, RoPE, SiLU, residuals, loss);
* **optimizer/update**: ops outside the gradient (clip, AdamW, the NaN guard);
* **gather / scatter**: the embedding lookup and its gradient, the target pick;
* **cumsum (reduce-window)**: cumulative sums (e.g. the oscillator layer's uniform
  readout fallback), which carry no JAX op name in the optimised HLO.

Op times are thread times summed over XLA's concurrently running thunks, so they
add up to more than the wall time on two cores; read the shares. A loaded machine
inflates every op alike. The concurrency line splits the traced time by what ran at
once: one library op alone (which threads itself), one elementwise fusion alone (one
core, the other idle), two at once, or nothing. `--splits` sets the loss's row blocks
(`syncattn.training.token_nll`; default "auto", what training uses).

Usage:
    python benchmarks/profile_step.py --model softmax --config 1m   # batch 16 x 256
    python benchmarks/profile_step.py --model kuramoto --top 30
    python benchmarks/profile_step.py --model torch --config 1m    # the PyTorch twin, torch.profiler
Prints the categories and the top ops (markdown); --json writes them.
"""

from __future__ import annotations

import argparse
import collections
import glob
import gzip
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path


def _parse_hlo(path):
    info = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"\s*(?:ROOT )?%(\S+) = (\S+?) (\S+?)\(", line)
        if m:
            op_name = re.search(r'op_name="([^"]*)"', line)
            info[m.group(1)] = (m.group(2), m.group(3), op_name.group(1) if op_name else "")
    return info


def category(name, shape, op_name):
    """The category of one HLO op (see the module docstring)."""
    # per-head buffers are 4-D or more (batch, heads, query, key/width); the token-wise
    # layers work on (B*T, d) or (B, T, d)
    dims = shape.split("[", 1)[-1].split("]", 1)[0]
    scores = len(dims.split(",")) >= 4
    if "scatter" in name or "scatter" in op_name:
        return "scatter"
    if "gather" in name or "gather" in op_name:
        return "gather"
    if "reduce-window" in name:  # cumulative sums (XLA drops their JAX op name)
        return "cumsum (reduce-window)"
    library = name.startswith(("ynn_", "xnn_", "dot", "custom-call", "onednn"))
    if "jvp(" not in op_name and not library:
        return "optimizer/update"
    if scores:
        return "attention " + ("dot" if library else "elementwise")
    if library:
        return "matmul"
    if "copy" in name or "transpose" in name:
        return "copy/transpose"
    return "elementwise"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="softmax",
                   choices=("softmax", "oscillator", "kuramoto", "sphere", "group", "frustrated",
                            "frustrated-mf", "torch"),
                   help="torch: the PyTorch twin of the softmax model (benchmarks/torch_lm.py), "
                        "profiled with torch.profiler (needs the `bench` extra)")
    p.add_argument("--config", default="1m")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=None)
    p.add_argument("--steps", type=int, default=3, help="profiled steps")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--json", type=Path)
    p.add_argument("--splits", type=lambda t: t if t == "auto" else int(t), default="auto",
                   help="the loss's row blocks: auto or an int")
    a = p.parse_args(argv)
    if a.model == "torch":
        return profile_torch(a)

    work = Path(tempfile.mkdtemp(prefix="syncattn-profile-"))
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_dump_to={work / 'hlo'}"
                               " --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=^$").strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's syncattn
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

    cfg = models.get_config(a.config, attention=a.model)
    T = a.seq_len or min(256, cfg.max_len)
    model = models.build(cfg, key=jax.random.key(0))
    tc = TrainConfig.preset(a.config, batch_size=a.batch_size, seq_len=T)
    opt = make_optimizer(tc)
    step = make_train_step(opt, pad_id=None, loss=lambda m, t, k: next_token_loss(
        m, t, key=k, splits=a.splits))
    state = [model, opt.init(eqx.filter(model, eqx.is_inexact_array)), jax.random.PRNGKey(0)]
    batch = jnp.asarray(np.random.default_rng(0).integers(0, 256, (a.batch_size, T + 1)), jnp.int32)

    def one():
        m, o, k, met = step(*state, batch)
        jax.block_until_ready(met)
        state[:] = [m, o, k]

    one()
    t0 = time.perf_counter()
    with jax.profiler.trace(str(work / "trace"), create_perfetto_trace=True):
        for _ in range(a.steps):
            one()
    wall = (time.perf_counter() - t0) / a.steps

    hlo = sorted(glob.glob(str(work / "hlo" / "*jit_step*cpu_after_optimizations.txt")))
    if not hlo:
        hlo = sorted(glob.glob(str(work / "hlo" / "*jit_step*after_optimizations.txt")))
    info = _parse_hlo(hlo[-1])
    trace = sorted(glob.glob(str(work / "trace" / "**" / "*.trace.json.gz"), recursive=True))[-1]
    events = json.load(gzip.open(trace))["traceEvents"]
    per_op = collections.Counter()
    for e in events:
        if e.get("ph") == "X" and e["name"] in info:
            per_op[e["name"]] += e.get("dur", 0) / a.steps / 1e3  # ms per step
    total = sum(per_op.values())
    conc = _concurrency([e for e in events if e.get("ph") == "X" and e["name"] in info],
                        a.steps)
    cats = collections.Counter()
    for name, ms in per_op.items():
        cats[category(name, *_shape_op(info[name]))] += ms

    load = os.getloadavg()
    print(f"\n{a.model} {a.config}, batch {a.batch_size} x {T}, jax {jax.__version__}, "
          f"{jax.default_backend()}: wall {1e3 * wall:.0f} ms/step (profiled), op time "
          f"{total:.0f} ms/step summed over threads; 1-min load average {load[0]:.2f}\n")
    print("concurrency (ms/step of traced time): " + ", ".join(
        f"{k} {v:.1f}" for k, v in conc.items()) + "\n")
    _report(a, T, wall, total, load, cats, per_op, "op time", lambda name: (
        info[name][0].split("{")[0], info[name][2].removeprefix("jit(step)/")[-60:]))
    return 0


def _concurrency(ops, steps):
    """Traced time (ms per step) by what ran at once: "library alone" (a library dot
    fusion or custom call), "elementwise alone" (any other fusion: one core), "two or
    more", "none" (between ops)."""
    edges = sorted([(e["ts"], 1, i) for i, e in enumerate(ops)]
                   + [(e["ts"] + e["dur"], -1, i) for i, e in enumerate(ops)])
    lib = ("ynn_", "xnn_", "dot", "custom-call", "onednn", "ffi")
    out = collections.Counter()
    running, last = set(), edges[0][0] if edges else 0
    for t, d, i in edges:
        if running:
            if len(running) > 1:
                key = "two or more"
            else:
                (j,) = running
                kind = "library" if ops[j]["name"].startswith(lib) else "elementwise"
                key = kind + " alone"
            out[key] += (t - last) / steps / 1e3
        elif last != t:
            out["none"] += (t - last) / steps / 1e3
        last = t
        (running.add if d == 1 else running.discard)(i)
    return dict(out.most_common())


def _report(a, T, wall, total, load, cats, per_op, unit, columns=None, **meta):
    """Print the category and top-op tables (markdown) and write --json."""
    print(f"| category | {unit} (ms/step) | share |\n|---|---:|---:|")
    for c, ms in cats.most_common():
        print(f"| {c} | {ms:.1f} | {100 * ms / total:.1f}% |")
    extra = ("shape", "JAX op") if columns else ()
    print("\n| top op | " + "".join(f"{e} | " for e in extra) + "ms/step |\n|---|"
          + "---|" * len(extra) + "---:|")
    for name, ms in per_op.most_common(a.top):
        cells = columns(name) if columns else ()
        print(f"| {name} | " + "".join(f"{c} | " for c in cells) + f"{ms:.2f} |")
    if a.json:
        a.json.write_text(json.dumps({
            "model": a.model, "config": a.config, "batch_size": a.batch_size, "seq_len": T,
            "wall_ms": 1e3 * wall, "op_ms": total, "load_avg": load, **meta,
            "categories": dict(cats), "ops": dict(per_op.most_common(a.top)),
        }, indent=2) + "\n")


TORCH_CATEGORIES = (  # (category, substrings of ATen op names), first match wins
    ("attention", ("scaled_dot_product", "flash_attention", "_efficient_attention")),
    ("matmul", ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear")),
    ("optimizer/update", ("adam", "_foreach", "clip_grad", "norm_")),
    ("copy/transpose", ("aten::copy_", "aten::clone", "aten::contiguous", "aten::t", "transpose")),
)


def profile_torch(a) -> int:
    """The PyTorch twin's step under torch.profiler: self CPU time per ATen op, by category.

    Self times are CPU times summed over PyTorch's intra-op threads (as XLA's op times are
    summed over its thunks); matmul means the GEMM ops, attention the fused
    scaled-dot-product kernels, the rest the elementwise ATen ops (norms, RoPE, SiLU,
    residuals, loss) and their gradients.
    """
    import numpy as np
    import torch
    from torch.profiler import ProfilerActivity, profile

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import torch_lm

    from syncattn import models
    from syncattn.training import TrainConfig

    cfg = models.get_config(a.config, attention="softmax")
    T = a.seq_len or min(256, cfg.max_len)
    model = torch_lm.build(cfg)
    tcfg = TrainConfig.preset(a.config, steps=1000, batch_size=a.batch_size, seq_len=T)
    step = torch_lm.make_train_step(model, tcfg)
    batch = torch.from_numpy(np.random.default_rng(0).integers(0, 256, (a.batch_size, T + 1))).long()
    step(batch)
    t0 = time.perf_counter()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(a.steps):
            step(batch)
    wall = (time.perf_counter() - t0) / a.steps
    per_op = collections.Counter()
    for e in prof.key_averages():
        per_op[e.key] += e.self_cpu_time_total / a.steps / 1e3  # ms per step
    total = sum(per_op.values())
    cats = collections.Counter()
    for name, ms in per_op.items():
        cat = next((c for c, keys in TORCH_CATEGORIES if any(k in name for k in keys)), "elementwise")
        cats[cat] += ms
    load = os.getloadavg()
    print(f"\ntorch {a.config} (the softmax twin), batch {a.batch_size} x {T}, torch "
          f"{torch.__version__}, {torch.get_num_threads()} threads: wall {1e3 * wall:.0f} ms/step "
          f"(profiled), self CPU time {total:.0f} ms/step; 1-min load average {load[0]:.2f}\n")
    _report(a, T, wall, total, load, cats, per_op, "self CPU time", torch=torch.__version__)
    return 0


def _shape_op(entry):
    shape, _, op_name = entry
    return shape, op_name


if __name__ == "__main__":
    sys.exit(main())

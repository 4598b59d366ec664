"""Old against new train step, interleaved: one worker process per checkout, taking turns.

Each checkout (a directory holding a `syncattn` package, e.g. a `git worktree` of
main) gets its own long-lived worker process with that checkout first on its
`sys.path`. A worker builds the model preset, compiles
`syncattn.training.make_train_step` (loss, gradient, clipping, AdamW, NaN guard) on
one fixed batch, and then times `--steps` steps whenever the parent asks. The parent
alternates the workers for `--rounds` rounds (the order flips every round) and
prints, per checkout, the median wall time and the median process CPU time (user +
system) per step, and the ratios old / new. CPU time is the less load-sensitive
number on a shared machine; both are printed with the 1-minute load average. The
first-step losses are printed too: equal losses say both steps compute the same thing.

Usage:
    git worktree add /tmp/old-main main
    python benchmarks/ab_step.py --old /tmp/old-main --new . --model oscillator --config 1m
    python benchmarks/ab_step.py --old /tmp/old-main --new . --model kuramoto --rounds 9 --steps 2
Prints a markdown table; --json writes the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


_WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import equinox as eqx, jax, jax.numpy as jnp, numpy as np
import syncattn
from syncattn import models
from syncattn.training import TrainConfig, make_optimizer, make_train_step

model_name, config, B, T = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
cfg = models.get_config(config, attention=model_name)
T = T or min(256, cfg.max_len)
model = models.build(cfg, key=jax.random.key(0))
tc = TrainConfig.preset(config, batch_size=B, seq_len=T)
opt = make_optimizer(tc)
step = make_train_step(opt, pad_id=None)
state = [model, opt.init(eqx.filter(model, eqx.is_inexact_array)), jax.random.PRNGKey(0)]
batch = jnp.asarray(np.random.default_rng(0).integers(0, 256, (B, T + 1)), jnp.int32)

def one():
    m, o, k, met = step(*state, batch)
    jax.block_until_ready(met)
    state[:] = [m, o, k]
    return met

met = one()  # compiles
first = float(met["loss"]) if isinstance(met, dict) and "loss" in met else float("nan")
print(json.dumps({"ready": True, "file": syncattn.__file__, "loss": first}), flush=True)
for line in sys.stdin:
    n = int(line)
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        one()
    print(json.dumps({"wall": (time.perf_counter() - w0) / n,
                      "cpu": (time.process_time() - c0) / n}), flush=True)
"""


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--old", type=Path, required=True, help="checkout of the old code")
    p.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent)
    p.add_argument("--model", default="oscillator", choices=("softmax", "oscillator", "kuramoto", "sphere", "group"))
    p.add_argument("--config", default="1m")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=0, help="0: min(256, max_len)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--steps", type=int, default=2, help="steps per turn")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)

    names = ("old", "new")
    procs, info = {}, {}
    for name in names:
        path = str(getattr(a, name).resolve())
        procs[name] = subprocess.Popen(
            [sys.executable, "-c", _WORKER, path, a.model, a.config, str(a.batch_size), str(a.seq_len)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": path},
        )
    for name in names:  # both compile in parallel; wait for each
        info[name] = json.loads(procs[name].stdout.readline())
    load0 = os.getloadavg()[0]
    t = {n: {"wall": [], "cpu": []} for n in names}
    t0 = time.perf_counter()
    for i in range(a.rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            procs[name].stdin.write(f"{a.steps}\n")
            procs[name].stdin.flush()
            r = json.loads(procs[name].stdout.readline())
            for key in ("wall", "cpu"):
                t[name][key].append(r[key])
    load1 = os.getloadavg()[0]
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()

    med = {n: {k: _median(v) for k, v in t[n].items()} for n in names}
    print(f"\n{a.model} {a.config}, batch {a.batch_size}, {a.rounds} rounds of {a.steps} "
          f"steps, {time.perf_counter() - t0:.0f} s; 1-min load average {load0:.2f} -> {load1:.2f}")
    for name in names:
        print(f"  {name}: {info[name]['file']}, first-step loss {info[name]['loss']:.6f}")
    print("\n| | old | new | old / new |\n|---|---:|---:|---:|")
    for key, label in (("wall", "wall ms/step"), ("cpu", "CPU ms/step")):
        o, n = 1e3 * med["old"][key], 1e3 * med["new"][key]
        print(f"| {label} | {o:.0f} | {n:.0f} | {o / n:.2f}x |")
    if a.json:
        a.json.write_text(json.dumps({
            "model": a.model, "config": a.config, "batch_size": a.batch_size,
            "rounds": a.rounds, "steps": a.steps, "load_avg": [load0, load1],
            "workers": info, "times": t, "median": med,
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: training throughput of the three LMs against a hand-written PyTorch step.

For each model preset in `--configs` (default "1m"), on the same random byte batch:

* **train step**: `syncattn.training.make_train_step` (loss, gradient, global-norm
  clip, AdamW update, NaN guard), compiled, as `syncattn train` runs it on one
  device, for each attention (softmax, oscillator, kuramoto; or any of
  ``--models``, sphere and group included); tokens/s =
  batch_size * seq_len / step time;
* **PyTorch**: the same RoPE + SwiGLU softmax transformer written flat in PyTorch
  (benchmarks/torch_lm.py: same sizes and parameter count), eager, AdamW with
  clipping: the baseline of the "tokens/s / PyTorch" column (torch is in the
  `bench` extra; without it, or with `--no-torch`, that column is empty);
* **PyTorch compiled** (`--torch-compile`): the same step with its loss (model and
  cross-entropy, forward and backward) through `torch.compile` (Inductor, C++ on the
  CPU), the optimiser eager: the row ``pytorch-compiled`` and its ratio column;
* **fwd+bwd**: `equinox.filter_value_and_grad` of the same loss, compiled, with no
  optimiser: the model's own cost (`--skip-fwd-bwd` leaves it out);
* **kernel on/off** (`--kernel both`, the default on CPU): each model twice, with the
  fused CPU attention kernel (`syncattn._kernels`, the row named by the model) and with
  the pure-XLA attention (``SYNCATTN_ATTENTION_KERNEL=0`` while it is traced: the row
  ``MODEL/xla``), side by side; `--kernel on` / `off` keeps one;
* **row blocks** (`--splits auto|N|both`): the loss's row blocks
  (`syncattn.training.token_nll`; `auto`, the default, is what `syncattn train` uses:
  2 on a multi-core CPU); `both` adds each model with one block (``MODEL/1-block``);
* **one core** (`--cores 1`): the process pinned to its first N cores
  (`os.sched_setaffinity` before XLA starts; PyTorch gets N threads), a run of its own.

Timings are medians over `--repeats` rounds; each round times every model in turn
(interleaved, so a load spike on a shared machine hits all models alike). Compile
time is excluded (a warm-up call first). All ratios are measured side by side in
this one run. The 1-minute load average is recorded before and after: PyTorch's
CPU threads spin-wait, so its step time collapses when other jobs share the cores
(JAX degrades gracefully); compare against PyTorch only with a load average below
about 1.5.

Usage:
    python benchmarks/training.py                       # "1m", batch 16 x 256 ("tiny": 16 x 64), 5 rounds
    python benchmarks/training.py --configs tiny 1m 5m --skip-fwd-bwd   # the PyTorch ratios (< 5 min idle)
    python benchmarks/training.py --configs 5m --batch-size 64   # e.g. on a GPU
    python benchmarks/training.py --models kuramoto sphere group group:u2 --no-torch --skip-fwd-bwd \
        --out benchmarks/results/training-1m-sync.json   # the Lohe models beside Kuramoto
    python benchmarks/training.py --models kuramoto frustrated frustrated:1 frustrated-mf \
        --no-torch --skip-fwd-bwd --out benchmarks/results/training-1m-frustrated.json  # issue 40
    python benchmarks/training.py --models softmax kuramoto oscillator sphere --skip-fwd-bwd \
        --out benchmarks/results/training-1m-kernel.json   # issue 42: the kernel on/off
    python benchmarks/training.py --cores 1 --skip-fwd-bwd --kernel on \
        --out benchmarks/results/training-1m-kernel-1core.json   # issue 42: one core
    python benchmarks/training.py --models softmax kuramoto oscillator sphere --skip-fwd-bwd \
        --kernel on --splits both --torch-compile \
        --out benchmarks/results/training-1m-splits-torch.json   # issue 42: row blocks
Writes benchmarks/results/training[-CONFIG-BACKEND].json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
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
from syncattn._kernels import status as kernel_status
from syncattn._kernels._library import ENV as KERNEL_ENV
from syncattn.training import (
    TrainConfig,
    auto_splits,
    make_optimizer,
    make_train_step,
    next_token_loss,
)


ATTENTIONS = ("softmax", "oscillator", "kuramoto")
"""The default models; ``--models`` also takes ``sphere`` and ``group`` (issue 28's
Lohe models at their presets: $S^3$, SO(3)) and ``frustrated``, ``frustrated-mf`` (issue
40; ``frustrated:M`` for another number of harmonics than the preset's 1)."""


def _block(tree):
    jax.block_until_ready(jax.tree.leaves(eqx.filter(tree, eqx.is_array)))


def model_config(spec, config):
    """The preset `config` for a ``--models`` entry: an attention, or ``group:NAME``
    (``sync.group``, e.g. ``group:u2``), ``sphere:N`` (``sync.sphere_dim``) or
    ``frustrated:M`` / ``frustrated-mf:M`` (``sync.harmonics``)."""
    attention, _, arg = spec.partition(":")
    extra = {}
    if arg:
        field = {"group": "sync.group", "sphere": "sync.sphere_dim",
                 "frustrated": "sync.harmonics", "frustrated-mf": "sync.harmonics"}.get(attention)  # fmt: skip
        if field is None:
            raise SystemExit(f"--models {spec}: only group:NAME, sphere:N and "
                             "frustrated[-mf]:M take a suffix")
        extra[field] = arg
    return models.get_config(config, attention=attention, **extra)


def _splits(text):
    return text if text in ("auto", "both") else int(text)


def _model_spec(spec):
    if spec.partition(":")[0] not in models.ATTENTIONS:
        raise argparse.ArgumentTypeError(f"{spec!r}: an attention of {models.ATTENTIONS}, "
                                         "or group:NAME / sphere:N / frustrated[-mf]:M")
    return spec


def setup(attention, config, batch, dtype, plain=True, kernel=True, splits="auto"):
    """Build and compile (first call) one model's step; `kernel=False` traces it with
    the fused CPU attention switched off (``SYNCATTN_ATTENTION_KERNEL=0``); `splits`:
    the loss's row blocks (`syncattn.training.token_nll`)."""
    old = os.environ.get(KERNEL_ENV)
    if not kernel:
        os.environ[KERNEL_ENV] = "0"
    try:
        return _setup(attention, config, batch, dtype, plain, splits)
    finally:
        if old is None:
            os.environ.pop(KERNEL_ENV, None)
        else:
            os.environ[KERNEL_ENV] = old


def _setup(attention, config, batch, dtype, plain, splits="auto"):
    cfg = model_config(attention, config)
    model = models.build(cfg, key=jax.random.key(0))
    model = models.cast(model, jnp.float32)  # U(n): complex64
    tcfg = TrainConfig.preset(config, steps=1000, batch_size=batch.shape[0],
                              seq_len=batch.shape[1] - 1, compute_dtype=dtype)
    opt = make_optimizer(tcfg)
    step = make_train_step(opt, pad_id=None, compute_dtype=dtype, loss=lambda m, t, k: (
        next_token_loss(m, t, key=k, splits=splits)))
    opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    key = jax.random.PRNGKey(0)

    @eqx.filter_jit
    def fwd_bwd(model, tokens):
        return eqx.filter_value_and_grad(
            lambda m: next_token_loss(m, tokens, splits=splits))(model)

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
    compile_plain = None
    if plain:
        t0 = time.perf_counter()
        run_plain()
        compile_plain = time.perf_counter() - t0
    return {
        "params": models.count_params(model), "step": run_step,
        "plain": run_plain if plain else None,
        "compile_step_s": compile_step, "compile_plain_s": compile_plain,
    }


def setup_torch(config, batch, *, compiled: bool = False):
    """The PyTorch twin's train step on `batch` (None when torch is not installed);
    `compiled`: its loss through `torch.compile` (None, with a notice, where compiling
    fails on this machine, e.g. without a C++ compiler)."""
    try:
        import torch
    except ImportError:
        return None
    sys.path.insert(0, str(Path(__file__).parent))
    import torch_lm

    cfg = models.get_config(config, attention="softmax")
    model = torch_lm.build(cfg)
    tcfg = TrainConfig.preset(config, steps=1000, batch_size=batch.shape[0],
                              seq_len=batch.shape[1] - 1)
    step = torch_lm.make_train_step(model, tcfg, compiled=compiled)
    tb = torch.from_numpy(np.asarray(batch)).long()
    t0 = time.perf_counter()
    try:
        step(tb)
        step(tb)  # a compiled step may recompile once (the optimiser's first state)
    except Exception as e:  # noqa: BLE001 (Inductor raises many kinds)
        if not compiled:
            raise
        print(f"torch.compile failed here ({type(e).__name__}: {str(e)[:200]}): no "
              "compiled PyTorch row", file=sys.stderr)
        return None
    warm = time.perf_counter() - t0
    return {"params": torch_lm.count_params(model), "step": lambda: step(tb),
            "compile_step_s": warm, "compile_plain_s": None, "plain": None,
            "torch": torch.__version__, "threads": torch.get_num_threads()}


def timed(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def run_config(config, a, argv):
    seq_len = a.seq_len or min(256, models.get_config(config).max_len)
    rng = np.random.default_rng(0)
    batch = jnp.asarray(rng.integers(0, 256, (a.batch_size, seq_len + 1)), jnp.int32)
    runs = {}
    kernels = {"on": (True,), "off": (False,), "both": (True, False)}[a.kernel]
    splits = ("auto", 1) if a.splits == "both" else (a.splits,)
    for att in a.models:
        for kernel in kernels:
            for sp in splits:
                name = att if kernel or a.kernel == "off" else f"{att}/xla"
                name += "/1-block" if a.splits == "both" and sp == 1 else ""
                print(f"{config}: compiling {name} ...", file=sys.stderr)
                runs[name] = setup(att, config, batch, a.dtype, plain=not a.skip_fwd_bwd,
                                   kernel=kernel, splits=sp)
                runs[name]["kernel"] = kernel and kernel_status()["enabled"]
                runs[name]["splits"] = auto_splits(a.batch_size) if sp == "auto" else sp
    if a.torch:
        run = setup_torch(config, batch)
        if run is None:
            print("torch is not installed: no PyTorch baseline", file=sys.stderr)
        else:
            runs["pytorch"] = run
            if a.torch_compile:
                print(f"{config}: compiling the PyTorch step (torch.compile) ...",
                      file=sys.stderr)
                run = setup_torch(config, batch, compiled=True)
                if run is not None:
                    runs["pytorch-compiled"] = run
    load_before = os.getloadavg()
    times = {att: {"step": [], "plain": []} for att in runs}
    for r in range(a.repeats):
        for att, run in runs.items():
            times[att]["step"].append(timed(run["step"], a.inner))
            if run["plain"] is not None:
                times[att]["plain"].append(timed(run["plain"], a.inner))
        print(f"{config}: round {r + 1}/{a.repeats} done", file=sys.stderr)
    load_after = os.getloadavg()

    tokens = a.batch_size * seq_len
    rows = {}
    for att, run in runs.items():
        step = statistics.median(times[att]["step"])
        plain = statistics.median(times[att]["plain"]) if times[att]["plain"] else None
        rows[att] = {
            "params": run["params"], "step_s": step, "fwd_bwd_s": plain,
            "tokens_per_s": tokens / step,
            "step_over_fwd_bwd": step / plain if plain else None,
            "compile_step_s": run["compile_step_s"], "compile_plain_s": run["compile_plain_s"],
            "step_s_all": times[att]["step"], "fwd_bwd_s_all": times[att]["plain"],
            "attention_kernel": run.get("kernel"), "splits": run.get("splits"),
        }
    for base_name, key in (("softmax", "softmax"), ("pytorch", "pytorch"),
                           ("pytorch-compiled", "pytorch_compiled"), ("kuramoto", "kuramoto")):
        base = rows.get(base_name)
        for row in rows.values():
            row[f"tokens_per_s_vs_{key}"] = (
                row["tokens_per_s"] / base["tokens_per_s"] if base else None)
    for row in rows.values():
        row["time_vs_softmax"] = (
            row["step_s"] / rows["softmax"]["step_s"] if "softmax" in rows else None)

    backend = jax.default_backend()
    result = {
        "config": config, "batch_size": a.batch_size, "seq_len": seq_len,
        "dtype": a.dtype, "repeats": a.repeats, "inner": a.inner,
        "backend": backend, "devices": [str(d) for d in jax.devices()],
        "jax": jax.__version__, "python": platform.python_version(),
        "torch": runs["pytorch"]["torch"] if "pytorch" in runs else None,
        "torch_threads": runs["pytorch"]["threads"] if "pytorch" in runs else None,
        "cpu_count": os.cpu_count(), "cores": len(os.sched_getaffinity(0)),
        "kernel": kernel_status(),
        "load_avg_before": load_before, "load_avg_after": load_after,
        "command": " ".join(["python", "benchmarks/training.py", *(argv or sys.argv[1:])]),
        "rows": rows,
    }
    out = a.out if (a.out and len(a.configs) == 1) else None
    out = out or Path(__file__).parent / "results" / (
        "training.json" if (config, backend) == ("1m", "cpu") else f"training-{config}-{backend}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")

    fmt = lambda v, f: "" if v is None else format(v, f)  # noqa: E731
    print(f"\nconfig {config}, batch {a.batch_size} x {seq_len}, {a.dtype}, {backend}, "
          f"median of {a.repeats} rounds, 1-min load average {load_before[0]:.2f} before, "
          f"{load_after[0]:.2f} after\n")
    print(f"cores {result['cores']}; attention kernel: {result['kernel']}\n")
    print("| model | kernel | params | train step (ms) | tokens/s | tokens/s / PyTorch | "
          "tokens/s / PyTorch compiled | tokens/s / softmax | tokens/s / kuramoto | "
          "fwd+bwd (ms) | step / fwd+bwd |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for att, row in rows.items():
        name = {"pytorch": "PyTorch (eager)",
                "pytorch-compiled": "PyTorch (torch.compile)"}.get(att, att)
        fb = None if row["fwd_bwd_s"] is None else 1e3 * row["fwd_bwd_s"]
        kern = {True: "on", False: "off", None: ""}[row["attention_kernel"]]
        print(f"| {name} | {kern} | {row['params']:,} | {1e3 * row['step_s']:.1f} | "
              f"{row['tokens_per_s']:,.0f} | {fmt(row['tokens_per_s_vs_pytorch'], '.2f')} | "
              f"{fmt(row['tokens_per_s_vs_pytorch_compiled'], '.2f')} | "
              f"{fmt(row['tokens_per_s_vs_softmax'], '.2f')} | "
              f"{fmt(row['tokens_per_s_vs_kuramoto'], '.2f')} | "
              f"{fmt(fb, '.1f')} | {fmt(row['step_over_fwd_bwd'], '.2f')} |")
    print(f"\nwrote {out}")
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--configs", "--config", nargs="+", default=["1m"],
                   help="model presets, run one after the other (tiny, 1m, 5m)")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--seq-len", type=int, default=None,
                   help="default: 256, or the preset's max_len when shorter (tiny: 64)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--inner", type=int, default=2, help="calls per timing")
    p.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    p.add_argument("--models", "--model", nargs="+", default=list(ATTENTIONS),
                   type=_model_spec,
                   help="the attentions, side by side (default: softmax oscillator "
                   "kuramoto; also sphere, group, and group:u2 or sphere:8 for another "
                   "group or sphere than the preset's)")
    p.add_argument("--no-torch", dest="torch", action="store_false",
                   help="leave out the PyTorch baseline")
    p.add_argument("--torch-compile", action="store_true",
                   help="also the PyTorch step with its loss through torch.compile (the "
                   "row 'pytorch-compiled' and its ratio column)")
    p.add_argument("--skip-fwd-bwd", action="store_true",
                   help="time the train steps only (faster)")
    p.add_argument("--out", type=Path, help="the JSON path (one config only)")
    p.add_argument("--kernel", choices=("on", "off", "both"), default="both",
                   help="the fused CPU attention kernel: on, off (pure XLA), or both "
                   "side by side (rows MODEL and MODEL/xla)")
    p.add_argument("--splits", type=_splits, default="auto",
                   help="the loss's row blocks (syncattn.training.token_nll): auto, an "
                   "int, or both (auto and 1 side by side: rows MODEL and MODEL/1-block)")
    p.add_argument("--cores", type=int, default=None,
                   help="pin the process to its first N cores (e.g. 1)")
    a = p.parse_args(argv)
    if a.cores:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: a.cores])
        try:
            import torch

            torch.set_num_threads(a.cores)
        except ImportError:
            pass
    t0 = time.perf_counter()
    for config in a.configs:
        run_config(config, a, argv)
    print(f"total {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

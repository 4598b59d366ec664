r"""Equal compute (issue 44): the ratio $r$ of the frustrated to the Kuramoto training step,
measured once per control rung and read back ever after (``timing.json``).

The pre-registration's rule: both models at their rung shapes, each through the cells' own
jitted training step (batch ``batch_size`` x ``seq_len``, float32); after compiling and
``timing_warmup`` warm-up steps each, ``timing_rounds`` rounds of ``timing_steps`` steps
of the frustrated model then as many of the Kuramoto model, in one process;

$$r = \operatorname{median}_k \frac{t^{F}_k}{t^{K}_k},$$

recorded to two decimals, the value the ``kuramoto-time`` budget $D = 20\,r\,N$ uses. A
rung's $r$ once in ``timing.json`` (the run's ``--out`` or the committed folder) is never
measured again, so the cells' budget is the same in every session.
"""

from __future__ import annotations

import datetime
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .._common import write_json


TIMING = "timing.json"
"""The file of the recorded timings, beside ``config.json``."""


def ratio_of_rounds(rounds: Sequence[dict]) -> dict:
    r"""$r$ from the rounds ``[{"frustrated_s": t^F_k, "kuramoto_s": t^K_k}]``: the median
    of $t^F_k / t^K_k$ (``r_exact``) and its value to two decimals (``r``).

    Raises:
        ValueError: no rounds, or a time that is not > 0.
    """
    if not rounds:
        raise ValueError("rounds must be non-empty.")
    if any(not (x["frustrated_s"] > 0 and x["kuramoto_s"] > 0) for x in rounds):
        raise ValueError(f"every round's times must be > 0; got {list(rounds)}.")
    exact = statistics.median(x["frustrated_s"] / x["kuramoto_s"] for x in rounds)
    return {"r_exact": exact, "r": round(exact, 2)}


def alternate(
    step_f: Callable[[], None],
    step_k: Callable[[], None],
    rounds: int,
    steps: int,
    warmup: int,
    clock: Callable[[], float] = time.perf_counter,
) -> list[dict]:
    """`warmup` calls of each step, then `rounds` rounds of `steps` calls of `step_f`
    followed by `steps` calls of `step_k`, each block timed by `clock` (each call returns
    once its step is done); ``[{"frustrated_s", "kuramoto_s", "ratio"}]`` per round."""
    for fn in (step_f, step_k):
        for _ in range(warmup):
            fn()
    out = []
    for _ in range(rounds):
        times = []
        for fn in (step_f, step_k):
            t0 = clock()
            for _ in range(steps):
                fn()
            times.append(clock() - t0)
        out.append(
            {
                "frustrated_s": times[0],
                "kuramoto_s": times[1],
                "ratio": times[0] / times[1],
            }
        )
    return out


def cell_step(cell) -> tuple[Callable[[], None], dict]:
    """The training step of `cell` as its training loop runs it, compiled: the run spec
    of the cell's settings ([`syncattn.training.make_spec`][]), its model (seed
    ``train.seed``, float32), AdamW on its schedule and the jitted step
    ([`syncattn.training.make_train_step`][] on the language-model task's loss), the
    state replicated on the data mesh; one call shards the next training batch (drawn
    in advance), applies the step and reads its metrics back to the host (as the loop
    does every step). Returns ``(step, info)`` with the parameter count and the
    compile time (the first call)."""
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    import numpy as np

    from ... import models
    from ...training import (
        cast_floating,
        data_mesh,
        language_model_task,
        make_optimizer,
        make_spec,
        make_train_step,
        replicate,
        shard_batch,
        validate_run,
    )

    spec, corpus = make_spec(
        cell.model,
        cell.config,
        data=cell.data,
        data_path=cell.data_path,
        steps=cell.steps,
        seed=cell.seed,
        overrides=cell.overrides,
    )
    mcfg, tcfg = validate_run(spec, corpus)
    task = language_model_task(corpus, tcfg)
    model = cast_floating(models.build(mcfg, key=jax.random.key(tcfg.seed)), "float32")
    opt = make_optimizer(tcfg)
    step = make_train_step(opt, compute_dtype=tcfg.compute_dtype, loss=task.loss)
    mesh = data_mesh(None)
    opt_state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    state = {
        "model": replicate(model, mesh),
        "opt": replicate(opt_state, mesh),
        "key": replicate(jnp.asarray(jax.random.PRNGKey(tcfg.seed + 1)), mesh),
        "s": 0,
    }
    batches = [np.asarray(task.sample_batch(s)) for s in range(64)]

    def run() -> None:
        batch = shard_batch(batches[state["s"] % len(batches)], mesh)
        m, o, k, metrics = step(state["model"], state["opt"], state["key"], batch)
        jax.device_get(metrics)  # the loop reads loss and gradient norm every step
        state.update(model=m, opt=o, key=k, s=state["s"] + 1)

    t0 = time.perf_counter()
    run()
    info = {
        "cell": cell.name,
        "params": models.count_params(model),
        "compute_dtype": tcfg.compute_dtype,
        "batch": [tcfg.batch_size, tcfg.seq_len],
        "compile_s": time.perf_counter() - t0,
    }
    return run, info


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def measure_rung(config, cells: dict) -> dict:
    """The timing record of one rung: `cells` ``{"frustrated": cell, "kuramoto":
    cell}`` (the frustrated family's and the Kuramoto family's cells at the rung), their
    steps ([`cell_step`][syncattn.experiments.frustrated._timing.cell_step]) compiled,
    warmed up and timed alternately ([`alternate`][syncattn.experiments.frustrated._timing.alternate])
    over ``config.timing_rounds`` rounds of ``config.timing_steps`` steps; $r$
    ([`ratio_of_rounds`][syncattn.experiments.frustrated._timing.ratio_of_rounds]),
    the 1-minute load average before and after, the machine, the commit and the date."""
    import jax

    from .._protocol import provenance

    before = _load()
    step_f, info_f = cell_step(cells["frustrated"])
    step_k, info_k = cell_step(cells["kuramoto"])
    rounds = alternate(
        step_f, step_k, config.timing_rounds, config.timing_steps, config.timing_warmup
    )
    made = provenance()
    return {
        **ratio_of_rounds(rounds),
        "rounds": rounds,
        "rule": (
            f"median over {config.timing_rounds} rounds of (time of {config.timing_steps} "
            f"frustrated steps / time of {config.timing_steps} Kuramoto steps), alternating "
            f"in one process, after compiling and {config.timing_warmup} warm-up steps each"
        ),
        "models": {"frustrated": info_f, "kuramoto": info_k},
        "load_before": before,
        "load_after": _load(),
        "cpu_count": os.cpu_count(),
        "device": str(jax.devices()[0].device_kind),
        "backend": made["backend"],
        "platform": made["platform"],
        "commit": made["commit"],
        "packages": made["packages"],
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
    }


# --------------------------------------------------------------------------- the record


def read_timing(*folders) -> dict:
    """The rungs recorded in ``FOLDER/timing.json`` of `folders` (``None`` skipped):
    ``{rung: record}``, a rung of an earlier folder kept over a later one's."""
    out: dict = {}
    for folder in reversed([f for f in folders if f is not None]):
        path = Path(folder) / TIMING
        if path.is_file():
            out |= json.loads(path.read_text()).get("rungs", {})
    return out


def write_timing(folder, rungs: dict) -> Path:
    """``FOLDER/timing.json``: ``{"experiment", "r": {rung: r}, "rungs": {rung:
    record}}``."""
    payload = {
        "experiment": "frustrated",
        "r": {k: v["r"] for k, v in rungs.items()},
        "rungs": rungs,
    }
    Path(folder).mkdir(parents=True, exist_ok=True)
    return write_json(Path(folder) / TIMING, payload)

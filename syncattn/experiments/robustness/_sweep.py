"""The sweep: each non-ideality alone, at each strength, a few substrate draws, resumable.

The results of one model go to ``OUT/sweeps/TASK-LABEL.json`` point by point (each
point written as soon as it is measured, atomically), so an interrupted run resumes at
the next unmeasured point; a finished file is read back and nothing is re-measured.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..._outputs import progress as progress_bar, to_jsonable


NONIDEALITIES = (
    "noise",
    "coupling_mismatch",
    "frequency_disorder",
    "settle_time",
    "readout_bits",
)
"""The sweep's non-idealities: the fields of [`syncattn.nn.Substrate`][] they set."""

HARSHER = {
    "noise": "larger",
    "coupling_mismatch": "larger",
    "frequency_disorder": "larger",
    "settle_time": "smaller",
    "readout_bits": "smaller",
}
"""Which way a strength is harsher (less settling time and fewer bits are worse)."""

STOCHASTIC = {"noise", "coupling_mismatch", "frequency_disorder"}
"""Non-idealities drawn from the substrate key (several draws per point). The finite
settling starts from the layer's own start $z_0$ (``key(ode_seed)`` at inference, not
the substrate key) and the quantiser is deterministic: one draw each."""

DYNAMIC = {"noise", "frequency_disorder"}
"""Non-idealities that run the query's dynamics numerically (an SDE or ODE per point):
the costly ones, which may be measured on a subset of the validation data."""

SYMBOLS = {
    "noise": "sigma",
    "coupling_mismatch": "eps",
    "frequency_disorder": "||Omega||",
    "settle_time": "T_set",
    "readout_bits": "bits",
}


def substrate(kind: str, strength):
    """The substrate with non-ideality `kind` at `strength` and every other one ideal."""
    from ... import nn

    value = int(strength) if kind == "readout_bits" else float(strength)
    return nn.Substrate(**{kind: value})


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _save(path: Path, payload: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(to_jsonable(payload), indent=2) + "\n")
    os.replace(tmp, path)


def sweep(
    path: Path,
    model,
    scorer,
    grids: dict,
    *,
    draws: int,
    seed: int,
    perturb,
    applies,
    measure: bool = True,
    progress: bool = True,
    desc: str = "sweep",
    dynamic_scorer=None,
) -> dict:
    """Measure `model` under each non-ideality of `grids` (``{kind: strengths}``).

    Args:
        path: the model's sweep file (read back and extended).
        model: the trained model.
        scorer: its [`Scorer`][syncattn.experiments.robustness._models.Scorer].
        grids: the strengths of each non-ideality.
        draws: substrate draws per point of a stochastic non-ideality.
        seed: the substrate keys' seed; draw ``i`` of point ``j`` of non-ideality ``k``
            uses ``fold_in(fold_in(fold_in(key(seed), k), j), i)``, the same for every
            model (paired comparisons).
        perturb: ``perturb(model, kind, strength, key) -> (perturbed, settings)``: the
            model under that non-ideality (for the oscillator models a
            [`syncattn.nn.with_substrate`][] copy, whose draws come from the scorer's
            key; the softmax analogue takes its draw from `key`), and the settings
            used (recorded beside the point, e.g. the noise's horizon and step).
        applies: ``applies(kind) -> bool``: whether this model has the non-ideality
            (softmax has no oscillator state to perturb for most of them).
        measure: ``False``: only read back what `path` holds (the ideal is still measured).
        dynamic_scorer: the scorer of the [`DYNAMIC`][syncattn.experiments.robustness._sweep.DYNAMIC]
            non-idealities (a subset of the data; ``None``: `scorer`), whose ideal is
            measured on it too (``"ideal_dynamic"``).

    Returns:
        ``{"ideal": metric, "points": {kind: {strength: [metric per draw]}},
        "settings": {kind: {strength: settings}}, "seconds": {kind: {strength: {"wall",
        "cpu"}}}}`` (and ``"ideal_dynamic"``; the seconds of each point's draws, with their
        compilation; CPU of the whole process, every thread).
    """
    import time

    import jax

    state = _load(path)
    state.setdefault("points", {})
    state.setdefault("settings", {})
    state.setdefault("seconds", {})
    if "ideal" not in state:
        state["ideal"] = scorer(model, None)
        _save(path, state)
    if (
        dynamic_scorer is not None
        and "ideal_dynamic" not in state
        and any(k in DYNAMIC for k in grids)
    ):
        state["ideal_dynamic"] = dynamic_scorer(model, None)
        _save(path, state)
    todo = [
        (k, j, s)
        for k in grids
        if applies(k)
        for j, s in enumerate(grids[k])
        if measure and str(s) not in state["points"].get(k, {})
    ]
    base = jax.random.key(seed)
    for kind, j, s in progress_bar(todo, desc=desc, total=len(todo), enabled=progress):
        n = draws if kind in STOCHASTIC else 1
        kk = jax.random.fold_in(jax.random.fold_in(base, NONIDEALITIES.index(kind)), j)
        values, settings = [], {}
        score = (
            dynamic_scorer if dynamic_scorer is not None and kind in DYNAMIC else scorer
        )
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(n):
            key = jax.random.fold_in(kk, i)
            perturbed, settings = perturb(model, kind, s, key)
            values.append(score(perturbed, key))
        state["points"].setdefault(kind, {})[str(s)] = values
        state["settings"].setdefault(kind, {})[str(s)] = settings
        state["seconds"].setdefault(kind, {})[str(s)] = {
            "wall": time.perf_counter() - wall,
            "cpu": time.process_time() - cpu,
        }
        _save(path, state)
    return state

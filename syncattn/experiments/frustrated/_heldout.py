r"""The held-out corpus check of the frustrated experiment (pre-registered 2026-12-06,
docs/experiments.md): the final checkpoint of each best-lr cell scored on the whole of a
text no model trained on, the Jargon File (``data.load_corpus("jargon")``).

For a run whose model gives next-byte distributions $p_\phi$, the score of a byte stream
$x_0, \dots, x_{n-1}$ read in windows of $L$ bytes (the project's evaluation,
[`syncattn.data.eval_batches`][]: window $w$ predicts $x_{wL+1}, \dots, x_{wL+L}$ from the
bytes before it in the window, for $w < W = \lfloor (n-1)/L \rfloor$) is
$$\mathrm{BPC} = \frac{-1}{WL \ln 2} \sum_{w<W} \sum_{i=1}^{L}
  \ln p_\phi(x_{wL+i} \mid x_{wL}, \dots, x_{wL+i-1}).$$
The scores are written per cell to ``heldout.json`` (beside the cells, and exported
with them), so a later run or a rebuild reads them instead of needing the checkpoints.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np


HELDOUT = "heldout.json"
"""The file of the held-out scores, ``{"corpus", "cells": {CELL: score}}``."""

CORPUS = "jargon"
"""The held-out corpus (``data.load_corpus`` name)."""


def heldout_tokens(name: str = CORPUS, cache_dir=None) -> np.ndarray:
    """The whole held-out corpus as one byte stream (its train, validation and test
    splits joined back in order: none of it is trained on)."""
    from ... import data

    c = data.load_corpus(name, cache_dir=cache_dir)
    if c.kind != "byte":
        raise ValueError(f"the held-out corpus must be a byte corpus; {name!r} is {c.kind}.")
    parts = [p for p in (c.train, c.val, c.test) if p is not None]
    return np.concatenate([np.asarray(p) for p in parts])


def score_run(run_dir, tokens, *, batch_size: int, seq_len: int) -> dict:
    """The BPC of run `run_dir`'s final checkpoint on the stream `tokens` (module
    docstring), every window once.

    Returns:
        ``{"step", "bpc", "loss", "tokens", "test_bpc"}``: ``test_bpc`` is the run's own
        test-split BPC (its ``result.json``; ``None`` where it has none), so that the
        held-out score and the test score are of the same parameters.

    Raises:
        ValueError: the latest checkpoint is not the run's last step (a cell must be
            finished before it is scored).
    """
    from ... import training

    spec, _, model, step = training.load_run(run_dir)
    if step != spec.train.steps:
        raise ValueError(
            f"{run_dir}: the latest checkpoint is step {step}, not the run's last step "
            f"{spec.train.steps}; finish the cell before scoring it."
        )
    res = training.evaluate(
        model,
        tokens,
        kind="byte",
        pad_id=None,
        batch_size=batch_size,
        seq_len=seq_len,
        compute_dtype=spec.train.compute_dtype,
    )
    from .._grid import read_result

    own = (read_result(run_dir) or {}).get("test") or {}
    return {
        "step": step,
        "bpc": float(res["bpc"]),
        "loss": float(res["loss"]),
        "tokens": int(res["tokens"]),
        "test_bpc": own.get("bpc"),
    }


def read_scores(folder) -> dict:
    """The scores recorded in ``folder/heldout.json`` (``{}`` where there is none)."""
    path = Path(folder) / HELDOUT
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())["cells"]
    except (ValueError, KeyError) as e:
        raise ValueError(f"{path} is corrupt ({e}); delete it to score again.") from e


def write_scores(folder, cells: dict) -> None:
    """Write ``folder/heldout.json`` with the scores `cells` (``{CELL: score}``),
    atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{HELDOUT}.tmp"
    body = {"corpus": CORPUS, "cells": dict(sorted(cells.items()))}
    tmp.write_text(json.dumps(body, indent=1) + "\n")
    os.replace(tmp, folder / HELDOUT)


def cell_name(rung: str, family: str, lr: float, seed: int) -> str:
    """The run folder of a best-lr cell: ``RUNG-FAMILY-lrLR-seedS`` (the walk's names)."""
    return f"{rung}-{family}-lr{lr:g}-seed{seed}"


def rung_cells(rung: dict, families) -> list[str]:
    """The best-lr cells of `families` at the rung `rung` (a report's rung block), every
    seed of the rung; none for a family without a best lr."""
    out = []
    for f in families:
        g = rung["families"][f]
        if g.get("lr") is not None:
            out += [cell_name(rung["name"], f, g["lr"], s) for s in g["seeds"]]
    return out


def summarise(rung: dict, scores: dict, hypotheses, confidence: float) -> dict:
    r"""The held-out check at the rung `rung`, descriptively (pre-registered: not in the
    Holm family, no claims).

    For each family $F$ of `hypotheses`, the held-out BPC $h_{F,s}$ of its best-lr cell of
    seed $s$ (`scores`, ``{CELL: {"bpc", "test_bpc", ...}}``) and their mean and sample
    std; for each hypothesis $(F, X)$, the paired differences $h_{F,s} - h_{X,s}$ over the
    seeds both hold (mean and two-sided t interval at `confidence`) beside two test-split
    means over the same seeds: $\bar\Delta^{\mathrm{test}}$ of the scored checkpoints
    themselves (their ``test_bpc``; the committed value where a score has none) and
    $\bar\Delta^{\mathrm{committed}}$ of the committed cells (`rung`'s
    ``test_by_seed``), which differ where a cell was trained again; and ``same_sign``:
    $\operatorname{sign}\bar\Delta^{\mathrm{held}} = \operatorname{sign}\bar\Delta^{\mathrm{test}}$
    (``None`` without two common seeds).
    """
    from .. import _protocol as protocol
    from .._common import describe_values

    names = sorted({f for _, a, b in hypotheses for f in (a, b)})
    held, test, committed, fams = {}, {}, {}, {}
    for f in names:
        g = rung["families"][f]
        committed[f] = {int(s): v for s, v in g["test_by_seed"].items() if v is not None}
        held[f], test[f] = {}, {}
        for s in g["seeds"] if g.get("lr") is not None else ():
            sc = scores.get(cell_name(rung["name"], f, g["lr"], s))
            if sc is not None:
                held[f][s] = sc["bpc"]
                own = sc.get("test_bpc")
                test[f][s] = committed[f].get(s) if own is None else own
        fams[f] = {
            "lr": g.get("lr"),
            "bpc_by_seed": {str(s): v for s, v in sorted(held[f].items())},
            "bpc": describe_values([held[f][s] for s in sorted(held[f])]),
            "test_by_seed": {str(s): v for s, v in sorted(test[f].items())},
        }
    comps = []
    for h, a, b in hypotheses:
        common = sorted(
            s for s in set(held[a]) & set(held[b])
            if test[a].get(s) is not None and test[b].get(s) is not None
        )
        d = protocol.paired(held[a], held[b], common, confidence)
        t = protocol.paired(test[a], test[b], common, confidence)
        c = protocol.paired(committed[a], committed[b], common, confidence)
        same = None
        if len(common) >= 2:
            same = bool(d["mean"] * t["mean"] > 0)
        comps.append(
            {
                "id": f"{h} {rung['name']}",
                "a": a,
                "b": b,
                "seeds": common,
                "n": d["n"],
                "mean": d["mean"],
                "ci": d["ci"],
                "test_mean": t["mean"],
                "committed_test_mean": c["mean"],
                "same_sign": same,
            }
        )
    return {"corpus": CORPUS, "rung": rung["name"], "families": fams, "comparisons": comps}


def retrain(names, committed, runs, *, progress: bool = True) -> dict:
    """Train again, into ``runs/NAME``, each cell of `names` whose committed result
    ``committed/runs/NAME/result.json`` is here but whose checkpoints are not (the
    project commits results, not parameters), from the cell recorded in that result, and
    return each cell's drift from its committed test BPC.

    The cells are deterministic on one machine and build (seeded initialisation and data
    order), but XLA's CPU reductions may order sums differently on another build, so a
    retrained cell can differ from the committed one by float rounding amplified over
    training; the drift says by how much.

    Returns:
        ``{CELL: {"committed_test_bpc", "test_bpc", "drift"}}`` for each cell of `names`
        with a committed result.

    Raises:
        ValueError: a committed result records no cell, or a retrained cell did not
            finish.
    """
    from tqdm.auto import tqdm

    from .._common import to_jsonable
    from .._grid import TrainCell, _write_result, read_result
    from ._cells import copy_depth_cell

    runs, out = Path(runs), {}
    for name in tqdm(list(names), desc="retrain", disable=not progress):
        theirs = read_result(Path(committed) / "runs" / name)
        if theirs is None:
            continue
        if "cell" not in theirs:
            raise ValueError(f"{committed}/runs/{name}/result.json records no cell.")
        mine = read_result(runs / name)
        if mine is None or not (runs / name / "checkpoints").is_dir():
            cell = TrainCell(**theirs["cell"])
            mine = copy_depth_cell(cell, runs / name)
            _write_result(runs / name, to_jsonable(mine))
        if mine.get("status") != "ok":
            raise ValueError(f"retrained cell {name} did not finish: {mine.get('status')}.")
        a, b = theirs["test"]["bpc"], mine["test"]["bpc"]
        out[name] = {"committed_test_bpc": a, "test_bpc": b, "drift": b - a}
    return out


def score_cells(
    names, runs, folders, *, batch_size: int, seq_len: int, progress: bool = True
) -> dict:
    """Score the cells `names` (run folders ``runs/NAME``) not yet scored in any of
    `folders`, recording each in every folder of `folders` as it is done.

    A cell with no run folder (trained elsewhere, checkpoints not here) is left out
    and stays missing.

    Returns:
        ``{CELL: score}`` for every cell of `names` scored here or before.
    """
    from tqdm.auto import tqdm

    folders = [Path(f) for f in folders]
    have: dict = {}
    for f in folders:
        have.update(read_scores(f))
    todo = [n for n in names if n not in have and (Path(runs) / n / "checkpoints").is_dir()]
    tokens = heldout_tokens() if todo else None
    for name in tqdm(todo, desc="held-out corpus", disable=not progress):
        have[name] = score_run(
            Path(runs) / name, tokens, batch_size=batch_size, seq_len=seq_len
        )
        for f in folders:
            write_scores(f, {**read_scores(f), name: have[name]})
    return {n: have[n] for n in names if n in have}

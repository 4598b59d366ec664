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
        ``{"step", "bpc", "loss", "tokens"}``.

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
    return {
        "step": step,
        "bpc": float(res["bpc"]),
        "loss": float(res["loss"]),
        "tokens": int(res["tokens"]),
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


def _write(folder: Path, cells: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{HELDOUT}.tmp"
    body = {"corpus": CORPUS, "cells": dict(sorted(cells.items()))}
    tmp.write_text(json.dumps(body, indent=1) + "\n")
    os.replace(tmp, folder / HELDOUT)


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
            _write(f, {**read_scores(f), name: have[name]})
    return {n: have[n] for n in names if n in have}

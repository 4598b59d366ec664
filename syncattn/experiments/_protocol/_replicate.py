r"""Re-run one committed cell at today's code and report how far its numbers moved.

``syncattn experiment NAME replicate=CELL [committed=DIR] [--out OUT]`` reads
``DIR/runs/CELL/result.json`` (default ``DIR``: the checkout's
``results/experiments/NAME/NAME-default``), rebuilds the cell from the settings recorded
there, trains it afresh into ``OUT/runs/CELL`` with the experiment's cell function, and
writes ``OUT/replicate.json``: both results' scores, their provenance, and the
difference of every score, replicated minus committed,

$$\Delta_k = x_k^{\text{today}} - x_k^{\text{committed}}.$$

A cell is a pure function of its settings on one machine and code, so $\Delta = 0$ at the
code and package versions that made it; a $\Delta \ne 0$ measures the drift of the code,
the packages or the machine since ([`syncattn.experiments._protocol.provenance`][]).
"""

from __future__ import annotations

import dataclasses
import math
import shutil
from pathlib import Path

from .._common import write_json
from .._grid import read_result
from ._provenance import provenance


def _scores(result: dict) -> dict[str, float]:
    """``{"val.bpc": x, "test.loss": y, "train_loss": z, "params": n, "step": s, ...}``:
    every number of a result's scores."""
    out = {k: float(result[k]) for k in ("train_loss", "params", "step") if k in result}
    for split in ("val", "test"):
        for k, v in (result.get(split) or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[f"{split}.{k}"] = float(v)
    return out


def difference(committed: dict, replicated: dict) -> dict[str, float]:
    """``{score: replicated - committed}`` over the scores both results hold
    (``_scores``), and ``curve.METRIC`` = the largest $|\\Delta|$ along the two
    evaluation curves at the steps both hold."""
    a, b = _scores(committed), _scores(replicated)
    out = {k: b[k] - a[k] for k in a if k in b}
    ca = {p["step"]: p for p in committed.get("curve") or []}
    cb = {p["step"]: p for p in replicated.get("curve") or []}
    steps = sorted(set(ca) & set(cb))
    metrics = {k for p in ca.values() for k in p if k != "step"}
    for m in sorted(metrics):
        diffs = [abs(cb[s][m] - ca[s][m]) for s in steps if m in ca[s] and m in cb[s]]
        if diffs:
            out[f"curve.{m}"] = max(diffs)
    return out


def _cell_and_function(exp, raw: dict):
    """The experiment's cell function and its cell, rebuilt from the committed settings
    (the cell type read from the function's annotation of its ``cell`` argument)."""
    import typing

    if isinstance(exp, str):
        from .._registry import experiment

        exp = experiment(exp)
    if not getattr(exp, "committed_cells", True) or exp.cell is None:
        raise ValueError(f"replicate: experiment {exp.name!r} has no committed protocol cells.")
    klass = typing.get_type_hints(exp.cell).get("cell")
    if klass is None or not dataclasses.is_dataclass(klass):
        raise ValueError(
            f"replicate: experiment {exp.name!r}'s cell function does not name its cell "
            f"type; it has no committed protocol cells to re-run."
        )
    fields = {f.name for f in dataclasses.fields(klass)}
    return exp.name, klass(**{k: v for k, v in raw.items() if k in fields}), exp.cell


def replicate(name, cell: str, src, out) -> dict:
    """Re-run committed cell `cell` of experiment `name` (a registered name or an
    [`Experiment`][syncattn.experiments._protocol.Experiment]) from folder `src` into
    ``OUT/runs/CELL`` (emptied first: a fresh training, not a resumed one); write and
    return ``OUT/replicate.json``: ``committed`` and ``replicated`` (scores and
    provenance; a cell committed before the record existed has ``None``), ``difference``
    ([`difference`][syncattn.experiments._protocol._replicate.difference]), ``identical``
    (every difference 0) and ``wall_s``.

    Raises:
        FileNotFoundError: no ``SRC/runs/CELL/result.json``.
        ValueError: an experiment without protocol cells, or a committed cell that did not
            finish.
    """
    import time

    src, out = Path(src), Path(out)
    theirs = read_result(src / "runs" / cell)
    if theirs is None:
        raise FileNotFoundError(
            f"replicate: no {src / 'runs' / cell / 'result.json'}; give a cell "
            f"committed there (or committed=DIR)."
        )
    if theirs.get("status") != "ok":
        raise ValueError(
            f"replicate: cell {cell} did not finish ({theirs.get('status')!r})."
        )
    name, c, fn = _cell_and_function(name, theirs["cell"])
    folder = out / "runs" / cell
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    made = provenance()  # the code that trains it: this process's, taken before it runs
    t0 = time.perf_counter()
    mine = dict(fn(c, folder))
    wall = time.perf_counter() - t0
    diff = difference(theirs, mine)
    payload = {
        "experiment": name,
        "cell": cell,
        "committed_from": str(src),
        "committed": {
            "scores": _scores(theirs),
            "provenance": theirs.get("provenance"),
        },
        "replicated": {"scores": _scores(mine), "provenance": made},
        "difference": diff,
        "identical": all(v == 0 for v in diff.values()),
        "wall_s": wall,
    }
    write_json(out / "replicate.json", payload)
    return payload


def summary(payload: dict) -> str:
    """The differences in a few lines."""
    lines = [
        f"replicate {payload['experiment']} {payload['cell']} "
        f"(committed in {payload['committed_from']}): "
        + ("identical" if payload["identical"] else "differs")
    ]
    before, now = payload["committed"]["scores"], payload["replicated"]["scores"]
    for k, d in payload["difference"].items():
        was = "" if k not in before else f"{before[k]:.6g} -> {now[k]:.6g}, "
        lines.append(
            f"  {k}: {was}difference {d:+.6g}" if math.isfinite(d) else f"  {k}: {d}"
        )
    made = payload["committed"]["provenance"]
    lines.append(
        "  committed cell made at "
        + (made["commit"] if made else "an unrecorded commit")
    )
    lines.append(f"  replicated at {payload['replicated']['provenance']['commit']}")
    return "\n".join(lines)


def command(args, default_out) -> int:
    """``syncattn experiment NAME replicate=CELL [committed=DIR] [--out OUT]``: 2 on a
    usage error (another KEY=VALUE, a missing cell)."""
    import sys

    items = dict(o.split("=", 1) for o in args.overrides if "=" in o)
    extra = sorted(set(items) - {"replicate", "committed"}) + [
        o for o in args.overrides if "=" not in o
    ]
    if extra or args.from_results is not None:
        print(
            f"syncattn experiment: replicate=CELL takes only committed=DIR and --out; got {extra or '--from-results'}.",
            file=sys.stderr,
        )
        return 2
    root = Path(__file__).resolve().parents[3] / "results" / "experiments"
    src = Path(items.get("committed") or root / args.name / f"{args.name}-default")
    out = args.out or default_out(args.name, "replicate")
    try:
        payload = replicate(args.name, items["replicate"], src, out)
    except (ValueError, FileNotFoundError) as e:
        print(f"syncattn experiment: {e}", file=sys.stderr)
        return 2
    print(summary(payload))
    print(f"wrote replicate.json to {out} in {payload['wall_s']:.1f} s")
    return 0

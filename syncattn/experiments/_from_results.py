"""``syncattn experiment NAME --from-results DIR``: an experiment's tables and plots from
its committed results alone (``config.json`` and ``runs/CELL/result.json``), no training."""

from __future__ import annotations

import json
from pathlib import Path

from ._grid import read_result


def committed_config(module, src) -> tuple[object, dict]:
    """``(config, raw)``: the ``module.Config`` recorded in ``SRC/config.json`` (lists read
    back as tuples) and the file's contents.

    Raises:
        FileNotFoundError: `src` holds no ``config.json``, or one of another experiment.
    """
    src = Path(src)
    path = src / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{src} holds no config.json: pass a {module.NAME} output folder.")
    try:
        raw = json.loads(path.read_text())
    except ValueError as e:
        raise FileNotFoundError(f"{path} is not readable JSON ({e}).") from e
    if raw.get("experiment") != module.NAME:
        raise FileNotFoundError(
            f"{path} is not a {module.NAME} config (experiment {raw.get('experiment')!r}).")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in raw["config"].items()}
    return module.Config(**fields), raw


def committed_results(src, cells) -> list[dict]:
    """Each cell's ``SRC/runs/CELL/result.json``; ``{"status": "missing"}`` where absent."""
    return [read_result(Path(src) / "runs" / c.name) or {"status": "missing"} for c in cells]

"""``syncattn experiment NAME --from-results DIR``: an experiment's tables and plots from
its committed results alone (``config.json`` and ``runs/CELL/result.json``), no training."""

from __future__ import annotations

import json
from pathlib import Path

from ._grid import read_result


def committed_config(module, src) -> tuple[object, dict]:
    """``(config, raw)``: the ``module.Config`` recorded in ``SRC/config.json`` (lists read
    back as tuples) and the file's contents
    ([`read_config`][syncattn.experiments._from_results.read_config] of ``module.NAME``).

    Raises:
        FileNotFoundError: `src` holds no ``config.json``, or one of another experiment.
    """
    return read_config(module.NAME, module.Config, src)


def read_config(name: str, config_type: type, src) -> tuple[object, dict]:
    """``(config, raw)``: the `config_type` of experiment `name` recorded in
    ``SRC/config.json`` (lists read back as tuples) and the file's contents.

    Raises:
        FileNotFoundError: `src` holds no ``config.json``, or one of another experiment.
    """
    src = Path(src)
    path = src / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"{src} holds no config.json: pass a {name} output folder.")
    try:
        raw = json.loads(path.read_text())
    except ValueError as e:
        raise FileNotFoundError(f"{path} is not readable JSON ({e}).") from e
    if raw.get("experiment") != name:
        raise FileNotFoundError(
            f"{path} is not a {name} config (experiment {raw.get('experiment')!r}).")
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in raw["config"].items()}
    return config_type(**fields), raw


def committed_results(src, cells) -> list[dict]:
    """Each cell's ``SRC/runs/CELL/result.json``; ``{"status": "missing"}`` where absent."""
    return [read_result(Path(src) / "runs" / c.name) or {"status": "missing"} for c in cells]

"""A run's ``log.jsonl`` (what [`syncattn.training.fit`][] writes): read it, cut it back
to a restored step, and find the training losses a checkpoint carries."""

from __future__ import annotations

import json
from pathlib import Path

from ._files import atomic_write


__all__ = ["read_log", "truncate_log", "pending_losses"]


def read_log(path: str | Path) -> list[dict]:
    """The records of a ``log.jsonl``; a torn last line (killed mid-write) is skipped."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def truncate_log(path: Path, step: int) -> None:
    """Keep the records of ``path`` up to `step` (a resumed run's log describes one run)."""
    records = [r for r in read_log(path) if r.get("step", 0) <= step]
    atomic_write(path, "".join(json.dumps(r) + "\n" for r in records))


def pending_losses(log_path: Path, step: int) -> list[float]:
    """The training losses since the last evaluation that the ``train_losses`` record of
    checkpoint `step` carries (none when `step` is an evaluation step)."""
    records = read_log(log_path)
    if any(r.get("kind") == "eval" and r.get("step") == step for r in records):
        return []
    found = [r for r in records if r.get("kind") == "train_losses" and r.get("step") == step]
    return list(found[-1]["losses"]) if found else []

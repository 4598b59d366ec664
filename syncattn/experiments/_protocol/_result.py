"""One cell's result: its status, its scores, its convergence record."""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from typing import Any


class Status(enum.StrEnum):
    """How a cell ended: ``OK`` (trained and scored), ``DIVERGED`` (the loss became
    NaN/inf: a deterministic outcome, recorded), ``MISSING`` (no result: not run, or not
    in the folder a rebuild reads)."""

    OK = "ok"
    DIVERGED = "diverged"
    MISSING = "missing"


@dataclasses.dataclass(frozen=True)
class CellResult:
    """One cell's result: its status and the contents of its ``result.json``.

    Attributes:
        status: a [`Status`][syncattn.experiments._protocol.Status].
        data: the result as the cell function returned it (``{"status": "missing"}``
            for a missing one).
    """

    status: Status
    data: Mapping[str, Any]

    @classmethod
    def of(cls, raw: CellResult | Mapping[str, Any] | None) -> CellResult:
        """The result of a ``result.json`` (``None``: missing; a `CellResult`: itself).

        Raises:
            ValueError: a status that is not one of `Status`.
        """
        if isinstance(raw, CellResult):
            return raw
        if raw is None:
            return cls(Status.MISSING, {"status": Status.MISSING.value})
        try:
            status = Status(raw.get("status"))
        except ValueError:
            raise ValueError(
                f"a cell result's status must be one of "
                f"{[s.value for s in Status]}; got {raw.get('status')!r}."
            ) from None
        return cls(status, raw)

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    def get(self, key: str, default=None):
        """``data[key]`` (`default` when absent)."""
        return self.data.get(key, default)

    def __getitem__(self, key: str):
        return self.data[key]

    def score(self, split: str, metric: str) -> float:
        """The final `metric` on `split` (``"val"`` or ``"test"``); NaN unless the cell
        finished and recorded it."""
        if not self.ok or metric not in (self.data.get(split) or {}):
            return math.nan
        return float(self.data[split][metric])


def converged(config, result, metric: str = "bpc") -> dict | None:
    r"""The convergence record of a cell from its evaluation curve of `metric`:
    [`syncattn.stats.relative_improvement`][] over the last ``config.window`` of its
    steps, $\rho$, and ``converged`` = $\rho <$ ``config.tol`` (``None``: no curve of
    two points, or the cell did not finish)."""
    from ... import stats

    r = CellResult.of(result)
    curve = r.get("curve") if r.ok else None
    if not curve or len(curve) < 2:
        return None
    got = stats.relative_improvement(
        [p["step"] for p in curve], [p[metric] for p in curve], config.window
    )
    return got | {"converged": got["improvement"] < config.tol}

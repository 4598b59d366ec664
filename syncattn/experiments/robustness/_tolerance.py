r"""The tolerance of a model to a non-ideality: where its metric has lost the allowed amount.

A sweep gives the metric $m(s)$ at strengths $s_1, \dots, s_n$ beside the ideal
$m_0$. The *loss* is $\ell(s) = m_0 - m(s)$ in points for an accuracy (percent),
$\ell(s) = m(s)/m_0 - 1$ for a perplexity or BPC (a relative increase). Ordered from
the mildest strength to the harshest (ascending for noise, mismatch and disorder;
descending for the settling time and the readout bits, where less is worse), the
tolerance is where $\ell$ first reaches the limit $\ell^\ast$ (1 point, or 1 %),
interpolated linearly in $\log s$ between the last point below the limit and the first
at or above it:

$$s^\ast = \exp\Bigl(\log s_{i-1} + \frac{\ell^\ast - \ell_{i-1}}{\ell_i - \ell_{i-1}}
  (\log s_i - \log s_{i-1})\Bigr).$$

When no point reaches the limit the model tolerates the whole sweep (``"beyond"``: the
harshest strength bounds the tolerance); when the mildest point already reaches it, the
mildest strength bounds it from the other side (``"within"``).
"""

from __future__ import annotations

import math

import numpy as np


def loss(metric: str, ideal: float, values) -> np.ndarray:
    """$\\ell$: points lost (``"acc_hard"``, percent) or the relative increase (``"ppl"``, ``"bpc"``)."""
    v = np.asarray(values, dtype=float)
    if metric.startswith("acc"):
        return ideal - v
    if metric in ("ppl", "bpc"):
        return v / ideal - 1.0
    raise ValueError(
        f"metric must be an accuracy (acc_*) or 'ppl'/'bpc'; got {metric!r}."
    )


def tolerance(strengths, losses, limit: float, *, harsher: str = "larger") -> dict:
    """The strength $s^\\ast$ at which `losses` first reach `limit` (see the module).

    Args:
        strengths: the sweep's strengths, positive, in any order.
        losses: $\\ell$ at each strength (NaN: a failed point, treated as over the limit).
        limit: $\\ell^\\ast > 0$.
        harsher: ``"larger"`` (a larger strength is harsher) or ``"smaller"``.

    Returns:
        ``{"status", "value", "limit"}``: ``"crossed"`` with the interpolated $s^\\ast$,
        ``"beyond"`` (never reached; value: the harshest strength) or ``"within"``
        (reached at the mildest; value: the mildest strength).

    Raises:
        ValueError: different lengths, no strength, a strength $\\le 0$, a bad `harsher`
            or `limit`.
    """
    s = np.asarray(strengths, dtype=float)
    ell = np.asarray(losses, dtype=float)
    if s.ndim != 1 or s.shape != ell.shape or s.size == 0:
        raise ValueError(
            f"strengths and losses must be non-empty 1-D of one length; got {s.shape}, {ell.shape}."
        )
    if np.any(~(s > 0)):
        raise ValueError(f"strengths must be > 0; got {s.tolist()}.")
    if harsher not in ("larger", "smaller"):
        raise ValueError(f"harsher must be 'larger' or 'smaller'; got {harsher!r}.")
    if not limit > 0:
        raise ValueError(f"limit must be > 0; got {limit!r}.")
    order = np.argsort(s) if harsher == "larger" else np.argsort(-s)
    s, ell = s[order], np.where(np.isnan(ell[order]), np.inf, ell[order])
    over = np.nonzero(ell >= limit)[0]
    if over.size == 0:
        return {"status": "beyond", "value": float(s[-1]), "limit": limit}
    i = int(over[0])
    if i == 0:
        return {"status": "within", "value": float(s[0]), "limit": limit}
    a, b = ell[i - 1], ell[i]
    t = 1.0 if not math.isfinite(b) else (limit - a) / (b - a)
    x = math.log(s[i - 1]) + t * (math.log(s[i]) - math.log(s[i - 1]))
    return {"status": "crossed", "value": float(math.exp(x)), "limit": limit}


def describe(tol: dict, harsher: str = "larger") -> str:
    """``"0.31"``, ``"> 3"`` or ``"< 0.01"`` (``<``/``>`` swapped when smaller is harsher)."""
    v = f"{tol['value']:.3g}"
    if tol["status"] == "crossed":
        return v
    beyond = tol["status"] == "beyond"
    return ("> " if beyond == (harsher == "larger") else "< ") + v

r"""Learning curves: how much a decreasing curve still fell over its last steps."""

from __future__ import annotations

import numpy as np


def relative_improvement(steps, values, window: float = 0.2) -> dict[str, float]:
    r"""How much a decreasing curve (a validation loss) still fell over its last `window` of steps.

    $$s_0 = \max\{s_i : s_i \le (1 - w)\, s_{\max}\},\qquad
      \rho = \frac{v(s_0) - v(s_{\max})}{|v(s_0)|}$$

    with $w$ = `window`, $v(s_{\max})$ the value at the last step. $\rho < 0.01$
    reads "improved by less than 1 % over the last $w$ of its steps". A curve that
    rose has $\rho < 0$.

    Args:
        steps: increasing step numbers, shape `(n,)`, $n \ge 2$.
        values: the curve at those steps, finite, $v(s_0) \ne 0$.
        window: $w \in (0, 1)$.

    Returns:
        `{"from_step", "to_step", "from_value", "to_value", "improvement"}`
        (`improvement` = $\rho$).

    Raises:
        ValueError: shapes differ, fewer than 2 points, steps not increasing, no step
            at or before $(1 - w) s_{\max}$, a non-finite value, a bad `window`.

    Example:
        >>> relative_improvement([0, 80, 100], [3.0, 2.0, 1.99])["improvement"]  # 0.005
    """
    s = np.asarray(steps, dtype=float).reshape(-1)
    v = np.asarray(values, dtype=float).reshape(-1)
    if s.shape != v.shape or s.size < 2:
        raise ValueError(
            f"steps and values must have one shape, >= 2 points; got {s.shape}, {v.shape}."
        )
    if not np.all(np.diff(s) > 0):
        raise ValueError(f"steps must increase; got {s.tolist()}.")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"values must be finite; got {v.tolist()}.")
    if not (isinstance(window, (int, float)) and 0.0 < window < 1.0):
        raise ValueError(f"window must lie in (0, 1); got {window!r}.")
    start = (1.0 - window) * s[-1]
    before = np.nonzero(s <= start * (1 + 1e-12))[0]
    if before.size == 0:
        raise ValueError(
            f"no step at or before {start:g} = (1 - window) * {s[-1]:g}; got {s.tolist()}."
        )
    i = int(before[-1])
    if v[i] == 0:
        raise ValueError("the value at the window's start is 0: no relative change.")
    return {
        "from_step": float(s[i]),
        "to_step": float(s[-1]),
        "from_value": float(v[i]),
        "to_value": float(v[-1]),
        "improvement": float((v[i] - v[-1]) / abs(v[i])),
    }

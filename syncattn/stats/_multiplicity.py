r"""Many tests at once: the paired t test's p-value and Holm's step-down adjustment."""

from __future__ import annotations

import math

import numpy as np


def t_pvalue(values, alternative: str = "two-sided") -> float | None:
    r"""p-value of the one-sample Student t test of mean 0 (on paired differences: the
    paired t test), two-sided or one-sided.

    $$t = \frac{\bar x}{s/\sqrt n}, \qquad
      p_{\ne} = 2\,\big(1 - F_{t,\,n-1}(|t|)\big), \quad
      p_{<} = F_{t,\,n-1}(t), \quad p_{>} = 1 - F_{t,\,n-1}(t),$$

    with $s$ the sample standard deviation ($n - 1$) and $F_{t,\nu}$ Student's
    distribution function; the two-sided test is the one whose acceptance region is
    [`syncattn.stats.t_interval`][] ($p_{\ne} < 1 - c$ exactly when the interval at
    confidence $c$ excludes 0); $p_{<}$ tests $H_0: \mathbb E x \ge 0$ against
    $\mathbb E x < 0$ (a pre-registered direction, issue 40).

    Args:
        values: finite numbers.
        alternative: ``"two-sided"`` ($\mathbb E x \ne 0$), ``"less"``
            ($\mathbb E x < 0$) or ``"greater"`` ($\mathbb E x > 0$).

    Returns:
        $p \in [0, 1]$; ``None`` under 2 values (no spread). $s = 0$ gives 1 when
        $\bar x = 0$ and, otherwise, 0 when $\bar x$ lies on the alternative's side
        (1 when it does not).

    Raises:
        ValueError: a non-finite value, an unknown `alternative`.

    Example:
        >>> t_pvalue([0.10, 0.15, 0.11])  # t = 0.12 / (0.0265 / sqrt 3) = 7.86, 2 dof
        >>> t_pvalue([-0.10, -0.15, -0.11], "less")  # half of the two-sided value
    """
    from scipy.stats import t

    if alternative not in ("two-sided", "less", "greater"):
        raise ValueError(
            "alternative must be 'two-sided', 'less' or 'greater'; "
            f"got {alternative!r}."
        )
    x = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"values must be finite; got {x.tolist()}.")
    if x.size < 2:
        return None
    mean, s = float(x.mean()), float(x.std(ddof=1))
    if s == 0.0:
        if mean == 0.0:
            return 1.0
        side = {"two-sided": True, "less": mean < 0, "greater": mean > 0}
        return 0.0 if side[alternative] else 1.0
    stat = mean / (s / math.sqrt(x.size))
    if alternative == "less":
        return float(t.cdf(stat, x.size - 1))
    if alternative == "greater":
        return float(t.sf(stat, x.size - 1))
    return float(min(1.0, 2.0 * t.sf(abs(stat), x.size - 1)))


def holm(pvalues) -> list[float | None]:
    r"""Holm's step-down adjusted p-values of $m$ tests (family-wise error control).

    With the p-values ordered $p_{(1)} \le \dots \le p_{(m)}$,

    $$\tilde p_{(i)} = \min\Big(1,\ \max_{j \le i}\,(m - j + 1)\,p_{(j)}\Big);$$

    rejecting every test with $\tilde p \le \alpha$ keeps the probability of any false
    rejection at most $\alpha$ under any dependence between the tests. Ties keep their
    input order (the adjusted values of tied p-values are equal either way).

    Args:
        pvalues: p-values in $[0, 1]$; ``None`` entries (a test not made) are passed
            through as ``None`` and do not count in $m$.

    Returns:
        The adjusted p-values, in the input order.

    Raises:
        ValueError: a p-value outside $[0, 1]$ or not a number.

    Example:
        >>> holm([0.01, 0.04, 0.03])  # m = 3: 0.03, max(0.06, 0.04) = 0.06, 0.06
    """
    got = [(i, p) for i, p in enumerate(pvalues) if p is not None]
    bad = [p for _, p in got if not (isinstance(p, (int, float)) and 0.0 <= p <= 1.0)]
    if bad:
        raise ValueError(f"pvalues must lie in [0, 1] (or be None); got {bad}.")
    out: list[float | None] = [None] * len(pvalues)
    m, running = len(got), 0.0
    for rank, (i, p) in enumerate(sorted(got, key=lambda ip: ip[1])):
        running = max(running, min(1.0, (m - rank) * float(p)))
        out[i] = running
    return out

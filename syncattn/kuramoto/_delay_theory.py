r"""The in-phase locked branches of the delayed Kuramoto flow (Yeung-Strogatz).

The flow itself and its integrator: `_delay.py`.
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import check_scalar_range


def delay_locked_frequencies(
    omega: float,
    coupling: float,
    delay: float,
    interval: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Every in-phase locked frequency of the delayed Kuramoto flow in an interval, and its stability.

    $$\Omega = \omega - K\sin(\Omega\tau),\qquad \text{stable} \iff K\cos(\Omega\tau) > 0$$

    For identical oscillators ($\omega_i = \omega$) whose couplings have one row sum
    $\sum_j K_{ij} = K$ (the mean field $K_{ij} = K/N$ among them) and one delay $\tau$,
    $\theta_i(t) = \Omega t + c$ solves the flow iff $\Omega$ solves the first equation
    (Yeung and Strogatz 1999). Linearised there, every perturbation obeys
    $\dot\varphi_i = K\cos(\Omega\tau)\sum_j \frac{K_{ij}}K(\varphi_j(t - \tau) - \varphi_i(t))$;
    for the mean field, a zero-sum mode decays at the rate $K\cos(\Omega\tau)$ and the
    uniform mode's roots $\lambda \neq 0$ of $\lambda + c = c\,e^{-\lambda\tau}$
    ($c = K\cos(\Omega\tau)$) all have $\operatorname{Re}\lambda < 0$ when $c > 0$; when
    $c < 0$ the zero-sum modes grow. So a branch is (linearly, up to the neutral phase
    shift) stable iff $c > 0$ (for $N \ge 2$). Proved in `proofs/proof_delay_locking.py`.

    Every root lies in $[\omega - |K|, \omega + |K|]$ (the default interval). The roots
    are bracketed exactly: $g(\Omega) = \Omega - \omega + K\sin(\Omega\tau)$ is monotone
    between the zeros of $g'(\Omega) = 1 + K\tau\cos(\Omega\tau)$, which are known in
    closed form, so each monotone piece holds at most one root; a sign change is refined
    by `scipy.optimize.brentq` (to 4 ulp), and a root at a turning point (a tangency:
    $g = g' = 0$) is kept when $|g| \le 10^{-12}(1 + |\omega| + |K|)$.

    Args:
        omega: the common natural frequency $\omega$.
        coupling: the row sum $K$ (any sign).
        delay: $\tau \ge 0$.
        interval: `(low, high)`, where to look; default $[\omega - |K|, \omega + |K|]$.

    Returns:
        `(frequencies, stable)`: the roots $\Omega$ in increasing order (float64 numpy)
        and the booleans $K\cos(\Omega\tau) > 0$.

    Raises:
        ValueError: a negative or non-finite `delay`, non-finite `omega` or `coupling`,
            an interval with `low > high` or non-finite ends.

    Example:
        >>> delay_locked_frequencies(1.0, 0.0, 2.0)
        (array([1.]), array([False]))
    """
    w = float(check_scalar_range(float(omega), "omega"))
    K = float(check_scalar_range(float(coupling), "coupling"))
    tau = float(check_scalar_range(float(delay), "delay", low=0.0))
    lo, hi = _search_interval(w, K, interval)
    roots = _roots(w, K, tau, lo, hi)
    return roots, K * np.cos(roots * tau) > 0


def _search_interval(w: float, K: float, interval) -> tuple[float, float]:
    r"""`interval` checked, or $[\omega - |K|, \omega + |K|]$ (where every root lies)."""
    if interval is None:
        return w - abs(K), w + abs(K)
    lo, hi = (float(x) for x in interval)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise ValueError(
            f"interval must be (low, high) with finite low <= high; got {interval!r}."
        )
    return lo, hi


def _monotone_pieces(K: float, tau: float, lo: float, hi: float) -> list[float]:
    r"""The ends of the pieces of `[lo, hi]` on which $g$ is monotone: `lo`, `hi` and the
    turning points of $g$, where $\cos(x\tau) = -1/(K\tau)$, i.e.
    $x\tau = \pm a + 2\pi k$ (sorted, without repeats)."""
    cuts = [lo, hi]
    if K * tau != 0 and abs(K * tau) >= 1:
        a = math.acos(-1.0 / (K * tau))
        period = 2 * math.pi / tau
        for base in (a / tau, -a / tau):
            k0 = math.ceil((lo - base) / period)
            k1 = math.floor((hi - base) / period)
            cuts += [base + k * period for k in range(k0, k1 + 1)]
    return sorted(set(x for x in cuts if lo <= x <= hi))


def _roots(w: float, K: float, tau: float, lo: float, hi: float) -> np.ndarray:
    r"""Every root of $g(x) = x - \omega + K\sin(x\tau)$ in `[lo, hi]`, increasing:
    the piece ends where $|g| \le$ tol (tangencies), and one `brentq` root per monotone
    piece whose ends differ in sign; a root reached from two pieces counted once."""
    from scipy import optimize

    def g(x):
        return x - w + K * math.sin(x * tau)

    cuts = _monotone_pieces(K, tau, lo, hi)
    tol = 1e-12 * (1.0 + abs(w) + abs(K))
    roots = []
    for x in cuts:
        if abs(g(x)) <= tol:
            roots.append(x)
    for a_, b_ in zip(cuts[:-1], cuts[1:]):
        ga, gb = g(a_), g(b_)
        if abs(ga) <= tol or abs(gb) <= tol:
            continue
        if (ga < 0) != (gb < 0):
            roots.append(
                optimize.brentq(
                    g,
                    a_,
                    b_,
                    xtol=4 * np.finfo(float).eps * max(1.0, abs(a_)),
                    rtol=4 * np.finfo(float).eps,
                )
            )
    roots = np.array(sorted(roots), np.float64)
    if roots.size:  # one root reached from two neighbouring pieces
        keep = np.concatenate([[True], np.diff(roots) > 8 * tol])
        roots = roots[keep]
    return roots

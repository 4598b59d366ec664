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
    from scipy import optimize

    w = float(check_scalar_range(float(omega), "omega"))
    K = float(check_scalar_range(float(coupling), "coupling"))
    tau = float(check_scalar_range(float(delay), "delay", low=0.0))
    if interval is None:
        lo, hi = w - abs(K), w + abs(K)
    else:
        lo, hi = (float(x) for x in interval)
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
            raise ValueError(
                f"interval must be (low, high) with finite low <= high; got {interval!r}."
            )

    def g(x):
        return x - w + K * math.sin(x * tau)

    # turning points of g: cos(x tau) = -1 / (K tau), x tau = +-a + 2 pi k
    cuts = [lo, hi]
    if K * tau != 0 and abs(K * tau) >= 1:
        a = math.acos(-1.0 / (K * tau))
        period = 2 * math.pi / tau
        for base in (a / tau, -a / tau):
            k0 = math.ceil((lo - base) / period)
            k1 = math.floor((hi - base) / period)
            cuts += [base + k * period for k in range(k0, k1 + 1)]
    cuts = sorted(set(x for x in cuts if lo <= x <= hi))
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
    return roots, K * np.cos(roots * tau) > 0

r"""Statement 12: the finite-time threshold ||h|| T = log cot(delta/2).

Statement:
    Under z' = (I - z z^T) h with z(0) uniform on S^{d-1}, let L = log cot(delta/2),
    u = ||h|| T - L and T_c = L / ||h|| (the critical horizon).
    (a) phi_c < pi/2 iff u < 0, where tan(phi_c/2) = tan(delta/2) e^{||h|| T}
        = e^u, and cos(phi_c) = -tanh(u).
    (b) Above the threshold (u > 0): P(phi(T) > delta) = cap(pi - phi_c)
        <= exp(-d tanh^2(u) / 2) -> 0 exponentially in d.
        Below it (u < 0): P(phi(T) <= delta) = cap(phi_c) <= exp(-d tanh^2(u) / 2),
        so P(phi(T) > delta) -> 1. At u = 0: P(phi(T) > delta) = 1/2 for every d.
    (c) phi0 concentrates at pi/2: P(|phi0 - pi/2| >= eta) = 2 cap(pi/2 - eta)
        <= 2 exp(-d sin^2(eta) / 2).
    (d) Consequence for random drives: given h, P(phi(T) > delta | h) -> 1{||h|| T < L}
        as d grows; with ||h|| / ||w||_2 -> 1 (statement 11), the fraction of
        unconverged instances tends to P(||w||_2 < L / T) (at continuity points),
        which does not decay in d.

Proof idea:
    (a) tan(delta/2) = e^{-L}; tan(phi_c/2) = 1 iff phi_c = pi/2; and
        cos(phi) = (1 - tan^2(phi/2)) / (1 + tan^2(phi/2)).
    (b) statement 6: P(phi(T) > delta) = P(phi0 > phi_c) = cap(pi - phi_c); the cap
        bound cap(alpha) <= exp(-d cos^2(alpha)/2) on [0, pi/2] (statement 6(b))
        with cos(pi - phi_c) = tanh(u) > 0 above, cos(phi_c) = tanh(-u) > 0 below;
        at u = 0 the cap is a hemisphere.
    (c) the band |phi0 - pi/2| >= eta is two caps of angle pi/2 - eta, and
        cos(pi/2 - eta) = sin(eta).
    (d) (b) pointwise in h, dominated convergence, and the concentration of ||h||.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) the exponential form of the threshold, the
    crossing of pi/2 and cos(phi_c) = -tanh(u) for free u; (b) the cosines of the
    two caps and the hemisphere at u = 0; (c) the band cosine. The cap bound is
    statement 6(b) and the limit (d) is the written argument.
    Numeric (float64): ``lohe.finite_time_threshold`` against the lambdified
    L / ||h|| (and its documented edge values); ``lohe.finite_time_failure_probability``
    equals 1/2 at T_c for d up to 4096, is below exp(-d tanh^2(u)/2) above T_c
    and above 1 - exp(-d tanh^2(u)/2) below it, decreases in d above T_c and
    increases below; the issue's numbers (||h|| T = 2, delta = 0.1: 0.77, 0.88,
    0.991, 1.000 at d = 2, 3, 8, 32); at d = 4096 it is within 1e-6 of the
    indicator 1{||h|| T < L} away from the threshold. Theorem check: Monte Carlo
    on uniform starts through ``lohe.exact_angle`` on both sides of the threshold
    (4 standard errors), and the concentration of phi0 (c).
    Mutation: the proof must reject the threshold log tan(delta/2) and the
    cosine +tanh(u); the numeric check must reject the bound exp(-d tanh^2(u))
    (without the 1/2).

Mirrors: syncattn.lohe.finite_time_threshold,
syncattn.lohe.finite_time_failure_probability.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059), "failure
modes", "dimensional scaling" and "convergence verification" (the numerical
integration is said to confirm that convergence improves with d_osc): the
finite-time failure probability decays in d_osc only above this horizon.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ._harness import (
    CONFIG,
    assert_close,
    assert_fails,
    assert_true,
    assert_zero,
    check,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 12
TITLE = "Finite-time threshold: P(phi(T) > delta) -> 0 if ||h||T > log cot(delta/2), -> 1 below, = 1/2 at it; rate tanh^2(u)/2"
MIRRORS = (
    "syncattn.lohe.finite_time_threshold",
    "syncattn.lohe.finite_time_failure_probability",
)
PARTS = (
    Part(
        "hit",
        "The closed-form angle reaches delta exactly at T = (log tan(phi0/2) - log tan(delta/2)) / ||h||, and at no other time.",
        "coq",
        coq="finite_time_threshold",
    ),
    Part(
        "hit(solutions)",
        "The angle of every solution of z' = (I - z z^T) h on the sphere reaches delta exactly at that T.",
        "coq",
        coq="threshold_along_solutions",
    ),
    Part(
        "horizon",
        "From phi0 = pi/2 the horizon is ||h|| T = log cot(delta/2) (the critical horizon T_c = L / ||h||).",
        "coq",
        coq="threshold_horizon",
    ),
    Part(
        "a(threshold)",
        "tan(phi_c/2) = tan(delta/2) e^{||h|| T} = e^u, and phi_c < pi/2 iff u < 0.",
        "coq",
        coq="critical_start",
    ),
    Part(
        "a(cos)",
        "cos(phi_c) = -tanh(u).",
        "coq",
        coq="threshold_critical_cos",
    ),
    Part(
        "b(rate)",
        "The cap bound of the failing cap (angle pi - phi_c above the threshold, phi_c below) is at most exp(-d tanh^2(u) / 2); at u = 0, phi_c = pi/2.",
        "coq",
        coq="threshold_rate",
    ),
    Part(
        "b(probability)",
        "Above the threshold P(phi(T) > delta) = cap(pi - phi_c) <= exp(-d tanh^2(u)/2) -> 0; below it P(phi(T) <= delta) = cap(phi_c) <= exp(-d tanh^2(u)/2); at u = 0 it is 1/2 for every d.",
        "sympy",
        why="The probabilities need the uniform measure on the sphere and the cap bound cap <= rho^d (statement 6, not formalised); sympy checks the cap cosines and the hemisphere, Monte Carlo the values.",
    ),
    Part(
        "c(rate)",
        "The band's cap bound is rho(pi/2 - eta)^d <= exp(-d sin^2(eta) / 2).",
        "coq",
        coq="band_rate",
    ),
    Part(
        "c(probability)",
        "phi0 concentrates at pi/2: P(|phi0 - pi/2| >= eta) = 2 cap(pi/2 - eta) <= 2 exp(-d sin^2(eta) / 2).",
        "sympy",
        why="A probability under the uniform measure on the sphere, not formalised; sympy checks the band cosine, Monte Carlo the concentration.",
    ),
    Part(
        "d",
        "For random drives the unconverged fraction tends to P(||w||_2 < L / T), which does not decay in d.",
        "measured",
        why="A limit in distribution (dominated convergence and the concentration of ||h||, statement 11): the written argument plus numerical checks at d up to 4096.",
    ),
)
# SHA-256 of proofs/coq/finite_time_threshold_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "f4e2848ecbf39dd61c2ab677f54d300c815c8b7db813d17aec4d8966e45adbc5"

a, T, delta, eta = sp.symbols("a T delta eta", positive=True)
u = sp.Symbol("u", real=True)


def threshold(delta):
    """L = log cot(delta/2)."""
    return sp.log(sp.cot(delta / 2))


def wrong_threshold(delta):
    """Mutation: log tan(delta/2)."""
    return sp.log(sp.tan(delta / 2))


def cos_critical(u):
    """cos(phi_c) = -tanh(u)."""
    return -sp.tanh(u)


def wrong_cos_critical(u):
    return sp.tanh(u)


def prove(L=threshold, cosc=cos_critical) -> None:
    # (a) tan(phi_c/2) = tan(delta/2) e^{aT} = e^{aT - L}
    tan_c = sp.tan(delta / 2) * sp.exp(a * T)
    assert_zero(
        sp.simplify((tan_c - sp.exp(a * T - L(delta))).rewrite(sp.exp)),
        "(a) tan(phi_c/2) = e^{||h||T - L}",
    )
    # phi_c = 2 atan(e^u) is increasing in u and equals pi/2 at u = 0
    phic = 2 * sp.atan(sp.exp(u))
    assert_true(sp.diff(phic, u).is_positive, "(a) phi_c increasing in u")
    assert_zero(phic.subs(u, 0) - sp.pi / 2, "(a) phi_c = pi/2 at u = 0")
    x = sp.exp(u)
    assert_zero(
        sp.simplify(((1 - x**2) / (1 + x**2) - cosc(u)).rewrite(sp.exp)),
        "(a) cos(phi_c) = -tanh(u)",
    )
    # (b) cosines of the caps: above, alpha = pi - phi_c, cos = tanh(u); below, alpha = phi_c
    assert_zero(
        sp.simplify((-cosc(u)) - sp.tanh(u)), "(b) cos(pi - phi_c) = tanh(u) (above)"
    )
    assert_true(
        sp.tanh(sp.Symbol("v", positive=True)).is_positive, "(b) tanh(u) > 0 for u > 0"
    )
    assert_zero(
        sp.cos(sp.pi - 2 * sp.atan(sp.Integer(1))), "(b) u = 0: hemisphere (cos = 0)"
    )
    # (c) the band: two caps of angle pi/2 - eta
    assert_zero(sp.cos(sp.pi / 2 - eta) - sp.sin(eta), "(c) cos(pi/2 - eta) = sin(eta)")


@check("symbolic")
def test_threshold_symbolic():
    prove()


@check("mutation")
def test_threshold_rejects_log_tan():
    assert_fails(prove, wrong_threshold, what="the threshold log tan(delta/2)")


@check("mutation")
def test_threshold_rejects_wrong_cosine():
    assert_fails(prove, threshold, wrong_cos_critical, what="cos(phi_c) = +tanh(u)")


# ---------------------------------------------------------------- numeric
Tc_numpy = sp.lambdify([a, delta], threshold(delta) / a, "numpy")


def bound(u, dd):
    return np.exp(-dd * np.tanh(u) ** 2 / 2)


def wrong_bound(u, dd):
    return np.exp(-dd * np.tanh(u) ** 2)


def compare(bnd=bound) -> None:
    from syncattn import lohe

    g = rng("finite_time_threshold")
    nh = g.uniform(0.05, 3.0, 32)
    dl = g.uniform(0.01, 1.5, 32)  # < pi/2
    assert_close(lohe.finite_time_threshold(nh, dl), Tc_numpy(nh, dl), "T_c = L/||h||")
    edge = np.asarray(
        lohe.finite_time_threshold(np.array([0.0, 0.0, 1.0]), np.array([0.1, 2.0, 2.0]))
    )
    if not (np.isinf(edge[0]) and edge[1] == 0 and edge[2] == 0):
        raise AssertionError(f"edge values {edge}, expected (inf, 0, 0)")
    dims = (2, 3, 4, 8, 16, 32, 64, 128, 512, 4096)
    for nh_, dl_ in ((1.0, 0.1), (0.4, 0.5), (2.5, 1.0)):
        Tc = float(lohe.finite_time_threshold(nh_, dl_))
        for dd in dims:
            p = float(lohe.finite_time_failure_probability(nh_, Tc, dl_, dd))
            assert_close(p, 0.5, f"P = 1/2 at T_c, d={dd}", atol=1e-12)
        L = math.log(1 / math.tan(dl_ / 2))
        for uu in (-2.0, -0.7, -0.2, 0.2, 0.7, 2.0):
            TT = (L + uu) / nh_
            if TT < 0:
                continue
            p = np.array(
                [
                    float(lohe.finite_time_failure_probability(nh_, TT, dl_, dd))
                    for dd in dims
                ]
            )
            b = bnd(uu, np.asarray(dims, dtype=float))
            if uu > 0:
                if np.any(p > b * (1 + 1e-12)):
                    raise AssertionError(f"above T_c: P {p} exceeds the bound {b}")
                if np.any(np.diff(p) > 1e-15):
                    raise AssertionError(f"above T_c: P not decreasing in d: {p}")
            else:
                if np.any(1 - p > b * (1 + 1e-12) + 1e-15):
                    raise AssertionError(
                        f"below T_c: 1 - P {1 - p} exceeds the bound {b}"
                    )
                if np.any(np.diff(p) < -1e-15):
                    raise AssertionError(f"below T_c: P not increasing in d: {p}")
            if abs(uu) >= 0.7 and abs(p[-1] - (uu < 0)) > 1e-6:
                raise AssertionError(
                    f"d = 4096, u = {uu}: P = {p[-1]}, not the indicator"
                )
    # the numbers: ||h|| T = 2, delta = 0.1
    got = [
        float(lohe.finite_time_failure_probability(1.0, 2.0, 0.1, dd))
        for dd in (2, 3, 8, 32)
    ]
    assert_close(
        got,
        [0.77, 0.88, 0.991, 1.000],
        "||h||T = 2, delta = 0.1 (quoted to 2-3 digits)",
        atol=5e-3,
    )


@check("numeric")
def test_threshold_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_bound_without_half():
    assert_fails(compare, wrong_bound, what="the bound exp(-d tanh^2(u))")


@check("numeric")
def test_threshold_monte_carlo():
    """Uniform starts through lohe.exact_angle on both sides of T_c; concentration of phi0."""
    import jax

    from syncattn import lohe, sphere

    n = 20_000 if CONFIG.quick else 200_000
    nh_, dl_ = 1.0, 0.1
    Tc = float(lohe.finite_time_threshold(nh_, dl_))
    key = jax.random.key(CONFIG.seed)
    for dd in (3, 32):
        key, sub = jax.random.split(key)
        z = np.asarray(sphere.sample_uniform(sub, (n,), dd))
        phi0 = np.arccos(np.clip(z[:, 0], -1.0, 1.0))
        for TT in (0.6 * Tc, Tc, 1.4 * Tc):
            hits = np.asarray(lohe.exact_angle(phi0, nh_, TT)) > dl_
            p = float(lohe.finite_time_failure_probability(nh_, TT, dl_, dd))
            se = max(math.sqrt(p * (1 - p) / n), 1 / n)
            if abs(hits.mean() - p) > 4 * se:
                raise AssertionError(
                    f"d={dd}, T={TT:.3f}: MC {hits.mean():.5f} vs {p:.5f}"
                )
        for et in (0.3, 0.6):
            band = np.mean(np.abs(phi0 - np.pi / 2) >= et)
            exact = 2 * float(sphere.cap_probability(np.pi / 2 - et, dd))
            se = max(math.sqrt(exact * (1 - exact) / n), 1 / n)
            if abs(band - exact) > 4 * se or exact > 2 * math.exp(
                -dd * math.sin(et) ** 2 / 2
            ):
                raise AssertionError(
                    f"d={dd}, eta={et}: band {band:.5f}, exact {exact:.5f}"
                )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

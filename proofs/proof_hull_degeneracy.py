r"""Statement 10: the convex-hull law of positive degenerate drives (Wendel's theorem).

Statement:
    Let r_1, ..., r_m be i.i.d. uniform on S^{d-1} and h = sum_j w_j r_j.
    (a) With strictly positive weights (softplus couplings), h = 0 forces
        0 = h / sum_j w_j in conv{r_j}; conversely, if 0 is interior to the hull
        (a.s. the case when 0 is in it), some strictly positive weights give h = 0.
        The event is scale free: it does not involve the size of w.
    (b) (Wendel 1962; Cover's function counting) For points in general position,
        the number of sign patterns eps in {+-1}^m for which 0 is NOT in
        conv{eps_j r_j} is C(m, d) = 2 sum_{k<d} binom(m-1, k), the solution of
        C(m+1, d) = C(m, d) + C(m, d-1), C(1, d) = 2, C(m, 0) = 0.
    (c) Every sign pattern has the same law (uniform anchors are symmetric), so
        P(0 in conv) = 1 - C(m, d) / 2^m = 2^{-(m-1)} sum_{k=d}^{m-1} binom(m-1, k)
        = P(Bin(m-1, 1/2) >= d); it is exactly 0 for d >= m.
    (d) Hoeffding: for (m-1)/2 < d, P(Bin(n, 1/2) >= d) <= exp(-2 (d - n/2)^2 / n),
        n = m - 1; for m - 1 < 2 c d with c < 1 this decays exponentially in d.

Proof idea:
    (a) lambda = w / sum w lies in the open simplex. Interior point p = 0: -t c is
        in the hull for small t > 0 (c the centroid), -t c = sum mu_j r_j, and
        0 = sum (mu_j + t/m) r_j / (1 + t) has strictly positive coefficients.
    (b) Cover's recurrence: adding a point r_{m+1} to a configuration splits every
        separable dichotomy into two exactly when some separating hyperplane
        passes through r_{m+1}, i.e. for the C(m, d-1) dichotomies of the points
        projected along r_{m+1}. Pascal's rule solves the recurrence.
    (c) The 2^m sign patterns partition the probability space by symmetry, and
        sum_k binom(n, k) = 2^n.
    (d) Chernoff with Hoeffding's lemma: log((1 + e^l)/2) <= l/2 + l^2/8 (second
        derivative of the difference is (e^l - 1)^2 / (4 (1 + e^l)^2) >= 0, value and
        slope 0 at l = 0); minimise -l t + n l^2 / 8 at l = 4 t / n.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) the simplex and the interior construction (m = 3,
    free positive symbols); (b) Pascal's rule for free m, k, the vanishing boundary
    term binom(m-1, -1), and the recurrence with its boundary values for every
    m, d <= 40 in exact integers (the geometric splitting step of (b) is the
    written argument above); (c) sum_k binom(n, k) = 2^n for free n and the law
    (and its zero for d >= m) for every m, d <= 40; (d) the second derivative of
    Hoeffding's lemma, and the Chernoff optimum for free n, t.
    Numeric (float64): ``lohe.hull_degenerate_probability`` against
    scipy.stats.binom.sf and the lambdified Hoeffding term on a grid of (m, d);
    theorem checks: (b) exactly, counting by linear programming
    (scipy.optimize.linprog) the sign patterns whose flipped points have 0 outside
    their hull, for random anchor sets; (c) Monte Carlo with the same
    feasibility test on uniform anchors, within 4 standard errors for several
    (m, d), including d = m (no hull contains 0).
    Mutation: the proof must reject the law P(Bin(m, 1/2) >= d) (m for m - 1) and
    the exponent -4 t^2 / n; the Monte Carlo must reject P(Bin(m, 1/2) >= d).

Mirrors: syncattn.lohe.hull_degenerate_probability.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059), "failure
modes" and "dimensional scaling": degenerate positions (h ~ 0) become
exponentially rare as d_osc grows. With positive couplings, the scale-free form
of a degenerate position is 0 in the convex hull of the anchors.
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


NUMBER = 10
TITLE = "Convex-hull law: P(0 in conv{r_1..r_m}) = P(Bin(m-1, 1/2) >= d) <= exp(-2(d-(m-1)/2)^2/(m-1)), 0 for d >= m"
MIRRORS = ("syncattn.lohe.hull_degenerate_probability",)

PARTS = (
    Part(
        "a(i)",
        "With strictly positive weights, lambda = w / sum w lies in the open simplex, does not depend on the scale of w, and h = 0 gives sum_j lambda_j r_j = 0 (0 in conv{r_j}).",
        "coq",
        coq="positive_weights",
    ),
    Part(
        "a(ii)",
        "Conversely, if -t c is in the hull for some t > 0 (c the centroid), the coefficients (mu_j + t/m)/(1 + t) are strictly positive, sum to 1 and give h = 0.",
        "coq",
        coq="interior",
    ),
    Part(
        "a(iii)",
        "If 0 is interior to the hull then -t c is in it for small t > 0, and a.s. 0 in the hull means 0 interior.",
        "measured",
        why="topology of convex sets and general position of random anchors, not formalised; linear-programming feasibility checks on random anchors",
    ),
    Part(
        "b(i)",
        "Cover's count C(m, d) = 2 sum_{k<d} binom(m-1, k) solves C(m+1, d) = C(m, d) + C(m, d-1), C(1, d) = 2, C(m, 0) = 0 (all m, d).",
        "coq",
        coq="cover_recurrence",
    ),
    Part(
        "b(ii)",
        "For points in general position, C(m, d) counts the sign patterns for which 0 is not in conv{eps_j r_j} (the geometric splitting step).",
        "measured",
        why="the geometric step of Cover's function-counting theorem (hyperplane arrangements) is a written argument, not formalised; counted exactly by linear programming for random anchor sets",
    ),
    Part(
        "c(i)",
        "1 - C(m, d)/2^m = 2^{-(m-1)} sum_{k=d}^{m-1} binom(m-1, k) (= P(Bin(m-1, 1/2) >= d)), and it is 0 for d >= m.",
        "coq",
        coq="law",
    ),
    Part(
        "c(ii)",
        "Every sign pattern has the same law (uniform anchors are symmetric), so P(0 in conv) = 1 - C(m, d)/2^m.",
        "measured",
        why="a symmetry of the uniform measure (probability), not formalised; Monte Carlo within 4 standard errors",
    ),
    Part(
        "d(i)",
        "Hoeffding's lemma: ln((1 + e^l)/2) <= l/2 + l^2/8 for every real l.",
        "coq",
        coq="hoeffding_lemma",
    ),
    Part(
        "d(ii)",
        "Chernoff optimum: min over lambda of -lambda t + n lambda^2/8 is -2 t^2/n, at lambda = 4t/n.",
        "coq",
        coq="chernoff_optimum",
    ),
    Part(
        "d(iii)",
        "Markov's inequality with independence (Chernoff): P(Bin(n, 1/2) >= n/2 + t) <= exp(-2 t^2/n) for n >= 1, t >= 0, on the exact law 2^{-n} sum_{k >= n/2 + t} binom(n, k).",
        "coq",
        coq="binomial_tail",
    ),
    Part(
        "d(iv)",
        "For m - 1 < 2 c d with 0 < c < 1 the bound decays exponentially in d: its exponent is below -d (1 - c)^2 / c.",
        "coq",
        coq="decay",
    ),
)
COQ_SPEC_SHA256 = "1d889a3e2fbe15c7a07bad9c26975868251240b6b7291550a714e1839ea51c1d"

m, k, n = sp.symbols("m k n", integer=True, positive=True)
lam, t = sp.symbols("lambda t", positive=True)
GRID = 40  # exact integer checks for every m, d <= GRID


def wendel_law(mm: int, dd: int):
    """P(0 in conv) = 2^{-(m-1)} sum_{k=d}^{m-1} binom(m-1, k), exact rational."""
    return sp.Rational(
        sum(math.comb(mm - 1, kk) for kk in range(dd, mm)), 2 ** (mm - 1)
    )


def wrong_law(mm: int, dd: int):
    """Mutation: P(Bin(m, 1/2) >= d)."""
    return sp.Rational(sum(math.comb(mm, kk) for kk in range(dd, mm + 1)), 2**mm)


def cover_count(mm: int, dd: int) -> int:
    """C(m, d) = 2 sum_{k<d} binom(m-1, k)."""
    return 2 * sum(math.comb(mm - 1, kk) for kk in range(dd))


def hoeffding_exponent(t, n):
    """log of the bound: -2 t^2 / n, t = d - n/2."""
    return -2 * t**2 / n


def wrong_exponent(t, n):
    """Mutation: -4 t^2 / n (twice too strong)."""
    return -4 * t**2 / n


def prove(law=wendel_law, exponent=hoeffding_exponent) -> None:
    prove_positive()
    prove_count()
    prove_law(law)
    prove_hoeffding(exponent)


def prove_positive() -> None:
    """(a) positive weights give a convex combination; an interior 0 gives positive ones."""
    w = sp.symbols("w1:4", positive=True)
    lam_ = [wj / sum(w) for wj in w]
    assert_zero(sum(lam_) - 1, "(a) w / sum w sums to 1")
    for j, lj in enumerate(lam_):
        assert_true(lj.is_positive, f"(a) lambda_{j + 1} > 0")
    mu = sp.symbols("mu1:4", nonnegative=True)
    tt = sp.Symbol("t", positive=True)
    coef = [(mj + tt / 3) / (1 + tt) for mj in mu]
    # sum(mu) = 1: substitute mu3 = 1 - mu1 - mu2
    total = sp.simplify(sum(coef).subs(mu[2], 1 - mu[0] - mu[1]))
    assert_zero(total - 1, "(a) interior coefficients sum to 1")
    for j, cj in enumerate(coef):
        assert_true(cj.is_positive, f"(a) interior coefficient {j + 1} > 0")
    # and they represent 0: sum coef_j r_j = (sum mu_j r_j + t c) / (1 + t) = (-t c + t c)/(1 + t)
    r = sp.symbols("r1:4", real=True)  # one coordinate of each anchor suffices (linear)
    c = sum(r) / 3
    combo = sum(cj * rj for cj, rj in zip(coef, r, strict=True))
    assert_zero(
        sp.expand(
            combo * (1 + tt)
            - (sum(mj * rj for mj, rj in zip(mu, r, strict=True)) + tt * c)
        ),
        "(a) interior coefficients give (sum mu_j r_j + t c) / (1 + t)",
    )


def prove_count() -> None:
    """(b) Pascal's rule, and Cover's recurrence for every m, d <= GRID."""
    pascal = sp.binomial(m, k) - sp.binomial(m - 1, k) - sp.binomial(m - 1, k - 1)
    assert_zero(pascal.rewrite(sp.gamma), "(b) Pascal's rule (free m, k)")
    assert_zero(sp.binomial(m - 1, -1), "(b) boundary term binom(m-1, -1)")
    for mm in range(1, GRID + 1):
        if cover_count(mm, 0) != 0:
            raise AssertionError(f"(b) C({mm}, 0) != 0")
        for dd in range(1, GRID + 1):
            if mm == 1 and cover_count(1, dd) != 2:
                raise AssertionError(f"(b) C(1, {dd}) != 2")
            lhs = cover_count(mm + 1, dd)
            rhs = cover_count(mm, dd) + cover_count(mm, dd - 1)
            if lhs != rhs:
                raise AssertionError(f"(b) recurrence fails at m={mm}, d={dd}")


def prove_law(law=wendel_law) -> None:
    """(c) P(0 in conv) = 1 - C(m, d)/2^m = P(Bin(m-1, 1/2) >= d); zero for d >= m."""
    assert_zero(
        sp.Sum(sp.binomial(n, k), (k, 0, n)).doit() - 2**n,
        "(c) sum_k binom(n, k) = 2^n",
    )
    for mm in range(1, GRID + 1):
        for dd in range(2, GRID + 1):
            p = sp.sympify(law(mm, dd))
            want = 1 - sp.Rational(cover_count(mm, dd), 2**mm)
            if p != want:
                raise AssertionError(
                    f"(c) law {p} != 1 - C(m,d)/2^m = {want} at m={mm}, d={dd}"
                )
            if dd >= mm and p != 0:
                raise AssertionError(f"(c) law not 0 at m={mm} <= d={dd}")


def prove_hoeffding(exponent=hoeffding_exponent) -> None:
    """(d) Hoeffding's lemma and the Chernoff optimum."""
    l = sp.Symbol("l", real=True)
    f = l / 2 + l**2 / 8 - sp.log((1 + sp.exp(l)) / 2)
    assert_zero(f.subs(l, 0), "(d) lemma: value at 0")
    assert_zero(sp.diff(f, l).subs(l, 0), "(d) lemma: slope at 0")
    assert_zero(
        sp.diff(f, l, 2) - (sp.exp(l) - 1) ** 2 / (4 * (1 + sp.exp(l)) ** 2),
        "(d) lemma: second derivative is a square",
    )
    # log P(S >= n/2 + t) <= -l (n/2 + t) + n log((1+e^l)/2) <= -l t + n l^2 / 8
    g = -lam * t + n * lam**2 / 8
    (l_opt,) = sp.solve(sp.diff(g, lam), lam)
    assert_zero(l_opt - 4 * t / n, "(d) optimal lambda")
    assert_true(sp.diff(g, lam, 2).is_positive, "(d) the optimum is a minimum")
    assert_zero(g.subs(lam, l_opt) - exponent(t, n), "(d) Hoeffding exponent")


@check("symbolic")
def test_hull_law_symbolic():
    prove()


@check("mutation")
def test_hull_law_rejects_wrong_law():
    assert_fails(prove_law, wrong_law, what="P(Bin(m, 1/2) >= d)")


@check("mutation")
def test_hull_law_rejects_wrong_exponent():
    assert_fails(prove_hoeffding, wrong_exponent, what="the exponent -4 t^2 / n")


# ---------------------------------------------------------------- numeric
bound_numpy = sp.lambdify([t, n], sp.exp(hoeffding_exponent(t, n)), "numpy")


def compare(impl=None) -> None:
    from scipy import stats

    from syncattn import lohe

    impl = impl or lohe.hull_degenerate_probability
    for mm in (1, 2, 3, 5, 8, 16, 17, 40, 101, 400):
        for dd in (2, 3, 4, 8, 16, 50, 200, 399, 400):
            exact, bound = impl(mm, dd)
            want = float(stats.binom.sf(dd - 1, mm - 1, 0.5))  # P(Bin(m-1, 1/2) >= d)
            assert_close(exact, want, f"exact, m={mm}, d={dd}", rtol=1e-12, atol=1e-300)
            nn, tt = mm - 1, dd - (mm - 1) / 2
            want_b = (
                0.0 if dd >= mm else (float(bound_numpy(tt, nn)) if tt > 0 else 1.0)
            )
            assert_close(bound, want_b, f"bound, m={mm}, d={dd}")
            if bound < exact * (1 - 1e-12):
                raise AssertionError(f"bound {bound} < exact {exact} at m={mm}, d={dd}")


@check("numeric")
def test_hull_law_matches_implementation():
    compare()


def _in_hull(points: np.ndarray) -> bool:
    """0 in conv(points) (rows): feasibility of lambda >= 0, sum lambda = 1, points^T lambda = 0."""
    from scipy.optimize import linprog

    mm, dd = points.shape
    A = np.vstack([points.T, np.ones((1, mm))])
    b = np.r_[np.zeros(dd), 1.0]
    res = linprog(np.zeros(mm), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    if res.status not in (0, 2):
        raise AssertionError(f"linprog failed: {res.message}")
    return res.status == 0


def _uniform(g: np.random.Generator, shape, dd: int) -> np.ndarray:
    x = g.standard_normal((*shape, dd))
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@check("numeric")
def test_cover_count_by_linear_programming():
    """(b) exactly: the separable sign patterns of random anchors number C(m, d)."""
    import itertools

    g = rng("cover_count")
    cases = (
        ((4, 2), (5, 3), (6, 3))
        if CONFIG.quick
        else ((5, 2), (6, 3), (7, 3), (7, 4), (8, 5))
    )
    for mm, dd in cases:
        r = _uniform(g, (mm,), dd)
        separable = sum(
            not _in_hull(np.asarray(eps)[:, None] * r)
            for eps in itertools.product((1.0, -1.0), repeat=mm)
        )
        if separable != cover_count(mm, dd):
            raise AssertionError(
                f"m={mm}, d={dd}: {separable} separable sign patterns, C(m, d) = {cover_count(mm, dd)}"
            )


CASES = ((4, 2), (6, 3), (8, 3), (10, 4), (12, 6), (9, 8), (5, 5))
QUICK_CASES = ((6, 3), (10, 4), (5, 5))


def monte_carlo(law=None) -> None:
    """(c) Monte Carlo with the linprog feasibility test, within 4 standard errors."""
    from syncattn import lohe

    law = law or (lambda mm, dd: lohe.hull_degenerate_probability(mm, dd).exact)
    nsamp, cases = (300, QUICK_CASES) if CONFIG.quick else (800, CASES)
    g = rng("hull_monte_carlo")
    for mm, dd in cases:
        r = _uniform(g, (nsamp, mm), dd)
        hits = sum(_in_hull(ri) for ri in r)
        p = float(law(mm, dd))
        se = max(math.sqrt(p * (1 - p) / nsamp), 1.0 / nsamp)
        if abs(hits / nsamp - p) > 4 * se:
            raise AssertionError(
                f"m={mm}, d={dd}: Monte Carlo {hits / nsamp:.4f} vs {p:.4f} (4 se = {4 * se:.4f})"
            )


@check("numeric")
def test_hull_law_monte_carlo():
    monte_carlo()


@check("mutation")
def test_monte_carlo_rejects_wrong_law():
    assert_fails(
        monte_carlo,
        lambda mm, dd: float(wrong_law(mm, dd)),
        what="P(Bin(m, 1/2) >= d) in the Monte Carlo",
    )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

r"""Statement 11: the relative degenerate event P(||h|| < eps ||w||_2) and the concentration of ||h|| / ||w||_2.

Statement:
    Fix weights w in R^m, w != 0, a = w / ||w||_2, and let r_1, ..., r_m be i.i.d.
    uniform on S^{d-1}, h = sum_j w_j r_j.
    (a) E ||h||^2 = ||w||_2^2 and Var(||h||^2 / ||w||_2^2) = 2 (1 - sum_j a_j^4) / d:
        ||h|| / ||w||_2 concentrates at 1 as d grows (Chebyshev:
        P(||h|| < eps ||w||_2) <= 2 (1 - sum a^4) / (d (1 - eps^2)^2) for eps < 1).
    (b) A coordinate x = <r, e> of a uniform point satisfies E x^{2k} =
        (2k-1)!! / (d (d+2) ... (d+2k-2)) <= E (g/sqrt d)^{2k}, hence
        E e^{l x} <= e^{l^2 / (2d)} (sub-Gaussian with variance proxy 1/d).
    (c) Exponential bound, every eps < 1:
        P(||h|| < eps ||w||_2) <= exp(-d (1 - eps^2)^2 ||w||_2^4 / (8 sum_k w_k^2 W_{k-1}^2)),
        W_{k-1} = sum_{j<k} |w_j| (any order of the anchors; decreasing |w_k| is best).
    (d) m = 2 exactly: P(||h|| < eps ||w||_2) = cap(arccos c), c = (1 - eps^2)(w_1^2 + w_2^2)
        / (2 |w_1 w_2|) (0 when c >= 1), which for w_1 = w_2 is <= (eps^2 (2 - eps^2))^{d/2}
        up to the cap bound: the rate -1/2 log(eps^2 (2 - eps^2)) > 0.

Proof idea:
    (a) ||h||^2 / ||w||^2 - 1 = sum_{j != k} a_j a_k X_jk, X_jk = <r_j, r_k>; with
        E r r^T = I/d: E X_jk = 0, E X_jk^2 = 1/d, and X's of distinct pairs are
        uncorrelated (a shared index j gives E r_k^T r_j r_j^T r_l = E r_k^T r_l / d = 0).
    (b) the moments of the density (1 - x^2)^{(d-3)/2} / B((d-1)/2, 1/2) are a ratio
        of Beta functions; (2k)! = 2^k k! (2k-1)!! turns the series of E e^{lx}
        into that of e^{l^2/(2d)} term by term.
    (c) h_k = h_{k-1} + w_k r_k gives ||h_k||^2 = ||h_{k-1}||^2 + w_k^2 + 2 w_k ||h_{k-1}|| x_k
        with x_k = <r_k, h_{k-1}/||h_{k-1}||> a coordinate of a uniform point
        independent of the past (rotation invariance); |2 w_k ||h_{k-1}||| <= 2 |w_k| W_{k-1}.
        Conditioning step by step with (b), E e^{-l S} <= e^{l^2 V / (2d)},
        S = ||h||^2 - ||w||^2, V = 4 sum w_k^2 W_{k-1}^2; Chernoff at the optimal
        l = t d / V with t = (1 - eps^2) ||w||^2. An adjacent swap changes the sum by
        2 W a b (b - a): larger weights first minimise it.
    (d) ||h||^2 = w_1^2 + w_2^2 + 2 w_1 w_2 <r_1, r_2>, and <r_1, r_2> has the law of
        a coordinate, symmetric, so the event is a cap of angle arccos c around -r_1.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) the variance for m = 4 free weights from the
    moment rules, E X^2 = 1/d from (b) with k = 1, and the shared-index
    cross moment with a symbolic E r r^T = I/d in d = 3 (general d: the same
    trace computation); (b) the moment formula for free d and k = 1..6, the
    double-factorial identity for free k and the term-by-term ratio <= 1;
    (c) the martingale step for free vectors in R^3 on the sphere, the Chernoff
    optimum for free t, V, d, and the adjacent-swap difference; (d) the event
    solved for <r_1, r_2> and the equal-weight cap sine.
    Numeric (float64): ``lohe.relative_degenerate_bound`` against a numpy loop of
    the formulas on random weights; theorem checks: Monte Carlo of
    Var(||h||^2/||w||^2) against (a) (within 4 standard errors), of the m = 2 law
    against ``sphere.cap_probability`` (4 se), of the event against the bound
    (never above it by more than 4 se), and ``lohe.relative_degenerate_probability``
    against an independent numpy Monte Carlo (4 combined se), with its decay in d.
    Mutation: the proof must reject the variance 1 (1 - sum a^4)/d and the
    Chernoff constant 4 in place of 8; the Monte Carlo variance check must reject
    the variance (1 - sum a^4)/d.

Mirrors: syncattn.lohe.relative_degenerate_bound,
syncattn.lohe.relative_degenerate_probability.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059), "failure
modes" and "dimensional scaling": degenerate positions (||h|| infinitesimal)
become exponentially rare as d_osc grows. Measured against the scale of the
weights, ||h|| < eps ||w||_2 is the scale-free form of that event.
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


NUMBER = 11
TITLE = "Relative degeneracy: Var(||h||^2/||w||^2) = 2(1 - sum a^4)/d; P(||h|| < eps||w||_2) <= exp(-d(1-eps^2)^2||w||^4 / (8 sum w_k^2 W_{k-1}^2))"
MIRRORS = (
    "syncattn.lohe.relative_degenerate_bound",
    "syncattn.lohe.relative_degenerate_probability",
)

PARTS = (
    Part(
        "a(i)",
        "For unit anchors (any m, d), |h|^2 = |w|^2 + sum_{j != k} w_j w_k <r_j, r_k>.",
        "coq",
        coq="expansion",
    ),
    Part(
        "a(ii)",
        "Given E <r_j, r_k>^2 = 1/d and uncorrelated pairs, Var(|h|^2/|w|^2) = (2/d) sum_{j != k} a_j^2 a_k^2 = 2 (1 - sum a^4)/d for unit a (the algebra, any m).",
        "coq",
        coq="variance_algebra",
    ),
    Part(
        "a(iii)",
        "The moment rules themselves: E r r^T = I/d, E <r_j, r_k> = 0 (hence E |h|^2 = |w|^2 by (a(i))), E <r_j, r_k>^2 = 1/d, pairs with a shared index uncorrelated.",
        "sympy",
        why="integrals over the uniform measure on the sphere (sympy: E r r^T = I/3 on S^2, E x^2 = 1/d from the Beta moments); no measure on the sphere in Coq's libraries",
    ),
    Part(
        "a(iv)",
        "Chebyshev: the event |h| < eps |w| lies in |(|h|^2/|w|^2) - 1| > 1 - eps^2, so P <= 2 (1 - sum a^4) / (d (1 - eps^2)^2).",
        "coq",
        coq="chebyshev_event",
    ),
    Part(
        "a(v)",
        "Chebyshev's inequality P(|Q| >= s) <= Var(Q)/s^2 applied to that event.",
        "measured",
        why="a probabilistic inequality (not formalised); Monte Carlo checks the event never exceeds the bound by more than 4 standard errors",
    ),
    Part(
        "b(i)",
        "A coordinate x of a uniform point has E x^{2k} = (2k-1)!! / (d (d+2) ... (d+2k-2)) <= E (g/sqrt d)^{2k}.",
        "sympy",
        why="Beta-function moments of the density (1 - x^2)^{(d-3)/2} (sympy, free d, k = 1..6); Gamma/Beta are not in Coq's libraries",
    ),
    Part(
        "b(ii)",
        "(2k)! = 2^k k! (2k-1)!!: the identity that turns the moment series into that of e^{l^2/(2d)}.",
        "coq",
        coq="double_factorial",
    ),
    Part(
        "b(iii)",
        "Hence E e^{l x} <= e^{l^2/(2d)} (term by term).",
        "sympy",
        why="a comparison of power series of expectations; not formalised",
    ),
    Part(
        "c(i)",
        "Martingale step: |h + w r|^2 = |h|^2 + w^2 + 2 w <h, r> for unit r (any d).",
        "coq",
        coq="martingale_step",
    ),
    Part(
        "c(ii)",
        "Conditioning step by step with (b) (rotation invariance, |2 w_k |h_{k-1}|| <= 2 |w_k| W_{k-1}) gives E e^{-l S} <= e^{l^2 V/(2d)}, V = 4 sum w_k^2 W_{k-1}^2.",
        "measured",
        why="conditional expectations and rotation invariance (probability) are not formalised; the bound is checked against Monte Carlo",
    ),
    Part(
        "c(iii)",
        "Chernoff optimum: min_l (-l t + l^2 V/(2d)) = -t^2 d/(2V) at l = t d/V; with t = (1 - eps^2)|w|^2, V = 4S the exponent is -d (1 - eps^2)^2 |w|^4 / (8S).",
        "coq",
        coq="chernoff",
    ),
    Part(
        "c(iv)",
        "An adjacent swap changes sum w_k^2 W_{k-1}^2 by 2 W a b (b - a): larger weights first give the smaller sum.",
        "coq",
        coq="adjacent_swap",
    ),
    Part(
        "d(i)",
        "Two anchors (w_1 w_2 > 0): |h|^2 < eps^2 |w|^2 iff <r_1, r_2> < -c, c = (1 - eps^2)(w_1^2 + w_2^2)/(2 w_1 w_2).",
        "coq",
        coq="two_anchors",
    ),
    Part(
        "d(ii)",
        "<r_1, r_2> has the law of a coordinate, so P(|h| < eps |w|) = cap(arccos c) (0 when c >= 1).",
        "measured",
        why="the law of <r_1, r_2> (probability on the sphere) is not formalised; Monte Carlo against sphere.cap_probability within 4 standard errors",
    ),
    Part(
        "d(iii)",
        "Equal weights: c = 1 - eps^2, 1 - c^2 = eps^2 (2 - eps^2), and the rate -1/2 ln(eps^2 (2 - eps^2)) is positive for 0 < eps < 1.",
        "coq",
        coq="equal_weights",
    ),
)
COQ_SPEC_SHA256 = "08df8816d033b5ace9b8fb6bac1d9de416bb6a878289af1f2f9d77e320c0b024"

d = sp.Symbol("d", positive=True)
l, tt, V, e = sp.symbols("l t V epsilon", positive=True)
kk = sp.Symbol("k", integer=True, positive=True)
HALF = sp.Rational(1, 2)


def variance(a, d):
    """Var(||h||^2/||w||^2) for unit a: 2 (1 - sum a^4) / d."""
    return 2 * (sum(x**2 for x in a) ** 2 - sum(x**4 for x in a)) / d


def wrong_variance(a, d):
    """Mutation: the factor 2 dropped."""
    return (sum(x**2 for x in a) ** 2 - sum(x**4 for x in a)) / d


def chernoff_exponent(t, V, d):
    """log of the bound: -t^2 d / (2 V) (= -d (1-eps^2)^2 ||w||^4 / (8 sum w^2 W^2))."""
    return -(t**2) * d / (2 * V)


def wrong_chernoff_exponent(t, V, d):
    return -(t**2) * d / V


def prove(var=variance, exponent=chernoff_exponent) -> None:
    prove_variance(var)
    prove_subgaussian()
    prove_chernoff(exponent)
    prove_two_anchors()


def coordinate_moment(k, d):
    """E x^{2k} for a coordinate of a uniform point: B(k + 1/2, (d-1)/2) / B(1/2, (d-1)/2)."""
    return sp.gamma(k + HALF) * sp.gamma(d / 2) / (sp.gamma(HALF) * sp.gamma(d / 2 + k))


def prove_variance(var=variance) -> None:
    """(a) the mean and variance of ||h||^2/||w||^2 for m = 4 free weights."""
    mm = 4
    a = sp.symbols(f"a1:{mm + 1}", real=True)
    pairs = [(j, k) for j in range(mm) for k in range(j + 1, mm)]
    X = {p: sp.Symbol(f"X{p[0]}{p[1]}", real=True) for p in pairs}
    Q = sum(2 * a[j] * a[k] * X[(j, k)] for j, k in pairs)  # ||h||^2/||w||^2 - 1
    EX2 = sp.simplify(coordinate_moment(1, d))
    assert_zero(EX2 - 1 / d, "(a) E <r_j, r_k>^2 = 1/d")
    # E over X: E X_p = 0, E X_p X_q = delta_pq / d (uncorrelated pairs, proved below)
    poly = sp.Poly(sp.expand(Q**2), *X.values())
    EQ2 = 0
    for mon, coef in poly.terms():
        if sum(mon) == 2 and max(mon) == 2:
            EQ2 += coef * EX2
        elif sum(mon) == 2:
            EQ2 += 0
        else:
            raise AssertionError("(a) unexpected monomial")
    unit = {a[-1] ** 2: 1 - sum(x**2 for x in a[:-1])}
    assert_zero(
        sp.expand((EQ2 - var(a, d)).subs(unit)), "(a) Var(||h||^2/||w||^2), m = 4"
    )
    # shared index: E[<r_k, r_j><r_j, r_l>] = r_k^T E[r_j r_j^T] r_l = <r_k, r_l>/d, mean 0
    rk, rl = (
        sp.Matrix(sp.symbols("k0:3", real=True)),
        sp.Matrix(sp.symbols("l0:3", real=True)),
    )
    M = sp.eye(3) / 3  # E r r^T in d = 3 (symmetry and trace 1)
    assert_zero((rk.T * M * rl)[0] - rk.dot(rl) / 3, "(a) shared-index cross moment")
    th, ph = sp.symbols("theta phi", real=True)
    r = sp.Matrix([sp.sin(th) * sp.cos(ph), sp.sin(th) * sp.sin(ph), sp.cos(th)])
    E = (r * r.T).applyfunc(
        lambda f: (
            sp.integrate(f * sp.sin(th), (th, 0, sp.pi), (ph, 0, 2 * sp.pi))
            / (4 * sp.pi)
        )
    )
    assert_zero(E - M, "(a) E r r^T = I/3 on S^2")


def prove_subgaussian() -> None:
    """(b) moments of a coordinate and the sub-Gaussian comparison."""
    for k in range(1, 7):
        ratio = sp.gammasimp(
            coordinate_moment(k, d)
            * sp.prod([d + 2 * i for i in range(k)])
            / sp.factorial2(2 * k - 1)
        )
        assert_zero(sp.simplify(ratio - 1), f"(b) E x^{2 * k}, free d")
        # moment / Gaussian moment = prod_i d / (d + 2i): every factor is <= 1
        for i in range(k):
            assert_true(
                sp.simplify(1 - d / (d + 2 * i)).is_nonnegative,
                f"(b) d/(d+{2 * i}) <= 1",
            )
    assert_zero(
        sp.gammasimp(
            sp.factorial2(2 * kk - 1) / sp.factorial(2 * kk) * 2**kk * sp.factorial(kk)
        )
        - 1,
        "(b) (2k-1)!!/(2k)! = 1/(2^k k!)",
    )


def prove_chernoff(exponent=chernoff_exponent) -> None:
    """(c) the martingale step, the Chernoff optimum, and the best order."""
    hv = sp.Matrix(sp.symbols("h0:3", real=True))
    rv = sp.Matrix(sp.symbols("r0:3", real=True))
    wk = sp.Symbol("w", real=True)
    new = (hv + wk * rv).dot(hv + wk * rv)
    step = hv.dot(hv) + wk**2 * rv.dot(rv) + 2 * wk * hv.dot(rv)
    assert_zero(sp.expand(new - step), "(c) ||h + w r||^2 expansion")
    # on the sphere ||r|| = 1 the increment is w^2 + 2 w ||h|| x, x = <r, h/||h||>
    g = -l * tt + l**2 * V / (2 * d)
    (l_opt,) = sp.solve(sp.diff(g, l), l)
    assert_true(sp.diff(g, l, 2).is_positive, "(c) minimum")
    assert_zero(g.subs(l, l_opt) - exponent(tt, V, d), "(c) Chernoff exponent")
    # with t = (1 - eps^2) ||w||^2 and V = 4 S: -d (1 - eps^2)^2 ||w||^4 / (8 S)
    w2, S = sp.symbols("w2 S", positive=True)
    assert_zero(
        chernoff_exponent((1 - e**2) * w2, 4 * S, d)
        + d * (1 - e**2) ** 2 * w2**2 / (8 * S),
        "(c) the bound in terms of ||w||^2 and S",
    )
    # adjacent swap: a then b (prefix W) minus b then a = 2 W a b (b - a)
    a_, b_, W = sp.symbols("a b W", positive=True)
    diff = (a_**2 * W**2 + b_**2 * (W + a_) ** 2) - (
        b_**2 * W**2 + a_**2 * (W + b_) ** 2
    )
    assert_zero(sp.expand(diff - 2 * W * a_ * b_ * (b_ - a_)), "(c) adjacent swap")


def prove_two_anchors() -> None:
    """(d) the m = 2 event is a cap."""
    w1, w2 = sp.symbols("w1 w2", positive=True)
    x = sp.Symbol("x", real=True)
    (x_c,) = sp.solve(sp.Eq(w1**2 + w2**2 + 2 * w1 * w2 * x, e**2 * (w1**2 + w2**2)), x)
    c = (1 - e**2) * (w1**2 + w2**2) / (2 * w1 * w2)
    assert_zero(x_c + c, "(d) <r1, r2> < -c")
    assert_true(
        sp.diff(w1**2 + w2**2 + 2 * w1 * w2 * x, x).is_positive,
        "(d) ||h||^2 increasing in <r1, r2>",
    )
    ce = c.subs(w2, w1)
    assert_zero(ce - (1 - e**2), "(d) equal weights: c = 1 - eps^2")
    assert_zero(
        sp.expand(1 - ce**2 - e**2 * (2 - e**2)), "(d) sin^2 = eps^2 (2 - eps^2)"
    )


@check("symbolic")
def test_relative_degeneracy_symbolic():
    prove()


@check("mutation")
def test_relative_rejects_wrong_variance():
    assert_fails(prove_variance, wrong_variance, what="the variance (1 - sum a^4)/d")


@check("mutation")
def test_relative_rejects_wrong_chernoff():
    assert_fails(
        prove_chernoff, wrong_chernoff_exponent, what="the exponent -t^2 d / V"
    )


# ---------------------------------------------------------------- numeric
def bound_reference(w: np.ndarray, eps: float, dd: int) -> float:
    """numpy loop: min(Chebyshev, Chernoff, 1), decreasing-|w| order."""
    w = np.asarray(w, dtype=np.float64)
    s2 = float(np.sum(w**2))
    if s2 == 0:
        return 0.0
    if eps >= 1:
        return 1.0
    q = float(np.sum(w**4)) / s2**2
    cheb = 2 * max(1 - q, 0.0) / (dd * (1 - eps**2) ** 2)
    order = sorted(np.abs(w), reverse=True)
    S, W = 0.0, 0.0
    for x in order:
        S += x * x * W * W
        W += x
    cher = 0.0 if S == 0 else math.exp(-dd * (1 - eps**2) ** 2 * s2**2 / (8 * S))
    return min(cheb, cher, 1.0)


def compare() -> None:
    from syncattn import lohe

    g = rng("relative_bound")
    for dd in (2, 3, 16, 256, 4096):
        for mm in (1, 2, 5, 16):
            w = np.log1p(np.exp(g.standard_normal((7, mm))))
            w[0] *= 0.0  # w = 0: the event is empty
            eps = np.array([0.0, 0.3, 0.7, 0.95, 1.0, 1.5])
            got = np.asarray(lohe.relative_degenerate_bound(w, eps[:, None], dd))
            want = np.array([[bound_reference(wi, e, dd) for wi in w] for e in eps])
            assert_close(got, want, f"bound, d={dd}, m={mm}", atol=1e-14)


@check("numeric")
def test_relative_bound_matches_implementation():
    compare()


def _sphere(g, shape, dd):
    x = g.standard_normal((*shape, dd))
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _ratios(g, w, dd, n, chunk=10_000):
    """||h||^2 / ||w||^2 for n draws of the anchors, fixed weights w (m,) or per-draw (n, m)."""
    w = np.asarray(w, dtype=np.float64)
    out = []
    for s in range(0, n, chunk):
        k = min(chunk, n - s)
        ww = w if w.ndim == 1 else w[s : s + k]
        r = _sphere(g, (k, w.shape[-1]), dd)
        h = (
            np.einsum("...j,sjd->sd", ww, r)
            if w.ndim == 1
            else np.einsum("sj,sjd->sd", ww, r)
        )
        out.append(np.sum(h * h, -1) / np.sum(ww * ww, -1))
    return np.concatenate(out)


def monte_carlo_variance(var=variance) -> None:
    """Var(||h||^2/||w||^2) by Monte Carlo against (a), within 4 standard errors."""
    g = rng("relative_variance")
    nsamp = 20_000 if CONFIG.quick else 100_000
    for dd, w in ((3, [1.0, 2.0]), (8, [0.3, 1.0, 1.0, 2.5, 0.1]), (32, np.ones(16))):
        w = np.asarray(w, dtype=np.float64)
        ratio = _ratios(g, w, dd, nsamp)
        dev = ratio - 1.0  # exact mean 1
        v_hat = float(np.mean(dev**2))
        se = float(np.std(dev**2) / math.sqrt(nsamp))
        v = float(var(list(w / np.linalg.norm(w)), dd))
        if abs(v_hat - v) > 4 * se:
            raise AssertionError(
                f"d={dd}, m={w.size}: Var {v_hat:.5f} vs {v:.5f} (4 se = {4 * se:.5f})"
            )
        if abs(float(np.mean(ratio)) - 1.0) > 4 * math.sqrt(v / nsamp):
            raise AssertionError(
                f"d={dd}: mean of ||h||^2/||w||^2 is {np.mean(ratio):.5f}, not 1"
            )


@check("numeric")
def test_relative_variance_monte_carlo():
    monte_carlo_variance()


@check("mutation")
def test_monte_carlo_rejects_wrong_variance():
    assert_fails(
        monte_carlo_variance, wrong_variance, what="the variance (1 - sum a^4)/d"
    )


@check("numeric", slow=True)  # a Monte Carlo of the flow (~6 s)
def test_relative_event_monte_carlo():
    """m = 2 exact law, the bound, and lohe.relative_degenerate_probability vs numpy."""
    import jax

    from syncattn import lohe, sphere

    g = rng("relative_event")
    nsamp = 20_000 if CONFIG.quick else 100_000
    # m = 2 against the cap law
    for dd, (w1, w2), eps in (
        (3, (1.0, 1.5), 0.6),
        (8, (1.0, 1.0), 0.8),
        (16, (2.0, 1.0), 0.9),
    ):
        hits = np.mean(_ratios(g, [w1, w2], dd, nsamp) < eps**2)
        c = (1 - eps**2) * (w1**2 + w2**2) / (2 * w1 * w2)
        p = float(sphere.cap_probability(math.acos(c), dd)) if c < 1 else 0.0
        se = max(math.sqrt(p * (1 - p) / nsamp), 1 / nsamp)
        if abs(hits - p) > 4 * se:
            raise AssertionError(
                f"m=2, d={dd}: {hits:.5f} vs cap {p:.5f} (4 se {4 * se:.5f})"
            )
    # the bound is never exceeded (beyond 4 se), for fixed weights
    for dd, w, eps in (
        (4, np.ones(3), 0.5),
        (16, np.array([3.0, 1.0, 1.0, 0.5]), 0.7),
        (32 if CONFIG.quick else 64, np.ones(16), 0.5),
    ):
        hits = np.mean(_ratios(g, w, dd, nsamp) < eps**2)
        b = float(lohe.relative_degenerate_bound(w, eps, dd))
        if hits > b + 4 * math.sqrt(max(hits * (1 - hits), 1 / nsamp) / nsamp):
            raise AssertionError(f"d={dd}: P = {hits:.5f} above the bound {b:.5f}")
    # the library's Monte Carlo against an independent numpy one (softplus weights)
    prev = 1.0
    lib_dims = (6,) if CONFIG.quick else (2, 6, 12)  # one compilation per d
    for i, dd in enumerate((2, 6, 12)):
        wv = np.log1p(np.exp(g.standard_normal((nsamp, 8))))
        p_np = np.mean(_ratios(g, wv, dd, nsamp) < 0.36)
        if not p_np < prev:
            raise AssertionError(
                f"relative event did not decrease at d={dd}: {p_np} >= {prev}"
            )
        prev = p_np
        if dd not in lib_dims:
            continue
        p_lib, se_lib = lohe.relative_degenerate_probability(
            jax.random.key(CONFIG.seed + i), dd, 8, 0.6, nsamp
        )
        se = math.sqrt(float(se_lib) ** 2 + p_np * (1 - p_np) / nsamp + 1 / nsamp**2)
        if abs(float(p_lib) - p_np) > 4 * se:
            raise AssertionError(f"d={dd}: lohe {float(p_lib):.5f} vs numpy {p_np:.5f}")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

r"""Statement 3: selection as entropic phase retrieval (softmax is the entropic argmax).

Statement:
    For scores s in R^n and tau > 0, the objective f(a) = <a, s> + tau H(a),
    H(a) = -sum_i a_i log a_i, has on the probability simplex the unique
    maximiser a* = softmax(s / tau), and the optimum value is
    f(a*) = tau log sum_i exp(s_i / tau) (tau logsumexp(s / tau)).

Proof idea:
    (KKT) On the open simplex, stationarity of f - lambda (sum a - 1) reads
        s_i - tau (log a_i + 1) = lambda for every i,
    so a_i = exp(s_i / tau) / Z with Z = sum_j exp(s_j / tau) (normalisation).
    (Concavity) f is a separable sum of a_i s_i - tau a_i log a_i, whose
    Hessian is diag(-tau / a_i): negative definite on the open simplex.
    (Gibbs identity, global uniqueness) For every a in the simplex,
        f(a) = tau log Z - tau KL(a || a*),
    checked term by term: a_i s_i - tau a_i log a_i
    = tau a_i log Z - tau a_i log(a_i / a*_i) whenever log a*_i = s_i/tau - log Z,
    then summed with sum_i a_i = 1. KL(a || a*) >= 0 with equality iff a = a*,
    because log x <= x - 1 with equality iff x = 1 (g(x) = x - 1 - log x has
    g(1) = 0, g'(x) = 0 only at x = 1, g'' = 1/x^2 > 0), and
    sum_i a_i (a*_i / a_i - 1) = sum a* - sum a = 0. Hence a* is the unique
    maximiser (also against boundary points, where 0 log 0 = 0), and the
    maximum is tau log Z.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): normalisation, KKT stationarity and the optimum
    value for the candidate maximiser with n = 3 free scores; the Hessian for
    n = 3; the Gibbs identity for the generic term with a free normaliser Z
    (this is the argument valid for every n: both sides are sums of the generic
    term); the three facts about g. Numeric (float64): ``entropic.gibbs`` and
    ``entropic.objective`` against the lambdified softmax, logsumexp value,
    objective, and the Gibbs identity f(a) = f(a*) - tau KL(a || a*) at random
    scores, temperatures and Dirichlet points of the simplex.
    Mutation: the proof applied to softmax(tau s) (temperature inverted) must
    fail, and so must the numeric comparison applied to that wrong gibbs.

Mirrors: syncattn.entropic.gibbs, syncattn.entropic.objective.
Source: seed 000 (Kuramoto attention, arXiv 2606.11585), contribution 3: the
softmax weights solve an entropy-regularised phase-retrieval problem
(selection), unified with synchronisation (see statement 4).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import (
    assert_close,
    assert_fails,
    assert_true,
    assert_zero,
    check,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 3
TITLE = "Entropic selection: softmax(s/tau) uniquely maximises <a, s> + tau H(a); value tau logsumexp(s/tau)"
MIRRORS = ("syncattn.entropic.gibbs", "syncattn.entropic.objective")
PARTS = (
    Part(
        "a",
        "On the probability simplex (any n), <a, s> + tau H(a) <= tau log sum_i exp(s_i / tau).",
        "coq",
        coq="entropic_bound",
    ),
    Part(
        "b",
        "Equality holds iff a = softmax(s / tau): the softmax is the unique maximiser.",
        "coq",
        coq="entropic_selection",
    ),
    Part(
        "c",
        "softmax(s / tau) lies in the open simplex (positive entries summing to 1).",
        "coq",
        coq="softmax_in_simplex",
    ),
    Part(
        "d",
        "The maximum value f(softmax(s / tau)) = tau logsumexp(s / tau) is attained.",
        "coq",
        coq="entropic_value",
    ),
)
# SHA-256 of proofs/coq/entropic_selection_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "fc94f7a684a314f82668a6fdb6b254084fe4487873e10a1b167dfc464553111d"

tau, Z, x = sp.symbols("tau Z x", positive=True)
s_i, lam = sp.symbols("s_i lambda", real=True)
a_i = sp.Symbol("a_i", positive=True)


def softmax(s, tau):
    Zs = sum(sp.exp(sj / tau) for sj in s)
    return tuple(sp.exp(sj / tau) / Zs for sj in s)


def wrong_softmax(s, tau):
    """Mutation: temperature inverted, softmax(tau s)."""
    Zs = sum(sp.exp(sj * tau) for sj in s)
    return tuple(sp.exp(sj * tau) / Zs for sj in s)


def log_sum_exp_value(s, tau):
    return tau * sp.log(sum(sp.exp(sj / tau) for sj in s))


def objective(a, s, tau):
    return sum(ai * si for ai, si in zip(a, s)) - tau * sum(ai * sp.log(ai) for ai in a)


def _simp(e):
    return sp.simplify(sp.expand_log(sp.expand(e), force=True))


def prove(candidate=softmax, value=log_sum_exp_value, n: int = 3) -> None:
    """Symbolic proof that ``candidate`` is the maximiser and ``value`` the maximum."""
    s = sp.symbols(f"s0:{n}", real=True)
    a = candidate(s, tau)
    assert_zero(sum(a) - 1, "normalisation", simplify=_simp)
    # KKT: the partial derivatives s_i - tau (log a_i + 1) are all equal (= lambda)
    grad = [s[i] - tau * (sp.log(a[i]) + 1) for i in range(n)]
    for i in range(1, n):
        assert_zero(
            grad[i] - grad[0],
            f"KKT stationarity, coordinates 0 and {i}",
            simplify=_simp,
        )
    assert_zero(objective(a, s, tau) - value(s, tau), "optimum value", simplify=_simp)
    # strict concavity: Hessian diag(-tau / a_i)
    av = sp.symbols(f"b0:{n}", positive=True)
    H = sp.hessian(objective(av, s, tau), av)
    assert_zero(H - sp.diag(*[-tau / ai for ai in av]), "Hessian")
    for ai in av:
        assert_true((-tau / ai).is_negative, "Hessian entries negative")
    # Gibbs identity, generic term, free normaliser Z (valid for every n)
    log_astar = s_i / tau - sp.log(Z)
    lhs = a_i * s_i - tau * a_i * sp.log(a_i)
    rhs = tau * a_i * sp.log(Z) - tau * a_i * (sp.log(a_i) - log_astar)
    assert_zero(lhs - rhs, "Gibbs identity, generic term", simplify=_simp)
    # log x <= x - 1 with equality only at x = 1
    g = x - 1 - sp.log(x)
    assert_zero(g.subs(x, 1), "g(1) = 0")
    if sp.solve(sp.diff(g, x), x) != [1]:
        raise AssertionError("g'(x) = 0 must have the single root x = 1")
    assert_true(sp.diff(g, x, 2).is_positive, "g'' > 0")


@check("symbolic")
def test_entropic_symbolic():
    prove()


@check("mutation")
def test_entropic_rejects_inverted_temperature():
    assert_fails(prove, wrong_softmax, what="softmax(tau s)")


# ---------------------------------------------------------------- numeric
N = 6
_s = sp.symbols(f"s0:{N}", real=True)
_a = sp.symbols(f"a0:{N}", positive=True)
softmax_numpy = sp.lambdify([_s, tau], softmax(_s, tau), "numpy")
value_numpy = sp.lambdify([_s, tau], log_sum_exp_value(_s, tau), "numpy")
objective_numpy = sp.lambdify([_a, _s, tau], objective(_a, _s, tau), "numpy")


def compare(gibbs=None) -> None:
    import jax

    from syncattn import entropic

    # jitted: one compilation per function instead of one per eager op (same maths)
    gibbs, objective = jax.jit(gibbs or entropic.gibbs), jax.jit(entropic.objective)
    g = rng("entropic_selection")
    for t in (0.3, 2.5):  # batched scores, scalar temperature
        s = g.normal(scale=3.0, size=(2, N))
        a_star, v_star = (np.asarray(o) for o in gibbs(s, t))
        want_a = np.stack(softmax_numpy(list(s.T), t), -1)
        want_v = value_numpy(list(s.T), t)
        assert_close(a_star, want_a, "gibbs maximiser vs lambdified softmax")
        assert_close(v_star, want_v, "gibbs value vs lambdified tau logsumexp")
        a = g.dirichlet(np.ones(N), size=2)
        f = np.asarray(objective(a, s, t))
        assert_close(f, objective_numpy(list(a.T), list(s.T), t), "entropic.objective")
        kl = np.sum(a * np.log(a / want_a), -1)
        assert_close(f, want_v - t * kl, "Gibbs identity f(a) = f(a*) - tau KL(a||a*)")


@check("numeric")
def test_entropic_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_inverted_temperature():
    from syncattn import entropic

    def wrong(s, t):
        return entropic.gibbs(s * t * t, t)  # = softmax(tau s), value rescaled

    assert_fails(compare, wrong, what="gibbs with the temperature inverted")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

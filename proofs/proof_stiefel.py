r"""Statement 27: the Kuramoto flow on the Stiefel manifold St(p, n) is tangent, a gradient flow, and R never decreases all-to-all.

Statement:
    Let X_j in St(p, n) (X_j^T X_j = I_p), K_jk real, G_j = sum_k K_jk X_k, and the
    two fields
        Markdahl:   M_j = G_j - X_j G_j^T X_j  = sum_k K_jk (X_k - X_j X_k^T X_j),
        projection: P_j = G_j - X_j sym(X_j^T G_j)  (sym B = (B + B^T)/2).
    (a) Tangency: X_j^T F + F^T X_j = 0 for F = M_j and F = P_j (every n, p).
    (b) Relation: M_j = P_j + X_j skew(X_j^T G_j) for every matrix X_j (no constraint);
        on the manifold M_j = (I - X_j X_j^T) G_j + 2 X_j skew(X_j^T G_j),
        (I - X_j X_j^T / 2) M_j = P_j (M_j is the gradient of
        V = (1/2) sum_jk K_jk tr(X_j^T X_k) in the canonical metric
        tr(D^T (I - X X^T / 2) D), P_j its gradient in the embedded metric); at p = 1
        M_j = P_j = G_j - <x_j, G_j> x_j (the Lohe sphere field); at p = n, M_j = 2 P_j.
    (c) All-to-all, K_jk = K/N, S = sum_k X_k, R = ||S/N||_F^2 / p: along the Markdahl
        flow dR/dt = 2K/(N^3 p) sum_j (||(I - X_j X_j^T) S||_F^2 + 2 ||skew(X_j^T S)||_F^2),
        along the projection flow the same with 1 in place of 2; both >= 0.
    (d) (measured) For identical oscillators and p <= 2n/3 - 1 the flow synchronises
        from almost every start on every connected graph (Markdahl, Thunberg and
        Goncalves); seen from random starts on random connected graphs.

Proof idea:
    (a) X^T M + M^T X = X^T G (I - X^T X) + (I - X^T X) G^T X; with S = sym(X^T G),
        X^T P + P^T X = (I - X^T X) S + S (I - X^T X).
    (b) M - P = X (sym(X^T G) - G^T X) = X skew(X^T G); on the manifold X^T M = 2 skew(X^T G),
        so (I - X X^T/2) M = G - X G^T X - X skew(X^T G) = G - X sym(X^T G) = P; the
        canonical metric's gradient of f with Euclidean gradient G is the D with
        (I - X X^T/2) D = P_X(G) (Edelman, Arias and Smith 1998, sec. 2.4.4). At p = 1
        skew of a 1x1 matrix is 0; at p = n, M - 2P = (X X^T - I) G and X^T X = I
        implies X X^T = I for square X.
    (c) dR/dt = 2/(N^2 p) sum_j <S, F_j>, and for B = X^T S:
        <S, M> = ||(I - X X^T) S||^2 + 2 ||skew B||^2 + tr(B^T (I - X^T X) B)
        (from tr(B^T B) - tr(B^2) = 2 ||skew B||^2);
        <S, P> = ||(I - X X^T) S||^2 + ||skew B||^2 + (terms in I - X^T X).
    Only for all-to-all coupling: for a general symmetric K the potential V is
    non-decreasing (the same identity with G_j in place of S), not R.

What is symbolic and what is numeric:
    Coq (proofs/coq/stiefel.v): (a) for every n, p (matrices as nat -> nat -> R, the
    double sum exchanged); at p = 1 the tangency and M = P = the Lohe sphere field.
    Symbolic (sympy): (a) and the first identity of (b) for every n, p with
    noncommutative symbols (X^T X = 1 the only relation); (a), (b), (c) on St(2, 3)
    with free 3x2 matrices (N = 2 oscillators for (c)), an expression vanishing on the
    manifold when its remainder modulo a Groebner basis of the entries of X^T X - I is
    0 (ideal membership: a sound certificate); p = 1 on R^3 and p = n on O(2) the same
    way; the sign of (c) from its sum-of-squares form. Numeric (float64):
    lohe.markdahl_field and lohe.geometric_field on St(2, 5) against the lambdified
    fields, and (c)'s rate against jax.jvp of R along the field; (slow) R(t)
    non-decreasing along lohe.geometric_simulate and synchronisation from random starts.
    Mutation: a sign-flipped Markdahl field (tangency fails), the Markdahl rate with the
    projection's factor 1, and a sign-flipped implementation must each fail.

Mirrors: syncattn.lohe.markdahl_field, syncattn.lohe.geometric_field,
syncattn.lohe.geometric_simulate, syncattn.geometry.Stiefel.
Source: J. Markdahl, J. Thunberg and J. Goncalves, "High-dimensional Kuramoto models on
Stiefel manifolds synchronize complex networks almost globally", Automatica 113 (2020):
the model X_j' = sum_k K_jk (X_k - X_j X_k^T X_j) and almost-global synchronisation for
p <= 2n/3 - 1; issue 41 section 2. The metric relations and the exact rate are derived here.
"""

from __future__ import annotations

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


NUMBER = 27
TITLE = "Kuramoto flow on St(p, n): tangent, gradient (canonical / embedded metric), dR/dt >= 0 all-to-all"
MIRRORS = (
    "syncattn.lohe.markdahl_field",
    "syncattn.lohe.geometric_field",
    "syncattn.lohe.geometric_simulate",
    "syncattn.geometry.Stiefel",
)

# What proves each claim (proofs/_parts.py); the Coq theorems are in
# proofs/coq/stiefel.v, their statements in proofs/coq/stiefel_spec.v.
PARTS = (
    Part(
        "a(p=1)",
        "At p = 1, for every n, unit x and any G: the Markdahl field G - x <G, x> is "
        "orthogonal to x",
        "coq",
        coq="p1_tangent",
    ),
    Part(
        "b(p=1)",
        "At p = 1, for every n, x and G: the Markdahl field G - x (G^T x) equals the "
        "projection field G - x sym(x^T G), the Lohe sphere field G - <x, G> x",
        "coq",
        coq="p1_lohe",
    ),
    Part(
        "a(M)",
        "For every n, p and G, wherever X^T X = I_p: X^T M + M^T X = 0 for the Markdahl "
        "field M = G - X G^T X (tangent to St(p, n))",
        "coq",
        coq="markdahl_tangent",
    ),
    Part(
        "a(P)",
        "For every n, p and G, wherever X^T X = I_p: X^T P + P^T X = 0 for the "
        "projection field P = G - X sym(X^T G)",
        "coq",
        coq="projection_tangent",
    ),
    Part(
        "b",
        "M = P + X skew(X^T G) for every X; on St(p, n) (I - X X^T / 2) M = P (M the "
        "canonical-metric gradient, P the embedded one), M = 2P at p = n",
        "sympy",
        why="noncommutative algebra for every n, p and ideal membership on St(2, 3) and "
        "O(2); not formalised in Coq",
    ),
    Part(
        "c",
        "All-to-all (K_jk = K/N): dR/dt = 2K/(N^3 p) sum_j (||(I - X_j X_j^T) S||^2 + "
        "2 ||skew(X_j^T S)||^2) >= 0 (Markdahl), factor 1 for the projection form",
        "sympy",
        why="proved by ideal membership on St(2, 3) with N = 2 and a trace identity in "
        "general (the docstring's argument); not formalised in Coq",
    ),
    Part(
        "d",
        "Identical oscillators, p <= 2n/3 - 1: random starts on random connected graphs "
        "synchronise (R -> 1) along lohe.geometric_simulate, and R(t) never decreases "
        "all-to-all",
        "measured",
        why="the almost-global theorem of Markdahl et al. is cited, not re-proved; a "
        "simulation measures it",
    ),
)
COQ_SPEC_SHA256 = "2d687b94b1b985f3aeadeffaf3056ec7744770160575bbe91c2897014c8d3ded"


# --------------------------------------------------------------------------- symbolic
def _mat(name, n, p):
    return sp.Matrix(n, p, lambda i, a: sp.Symbol(f"{name}{i}{a}", real=True))


def _sym(B):
    return (B + B.T) / 2


def _skew(B):
    return (B - B.T) / 2


def markdahl(X, G):
    """G - X G^T X."""
    return G - X * G.T * X


def projection(X, G):
    """G - X sym(X^T G)."""
    return G - X * _sym(X.T * G)


def _manifold_reducer(Xs):
    """A function reducing a polynomial modulo the ideal of X^T X = I for each X in `Xs`
    (a Groebner basis per frame; frames on disjoint variables keep the union one)."""
    basis, gens = [], []
    for X in Xs:
        p = X.shape[1]
        rel = list(X.T * X - sp.eye(p))
        v = list(X)
        basis += list(sp.groebner(rel, *v, order="grevlex"))
        gens += v

    def reduce(expr):
        expr = sp.expand(expr)
        if expr == 0:
            return sp.Integer(0)
        others = sorted(expr.free_symbols - set(gens), key=str)
        _, r = sp.reduced(expr, basis, *gens, *others, order="grevlex")
        return sp.expand(r)

    return reduce


def _zero_on_manifold(M, reduce, what):
    assert_zero(M.applyfunc(reduce), what, simplify=sp.expand)


def prove_noncommutative(field="markdahl") -> None:
    """(a), (b) for every n, p: X, Xt, G, Gt noncommutative, Xt X = 1."""
    X, Xt, G, Gt = sp.symbols("X Xt G Gt", commutative=False)
    if field == "markdahl":
        F, Ft = G - X * Gt * X, Gt - Xt * G * Xt
    elif field == "projection":
        F = G - X * (Xt * G + Gt * X) / 2
        Ft = Gt - (Gt * X + Xt * G) / 2 * Xt
    else:  # a mutant: the sign of the cross term flipped
        F, Ft = G + X * Gt * X, Gt + Xt * G * Xt
    T = sp.expand(sp.expand(Xt * F + Ft * X).subs(Xt * X, 1))
    assert_zero(T, f"(a) tangency of the {field} field", simplify=sp.expand)
    M = G - X * Gt * X
    P = G - X * (Xt * G + Gt * X) / 2
    assert_zero(
        sp.expand(M - P - X * (Xt * G - Gt * X) / 2), "(b) M = P + X skew(X^T G)"
    )


def prove_small(field=markdahl, n=3, p=2) -> None:
    """(a), (b) on St(p, n) with free matrices, by ideal membership."""
    X, G = _mat("x", n, p), _mat("g", n, p)
    reduce = _manifold_reducer([X])
    F = field(X, G)
    _zero_on_manifold(X.T * F + F.T * X, reduce, "(a) tangency")
    M, P = markdahl(X, G), projection(X, G)
    assert_zero((M - P - X * _skew(X.T * G)).applyfunc(sp.expand), "(b) M - P")
    two = (sp.eye(n) - X * X.T) * G + 2 * X * _skew(X.T * G)
    _zero_on_manifold(M - two, reduce, "(b) M = (I - XX^T)G + 2X skew(X^T G)")
    _zero_on_manifold(
        (sp.eye(n) - X * X.T / 2) * M - P, reduce, "(b) canonical gradient"
    )


def prove_reductions() -> None:
    """p = 1: M = P = the Lohe sphere field (every x); p = n = 2: M = 2P on O(2)."""
    x, g = _mat("x", 3, 1), _mat("g", 3, 1)
    lohe = g - (x.T * g)[0, 0] * x
    assert_zero((markdahl(x, g) - lohe).applyfunc(sp.expand), "p = 1 Markdahl")
    assert_zero((projection(x, g) - lohe).applyfunc(sp.expand), "p = 1 projection")
    X, G = _mat("x", 2, 2), _mat("g", 2, 2)
    _zero_on_manifold(
        markdahl(X, G) - 2 * projection(X, G), _manifold_reducer([X]), "p = n"
    )


def rate(Xs, K, factor=2):
    """2K/(N^3 p) sum_j (||(I - X_j X_j^T) S||^2 + factor ||skew(X_j^T S)||^2)."""
    N, (n, p) = len(Xs), Xs[0].shape
    S = sum(Xs, sp.zeros(n, p))
    terms = [
        sum(e**2 for e in (sp.eye(n) - X * X.T) * S)
        + factor * sum(e**2 for e in _skew(X.T * S))
        for X in Xs
    ]
    return 2 * K / (N**3 * p) * sp.Add(*terms)


def prove_rate(field=markdahl, factor=2, N=3) -> None:
    """(c): dR/dt along `field` (all-to-all K/N) is `rate` on St(2, 3)^N, and >= 0."""
    K = sp.Symbol("K", positive=True)
    Xs = [_mat(f"x{j}_", 3, 2) for j in range(N)]
    S = sum(Xs, sp.zeros(3, 2))
    R = sum(e**2 for e in S) / (N**2 * 2)
    dR = 0
    for X in Xs:
        F = field(X, K / N * S)
        dR += sum(sp.diff(R, x) * f for x, f in zip(X, F))
    reduce = _manifold_reducer(Xs)
    assert_zero(reduce(dR - rate(Xs, K, factor)), "(c) dR/dt", simplify=sp.expand)
    assert_true(rate(Xs, K, factor).is_nonnegative, "(c) dR/dt >= 0")


def prove(field=markdahl, factor=2) -> None:
    prove_noncommutative("markdahl" if field is markdahl else "mutant")
    prove_noncommutative("projection")
    prove_small(field)
    prove_reductions()
    prove_rate(field, factor, N=2)
    prove_rate(projection, 1, N=2)


@check("symbolic")
def test_stiefel_flow_symbolic():
    prove()


@check("mutation")
def test_proof_rejects_a_sign_flipped_field():
    assert_fails(prove_noncommutative, "mutant", what="G + X G^T X (noncommutative)")
    assert_fails(
        prove_small, lambda X, G: G + X * G.T * X, what="G + X G^T X on St(2, 3)"
    )


@check("mutation")
def test_proof_rejects_the_markdahl_rate_with_factor_one():
    assert_fails(prove_rate, markdahl, 1, 2, what="the Markdahl rate with factor 1")


# --------------------------------------------------------------------------- numeric
def _lambdified():
    X, G = _mat("x", 5, 2), _mat("g", 5, 2)
    args = list(X) + list(G)
    return {
        name: sp.lambdify(args, f(X, G), "numpy")
        for name, f in (("markdahl", markdahl), ("projection", projection))
    }


def compare(field=None) -> None:
    import jax
    import jax.numpy as jnp

    from syncattn import geometry, lohe

    geo = geometry.Stiefel(2, 5)
    impl = {
        "markdahl": field or lohe.markdahl_field,
        "projection": lambda X, K: lohe.geometric_field(geo, X, K),
    }
    g = rng("stiefel")
    X = geo.random(jax.random.key(CONFIG.seed), (6,), jnp.float64)
    K = g.uniform(0.2, 1.5, (6, 6))
    G = np.einsum("jk,kab->jab", K, np.asarray(X))
    for name, f in _lambdified().items():
        want = np.stack([f(*X[j].ravel(), *G[j].ravel()) for j in range(6)])
        assert_close(impl[name](X, jnp.asarray(K)), want, f"{name} field", atol=1e-12)
    # (c): the rate against the derivative of R along the Markdahl field, all-to-all
    Xn, N = np.asarray(X), 6
    S = Xn.sum(0)
    sk = lambda B: (B - B.T) / 2
    terms = [
        np.sum(((np.eye(5) - x @ x.T) @ S) ** 2) + 2 * np.sum(sk(x.T @ S) ** 2)
        for x in Xn
    ]
    want = 2 * 1.3 / (N**3 * 2) * sum(terms)  # 2K/(N^3 p), K = 1.3, p = 2
    R = lambda Y: jnp.sum(jnp.mean(Y, 0) ** 2) / 2
    _, d = jax.jvp(R, (X,), (impl["markdahl"](X, 1.3),))
    assert_close(d, want, "dR/dt along the Markdahl field", atol=1e-13)


@check("numeric")
def test_fields_and_rate_match_the_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_a_sign_flipped_implementation():
    from syncattn import lohe

    assert_fails(
        compare, lambda X, K: -lohe.markdahl_field(X, K), what="a sign-flipped field"
    )


@check("numeric", slow=True)
def test_r_never_decreases_and_random_starts_synchronise():
    import jax
    import jax.numpy as jnp

    from syncattn import geometry, lohe

    geo = geometry.Stiefel(2, 5)  # p = 2 <= 2n/3 - 1 = 7/3
    X0 = geo.random(jax.random.key(CONFIG.seed), (10, 8), jnp.float64)
    for form in ("markdahl", "projection"):
        s = lohe.geometric_simulate(geo, X0, 1.0, 30.0, saveat=61, form=form)
        r = np.asarray(s.r)
        if np.any(np.diff(r, axis=0) < -1e-10):
            raise AssertionError(
                f"R decreased ({form}): {np.diff(r, axis=0).min():.3g}"
            )
        if r[-1].min() < 1 - 1e-6:
            raise AssertionError(f"not synchronised ({form}): R = {r[-1].min()}")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

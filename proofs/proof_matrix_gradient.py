r"""Statement 18: identical Lohe matrix oscillators are a gradient flow, and R never decreases.

Statement:
    Let U_j' = -i H U_j + K/(2N) sum_k (U_k - U_j U_k^H U_j), one common Hermitian H
    (or a common skew generator on SO(n)), K > 0, M = (1/N) sum_k U_k,
    R^2 = ||M||_F^2 / n. Then
    (a) V_j = e^{iHt} U_j solves V_j' = K/(2N) sum_k (V_k - V_j V_k^H V_j) (the
        co-rotating frame removes H), and R is the same in both frames;
    (b) V_j' = (K/2) (M - V_j M^H V_j) = K V_j skew(V_j^H M) = (K / 2N) P_{V_j}(dE/dV_j)
        for E = ||sum_j V_j||_F^2 (dE/dV_j = 2 N M): the gradient flow of
        (K/2N) E for the Frobenius metric;
    (c) dR^2/dt = (2K / (n N)) sum_j ||skew(U_j^H M)||_F^2 >= 0
        (lohe.matrix_order_rate), zero exactly at equilibria.

Proof idea:
    (a) E = e^{-iHt} is unitary and commutes with -iH: E V_k - E V_j V_k^H E^H E V_j
        = E (V_k - V_j V_k^H V_j); ||E M||_F = ||M||_F.
    (b) V skew(V^H M) = (V V^H M - V M^H V)/2 = (M - V M^H V)/2 with V V^H = I.
    (c) d||M||^2/dt = 2 Re tr(M^H M'), M' = (K/2)(M - (1/N) sum_j V_j M^H V_j);
        with B_j = V_j^H M: tr(M^H M) = tr(B_j^H B_j) and
        Re tr(M^H V_j M^H V_j) = Re tr(B_j^2), and for any square B
        tr(B^H B) - Re tr(B^2) = 2 ||skew B||_F^2.

What is symbolic and what is numeric:
    Symbolic (sympy): (a) and (b) with noncommutative symbols (relations V V^H = I,
    E^H E = I, E commuting with H only); the trace identity of (c) for a free complex
    3x3 B; (c) in full on SO(2) with N = 3 free angles (the Kuramoto case).
    Numeric (float64): lohe.matrix_order_rate against the derivative of R^2 along
    lohe.matrix_vector_field (jax.jvp) on SO(3) and U(3) with a common H; (slow)
    R(t) non-decreasing along lohe.matrix_simulate from Haar initial data.
    Mutation: the trace identity with a factor 1 instead of 2, and a rate missing
    its factor 2, must fail.

Mirrors: syncattn.lohe.matrix_order_rate, syncattn.lohe.matrix_simulate,
syncattn.group.order_parameter.
Source: the gradient structure of the identical Lohe matrix model is recalled in
S.-Y. Ha and H. Park, "A gradient flow formulation of the Lohe matrix model with a
high-order polynomial coupling" (arXiv:2004.05411, 2020): "the Lohe matrix model with
cubic couplings can recast as a gradient system with a potential which is a squared
Frobenius norm of averaged state". The exact dR^2/dt formula is derived here.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import (
    CONFIG,
    assert_close,
    assert_fails,
    assert_zero,
    check,
    pythagoras,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 18
TITLE = "Identical Lohe matrix flow: gradient of ||sum U_j||^2, exact dR^2/dt >= 0"
MIRRORS = (
    "syncattn.lohe.matrix_order_rate",
    "syncattn.lohe.matrix_simulate",
    "syncattn.group.order_parameter",
)

# What proves each claim (proofs/_parts.py); the Coq theorems are in
# proofs/coq/matrix_gradient.v, their statements in proofs/coq/matrix_gradient_spec.v.
PARTS = (
    Part(
        "a(i)",
        "For every curve F with F^H F = I and F' = -F W (W = -iH the common drift), "
        "V_j = F U_j solves the flow without drift wherever U solves the flow with drift W, "
        "for every n, N and real coupling K",
        "coq",
        coq="corotating",
    ),
    Part(
        "a(ii)",
        "R is the same in both frames: R(F U) = R(U) for every F with F^H F = I",
        "coq",
        coq="order_invariant",
    ),
    Part(
        "a(iii)",
        "F(t) = e^{iHt} is such a curve: (e^{iHt})^H e^{iHt} = I and "
        "d/dt e^{iHt} = iH e^{iHt} = -e^{iHt} W (the co-rotating frame removes H)",
        "sympy",
        why="needs the matrix exponential, not formalised in Coq; the sympy check takes "
        "E^H E = I and E H = H E as relations and proves the algebra "
        "E V_k - (E V_j)(E V_k)^H (E V_j) = E (V_k - V_j V_k^H V_j)",
    ),
    Part(
        "b(i)",
        "Without drift, on the group (V_j V_j^H = I): V_j' = (K/2)(M - V_j M^H V_j) = "
        "K V_j skew(V_j^H M) = (K/2N) P_{V_j}(2 sum_k V_k), for every n and N >= 1",
        "coq",
        coq="gradient_form",
    ),
    Part(
        "b(ii)",
        "P_V Z = V skew(V^H Z) is the orthogonal projection onto the tangent space at V "
        "(tangent, fixes tangent vectors, Z - P_V Z orthogonal to them in Re tr)",
        "coq",
        coq="projection",
    ),
    Part(
        "b(iii)",
        "2 sum_k V_k = 2 N M is the Frobenius gradient dE/dV_j of E = ||sum_k V_k||_F^2: for "
        "every population V, j < N and direction Z, d/ds E(V_j + s Z) at s = 0 is "
        "Re tr((2 sum_k V_k)^H Z)",
        "coq",
        coq="frobenius_gradient",
    ),
    Part(
        "c(i)",
        "Along solutions on the group with one common H: dR^2/dt = "
        "(2K/(nN)) sum_j ||skew(U_j^H M)||_F^2 (lohe.matrix_order_rate), at every time "
        "where every U_j is unitary, for every n and N >= 1",
        "coq",
        coq="order_derivative",
    ),
    Part(
        "c(ii)",
        "For K > 0 the rate is >= 0, and 0 exactly at the equilibria (every "
        "(K/2)(M - U_j M^H U_j) = 0), for every n and N",
        "coq",
        coq="rate_sign",
    ),
    Part(
        "d",
        "R(t) never decreases along lohe.matrix_simulate from Haar initial data",
        "measured",
        why="a property of the numerical integrator, measured by the slow check",
    ),
)
COQ_SPEC_SHA256 = "18da507399775b0f4e04b4579b30f5794b66f3e44156d4ba9bec1272472211ac"


def trace_gap(B, factor=2):
    """tr(B^H B) - Re tr(B^2) - factor ||skew B||_F^2 (0 for factor = 2)."""
    S = (B - B.H) / 2
    fro = sum(sp.Abs(s) ** 2 for s in S)
    return (B.H * B).trace() - sp.re((B * B).trace()) - factor * fro


def prove(factor=2) -> None:
    # (a) co-rotating frame: E V_k - (E V_j)(E V_k)^H (E V_j) = E (V_k - V_j V_k^H V_j)
    E, Eh, Vj, Vjh, Vk, Vkh = sp.symbols("E Eh Vj Vjh Vk Vkh", commutative=False)
    lhs = E * Vk - E * Vj * (Vkh * Eh) * E * Vj
    d = sp.expand(sp.expand(lhs - E * (Vk - Vj * Vkh * Vj)).subs(Eh * E, 1))
    assert_zero(d, "(a) co-rotating frame")
    # (b) V skew(V^H M) = (M - V M^H V) / 2 with V V^H = I
    M, Mh = sp.symbols("M Mh", commutative=False)
    d = sp.expand(
        sp.expand(Vj * (Vjh * M - Mh * Vj) / 2 - (M - Vj * Mh * Vj) / 2).subs(
            Vj * Vjh, 1
        )
    )
    assert_zero(d, "(b) gradient form")
    # (c) trace identity, free complex 3x3 B
    B = sp.Matrix(
        3,
        3,
        lambda i, j: (
            sp.Symbol(f"x{i}{j}", real=True) + sp.I * sp.Symbol(f"y{i}{j}", real=True)
        ),
    )
    assert_zero(
        sp.expand(sp.expand(trace_gap(B, factor), complex=True)), "(c) trace identity"
    )
    # (c) in full on SO(2), N = 3: R^2 = |mean e^{i th}|^2 (n = 2 rotations)
    th = sp.symbols("th0:3", real=True)
    Kc = sp.Symbol("K", positive=True)
    N, n = 3, 2
    rot = lambda t: sp.Matrix([[sp.cos(t), -sp.sin(t)], [sp.sin(t), sp.cos(t)]])
    Us = [rot(t) for t in th]
    Mm = sum(Us, sp.zeros(2, 2)) / N
    R2 = sum(m**2 for m in Mm) / n
    dth = [Kc / N * sum(sp.sin(tk - tj) for tk in th) for tj in th]  # Kuramoto on SO(2)
    dR2 = sum(sp.diff(R2, t) * v for t, v in zip(th, dth))
    rate = (
        2
        * Kc
        / (n * N)
        * sum(sum(s**2 for s in (Ui.T * Mm - Mm.T * Ui) / 2) for Ui in Us)
        * factor
        / 2
    )
    assert_zero(
        pythagoras(sp.expand_trig(sp.expand(dR2 - rate)), th), "(c) SO(2), N = 3"
    )


@check("symbolic")
def test_gradient_flow_symbolic():
    prove()


@check("mutation")
def test_proof_rejects_factor_one():
    assert_fails(prove, 1, what="the trace identity with factor 1")


def compare(rate=None) -> None:
    import jax
    import jax.numpy as jnp

    from syncattn import group, lohe

    rate = rate or lohe.matrix_order_rate
    g = rng("matrix_gradient")
    for kind, n in (("so", 3), ("u", 3)):
        N = 6
        U = group.sample_haar(jax.random.key(CONFIG.seed + n), N, n, kind)
        A = g.normal(size=(n, n))
        H = 0.5 * (A + A.T) + 0j if kind == "u" else 0.5 * (A - A.T)
        H = np.broadcast_to(H, (N, n, n))
        R2 = lambda V: jnp.sum(jnp.abs(jnp.mean(V, axis=-3)) ** 2) / n
        _, d = jax.jvp(R2, (U,), (lohe.matrix_vector_field(U, H, 1.3),))
        assert_close(rate(U, 1.3), d, f"dR^2/dt on {kind}({n})", atol=1e-13)


@check("numeric")
def test_rate_matches_the_flow():
    compare()


@check("mutation")
def test_comparison_rejects_rate_without_factor_two():
    from syncattn import lohe

    assert_fails(
        compare, lambda U, K: 0.5 * lohe.matrix_order_rate(U, K), what="half the rate"
    )


@check("numeric", slow=True)
def test_r_never_decreases_along_rkmk4():
    import jax

    from syncattn import group, lohe

    for kind, n in (("u", 2), ("so", 3)):
        U0 = group.sample_haar(jax.random.key(CONFIG.seed), 8, n, kind)
        s = lohe.matrix_simulate(U0, None, 1.0, 10.0, saveat=51, dt0=0.01)
        r = np.asarray(s.r)
        if np.any(np.diff(r) < -1e-13):
            raise AssertionError(
                f"R decreased on {kind}({n}): min step {np.diff(r).min():.3g}"
            )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

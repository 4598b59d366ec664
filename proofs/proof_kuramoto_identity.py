r"""Statement 1: the Kuramoto-attention value update is exactly the Kuramoto coupling.

Statement:
    For phases theta_t, theta_u, any real weights A_tu (u = 1..n, every n >= 1)
    and G = sum_u A_tu e^{i theta_u},

        -sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_tu sin(theta_u - theta_t).

Proof idea:
    Let L(G) = -sin(theta_t) Re G + cos(theta_t) Im G.
    (i) L is R-linear: L(G1 + c G2) = L(G1) + c L(G2) for complex G1, G2 and real
        c, because Re and Im are R-linear.
    (ii) For a single term G = A e^{i theta_u}:
         L(G) = A (cos theta_t sin theta_u - sin theta_t cos theta_u)
              = A sin(theta_u - theta_t)  (sine subtraction formula).
    (iii) G is a sum of such terms, so (i) and induction on n give the identity
          for every n and every real weight matrix (softmax or not).

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (i) with G1, G2 generic complex numbers and c real;
    (ii) for the generic term; and, as a redundant cross-check, the whole
    identity expanded for n = 4 with every symbol free. The extension to all n
    is the induction in (iii), which rests only on (i).
    Numeric (float64): the lambdified two sides against
    ``kuramoto.tangent_update`` and ``kuramoto.coupling_term`` at random phases
    and weights (batched, T != U so axis mix-ups fail), to 1e-12.
    Mutation: the same symbolic proof applied to the update with the sign of
    the sin(theta_t) Re G term flipped must fail, and so must the numeric
    comparison applied to a coupling with its sign flipped.

Mirrors: syncattn.kuramoto.tangent_update, syncattn.kuramoto.coupling_term.
Source: seed 000 (Kuramoto attention, arXiv 2606.11585), contribution 2 and the
"key identity" of its value-update section: the increment
a_tj = -sin(theta_tj) Re G_tj + cos(theta_tj) Im G_tj is exactly the Kuramoto
coupling sum_u A_tu sin(theta_uj - theta_tj), the softmax matrix acting as the
coupling kernel.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import assert_close, assert_fails, assert_zero, check, rng, run_module
from ._parts import Part


NUMBER = 1
TITLE = "Kuramoto identity: -sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_tu sin(theta_u - theta_t)"
MIRRORS = ("syncattn.kuramoto.tangent_update", "syncattn.kuramoto.coupling_term")
PARTS = (
    Part(
        "a",
        "For every phase theta_t and every finite family of real weights A_u and phases theta_u, -sin(theta_t) Re G + cos(theta_t) Im G = sum_u A_u sin(theta_u - theta_t), G = sum_u A_u e^{i theta_u}.",
        "coq",
        coq="kuramoto_identity",
    ),
)
# SHA-256 of proofs/coq/kuramoto_identity_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "89cec6733ae908808d7fdc338988af010c328f12364a148d2c4daf8e2b13b198"

theta_t, theta_u = sp.symbols("theta_t theta_u", real=True)
A, c = sp.symbols("A c", real=True)
x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2", real=True)


def update(th, G):
    """The left-hand side L(G) = -sin(theta_t) Re G + cos(theta_t) Im G."""
    return -sp.sin(th) * sp.re(G) + sp.cos(th) * sp.im(G)


def wrong_update(th, G):
    """Mutation: the sign of the sin(theta_t) Re G term flipped."""
    return sp.sin(th) * sp.re(G) + sp.cos(th) * sp.im(G)


def prove(L=update, n: int = 4) -> None:
    """Symbolic proof of the identity for the update rule ``L``; raises if false."""
    G1, G2 = x1 + sp.I * y1, x2 + sp.I * y2
    # (i) R-linearity, generic complex G1, G2, real c.
    assert_zero(
        sp.expand(L(theta_t, G1 + c * G2) - L(theta_t, G1) - c * L(theta_t, G2)),
        "linearity",
    )
    # (ii) generic term.
    term = L(theta_t, A * sp.exp(sp.I * theta_u)) - A * sp.sin(theta_u - theta_t)
    assert_zero(sp.expand_trig(sp.expand(term, complex=True)), "generic term")
    # cross-check: the whole identity for n tokens, every symbol free.
    th = sp.symbols(f"u0:{n}", real=True)
    a = sp.symbols(f"a0:{n}", real=True)
    G = sum(ai * sp.exp(sp.I * ti) for ai, ti in zip(a, th))
    rhs = sum(ai * sp.sin(ti - theta_t) for ai, ti in zip(a, th))
    assert_zero(
        sp.expand_trig(sp.expand(L(theta_t, G), complex=True) - rhs), f"n = {n}"
    )


@check("symbolic")
def test_identity_symbolic():
    prove(update)


@check("mutation")
def test_identity_rejects_flipped_sign():
    assert_fails(
        prove, wrong_update, what="the update with a flipped sin(theta_t) Re G sign"
    )


# ---------------------------------------------------------------- numeric
N_TOKENS = 5
_u = sp.symbols(f"v0:{N_TOKENS}", real=True)
_a = sp.symbols(f"w0:{N_TOKENS}", real=True)
_re, _im = sp.symbols("re im", real=True)
lhs_numpy = sp.lambdify([theta_t, _re, _im], update(theta_t, _re + sp.I * _im), "numpy")
rhs_numpy = sp.lambdify(
    [theta_t, _u, _a], sum(ai * sp.sin(ui - theta_t) for ai, ui in zip(_a, _u)), "numpy"
)


def _points():
    g = rng("kuramoto_identity")
    B, T, U, k = 2, 3, N_TOKENS, 4
    th_t = g.uniform(-7, 7, (B, T, k))
    th_u = g.uniform(-7, 7, (B, U, k))
    W = g.normal(size=(B, T, U))  # any real weights, not only softmax rows
    return th_t, th_u, W


def compare(coupling_term=None, tangent_update=None) -> None:
    """float64: lambdified sides vs the implementation; raises on mismatch."""
    import jax

    from syncattn import kuramoto

    # jitted: one compilation per function instead of one per eager op (same maths)
    coupling_term = jax.jit(coupling_term or kuramoto.coupling_term)
    tangent_update = jax.jit(tangent_update or kuramoto.tangent_update)
    th_t, th_u, W = _points()
    G = np.einsum("btu,buk->btk", W, np.exp(1j * th_u))  # independent G
    # lambdified right-hand side, broadcast over (b, t, k): tokens as separate args
    rhs = rhs_numpy(
        th_t,
        [th_u[:, None, u, :] for u in range(N_TOKENS)],
        [W[:, :, u, None] for u in range(N_TOKENS)],
    )
    lhs = lhs_numpy(th_t, G.real, G.imag)
    assert_close(lhs, rhs, "lambdified sides disagree")
    assert_close(coupling_term(th_t, th_u, W), rhs, "kuramoto.coupling_term")
    assert_close(tangent_update(th_t, G), lhs, "kuramoto.tangent_update")


@check("numeric")
def test_identity_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_coupling():
    from syncattn import kuramoto

    flipped = lambda th_t, th_u, W: -kuramoto.coupling_term(th_t, th_u, W)
    assert_fails(compare, flipped, what="a coupling_term with its sign flipped")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

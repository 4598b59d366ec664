r"""Statement 4: synchronisation as coherence ascent (the Kuramoto flow is a gradient flow).

Statement:
    (a) For a fixed phasor G, d/d theta_t Re(e^{-i theta_t} G) = -sin(theta_t) Re G
        + cos(theta_t) Im G, which for G = sum_u A_tu e^{i theta_u} is the Kuramoto
        coupling sum_u A_tu sin(theta_u - theta_t): each token climbs its local
        coherence.
    (b) For a symmetric coupling matrix K (K_ij = K_ji) and
        E(theta) = -(1/2) sum_ij K_ij cos(theta_j - theta_i),
        -dE/d theta_i = sum_j K_ij sin(theta_j - theta_i): with omega = 0 the
        Kuramoto flow is the gradient flow theta' = -grad E.
    (c) Along that flow dE/dt = -|grad E|^2 <= 0: the energy never increases.
    (d) For scalar K (K_ij = K/N), E = -(K N / 2) R^2 with R e^{i psi} the order
        parameter, so descending E synchronises.

Proof idea:
    (a) Re(e^{-i theta} G) = cos(theta) Re G + sin(theta) Im G; differentiate,
        then use the generic term and linearity exactly as in statement 1.
    (b) theta_i enters E only through the pair terms (i, j) and (j, i). For one
        pair, -d/d theta_i of -(1/2)(K_ij cos(theta_j - theta_i) + K_ji cos(theta_i - theta_j))
        = (1/2)(K_ij + K_ji) sin(theta_j - theta_i), which is K_ij sin(theta_j - theta_i)
        iff K_ij = K_ji; the diagonal terms are constant. Summing over j gives (b)
        for every N. Without symmetry the identity fails (checked).
    (c) Chain rule: dE/dt = sum_i (dE/d theta_i) theta_i' = -sum_i (theta_i')^2.
    (d) sum_ij cos(theta_j - theta_i) = |sum_j e^{i theta_j}|^2 = N^2 R^2.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) for a free complex G and the generic term;
    (b) for the generic pair (the argument for every N) and, as a cross-check,
    for N = 4 with a free symmetric matrix; the failure of (b) for a free
    non-symmetric matrix; (c) for N = 3 with a free symmetric matrix and its
    sign (a negative sum of real squares); (d) for N = 3.
    Numeric (float64): jax.grad of ``entropic.local_coherence`` against the
    lambdified derivative and ``kuramoto.coupling_term``; ``coherence_energy``
    and -jax.grad of it against the lambdified E and -grad E and against
    ``kuramoto.vector_field(theta, 0, K)`` for a symmetric matrix and a scalar
    coupling; and a theorem check: along an independent scipy DOP853
    integration of ``kuramoto.vector_field`` with omega = 0 and a symmetric
    coupling, E(theta(t)) never increases and its drop equals the integral of
    |grad E|^2.
    Mutation: the proof applied to an energy without the factor 1/2 must fail;
    the numeric comparison must reject that energy (2 E).

Mirrors: syncattn.entropic.local_coherence, syncattn.kuramoto.coherence_energy,
syncattn.kuramoto.vector_field.
Source: seed 000 (Kuramoto attention, arXiv 2606.11585), contribution 3: the layer
selects neighbours, then synchronises with them by following the gradient of a
coherence energy ("selection and synchronisation as one coherence"); the
local order parameter staying near 1 in its dynamics observations.
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
    trig_zero,
)
from ._parts import Part


NUMBER = 4
TITLE = "Coherence ascent: d/dtheta_t Re(e^{-i theta_t} G) is the Kuramoto coupling; symmetric Kuramoto = gradient flow of E"
MIRRORS = (
    "syncattn.entropic.local_coherence",
    "syncattn.kuramoto.coherence_energy",
    "syncattn.kuramoto.vector_field",
)
PARTS = (
    Part(
        "a",
        "d/dtheta_t Re(e^{-i theta_t} G) = sum_u A_u sin(theta_u - theta_t), the Kuramoto coupling.",
        "coq",
        coq="local_coherence_ascent",
    ),
    Part(
        "b",
        "For symmetric K and any N, -dE/dtheta_m = sum_j K_mj sin(theta_j - theta_m): the omega = 0 Kuramoto flow is the gradient flow of E.",
        "coq",
        coq="coherence_gradient",
    ),
    Part(
        "c",
        "Along every solution of theta' = -grad E, d/dt E(theta(t)) = -|grad E|^2 <= 0.",
        "coq",
        coq="energy_descent",
    ),
    Part(
        "d",
        "For scalar coupling K_ij = K/N, E = -(K N / 2) R^2 with R the order-parameter modulus.",
        "coq",
        coq="energy_order_parameter",
    ),
)
# SHA-256 of proofs/coq/coherence_gradient_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "4c695a93603c80b8fbde3779d057e6d6015a414d1340a7a243c35b6ce282bcc1"

theta_t, theta_u, A, X, Y = sp.symbols("theta_t theta_u A X Y", real=True)
th_i, th_j, K_ij, K_ji = sp.symbols("theta_i theta_j K_ij K_ji", real=True)


def energy(theta, K):
    """E = -(1/2) sum_ij K_ij cos(theta_j - theta_i) for a sympy matrix K."""
    n = len(theta)
    return -sp.Rational(1, 2) * sum(
        K[i, j] * sp.cos(theta[j] - theta[i]) for i in range(n) for j in range(n)
    )


def wrong_energy(theta, K):
    """Mutation: the factor 1/2 dropped."""
    n = len(theta)
    return -sum(
        K[i, j] * sp.cos(theta[j] - theta[i]) for i in range(n) for j in range(n)
    )


def symmetric_matrix(n, name="k"):
    return sp.Matrix(
        n, n, lambda i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True)
    )


def field(theta, K):
    """The omega = 0 Kuramoto field sum_j K_ij sin(theta_j - theta_i)."""
    n = len(theta)
    return [
        sum(K[i, j] * sp.sin(theta[j] - theta[i]) for j in range(n)) for i in range(n)
    ]


def _trig(e):
    return trig_zero(e)


def prove(E=energy, n: int = 4) -> None:
    """Symbolic proof of (a)-(d) for the energy ``E``; raises if false."""
    # (a) derivative of the local coherence, free complex G, then the generic term
    coh = sp.re(sp.exp(-sp.I * theta_t) * (X + sp.I * Y))
    d = sp.diff(sp.expand(coh, complex=True), theta_t)
    assert_zero(d - (-sp.sin(theta_t) * X + sp.cos(theta_t) * Y), "(a) derivative")
    term = d.subs({X: A * sp.cos(theta_u), Y: A * sp.sin(theta_u)}) - A * sp.sin(
        theta_u - theta_t
    )
    assert_zero(term, "(a) generic term", simplify=_trig)
    # (b) generic pair (valid for every N), symmetric weights
    pair = E((th_i, th_j), sp.Matrix([[0, K_ij], [K_ji, 0]]))
    assert_zero(
        (-sp.diff(pair, th_i) - K_ij * sp.sin(th_j - th_i)).subs(K_ji, K_ij),
        "(b) generic pair",
        simplify=_trig,
    )
    # (b) cross-check for N = n with a free symmetric matrix
    th = sp.symbols(f"theta0:{n}", real=True)
    K = symmetric_matrix(n)
    En, F = E(th, K), field(th, K)
    for i in range(n):
        assert_zero(-sp.diff(En, th[i]) - F[i], f"(b) N = {n}, i = {i}", simplify=_trig)
    # (c) dE/dt = -|grad E|^2 along theta' = F, N = 3
    th3, K3 = th[:3], symmetric_matrix(3)
    E3, F3 = E(th3, K3), field(th3, K3)
    dEdt = sum(sp.diff(E3, t) * f for t, f in zip(th3, F3))
    assert_zero(dEdt + sum(f**2 for f in F3), "(c) dE/dt = -|F|^2", simplify=_trig)
    assert_true((-sum(f**2 for f in F3)).is_nonpositive, "(c) -|F|^2 <= 0")
    # (d) scalar coupling: E = -(K N / 2) R^2, R^2 = |mean e^{i theta}|^2
    Ks = sp.Symbol("K", real=True)
    Kmat = sp.Matrix(3, 3, lambda i, j: Ks / 3)
    R2 = (sum(sp.cos(t) for t in th3) ** 2 + sum(sp.sin(t) for t in th3) ** 2) / 9
    assert_zero(E(th3, Kmat) + Ks * 3 / 2 * R2, "(d) E = -(K N/2) R^2", simplify=_trig)


def prove_needs_symmetry() -> None:
    """(b) is false for a free non-symmetric matrix: the hypothesis is needed."""
    th = sp.symbols("theta0:3", real=True)
    K = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"m{i}{j}", real=True))
    assert_zero(
        -sp.diff(energy(th, K), th[0]) - field(th, K)[0],
        "(b) without symmetry",
        simplify=_trig,
    )


@check("symbolic")
def test_gradient_symbolic():
    prove()


@check("symbolic")
def test_gradient_needs_symmetry():
    assert_fails(prove_needs_symmetry, what="a non-symmetric coupling matrix")


@check("mutation")
def test_gradient_rejects_missing_half():
    assert_fails(prove, wrong_energy, what="an energy without the factor 1/2")


# ---------------------------------------------------------------- numeric
N = 4
_th = sp.symbols(f"t0:{N}", real=True)
_K = sp.MatrixSymbol("K", N, N)
_E = energy(_th, sp.Matrix(_K))
energy_numpy = sp.lambdify([_th, _K], _E, "numpy")
neg_grad_numpy = sp.lambdify([_th, _K], [-sp.diff(_E, t) for t in _th], "numpy")
dcoh_numpy = sp.lambdify(
    [theta_t, X, Y],
    sp.diff(
        sp.expand(sp.re(sp.exp(-sp.I * theta_t) * (X + sp.I * Y)), complex=True),
        theta_t,
    ),
)


def compare(coherence_energy=None) -> None:
    import jax
    import jax.numpy as jnp

    from syncattn import entropic, kuramoto

    # jitted: one compilation per function instead of one per eager op (same maths)
    coherence_energy = jax.jit(coherence_energy or kuramoto.coherence_energy)
    coupling_term, vector_field = (
        jax.jit(kuramoto.coupling_term),
        jax.jit(kuramoto.vector_field),
    )
    g = rng("coherence_gradient")
    # (a) local coherence gradient
    th_t, th_u, W = (
        g.uniform(-7, 7, (3, 2)),
        g.uniform(-7, 7, (5, 2)),
        g.normal(size=(3, 5)),
    )
    G = W @ np.exp(1j * th_u)
    grad = jax.jit(
        jax.grad(lambda t: jnp.sum(entropic.local_coherence(t, jnp.asarray(G))))
    )(jnp.asarray(th_t))
    assert_close(
        grad, dcoh_numpy(th_t, G.real, G.imag), "jax.grad(entropic.local_coherence)"
    )
    assert_close(
        grad,
        coupling_term(th_t, th_u, W),
        "grad local coherence vs coupling_term",
    )
    # (b) symmetric matrix and scalar coupling
    theta = g.uniform(-7, 7, N)
    M = g.normal(size=(N, N))
    for K, Kmat in ((M + M.T, M + M.T), (1.7, np.full((N, N), 1.7 / N))):
        want_E = energy_numpy(list(theta), Kmat)
        want_F = np.array(neg_grad_numpy(list(theta), Kmat))
        assert_close(
            coherence_energy(theta, K), want_E, "coherence_energy vs lambdified E"
        )
        neg = -jax.jit(jax.grad(coherence_energy))(jnp.asarray(theta), K)
        assert_close(neg, want_F, "-jax.grad(coherence_energy) vs lambdified -grad E")
        assert_close(
            vector_field(theta, 0.0, K),
            want_F,
            "kuramoto.vector_field(theta, 0, K)",
        )


@check("numeric")
def test_gradient_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_missing_half():
    from syncattn import kuramoto

    assert_fails(
        compare,
        lambda t, K: 2.0 * kuramoto.coherence_energy(t, K),
        what="the energy 2 E",
    )


@check("numeric")
def test_energy_never_increases_along_flow():
    """Theorem check: E(theta(t)) is non-increasing along the omega = 0 flow (K = K^T)."""
    import jax
    from scipy.integrate import solve_ivp

    from syncattn import kuramoto

    n, t1 = (12, 10.0) if CONFIG.quick else (64, 20.0)
    g = rng("energy_descent")
    M = g.normal(size=(n, n)) / n
    K = M + M.T
    theta0 = g.uniform(-np.pi, np.pi, n)
    field = jax.jit(
        lambda th: kuramoto.vector_field(th, 0.0, K)
    )  # the implementation's flow
    ts = np.linspace(0.0, t1, 81)
    sol = solve_ivp(
        lambda _, y: np.asarray(field(y)),
        (0.0, t1),
        theta0,
        method="DOP853",
        t_eval=ts,
        rtol=1e-11,
        atol=1e-12,
    )
    E = np.asarray(kuramoto.coherence_energy(sol.y.T, K))
    rises = np.diff(E)
    if np.max(rises) > 1e-9 * max(1.0, np.max(np.abs(E))):
        raise AssertionError(
            f"energy increased by {np.max(rises):.3g} along the omega = 0 flow"
        )
    if not E[-1] < E[0]:
        raise AssertionError("energy did not decrease at all along the flow")
    # dE/dt = -|F|^2: the energy drop equals the integral of |F|^2 (trapezoid on a fine grid)
    F2 = np.sum(np.asarray(jax.vmap(field)(sol.y.T)) ** 2, -1)
    drop = np.trapezoid(F2, ts) if hasattr(np, "trapezoid") else np.trapz(F2, ts)
    assert_close(E[0] - E[-1], drop, "E(0) - E(t1) = integral of |grad E|^2", rtol=2e-3)


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

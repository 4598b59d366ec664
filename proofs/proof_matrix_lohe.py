r"""Statement 17: the Lohe matrix flow keeps the group, RKMK4 keeps it to rounding, and on U(1) it is Kuramoto.

Statement:
    For U_j' = W_j U_j + 1/2 sum_k K_jk (U_k - U_j U_k^H U_j), W_j^H = -W_j
    (W_j = -i H_j, H_j Hermitian; or a real skew Omega_j on SO(n)), any real K:
    (a) d/dt (U_j^H U_j) = 0 wherever U_j^H U_j = U_j U_j^H = I: the group is
        invariant, and U_j^H U_j' is in the Lie algebra (the field is tangent);
    (b) on U(1), U_j = e^{i theta_j}, W_j = -i H_j: U_j' = i theta_j' U_j with
        theta_j' = -H_j + sum_k K_jk sin(theta_k - theta_j), the Kuramoto model with
        omega_j = -H_j.
    The RKMK4 integrator (lohe.matrix_simulate) multiplies by exponentials of Lie
    algebra elements only, so it keeps U^H U = I up to rounding: 1e-12 over t = 100.

Proof idea:
    (a) U^H (W U) + (W U)^H U = U^H (W + W^H) U = 0; for each k,
        U^H (U_k - U U_k^H U) + (U_k^H - U^H U_k U^H) U = U^H U_k - U_k^H U + U_k^H U
        - U^H U_k = 0 using U^H U = I.
    (b) e^{i theta_k} - e^{i theta_j} e^{-i theta_k} e^{i theta_j}
        = 2 i sin(theta_k - theta_j) e^{i theta_j}.

What is symbolic and what is numeric:
    Symbolic (sympy): (a) with noncommutative symbols, the relations U^H U = I and
    W^H = -W only, for 3 oscillators and a free real K; (b) for 3 oscillators with
    free angles, H and K.
    Numeric (float64): lohe.matrix_vector_field against the lambdified U(1) field
    and kuramoto.vector_field; the theorem checks (slow): lohe.matrix_simulate on
    SO(3) keeps ||U^H U - I||_F < 1e-12 over t = 100, and on U(1) equals
    kuramoto.simulate (Dopri8, rtol 1e-13) to 1e-10.
    Mutation: (a) with the coupling U_k - U_j U_k U_j and (b) with +i H_j must fail;
    the numeric comparison must reject a field with the drift's sign flipped.

Mirrors: syncattn.lohe.matrix_vector_field, syncattn.lohe.matrix_simulate,
syncattn.kuramoto.simulate.
Source: M. A. Lohe, "Non-Abelian Kuramoto models and synchronization", J. Phys. A 42
(2009) 395101: the model on U(n) and its reduction to Kuramoto on U(1).
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
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 17
TITLE = "Lohe matrix flow: U(n) / SO(n) invariant (RKMK4 keeps it), Kuramoto on U(1)"
MIRRORS = (
    "syncattn.lohe.matrix_vector_field",
    "syncattn.lohe.matrix_simulate",
    "syncattn.kuramoto.simulate",
)

# What proves each claim (proofs/_parts.py); the Coq theorems are in
# proofs/coq/matrix_lohe.v, their statements in proofs/coq/matrix_lohe_spec.v.
PARTS = (
    Part(
        "a(i)",
        "Where U_j^H U_j = I and W_j^H = -W_j, U_j^H f_j equals skew(U_j^H (W_j U_j + M_j)) "
        "(the field RKMK4 integrates) and is skew-Hermitian: the field is tangent to "
        "U(n) / SO(n), for every n, N and real K",
        "coq",
        coq="tangent",
    ),
    Part(
        "a(ii)",
        "Along every solution, d/dt (U_j^H U_j) = 0 at each time where U_j^H U_j = I",
        "coq",
        coq="gram_stationary",
    ),
    Part(
        "a(iii)",
        "A solution that starts in U(n) / SO(n) stays in it (the group is invariant): on "
        "every [0, T] where U solves the flow, U_j(0)^H U_j(0) = I gives U_j(t)^H U_j(t) = I",
        "coq",
        coq="group_invariant",
    ),
    Part(
        "b(i)",
        "On U(1), U_j = e^{i theta_j}, W_j = -i H_j: f_j = i theta_j' U_j with theta_j' = "
        "-H_j + sum_k K_jk sin(theta_k - theta_j), the Kuramoto field with omega = -H",
        "coq",
        coq="u1_kuramoto",
    ),
    Part(
        "b(ii)",
        "On U(1) a Kuramoto solution theta(t) gives the solution e^{i theta(t)} of the "
        "matrix flow",
        "coq",
        coq="u1_solution",
    ),
    Part(
        "c",
        "lohe.matrix_simulate (RKMK4) keeps ||U^H U - I||_F < 1e-12 on SO(3) over t = 100",
        "measured",
        why="a floating-point property of the integrator, measured by the slow check",
    ),
    Part(
        "d",
        "On U(1), lohe.matrix_simulate equals kuramoto.simulate (Dopri8, rtol 1e-13) to 1e-10",
        "measured",
        why="a comparison of two numerical integrators, measured by the slow check",
    ),
)
COQ_SPEC_SHA256 = "86351864c5c80a26fdb9765bc3fd735c2a601596546a0d3c24d578ee249aa42b"


def pair(U, Uh, V, Vh):
    """The Lohe coupling term U_k - U_j U_k^H U_j and its adjoint (noncommutative)."""
    return V - U * Vh * U, Vh - Uh * V * Uh


def wrong_pair(U, Uh, V, Vh):
    """Mutation: U_k - U_j U_k U_j (no adjoint)."""
    return V - U * V * U, Vh - Uh * Vh * Uh


def prove_invariance(term=pair, n: int = 3) -> None:
    Us = sp.symbols(f"U0:{n}", commutative=False)
    Uh = sp.symbols(f"Uh0:{n}", commutative=False)
    W, Wh = sp.symbols("W Wh", commutative=False)
    K = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"K{i}{j}", real=True))
    for j in range(n):
        f = (
            W * Us[j]
            + sum(K[j, k] * term(Us[j], Uh[j], Us[k], Uh[k])[0] for k in range(n)) / 2
        )
        fh = (
            Uh[j] * Wh
            + sum(K[j, k] * term(Us[j], Uh[j], Us[k], Uh[k])[1] for k in range(n)) / 2
        )
        d = sp.expand(Uh[j] * f + fh * Us[j])
        d = sp.expand(d.subs({Wh: -W}).subs(Uh[j] * Us[j], 1).subs(Us[j] * Uh[j], 1))
        assert_zero(d, f"(a) d(U_{j}^H U_{j})/dt")


def kuramoto_field(H, sign=-1):
    return sign * sp.I * H


def prove_u1(drift=kuramoto_field, n: int = 3) -> None:
    th = sp.symbols(f"th0:{n}", real=True)
    H = sp.symbols(f"H0:{n}", real=True)
    K = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"K{i}{j}", real=True))
    e = [sp.exp(sp.I * t) for t in th]
    for j in range(n):
        f = (
            drift(H[j]) * e[j]
            + sum(K[j, k] * (e[k] - e[j] * sp.conjugate(e[k]) * e[j]) for k in range(n))
            / 2
        )
        rate = -H[j] + sum(K[j, k] * sp.sin(th[k] - th[j]) for k in range(n))
        r = sp.expand(sp.expand(f / (sp.I * e[j])).rewrite(sp.cos) - rate)
        assert_zero(
            sp.expand(sp.expand_trig(r)),
            f"(b) U(1), oscillator {j}",
            simplify=lambda x: x,
        )


@check("symbolic")
def test_invariance_symbolic():
    prove_invariance()


@check("symbolic")
def test_u1_reduction_symbolic():
    prove_u1()


@check("mutation")
def test_invariance_rejects_wrong_coupling():
    assert_fails(prove_invariance, wrong_pair, what="U_k - U_j U_k U_j")


@check("mutation")
def test_u1_rejects_wrong_drift_sign():
    assert_fails(prove_u1, lambda H: kuramoto_field(H, +1), what="+iH drift")


def compare(field=None) -> None:
    from syncattn import kuramoto, lohe

    field = field or lohe.matrix_vector_field
    g = rng("matrix_lohe")
    N = 5
    th, H, K = g.uniform(-4, 4, N), g.normal(size=N), g.normal(size=(N, N))
    U = np.exp(1j * th)[:, None, None]
    f = np.asarray(field(U, H[:, None, None] + 0j, K))[:, 0, 0]
    assert_close(f / (1j * U[:, 0, 0]), kuramoto.vector_field(th, -H, K), "U(1) field")


@check("numeric")
def test_u1_field_matches_kuramoto():
    compare()


@check("mutation")
def test_comparison_rejects_flipped_drift():
    from syncattn import lohe

    flipped = lambda U, H, K: lohe.matrix_vector_field(U, -H, K)
    assert_fails(compare, flipped, what="a field with the drift's sign flipped")


@check("numeric", slow=True)
def test_rkmk4_keeps_the_group_and_reduces_to_kuramoto():
    import jax.numpy as jnp

    from syncattn import group, kuramoto, lohe

    g = rng("matrix_lohe_sim")
    import jax

    U0 = group.sample_haar(jax.random.key(CONFIG.seed), 4, 3, "so")
    A = g.normal(size=(4, 3, 3))
    Om = 0.5 * (A - np.swapaxes(A, -1, -2))
    t1 = 20.0 if CONFIG.quick else 100.0
    s = lohe.matrix_simulate(U0, Om, 1.0, t1, saveat=3, dt0=0.01)
    drift = float(jnp.max(group.defect(s.states)))
    if drift > 1e-12:
        raise AssertionError(f"RKMK4 drifted off SO(3): {drift:.3g}")
    th, om = g.uniform(-3, 3, 6), g.normal(size=6)
    m = lohe.matrix_simulate(
        np.exp(1j * th)[:, None, None],
        (-om)[:, None, None] + 0j,
        1.5,
        5.0,
        saveat=6,
        dt0=0.0025,
    )
    k = kuramoto.simulate(
        th, om, 1.5, 5.0, saveat=6, solver="dopri8", rtol=1e-13, atol=1e-13
    )
    err = np.max(
        np.abs(
            np.angle(
                np.asarray(m.states[..., 0, 0]) * np.exp(-1j * np.asarray(k.theta))
            )
        )
    )
    if err > 1e-10:
        raise AssertionError(f"U(1) flow differs from kuramoto.simulate by {err:.3g}")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

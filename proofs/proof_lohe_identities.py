r"""Statement 16: the attention identities on S^{n-1} and on SO(n) / U(n).

Statement:
    (a) Sphere. For vectors z_t, z_u in R^n, any real weights A_tu and
        G = sum_u A_tu z_u,
            (I - z_t z_t^T) G = sum_u A_tu (z_u - <z_u, z_t> z_t)
        (no unit norm needed). At n = 2, z = (cos theta, sin theta), the component
        along (-sin theta_t, cos theta_t) is sum_u A_tu sin(theta_u - theta_t), the
        Kuramoto identity (statement 1).
    (b) Group. For U_t with U_t U_t^H = I, any matrices U_u, real A_tu and
        G = sum_u A_tu U_u,
            U_t skew(U_t^H G) = 1/2 sum_u A_tu (U_u - U_t U_u^H U_t),
        the left-trivialised Lohe matrix coupling; on U(1), U = e^{i theta},
        skew(U_t^H G) = i sum_u A_tu sin(theta_u - theta_t).

Proof idea:
    (a) (I - z_t z_t^T) is linear and (I - z_t z_t^T) z_u = z_u - <z_u, z_t> z_t.
    (b) U_t skew(U_t^H G) = 1/2 (U_t U_t^H G - U_t G^H U_t) = 1/2 (G - U_t G^H U_t)
        using U_t U_t^H = I, and G^H = sum_u A_tu U_u^H because A_tu is real.

What is symbolic and what is numeric:
    Symbolic (sympy): (a) with free vectors in R^3 and 3 free weights; n = 2 reduction
    with free angles; (b) with noncommutative symbols (the only relation used is
    U_t U_t^H = I) and G^H = sum A U^H for real weights; the U(1) case with angles.
    Numeric (float64): lohe.sphere_coupling, lohe.sphere_tangent_update,
    lohe.matrix_coupling, lohe.matrix_tangent_update against float64 loops (T != U,
    k = 2 banks), and the U(1) case against kuramoto.coupling_term.
    Mutation: (I + z z^T) in (a), the Hermitian part in place of skew in (b) and a
    sign-flipped matrix coupling must each fail.

Mirrors: syncattn.lohe.sphere_tangent_update, syncattn.lohe.sphere_coupling,
syncattn.lohe.matrix_tangent_update, syncattn.lohe.matrix_coupling.
Source: issue 28 (section 3): the sphere and group layers' increments are the Lohe
couplings, as the torus layer's increment is the Kuramoto coupling (seed 000).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ._harness import (
    assert_close,
    assert_fails,
    assert_zero,
    check,
    pythagoras,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 16
TITLE = "Sphere and group attention identities: projected value = Lohe coupling"
MIRRORS = (
    "syncattn.lohe.sphere_tangent_update",
    "syncattn.lohe.sphere_coupling",
    "syncattn.lohe.matrix_tangent_update",
    "syncattn.lohe.matrix_coupling",
)
PARTS = (
    Part(
        "a(sphere)",
        "For any n, query z, keys z_u and real weights A_u: (I - z z^T) sum_u A_u z_u = sum_u A_u (z_u - <z_u, z> z).",
        "coq",
        coq="lohe_identities",
    ),
    Part(
        "a(circle)",
        "At n = 2 on the circle the component along (-sin theta_t, cos theta_t) is sum_u A_u sin(theta_u - theta_t), the Kuramoto identity.",
        "coq",
        coq="sphere_circle",
    ),
    Part(
        "b(group)",
        "For U_t with U_t U_t^H = I and any matrices U_u (U(n), SO(n)), U_t skew(U_t^H G) = 1/2 sum_u A_u (U_u - U_t U_u^H U_t).",
        "sympy",
        why="Matrix algebra over C for n > 1 is not formalised; sympy checks it with noncommutative symbols, using only U_t U_t^H = I.",
    ),
    Part(
        "b(U(1))",
        "On U(1) the matrix update equals the matrix coupling 1/2 sum_u A_u (U_u - U_t U_u^H U_t).",
        "coq",
        coq="u1_identity",
    ),
    Part(
        "b(U(1) Kuramoto)",
        "On U(1), U = e^{i theta}: U_t skew(U_t^H G) = i U_t sum_u A_u sin(theta_u - theta_t).",
        "coq",
        coq="u1_kuramoto",
    ),
)
# SHA-256 of proofs/coq/lohe_identities_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "bc68d8ad58e91151bc7b40b858b8f92efdb831d1c3d48f01c8258922d70707f5"


def sphere_update(z, G):
    return (sp.eye(len(z)) - z * z.T) * G


def wrong_sphere_update(z, G):
    """Mutation: the projector's sign flipped."""
    return (sp.eye(len(z)) + z * z.T) * G


def prove_sphere(update=sphere_update, tokens: int = 3) -> None:
    vec = lambda name: sp.Matrix(sp.symbols(f"{name}_0:3", real=True))
    zt = vec("zt")
    zs = [vec(f"z{u}") for u in range(tokens)]
    a = sp.symbols(f"a0:{tokens}", real=True)
    G = sum((ai * z for ai, z in zip(a, zs)), sp.zeros(3, 1))
    rhs = sum((ai * (z - z.dot(zt) * zt) for ai, z in zip(a, zs)), sp.zeros(3, 1))
    assert_zero(sp.expand(update(zt, G) - rhs), "(a) sphere, n = 3")
    th = sp.symbols(f"th0:{tokens + 1}", real=True)
    lift = [sp.Matrix([sp.cos(t), sp.sin(t)]) for t in th]
    G2 = sum((ai * z for ai, z in zip(a, lift[1:])), sp.zeros(2, 1))
    tangent = sp.Matrix([-sp.sin(th[0]), sp.cos(th[0])])
    kur = sum(ai * sp.sin(t - th[0]) for ai, t in zip(a, th[1:]))
    r = pythagoras(sp.expand_trig(tangent.dot(update(lift[0], G2)) - kur), th)
    assert_zero(r, "(a) n = 2 is Kuramoto")


def group_update(U, Uh, G, Gh):
    """U skew(U^H G) with noncommutative symbols."""
    return U * (Uh * G - Gh * U) / 2


def wrong_group_update(U, Uh, G, Gh):
    """Mutation: the Hermitian part in place of the skew part."""
    return U * (Uh * G + Gh * U) / 2


def prove_group(update=group_update, tokens: int = 3) -> None:
    U, Uh = sp.symbols("U Uh", commutative=False)
    Us = sp.symbols(f"V0:{tokens}", commutative=False)
    Vh = sp.symbols(f"Vh0:{tokens}", commutative=False)
    a = sp.symbols(f"a0:{tokens}", real=True)
    G = sum(ai * v for ai, v in zip(a, Us))
    Gh = sum(ai * v for ai, v in zip(a, Vh))  # G^H for real weights
    lohe = sum(ai * (v - U * vh * U) for ai, v, vh in zip(a, Us, Vh)) / 2
    diff = sp.expand(sp.expand(update(U, Uh, G, Gh) - lohe).subs(U * Uh, 1))
    assert_zero(diff, "(b) group, noncommutative")
    # U(1), the generic term (linearity is the noncommutative part above)
    tt, tu, A = sp.symbols("theta_t theta_u A", real=True)
    e, g = sp.exp(sp.I * tt), A * sp.exp(sp.I * tu)
    xi = sp.expand(update(e, 1 / e, g, A / sp.exp(sp.I * tu)) / e)
    r = sp.expand(xi.rewrite(sp.cos) - sp.I * A * sp.sin(tu - tt))
    assert_zero(
        sp.expand(sp.expand_trig(r)), "(b) U(1) generic term", simplify=lambda x: x
    )


@check("symbolic")
def test_sphere_identity_symbolic():
    prove_sphere()


@check("symbolic")
def test_group_identity_symbolic():
    prove_group()


@check("mutation")
def test_sphere_proof_rejects_flipped_projector():
    assert_fails(prove_sphere, wrong_sphere_update, what="(I + z z^T) G")


@check("mutation")
def test_group_proof_rejects_hermitian_part():
    assert_fails(prove_group, wrong_group_update, what="the Hermitian part")


def _unit(g, shape):
    x = g.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _unitary(g, shape, n):
    from scipy.linalg import expm

    M = g.normal(size=(*shape, n, n)) + 1j * g.normal(size=(*shape, n, n))
    xi = M - np.conj(np.swapaxes(M, -1, -2))
    return np.stack([expm(x) for x in xi.reshape(-1, n, n)]).reshape(*shape, n, n)


def compare(matrix_coupling=None) -> None:
    """float64 loops vs the implementation (both identities)."""
    from syncattn import kuramoto, lohe

    matrix_coupling = matrix_coupling or lohe.matrix_coupling
    g = rng("lohe_identities")
    T, U, k, n = 3, 5, 2, 3
    z_t, z_u, A = _unit(g, (T, k, n)), _unit(g, (U, k, n)), g.normal(size=(T, U))
    ref = np.zeros((T, k, n))
    for t in range(T):
        for j in range(k):
            for u in range(U):
                ref[t, j] += A[t, u] * (z_u[u, j] - z_u[u, j] @ z_t[t, j] * z_t[t, j])
    assert_close(lohe.sphere_coupling(z_t, z_u, A), ref, "sphere_coupling")
    G = np.einsum("tu,ukn->tkn", A, z_u)
    assert_close(lohe.sphere_tangent_update(z_t, G), ref, "sphere_tangent_update")
    V_t, V_u = _unitary(g, (T, k), 2), _unitary(g, (U, k), 2)
    refm = np.zeros((T, k, 2, 2), complex)
    for t in range(T):
        for j in range(k):
            for u in range(U):
                Vt, Vu = V_t[t, j], V_u[u, j]
                refm[t, j] += 0.5 * A[t, u] * (Vu - Vt @ np.conj(Vu).T @ Vt)
    assert_close(matrix_coupling(V_t, V_u, A), refm, "matrix_coupling")
    Gm = np.einsum("tu,ukab->tkab", A, V_u)
    xi = np.asarray(lohe.matrix_tangent_update(V_t, Gm))
    assert_close(V_t @ xi, refm, "U matrix_tangent_update")
    th_t, th_u = g.uniform(-4, 4, (T, k)), g.uniform(-4, 4, (U, k))
    G1 = np.einsum("tu,ukab->tkab", A, np.exp(1j * th_u)[..., None, None])
    x1 = np.asarray(lohe.matrix_tangent_update(np.exp(1j * th_t)[..., None, None], G1))
    assert_close(x1[..., 0, 0].imag, kuramoto.coupling_term(th_t, th_u, A), "U(1)")


@check("numeric")
def test_identities_match_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_flipped_matrix_coupling():
    from syncattn import lohe

    flipped = lambda a, b, A: -lohe.matrix_coupling(a, b, A)
    assert_fails(compare, flipped, what="a sign-flipped matrix coupling")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

r"""Statement 8: the Lohe model preserves norms (skew Omega) and is Kuramoto for d = 2.

Statement:
    For x_i' = Omega_i x_i + sum_j K_ij (x_j - <x_i, x_j> x_i), i = 1..n, with every
    Omega_i skew-symmetric and any real K_ij:
    (a) d/dt ||x_i||^2 = 2 (1 - ||x_i||^2) sum_j K_ij <x_i, x_j>, which vanishes
        on the sphere: (S^{d-1})^n is invariant;
    (b) for d = 2, x_i = (cos theta_i, sin theta_i) and
        Omega_i = omega_i [[0, -1], [1, 0]], the flow is exactly
        x_i' = theta_i' (-sin theta_i, cos theta_i) with
        theta_i' = omega_i + sum_j K_ij sin(theta_j - theta_i): the Kuramoto model.

Proof idea:
    (a) <x, Omega x> = 0 for skew Omega (it equals its own negative, since
        x^T Omega x = (x^T Omega x)^T = x^T Omega^T x); for each j,
        <x_i, x_j - <x_i, x_j> x_i> = <x_i, x_j> (1 - ||x_i||^2); sum over j.
    (b) Omega_i x_i = omega_i (-sin theta_i, cos theta_i), and for each j
        x_j - <x_i, x_j> x_i = sin(theta_j - theta_i) (-sin theta_i, cos theta_i)
        (cosine and sine subtraction formulas); sum over j. Conversely the
        angular velocity x_1 x_2' - x_2 x_1' recovers theta_i'.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): <x, Omega x> = 0 for a free skew matrix in
    d = 2, 3, 4; the generic coupling term of (a) in d = 3 with free components;
    (a) in full for n = 3 oscillators in d = 3 with a free matrix K and free
    skew Omega_i; (b) for the generic term and in full for n = 3 with free K and
    omega (extension to all n and d: sums of the generic terms, linearity).
    Numeric (float64): ``lohe.vector_field`` against the lambdified field (d = 3,
    matrix, scalar K = K/n mean field, Omega = None), and for d = 2 against
    ``kuramoto.vector_field`` times the tangent (-sin, cos); theorem checks:
    norms stay 1 along an independent scipy integration of ``lohe.vector_field``
    (d = 4, skew Omega), and (slow) for d = 2 the trajectory of ``lohe.simulate``
    equals the lift of ``kuramoto.simulate``.
    Mutation: the proof must reject a symmetric (not skew) Omega and the
    coupling x_j + <x_i, x_j> x_i; the numeric comparison must reject a field
    whose coupling has the wrong sign.

Mirrors: syncattn.lohe.vector_field, syncattn.lohe.simulate,
syncattn.kuramoto.vector_field, syncattn.kuramoto.simulate, syncattn.torus.lift.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059): its
mechanism is "based on the Lohe model (a high-dimensional generalisation of the
Kuramoto model for oscillators on a unit sphere)", the projection keeping z_i on
the sphere; statement 5 is its one-oscillator, fixed-anchor case.
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


NUMBER = 8
TITLE = "General Lohe model: skew Omega preserves norms; for d = 2 it is exactly the Kuramoto model"
MIRRORS = (
    "syncattn.lohe.vector_field",
    "syncattn.lohe.simulate",
    "syncattn.kuramoto.vector_field",
    "syncattn.kuramoto.simulate",
)

PARTS = (
    Part(
        "a(i)",
        "For skew Omega_i and any real K_ij (any n, d): <x_i, x_i'> = (1 - |x_i|^2) sum_j K_ij <x_i, x_j>.",
        "coq",
        coq="radial_rate",
    ),
    Part(
        "a(ii)",
        "Along any solution d/dt |x_i|^2 = 2 (1 - |x_i|^2) sum_j K_ij <x_i, x_j>, which vanishes on the sphere.",
        "coq",
        coq="norm_rate",
    ),
    Part(
        "a(iii)",
        "(S^{d-1})^n is invariant: a solution that starts on the sphere stays on it for t >= 0 (skew Omega preserves norms).",
        "coq",
        coq="sphere_invariant",
    ),
    Part(
        "b(i)",
        "For d = 2, x_i = (cos theta_i, sin theta_i), Omega_i = omega_i J: the field is theta_i' (-sin theta_i, cos theta_i) with theta_i' = omega_i + sum_j K_ij sin(theta_j - theta_i), and the angular velocity x_1 x_2' - x_2 x_1' is theta_i'.",
        "coq",
        coq="kuramoto_d2",
    ),
    Part(
        "b(ii)",
        "The lift of a Kuramoto solution solves the d = 2 Lohe equation: the flow is exactly the Kuramoto model.",
        "coq",
        coq="kuramoto_lift",
    ),
)
COQ_SPEC_SHA256 = "c65e948ef2699ec044bec8a3f690a97bde33ab9dfe35ed9dd4c2e41eebbcdad3"


def skew(d, name):
    return sp.Matrix(
        d,
        d,
        lambda i, j: (
            sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True) * sp.sign(j - i)
        ),
    )


def symmetric(d, name):
    """Mutation: a symmetric (not skew) natural-rotation matrix."""
    return sp.Matrix(
        d, d, lambda i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True)
    )


def coupling(xi, xj):
    return xj - xi.dot(xj) * xi


def wrong_coupling(xi, xj):
    """Mutation: the projection's sign flipped."""
    return xj + xi.dot(xj) * xi


def field(x, Omega, K, pair=coupling):
    n = len(x)
    return [
        Omega[i] * x[i]
        + sum((K[i, j] * pair(x[i], x[j]) for j in range(n)), sp.zeros(len(x[i]), 1))
        for i in range(n)
    ]


def vec(name, d):
    return sp.Matrix(sp.symbols(f"{name}_0:{d}", real=True))


def prove(rotation=skew, pair=coupling, n: int = 3) -> None:
    """Symbolic proof of (a) and (b) for the given Omega family and coupling term."""
    for d in (2, 3, 4):
        x = vec("x", d)
        assert_zero(
            sp.expand(x.dot(rotation(d, "w") * x)), f"(a) <x, Omega x> = 0, d = {d}"
        )
    xi, xj = vec("xi", 3), vec("xj", 3)
    assert_zero(
        sp.expand(xi.dot(pair(xi, xj)) - xi.dot(xj) * (1 - xi.dot(xi))),
        "(a) generic coupling term",
    )
    xs = [vec(f"x{i}", 3) for i in range(n)]
    K = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"K{i}{j}", real=True))
    F = field(xs, [rotation(3, f"o{i}_") for i in range(n)], K, pair)
    for i in range(n):
        want = (1 - xs[i].dot(xs[i])) * sum(
            K[i, j] * xs[i].dot(xs[j]) for j in range(n)
        )
        assert_zero(sp.expand(xs[i].dot(F[i]) - want), f"(a) d|x_{i}|^2/dt, n = {n}")
    # (b) d = 2
    th = sp.symbols(f"theta0:{n}", real=True)
    om = sp.symbols(f"omega0:{n}", real=True)
    lift = [sp.Matrix([sp.cos(t), sp.sin(t)]) for t in th]
    tangent = [sp.Matrix([-sp.sin(t), sp.cos(t)]) for t in th]
    J2 = sp.Matrix([[0, -1], [1, 0]])
    Omega = [o * J2 for o in om]
    pyth = lambda e: pythagoras(sp.expand_trig(e), th)
    assert_zero(
        pair(lift[0], lift[1]) - sp.sin(th[1] - th[0]) * tangent[0],
        "(b) generic coupling term, d = 2",
        simplify=pyth,
    )
    F2 = field(lift, Omega, K, pair)
    for i in range(n):
        theta_dot = om[i] + sum(K[i, j] * sp.sin(th[j] - th[i]) for j in range(n))
        assert_zero(
            F2[i] - theta_dot * tangent[i],
            f"(b) Lohe = Kuramoto, oscillator {i}",
            simplify=pyth,
        )
        angular = lift[i][0] * F2[i][1] - lift[i][1] * F2[i][0]
        assert_zero(
            angular - theta_dot, f"(b) angular velocity, oscillator {i}", simplify=pyth
        )


@check("symbolic")
def test_lohe_symbolic():
    prove()


@check("mutation")
def test_lohe_rejects_symmetric_omega():
    assert_fails(prove, symmetric, what="a symmetric Omega")


@check("mutation")
def test_lohe_rejects_wrong_projection():
    assert_fails(prove, skew, wrong_coupling, what="the coupling x_j + <x_i, x_j> x_i")


# ---------------------------------------------------------------- numeric
N, D = 4, 3
_x = [vec(f"x{i}", D) for i in range(N)]
_O = [sp.MatrixSymbol(f"O{i}", D, D) for i in range(N)]
_K = sp.MatrixSymbol("K", N, N)
_F = field(_x, [sp.Matrix(o) for o in _O], sp.Matrix(_K))
field_numpy = sp.lambdify(
    [[list(v) for v in _x], _O, _K], [list(f) for f in _F], "numpy"
)


def compare(lohe_field=None) -> None:
    from syncattn import kuramoto, lohe, torus

    lohe_field = lohe_field or lohe.vector_field
    g = rng("lohe_general")
    x = g.normal(size=(N, D))
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    A = g.normal(size=(N, D, D))
    Omega = A - np.swapaxes(A, -1, -2)
    K = g.normal(size=(N, N))
    want = np.array(field_numpy(list(x), list(Omega), K))
    assert_close(lohe_field(x, Omega, K), want, "lohe.vector_field, matrix coupling")
    Ks = 1.3
    want_s = np.array(
        field_numpy(list(x), list(np.zeros_like(Omega)), np.full((N, N), Ks / N))
    )
    assert_close(
        lohe_field(x, None, Ks),
        want_s,
        "lohe.vector_field, scalar K = K/n, Omega = None",
    )
    theta, omega = g.uniform(-7, 7, N), g.normal(size=N)
    J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
    tangent = np.stack([-np.sin(theta), np.cos(theta)], -1)
    for Kc in (K, Ks):
        want2 = np.asarray(kuramoto.vector_field(theta, omega, Kc))[:, None] * tangent
        got2 = lohe_field(np.asarray(torus.lift(theta)), omega[:, None, None] * J2, Kc)
        assert_close(
            got2, want2, "d = 2 Lohe vs kuramoto.vector_field times the tangent"
        )


@check("numeric")
def test_lohe_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_sign():
    from syncattn import lohe

    def wrong(x, Omega, K):
        rot = 0.0 if Omega is None else np.einsum("nij,nj->ni", Omega, x)
        return 2 * rot - np.asarray(
            lohe.vector_field(x, Omega, K)
        )  # coupling sign flipped

    assert_fails(compare, wrong, what="a field with the coupling's sign flipped")


@check("numeric")
def test_lohe_flow_stays_on_sphere():
    """Theorem check: norms stay 1 along an independent scipy integration of lohe.vector_field."""
    import jax
    from scipy.integrate import solve_ivp

    from syncattn import lohe

    g = rng("lohe_norms")
    n, d, t1 = (5, 4, 5.0) if CONFIG.quick else (16, 6, 10.0)
    x0 = g.normal(size=(n, d))
    x0 /= np.linalg.norm(x0, axis=-1, keepdims=True)
    A = g.normal(size=(n, d, d))
    Omega, K = A - np.swapaxes(A, -1, -2), g.normal(size=(n, n)) / n
    field = jax.jit(lambda x: lohe.vector_field(x, Omega, K))
    sol = solve_ivp(
        lambda _, y: np.asarray(field(y.reshape(n, d))).ravel(),
        (0.0, t1),
        x0.ravel(),
        method="DOP853",
        t_eval=np.linspace(0, t1, 9),
        rtol=1e-12,
        atol=1e-13,
    )
    norms = np.linalg.norm(sol.y.T.reshape(-1, n, d), axis=-1)
    assert_close(
        norms,
        np.ones_like(norms),
        "norms stay 1 along the Lohe flow",
        rtol=1e-9,
        atol=1e-9,
    )


@check("numeric", slow=True)
def test_lohe_simulate_is_kuramoto_for_d2():
    """Theorem check: for d = 2, lohe.simulate equals the lift of kuramoto.simulate (and keeps norms)."""
    import jax

    from syncattn import kuramoto, lohe, torus

    g = rng("lohe_flow")
    n, t1 = (5, 4.0) if CONFIG.quick else (16, 10.0)
    K = g.normal(size=(n, n)) / n
    theta0, omega = g.uniform(-np.pi, np.pi, n), g.normal(size=n)
    J2 = np.array([[0.0, -1.0], [1.0, 0.0]])
    ts = np.linspace(0.0, t1, 9)
    lo = lohe.simulate(
        np.asarray(torus.lift(theta0)),
        omega[:, None, None] * J2,
        K,
        t1,
        saveat=ts,
        rtol=1e-11,
        atol=1e-12,
    )
    ku = kuramoto.simulate(theta0, omega, K, t1, saveat=ts, rtol=1e-11, atol=1e-12)
    norms = np.linalg.norm(lo.x, axis=-1)
    assert_close(
        norms,
        np.ones_like(norms),
        "norms stay 1 along lohe.simulate",
        rtol=1e-9,
        atol=1e-9,
    )
    lifted = np.asarray(jax.vmap(torus.lift)(ku.theta))
    assert_close(
        lo.x,
        lifted,
        "d = 2 lohe.simulate vs lifted kuramoto.simulate",
        rtol=1e-7,
        atol=1e-7,
    )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

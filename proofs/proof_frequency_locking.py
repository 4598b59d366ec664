r"""Statement 15: frequency disorder on the sphere: Adler locking (d = 2) and the locked state (d >= 3).

Statement:
    For z' = Omega z + (I - z z^T) h on S^{d-1}, Omega skew-symmetric, h != 0:
    (a) d = 2, Omega = omega [[0, -1], [1, 0]], phi = angle from h/||h||: Adler's
        equation phi' = omega - ||h|| sin(phi). It locks iff |omega| <= ||h||, at the
        stable angle arcsin(omega / ||h||) (linear rate -||h|| cos(phi*) =
        -sqrt(||h||^2 - omega^2)); otherwise it drifts with period
        2 pi / sqrt(omega^2 - ||h||^2).
    (b) any d: z is a fixed point iff z = (lambda I - Omega)^{-1} h with lambda = z.h
        and ||z|| = 1; for z = (lambda I - Omega)^{-1} h the field equals
        lambda (1 - ||z||^2) z, and ||h||^2 = lambda^2 ||z||^2 + ||Omega z||^2, so at a
        fixed point cos(angle(z, h)) = lambda/||h||, sin(angle) = ||Omega z|| / ||h||
        <= ||Omega||_2 / ||h||: the small-||Omega||/||h|| bound.
    (c) ||(lambda I - Omega)^{-1} h||^2 = h^T (lambda^2 I + Omega^T Omega)^{-1} h
        decreases in lambda > 0: the root lambda* > 0 is unique, and
        >= sqrt(||h||^2 - ||Omega||_2^2) when ||Omega||_2 < ||h|| (so it then exists).
    (d) at a fixed point with lambda = z.h, the Jacobian maps T_z into T_z and
        v.(J v) = -lambda ||v||^2 for tangent v: every eigenvalue has real part
        -lambda, so the lambda* > 0 state is stable with rate lambda*.

What is symbolic and what is numeric:
    Symbolic (sympy): (a) the angle equation (by reduction modulo sin^2 + cos^2 = 1),
    the locked angle and its rate; (b)-(d) for d = 3 with a generic skew Omega
    (three free entries), free h and lambda; (d) with a free tangent v. The
    general d repeats (b)-(d) verbatim: they use only Omega^T = -Omega.
    Numeric: ``lohe.locked_state`` and ``lohe.adler_locking`` against long scipy
    (DOP853) integrations of the flow (d = 2 to 5), the drift period against an
    integration, the bound against the measured angle. Mutation: the proof must
    reject the unstable branch lambda -> -lambda as stable and the angle
    arccos(omega/||h||); the comparison must reject the state at -lambda*.

Mirrors: syncattn.lohe.adler_locking, syncattn.lohe.locked_state.
Source: issue 19 (frequency disorder on a physical substrate); Adler (1946); the
general Lohe model with frequencies (Lohe 2009; seed 001's Omega_i).
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
    pythagoras,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 15
TITLE = "Frequency locking: Adler phi' = omega - ||h|| sin(phi) locks iff |omega| <= ||h||; locked z* = (lambda I - Omega)^{-1} h, sin(angle) <= ||Omega||/||h||, rate lambda"
MIRRORS = ("syncattn.lohe.adler_locking", "syncattn.lohe.locked_state")

PARTS = (
    Part(
        "a(i)",
        "For d = 2, z = (cos theta, sin theta), Omega = omega J, h = |h| (cos psi, sin psi), the field is (omega - |h| sin(theta - psi)) (-sin theta, cos theta): Adler's equation for phi = theta - psi.",
        "coq",
        coq="adler_equation",
    ),
    Part(
        "a(ii)",
        "Adler's equation has an equilibrium (locks) iff |omega| <= |h| (|h| > 0).",
        "coq",
        coq="locks_iff",
    ),
    Part(
        "a(iii)",
        "The locked angle arcsin(omega/|h|) is an equilibrium with linear rate -sqrt(|h|^2 - omega^2) (< 0 for |omega| < |h|: stable); the other equilibrium pi - arcsin(omega/|h|) has rate +sqrt(|h|^2 - omega^2).",
        "coq",
        coq="locked_rate",
    ),
    Part(
        "a(iv)",
        "Off locking (|omega| > |h|) the angle drifts with period 2 pi / sqrt(omega^2 - |h|^2).",
        "measured",
        why="the period is the integral of 1/(omega - |h| sin phi) over a turn; checked against an integration of the flow, not formalised",
    ),
    Part(
        "b(i)",
        "For skew Omega and z = (lambda I - Omega)^{-1} h (any d): the field is lambda (1 - |z|^2) z, z.h = lambda |z|^2 and |h|^2 = lambda^2 |z|^2 + |Omega z|^2.",
        "coq",
        coq="resolvent_field",
    ),
    Part(
        "b(ii)",
        "On the sphere, z is a fixed point iff h = lambda z - Omega z with lambda = z.h, i.e. z = (lambda I - Omega)^{-1} h.",
        "coq",
        coq="fixed_points",
    ),
    Part(
        "b(iii)",
        "At a fixed point cos(angle(z, h)) = lambda/|h| and sin^2(angle) = |Omega z|^2/|h|^2 <= ||Omega||_2^2/|h|^2 (any bound M >= |Omega z|).",
        "coq",
        coq="angle_bound",
    ),
    Part(
        "c(i)",
        "Normal form: |(lambda I - Omega) v|^2 = lambda^2 |v|^2 + |Omega v|^2 for skew Omega.",
        "coq",
        coq="normal_form",
    ),
    Part(
        "c(ii)",
        "|(lambda I - Omega)^{-1} h| strictly decreases in lambda > 0 (h != 0).",
        "coq",
        coq="decreasing",
    ),
    Part(
        "c(ii')",
        "Hence the root lambda* > 0 of |(lambda I - Omega)^{-1} h| = 1 is unique.",
        "coq",
        coq="root_unique",
    ),
    Part(
        "c(iii)",
        "At the root, lambda* >= sqrt(|h|^2 - ||Omega||_2^2).",
        "coq",
        coq="root_bound",
    ),
    Part(
        "c(iv)",
        "The root lambda* > 0 exists when ||Omega||_2 < |h|.",
        "measured",
        why="existence is the intermediate value theorem on lambda -> |(lambda I - Omega)^{-1} h| (continuity of the resolvent); not formalised; the library's bisection and long integrations (d = 2 to 5) find it",
    ),
    Part(
        "d(i)",
        "At a fixed point on the sphere the Jacobian Omega - (z.h) I - z h^T maps T_z into T_z.",
        "coq",
        coq="tangent_invariant",
    ),
    Part(
        "d(ii)",
        "v . J v = -(z.h) |v|^2 for every tangent v.",
        "coq",
        coq="contraction",
    ),
    Part(
        "d(iii)",
        "Every eigenvalue of J on T_z has real part -(z.h) = -lambda.",
        "coq",
        coq="eigenvalues",
    ),
    Part(
        "d(iv)",
        "Hence the lambda* > 0 state is stable with rate lambda* for the nonlinear flow.",
        "measured",
        why="the step from the linearisation to nonlinear stability (Lyapunov's indirect method) is not formalised; long integrations converge to the state",
    ),
)
COQ_SPEC_SHA256 = "6bb5dc19ff1c26e9c6dae1e1e5b24431a4184ba307e6bd3c5a8d890105cca9a1"

th, ps, om = sp.symbols("theta psi omega", real=True)
a = sp.Symbol("a", positive=True)


def prove(angle=lambda w, a: sp.asin(w / a), sign=1) -> None:
    # (a) Adler
    z = sp.Matrix([sp.cos(th), sp.sin(th)])
    h = a * sp.Matrix([sp.cos(ps), sp.sin(ps)])
    J2 = sp.Matrix([[0, -1], [1, 0]])
    f = om * J2 * z + h - (z.T * h)[0] * z
    tang = sp.Matrix([-sp.sin(th), sp.cos(th)])
    phidot = (tang.T * f)[0]
    want = om - a * (
        sp.sin(th) * sp.cos(ps) - sp.cos(th) * sp.sin(ps)
    )  # omega - a sin(theta - psi)
    assert_zero(pythagoras(sp.expand(phidot - want), [th, ps]), "(a) Adler's equation")
    assert_zero(pythagoras(sp.expand((z.T * f)[0]), [th, ps]), "(a) tangent field")
    phi = sp.Symbol("phi", real=True)
    adler = om - a * sp.sin(phi)
    s = sp.Symbol("s", positive=True)  # |omega| < a: omega = a s, 0 < s < 1
    star = angle(a * s, a)
    assert_zero(sp.simplify(adler.subs({om: a * s, phi: star})), "(a) locked angle")
    rate = sp.diff(adler, phi).subs({om: a * s, phi: star})
    assert_zero(
        sp.simplify(rate + a * sp.sqrt(1 - s**2)), "(a) rate -sqrt(a^2 - omega^2)"
    )
    assert_true(sp.simplify(rate.subs(s, sp.Rational(1, 2))).is_negative, "(a) stable")
    # (b)-(d), d = 3, generic skew Omega
    o1, o2, o3, lam = sp.symbols("o1 o2 o3 lambda", real=True)
    O = sp.Matrix([[0, -o3, o2], [o3, 0, -o1], [-o2, o1, 0]])
    H = sp.Matrix(sp.symbols("h0:3", real=True))
    Z = (lam * sp.eye(3) - O).inv() * H
    F = O * Z + H - (Z.T * H)[0] * Z
    n2 = (Z.T * Z)[0]
    assert_zero(
        (F - lam * (1 - n2) * Z).applyfunc(sp.cancel),
        "(b) field = lambda (1 - |z|^2) z",
    )
    assert_zero(sp.cancel((Z.T * H)[0] - lam * n2), "(b) z.h = lambda |z|^2")
    assert_zero(
        sp.cancel((H.T * H)[0] - lam**2 * n2 - ((O * Z).T * (O * Z))[0]),
        "(b) |h|^2 = l^2|z|^2 + |Oz|^2",
    )
    # (c) (lambda - Omega)^T (lambda - Omega) = lambda^2 + Omega^T Omega
    M = lam * sp.eye(3) - O
    assert_zero(
        (M.T * M - (lam**2 * sp.eye(3) + O.T * O)).applyfunc(sp.expand),
        "(c) normal form",
    )
    # (d) linearisation at a fixed point: J = Omega - (z.h) I - z h^T, with z.h = lambda, |z| = 1
    zz = sp.Matrix(sp.symbols("y0:3", real=True))
    v = sp.Matrix(sp.symbols("v0:3", real=True))
    Jd = O - (zz.T * H)[0] * sp.eye(3) - zz * H.T
    quad = (v.T * Jd * v)[0] + sign * (zz.T * H)[0] * (v.T * v)[0]
    # = -(v.z)(h.v): zero for tangent v
    assert_zero(
        sp.expand(quad + (v.T * zz)[0] * (H.T * v)[0]),
        "(d) v.Jv = -lambda |v|^2 on T_z",
    )
    # J maps T_z into T_z at a fixed point (h = lambda z - Omega z): z.Jv lies in the
    # ideal of |z|^2 - 1 and v.z
    zJv = sp.expand(
        (zz.T * Jd * v)[0].subs(
            {H[i]: (lam * zz - O * zz)[i] for i in range(3)}, simultaneous=True
        )
    )
    n = (zz.T * zz)[0]
    want = (n - 1) * ((O * zz).T * v)[0] - 2 * lam * n * (v.T * zz)[
        0
    ]  # 0 if |z| = 1, v.z = 0
    assert_zero(zJv - sp.expand(want), "(d) J maps T_z into T_z")


@check("symbolic")
def test_frequency_locking_symbolic():
    prove()


@check("mutation")
def test_rejects_arccos_angle():
    assert_fails(
        prove, lambda w, a: sp.acos(w / a), what="the locked angle arccos(omega/||h||)"
    )


@check("mutation")
def test_rejects_flipped_rate():
    assert_fails(prove, sign=-1, what="v.Jv = +lambda |v|^2")


def compare(state=None) -> None:
    from scipy.integrate import solve_ivp

    from syncattn import lohe

    state = state or (lambda O, h: lohe.locked_state(O, h).z)
    g = rng("locking")
    for d in (2, 3, 4, 5):
        A = g.normal(size=(d, d))
        O = 0.5 * (A - A.T) / 2
        h = g.normal(size=d)
        h *= 1.3 * max(1.0, np.linalg.norm(O, 2)) / np.linalg.norm(h)
        f = lambda t, z: O @ z + h - (z @ h) * z
        z = solve_ivp(
            f, (0, 300), h / np.linalg.norm(h), rtol=1e-11, atol=1e-12, method="DOP853"
        ).y[:, -1]
        assert_close(
            np.asarray(state(O, h)), z, f"locked state d={d}", rtol=1e-7, atol=1e-8
        )
        ang = np.arccos(np.clip(z @ h / np.linalg.norm(h), -1, 1))
        if ang > np.arcsin(min(1.0, np.linalg.norm(O, 2) / np.linalg.norm(h))) + 1e-12:
            raise AssertionError(f"d={d}: angle {ang} above the bound")
    for w in (0.3, -0.9):
        res = lohe.adler_locking(w, 1.0)
        assert_close(float(res.angle), np.arcsin(w), "Adler angle")


@check("numeric")
def test_frequency_locking_matches_simulation():
    compare()


@check("mutation")
def test_comparison_rejects_the_unstable_state():
    import jax.numpy as jnp

    from syncattn import lohe

    def unstable(O, h):
        lam = lohe.locked_state(O, h).rate
        return jnp.linalg.solve(-lam * jnp.eye(len(h)) - O, h)

    assert_fails(compare, unstable, what="the state at -lambda*")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

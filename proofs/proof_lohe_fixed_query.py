r"""Statement 5: the fixed-query Lohe flow z' = (I - z z^T) h converges to h/||h||.

Statement (h != 0, z on the unit sphere S^{d-1}):
    (a) d/dt ||z||^2 = 0: the flow stays on the sphere.
    (b) The only equilibria are z = +h/||h|| and z = -h/||h||.
    (c) On the tangent space T_z S^{d-1} the Jacobian is -<z, h> times the
        identity at an equilibrium: eigenvalue -||h|| (multiplicity d - 1) at
        h/||h|| (stable), +||h|| at -h/||h|| (unstable).
    (d) V(z) = -<z, h> has dV/dt = -||(I - z z^T) h||^2 <= 0 (a Lyapunov function).
    (e) The angle phi between z and h obeys phi' = -||h|| sin(phi), solved by
        tan(phi/2) = tan(phi0/2) e^{-||h|| t}; phi -> 0 from every start except
        the antipode phi0 = pi, and phi reaches delta at
        T = log(tan(phi0/2) / tan(delta/2)) / ||h||.
    (f) The drive h = sum_j sigma(q, k_j) r_j of the layer is a conic combination
        of the anchors for every coupling sigma of ``lohe.coupling_weights``:
        softplus(s) = log(1 + e^s) > 0, relu(s) + 1e-3 > 0, elu(s) + 1 > 0 and
        the kernel phi(q).phi(k)/d_h > 0 with phi = elu + 1 > 0. The published
        elu1 (elu(q.k/sqrt(d_h)) + 1) and the kernel are different functions.

Proof idea:
    Write f(z) = h - <z, h> z.
    (a) <z, f(z)> = <z, h>(1 - ||z||^2): it carries the factor 1 - ||z||^2.
    (b) ||f||^2 = ||h||^2 - <z, h>^2 + <z, h>^2 (||z||^2 - 1), so on the sphere
        f = 0 iff <z, h>^2 = ||z||^2 ||h||^2, the equality case of Cauchy-Schwarz
        (Lagrange's identity ||z||^2||h||^2 - <z,h>^2 = sum_{i<j}(z_i h_j - z_j h_i)^2):
        z is parallel to h, z = +-h/||h||; both are indeed zeros of f.
    (c) The Jacobian is J = -<z, h> I - z h^T (entry by entry:
        d f_i / d z_k = -delta_ik <z, h> - z_i h_k). For v in T_z at an
        equilibrium z = +-h/||h||, <h, v> = 0, so J v = -<z, h> v, with
        <z, h> = +-||h||.
    (d) dV/dt = -<h, f> and <h, f> - ||f||^2 = <z, h>^2 (1 - ||z||^2).
    (e) cos(phi) = <z, h>/||h|| gives d cos(phi)/dt = <h, f>/||h||
        = ||h|| (1 - cos^2 phi) exactly, so -sin(phi) phi' = ||h|| sin^2(phi);
        the closed form satisfies the ODE and the initial condition, tends to 0
        as t -> infinity when tan(phi0/2) is finite, and solving it for t gives T.
    (f) Each branch is a positive expression (sympy's assumptions: exp > 0,
        log(1 + x) > 0 for x > 0, max(0, s) >= 0); a point where they differ is
        a counterexample to their equality.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a), (b) (the norm identity, Lagrange's identity,
    the two zeros) and (d) for d = 2, 3 with all components free; (c): the
    Jacobian formula entry by entry for d = 3 and J v = -<z, h> v for every
    v with <h, v> = 0 (the argument is dimension free: it only uses <h, v> = 0);
    (e) fully symbolic. For general d, (a), (b), (d) follow from the same
    computations written with inner products (they only use bilinearity; the
    checks in d = 2, 3 exercise them with free components).
    Numeric (float64): ``fixed_query_field``, ``lyapunov`` (and its time
    derivative along the field by jax.jvp), ``equilibrium``,
    ``jacobian_spectrum`` (at +-h/||h|| and at random z, where the documented
    compression gives -<z, h>), jax.jacfwd of the field, ``exact_angle`` and
    ``time_to_converge`` against the lambdified statements; theorem check:
    ``exact_angle`` against an independent scipy DOP853 integration of the
    implementation's field from random starts, which stay on the sphere and
    converge to ``equilibrium(h)``; ``settle`` (the library's one numerical
    integrator) against ``exact_angle`` per query, and ``settle_time`` against
    ``time_to_converge``; ``coupling_weights`` against the lambdified couplings
    for every kind, and positive.
    (f) symbolic for the four couplings (the scalar branches; the kernel per
    coordinate).
    Mutation: the proof applied to the field (I + z z^T) h, and to the solution
    with e^{-2||h|| t}, must fail; the numeric comparison must reject an
    exact_angle with the rate doubled, and a settle that integrates 2h.

Mirrors: syncattn.lohe.fixed_query_field, syncattn.lohe.equilibrium,
syncattn.lohe.jacobian_spectrum, syncattn.lohe.lyapunov, syncattn.lohe.exact_angle,
syncattn.lohe.time_to_converge, syncattn.lohe.settle, syncattn.lohe.settle_time,
syncattn.lohe.coupling_weights.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059): the Lohe
dynamics z_i' = (I - z_i z_i^T) sum_j w_ij r_j with the projection keeping z_i on
the sphere; the equilibrium z_i* = h_i/||h_i||; "uniqueness and stability":
for h_i != 0 exactly two equilibria, a globally attracting z* and an unstable
antipode -z*, every trajectory not starting at the antipode converging to z*.
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


NUMBER = 5
TITLE = "Fixed-query Lohe flow: sphere invariant, equilibria +-h/||h||, spectrum -+||h||, Lyapunov V, exact angle"
MIRRORS = (
    "syncattn.lohe.fixed_query_field",
    "syncattn.lohe.equilibrium",
    "syncattn.lohe.jacobian_spectrum",
    "syncattn.lohe.lyapunov",
    "syncattn.lohe.exact_angle",
    "syncattn.lohe.time_to_converge",
    "syncattn.lohe.settle",
    "syncattn.lohe.settle_time",
    "syncattn.lohe.coupling_weights",
)
PARTS = (
    Part(
        "a(rate)",
        "Along every solution of z' = (I - z z^T) h (any d), d/dt ||z||^2 = 2 <z, h> (1 - ||z||^2), zero on the sphere.",
        "coq",
        coq="lohe_sphere_rate",
    ),
    Part(
        "a(invariant)",
        "A solution that starts on the unit sphere stays on it.",
        "coq",
        coq="lohe_sphere_invariant",
    ),
    Part(
        "b",
        "On the sphere with h != 0 the equilibria are exactly z = +h/||h|| and z = -h/||h||.",
        "coq",
        coq="lohe_equilibria",
    ),
    Part(
        "c(jacobian)",
        "The Jacobian of the field is J v = -<z, h> v - z <h, v> (its derivative in every direction v).",
        "coq",
        coq="lohe_jacobian",
    ),
    Part(
        "c(spectrum)",
        "At the equilibrium s h/||h|| (s = +-1) every tangent vector is an eigenvector of J with eigenvalue -s ||h||: -||h|| (stable) at h/||h||, +||h|| (unstable) at -h/||h||.",
        "coq",
        coq="lohe_spectrum",
    ),
    Part(
        "d(field)",
        "V(z) = -<z, h> has derivative -<h, f(z)> in the direction of the field, equal to -||f(z)||^2 on the sphere and negative off the equilibria.",
        "coq",
        coq="lohe_lyapunov_field",
    ),
    Part(
        "d(solutions)",
        "Along every solution on the sphere dV/dt = -||(I - z z^T) h||^2 <= 0, < 0 off the equilibria.",
        "coq",
        coq="lohe_lyapunov_descent",
    ),
    Part(
        "e(closed form)",
        "phi(t) = 2 atan(tan(phi0/2) e^{-||h|| t}) solves phi' = -||h|| sin(phi), starts at phi0 and stays in (0, pi).",
        "coq",
        coq="lohe_exact_angle",
    ),
    Part(
        "e(ode)",
        "The angle phi(t) between a solution on the sphere and h obeys phi' = -||h|| sin(phi).",
        "coq",
        coq="lohe_angle_ode",
    ),
    Part(
        "e(solution)",
        "The angle of every solution on the sphere is the closed form: tan(phi/2) = tan(phi0/2) e^{-||h|| t}.",
        "coq",
        coq="lohe_fixed_query",
    ),
    Part(
        "e(limit)",
        "phi(t) -> 0 from every start except the antipode phi0 = pi.",
        "coq",
        coq="lohe_angle_limit",
    ),
    Part(
        "e(hit)",
        "phi reaches delta at T = log(tan(phi0/2) / tan(delta/2)) / ||h||.",
        "coq",
        coq="lohe_hit_time",
    ),
    Part(
        "f(positive)",
        "Every coupling sigma of lohe.coupling_weights (softplus, relu + 1e-3, elu + 1, the elu1 kernel) is positive, so h is a conic combination of the anchors.",
        "coq",
        coq="lohe_couplings_positive",
    ),
    Part(
        "f(differ)",
        "The published elu1 and the kernel elu1_features are different functions.",
        "coq",
        coq="lohe_elu1_not_kernel",
    ),
)
# SHA-256 of proofs/coq/lohe_fixed_query_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "3de8ee4a79c043c96220b5bad2f886b3f69a1da6dbc522c98c3a802428b1f649"

t, a = sp.symbols("t a", positive=True)  # a = ||h||
x0, delta, T = sp.symbols("x0 delta T", positive=True)  # x0 = tan(phi0 / 2)
phi, dphi = sp.symbols("phi dphi", real=True)


def field(z, h):
    return h - z.dot(h) * z


def wrong_field(z, h):
    """Mutation: (I + z z^T) h."""
    return h + z.dot(h) * z


def angle_solution(x0, a, t):
    """phi(t) with tan(phi/2) = tan(phi0/2) e^{-||h|| t}; x0 = tan(phi0/2)."""
    return 2 * sp.atan(x0 * sp.exp(-a * t))


def wrong_angle_solution(x0, a, t):
    """Mutation: rate doubled."""
    return 2 * sp.atan(x0 * sp.exp(-2 * a * t))


def vec(name, d):
    return sp.Matrix(sp.symbols(f"{name}0:{d}", real=True))


def prove(f=field, solution=angle_solution, dims=(2, 3)) -> None:
    """Symbolic proof of (a)-(e) for the field ``f`` and the angle ``solution``."""
    for d in dims:
        z, h = vec("z", d), vec("h", d)
        F, zh, zz, hh = f(z, h), z.dot(h), z.dot(z), h.dot(h)
        assert_zero(
            sp.expand(z.dot(F) - zh * (1 - zz)),
            f"(a) <z, f> = <z,h>(1 - |z|^2), d = {d}",
        )
        assert_zero(
            sp.expand(F.dot(F) - (hh - zh**2 + zh**2 * (zz - 1))), f"(b) |f|^2, d = {d}"
        )
        lagrange = sum(
            (z[i] * h[j] - z[j] * h[i]) ** 2 for i in range(d) for j in range(i + 1, d)
        )
        assert_zero(
            sp.expand(zz * hh - zh**2 - lagrange), f"(b) Lagrange identity, d = {d}"
        )
        hn = sp.sqrt(hh)
        for s in (1, -1):
            assert_zero(f(s * h / hn, h), f"(b) f(+-h/|h|) = 0, d = {d}")
        assert_zero(
            sp.expand(h.dot(F) - F.dot(F) - zh**2 * (1 - zz)),
            f"(d) dV/dt = -|f|^2, d = {d}",
        )
    # (c) Jacobian, d = 3
    z, h, v = vec("z", 3), vec("h", 3), vec("v", 3)
    J = f(z, h).jacobian(z)
    assert_zero(J - (-z.dot(h) * sp.eye(3) - z * h.T), "(c) J = -<z,h> I - z h^T")
    tangent = {
        v[2]: -(h[0] * v[0] + h[1] * v[1]) / h[2]
    }  # <h, v> = 0 (h_2 != 0 w.l.o.g.)
    hn = sp.sqrt(h.dot(h))
    for s in (1, -1):
        zs = s * h / hn
        Jv = (J * v).subs(dict(zip(z, zs))).subs(tangent)
        assert_zero(
            Jv + s * hn * v.subs(tangent), f"(c) J v = {-s}|h| v on the tangent space"
        )
    # (e) angle ODE: -sin(phi) phi' = ||h|| sin(phi)^2  =>  phi' = -||h|| sin(phi)
    if sp.solve(-sp.sin(phi) * dphi - a * sp.sin(phi) ** 2, dphi) != [-a * sp.sin(phi)]:
        raise AssertionError(
            "(e) the angle equation does not reduce to phi' = -||h|| sin(phi)"
        )
    zu, hu = vec("z", 3), vec("h", 3)
    cos_phi = zu.dot(hu) / sp.sqrt(hu.dot(hu))
    rate = hu.dot(f(zu, hu)) / sp.sqrt(hu.dot(hu))  # d cos(phi) / dt
    assert_zero(
        rate - sp.sqrt(hu.dot(hu)) * (1 - cos_phi**2),
        "(e) d cos(phi)/dt = ||h|| sin(phi)^2",
    )
    p = solution(x0, a, t)
    assert_zero(
        sp.diff(p, t) + a * sp.expand_trig(sp.sin(p)),
        "(e) closed form solves phi' = -||h|| sin(phi)",
    )
    assert_zero(sp.tan(p.subs(t, 0) / 2) - x0, "(e) initial condition")
    if sp.limit(p, t, sp.oo) != 0:
        raise AssertionError("(e) phi(t) does not tend to 0")
    assert_zero(sp.sin(sp.pi), "(e) the antipode phi = pi is an equilibrium")
    # time to reach delta: tan(delta/2) = x0 e^{-a T}
    (T_sol,) = sp.solve(sp.Eq(sp.tan(delta / 2), x0 * sp.exp(-a * T)), T)
    assert_zero(
        sp.expand_log(T_sol - sp.log(x0 / sp.tan(delta / 2)) / a, force=True),
        "(e) time to converge",
    )
    assert_zero(
        sp.simplify(sp.tan(p.subs(t, T_sol) / 2) - sp.tan(delta / 2)),
        "(e) phi(T) = delta",
    )


@check("symbolic")
def test_fixed_query_symbolic():
    prove()


@check("mutation")
def test_fixed_query_rejects_wrong_projection():
    assert_fails(prove, wrong_field, what="the field (I + z z^T) h")


@check("mutation")
def test_fixed_query_rejects_wrong_rate():
    assert_fails(
        prove,
        field,
        wrong_angle_solution,
        dims=(2,),
        what="the angle solution with rate 2||h||",
    )


# ---------------------------------------------------------------- numeric
D = 3
_z, _h = vec("z", D), vec("h", D)
field_numpy = sp.lambdify([list(_z), list(_h)], list(field(_z, _h)), "numpy")
jac_numpy = sp.lambdify([list(_z), list(_h)], field(_z, _h).jacobian(_z), "numpy")
_phi0 = sp.Symbol("phi0", positive=True)
angle_numpy = sp.lambdify(
    [_phi0, a, t], angle_solution(sp.tan(_phi0 / 2), a, t), "numpy"
)
ttc_numpy = sp.lambdify(
    [_phi0, a, delta], sp.log(sp.tan(_phi0 / 2) / sp.tan(delta / 2)) / a, "numpy"
)


def _unit(g, shape):
    x = g.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def compare(exact_angle=None) -> None:
    import jax
    import jax.numpy as jnp

    from syncattn import lohe

    # jitted: one compile per function instead of one per eager op (same maths)
    exact_angle = jax.jit(exact_angle or lohe.exact_angle)
    fq_field, lyapunov, equilibrium = (
        jax.jit(f) for f in (lohe.fixed_query_field, lohe.lyapunov, lohe.equilibrium)
    )
    g = rng("lohe_fixed_query")
    z, h = _unit(g, (6, D)), g.normal(size=(6, D)) * 2.0
    want = np.stack(field_numpy(list(z.T), list(h.T)), -1)
    assert_close(fq_field(z, h), want, "lohe.fixed_query_field")
    assert_close(lyapunov(z, h), -np.sum(z * h, -1), "lohe.lyapunov")
    _, dV = jax.jvp(
        lambda q: lyapunov(q, jnp.asarray(h)), (jnp.asarray(z),), (jnp.asarray(want),)
    )
    assert_close(dV, -np.sum(want * want, -1), "dV/dt along the field = -|P_z h|^2")
    jac = jax.jit(jax.vmap(jax.jacfwd(lohe.fixed_query_field)))(
        jnp.asarray(z), jnp.asarray(h)
    )
    assert_close(
        jac,
        np.moveaxis(jac_numpy(list(z.T), list(h.T)), -1, 0),
        "jax.jacfwd(fixed_query_field)",
    )
    zs, degenerate = equilibrium(h)
    nh = np.linalg.norm(h, axis=-1)
    assert_close(zs, h / nh[:, None], "lohe.equilibrium")
    if np.any(np.asarray(degenerate)):
        raise AssertionError("equilibrium flagged a non-degenerate drive as degenerate")
    spectrum = jax.jit(lohe.jacobian_spectrum)
    for d in (3, 5):  # rows: h/|h|, -h/|h|, a random unit z
        hd = g.normal(size=(3, d))
        nd = np.linalg.norm(hd, axis=-1)
        zd = np.stack([hd[0] / nd[0], -hd[1] / nd[1], _unit(g, d)])
        want_spec = np.stack([-nd[0], nd[1], -zd[2] @ hd[2]])
        assert_close(
            spectrum(zd, hd),
            np.repeat(want_spec[:, None], d - 1, -1),
            f"jacobian_spectrum, d={d}",
        )
    phi0 = g.uniform(0, np.pi, 7)
    an, tt = g.uniform(0.1, 3, 7), g.uniform(0, 4, 7)
    assert_close(
        exact_angle(phi0, an, tt), angle_numpy(phi0, an, tt), "lohe.exact_angle"
    )
    dl = phi0 * g.uniform(0.05, 0.95, 7)
    assert_close(
        jax.jit(lohe.time_to_converge)(phi0, an, dl),
        ttc_numpy(phi0, an, dl),
        "lohe.time_to_converge",
    )


@check("numeric")
def test_fixed_query_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_rate():
    from syncattn import lohe

    assert_fails(
        compare,
        lambda p, n, t: lohe.exact_angle(p, 2 * n, t),
        what="exact_angle with rate 2||h||",
    )


@check("numeric")
def test_flow_converges_from_random_starts():
    """Theorem check: scipy integration of the field vs exact_angle; convergence to h/||h||."""
    import jax
    from scipy.integrate import solve_ivp

    from syncattn import lohe

    g = rng("lohe_convergence")
    dims, starts = ((5,), 4) if CONFIG.quick else ((2, 3, 8, 32), 16)
    field = jax.jit(
        lohe.fixed_query_field
    )  # one compile; scipy calls it thousands of times
    for d in dims:
        h = g.normal(size=d)
        nh = np.linalg.norm(h)
        z0 = _unit(g, (starts, d))
        times = np.linspace(0.0, 12.0 / nh, 7)

        def rhs(_, y):
            return np.asarray(field(y.reshape(starts, d), h)).ravel()

        sol = solve_ivp(
            rhs,
            (0.0, times[-1]),
            z0.ravel(),
            method="DOP853",
            t_eval=times,
            rtol=1e-11,
            atol=1e-12,
        )
        zt = sol.y.T.reshape(len(times), starts, d)
        assert_close(
            np.linalg.norm(zt, axis=-1),
            np.ones((len(times), starts)),
            f"norms stay 1, d={d}",
            rtol=1e-8,
        )
        phi0 = np.arccos(np.clip(z0 @ h / nh, -1, 1))
        phi = np.arccos(np.clip(zt @ h / nh, -1, 1))
        want = lohe.exact_angle(phi0[None, :], nh, times[:, None])
        assert_close(
            phi, want, f"integrated angle vs exact_angle, d={d}", rtol=1e-6, atol=1e-6
        )
        zs, _ = lohe.equilibrium(h)
        assert_close(
            zt[-1],
            np.broadcast_to(zs, (starts, d)),
            f"convergence to h/|h|, d={d}",
            atol=1e-4,
        )


# ---------------------------------------------------------------- (f) couplings
_s = sp.Symbol("s", real=True)


def _elu1(x):
    return sp.Piecewise((x + 1, x > 0), (sp.exp(x), True))


COUPLING_EXPR = {
    "softplus": sp.log(1 + sp.exp(_s)),
    "relu": sp.Max(0, _s) + sp.Rational(1, 1000),
    "elu1": _elu1(_s),
}


def prove_couplings() -> None:
    """(f): every coupling is positive; the published elu1 is not the kernel."""
    u = sp.Symbol("u", positive=True)
    for name, e in COUPLING_EXPR.items():
        if isinstance(e, sp.Piecewise):  # each branch on its domain: s = u > 0, or any s
            ok = all(
                (expr.subs(_s, u) if cond == (_s > 0) else expr).is_positive
                for expr, cond in e.args
            )
        else:  # real s, sympy's assumptions decide
            ok = e.is_positive
        if not ok:
            raise AssertionError(f"(f) coupling {name} is not positive: {e}")
    qa, ka = sp.symbols("q k", real=True)
    kernel = _elu1(qa) * _elu1(ka)  # d_h = 1: phi(q) phi(k)
    assert_true_pos = [kernel.subs({qa: v, ka: w}).is_positive for v in (-2, 1) for w in (-1, 3)]
    if not all(assert_true_pos):
        raise AssertionError("(f) the feature kernel is not positive")
    # counterexample to elu1 == kernel (d_h = 1): q = k = 1
    diff = COUPLING_EXPR["elu1"].subs(_s, 1) - kernel.subs({qa: 1, ka: 1})
    if sp.simplify(diff) == 0:
        raise AssertionError("(f) elu1 and elu1_features should differ")


def wrong_couplings() -> None:
    """Mutation: a coupling without the relu's +1e-3 is not positive."""
    COUPLING_EXPR["relu"], old = sp.Max(0, _s), COUPLING_EXPR["relu"]
    try:
        prove_couplings()
    finally:
        COUPLING_EXPR["relu"] = old


@check("symbolic")
def test_couplings_positive_symbolic():
    prove_couplings()


@check("mutation")
def test_couplings_reject_bare_relu():
    assert_fails(wrong_couplings, what="a relu coupling without its +1e-3")


def compare_settle(settle=None) -> None:
    import jax.numpy as jnp

    from syncattn import lohe

    settle = settle or lohe.settle
    g = rng("lohe_settle")
    for d in (2, 5):
        h = g.normal(size=(6, d)) * g.uniform(0.1, 2.0, (6, 1))
        z0 = _unit(g, (6, d))
        nh = np.linalg.norm(h, axis=-1)
        T1 = 1.7
        zT = np.asarray(settle(z0, h, T1, rtol=1e-11, atol=1e-13).final)
        hh = h / nh[:, None]

        def ang(z):
            c = np.sum(z * hh, -1)
            return np.arctan2(np.linalg.norm(z - c[:, None] * hh, axis=-1), c)

        assert_close(ang(zT), angle_numpy(ang(z0), nh, T1), f"settle vs exact angle, d={d}",
                     rtol=1e-7, atol=1e-8)  # fmt: skip
    phi0 = ang(z0)
    dl = phi0 * 0.5
    tau, _, _ = lohe.settle_time(jnp.asarray(z0), jnp.asarray(h), 0.3, 50.0, rtol=1e-11, atol=1e-13)
    want = ttc_numpy(phi0, nh, np.full(6, 0.3))
    hit = phi0 > 0.3
    assert_close(np.asarray(tau)[hit], np.asarray(want)[hit], "settle_time vs time_to_converge",
                 rtol=1e-6)  # fmt: skip
    del dl


@check("numeric", slow=True)  # diffrax solves with their compilation (~15 s)
def test_settle_matches_exact_angle():
    compare_settle()


@check("mutation", slow=True)
def test_settle_comparison_rejects_doubled_drive():
    from syncattn import lohe

    assert_fails(
        compare_settle,
        lambda z0, h, t1, **kw: lohe.settle(z0, 2 * h, t1, **kw),
        what="a settle that integrates 2h",
    )


@check("numeric")
def test_coupling_weights_match_lambdified():
    from syncattn import lohe

    g = rng("lohe_couplings")
    dh = 3
    q, k = g.normal(size=(4, dh)), g.normal(size=(5, dh))
    raw = q @ k.T / np.sqrt(dh)
    for name, e in COUPLING_EXPR.items():
        f = sp.lambdify(_s, e, "numpy")
        want = np.vectorize(lambda x: float(f(x)))(raw)
        got = np.asarray(lohe.coupling_weights(q, k, kind=name))
        assert_close(got, want, f"coupling_weights {name}")
        if np.any(got <= 0):
            raise AssertionError(f"coupling {name} not positive")
    phi = sp.lambdify(_s, _elu1(_s), "numpy")
    fq, fk = np.vectorize(lambda x: float(phi(x)))(q), np.vectorize(lambda x: float(phi(x)))(k)
    assert_close(lohe.coupling_weights(q, k, kind="elu1_features"), fq @ fk.T / dh,
                 "coupling_weights elu1_features")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

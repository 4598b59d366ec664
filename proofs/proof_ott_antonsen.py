r"""Statement 9: Ott-Antonsen reduction, its stationary states and the exchange of stability.

Statement:
    For r' = f(r) = (K/2 - gamma) r - (K/2) r^3 (K > 0, gamma > 0, r in [0, 1]):
    (a) the stationary states are r = 0 and, for K > 2 gamma,
        r* = sqrt(1 - 2 gamma / K) (the only other non-negative root);
    (b) f'(0) = K/2 - gamma and f'(r*) = 2 gamma - K: r = 0 is stable for
        K < 2 gamma and unstable for K > 2 gamma, where r* exists and is stable
        (a transcritical/pitchfork exchange of stability at K = 2 gamma);
    (c) with a = K/2 - gamma, b = K/2 the solution is
        r(t) = r0 / sqrt(e^{-2at} + r0^2 b (1 - e^{-2at}) / a), which tends to r* for
        K > 2 gamma and to 0 for K < 2 gamma (r0 > 0), and to r0 / sqrt(1 + 2 b r0^2 t)
        at K = 2 gamma;
    (d) for Lorentzian frequencies g(w) = gamma / (pi (w^2 + gamma^2)), Kuramoto's
        K_c = 2 / (pi g(0)) equals 2 gamma: the exchange point of (b).

Proof idea:
    (a) f(r) = r (a - b r^2): roots 0 and +-sqrt(a/b), with a/b = 1 - 2 gamma/K.
    (b) f'(r) = a - 3 b r^2; at r*^2 = a/b it is -2a. Writing K = 2 gamma (1 + eps)
        gives the signs on each side of the threshold.
    (c) u = r^{-2} solves the linear equation u' = -2 a u + 2 b (Bernoulli); the
        closed form is checked against the ODE and the initial value, and its
        limits computed.
    (d) integrate g and evaluate it at 0.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): all of (a)-(d), with K, gamma, r0, t free (signs
    via K = 2 gamma (1 +- eps)). Numeric (float64): ``kuramoto.ott_antonsen_rhs``,
    ``kuramoto.ott_antonsen`` (including K = 2 gamma),
    ``kuramoto.lorentzian_order_parameter`` and ``kuramoto.critical_coupling``
    against the lambdified statements; theorem checks: the closed form against
    an independent scipy integration of the ODE, and (slow) the time-averaged
    order parameter of ``kuramoto.simulate`` with N Lorentzian oscillators
    against sqrt(1 - 2 gamma / K) above threshold and near 0 below it.
    Mutation: the proof must reject the sign-flipped cubic term
    (K/2 - gamma) r + (K/2) r^3 and a closed form with 1 - e^{-at}; the numeric
    comparison must reject an order parameter sqrt(1 - gamma / K).

Mirrors: syncattn.kuramoto.ott_antonsen_rhs, syncattn.kuramoto.ott_antonsen,
syncattn.kuramoto.lorentzian_order_parameter, syncattn.kuramoto.critical_coupling,
syncattn.kuramoto.simulate.
Source: not a claim of the seeds; it is the classical theory the library needs
to validate its Kuramoto simulator (Kuramoto 1975; Ott and Antonsen 2008).
Seed 000 (arXiv 2606.11585) reads the rotary drift as the natural
frequencies omega_j of a Kuramoto model and tracks local and global order
parameters; this statement is what those order parameters are measured against.
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


NUMBER = 9
TITLE = "Ott-Antonsen: r' = (K/2 - gamma) r - (K/2) r^3 has states 0 and sqrt(1 - 2 gamma/K), exchanging stability at K = 2 gamma"
MIRRORS = (
    "syncattn.kuramoto.ott_antonsen_rhs",
    "syncattn.kuramoto.ott_antonsen",
    "syncattn.kuramoto.lorentzian_order_parameter",
    "syncattn.kuramoto.critical_coupling",
)

PARTS = (
    Part(
        "a",
        "For K, gamma > 0 the stationary states r >= 0 of r' = (K/2 - gamma) r - (K/2) r^3 are 0 and, only for K > 2 gamma, r* = sqrt(1 - 2 gamma/K).",
        "coq",
        coq="stationary_states",
    ),
    Part(
        "b(i)",
        "f'(0) = K/2 - gamma and, for K > 2 gamma, f'(r*) = 2 gamma - K.",
        "coq",
        coq="linear_rates",
    ),
    Part(
        "b(ii)",
        "Exchange of stability at K = 2 gamma: below it f'(0) < 0 and f < 0 on r > 0; above it f'(0) > 0, f'(r*) < 0, 0 < r* < 1, f > 0 on (0, r*) and f < 0 beyond.",
        "coq",
        coq="exchange",
    ),
    Part(
        "c(i)",
        "The library's closed form (2t in place of (1 - e^{-2at})/a at a = 0) has a positive radicand for t >= 0, starts at r0 and solves r' = f(r), for every K > 0 (r0 > 0).",
        "coq",
        coq="closed_form",
    ),
    Part(
        "c(ii)",
        "At K = 2 gamma the closed form is r0 / sqrt(1 + 2 gamma r0^2 t).",
        "coq",
        coq="at_threshold",
    ),
    Part(
        "c(iii)",
        "r(t) tends to r* for K > 2 gamma and to 0 for K < 2 gamma (r0 > 0) as t -> oo.",
        "coq",
        coq="limits",
    ),
    Part(
        "c(iv)",
        "The closed form is continuous in K at K = 2 gamma ((1 - e^{-2at})/a -> 2t as a -> 0), for r0 > 0 and t >= 0.",
        "coq",
        coq="continuous_at_threshold",
    ),
    Part(
        "d(i)",
        "The Lorentzian g(w) = gamma / (pi (w^2 + gamma^2)) integrates to 1 over the real line.",
        "coq",
        coq="lorentzian_normalised",
    ),
    Part(
        "d(ii)",
        "Kuramoto's K_c = 2 / (pi g(0)) is 2 gamma for the Lorentzian: the exchange point of (b).",
        "coq",
        coq="lorentzian_threshold",
    ),
)
COQ_SPEC_SHA256 = "0473ba69077d48e3b21cb38a25cbfb1fcd642026a9a5716fdda9dd9fb49a2aec"

K, gamma, r0, t, eps = sp.symbols("K gamma r0 t epsilon", positive=True)
r, w = sp.symbols("r omega", real=True)
a_, b_ = K / 2 - gamma, K / 2


def rhs(r, K, gamma):
    return (K / 2 - gamma) * r - K / 2 * r**3


def wrong_rhs(r, K, gamma):
    """Mutation: the cubic term's sign flipped."""
    return (K / 2 - gamma) * r + K / 2 * r**3


def closed_form(r0, K, gamma, t):
    a, b = K / 2 - gamma, K / 2
    return r0 / sp.sqrt(sp.exp(-2 * a * t) + r0**2 * b * (1 - sp.exp(-2 * a * t)) / a)


def wrong_closed_form(r0, K, gamma, t):
    """Mutation: 1 - e^{-at} in place of 1 - e^{-2at}."""
    a, b = K / 2 - gamma, K / 2
    return r0 / sp.sqrt(sp.exp(-2 * a * t) + r0**2 * b * (1 - sp.exp(-a * t)) / a)


def r_star(K, gamma):
    return sp.sqrt(1 - 2 * gamma / K)


def prove(f=rhs, solution=closed_form) -> None:
    """Symbolic proof of (a)-(d) for the right-hand side ``f`` and the ``solution``."""
    fr = f(r, K, gamma)
    # (a) stationary states
    roots = set(sp.solve(fr, r))
    want = {0, r_star(K, gamma), -r_star(K, gamma)}
    if {sp.simplify(x) for x in roots} != {sp.simplify(x) for x in want}:
        raise AssertionError(f"(a) stationary states {roots} != {want}")
    # (b) stability on both sides of K = 2 gamma
    df = sp.diff(fr, r)
    assert_zero(df.subs(r, 0) - (K / 2 - gamma), "(b) f'(0) = K/2 - gamma")
    assert_zero(
        df.subs(r, r_star(K, gamma)) - (2 * gamma - K), "(b) f'(r*) = 2 gamma - K"
    )
    above, below = {K: 2 * gamma * (1 + eps)}, {K: 2 * gamma / (1 + eps)}
    assert_true(
        sp.simplify(df.subs(r, 0).subs(above)).is_positive, "(b) 0 unstable above K_c"
    )
    assert_true(
        sp.simplify(df.subs(r, r_star(K, gamma)).subs(above)).is_negative,
        "(b) r* stable above K_c",
    )
    assert_true(
        sp.simplify(df.subs(r, 0).subs(below)).is_negative, "(b) 0 stable below K_c"
    )
    assert_true(
        sp.simplify((1 - 2 * gamma / K).subs(below)).is_negative, "(b) no r* below K_c"
    )
    # (c) closed form: ODE, initial value, limits
    rt = solution(r0, K, gamma, t)
    # Bernoulli: for r > 0, r' = f(r) iff u = r^{-2} solves u' = -2 a u + 2 b
    rp = sp.Symbol("r_pos", positive=True)
    assert_zero(
        -2 * rp**-3 * f(rp, K, gamma) - (-2 * a_ * rp**-2 + 2 * b_),
        "(c) Bernoulli substitution",
    )
    rational = lambda e: sp.cancel(sp.expand(sp.powsimp(e, force=True)))
    u = rt**-2
    assert_zero(
        sp.diff(u, t) + 2 * a_ * u - 2 * b_,
        "(c) closed form solves the ODE",
        simplify=rational,
    )
    assert_zero(rt.subs(t, 0) - r0, "(c) initial value", simplify=rational)
    lim_above = sp.limit(rt.subs(above), t, sp.oo)
    assert_zero(lim_above - r_star(K, gamma).subs(above), "(c) r(t) -> r* above K_c")
    if sp.limit(rt.subs(below), t, sp.oo) != 0:
        raise AssertionError("(c) r(t) does not tend to 0 below K_c")
    at_kc = sp.limit(rt.subs(K, 2 * gamma * (1 + eps)), eps, 0)
    assert_zero(
        at_kc - r0 / sp.sqrt(1 + 2 * gamma * r0**2 * t), "(c) K = 2 gamma (b = gamma)"
    )
    # (d) Lorentzian critical coupling
    g = gamma / (sp.pi * (w**2 + gamma**2))
    assert_zero(sp.integrate(g, (w, -sp.oo, sp.oo)) - 1, "(d) g is a density")
    assert_zero(
        2 / (sp.pi * g.subs(w, 0)) - 2 * gamma, "(d) K_c = 2 / (pi g(0)) = 2 gamma"
    )


@check("symbolic")
def test_ott_antonsen_symbolic():
    prove()


@check("mutation")
def test_ott_antonsen_rejects_flipped_cubic():
    assert_fails(prove, wrong_rhs, what="the cubic term with a + sign")


@check("mutation")
def test_ott_antonsen_rejects_wrong_closed_form():
    assert_fails(prove, rhs, wrong_closed_form, what="a closed form with 1 - e^{-at}")


# ---------------------------------------------------------------- numeric
rhs_numpy = sp.lambdify([r, K, gamma], rhs(r, K, gamma), "numpy")
closed_numpy = sp.lambdify([r0, K, gamma, t], closed_form(r0, K, gamma, t), "numpy")
at_kc_numpy = sp.lambdify(
    [r0, gamma, t], r0 / sp.sqrt(1 + 2 * gamma * r0**2 * t), "numpy"
)
r_inf_numpy = sp.lambdify(
    [K, gamma], sp.Piecewise((r_star(K, gamma), K > 2 * gamma), (0, True)), "numpy"
)


def compare(order_parameter=None) -> None:
    import jax

    from syncattn import kuramoto

    # jitted: one compilation per function instead of one per eager op (same maths)
    order_parameter = jax.jit(order_parameter or kuramoto.lorentzian_order_parameter)
    ott_antonsen_rhs, ott_antonsen, critical_coupling = (
        jax.jit(f)
        for f in (
            kuramoto.ott_antonsen_rhs,
            kuramoto.ott_antonsen,
            kuramoto.critical_coupling,
        )
    )
    g = rng("ott_antonsen")
    rr, KK, gg, tt, rr0 = (
        g.uniform(0, 1, 9),
        g.uniform(0.1, 5, 9),
        g.uniform(0.05, 2, 9),
        g.uniform(0, 6, 9),
        g.uniform(0.01, 1, 9),
    )
    KK[:3] = 2 * gg[:3] * g.uniform(1.05, 3, 3)  # make sure both sides of K_c appear
    KK[3:5] = 2 * gg[3:5] * g.uniform(0.2, 0.95, 2)
    assert_close(
        ott_antonsen_rhs(rr, KK, gg), rhs_numpy(rr, KK, gg), "ott_antonsen_rhs"
    )
    assert_close(
        ott_antonsen(rr0, KK, gg, tt),
        closed_numpy(rr0, KK, gg, tt),
        "ott_antonsen",
        rtol=1e-10,
    )
    assert_close(
        ott_antonsen(rr0, 2 * gg, gg, tt),
        at_kc_numpy(rr0, gg, tt),
        "ott_antonsen at K = 2 gamma",
        rtol=1e-10,
    )
    with np.errstate(
        invalid="ignore"
    ):  # numpy's select evaluates the sqrt branch everywhere
        want_r = r_inf_numpy(KK, gg)
    assert_close(order_parameter(KK, gg), want_r, "lorentzian_order_parameter")
    assert_close(
        critical_coupling(1 / (np.pi * gg)),
        2 * gg,
        "critical_coupling(g(0)) = 2 gamma",
    )


@check("numeric")
def test_ott_antonsen_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_order_parameter():
    import jax.numpy as jnp

    wrong = lambda K, g: (
        jnp.sqrt(jnp.clip(1 - g / jnp.asarray(K), 0.0, None)) * (jnp.asarray(K) > 2 * g)
    )
    assert_fails(compare, wrong, what="r = sqrt(1 - gamma/K)")


@check("numeric")
def test_closed_form_matches_ode_solution():
    """Theorem check: ott_antonsen against scipy's DOP853 solution of the ODE."""
    import jax
    from scipy.integrate import solve_ivp

    from syncattn import kuramoto

    ott_antonsen = jax.jit(kuramoto.ott_antonsen)
    ts = np.linspace(0.0, 20.0, 41)
    for r_0, K_, g_ in (
        (0.05, 3.0, 0.5),
        (0.9, 0.5, 0.5),
        (0.3, 1.0, 0.5),
        (0.6, 1.6, 0.5),
    ):
        sol = solve_ivp(
            lambda _, y: rhs_numpy(y, K_, g_),
            (0, ts[-1]),
            [r_0],
            method="DOP853",
            t_eval=ts,
            rtol=1e-12,
            atol=1e-14,
        )
        assert_close(
            ott_antonsen(r_0, K_, g_, ts),
            sol.y[0],
            f"ott_antonsen vs ODE, K={K_}",
            rtol=1e-8,
            atol=1e-10,
        )


@check("numeric", slow=True)
def test_lorentzian_order_parameter_from_simulation():
    """Theorem check: finite-N Kuramoto with Lorentzian frequencies reproduces r(K)."""
    import jax.numpy as jnp

    from syncattn import kuramoto

    n, t1 = (500, 40.0) if CONFIG.quick else (1000, 40.0)
    gamma_ = 0.5
    omega = kuramoto.lorentzian_frequencies(n, gamma_)
    theta0 = rng("lorentzian").uniform(-np.pi, np.pi, n)
    for K_, tol in ((0.5, None), (1.5, 0.05), (3.0, 0.05)):
        sol = kuramoto.simulate(
            theta0, omega, jnp.asarray(K_), t1, saveat=81, save_phases=False
        )
        r_bar = float(
            np.mean(np.asarray(sol.r)[40:])
        )  # time average over the second half
        want = float(kuramoto.lorentzian_order_parameter(K_, gamma_))
        if tol is None and r_bar > 0.1:
            raise AssertionError(
                f"K={K_} < K_c: time-averaged r = {r_bar:.3f}, expected near 0"
            )
        if tol is not None and abs(r_bar - want) > tol:
            raise AssertionError(
                f"K={K_}: time-averaged r = {r_bar:.3f}, theory {want:.3f} (tol {tol})"
            )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

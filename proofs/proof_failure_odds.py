r"""Statement 6: failure odds of fixed-query attention (cap measure, its bound, finite time).

Statement:
    (a) For z uniform on S^{d-1} and a fixed unit p, the angle phi = angle(z, p) has
        density sin^{d-2}(phi) / B((d-1)/2, 1/2) on [0, pi], where
        B((d-1)/2, 1/2) = sqrt(pi) Gamma((d-1)/2) / Gamma(d/2) = int_0^pi sin^{d-2};
        hence cap(alpha) := P(phi < alpha) = 1/2 I_{sin^2 alpha}((d-1)/2, 1/2) for
        alpha <= pi/2 and 1 - cap(pi - alpha) for alpha > pi/2.
    (b) cap(alpha) <= rho(alpha)^d with rho = 1/(2 cos alpha) on [0, pi/4] and
        sin(alpha) on [pi/4, pi/2] (rho < 1 there): exponentially small in d for
        fixed alpha < pi/2; moreover rho(alpha)^d <= exp(-d cos^2(alpha) / 2).
    (c) Under z' = (I - z z^T) h with z(0) uniform, P(phi(T) > delta) = P(phi0 > phi_c)
        = cap(pi - phi_c), the measure of the cap of angle pi - phi_c around the
        antipode -h/||h||, where tan(phi_c/2) = tan(delta/2) e^{||h|| T}.

Proof idea:
    (a) Spherical coordinates z = (cos phi, sin phi y), y in S^{d-2}: the metric
        is dphi^2 + sin^2(phi) g_{S^{d-2}}, so the area element is
        sin^{d-2}(phi) dphi dsigma_{d-2} (Gram determinant; checked for d = 3, 4).
        With x = sin^2(phi), d/dalpha [1/2 I_{sin^2 alpha}(p, 1/2)] =
        sin^{d-2}(alpha) / B(p, 1/2) on (0, pi/2), p = (d-1)/2, and the value at 0 is
        0, so 1/2 I_{sin^2 alpha} is the integral of the density; at pi/2 it is
        1/2 (I_1 = 1 by definition of B), and by the symmetry
        sin(pi - phi) = sin(phi) the density integrates to 1 on [0, pi].
    (b) K. Ball's cone argument (docstring of sphere.cap_probability_bound): with
        t = cos(alpha), the cone K over C = {<x, p> >= t} has vol(K)/vol(B^d) =
        sigma(C); K lies in every ball containing C and 0; a ball of radius r has
        volume r^d vol(B^d). Two balls work: centre t p, radius sqrt(1 - t^2)
        (contains 0 iff t <= 1/sqrt 2, i.e. alpha >= pi/4) and centre p/(2t),
        radius 1/(2t). The exponential form uses 1 - y <= e^{-y} and
        log(2t) >= t^2/2 on [1/sqrt 2, 1].
    (c) phi(T) = 2 atan(tan(phi0/2) e^{-||h|| T}) (statement 5) is increasing in
        phi0; solving phi(T) = delta gives phi_c; the angle to -h is pi - phi0.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) the Gram determinants for d = 3, 4; the
    derivative of 1/2 I_{sin^2 alpha} for a *free* dimension d; the Gamma form of
    B for free d; the normaliser integrals for d = 2..6; the closed forms
    alpha/pi (d = 2) and (1 - cos alpha)/2 (d = 3); the symmetry. (b) the ball
    containments (distances computed with free components in d = 3, then the
    inequalities in t and <x, p> for every d), the origin conditions on each
    alpha-range, continuity of rho at pi/4, and both exponential inequalities.
    The cone-volume step of (b) is the written argument above (not sympy).
    (c) monotonicity, the threshold phi_c and the antipodal complement.
    Numeric (float64): ``sphere.cap_probability`` against quadrature of the
    density and against the lambdified incomplete-beta form for d in
    {2, 3, 8, 32}; ``sphere.cap_probability_bound`` against the lambdified rho^d,
    bound >= cap and bound <= exp(-d cos^2/2) on a grid of alpha and d;
    ``lohe.antipodal_probability`` and ``lohe.finite_time_failure_probability``
    against the lambdified (c); theorem check: Monte Carlo on uniform starts
    (cap measure and finite-time failure through ``lohe.exact_angle``) within
    4 standard errors.
    Mutation: the proof must reject the CDF 1/2 I_{sin^2 alpha}(d/2, 1/2), the
    threshold tan(delta/2) e^{-||h|| T}, and the one-ball bound sin(alpha)^d on
    all of [0, pi/2]; the numeric check must reject that one-ball bound too
    (it undershoots the cap for small alpha).

Mirrors: syncattn.sphere.cap_probability, syncattn.sphere.cap_probability_bound,
syncattn.lohe.antipodal_probability, syncattn.lohe.finite_time_failure_probability,
syncattn.lohe.exact_angle.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059), "failure
modes" and "dimensional scaling": antipodal initialisation is one of the two
finite-time failure modes, and the measure of the unstable region shrinks
exponentially with the oscillator dimension d_osc.
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
    pythagoras,
    rng,
    run_module,
)
from ._parts import Part


NUMBER = 6
TITLE = "Failure odds: cap = 1/2 I_{sin^2 a}((d-1)/2, 1/2) <= rho(a)^d; P(phi(T) > delta) = cap(pi - phi_c)"
MIRRORS = (
    "syncattn.sphere.cap_probability",
    "syncattn.sphere.cap_probability_bound",
    "syncattn.lohe.antipodal_probability",
    "syncattn.lohe.finite_time_failure_probability",
)
PARTS = (
    Part(
        "a",
        "For z uniform on S^{d-1}, the angle to a fixed unit p has density sin^{d-2}(phi)/B((d-1)/2, 1/2), so cap(alpha) = 1/2 I_{sin^2 alpha}((d-1)/2, 1/2) on [0, pi/2] and 1 - cap(pi - alpha) beyond.",
        "sympy",
        why="Needs the surface measure of S^{d-1} in spherical coordinates and the incomplete beta function, which the Coq libraries used here do not provide; sympy checks the Gram determinants (d = 3, 4) and the derivative of the CDF for free d.",
    ),
    Part(
        "b(cap)",
        "cap(alpha) <= rho(alpha)^d (K. Ball's cone argument).",
        "sympy",
        why="Needs volumes of balls in R^d (the cone argument); sympy checks the ball containments, the cone-volume step is the written argument of the docstring.",
    ),
    Part(
        "b(rho<1)",
        "0 <= rho(alpha) < 1 on [0, pi/2): the bound decays exponentially in d.",
        "coq",
        coq="rho_below_one",
    ),
    Part(
        "b(exp)",
        "rho(alpha)^d <= exp(-d cos^2(alpha) / 2) for every alpha in [0, pi/2] and every d.",
        "coq",
        coq="failure_odds",
    ),
    Part(
        "b(continuity)",
        "rho is continuous at pi/4 (both branches are 1/sqrt 2).",
        "coq",
        coq="rho_continuous",
    ),
    Part(
        "b(table)",
        "The 21 tabulated values rho(alpha)^d of the failure study (alpha = 30, 45, 60 degrees; d = 2..64) lie in enclosures of relative width 2e-9.",
        "coq",
        coq="rho_table",
    ),
    Part(
        "c(event)",
        "Under z' = (I - z z^T) h, phi(T) > delta iff phi0 > phi_c = 2 atan(tan(delta/2) e^{||h|| T}), phi_c in (0, pi).",
        "coq",
        coq="failure_event",
    ),
    Part(
        "c(probability)",
        "With z(0) uniform, P(phi(T) > delta) = cap(pi - phi_c), the cap around the antipode.",
        "sympy",
        why="The probability of the event needs the uniform measure on the sphere (part a); sympy checks the antipodal complement, Monte Carlo the value.",
    ),
)
# SHA-256 of proofs/coq/failure_odds_spec.v (update it whenever the spec changes).
COQ_SPEC_SHA256 = "1a736593baae5a94b2c0a73776f33a19fbce413ed663b4bb73215b08da20d4b5"

d = sp.Symbol("d", positive=True)
alpha, phi, u, w = sp.symbols("alpha phi u w", real=True)
s, c, x, tt, e, y = sp.symbols("s c x t e y", positive=True)
a, T, x0, delta = sp.symbols("a T x0 delta", positive=True)
HALF = sp.Rational(1, 2)


def cdf(alpha, d):
    """1/2 I_{sin^2 alpha}((d-1)/2, 1/2), alpha in [0, pi/2]."""
    return HALF * sp.betainc_regularized((d - 1) / 2, HALF, 0, sp.sin(alpha) ** 2)


def wrong_cdf(alpha, d):
    """Mutation: first beta parameter d/2 instead of (d-1)/2."""
    return HALF * sp.betainc_regularized(d / 2, HALF, 0, sp.sin(alpha) ** 2)


def critical_tan(delta, a, T):
    """tan(phi_c / 2) = tan(delta/2) e^{||h|| T}."""
    return sp.tan(delta / 2) * sp.exp(a * T)


def wrong_critical_tan(delta, a, T):
    """Mutation: e^{-||h|| T}."""
    return sp.tan(delta / 2) * sp.exp(-a * T)


# Ball's balls, one per alpha-range: (alpha_lo, alpha_hi, centre coefficient k (centre = k p),
# squared radius, rho = radius as a function of alpha), with t = cos(alpha)
BALLS = (
    (
        0,
        sp.pi / 4,
        lambda t: 1 / (2 * t),
        lambda t: 1 / (4 * t**2),
        1 / (2 * sp.cos(alpha)),
    ),
    (sp.pi / 4, sp.pi / 2, lambda t: t, lambda t: 1 - t**2, sp.sin(alpha)),
)
WRONG_BALLS = (
    (0, sp.pi / 2, lambda t: t, lambda t: 1 - t**2, sp.sin(alpha)),
)  # mutation: no case split


def rho(balls=BALLS):
    """The bound's base rho(alpha) on [0, pi/2], as in sphere.cap_probability_bound."""
    return sp.Piecewise(
        *[(r, alpha <= hi) for lo, hi, k, r2, r in balls[:-1]], (balls[-1][-1], True)
    )


def _gram(param, angles):
    J = sp.Matrix(param).jacobian(sp.Matrix(angles))
    return J.T * J


def prove(F=cdf, critical=critical_tan, balls=BALLS) -> None:
    """Symbolic proof of (a)-(c); each argument can be swapped for a wrong variant."""
    prove_cap(F)
    prove_bound(balls)
    prove_finite_time(critical)


def prove_cap(F=cdf) -> None:
    """(a): the angle density and the incomplete-beta form of the cap measure."""
    # (a) area element: Gram determinant = sin^{2(d-2)}(phi) * (that of S^{d-2})
    # metric of the parametrisation: diag(1, sin^2 phi, sin^2 phi sin^2 u, ...), so the
    # area element sqrt(det) = sin^{d-2}(phi) * (area element of S^{d-2})
    s_phi, s_u = sp.sin(phi), sp.sin(u)
    g3 = _gram([sp.cos(phi), s_phi * sp.cos(u), s_phi * s_u], [phi, u])
    pyth = lambda e: pythagoras(e, (phi, u, w))
    assert_zero(g3 - sp.diag(1, s_phi**2), "(a) metric, d = 3", simplify=pyth)
    p4 = [
        sp.cos(phi),
        s_phi * sp.cos(u),
        s_phi * s_u * sp.cos(w),
        s_phi * s_u * sp.sin(w),
    ]
    g4 = _gram(p4, [phi, u, w])
    assert_zero(
        g4 - sp.diag(1, s_phi**2, s_phi**2 * s_u**2), "(a) metric, d = 4", simplify=pyth
    )
    # (a) derivative of the CDF for a free dimension d, alpha in (0, pi/2): sin = s, cos = c > 0
    B = sp.beta((d - 1) / 2, HALF)
    dF = (
        sp.diff(F(alpha, d), alpha)
        .subs({sp.sin(alpha): s, sp.cos(alpha): c})
        .subs(1 - s**2, c**2)
    )
    assert_zero(
        sp.powsimp(sp.powdenest(dF * B, force=True), force=True) - s ** (d - 2),
        "(a) dF/dalpha = density",
    )
    F0 = F(alpha, d).subs(
        alpha, 0
    )  # 1/2 I_{x}(p, q) integrates the beta density over [0, x]
    lower_upper = [arg for f in F0.atoms(sp.betainc_regularized) for arg in f.args[2:]]
    if not (lower_upper and all(v == 0 for v in lower_upper)):
        raise AssertionError(
            f"(a) F(0) = {F0} is not an integral over the empty interval [0, 0]"
        )
    assert_zero(
        B.rewrite(sp.gamma) - sp.sqrt(sp.pi) * sp.gamma((d - 1) / 2) / sp.gamma(d / 2),
        "(a) Gamma form of B",
    )
    for dd in range(2, 7):
        full = sp.integrate(sp.sin(phi) ** (dd - 2), (phi, 0, sp.pi))
        assert_zero(
            full
            - sp.sqrt(sp.pi)
            * sp.gamma(sp.Rational(dd - 1, 2))
            / sp.gamma(sp.Rational(dd, 2)),
            f"(a) normaliser, d = {dd}",
        )
    for dd, closed in ((2, alpha / sp.pi), (3, (1 - sp.cos(alpha)) / 2)):
        cap = sp.integrate(sp.sin(phi) ** (dd - 2), (phi, 0, alpha)) / sp.integrate(
            sp.sin(phi) ** (dd - 2), (phi, 0, sp.pi)
        )
        assert_zero(cap - closed, f"(a) closed form, d = {dd}")
    assert_zero(sp.sin(sp.pi - phi) - sp.sin(phi), "(a) symmetry phi -> pi - phi")


def prove_bound(balls=BALLS) -> None:
    """(b): K. Ball's bound rho(alpha)^d and its exponential form."""
    # containments on each alpha-range (t = cos alpha, <x, p> = t + e >= t)
    xv, pv = (
        sp.Matrix(sp.symbols("x0:3", real=True)),
        sp.Matrix(sp.symbols("p0:3", real=True)),
    )
    kk = sp.Symbol("k", real=True)
    dist2 = (xv - kk * pv).dot(xv - kk * pv)
    # = |x|^2 - 2k<x,p> + k^2|p|^2, i.e. 1 - 2k<x,p> + k^2 on the sphere
    assert_zero(
        sp.expand(dist2 - (xv.dot(xv) - 2 * kk * xv.dot(pv) + kk**2 * pv.dot(pv))),
        "(b) |x - k p|^2",
    )
    covered = sp.Interval(0, 0)
    for lo, hi, k, r2, r in balls:
        t_lo, t_hi = sp.cos(hi), sp.cos(lo)
        slack_x = sp.factor(
            r2(tt) - (1 - 2 * k(tt) * (tt + e) + k(tt) ** 2)
        )  # x in C, e >= 0
        assert_true(slack_x.is_nonnegative, f"(b) cap inside the ball on [{lo}, {hi}]")
        slack_0 = sp.simplify(r2(tt) - k(tt) ** 2)  # origin inside the ball
        assert_true(
            bool(sp.minimum(slack_0, tt, sp.Interval(t_lo, t_hi)) >= 0),
            f"(b) origin inside the ball on [{lo}, {hi}]",
        )
        assert_zero(
            r**2 - r2(sp.cos(alpha)), f"(b) rho^2 is the squared radius on [{lo}, {hi}]"
        )
        covered = covered.union(sp.Interval(lo, hi))
    if covered != sp.Interval(0, sp.pi / 2):
        raise AssertionError(f"(b) the balls cover {covered}, not [0, pi/2]")
    assert_zero(
        1 / (2 * sp.cos(sp.pi / 4)) - sp.sin(sp.pi / 4), "(b) rho is continuous at pi/4"
    )
    # exponential form: 1 - y <= e^{-y} (y = t^2) and log(2t) >= t^2/2 on [1/sqrt 2, 1]
    gy = sp.exp(-y) - 1 + y
    assert_zero(gy.subs(y, 0), "(b) e^{-y} - 1 + y at 0")
    assert_true(
        bool(sp.minimum(sp.diff(gy, y), y, sp.Interval(0, sp.oo)) >= 0),
        "(b) e^{-y} - 1 + y increasing",
    )
    kt = sp.log(2 * tt) - tt**2 / 2
    assert_true(
        bool(sp.minimum(sp.diff(kt, tt), tt, sp.Interval(sp.sqrt(2) / 2, 1)) >= 0),
        "(b) log(2t) - t^2/2 increasing",
    )
    assert_true(
        kt.subs(tt, sp.sqrt(2) / 2).is_positive, "(b) log(2t) - t^2/2 > 0 at 1/sqrt 2"
    )


def prove_finite_time(critical=critical_tan) -> None:
    """(c): the finite-time failure event is an antipodal cap."""
    phiT = 2 * sp.atan(x0 * sp.exp(-a * T))
    assert_true(sp.diff(phiT, x0).is_positive, "(c) phi(T) increasing in tan(phi0/2)")
    (x_c,) = sp.solve(sp.Eq(phiT, delta), x0)
    assert_zero(sp.simplify(x_c - critical(delta, a, T)), "(c) threshold tan(phi_c/2)")
    comp = sp.tan(sp.pi / 2 - sp.atan(critical(delta, a, T)))  # tan((pi - phi_c)/2)
    assert_zero(
        comp - sp.cos(delta / 2) * sp.exp(-a * T) / sp.sin(delta / 2),
        "(c) antipodal cap angle",
    )


@check("symbolic")
def test_failure_odds_symbolic():
    prove()


@check("mutation")
def test_failure_odds_rejects_wrong_cdf():
    assert_fails(prove_cap, wrong_cdf, what="the CDF 1/2 I_{sin^2}(d/2, 1/2)")


@check("mutation")
def test_failure_odds_rejects_wrong_threshold():
    assert_fails(
        prove_finite_time,
        wrong_critical_tan,
        what="the threshold tan(delta/2) e^{-||h|| T}",
    )


@check("mutation")
def test_failure_odds_rejects_one_ball_bound():
    assert_fails(
        prove_bound, WRONG_BALLS, what="the bound sin(alpha)^d on all of [0, pi/2]"
    )


# ---------------------------------------------------------------- numeric
cdf_numpy = sp.lambdify(
    [alpha, d], cdf(alpha, d), "scipy"
)  # betainc_regularized -> scipy.special.betainc
density_numpy = sp.lambdify(
    [phi, d], sp.sin(phi) ** (d - 2) / sp.beta((d - 1) / 2, HALF), "scipy"
)
rho_numpy = sp.lambdify([alpha], rho(), "numpy")
antipodal_angle_numpy = sp.lambdify(
    [delta, a, T], sp.pi - 2 * sp.atan(critical_tan(delta, a, T)), "numpy"
)
DIMS = (2, 3, 8, 32)
ALPHA = np.linspace(
    0.0, np.pi, 25
)  # one shape for every cap evaluation: one compilation per d


def cap_reference(al, dd):
    """Lambdified (a): 1/2 I_{sin^2}, mirrored for alpha > pi/2."""
    al = np.asarray(al, dtype=np.float64)
    return np.where(
        al <= np.pi / 2,
        cdf_numpy(np.minimum(al, np.pi / 2), dd),
        1 - cdf_numpy(np.minimum(np.pi - al, np.pi / 2), dd),
    )


def compare(bound=None) -> None:
    from scipy.integrate import quad

    from syncattn import lohe, sphere

    bound = bound or sphere.cap_probability_bound
    al = ALPHA
    for dd in (2, 3, 4, 8, 16, 32, 64, 128):  # the bound dominates the (true) cap ...
        cap, b = cap_reference(al, dd), np.asarray(bound(al, dd))
        if np.any(b < cap * (1 - 1e-12)):
            i = int(np.argmax(cap - b))
            raise AssertionError(
                f"bound {b[i]:.4g} < cap {cap[i]:.4g} at alpha={al[i]:.3f}, d={dd}"
            )
        lo = al <= np.pi / 2  # ... and implies the exponential form
        if np.any(b[lo] > np.exp(-dd * np.cos(al[lo]) ** 2 / 2) * (1 + 1e-12)):
            raise AssertionError(f"bound exceeds exp(-d cos^2(alpha)/2) for d={dd}")
        want_b = np.where(lo, rho_numpy(np.minimum(al, np.pi / 2)) ** dd, 1.0)
        assert_close(b, want_b, f"cap_probability_bound vs lambdified rho^d, d={dd}")
    for dd in DIMS:
        cap = sphere.cap_probability(al, dd)
        assert_close(
            cap,
            cap_reference(al, dd),
            f"cap_probability vs lambdified 1/2 I, d={dd}",
            atol=1e-13,
        )
        quad_cap = [
            quad(density_numpy, 0.0, x, args=(dd,), epsabs=1e-13, epsrel=1e-12)[0]
            for x in al[1::4]
        ]
        assert_close(
            np.asarray(cap)[1::4],
            quad_cap,
            f"cap_probability vs quadrature of the density, d={dd}",
            rtol=1e-9,
            atol=1e-12,
        )
        assert_close(
            lohe.antipodal_probability(al, dd), cap, f"antipodal_probability, d={dd}"
        )
    g = rng("failure_odds")
    nh, TT = g.uniform(0.1, 2.0, ALPHA.shape), g.uniform(0.0, 3.0, ALPHA.shape)
    dl = g.uniform(0.05, 3.0, ALPHA.shape)
    for dd in DIMS:
        want = cap_reference(antipodal_angle_numpy(dl, nh, TT), dd)
        got = lohe.finite_time_failure_probability(nh, TT, dl, dd)
        assert_close(got, want, f"finite_time_failure_probability, d={dd}", atol=1e-13)


@check("numeric")
def test_failure_odds_match_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_one_ball_bound():
    import jax.numpy as jnp

    one_ball = lambda al, dd: jnp.sin(jnp.minimum(jnp.asarray(al), jnp.pi / 2)) ** dd
    assert_fails(compare, one_ball, what="the bound sin(alpha)^d on all of [0, pi/2]")


@check("numeric")
def test_monte_carlo_failure_odds():
    """Theorem check: Monte Carlo on uniform starts, within 4 standard errors."""
    import jax

    from syncattn import lohe, sphere

    n, dims = (20_000, (3, 8)) if CONFIG.quick else (100_000, DIMS)
    key = jax.random.key(CONFIG.seed)
    h_norm, T_, delta_ = 1.3, 1.0, np.pi / 6
    for dd in dims:
        key, sub = jax.random.split(key)
        z = np.asarray(sphere.sample_uniform(sub, (n,), dd))
        phi0 = np.arccos(np.clip(z[:, 0], -1.0, 1.0))  # angle to h/||h|| = e_1
        cap = np.asarray(sphere.cap_probability(ALPHA, dd))
        events = [
            (f"cap({ALPHA[i]:.2f})", phi0 < ALPHA[i], cap[i]) for i in (4, 12, 19)
        ]
        phiT = np.asarray(lohe.exact_angle(phi0, h_norm, T_))
        fail = lohe.finite_time_failure_probability(
            np.full(ALPHA.shape, h_norm),
            np.full(ALPHA.shape, T_),
            np.full(ALPHA.shape, delta_),
            dd,
        )
        events.append(("P(phi(T) > delta)", phiT > delta_, np.asarray(fail)[0]))
        for name, hits, p in events:
            p = float(p)
            se = max(np.sqrt(p * (1 - p) / n), 1.0 / n)
            if abs(hits.mean() - p) > 4 * se:
                raise AssertionError(
                    f"{name}, d={dd}: Monte Carlo {hits.mean():.5f} vs {p:.5f} (4 se = {4 * se:.5f})"
                )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

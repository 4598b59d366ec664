r"""Statement 25: Watanabe-Strogatz: identical oscillators move by a Moebius map, three ODEs plus N - 3 constants.

Statement:
    Let M(u) = (u + alpha)/(1 + conj(alpha) u) with u = e^{i psi} w (the group element
    (alpha, psi), |alpha| < 1), and theta_j' = omega + Im(H e^{-i theta_j}) for all j
    (identical oscillators; H = K e^{-i beta} Z_1 + h(t) for Kuramoto-Sakaguchi with a
    common drive):
    (a) |u + alpha|^2 - |1 + conj(alpha) u|^2 = (|u|^2 - 1)(1 - |alpha|^2): M maps the unit
        circle onto itself, and (b) the open disk into itself;
    (c) z = e^{i theta} obeys the Riccati equation z' = i omega z + (H - conj(H) z^2)/2;
    (d) for z(t) = M_{alpha(t), psi(t)}(w) with w constant, the chain rule gives
        z' = (1 - |alpha|^2)/(1 + conj(alpha) u)^2 i psi' u + alpha'/(1 + conj(alpha) u)
             - u (u + alpha)/(1 + conj(alpha) u)^2 conj(alpha');                  (d1)
        with alpha' = i omega alpha + (H - conj(H) alpha^2)/2 and
        psi' = omega + Im(H conj(alpha)) this equals i omega z + (H - conj(H) z^2)/2 for
        every u with 1 + conj(alpha) u != 0                                        (d2)
        so every e^{i theta_j(t)} = M(w_j): three real ODEs, and the w_j are constants
        (N - 3 of them free after the normalisation psi(0) = 0, sum_j w_j = 0);
    (e) d|alpha|^2/dt = (1 - |alpha|^2) Re(H conj(alpha)) (e1), so 1 - |alpha|^2 =
        (1 - |alpha_0|^2) exp(-int Re(H conj alpha)) > 0: alpha stays in the open disk (e2);
    (f) with c = conj(alpha) e^{i psi} and |w| = 1:
        M(w) = alpha + (1 - |alpha|^2) e^{i psi} (w + conj(c)) / |1 + c w|^2 and
        |1 + c w|^2 = 1 + |c|^2 + 2 Re(c w) (the real Poisson-kernel sum the library uses);
    (g) the centring normalisation exists and is unique for N >= 3 when no phase is held
        by N/2 or more oscillators (Douady-Earle; the library's Newton iteration
        converges), and the reduced flow reproduces the full N-oscillator flow (float64:
        to 1e-10 at N = 10^4 over t = 100, at a fraction of its cost).

Proof idea:
    (a) expand both squared moduli in real coordinates. (c) z' = i theta' z and
    i Im(H conj z) z = (H conj(z) z - conj(H) z^2)/2 with z conj(z) = 1. (d1) M is
    rational in (u, alpha, conj alpha); differentiate. (d2) a rational identity in
    independent u, alpha, conj(alpha), H, conj(H) (the complexified Moebius group: it
    holds off the circle too). (e) conj(alpha) alpha' has real part
    (1 - |alpha|^2) Re(H conj alpha)/2. (f) u/(1 + conj(alpha) u) = e^{i psi} w conj(1 + c w)/|1 + cw|^2
    and w conj(w) = 1.

What is symbolic and what is numeric:
    Coq (proofs/coq/watanabe_strogatz.v): (a), (b), (c), (d2), (e1), (f) over the
    complex numbers of Coquelicot, for all values. Sympy: the same identities with
    free symbols, (d1) (the derivative) and (e2) (the linear ODE's solution). Numeric (float64):
    watanabe_strogatz_field, _reconstruct and _reduce against the lambdified
    statement (the chain rule evaluated at seeded points against the brute-force
    double-sum field); theorem checks: the reduced flow against scipy's DOP853 on the
    full system (small N, quick), and (slow) against syncattn's full simulate at
    N = 10^4 to 1e-10 with a measured speed-up. Mutation: the proof rejects
    psi' = omega - Im(H conj alpha) and alpha' with (H + conj(H) alpha^2)/2; the
    comparison rejects a reconstruction with M(w) = (u - alpha)/(1 - conj(alpha) u).

Mirrors: syncattn.kuramoto.watanabe_strogatz_reduce,
syncattn.kuramoto.watanabe_strogatz_reconstruct, syncattn.kuramoto.watanabe_strogatz_field,
syncattn.kuramoto.watanabe_strogatz_simulate.
Source: S. Watanabe and S. H. Strogatz, Physica D 74, 197 (1994); S. A. Marvel,
R. E. Mirollo and S. H. Strogatz, Chaos 19, 043104 (2009); A. Douady and C. J. Earle,
Acta Math. 157 (1986) (the conformal barycentre). Issue 39 §5.
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


NUMBER = 25
TITLE = "Watanabe-Strogatz: identical oscillators move by a Moebius map M_{alpha,psi}; alpha' = i omega alpha + (H - conj(H) alpha^2)/2, psi' = omega + Im(H conj(alpha))"
MIRRORS = (
    "syncattn.kuramoto.watanabe_strogatz_reduce",
    "syncattn.kuramoto.watanabe_strogatz_reconstruct",
    "syncattn.kuramoto.watanabe_strogatz_field",
    "syncattn.kuramoto.watanabe_strogatz_simulate",
)
PARTS = (
    Part("a", "|u + alpha|^2 - |1 + conj(alpha) u|^2 = (|u|^2 - 1)(1 - |alpha|^2), so for |alpha| < 1 and |u| = 1, |M(u)| = 1.", "coq", coq="mobius_circle"),
    Part("b", "For |alpha| < 1 and |u| < 1, |M(u)| < 1.", "coq", coq="mobius_disk"),
    Part("c", "If |z| = 1, i Im(H conj z) z = (H - conj(H) z^2)/2: z = e^{i theta} obeys the Riccati equation.", "coq", coq="riccati_form"),
    Part("d1", "The time derivative of M_{alpha(t),psi(t)}(w) with w constant is the chain-rule expression (d1).", "sympy", why="differentiation of a rational function of (u, alpha, conj alpha); the algebra it feeds is (d2), in Coq"),
    Part("d2", "With alpha' = i omega alpha + (H - conj(H) alpha^2)/2 and psi' = omega + Im(H conj alpha), the chain-rule expression equals i omega z + (H - conj(H) z^2)/2 at z = M(u), for every u with 1 + conj(alpha) u != 0.", "coq", coq="reduced_flow"),
    Part("e1", "Under the reduced flow, d|alpha|^2/dt = 2 Re(conj(alpha) alpha') = (1 - |alpha|^2) Re(H conj alpha).", "coq", coq="alpha_stays_in_disk"),
    Part("e2", "Hence y = 1 - |alpha|^2 solves y' = -Re(H conj alpha) y, y(t) = y(0) exp(-int Re(H conj alpha)) > 0: alpha stays in the open disk.", "sympy", why="an ODE solution formula (a one-line integrating factor); the algebra it rests on is (e1), in Coq"),
    Part("f", "For |w| = 1, M(w) = alpha + (1 - |alpha|^2) e^{i psi} (w + conj c)/|1 + c w|^2 with c = conj(alpha) e^{i psi}, and |1 + cw|^2 = 1 + |c|^2 + 2 Re(cw).", "coq", coq="poisson_kernel_sum"),
    Part("g", "The centring normalisation exists (Newton converges) and the reduced flow reproduces the full flow to 1e-10 at N = 10^4 at a fraction of its cost.", "measured", why="existence and uniqueness of the conformal barycentre is cited (Douady-Earle); agreement and cost are measured"),
)
COQ_SPEC_SHA256 = "685ea991c5944aab205201900a97126a8588faceef781702185cdfb0243fd1dc"

u, a, ab, H, Hb = sp.symbols("u alpha alphabar H Hbar")
w, pdot = sp.symbols("omega psidot", real=True)


def alpha_dot(a, ab, H, Hb, w):
    return sp.I * w * a + (H - Hb * a**2) / 2


def psi_dot(a, ab, H, Hb, w):
    # Im(H conj a) = (H ab - Hb a)/(2i)
    return w + (H * ab - Hb * a) / (2 * sp.I)


def wrong_psi_dot(a, ab, H, Hb, w):
    """Mutation: psi' = omega - Im(H conj alpha)."""
    return w - (H * ab - Hb * a) / (2 * sp.I)


def wrong_alpha_dot(a, ab, H, Hb, w):
    """Mutation: (H + conj(H) alpha^2)/2."""
    return sp.I * w * a + (H + Hb * a**2) / 2


def conj_of(expr):
    """Complex conjugate of an expression in (alpha, alphabar, H, Hbar) with real omega, psidot."""
    return expr.subs({a: ab, ab: a, H: Hb, Hb: H, sp.I: -sp.I}, simultaneous=True)


def prove(adot=alpha_dot, pd=psi_dot) -> None:
    # (a), (b): real coordinates
    ux, uy, ax, ay = sp.symbols("u_x u_y a_x a_y", real=True)
    uc, ac = ux + sp.I * uy, ax + sp.I * ay
    num = sp.expand((uc + ac) * sp.conjugate(uc + ac))
    den = sp.expand((1 + sp.conjugate(ac) * uc) * sp.conjugate(1 + sp.conjugate(ac) * uc))
    assert_zero(sp.expand(num - den - (ux**2 + uy**2 - 1) * (1 - ax**2 - ay**2)), "(a) modulus identity")
    # (c) Riccati form with z conj(z) = 1: i Im(H conj z) z = (H - conj(H) z^2)/2
    z, zb = sp.symbols("z zbar")
    im = (H * zb - Hb * z) / (2 * sp.I)
    assert_zero(sp.expand(sp.I * im * z - (H - Hb * z**2) / 2).subs(z * zb, 1), "(c) Riccati form")
    # (d1) the chain rule: d/dt M(e^{i psi(t)} w, alpha(t), conj alpha(t))
    t = sp.Symbol("t", real=True)
    A, AB, P = sp.Function("A")(t), sp.Function("AB")(t), sp.Function("P")(t)
    W = sp.Symbol("W")
    Mt = (sp.exp(sp.I * P) * W + A) / (1 + AB * sp.exp(sp.I * P) * W)
    dM = sp.diff(Mt, t)
    uu = sp.exp(sp.I * P) * W
    chain = (1 - A * AB) / (1 + AB * uu) ** 2 * sp.I * sp.diff(P, t) * uu + sp.diff(A, t) / (1 + AB * uu) - uu * (uu + A) / (1 + AB * uu) ** 2 * sp.diff(AB, t)
    assert_zero(sp.simplify(dM - chain), "(d1) chain rule")
    # (d2) with alpha', conj(alpha'), psi' inserted, z' is the Riccati field at z = M(u)
    ad = adot(a, ab, H, Hb, w)
    abd = conj_of(ad)
    p = pd(a, ab, H, Hb, w)
    if sp.simplify(conj_of(p) - p) != 0:
        raise AssertionError("(d2) psi' is not real")
    zM = (u + a) / (1 + ab * u)
    zdot = (1 - a * ab) / (1 + ab * u) ** 2 * sp.I * p * u + ad / (1 + ab * u) - u * (u + a) / (1 + ab * u) ** 2 * abd
    assert_zero(sp.together(zdot - (sp.I * w * zM + (H - Hb * zM**2) / 2)), "(d2) the reduced flow gives the field", simplify=lambda e: sp.expand(sp.numer(sp.together(e))))
    # (e) d|alpha|^2/dt = conj(a) a' + a conj(a') = (1 - |a|^2) Re(H conj a)
    d_mod = sp.expand(ab * ad + a * abd)
    assert_zero(sp.expand(d_mod - (1 - a * ab) * (H * ab + Hb * a) / 2), "(e) d|alpha|^2/dt")
    # (e2) y = 1 - |alpha|^2: y' = -(d|alpha|^2/dt) = -rho y, solved by y0 exp(-int rho)
    tt, y0 = sp.Symbol("t", real=True), sp.Symbol("y0", positive=True)
    rho = sp.Function("rho")
    y = y0 * sp.exp(-sp.Integral(rho(sp.Symbol("s")), (sp.Symbol("s"), 0, tt)))
    assert_zero(sp.diff(y, tt) + rho(tt) * y, "(e2) y' = -rho y")
    assert_zero(y.subs(tt, 0).doit() - y0, "(e2) y(0) = y0")
    # (f) the Poisson-kernel form, |w| = 1 (conj w = 1/w), e = e^{i psi} (conj e = 1/e)
    wv, e = sp.symbols("w e")
    c, cb = ab * e, a / e
    Mw = (e * wv + a) / (1 + ab * e * wv)
    mod2 = (1 + c * wv) * (1 + cb / wv)
    assert_zero(sp.together(Mw - (a + (1 - a * ab) * e * (wv + cb) / mod2)), "(f) Poisson-kernel form", simplify=lambda e_: sp.expand(sp.numer(sp.together(e_))))
    assert_zero(sp.expand(mod2 - (1 + c * cb + (c * wv + cb / wv))), "(f) |1 + cw|^2 = 1 + |c|^2 + 2 Re(cw)")


@check("symbolic")
def test_watanabe_strogatz_symbolic():
    prove()


@check("mutation")
def test_rejects_wrong_psi_dot():
    assert_fails(prove, alpha_dot, wrong_psi_dot, what="psi' = omega - Im(H conj alpha)")


@check("mutation")
def test_rejects_wrong_alpha_dot():
    assert_fails(prove, wrong_alpha_dot, psi_dot, what="alpha' with (H + conj(H) alpha^2)/2")


# ---------------------------------------------------------------- numeric
def full_field(theta, omega, K, beta, h):
    d = theta[None, :] - theta[:, None] - beta
    return omega + K * np.mean(np.sin(d), axis=1) + np.imag(h * np.exp(-1j * theta))


def mobius(alpha, psi, phi):
    uu = np.exp(1j * (psi + phi))
    return (uu + alpha) / (1 + np.conj(alpha) * uu)


def wrong_mobius(alpha, psi, phi):
    """Mutation: (u - alpha)/(1 - conj(alpha) u), the inverse map."""
    uu = np.exp(1j * (psi + phi))
    return (uu - alpha) / (1 - np.conj(alpha) * uu)


def compare(M=mobius) -> None:
    from syncattn import kuramoto

    g = rng("watanabe_strogatz")
    n = 9
    phi = g.uniform(-np.pi, np.pi, n)
    alpha = complex(*g.uniform(-0.5, 0.5, 2))
    psi, omega, K, beta = g.uniform(-1, 1, 4)
    h = complex(*g.normal(size=2))
    theta = np.angle(M(alpha, psi, phi))
    assert_close(kuramoto.watanabe_strogatz_reconstruct(alpha, psi, phi), theta, "reconstruct")
    ad, pd_ = kuramoto.watanabe_strogatz_field(alpha, psi, phi, omega, K, frustration=beta, drive=h)
    ad, pd_ = complex(ad), float(pd_)
    Z = np.mean(M(alpha, psi, phi))
    Hv = K * np.exp(-1j * beta) * Z + h
    assert_close(ad, 1j * omega * alpha + (Hv - np.conj(Hv) * alpha**2) / 2, "field alpha'")
    assert_close(pd_, omega + np.imag(Hv * np.conj(alpha)), "field psi'")
    # the chain rule (d1) against the brute-force double-sum field
    uu = np.exp(1j * (psi + phi))
    den = 1 + np.conj(alpha) * uu
    dz = (1 - abs(alpha) ** 2) / den**2 * 1j * pd_ * uu + ad / den - uu * (uu + alpha) / den**2 * np.conj(ad)
    zz = (uu + alpha) / den
    assert_close(np.imag(dz / zz), full_field(theta, omega, K, beta, h), "reduced flow = full field")
    al, ps, ph = kuramoto.watanabe_strogatz_reduce(theta)
    assert_close(np.abs(np.mean(np.exp(1j * np.asarray(ph)))), 0.0, "centring", atol=1e-13)
    back = np.angle(M(complex(al), float(ps), np.asarray(ph)))
    assert_close(np.angle(np.exp(1j * (back - theta))), np.zeros(n), "reduce then M", atol=1e-13)


@check("numeric")
def test_watanabe_strogatz_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_inverse_map():
    assert_fails(compare, wrong_mobius, what="the inverse Moebius map")


@check("numeric")
def test_reduced_flow_matches_full_ode():
    """Theorem check (g), quick: the reduced flow against scipy's DOP853 on the N-dimensional system."""
    from scipy.integrate import solve_ivp

    from syncattn import kuramoto

    n, t1 = (8, 10.0) if CONFIG.quick else (50, 100.0)
    theta0 = rng("ws_ode").vonmises(0.0, 1.0, n)
    omega, K, beta, h = 0.5, 1.0, np.pi / 2, 0.1j
    ref = solve_ivp(lambda t, y: full_field(y, omega, K, beta, h), (0, t1), theta0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    sol = kuramoto.watanabe_strogatz_simulate(theta0, omega, K, t1, frustration=beta, drive=h, saveat=None, rtol=1e-12, atol=1e-12)
    err = np.abs(np.angle(np.exp(1j * (np.asarray(sol.final) - ref)))).max()
    if err > 1e-8:  # Dopri5 at 1e-12 against DOP853 at 1e-13: solver error
        raise AssertionError(f"reduced flow differs from the full ODE by {err:.2e}")


@check("numeric", slow=True)
def test_reduced_flow_reproduces_full_simulate_at_n_10000():
    """Theorem check (g): N = 10^4, K = 1, beta = pi/2, t = 100, to 1e-10, faster."""
    import time

    import jax.numpy as jnp

    from syncattn import kuramoto

    n, t1 = 10_000, 100.0
    theta0 = jnp.asarray(rng("ws_large").vonmises(0.0, 1.5, n))
    opts = dict(frustration=np.pi / 2, saveat=11, solver="dopri8", rtol=1e-14, atol=1e-14)
    runs = {}
    for name, f in (("reduced", kuramoto.watanabe_strogatz_simulate), ("full", kuramoto.simulate)):
        f(theta0, 0.0, 1.0, t1, **opts).final.block_until_ready()
        t0 = time.perf_counter()
        sol = f(theta0, 0.0, 1.0, t1, **opts)
        sol.final.block_until_ready()
        runs[name] = (sol, time.perf_counter() - t0)
    (ws, t_ws), (full, t_full) = runs["reduced"], runs["full"]
    err = np.abs(np.angle(np.exp(1j * (np.asarray(ws.theta) - np.asarray(full.theta))))).max()
    if err > 1e-10:
        raise AssertionError(f"reduced vs full: {err:.2e} > 1e-10")
    if not t_ws < 0.6 * t_full:
        raise AssertionError(f"reduced flow not cheaper: {t_ws:.2f} s vs {t_full:.2f} s")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

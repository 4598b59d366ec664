r"""Statement 24: simplicial Kuramoto: the O(N) triadic mean field, its Ott-Antonsen quintic, bistability and the abrupt transition.

Statement:
    For theta_i' = omega_i + (K1/N) sum_j sin(theta_j - theta_i)
    + (K2/N^2) sum_{j,l} sin(2 theta_j - theta_l - theta_i), with
    Z_m = (1/N) sum_k e^{i m theta_k}:
    (a) sum_{j,l} sin(2 a_j - a_l - x) = cos x (S2 C1 - C2 S1) - sin x (C2 C1 + S2 S1)
        for any finite family a (C_m = sum_k cos(m a_k), S_m = sum_k sin(m a_k)), i.e.
        (1/N^2) sum_{j,l} sin(2 theta_j - theta_l - theta_i) = Im(Z_2 conj(Z_1) e^{-i theta_i});
    (b) the field is theta' = omega + Im(H e^{-i theta}) with H = K1 Z_1 + K2 Z_2 conj(Z_1), and
        for it the Poisson-kernel (Ott-Antonsen) family of densities is invariant: every
        Fourier mode n >= 1 of the continuity equation reduces to the one equation
        z' = i omega z + (H - conj(H) z^2)/2 for z(omega) (the local order parameter);
    (c) for Lorentzian g (centre 0, half width gamma), Z_1 = z(i gamma) and Z_2 = Z_1^2, and
        for z' = -gamma z + (H - conj(H) z^2)/2 with H = (K1 + K2 |z|^2) z,
        Re(conj(z) z') = |z|^2 (-gamma + (K1 + K2 |z|^2)(1 - |z|^2)/2); hence r = |Z_1|
        obeys r' = f(r) = -gamma r + (K1/2)(r - r^3) + (K2/2)(r^3 - r^5);
    (d) f(r) = -(1/2) r p(r^2), p(u) = K2 u^2 + (K1 - K2) u + 2 gamma - K1; f'(r) =
        -(1/2) p(r^2) - r^2 p'(r^2); where p(r^2) = 0, f'(r) = -r^2 p'(r^2) and
        p'(r^2)^2 = Delta = (K1 + K2)^2 - 8 gamma K2; f'(0) = K1/2 - gamma;
    (e) bistability: for gamma > 0, K2 > 2 gamma and sqrt(8 gamma K2) - K2 < K1 < 2 gamma,
        p has two roots 0 < u_- < u_+ < 1 with p'(u_+) > 0 > p'(u_-) (r_+ = sqrt(u_+)
        stable, r_- unstable) and r = 0 is stable;
    (f) no bistability for weak triadic coupling: for gamma > 0, 0 <= K2 <= 2 gamma, K1 <= 2 gamma,
        p(u) > 0 on (0, 1]: r = 0 is the only state;
    (g) abrupt transition: for K2 > 2 gamma, at K1 = 2 gamma the stable root is
        u_+ = 1 - 2 gamma / K2 > 0 (r jumps from 0 to sqrt(1 - 2 gamma/K2)); at
        K1 = K_b = sqrt(8 gamma K2) - K2 the two roots merge (Delta = 0) at
        u = 1 - sqrt(2 gamma / K2) > 0 (the upper branch ends at a positive r);
    (h) the library's O(N) field, TriangleList field and theory functions equal the
        statement in float64, and N = 10^4 simulations with Lorentzian frequencies land
        on r = 0 and r_+ in the bistable window, jump at K1 > 2 gamma and fall at K1 < K_b.

Proof idea:
    (a) expand sin(2a_j - a_l - x) and factor the double sum (sumN of a product of
    two single sums). (b) project the continuity equation on e^{i n theta} for the
    ansatz f = g/(2 pi) (1 + sum_n (zbar^n e^{i n theta} + c.c.)): the n-th coefficient
    is n zbar^{n-1} times the z-equation. (c) residue theorem: for zbar analytic and
    bounded in the lower half plane, int g(w) zbar(w)^m dw = zbar(-i gamma)^m; then
    Re(conj(z) z') by algebra. (d) differentiate; the discriminant identity is
    p'(u)^2 - Delta = 4 K2 p(u). (e) u_pm = (K2 - K1 pm sqrt Delta)/(2 K2), signs by
    nra. (f) p(u) = (u - 1)(K2 u + K1) + 2 gamma. (g) substitute.

What is symbolic and what is numeric:
    Coq (proofs/coq/higher_order.v): (a) for every N (sumN), (c)'s algebra, (d), (e),
    (f), (g). Sympy: all of (a)-(g) again with free symbols, including (b) with free
    mode index n and (c)'s residue (the Lorentzian integral of a rational function
    analytic in the lower half plane); (e)'s roots symbolically, their signs only at a
    grid of exact rational points (the general sign argument is Coq's). Numeric (float64): simplicial_field (scalar and
    TriangleList) against a brute-force triple sum, simplicial_ott_antonsen_rhs,
    simplicial_fixed_points and simplicial_transition against the lambdified
    statement. Theorem check (slow): N = 10^4 sampled Lorentzian oscillators,
    gamma = 0.5, K2 = 3. Mutation: the proof rejects the triadic identity with
    Z_2 Z_1 (no conjugate), the quintic with (K2/2)(r^3 + r^5) and the saddle-node
    K_b = sqrt(4 gamma K2) - K2; the comparison rejects a field with
    sin(2 theta_j - theta_l + theta_i).

Mirrors: syncattn.kuramoto.simplicial_field, syncattn.kuramoto.TriangleList,
syncattn.kuramoto.simplicial_simulate, syncattn.kuramoto.simplicial_ott_antonsen_rhs,
syncattn.kuramoto.simplicial_fixed_points, syncattn.kuramoto.simplicial_transition.
Source: P. S. Skardal and A. Arenas, Abrupt desynchronization and extensive
multistability in globally coupled oscillator simplexes, PRL 122, 248301 (2019);
E. Ott and T. M. Antonsen, Chaos 18, 037113 (2008). Issue 39 §4.
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


NUMBER = 24
TITLE = "Simplicial Kuramoto: triadic sum = N^2 Im(Z2 conj(Z1) e^{-i theta}); OA quintic r' = -gamma r + K1/2 (r - r^3) + K2/2 (r^3 - r^5), bistable for K2 > 2 gamma, abrupt transition"
MIRRORS = (
    "syncattn.kuramoto.simplicial_field",
    "syncattn.kuramoto.TriangleList",
    "syncattn.kuramoto.simplicial_simulate",
    "syncattn.kuramoto.simplicial_ott_antonsen_rhs",
    "syncattn.kuramoto.simplicial_fixed_points",
    "syncattn.kuramoto.simplicial_transition",
)
PARTS = (
    Part("a", "For every finite family of phases, sum_{j,l} sin(2a_j - a_l - x) = cos x (S2 C1 - C2 S1) - sin x (C2 C1 + S2 S1).", "coq", coq="triadic_mean_field"),
    Part("b", "The Poisson-kernel family is invariant: every Fourier mode n >= 1 of the continuity equation gives z' = i omega z + (H - conj(H) z^2)/2.", "sympy", why="a statement about Fourier series of densities (a PDE); sympy checks the n-th mode with n free"),
    Part("c1", "For Lorentzian g, Z_1 = z(i gamma) and Z_2 = Z_1^2 on the Ott-Antonsen manifold.", "sympy", why="a contour integral (residue theorem); sympy integrates the Lorentzian against rational z analytic in the lower half plane"),
    Part("c2", "For z' = -gamma z + (H - conj(H) z^2)/2 with H = (K1 + K2|z|^2) z, Re(conj(z) z') = |z|^2 (-gamma + (K1 + K2|z|^2)(1 - |z|^2)/2).", "coq", coq="oa_modulus"),
    Part("d1", "f(r) = -(1/2) r p(r^2), f'(r) = -(1/2)p(r^2) - r^2 p'(r^2) (a derivative), f'(0) = K1/2 - gamma.", "coq", coq="quintic_derivative"),
    Part("d2", "If p(r^2) = 0 then f'(r) = -r^2 p'(r^2) and p'(r^2)^2 = (K1 + K2)^2 - 8 gamma K2.", "coq", coq="root_linearisation"),
    Part("e", "For gamma > 0, K2 > 2 gamma, sqrt(8 gamma K2) - K2 < K1 < 2 gamma: two roots 0 < u_- < u_+ < 1 of p, p'(u_+) > 0 > p'(u_-), and f'(0) < 0.", "coq", coq="bistable_region"),
    Part("f", "For gamma > 0, 0 <= K2 <= 2 gamma and K1 <= 2 gamma, p(u) > 0 on (0, 1].", "coq", coq="no_bistability"),
    Part("g", "For K2 > 2 gamma: at K1 = 2 gamma, p(1 - 2 gamma/K2) = 0 with p' > 0 there; at K1 = sqrt(8 gamma K2) - K2, Delta = 0 and the double root is 1 - sqrt(2 gamma/K2) > 0.", "coq", coq="abrupt_transition"),
    Part("h", "N = 10^4 simulations with Lorentzian frequencies land on r = 0 and r_+ in the bistable window, jump above 2 gamma and fall below K_b.", "measured", why="a finite-N simulation (diffrax), compared within finite-size error"),
)
COQ_SPEC_SHA256 = "b427f53abc297060e6e11817467e4b5383a5a18163c86b95ee28d32ed8aecec3"

K1, K2, gamma, r, u = sp.symbols("K1 K2 gamma r u", real=True)
gp = sp.Symbol("gamma_p", positive=True)
x = sp.Symbol("x", real=True)


def quintic(r, K1, K2, gamma):
    return -gamma * r + K1 / 2 * (r - r**3) + K2 / 2 * (r**3 - r**5)


def wrong_quintic(r, K1, K2, gamma):
    """Mutation: (K2/2)(r^3 + r^5)."""
    return -gamma * r + K1 / 2 * (r - r**3) + K2 / 2 * (r**3 + r**5)


def p_of(u, K1, K2, gamma):
    return K2 * u**2 + (K1 - K2) * u + 2 * gamma - K1


def triadic_term(a2, b, x):
    """sin(2 a_j - a_l - x) as the library factors it (e^{i 2a} conj(e^{i b}) e^{-ix})."""
    return sp.cos(x) * (sp.sin(a2) * sp.cos(b) - sp.cos(a2) * sp.sin(b)) - sp.sin(x) * (
        sp.cos(a2) * sp.cos(b) + sp.sin(a2) * sp.sin(b)
    )


def wrong_triadic_term(a2, b, x):
    """Mutation: Z_2 Z_1 (no conjugate): the phase 2a + b - x."""
    return sp.cos(x) * (sp.sin(a2) * sp.cos(b) + sp.cos(a2) * sp.sin(b)) - sp.sin(x) * (
        sp.cos(a2) * sp.cos(b) - sp.sin(a2) * sp.sin(b)
    )


def k_backward(K2, gamma):
    return sp.sqrt(8 * gamma * K2) - K2


def wrong_k_backward(K2, gamma):
    """Mutation: sqrt(4 gamma K2) - K2."""
    return sp.sqrt(4 * gamma * K2) - K2


def prove(term=triadic_term, f=quintic, K_b=k_backward) -> None:
    a, b = sp.symbols("a b", real=True)
    # (a) the generic term; the double sum factors as sum_j sum_l (a product), N free
    expr = sp.expand_trig(sp.sin(2 * a - b - x) - term(2 * a, b, x))
    assert_zero(pythagoras(sp.expand_trig(expr.subs(sp.sin(2 * a), 2 * sp.sin(a) * sp.cos(a)).subs(sp.cos(2 * a), 2 * sp.cos(a) ** 2 - 1)), [a, b, x]), "(a) sin(2a - b - x) factored")
    N = 3  # and a concrete triple sum, as a second witness
    th = sp.symbols(f"t0:{N}", real=True)
    Z1 = sum(sp.exp(sp.I * t) for t in th)
    Z2 = sum(sp.exp(2 * sp.I * t) for t in th)
    lhs = sum(sp.sin(2 * tj - tl - th[0]) for tj in th for tl in th)
    rhs = sp.im(sp.expand(Z2 * sp.conjugate(Z1) * sp.exp(-sp.I * th[0])))
    assert_zero(pythagoras(sp.expand_trig(sp.expand(lhs - rhs, complex=True)), th), "(a) N = 3 triple sum")
    # (b) n-th Fourier mode of the continuity equation for f = g/(2pi) sum abar^n e^{in theta}
    n = sp.Symbol("n", positive=True, integer=True)
    A, Ad, H, Hb, w = sp.symbols("a adot H Hbar omega")
    # the coefficient of e^{i n theta} in d_t f + d_theta (f v), v = w + (H e^{-i th} - Hb e^{i th})/(2i)
    coef = n * A ** (n - 1) * Ad + sp.I * n * (w * A**n + H / (2 * sp.I) * A ** (n + 1) - Hb / (2 * sp.I) * A ** (n - 1))
    mode_eq = Ad - (-sp.I * w * A + (Hb - H * A**2) / 2)  # a' for a = conj(z)
    assert_zero(sp.powsimp(sp.expand(coef - n * A ** (n - 1) * mode_eq), force=True), "(b) every mode gives one equation")
    # (c1) residue: int g(w) R(w) dw = R(-i gamma) for R analytic, bounded in the lower half plane
    p1 = sp.Symbol("p1", positive=True)
    g = gp / (sp.pi * (w**2 + gp**2))
    R = 1 / (w - sp.I * p1)  # the conjugate z-bar(w) of a decaying mode: pole in the upper half plane
    got = sp.integrate(sp.expand_complex(g * R).as_real_imag()[0], (w, -sp.oo, sp.oo)) + sp.I * sp.integrate(sp.expand_complex(g * R).as_real_imag()[1], (w, -sp.oo, sp.oo))
    assert_zero(sp.simplify(got - R.subs(w, -sp.I * gp)), "(c1) Lorentzian residue")
    # (c2) Re(conj z z') for z' = -gamma z + (H - conj(H) z^2)/2, H = (K1 + K2 |z|^2) z
    zx, zy = sp.symbols("z_x z_y", real=True)
    z = zx + sp.I * zy
    m2 = zx**2 + zy**2
    Hc = (K1 + K2 * m2) * z
    zdot = -gamma * z + (Hc - sp.conjugate(Hc) * z**2) / 2
    re = sp.re(sp.expand(sp.conjugate(z) * zdot))
    assert_zero(sp.expand(re - m2 * (-gamma + (K1 + K2 * m2) * (1 - m2) / 2)), "(c2) Re(conj z z')")
    # so r r' = Re(conj z z') gives r' = f(r)
    assert_zero(sp.expand(r * f(r, K1, K2, gamma) - r**2 * (-gamma + (K1 + K2 * r**2) * (1 - r**2) / 2)), "(c) r' = f(r)")
    # (d)
    P = p_of(u, K1, K2, gamma)
    dP = sp.diff(P, u)
    assert_zero(sp.expand(f(r, K1, K2, gamma) + r * P.subs(u, r**2) / 2), "(d) f = -(1/2) r p(r^2)")
    fp = sp.diff(f(r, K1, K2, gamma), r)
    assert_zero(sp.expand(fp - (-P.subs(u, r**2) / 2 - r**2 * dP.subs(u, r**2))), "(d) f'")
    assert_zero(fp.subs(r, 0) - (K1 / 2 - gamma), "(d) f'(0)")
    Delta = (K1 + K2) ** 2 - 8 * gamma * K2
    assert_zero(sp.expand(dP**2 - Delta - 4 * K2 * P), "(d) p'^2 = Delta + 4 K2 p")
    # (e) the roots and their signs, with K2 = 2 gamma (1 + s), K1 between K_b and 2 gamma
    s, t = sp.symbols("s t", positive=True)
    k2 = 2 * gp * (1 + s)
    kb = K_b(k2, gp)
    k1 = kb + (2 * gp - kb) * t / (1 + t)  # t in (0, oo) sweeps (K_b, 2 gamma)
    Dl = sp.expand(Delta.subs({K1: k1, K2: k2, gamma: gp}))
    if not sp.simplify(Delta.subs({K1: kb, K2: k2, gamma: gp})) == 0:
        raise AssertionError("(g) Delta(K_b) != 0: K_b is not the saddle-node")
    Pk = P.subs({K1: k1, K2: k2, gamma: gp})
    dPk = dP.subs({K1: k1, K2: k2, gamma: gp})
    up, um = [(k2 - k1 + sg * sp.sqrt(Dl)) / (2 * k2) for sg in (1, -1)]
    for root, name in ((up, "u+"), (um, "u-")):
        assert_zero(sp.simplify(sp.expand(Pk.subs(u, root))), f"(e) p({name}) = 0")
    # numerically dense sign checks over the region (exact rationals)
    for sv in (sp.Rational(1, 10), 5):
        for tv in (sp.Rational(1, 100), 50):
            for gv in (sp.Rational(1, 3),):
                sub = {s: sv, t: tv, gp: gv}
                vals = [sp.N(e.subs(sub), 30) for e in (um, up, dPk.subs(u, up), dPk.subs(u, um), (k1 / 2 - gp))]
                if not (0 < vals[0] < vals[1] < 1 and vals[2] > 0 > vals[3] and vals[4] < 0):
                    raise AssertionError(f"(e) signs fail at {sub}: {vals}")
    # (f) p(u) = (u - 1)(K2 u + K1) + 2 gamma
    assert_zero(sp.expand(P - ((u - 1) * (K2 * u + K1) + 2 * gamma)), "(f) factored form")
    # (g) the jump and the saddle-node
    assert_zero(sp.expand(P.subs({K1: 2 * gamma, u: 1 - 2 * gamma / K2}) * K2), "(g) p(1 - 2gamma/K2) = 0 at K_f")
    assert_zero(sp.expand(dP.subs({K1: 2 * gamma, u: 1 - 2 * gamma / K2}) - (K2 - 2 * gamma)), "(g) p' = K2 - 2 gamma at K_f")
    usn = (k2 - kb) / (2 * k2)
    assert_zero(sp.simplify(usn - (1 - sp.sqrt(2 * gp / k2))), "(g) double root 1 - sqrt(2 gamma/K2)")
    # sqrt is increasing, so 1 - sqrt(2 gamma/K2) > 0 iff 2 gamma/K2 < 1
    assert_true(sp.simplify(1 - 2 * gp / k2).is_positive, "(g) double root > 0")


@check("symbolic")
def test_higher_order_symbolic():
    prove()


@check("mutation")
def test_rejects_unconjugated_triadic_term():
    assert_fails(prove, wrong_triadic_term, what="Z_2 Z_1 without the conjugate")


@check("mutation")
def test_rejects_wrong_quintic():
    assert_fails(prove, triadic_term, wrong_quintic, what="(K2/2)(r^3 + r^5)")


@check("mutation")
def test_rejects_wrong_saddle_node():
    assert_fails(prove, triadic_term, quintic, wrong_k_backward, what="K_b = sqrt(4 gamma K2) - K2")


# ---------------------------------------------------------------- numeric
def brute(theta, omega, K1, W):
    n = theta.shape[-1]
    out = omega + K1 / n * np.sum(np.sin(theta[None, :] - theta[:, None]), axis=1)
    d2 = 2 * theta[None, :, None] - theta[None, None, :] - theta[:, None, None]
    return out + np.sum(W * np.sin(d2), axis=(1, 2))


def wrong_brute(theta, omega, K1, W):
    """Mutation: sin(2 theta_j - theta_l + theta_i)."""
    n = theta.shape[-1]
    out = omega + K1 / n * np.sum(np.sin(theta[None, :] - theta[:, None]), axis=1)
    d2 = 2 * theta[None, :, None] - theta[None, None, :] + theta[:, None, None]
    return out + np.sum(W * np.sin(d2), axis=(1, 2))


quintic_numpy = sp.lambdify([r, K1, K2, gamma], quintic(r, K1, K2, gamma), "numpy")


def compare(reference=brute) -> None:
    import jax

    from syncattn import kuramoto

    g = rng("higher_order")
    n = 6
    theta = g.uniform(-np.pi, np.pi, n)
    omega = g.normal(size=n)
    k1, k2 = g.normal(size=2)
    assert_close(kuramoto.simplicial_field(theta, omega, k1, k2), reference(theta, omega, k1, np.full((n,) * 3, k2 / n**2)), "simplicial_field, scalar K2")
    tri = g.integers(0, n, (20, 3))
    wts = g.normal(size=20)
    W = np.zeros((n,) * 3)
    np.add.at(W, (tri[:, 0], tri[:, 1], tri[:, 2]), wts)
    T = kuramoto.TriangleList.from_array(tri, wts, n)
    assert_close(kuramoto.simplicial_field(theta, omega, k1, T), reference(theta, omega, k1, W), "simplicial_field, TriangleList")
    rr, a1, a2, gg = g.uniform(0, 1, 9), g.uniform(-2, 4, 9), g.uniform(0, 6, 9), g.uniform(0.1, 1, 9)
    assert_close(jax.jit(kuramoto.simplicial_ott_antonsen_rhs)(rr, a1, a2, gg), quintic_numpy(rr, a1, a2, gg), "simplicial_ott_antonsen_rhs")
    rs, ru = map(np.asarray, kuramoto.simplicial_fixed_points(a1, a2, gg))
    for root in (rs, ru):
        ok = ~np.isnan(root)
        assert_close(quintic_numpy(root[ok], a1[ok], a2[ok], gg[ok]), np.zeros(ok.sum()), "fixed points are roots", atol=1e-12)
    kf, kb = map(np.asarray, kuramoto.simplicial_transition(a2, gg))
    assert_close(kb, np.where(a2 > 2 * gg, np.sqrt(8 * gg * a2) - a2, 2 * gg), "simplicial_transition K_b")
    assert_close(kf, 2 * gg, "simplicial_transition K_f")


@check("numeric")
def test_higher_order_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_triadic_sign():
    assert_fails(compare, wrong_brute, what="sin(2 theta_j - theta_l + theta_i)")


@check("numeric", slow=True)
def test_bistability_from_simulation():
    """Theorem check (h): N = 10^4 sampled Lorentzian oscillators, gamma = 0.5, K2 = 3."""
    import jax
    import jax.numpy as jnp

    from syncattn import kuramoto

    n, gam, k2, t1 = 10_000, 0.5, 3.0, 120.0
    omega = kuramoto.sample_lorentzian(jax.random.key(0), (n,), gam)
    incoherent = jax.random.uniform(jax.random.key(1), (n,), minval=-np.pi, maxval=np.pi)
    sync = jnp.zeros(n)

    def r_end(theta0, k1):
        sol = kuramoto.simplicial_simulate(theta0, omega, k1, k2, t1, saveat=61, save_phases=False, rtol=1e-4, atol=1e-6)
        return float(np.mean(np.asarray(sol.r)[-15:]))

    r_plus = lambda k1: float(kuramoto.simplicial_fixed_points(k1, k2, gam)[0])
    for theta0, k1, want in ((sync, 0.5, r_plus(0.5)), (incoherent, 0.5, 0.0), (incoherent, 1.2, r_plus(1.2)), (sync, -0.7, 0.0)):
        got = r_end(theta0, k1)
        band = 0.03 if want else 0.05  # finite N: fluctuations ~ N^{-1/2} = 0.01
        if abs(got - want) > band:
            raise AssertionError(f"K1 = {k1}: r = {got:.3f}, theory {want:.3f} (band {band})")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

r"""Statement 13: the noisy fixed-query flow has the von Mises-Fisher law, kappa = 2||h||/sigma^2.

Statement:
    For the Stratonovich SDE on S^{d-1} (tangent-projected noise)
        dz = (I - z z^T) h dt + sigma (I - z z^T) o dW,   h != 0, sigma > 0,
    (a) its Itô form has the drift (I - z z^T) h - (d - 1) sigma^2 / 2 z (the
        correction (sigma^2/2) sum_k (D g_k) g_k, g_k = (I - z z^T) e_k, equals
        -(d - 1) sigma^2 / 2 z on the sphere), and under Itô's rule
        d||z||^2 = 0 on the sphere;
    (b) the stationary law is von Mises-Fisher, p(z) ~ exp(kappa h_hat . z) with
        kappa = 2 ||h|| / sigma^2: its Fokker-Planck flux
        J = p (I - z z^T) h - (sigma^2/2) grad_S p vanishes identically, and it
        vanishes for no other kappa; among zonal densities it is the only
        stationary one (in the polar angle theta from h_hat, for every d);
    (c) with nu = d/2 - 1, the normaliser of the law of t = h_hat . z is
        Z_d(kappa) = int_{-1}^1 e^{kappa t} (1 - t^2)^{(d-3)/2} dt
                   = sqrt(pi) Gamma((d-1)/2) (2/kappa)^nu I_nu(kappa);
    (d) the mean resultant is A_d(kappa) = E[t] = Z_d'/Z_d = I_{d/2}(kappa) / I_{d/2-1}(kappa),
        E[t^2] = Z_d''/Z_d = 1 - (d - 1) A_d / kappa, hence
        E[z] = A_d h_hat and E[z z^T] = (A_d/kappa) I + (1 - d A_d/kappa) h_hat h_hat^T;
    (e) the expected readout scores, for ||r_j|| <= 1: E[1 + z.r] = 1 + A_d h_hat.r and
        E[(1 + z.r)^2] = 1 + 2 A_d h_hat.r + r^T E[z z^T] r.

Proof idea:
    (a) D g_k = -(z_k I + z e_k^T); sum_k (D g_k) g_k = -((d + 1) - 2||z||^2) z.
    (b) grad_S e^{kappa h_hat.z} = kappa p (I - z z^T) h_hat, so
        J = p (I - z z^T) h_hat (||h|| - sigma^2 kappa / 2). The noise alone is
        Brownian motion on the sphere (generator sigma^2/2 Laplace-Beltrami); for a
        zonal density the stationary equation is d/dtheta(sin^{d-2} theta J_theta) = 0,
        and regularity at theta = 0 forces J_theta = 0, a first-order ODE with the
        single solution e^{kappa cos theta}. (Uniqueness among all densities:
        the diffusion is elliptic on a compact manifold, so the invariant law is
        unique.)
    (c) expand e^{kappa t}: the odd moments vanish, the even ones are
        B(m + 1/2, nu + 1/2); compare coefficients with the series of I_nu
        (Legendre's duplication formula).
    (d) d/dkappa (kappa^{-nu} I_nu) = kappa^{-nu} I_{nu+1} by the recurrences
        I_nu' = (I_{nu-1} + I_{nu+1}) / 2 and I_{nu-1} - I_{nu+1} = (2 nu / kappa) I_nu
        (proved coefficient-wise); rotations about h_hat fix the law, so E[z] is
        along h_hat and E[z z^T] = alpha h_hat h_hat^T + beta (I - h_hat h_hat^T),
        alpha + (d - 1) beta = 1.
    (e) linearity of E.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) for d = 2, 3, 4, 5 (the sum over k is one generic
    term per coordinate; residuals are multiples of ||z||^2 - 1); (b) the ambient
    flux for d = 3 with free h, z, sigma, and the zonal flux and its uniqueness
    for free d; (c) the m-th coefficient for free m and nu; (d) the recurrence,
    both derivatives and the moment matrix for free nu (d); (e) d = 3, free h, r.
    Numeric (float64): ``lohe.mean_resultant`` against scipy's scaled Bessel
    ratio ive(d/2)/ive(d/2 - 1) and against the closed form coth - 1/kappa (d = 3),
    ``lohe.vmf_moments`` against quadrature of (c)'s density, and
    ``vmf_moments``/``vmf_scores`` against Monte Carlo from
    ``scipy.stats.vonmises_fisher`` (4 standard errors). Theorem check (slow):
    the long-time mean of h_hat . z along the SDE solved by the library's
    driver (diffrax Heun, VirtualBrownianTree) against A_d(kappa) (4 standard
    errors of the batch mean).
    Mutation: the proof must reject kappa = ||h||/sigma^2 and the Itô correction
    -(d - 2) sigma^2 / 2 z; the numeric comparison must reject
    A = I_{d/2+1}/I_{d/2}.

Mirrors: syncattn.lohe.vmf_concentration, syncattn.lohe.mean_resultant,
syncattn.lohe.vmf_moments, syncattn.lohe.vmf_scores, syncattn.lohe.vmf_readout,
syncattn.lohe.ito_drift.
Source: seed 001 (fixed-query oscillator attention, arXiv 2606.12059) presents the
fixed-query flow as attention computed by a physical substrate that settles; a
real substrate is noisy (issue 19). The von Mises-Fisher law is classical
(Fisher 1953; Mardia and Jupp, Directional Statistics, 2000).
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


NUMBER = 13
TITLE = "Noisy fixed-query flow: stationary law vMF(h/||h||, kappa = 2||h||/sigma^2), A_d = I_{d/2}/I_{d/2-1}, Ito drift -(d-1)sigma^2/2 z"
MIRRORS = (
    "syncattn.lohe.vmf_concentration",
    "syncattn.lohe.mean_resultant",
    "syncattn.lohe.vmf_moments",
    "syncattn.lohe.vmf_scores",
    "syncattn.lohe.vmf_readout",
    "syncattn.lohe.ito_drift",
)

PARTS = (
    Part(
        "a(i)",
        "The Ito-Stratonovich correction sum_k (D g_k) g_k, g_k = (I - z z^T) e_k, is -((d + 1) - 2|z|^2) z (any d): -(d - 1) z on the sphere, so ito_drift = b + (sigma^2/2) sum_k (D g_k) g_k there.",
        "coq",
        coq="ito_correction",
    ),
    Part(
        "a(ii)",
        "Under Ito's rule d|z|^2 = (2 z.b + sigma^2 tr(P P^T)) dt + martingale vanishes on the sphere for the Ito drift of the flow.",
        "coq",
        coq="ito_norm",
    ),
    Part(
        "b(i)",
        "The Fokker-Planck flux p (I - z z^T) h - (sigma^2/2) grad_S p of p = exp(kappa h_hat.z), kappa = 2|h|/sigma^2, vanishes identically (any d).",
        "coq",
        coq="zero_flux",
    ),
    Part(
        "b(ii)",
        "It vanishes for no other kappa (at any z where (I - z z^T) h != 0).",
        "coq",
        coq="kappa_unique",
    ),
    Part(
        "b(iii)",
        "In the polar angle theta from h_hat, the zonal flux -|h| sin(theta) p - (sigma^2/2) p' of exp(kappa cos theta) vanishes.",
        "coq",
        coq="zonal_flux",
    ),
    Part(
        "b(iv)",
        "exp(kappa cos theta) is, up to a constant, the only solution of the zero-zonal-flux equation on any interval.",
        "coq",
        coq="zonal_unique",
    ),
    Part(
        "b(v)",
        "Stationarity forces zero zonal flux (sin^{d-2} theta J_theta is constant and regularity at theta = 0 makes it 0), and the invariant law is unique among all densities.",
        "sympy",
        why="the weighted zonal equation is checked by sympy for free d; the regularity limit and the uniqueness of the invariant law (ellipticity on a compact manifold) are written arguments, not formalised",
    ),
    Part(
        "c",
        "The normaliser of the law of t = h_hat.z is Z_d(kappa) = sqrt(pi) Gamma((d-1)/2) (2/kappa)^nu I_nu(kappa), nu = d/2 - 1.",
        "sympy",
        why="Gamma and modified Bessel functions are not defined in Coq's standard library or Coquelicot; sympy compares the series coefficient by coefficient",
    ),
    Part(
        "d(i)",
        "A_d(kappa) = Z_d'/Z_d = I_{d/2}/I_{d/2-1}(kappa) and E[t^2] = Z_d''/Z_d = 1 - (d - 1) A_d/kappa.",
        "sympy",
        why="Bessel recurrences (coefficient-wise in sympy); the Bessel functions are not defined in Coq's libraries",
    ),
    Part(
        "d(ii)",
        "Rotations about h_hat fix the law, so E[z] = A_d h_hat and E[z z^T] = alpha h_hat h_hat^T + beta (I - h_hat h_hat^T) with alpha + (d - 1) beta = 1.",
        "measured",
        why="a symmetry of the law (measure theory), argued in the docstring; the moments are checked against scipy.stats.vonmises_fisher Monte Carlo and quadrature",
    ),
    Part(
        "d(iii)",
        "With alpha = 1 - (d - 1) A_d/kappa and the trace condition, E[z z^T] = (A_d/kappa) I + (1 - d A_d/kappa) h_hat h_hat^T (vmf_moments).",
        "coq",
        coq="moment_matrix",
    ),
    Part(
        "e",
        "For a linear expectation with moments m and M: E[1 + z.r] = 1 + m.r and E[(1 + z.r)^2] = 1 + 2 m.r + r^T M r (vmf_scores with m = A_d h_hat).",
        "coq",
        coq="scores",
    ),
)
COQ_SPEC_SHA256 = "0eb007d26752e932b467e6543cb143f2ff33fef6570ae2f72447fb3d7d681d4a"

sigma = sp.Symbol("sigma", positive=True)
kappa = sp.Symbol("kappa", positive=True)
nu = sp.Symbol("nu", positive=True)
m_ = sp.Symbol("m", integer=True, nonnegative=True)
theta = sp.Symbol("theta", positive=True)
dd = sp.Symbol("d", positive=True)


def right_kappa(norm_h, sigma):
    return 2 * norm_h / sigma**2


def wrong_kappa(norm_h, sigma):
    """Mutation: the factor 2 dropped."""
    return norm_h / sigma**2


def right_correction(d):
    return d - 1


def wrong_correction(d):
    """Mutation: the Itô correction with d - 2."""
    return d - 2


def _mod_sphere(expr, z):
    """Remainder of a polynomial modulo ||z||^2 - 1 (0 iff it vanishes on the sphere)."""
    expr = sp.expand(expr)
    if expr == 0:
        return expr
    return sp.reduced(expr, [sum(c**2 for c in z) - 1], *z)[1]


def prove_ito(correction=right_correction, dims=(2, 3, 4, 5)) -> None:
    """(a): the Itô-Stratonovich correction and Itô's rule for ||z||^2."""
    for d in dims:
        z = sp.Matrix(sp.symbols(f"z0:{d}", real=True))
        h = sp.Matrix(sp.symbols(f"h0:{d}", real=True))
        P = sp.eye(d) - z * z.T
        corr = sp.zeros(d, 1)
        for k in range(d):
            g = P[:, k]
            corr += g.jacobian(z) * g  # (D g_k) g_k
        claimed = -sp.Rational(1, 1) * correction(d) * z
        for i in range(d):
            if _mod_sphere(corr[i] - claimed[i], z) != 0:
                raise AssertionError(
                    f"(a) d={d}: sum_k (Dg_k) g_k != -{correction(d)} z on the sphere"
                )
        ito = P * h - sigma**2 / 2 * correction(d) * z
        # Itô: d||z||^2 = (2 z.b + sigma^2 tr(P P^T)) dt + martingale
        dnorm = 2 * (z.T * ito)[0] + sigma**2 * (P * P.T).trace()
        if _mod_sphere(dnorm, z) != 0:
            raise AssertionError(f"(a) d={d}: Itô's rule moves ||z|| off the sphere")


def prove_flux(kappa_of=right_kappa) -> None:
    """(b): the Fokker-Planck flux of exp(kappa h_hat . z), ambient (d = 3) and zonal (any d)."""
    z = sp.Matrix(sp.symbols("z0:3", real=True))
    h = sp.Matrix(sp.symbols("h0:3", real=True))
    norm_h = sp.sqrt((h.T * h)[0])
    k = kappa_of(norm_h, sigma)
    p = sp.exp(k * (h.T * z)[0] / norm_h)
    P = sp.eye(3) - z * z.T
    grad_S = P * sp.Matrix([sp.diff(p, c) for c in z])
    J = p * P * h - sigma**2 / 2 * grad_S
    assert_zero(J / p, "(b) ambient flux of the vMF density")
    # zonal: theta' = -||h|| sin(theta) on S^{d-1}; flux J = b p - (sigma^2/2) p'
    a = sp.Symbol("a", positive=True)  # ||h||
    k = kappa_of(a, sigma)
    pz = sp.exp(k * sp.cos(theta))
    Jz = -a * sp.sin(theta) * pz - sigma**2 / 2 * sp.diff(pz, theta)
    assert_zero(Jz / pz, "(b) zonal flux for every d")
    # uniqueness: sin^{d-2} J = c with J -> 0 at theta = 0 forces c = 0, and J = 0 is
    # q' = -(2a/sigma^2) sin(theta) q: the general solution is C e^{kappa cos theta}
    q = sp.Function("q")
    sol = sp.dsolve(
        sp.Eq(-a * sp.sin(theta) * q(theta) - sigma**2 / 2 * q(theta).diff(theta), 0)
    )
    ratio = sp.simplify(sol.rhs / sp.exp(right_kappa(a, sigma) * sp.cos(theta)))
    if ratio.free_symbols - {sp.Symbol("C1")} or ratio.has(theta):
        raise AssertionError(f"(b) zonal stationary densities: {sol.rhs}")
    if kappa_of(a, sigma) != right_kappa(a, sigma):
        assert_zero(k - right_kappa(a, sigma), "(b) kappa = 2||h||/sigma^2")
    # the flux has the sin^{d-2} weight of the surface measure: any d
    jac = sp.sin(theta) ** (dd - 2)
    assert_zero(sp.diff(jac * Jz, theta) / pz, "(b) stationary zonal equation, free d")


def _bessel_coeff(mm, order):
    """Coefficient of (kappa/2)^(2 mm + order) in I_order."""
    return 1 / (sp.factorial(mm) * sp.gamma(mm + order + 1))


def prove_normaliser() -> None:
    """(c): Z_d = sqrt(pi) Gamma(nu + 1/2) (2/kappa)^nu I_nu, coefficient by coefficient."""
    half = sp.Rational(1, 2)
    # kappa^{2m} coefficient of Z_d: B(m + 1/2, nu + 1/2) / (2m)!
    lhs = (
        sp.gamma(m_ + half)
        * sp.gamma(nu + half)
        / (sp.gamma(m_ + nu + 1) * sp.factorial(2 * m_))
    )
    # of sqrt(pi) Gamma(nu + 1/2) 2^nu kappa^{-nu} I_nu: the (kappa/2)^{2m+nu} term
    rhs = (
        sp.sqrt(sp.pi)
        * sp.gamma(nu + half)
        * 2**nu
        * 2 ** (-2 * m_ - nu)
        * _bessel_coeff(m_, nu)
    )
    assert_zero(sp.gammasimp(sp.combsimp(lhs / rhs)) - 1, "(c) series coefficients")
    # the even moments: int_{-1}^1 t^{2m} (1 - t^2)^{nu - 1/2} dt = B(m + 1/2, nu + 1/2)
    t = sp.Symbol("t", positive=True)
    # (odd d: a polynomial integrand, exact; even d by the same Beta integral)
    for mm, k in ((0, 0), (2, 1), (1, 2), (3, 3)):
        nn = k + half  # d = 2 k + 3
        val = 2 * sp.integrate(sp.expand(t ** (2 * mm) * (1 - t**2) ** k), (t, 0, 1))
        want = sp.gamma(mm + half) * sp.gamma(nn + half) / sp.gamma(mm + nn + 1)
        assert_zero(
            sp.nsimplify(val) - sp.gammasimp(want), f"(c) moment m={mm}, d={2 * k + 3}"
        )


def prove_moments(correction=right_correction) -> None:
    """(d): the recurrence, A_d = Z'/Z, E[t^2] = Z''/Z, and the moment matrix."""
    # recurrence I_{nu-1} - I_{nu+1} = (2 nu / kappa) I_nu: the (kappa/2)^{2m + nu - 1}
    # coefficients (m >= 1; the m = 0 term of I_{nu+1} is absent)
    mm = sp.Symbol("m", integer=True, positive=True)
    res = (
        _bessel_coeff(mm, nu - 1)
        - _bessel_coeff(mm - 1, nu + 1)
        - nu * _bessel_coeff(mm, nu)
    )
    assert_zero(
        sp.gammasimp(res * sp.factorial(mm) * sp.gamma(mm + nu + 1)), "(d) recurrence"
    )
    res0 = _bessel_coeff(0, nu - 1) - nu * _bessel_coeff(0, nu)
    assert_zero(sp.gammasimp(res0), "(d) recurrence, m = 0")
    I = lambda o: sp.besseli(o, kappa)
    rec = lambda o: I(o + 1) + 2 * o / kappa * I(o)  # = I_{o-1}
    Z = kappa ** (-nu) * I(nu)
    dZ = sp.diff(Z, kappa).subs(I(nu - 1), rec(nu))
    A = sp.simplify(dZ / Z)
    assert_zero(A - I(nu + 1) / I(nu), "(d) A_d = Z'/Z = I_{nu+1}/I_nu")
    d2Z = sp.diff(dZ, kappa)
    d2Z = d2Z.subs(I(nu - 1), rec(nu)).subs(
        I(nu + 2), I(nu) - 2 * (nu + 1) / kappa * I(nu + 1)
    )
    Et2 = d2Z / Z
    d = 2 * nu + 2
    A = I(nu + 1) / I(nu)
    assert_zero(
        sp.expand(Et2 - (1 - correction(d) * A / kappa)),
        "(d) E[t^2] = 1 - (d-1) A/kappa",
    )
    # moment matrix: alpha = E[t^2], beta = (1 - alpha)/(d - 1) = A/kappa
    alpha = 1 - (d - 1) * A / kappa
    beta = (1 - alpha) / (d - 1)
    assert_zero(beta - A / kappa, "(d) E[(u.z)^2] = A/kappa for u orthogonal to h_hat")
    B = A / kappa
    assert_zero(
        (B + (1 - d * B)) - alpha, "(d) h_hat h_hat^T coefficient 1 - d A/kappa"
    )


def prove_scores() -> None:
    """(e): the expected scores at p = 1, 2 as linear functionals of the moments, d = 3."""
    z = sp.Matrix(sp.symbols("z0:3", real=True))
    r = sp.Matrix(sp.symbols("r0:3", real=True))
    u = sp.Matrix(sp.symbols("u0:3", real=True))  # h_hat
    A, B = sp.symbols("A B", positive=True)
    mean = A * u
    second = B * sp.eye(3) + (1 - 3 * B) * u * u.T
    E = {1: 1}
    for i in range(3):
        E[z[i]] = mean[i]
        for j in range(3):
            E[z[i] * z[j]] = second[i, j]

    def expect(poly):
        poly = sp.Poly(sp.expand(poly), *z)
        return sum(
            c * E[sp.Mul(*[zi**e for zi, e in zip(z, mon)])] for mon, c in poly.terms()
        )

    s = 1 + (z.T * r)[0]
    assert_zero(expect(s) - (1 + A * (u.T * r)[0]), "(e) p = 1")
    assert_zero(
        expect(s**2) - (1 + 2 * A * (u.T * r)[0] + (r.T * second * r)[0]), "(e) p = 2"
    )


def prove(kappa_of=right_kappa, correction=right_correction) -> None:
    prove_ito(correction)
    prove_flux(kappa_of)
    prove_normaliser()
    prove_moments(correction)
    prove_scores()


@check("symbolic")
def test_noisy_fixed_query_symbolic():
    prove()


@check("mutation")
def test_rejects_kappa_without_factor_two():
    assert_fails(prove_flux, wrong_kappa, what="kappa = ||h||/sigma^2")


@check("mutation")
def test_rejects_wrong_ito_correction():
    assert_fails(
        prove_ito, wrong_correction, (3,), what="Itô correction -(d-2) sigma^2/2 z"
    )


# ---------------------------------------------------------------- numeric
def compare(mean_resultant=None) -> None:
    """mean_resultant against scipy's scaled Bessel ratio; moments against quadrature."""
    from scipy import integrate
    from scipy.special import ive

    from syncattn import lohe

    mean_resultant = mean_resultant or lohe.mean_resultant
    ks = np.concatenate([np.logspace(-6, 5, 23), [0.3, 1.0, 2.5, 40.0]])
    for d in (2, 3, 4, 7, 16, 64):
        want = ive(d / 2, ks) / ive(d / 2 - 1, ks)
        assert_close(
            np.asarray(mean_resultant(ks, d)), want, f"A_{d} vs scipy", rtol=1e-12
        )
    A3 = sp.lambdify(kappa, sp.coth(kappa) - 1 / kappa, "numpy")
    k3 = np.array([0.05, 0.7, 3.0, 20.0])
    assert_close(
        np.asarray(mean_resultant(k3, 3)), A3(k3), "A_3 = coth - 1/kappa", rtol=1e-12
    )
    g = rng("vmf_quadrature")
    for d in (2, 3, 5, 8):
        h = g.normal(size=d) * g.uniform(0.2, 3.0)
        s = g.uniform(0.3, 2.0)
        k = 2 * np.linalg.norm(h) / s**2
        w = lambda t, j: (
            t**j * np.exp(k * (t - 1))
        )  # times (1 - t^2)^((d-3)/2): weight="alg"
        e = (d - 3) / 2
        Z0, Z1, Z2 = (
            integrate.quad(
                w, -1, 1, args=(j,), weight="alg", wvar=(e, e), epsabs=0, epsrel=1e-12
            )[0]
            for j in range(3)
        )
        u = h / np.linalg.norm(h)
        alpha = Z2 / Z0
        beta = (1 - alpha) / (d - 1)
        mean, second = lohe.vmf_moments(h, s)
        assert_close(
            np.asarray(mean), Z1 / Z0 * u, f"E[z], d={d}", rtol=1e-9, atol=1e-12
        )
        assert_close(
            np.asarray(second),
            alpha * np.outer(u, u) + beta * (np.eye(d) - np.outer(u, u)),
            f"E[zz^T], d={d}",
            rtol=1e-9,
            atol=1e-12,
        )
        assert_close(np.asarray(lohe.vmf_concentration(h, s)), k, "kappa", rtol=1e-14)


@check("numeric")
def test_noisy_fixed_query_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_shifted_bessel_order():
    from scipy.special import ive

    wrong = lambda k, d: ive(d / 2 + 1, np.asarray(k)) / ive(d / 2, np.asarray(k))
    assert_fails(compare, wrong, what="A = I_{d/2+1}/I_{d/2}")


@check("numeric")
def test_moments_and_scores_against_monte_carlo():
    """Theorem check: vMF samples (scipy) against vmf_moments and vmf_scores, 4 standard errors."""
    from scipy.stats import vonmises_fisher

    from syncattn import lohe

    n = 20_000 if CONFIG.quick else 200_000
    g = rng("vmf_mc")
    for d, s in ((3, 0.8), (6, 1.5)):
        h = g.normal(size=d)
        u = h / np.linalg.norm(h)
        k = 2 * np.linalg.norm(h) / s**2
        z = vonmises_fisher(u, k).rvs(n, random_state=g)
        r = g.normal(size=(4, d))
        r /= np.linalg.norm(r, axis=-1, keepdims=True)
        mean, second = (np.asarray(a) for a in lohe.vmf_moments(h, s))
        for p in (1, 2):
            samples = (1 + z @ r.T) ** p
            est, se = samples.mean(0), samples.std(0) / np.sqrt(n)
            want = np.asarray(lohe.vmf_scores(h, s, r, p=p))
            if np.any(np.abs(est - want) > 4 * se):
                raise AssertionError(f"d={d} p={p}: MC {est} vs {want} (se {se})")
        zz = z[:, :, None] * z[:, None, :]
        for est, se, want in (
            (z.mean(0), z.std(0) / np.sqrt(n), mean),
            (zz.mean(0), zz.std(0) / np.sqrt(n), second),
        ):
            if np.any(np.abs(est - want) > 4 * se + 1e-12):
                raise AssertionError(f"d={d}: MC moment {est} vs {want}")


@check("numeric", slow=True)
def test_sde_long_time_mean_resultant():
    """Theorem check: the SDE's time average of h_hat . z against A_d(kappa) (4 batch s.e.).

    Heun's weak error is O(dt): measured at d = 5, ||h|| = 2, sigma = 1.2 the time
    average sits +0.034 / +0.018 / +0.010 above A_d at dt = 0.02 / 0.01 / 0.005 (64
    paths, se 0.0055). So the check compares the Richardson extrapolation
    2 a(dt/2) - a(dt) of each path's average (the same Brownian path at both steps:
    `VirtualBrownianTree`), which cancels the O(dt) term, with the theory.
    """
    import jax

    from syncattn import lohe

    for d, norm_h, s in ((3, 1.0, 1.0), (5, 2.0, 1.2)):
        h = np.zeros(d)
        h[0] = norm_h
        paths = 32 if CONFIG.quick else 128
        t1, burn = 60.0, 10.0
        avg = {}
        for dt in (0.02, 0.01):
            z0 = np.broadcast_to(h / norm_h, (paths, d))
            sol = lohe.settle(
                z0, h, t1, saveat=int(round(t1 / 0.1)) + 1, noise=s,
                key=jax.random.key(CONFIG.seed), dt0=dt, max_steps=10**7,
            )  # fmt: skip
            ts, z = np.asarray(sol.ts), np.asarray(sol.states)
            avg[dt] = np.asarray(z[ts >= burn, :, 0]).mean(0)  # time average per path
        per_path = 2 * avg[0.01] - avg[0.02]
        est, se = per_path.mean(), per_path.std(ddof=1) / np.sqrt(paths)
        want = float(lohe.mean_resultant(2 * norm_h / s**2, d))
        if abs(est - want) > 4 * se + 2e-3:  # 2e-3: the O(dt^2) remainder
            raise AssertionError(
                f"d={d}: extrapolated SDE time average {est:.4f} vs A_d {want:.4f} "
                f"(se {se:.4f}; at dt = 0.01 {avg[0.01].mean():.4f})"
            )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

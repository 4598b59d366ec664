r"""Statement 14: Kuramoto with noise, r = I_1/I_0(2Kr/sigma^2), onset K_c = sigma^2; Lorentzian K_c = 2 gamma + sigma^2.

Statement:
    For d theta_i = (omega_i + K r sin(psi - theta_i)) dt + sigma dW_i (mean field, N -> oo),
    D = sigma^2 / 2:
    (a) identical oscillators (omega_i = 0): the von Mises density
        p ~ exp(kappa cos(theta - psi)) has zero Fokker-Planck flux
        J = -K r sin(theta - psi) p - D p' iff kappa = 2 K r / sigma^2, so the
        stationary r solves r = I_1(2Kr/sigma^2) / I_0(2Kr/sigma^2) (the d = 2 mean
        resultant of statement 13: int e^{kappa cos} = 2 pi I_0, and I_0' = I_1);
    (b) A_2(kappa) = kappa/2 - kappa^3/16 + O(kappa^5), so a branch r > 0 leaves r = 0
        at K_c = sigma^2 with r^2 = 16 (c/2 - 1)/c^3 + ..., c = 2K/sigma^2;
    (c) Lorentzian frequencies g (half width gamma): the first Fourier mode of a
        perturbation of the incoherent state grows like e^{lambda t} with
        1 = (K/2) int g(omega) / (lambda + D - i omega) d omega, which for the Lorentzian
        is lambda = K/2 - gamma - sigma^2/2: the incoherent state loses stability at
        K_c = 2 gamma + sigma^2.

Proof idea:
    (a) p' = -kappa sin p. (b) the Bessel series. (c) linearise the Fokker-Planck
    equation d_t rho = D rho'' - d_theta(rho v) about rho = 1/(2 pi), project on
    e^{-i theta} (Z picks that mode), and integrate the resolvent against g by
    partial fractions (the imaginary part is odd).

What is symbolic and what is numeric:
    Symbolic (sympy): (a) the flux for free K, r, sigma, psi; the circle normaliser
    coefficient-wise (free m); (b) the truncated series and the onset; (c) the
    linearisation, the mode projection and the Lorentzian integral with free
    K, gamma, sigma, lambda. Numeric: ``kuramoto.noisy_order_parameter`` against
    scipy's brentq on the ive ratio, ``noisy_critical_coupling`` against 2 gamma +
    sigma^2. Theorem check (slow): the time-averaged order parameter of
    ``kuramoto.simulate(..., noise=sigma)`` with N = 400 identical oscillators
    against (a) above onset (band 0.05) and below (0.12: the finite-N floor).
    Mutation: the proof must reject kappa = K r / sigma^2 and the onset
    2 gamma + sigma^2 / 2; the comparison must reject r = I_1/I_0(K r / sigma^2).

Mirrors: syncattn.kuramoto.noisy_order_parameter, syncattn.kuramoto.noisy_critical_coupling,
syncattn.kuramoto.simulate.
Source: classical (Sakaguchi 1988; Strogatz and Mirollo 1991; Acebrón et al., Rev.
Mod. Phys. 2005); what the noisy simulator of issue 19 is checked against.
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


NUMBER = 14
TITLE = "Noisy Kuramoto: r = I1/I0(2Kr/sigma^2), onset K_c = sigma^2; Lorentzian K_c = 2 gamma + sigma^2"
MIRRORS = (
    "syncattn.kuramoto.noisy_order_parameter",
    "syncattn.kuramoto.noisy_critical_coupling",
)

PARTS = (
    Part(
        "a(i)",
        "The von Mises density exp(kappa cos(theta - psi)) has zero Fokker-Planck flux -K r sin(theta - psi) p - (sigma^2/2) p' for every theta iff kappa = 2 K r / sigma^2.",
        "coq",
        coq="zero_flux",
    ),
    Part(
        "a(ii)",
        "Its normaliser is 2 pi I_0(kappa) and its mean resultant I_1/I_0(kappa), so the stationary r solves r = I_1/I_0(2 K r / sigma^2).",
        "sympy",
        why="modified Bessel functions: neither Coq's standard library nor Coquelicot defines I_nu; the coefficient identity is checked by sympy",
    ),
    Part(
        "b(i)",
        "A_2(x) = I_1/I_0(x) = x/2 - x^3/16 + O(x^5).",
        "sympy",
        why="a series of a ratio of Bessel functions (not defined in Coq's libraries); sympy's series",
    ),
    Part(
        "b(ii)",
        "With the truncation A_2(x) = x/2 - x^3/16, r > 0 solves r = A_2(c r) iff r^2 = 16 (c/2 - 1)/c^3; such a branch exists iff c > 2, i.e. iff K > K_c = sigma^2 (c = 2K/sigma^2).",
        "coq",
        coq="onset",
    ),
    Part(
        "c(i)",
        "Linearising the Fokker-Planck equation about the incoherent state, the e^{-i theta} mode obeys b' = (i omega - D) b + (K / 4 pi) Z_1.",
        "sympy",
        why="a Fourier projection (complex integrals over the circle) done by sympy; not formalised",
    ),
    Part(
        "c(ii)",
        "For the Lorentzian, the dispersion relation is 1 = (K/2) / (lambda + D + gamma).",
        "sympy",
        why="an improper integral of the resolvent against the Lorentzian (partial fractions), done by sympy; not formalised",
    ),
    Part(
        "c(iii)",
        "Its root is lambda = K/2 - gamma - sigma^2/2, positive iff K > K_c = 2 gamma + sigma^2.",
        "coq",
        coq="lorentzian_onset",
    ),
)
COQ_SPEC_SHA256 = "6c6dc900a8eb208ad62e7ee13888fbe00ba1bb1b6219041c488fa00003404c4f"

K, r, sigma, gamma, lam, c = sp.symbols("K r sigma gamma lambda c", positive=True)
theta, psi, w = sp.symbols("theta psi omega", real=True)


def prove(
    kappa_of=lambda K, r, s: 2 * K * r / s**2, onset=lambda g, s: 2 * g + s**2
) -> None:
    D = sigma**2 / 2
    # (a) zero flux
    k = kappa_of(K, r, sigma)
    p = sp.exp(k * sp.cos(theta - psi))
    J = -K * r * sp.sin(theta - psi) * p - D * sp.diff(p, theta)
    assert_zero(J / p, "(a) flux of the von Mises density")
    m = sp.Symbol("m", integer=True, nonnegative=True)
    # int_{-pi}^{pi} cos^{2m} = 2 pi (2m)! / (4^m m!^2): kappa^{2m} coefficient 2 pi (1/2)^{2m}/m!^2
    lhs = (
        2
        * sp.pi
        * sp.factorial(2 * m)
        / (4**m * sp.factorial(m) ** 2)
        / sp.factorial(2 * m)
    )
    assert_zero(
        sp.gammasimp(
            lhs / (2 * sp.pi * sp.Rational(1, 2) ** (2 * m) / sp.factorial(m) ** 2)
        )
        - 1,
        "(a) int e^{kappa cos} = 2 pi I_0",
    )
    for mm in range(4):  # the moment formula itself, exactly
        got = sp.integrate(sp.cos(theta) ** (2 * mm), (theta, -sp.pi, sp.pi))
        assert_zero(
            got - 2 * sp.pi * sp.factorial(2 * mm) / (4**mm * sp.factorial(mm) ** 2),
            f"(a) m={mm}",
        )
    # (b) onset from the series of I_1/I_0
    x = sp.Symbol("x", positive=True)
    I = lambda o, n=4: sum(
        (x / 2) ** (2 * j + o) / (sp.factorial(j) * sp.factorial(j + o))
        for j in range(n)
    )
    A2 = sp.series(I(1) / I(0), x, 0, 5).removeO()
    assert_zero(A2 - (x / 2 - x**3 / 16), "(b) A_2 series")
    # r = A_2(c r): divide by r and let r -> 0: 1 = c/2, i.e. K = sigma^2 (c = 2K/sigma^2)
    r2 = sp.solve(
        sp.Eq(1, sp.expand(A2.subs(x, c * r) / r)).subs(r**2, sp.Symbol("q")),
        sp.Symbol("q"),
    )[0]
    assert_zero(r2 - 16 * (c / 2 - 1) / c**3, "(b) r^2 near onset")
    # (c) linearised Fokker-Planck, mode e^{-i theta}
    b, Z1 = sp.symbols(
        "b Z1"
    )  # b: the e^{-i theta} amplitude at frequency omega; Z1 = eps-order Z
    eta = b * sp.exp(-sp.I * theta) + sp.conjugate(b) * sp.exp(sp.I * theta)
    v1 = (
        K
        / (2 * sp.I)
        * (Z1 * sp.exp(-sp.I * theta) - sp.conjugate(Z1) * sp.exp(sp.I * theta))
    )
    rhs = (
        D * sp.diff(eta, theta, 2)
        - w * sp.diff(eta, theta)
        - sp.diff(v1, theta) / (2 * sp.pi)
    )
    mode = sp.simplify(
        sp.integrate(sp.expand(rhs * sp.exp(sp.I * theta)), (theta, 0, 2 * sp.pi))
        / (2 * sp.pi)
    )
    assert_zero(mode - ((sp.I * w - D) * b + K / (4 * sp.pi) * Z1), "(c) mode equation")
    # b = e^{lambda t} K Z1 / (4 pi (lambda + D - i omega)); Z1 = 2 pi int b g: dispersion relation
    a = sp.Symbol("a", positive=True)  # lambda + D, positive on the unstable side
    g = gamma / (sp.pi * (w**2 + gamma**2))
    re = sp.integrate(sp.apart(g * a / (a**2 + w**2), w), (w, -sp.oo, sp.oo))
    assert_zero(
        sp.simplify(re - 1 / (a + gamma)),
        "(c) int g / (lambda + D - i omega) = 1/(lambda + D + gamma)",
    )
    lam_root = sp.solve(sp.Eq(1, K / 2 / (lam + D + gamma)), lam)[0]
    assert_zero(lam_root - (K / 2 - gamma - sigma**2 / 2), "(c) growth rate")
    assert_zero(
        sp.solve(sp.Eq(lam_root, 0), K)[0] - onset(gamma, sigma),
        "(c) K_c = 2 gamma + sigma^2",
    )


@check("symbolic")
def test_noisy_kuramoto_symbolic():
    prove()


@check("mutation")
def test_rejects_kappa_without_factor_two():
    assert_fails(prove, lambda K, r, s: K * r / s**2, what="kappa = K r / sigma^2")


@check("mutation")
def test_rejects_half_noise_onset():
    assert_fails(
        prove, onset=lambda g, s: 2 * g + s**2 / 2, what="K_c = 2 gamma + sigma^2/2"
    )


def compare(order_parameter=None) -> None:
    from scipy.optimize import brentq
    from scipy.special import ive

    from syncattn import kuramoto

    order_parameter = order_parameter or kuramoto.noisy_order_parameter
    g = rng("noisy_kuramoto")
    for s in g.uniform(0.3, 2.0, 4):
        for Kk in s**2 * np.array([0.5, 1.02, 1.5, 4.0, 30.0]):
            got = float(order_parameter(Kk, s))
            if Kk <= s**2:
                want = 0.0
            else:
                F = lambda x: ive(1, 2 * Kk * x / s**2) / ive(0, 2 * Kk * x / s**2) - x
                want = brentq(F, 1e-12, 1.0, xtol=1e-15)
            assert_close(
                got, want, f"r(K={Kk:.3g}, sigma={s:.3g})", rtol=1e-10, atol=1e-12
            )
        assert_close(float(kuramoto.noisy_critical_coupling(s, 0.3)), 0.6 + s**2, "K_c")


@check("numeric")
def test_noisy_kuramoto_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_wrong_self_consistency():
    import jax.numpy as jnp
    from scipy.optimize import brentq
    from scipy.special import ive

    def wrong(Kk, s):  # r = A_2(K r / sigma^2)
        if Kk <= 2 * s**2:
            return jnp.asarray(0.0)
        return jnp.asarray(
            brentq(
                lambda x: ive(1, Kk * x / s**2) / ive(0, Kk * x / s**2) - x, 1e-12, 1.0
            )
        )

    assert_fails(compare, wrong, what="r = I1/I0(K r / sigma^2)")


@check("numeric", slow=True)
def test_noisy_kuramoto_from_simulation():
    import jax
    import jax.numpy as jnp

    from syncattn import kuramoto

    n, s = (400, 1.0) if CONFIG.quick else (1000, 1.0)
    th0 = jnp.asarray(rng("noisy_sim").uniform(-np.pi, np.pi, n))
    for Kk in (0.5, 2.0, 3.0):
        sol = kuramoto.simulate(
            th0,
            0.0,
            Kk,
            40.0,
            saveat=81,
            noise=s,
            key=jax.random.key(CONFIG.seed),
            save_phases=False,
            dt0=0.02,
        )
        got = float(np.mean(np.asarray(sol.r)[40:]))
        want = float(kuramoto.noisy_order_parameter(Kk, s))
        if abs(got - want) > (0.05 if want > 0 else 0.12):
            raise AssertionError(
                f"K={Kk}: time-averaged r {got:.3f} vs theory {want:.3f}"
            )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

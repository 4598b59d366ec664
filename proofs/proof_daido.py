r"""Statement 21: Kuramoto-Daido harmonics, their mean field, and the in-phase and two-cluster states.

Statement:
    For theta_i' = omega_i + sum_j K_ij H(theta_j - theta_i) with the coupling function
    H(phi) = sum_{m=1..M} a_m sin(m phi - alpha_m) (a_m of any sign):
    (a) with c_m = a_m e^{-i alpha_m}, Im(c_m e^{i m phi}) = a_m sin(m phi - alpha_m), i.e.
        H(phi) = sum_m Re c_m sin(m phi) + Im c_m cos(m phi): the complex and the
        (amplitude, angle) forms are one series;
    (b) for every coupling matrix K the library's per-harmonic formula
        sum_m [a_m cos(m theta_i + alpha_m) (K sin m theta)_i
               - a_m sin(m theta_i + alpha_m) (K cos m theta)_i]
        equals sum_j K_ij H(theta_j - theta_i);
    (c) with the Daido order parameter Z_m = (1/N) sum_j e^{i m theta_j},
        Im(e^{-i m theta_i} c_m Z_m) = (a_m / N) sum_j sin(m(theta_j - theta_i) - alpha_m):
        the all-to-all field costs O(N M);
    (d) M = 1, a_1 = 1, alpha_1 = alpha is the Kuramoto-Sakaguchi coupling
        sum_j K_ij sin(theta_j - theta_i - alpha);
    (e) in-phase state theta_i = psi: the field is omega + H(0) sum_j K_ij (so the state
        is invariant iff H(0) sum_j K_ij is the same for all i), and its derivative along
        v is -H'(0) (L v)_i with L = D - K, D = diag(sum_j K_ij), and
        H'(0) = sum_m m a_m cos(alpha_m) = sum_m m Re c_m: the exponents are
        -H'(0) lambda_k(L);
    (f) mean field (K_ij = K/N): every zero-sum perturbation has exponent -K H'(0);
    (g) for symmetric non-negative connected K, L is positive semi-definite with kernel
        the constants, so the in-phase state is linearly stable (transversally) iff
        H'(0) > 0;
    (h) two clusters (identical oscillators, K_ij = K/N), A (a share p) at x and B at
        x + Delta: each cluster rotates rigidly, A at omega + K[p H(0) + (1-p) H(Delta)]
        and B at omega + K[p H(-Delta) + (1-p) H(0)], so the state exists iff
        (1 - 2p) H(0) + p H(-Delta) - (1 - p) H(Delta) = 0, i.e.
        p [H(Delta) + H(-Delta) - 2 H(0)] = H(Delta) - H(0); its exponents are
        lambda_A = -K[p H'(0) + (1-p) H'(Delta)] (zero-sum perturbations inside A),
        lambda_B = -K[(1-p) H'(0) + p H'(-Delta)] (inside B) and
        lambda_C = -K[p H'(-Delta) + (1-p) H'(Delta)] (the gap), plus 0 (a common shift);
    (i) biharmonic M = 2: the balanced anti-phase state (p = 1/2, Delta = pi) exists for
        every (a, alpha), with lambda_A = lambda_B = -2 K a_2 cos alpha_2 and
        lambda_C = -K (2 a_2 cos alpha_2 - a_1 cos alpha_1); for K > 0 it is stable iff
        a_2 cos alpha_2 > 0 and 2 a_2 cos alpha_2 > a_1 cos alpha_1;
    (j) biharmonic without lags (alpha = 0): H(Delta) = sin(Delta)(a_1 + 2 a_2 cos Delta)
        is odd, the gap drift is -K H(Delta) for every p, so two-cluster states are
        Delta = pi (any p) and cos Delta = -a_1/(2 a_2) (any p); on Delta = pi,
        lambda_A = -K(2 a_2 + (2p - 1) a_1), lambda_B = -K(2 a_2 - (2p - 1) a_1),
        lambda_C = -K(2 a_2 - a_1);
    (k) direct simulation agrees: a Laplacian eigenvector perturbation of the in-phase
        state decays at -H'(0) lambda, and the anti-phase two-cluster state persists
        above a_2 = a_1/2 and breaks up below it.

Proof idea:
    (a) Im(a e^{i(m phi - alpha)}) = a sin(m phi - alpha). (b), (c): per term,
    a cos(m theta_i + alpha) sin(m theta_j) - a sin(m theta_i + alpha) cos(m theta_j)
    = a sin(m theta_j - m theta_i - alpha); sum over j and m (linearity). (d) is (b) with
    M = 1. (e) d/de H(e(v_j - v_i)) = H'(0)(v_j - v_i); summing,
    sum_j K_ij (v_j - v_i) = -(L v)_i. (f) L = K(I - 11^T/N): L v = K v for sum v = 0.
    (g) v^T L v = (1/2) sum_ij K_ij (v_i - v_j)^2 >= 0 with equality iff v is constant on
    connected components. (h) theta_j - theta_i takes the values 0, Delta, -Delta; the
    Jacobian row i is (K/N)[H'(theta_j - theta_i) - delta_ij sum_l H'(theta_l - theta_i)];
    a zero-sum perturbation inside A is killed by the off-diagonal block, leaving the
    diagonal; the cluster-constant vectors span the gap mode and the shift.
    (i), (j): evaluate (h) at the biharmonic H, using cos(2 pi) = 1, cos(pi) = -1.

What is symbolic and what is numeric:
    Symbolic (sympy, exact): (a) for free a, alpha, m, phi; (b)-(d) per term (the
    argument for every N, M by linearity) and for N = 3, M = 2 with free symbols; (e) for
    a free H (a sympy Function) per term and the Jacobian of the harmonic field for
    N = 3, M = 2 with a free matrix; (f) for N = 4; (g) the quadratic form identity for
    N = 4 with a free symmetric matrix (the spectral consequence in words); (h) the
    cluster field values and the three eigenvector equations with a free H for
    (N_A, N_B) = (2, 3) and (3, 3); (i), (j) by substitution; the stability conditions
    of (i) as equivalences of the signs.
    Coq (proofs/coq/daido.v, against daido_spec.v): (a)-(f) and (h)-(j) for every N, M
    and every coupling matrix (Coquelicot is_derive for the linearisations).
    Numeric (float64): ``kuramoto.daido_coupling`` on dense and mean-field couplings
    against the double sum; ``daido_order_parameters`` against numpy;
    ``in_phase_exponents`` against -H'(0) times numpy's eigenvalues of L;
    ``two_cluster_drift`` and ``two_cluster_exponents`` against the lambdified (h).
    Theorem checks (k, slow): ``kuramoto.simulate`` with harmonics.
    Mutation: the proof must reject c_m = a_m e^{+i alpha_m} (the other sign convention),
    the exponent +H'(0) lambda(L), and lambda_C with p and 1 - p exchanged; the numeric
    comparison must reject a field with sin(m phi + alpha_m).

Mirrors: syncattn.kuramoto.HarmonicCoupling, syncattn.kuramoto.daido_coupling,
syncattn.kuramoto.daido_order_parameters, syncattn.kuramoto.in_phase_exponents,
syncattn.kuramoto.two_cluster_drift, syncattn.kuramoto.two_cluster_exponents,
syncattn.kuramoto.vector_field, syncattn.kuramoto.simulate.
Source: issue 39 section 1 (coupling functions with harmonics for the attention layers of
the next issue); classical theory: H. Daido, Physica D 91 (1996) (order-parameter
functions, Z_m); K. Okuda, Physica D 63 (1993) (variety and stability of cluster states);
D. Hansel, G. Mato and C. Meunier, Phys. Rev. E 48 (1993) (the biharmonic coupling
function and its two-cluster states).
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


NUMBER = 21
TITLE = (
    "Kuramoto-Daido harmonics: H = sum_m a_m sin(m phi - alpha_m) = sum_m Im(c_m e^{i m phi}), "
    "O(NM) mean field through Z_m, in-phase exponents -H'(0) lambda(L), two-cluster existence "
    "and stability (biharmonic anti-phase stable iff a2 cos alpha2 > 0 and 2 a2 cos alpha2 > a1 cos alpha1)"
)
MIRRORS = (
    "syncattn.kuramoto.HarmonicCoupling",
    "syncattn.kuramoto.daido_coupling",
    "syncattn.kuramoto.daido_order_parameters",
    "syncattn.kuramoto.in_phase_exponents",
    "syncattn.kuramoto.two_cluster_drift",
    "syncattn.kuramoto.two_cluster_exponents",
    "syncattn.kuramoto.vector_field",
    "syncattn.kuramoto.simulate",
)
PARTS = (
    Part("a", "With c_m = a_m e^{-i alpha_m}, Im(c_m e^{i m phi}) = a_m sin(m phi - alpha_m): H in (amplitude, angle) form equals H in complex form.", "coq", coq="fourier_identity"),
    Part("b", "For every coupling matrix K, the library's per-harmonic rotation formula equals sum_j K_ij H(theta_j - theta_i).", "coq", coq="graph_identity"),
    Part("c", "Im(e^{-i m theta_i} c_m Z_m) = (a_m/N) sum_j sin(m(theta_j - theta_i) - alpha_m) with Z_m = (1/N) sum_j e^{i m theta_j}.", "coq", coq="mean_field_identity"),
    Part("d", "M = 1, a_1 = 1, alpha_1 = alpha gives the Kuramoto-Sakaguchi coupling sum_j K_ij sin(theta_j - theta_i - alpha).", "coq", coq="kuramoto_reduction"),
    Part("e", "At the in-phase state the coupling is H(0) sum_j K_ij, H' is the derivative of H with H'(0) = sum_m m Re c_m, and the derivative of the coupling along v is -H'(0)(L v)_i, L = D - K.", "coq", coq="in_phase_linearisation"),
    Part("f", "Mean field K_ij = K/N: every zero-sum perturbation of the in-phase state has exponent -K H'(0).", "coq", coq="mean_field_in_phase"),
    Part("g", "For symmetric non-negative connected K, L is positive semi-definite with kernel the constants, so the in-phase state is transversally stable iff H'(0) > 0.", "sympy", why="needs the spectral theorem and the kernel of a connected graph's Laplacian, which the project's Coq core (finite sums, no matrices or eigenvalues) does not have; sympy proves the quadratic-form identity for N = 4 and the docstring argues the rest"),
    Part("h", "Two clusters (share p at x, 1 - p at x + Delta) rotate rigidly with the stated cluster frequencies (so exist iff (1-2p)H(0) + pH(-Delta) - (1-p)H(Delta) = 0), and the intra-A, intra-B and gap perturbations have exponents lambda_A, lambda_B, lambda_C.", "coq", coq="two_cluster_modes"),
    Part("i", "M = 2: the balanced anti-phase state exists, lambda_A = lambda_B = -2K a_2 cos alpha_2, lambda_C = -K(2 a_2 cos alpha_2 - a_1 cos alpha_1); for K > 0 stable iff a_2 cos alpha_2 > 0 and 2 a_2 cos alpha_2 > a_1 cos alpha_1.", "coq", coq="biharmonic_antiphase"),
    Part("j", "M = 2, alpha = 0: H(Delta) = sin Delta (a_1 + 2 a_2 cos Delta) is odd, the gap drift is -K H(Delta) for every p, and on Delta = pi the exponents are -K(2a_2 + (2p-1)a_1), -K(2a_2 - (2p-1)a_1), -K(2a_2 - a_1).", "coq", coq="biharmonic_odd_family"),
    Part("k", "Direct simulation: an in-phase Laplacian-mode perturbation decays at -H'(0) lambda; the anti-phase two-cluster state persists for a_2 > a_1/2 and breaks up below.", "measured", why="a numerical solution of the ODE (diffrax against the closed-form rate and the stability threshold), not a proof"),
)
COQ_SPEC_SHA256 = "caa12b170da2e70e754f4b632f0a65a48516a60fb03c5b2e68afbc5e9a6e1249"

phi, alpha, a, m, psi, eps = sp.symbols("phi alpha a m psi epsilon", real=True)
th_i, th_j, K_ij, v_i, v_j = sp.symbols("theta_i theta_j K_ij v_i v_j", real=True)
Hf = sp.Function("H")


def coefficient(a, alpha):
    """c_m = a_m e^{-i alpha_m} (the library's convention)."""
    return a * sp.exp(-sp.I * alpha)


def wrong_coefficient(a, alpha):
    """Mutation: the other sign convention c_m = a_m e^{+i alpha_m}."""
    return a * sp.exp(sp.I * alpha)


def lam_c(K, p, dHm, dHp):
    """The gap exponent -K[p H'(-Delta) + (1 - p) H'(Delta)]."""
    return -K * (p * dHm + (1 - p) * dHp)


def wrong_lam_c(K, p, dHm, dHp):
    """Mutation: p and 1 - p exchanged."""
    return -K * ((1 - p) * dHm + p * dHp)


def _im(z):
    return sp.im(sp.expand_complex(z))


def _trig_zero(expr, angles, what):
    r = pythagoras(sp.expand_trig(sp.expand(expr)), angles)
    if r != 0:
        raise AssertionError(f"{what}: residual {r} is not 0")


def prove_identities(coef=coefficient) -> None:
    """(a)-(d): the Fourier identity, the graph and mean-field identities, the M = 1 case."""
    # (a) generic term, m free: Im(c e^{i m phi}) = a sin(m phi - alpha)
    assert_zero(
        sp.expand_trig(_im(coef(a, alpha) * sp.exp(sp.I * m * phi)) - a * sp.sin(m * phi - alpha)),
        "(a) Im(c_m e^{i m phi}) = a_m sin(m phi - alpha_m)",
    )
    # a real trigonometric polynomial b sin + d cos is Im((b + i d) e^{i m phi})
    b, d = sp.symbols("b d", real=True)
    assert_zero(
        _im((b + sp.I * d) * sp.exp(sp.I * m * phi)) - (b * sp.sin(m * phi) + d * sp.cos(m * phi)),
        "(a) b sin + d cos = Im((b + i d) e^{i m phi})",
    )
    # (b) the library's term: a cos(m th_i + alpha) sin(m th_j) - a sin(m th_i + alpha) cos(m th_j);
    # the library's (a cos alpha, a sin alpha) are (Re c, -Im c)
    c = coef(a, alpha)
    cal, sal = sp.re(sp.expand_complex(c)), -sp.im(sp.expand_complex(c))
    ca = sp.cos(m * th_i) * cal - sp.sin(m * th_i) * sal
    sa = sp.sin(m * th_i) * cal + sp.cos(m * th_i) * sal
    term = K_ij * (ca * sp.sin(m * th_j) - sa * sp.cos(m * th_j))
    assert_zero(
        sp.expand_trig(term - K_ij * a * sp.sin(m * (th_j - th_i) - alpha)),
        "(b) library term = K_ij a sin(m(th_j - th_i) - alpha)",
    )
    # (b) cross-check, N = 3, M = 2: the whole double sum, free matrix and coefficients
    n, M = 3, 2
    th = sp.symbols("t0:3", real=True)
    Kmat = sp.Matrix(n, n, sp.symbols("k0:9", real=True))
    amp = sp.symbols("a1:3", real=True)
    lag = sp.symbols("l1:3", real=True)
    for i in range(n):
        lib = 0
        for mm in range(1, M + 1):
            cm = coef(amp[mm - 1], lag[mm - 1])
            cl, sl = sp.re(sp.expand_complex(cm)), -sp.im(sp.expand_complex(cm))
            Kc = sum(Kmat[i, j] * sp.cos(mm * th[j]) for j in range(n))
            Ks = sum(Kmat[i, j] * sp.sin(mm * th[j]) for j in range(n))
            cmi, smi = sp.cos(mm * th[i]), sp.sin(mm * th[i])
            lib += (cmi * cl - smi * sl) * Ks - (smi * cl + cmi * sl) * Kc
        ref = sum(
            Kmat[i, j] * amp[mm - 1] * sp.sin(mm * (th[j] - th[i]) - lag[mm - 1])
            for j in range(n)
            for mm in range(1, M + 1)
        )
        _trig_zero(lib - ref, [*th, *lag], f"(b) N = 3, M = 2, row {i}")
    # (c) mean field: Im(e^{-i m th_i} c Z_m), one term of Z_m (the sum is linear)
    assert_zero(
        sp.expand_trig(
            _im(sp.exp(-sp.I * m * th_i) * c * sp.exp(sp.I * m * th_j))
            - a * sp.sin(m * (th_j - th_i) - alpha)
        ),
        "(c) Im(e^{-i m th_i} c_m e^{i m th_j}) = a sin(m(th_j - th_i) - alpha)",
    )
    Z = sum(sp.exp(sp.I * 2 * t) for t in th) / n
    lhs = _im(sp.exp(-sp.I * 2 * th[0]) * coef(amp[1], lag[1]) * Z)
    rhs = amp[1] / n * sum(sp.sin(2 * (t - th[0]) - lag[1]) for t in th)
    _trig_zero(lhs - rhs, [*th, lag[1]], "(c) N = 3, m = 2")
    # (d) M = 1, a = 1: the library term is the Sakaguchi coupling
    c1 = coef(1, alpha)
    cl, sl = sp.re(sp.expand_complex(c1)), -sp.im(sp.expand_complex(c1))
    t1 = (sp.cos(th_i) * cl - sp.sin(th_i) * sl) * sp.sin(th_j) - (
        sp.sin(th_i) * cl + sp.cos(th_i) * sl
    ) * sp.cos(th_j)
    assert_zero(sp.expand_trig(t1 - sp.sin(th_j - th_i - alpha)), "(d) M = 1 is Sakaguchi")


def prove_in_phase(sign=1) -> None:
    """(e)-(g): the in-phase state's field, Jacobian -H'(0) L, mean field, the quadratic form.

    ``sign=-1`` is the mutation J = +H'(0) L.
    """
    # (e) one pair, free H: d/de K_ij H((psi + e v_j) - (psi + e v_i)) at 0
    pair = K_ij * Hf((psi + eps * v_j) - (psi + eps * v_i))
    dpair = sp.diff(pair, eps).subs(eps, 0).doit()
    Hp0 = sp.Subs(sp.Derivative(Hf(phi), phi), phi, 0).doit()
    assert_zero(sp.simplify(dpair - K_ij * Hp0 * (v_j - v_i)), "(e) d/de of one pair")
    # H'(0) of the harmonic H, generic term: d/dphi a sin(m phi - alpha) at 0 = m a cos(alpha)
    assert_zero(
        sp.diff(a * sp.sin(m * phi - alpha), phi).subs(phi, 0) - m * a * sp.cos(alpha),
        "(e) H'(0) = sum_m m a_m cos(alpha_m)",
    )
    # Jacobian of the harmonic field at theta = psi 1 for N = 3, M = 2, free K: -H'(0) L
    n = 3
    th = sp.symbols("t0:3", real=True)
    Kmat = sp.Matrix(n, n, sp.symbols("k0:9", real=True))
    amp = sp.symbols("a1:3", real=True)
    lag = sp.symbols("l1:3", real=True)
    H = lambda x: sum(amp[k] * sp.sin((k + 1) * x - lag[k]) for k in range(2))
    field = sp.Matrix([sum(Kmat[i, j] * H(th[j] - th[i]) for j in range(n)) for i in range(n)])
    J = field.jacobian(th).subs({t: psi for t in th})
    dH0 = sum((k + 1) * amp[k] * sp.cos(lag[k]) for k in range(2))
    L = sp.diag(*[sum(Kmat[i, j] for j in range(n)) for i in range(n)]) - Kmat
    assert_zero((J - (-sign) * dH0 * L).applyfunc(sp.expand), "(e) J = -H'(0) L, N = 3, M = 2")
    # the field there is H(0) sum_j K_ij
    at_psi = field.subs({t: psi for t in th})
    assert_zero(
        (at_psi - sp.Matrix([H(0) * sum(Kmat[i, j] for j in range(n)) for i in range(n)])).applyfunc(sp.expand),
        "(e) field at the in-phase state",
    )
    # (f) mean field, N = 4: L = K (I - 11^T / N); L v = K v for sum v = 0
    Kc = sp.Symbol("K", real=True)
    N = 4
    Lmf = Kc * (sp.eye(N) - sp.ones(N, N) / N)
    w = sp.Matrix(sp.symbols("w0:3", real=True))
    v = sp.Matrix([*w, -sum(w)])
    assert_zero(Lmf * v - Kc * v, "(f) L v = K v for zero-sum v (N = 4)")
    assert_zero(Lmf * sp.ones(N, 1), "(f) L 1 = 0")
    # (g) v^T L v = (1/2) sum_ij K_ij (v_i - v_j)^2 for symmetric K, N = 4
    ks = sp.symbols("s0:10", real=True)
    it = iter(ks)
    S = sp.zeros(N, N)
    for i in range(N):
        for j in range(i, N):
            S[i, j] = S[j, i] = next(it)
    LS = sp.diag(*[sum(S[i, j] for j in range(N)) for i in range(N)]) - S
    x = sp.Matrix(sp.symbols("x0:4", real=True))
    quad = (x.T * LS * x)[0]
    pairs = sp.Rational(1, 2) * sum(S[i, j] * (x[i] - x[j]) ** 2 for i in range(N) for j in range(N))
    assert_zero(sp.expand(quad - pairs), "(g) v^T L v = (1/2) sum K_ij (v_i - v_j)^2")


def prove_two_clusters(gap_exponent=lam_c) -> None:
    """(h)-(j) with a free H (sympy Function) for (N_A, N_B) = (2, 3) and (3, 3)."""
    K, x, D = sp.symbols("K x Delta", real=True)
    dH = lambda y: sp.Subs(sp.Derivative(Hf(phi), phi), phi, y).doit()
    for nA, nB in ((2, 3), (3, 3)):
        n = nA + nB
        p = sp.Rational(nA, n)
        th = sp.symbols(f"t0:{n}", real=True)
        field = sp.Matrix([K / n * sum(Hf(th[j] - th[i]) for j in range(n)) for i in range(n)])
        state = {th[j]: (x if j < nA else x + D) for j in range(n)}
        f0 = field.subs(state)
        fA = K * (p * Hf(0) + (1 - p) * Hf(D))
        fB = K * (p * Hf(-D) + (1 - p) * Hf(0))
        assert_zero(sp.simplify(f0[0] - fA), "(h) cluster A frequency")
        assert_zero(sp.simplify(f0[-1] - fB), "(h) cluster B frequency")
        drift = K * ((1 - 2 * p) * Hf(0) + p * Hf(-D) - (1 - p) * Hf(D))
        assert_zero(sp.simplify(f0[-1] - f0[0] - drift), "(h) gap drift")
        J = field.jacobian(th).subs(state).doit()
        lamA = -K * (p * dH(0) + (1 - p) * dH(D))
        lamB = -K * ((1 - p) * dH(0) + p * dH(-D))
        # intra-A: e_0 - e_1; intra-B: e_{nA} - e_{nA+1}
        vA = sp.Matrix([1, -1] + [0] * (n - 2))
        vB = sp.Matrix([0] * nA + [1, -1] + [0] * (nB - 2))
        assert_zero(sp.simplify(J * vA - lamA * vA), f"(h) intra-A mode ({nA}, {nB})")
        assert_zero(sp.simplify(J * vB - lamB * vB), f"(h) intra-B mode ({nA}, {nB})")
        # gap: v = (y_A on A, y_B on B): d(y_B - y_A)/dt = lambda_C (y_B - y_A)
        yA, yB = sp.symbols("y_A y_B", real=True)
        vC = sp.Matrix([yA] * nA + [yB] * nB)
        JvC = J * vC
        lamC = gap_exponent(K, p, dH(-D), dH(D))
        assert_zero(sp.simplify(JvC[-1] - JvC[0] - lamC * (yB - yA)), f"(h) gap mode ({nA}, {nB})")
        assert_zero(sp.simplify(J * sp.ones(n, 1)), "(h) common shift is neutral")
    # the existence relation solved for p
    pp = sp.Symbol("p", real=True)
    rel = (1 - 2 * pp) * Hf(0) + pp * Hf(-D) - (1 - pp) * Hf(D)
    assert_zero(
        sp.expand(rel - (pp * (Hf(D) + Hf(-D) - 2 * Hf(0)) - (Hf(D) - Hf(0)))),
        "(h) existence: p [H(D) + H(-D) - 2H(0)] = H(D) - H(0)",
    )
    # (i) biharmonic, balanced anti-phase
    a1, a2, l1, l2 = sp.symbols("a_1 a_2 alpha_1 alpha_2", real=True)
    Kp = sp.Symbol("K", positive=True)
    H2 = lambda y: a1 * sp.sin(y - l1) + a2 * sp.sin(2 * y - l2)
    dH2 = lambda y: sp.diff(H2(phi), phi).subs(phi, y)
    half = sp.Rational(1, 2)
    assert_zero(sp.simplify((1 - 2 * half) * H2(0) + half * H2(-sp.pi) - half * H2(sp.pi)), "(i) anti-phase exists")
    lA = -Kp * (half * dH2(0) + half * dH2(sp.pi))
    lB = -Kp * (half * dH2(0) + half * dH2(-sp.pi))
    lC = gap_exponent(Kp, half, dH2(-sp.pi), dH2(sp.pi))
    assert_zero(sp.simplify(lA + 2 * Kp * a2 * sp.cos(l2)), "(i) lambda_A")
    assert_zero(sp.simplify(lB + 2 * Kp * a2 * sp.cos(l2)), "(i) lambda_B")
    assert_zero(sp.simplify(lC + Kp * (2 * a2 * sp.cos(l2) - a1 * sp.cos(l1))), "(i) lambda_C")
    # signs: for K > 0, lambda < 0 iff the bracket is > 0
    up, un = sp.Symbol("u_pos", positive=True), sp.Symbol("u_nonpos", nonpositive=True)
    assert_true((-Kp * up).is_negative, "(i) lambda < 0 if its bracket is > 0")
    assert_true((-Kp * un).is_nonnegative, "(i) lambda >= 0 if its bracket is <= 0")
    # (j) no lags
    H0 = lambda y: a1 * sp.sin(y) + a2 * sp.sin(2 * y)
    dH0 = lambda y: sp.diff(H0(phi), phi).subs(phi, y)
    assert_zero(sp.expand_trig(H0(D) - sp.sin(D) * (a1 + 2 * a2 * sp.cos(D))), "(j) factorisation")
    assert_zero(sp.expand(H0(-D) + H0(D)), "(j) H odd")
    assert_zero(sp.expand(K * ((1 - 2 * pp) * H0(0) + pp * H0(-D) - (1 - pp) * H0(D)) + K * H0(D)), "(j) drift = -K H(D)")
    assert_zero(sp.simplify((a1 + 2 * a2 * sp.cos(D)).subs(sp.cos(D), -a1 / (2 * a2))), "(j) cos D = -a1/(2 a2) root")
    assert_zero(sp.expand(-K * (pp * dH0(0) + (1 - pp) * dH0(sp.pi)) + K * (2 * a2 + (2 * pp - 1) * a1)), "(j) lambda_A on D = pi")
    assert_zero(sp.expand(-K * ((1 - pp) * dH0(0) + pp * dH0(-sp.pi)) + K * (2 * a2 - (2 * pp - 1) * a1)), "(j) lambda_B on D = pi")
    assert_zero(sp.expand(gap_exponent(K, pp, dH0(-sp.pi), dH0(sp.pi)) + K * (2 * a2 - a1)), "(j) lambda_C on D = pi")


@check("symbolic")
def test_identities_symbolic():
    prove_identities()


@check("symbolic")
def test_in_phase_symbolic():
    prove_in_phase()


@check("symbolic")
def test_two_clusters_symbolic():
    prove_two_clusters()


@check("mutation")
def test_identities_reject_the_other_sign_convention():
    assert_fails(prove_identities, wrong_coefficient, what="c_m = a_m e^{+i alpha_m}")


@check("mutation")
def test_in_phase_rejects_the_flipped_exponent():
    assert_fails(prove_in_phase, -1, what="J = +H'(0) L")


@check("mutation")
def test_two_clusters_reject_exchanged_shares():
    assert_fails(prove_two_clusters, wrong_lam_c, what="lambda_C with p and 1 - p exchanged")


# ---------------------------------------------------------------- numeric
def _double_sum(theta, K, amp, lag, sign=-1):
    n = theta.shape[-1]
    diff = theta[None, :] - theta[:, None]  # [i, j] = theta_j - theta_i
    out = np.zeros(n)
    for k, (am, al) in enumerate(zip(amp, lag), 1):
        out += np.sum(K * am * np.sin(k * diff + sign * al), axis=-1)
    return out


def compare(field=None) -> None:
    import jax

    from syncattn import kuramoto

    field = jax.jit(field or kuramoto.daido_coupling)
    g = rng("daido")
    for n, M in ((5, 1), (7, 3)):
        theta = g.uniform(-np.pi, np.pi, n)
        amp, lag = g.normal(size=M), g.uniform(-np.pi, np.pi, M)
        h = kuramoto.HarmonicCoupling.from_amplitudes(amp, lag)
        K = g.normal(size=(n, n))
        assert_close(field(theta, h, K), _double_sum(theta, K, amp, lag), f"daido_coupling dense N={n} M={M}", rtol=1e-11, atol=1e-12)
        Kc = float(g.uniform(0.5, 2))
        assert_close(
            field(theta, h, Kc), _double_sum(theta, np.full((n, n), Kc / n), amp, lag),
            f"daido_coupling mean field N={n} M={M}", rtol=1e-11, atol=1e-12,
        )
        Z = kuramoto.daido_order_parameters(theta, M)
        assert_close(Z, np.array([np.mean(np.exp(1j * k * theta)) for k in range(1, M + 1)]), "daido_order_parameters")
        dH0 = float(np.sum(np.arange(1, M + 1) * amp * np.cos(lag)))
        L = np.diag(K.sum(-1)) - K
        want = np.sort_complex(-dH0 * np.linalg.eigvals(L))
        got = np.sort_complex(np.asarray(kuramoto.in_phase_exponents(h, K)))
        assert_close(got, want, "in_phase_exponents", rtol=1e-10, atol=1e-10)
        H = lambda y: sum(am * np.sin(k * y - al) for k, (am, al) in enumerate(zip(amp, lag), 1))
        dH = lambda y: sum(k * am * np.cos(k * y - al) for k, (am, al) in enumerate(zip(amp, lag), 1))
        for p, D in ((0.5, np.pi), (0.3, 1.7)):
            assert_close(
                kuramoto.two_cluster_drift(h, p, D, Kc),
                Kc * ((1 - 2 * p) * H(0) + p * H(-D) - (1 - p) * H(D)), "two_cluster_drift",
            )
            assert_close(
                kuramoto.two_cluster_exponents(h, p, D, Kc),
                np.array([
                    -Kc * (p * dH(0) + (1 - p) * dH(D)),
                    -Kc * ((1 - p) * dH(0) + p * dH(-D)),
                    -Kc * (p * dH(-D) + (1 - p) * dH(D)),
                ]),
                "two_cluster_exponents",
            )


@check("numeric")
def test_daido_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_the_flipped_lag():
    import jax.numpy as jnp

    from syncattn import kuramoto

    def flipped(theta, h, K):  # sin(m phi + alpha_m): the conjugate coefficients
        return kuramoto.daido_coupling(theta, kuramoto.HarmonicCoupling(h.real, -h.imag), K)

    assert_fails(compare, flipped, what="a field with sin(m phi + alpha_m)")
    del jnp


@check("numeric", slow=True)
def test_simulation_in_phase_rate_and_two_cluster_threshold():
    """Theorem check (k): diffrax solves against the linear rate and the a_2 = a_1/2 threshold."""
    from syncattn import kuramoto

    n, k, e0, t1 = 12, 3, 1e-5, 1.0
    idx = np.arange(n)
    K = np.zeros((n, n))
    K[idx, (idx + 1) % n] = K[idx, (idx - 1) % n] = 1.0
    amp, lag = np.array([1.0, 0.6, -0.2]), np.array([0.0, 0.4, -0.3])
    # H(0) != 0 but every row sums to 2: the in-phase state rotates at 2 H(0)
    h = kuramoto.HarmonicCoupling.from_amplitudes(amp, lag)
    dH0 = float(np.sum(np.arange(1, 4) * amp * np.cos(lag)))
    H0 = float(h(0.0))
    lam = 2 * (1 - np.cos(2 * np.pi * k / n))
    v = np.cos(2 * np.pi * k * idx / n)
    sol = kuramoto.simulate(e0 * v, 0.0, K, t1, saveat=None, harmonics=h, rtol=1e-11, atol=1e-16)
    got = np.asarray(sol.theta_final) - 2 * H0 * t1
    # H''(0) != 0: the nonlinear terms are O(e0^2) = 1e-10 (a common drift and mode 2k)
    assert_close(got, e0 * np.exp(-dH0 * lam * t1) * v, "in-phase decay", rtol=1e-4, atol=1e-9)
    g = rng("two_cluster")
    half = np.where(idx < n // 2, 0.0, np.pi)
    theta0 = half + 1e-3 * g.normal(size=n)
    for a2, stable in ((0.6, True), (0.4, False)) if CONFIG.quick else ((0.6, True), (0.52, True), (0.48, False), (0.4, False)):
        hh = kuramoto.HarmonicCoupling.from_amplitudes(np.array([1.0, a2]))
        fin = kuramoto.simulate(theta0, 0.0, 1.0, 40.0, saveat=None, harmonics=hh).theta_final
        r1, r2 = np.abs(np.asarray(kuramoto.daido_order_parameters(fin, 2)))
        r1_0 = abs(np.mean(np.exp(1j * theta0)))
        # the gap's deviation (|Z_1|) evolves like e^{lambda_C t}, lambda_C = -(2 a2 - 1):
        # over t = 40 a factor e^{-1.6} or less at |2 a2 - 1| >= 0.04
        if stable and not (r1 < r1_0 / 2 and r2 > 1 - 1e-5):
            raise AssertionError(f"a2={a2}: anti-phase clusters should persist (|Z1|={r1:.2e}, |Z2|={r2:.6f})")
        if not stable and r1 < 2 * r1_0:
            raise AssertionError(f"a2={a2}: anti-phase clusters should break up (|Z1|={r1:.2e})")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

r"""Statement 19: complete synchronisation of identical Lohe matrix oscillators below D = N/(N-1).

Statement:
    Let U_j' = -i H U_j + K/(2N) sum_k (U_k - U_j U_k^H U_j), j = 1..N, one common H
    (Hermitian on U(n), or a common real skew generator on SO(n)), K > 0, and
    D(t) = max_{i,j} ||U_i(t) - U_j(t)||_F (lohe.ensemble_diameter). If
    D(0) < N/(N-1) (lohe.matrix_sync_threshold), then with c = (N-1)/N
        D(t) <= D(0) e^{-Kt} / (1 - c D(0) + c D(0) e^{-Kt})
             <= D(0) / (1 - c D(0)) e^{-Kt}           (lohe.matrix_sync_bound),
    so the oscillators synchronise completely at the exponential rate K, which is
    the rate of the linearisation at the synchronised state (so it cannot be
    improved). At N = 2 the hypothesis is sharp on U(n): two antipodal U(1) phases
    (D = 2 = N/(N-1)) form an equilibrium that never synchronises.

Proof idea (the full proof):
    In the co-rotating frame V_j = e^{iHt}U_j (statement 18 (a); D is the same),
    V_j' = (K/2)(M - V_j M^H V_j), M = (1/N) sum_k V_k. For a pair i, j with
    Delta = V_i - V_j:
    (1) V_i M^H V_i - V_j M^H V_j = Delta M^H V_i + V_j M^H Delta (exact), so
        d||Delta||^2/dt = -K Re tr(Delta^H (Delta M^H V_i + V_j M^H Delta));
    (2) with E_i = M - V_i: M^H V_i = I + E_i^H V_i (V_i^H V_i = I) and
        V_j M^H = I + V_j E_j^H (V_j V_j^H = I), hence
        d||Delta||^2/dt = -2K||Delta||^2 - K Re[tr(Delta^H Delta E_i^H V_i)
                          + tr(Delta Delta^H V_j E_j^H)];
    (3) |tr(P Y)| <= tr(P) ||Y||_2 <= tr(P) ||Y||_F for P >= 0, and
        ||E_i||_F = ||(1/N) sum_{k != i}(V_k - V_i)||_F <= c D, so
        d||Delta||^2/dt <= -2K ||Delta||^2 (1 - c D);
    (4) for a pair attaining the maximum, the upper Dini derivative of D satisfies
        D' <= -K D (1 - c D); while c D < 1, D decreases, and comparison with the
        logistic equation y' = -K y (1 - c y), y(0) = D(0), whose solution is the
        bound, gives D(t) <= y(t). The linearisation at V_j = V (xi_j = log V^H V_j)
        is xi_j' = K (mean xi - xi_j): deviations decay exactly at rate K.

What is symbolic and what is numeric:
    Symbolic (sympy): (1) and (2) with noncommutative symbols (only V V^H = V^H V = I
    used); the logistic solution and its limit rate; the linearisation's rate.
    Numeric (float64): the derivative identity (2) against jax.jvp of ||Delta||^2
    along lohe.matrix_vector_field; the trace inequality (3) on random PSD P;
    theorem check (slow): random initial data meeting the hypothesis on SO(3), U(2)
    and U(3) for N = 2..6 (scaled clusters), simulated by lohe.matrix_simulate:
    D(t) <= bound at every save time and the late decay rate is K within 5%;
    just outside: the N = 2 antipodal equilibrium (D = 2) stays put, and random data
    with D(0) in (1, 1.2) x N/(N-1) still synchronised in every draw (the hypothesis
    is sufficient, not necessary, for N >= 3).
    Mutation: the pair identity (1) with a plus sign, and a bound with rate 2K (which
    the simulations violate), must fail.

Mirrors: syncattn.lohe.matrix_sync_bound, syncattn.lohe.matrix_sync_threshold,
syncattn.lohe.ensemble_diameter, syncattn.lohe.matrix_simulate.
Sources: the diameter (Lyapunov functional) method for the Lohe matrix model with
identical Hamiltonians is that of S.-H. Choi and S.-Y. Ha, "Complete entrainment of
Lohe oscillators under attractive and repulsive couplings", SIAM J. Appl. Dyn. Syst.
13 (2014), and S.-Y. Ha and S. W. Ryoo, "On the emergence and orbital stability of
phase-locked states for the Lohe model", J. Stat. Phys. 163 (2016); exponential
synchronisation for identical Hamiltonians and small initial dispersion on Lie groups
is Theorem 1.1 of S.-Y. Ryoo, arXiv:2109.14761 (sequel to Ha, Ko and Ryoo, J. Stat.
Phys. 2017). Their exact constants could not be retrieved in this session; the
threshold N/(N-1) and the logistic bound above are derived and proved here.
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


NUMBER = 19
TITLE = (
    "Identical Lohe matrix oscillators: D(0) < N/(N-1) gives complete sync at rate K"
)
MIRRORS = (
    "syncattn.lohe.matrix_sync_bound",
    "syncattn.lohe.matrix_sync_threshold",
    "syncattn.lohe.ensemble_diameter",
    "syncattn.lohe.matrix_simulate",
)

# What proves each claim (proofs/_parts.py); the Coq theorems are in
# proofs/coq/matrix_sync.v, their statements in proofs/coq/matrix_sync_spec.v.
PARTS = (
    Part(
        "1",
        "Pair identity: V_i M^H V_i - V_j M^H V_j = Delta M^H V_i + V_j M^H Delta, any matrices",
        "coq",
        coq="pair_identity",
    ),
    Part(
        "2(i)",
        "With E_i = M - V_i: M^H V_i = I + E_i^H V_i (V_i^H V_i = I) and "
        "V_j M^H = I + V_j E_j^H (V_j V_j^H = I)",
        "coq",
        coq="deviation",
    ),
    Part(
        "2(ii)",
        "d||Delta||^2/dt = -2K||Delta||^2 - K Re[tr(Delta^H Delta E_i^H V_i) + "
        "tr(Delta Delta^H V_j E_j^H)] along the co-rotating flow, at every time where "
        "V_i^H V_i = I and V_j V_j^H = I",
        "coq",
        coq="pair_derivative",
    ),
    Part(
        "3(i)",
        "||E_i||_F <= c D: if every pair has ||V_k - V_l||_F <= D then "
        "||M - V_i||_F <= (N-1)/N D (the triangle inequality for the Frobenius norm)",
        "coq",
        coq="deviation_bound",
    ),
    Part(
        "3(ii)",
        "|tr(P Y)| <= tr(P) ||Y||_F for P >= 0, hence (with 2(ii) and 3(i)) "
        "d||Delta||^2/dt <= -2K ||Delta||^2 (1 - c D)",
        "measured",
        why="the trace inequality for a positive semidefinite P (a spectral argument) is "
        "not formalised; it is checked on random PSD P",
    ),
    Part(
        "4(i)",
        "The bound y(t) = D0 e^{-Kt} / (1 - c D0 + c D0 e^{-Kt}) solves y' = -K y (1 - c y), "
        "y(0) = D0, and y(t) <= D0/(1 - c D0) e^{-Kt} (K > 0, 0 <= c D0 < 1, t >= 0)",
        "coq",
        coq="logistic",
    ),
    Part(
        "4(ii)",
        "D(t) <= y(t) for all t >= 0 when D(0) < N/(N-1): complete synchronisation at rate K",
        "measured",
        why="the comparison argument (upper Dini derivative of a maximum of finitely many "
        "functions against the logistic equation) is not formalised; the slow check "
        "simulates SO(3), U(2), U(3) for N = 2..6 and finds D(t) below the bound and a "
        "late rate K within 5%",
    ),
    Part(
        "4(iii)",
        "The linearisation xi_j' = K (mean xi - xi_j) has eigenvalue -K on zero-mean "
        "deviations and 0 on common shifts, so the rate K cannot be improved",
        "coq",
        coq="linearisation",
    ),
    Part(
        "5",
        "At N = 2 the hypothesis is sharp: the antipodal pair V_0 = I, V_1 = diag(-1, 1, "
        "..., 1) lies in U(n), has D = 2 = N/(N-1), and is an equilibrium (the constant "
        "curve solves the flow at every time), so along it D stays 2: it never synchronises",
        "coq",
        coq="antipodal",
    ),
    Part(
        "6",
        "Just outside the hypothesis (N >= 3, D(0) in (1, 1.2) x N/(N-1)) random data still "
        "synchronise: the hypothesis is sufficient, not necessary",
        "measured",
        why="a statement about random draws, measured by the slow check",
    ),
)
COQ_SPEC_SHA256 = "c35267c6ee1552142b98141d87638349ee49768565e96b11614e311280dec22d"


def prove(sign=1) -> None:
    Vi, Vih, Vj, Vjh, Mh = sp.symbols("Vi Vih Vj Vjh Mh", commutative=False)
    D = Vi - Vj
    # (1) exact pair identity
    lhs = Vi * Mh * Vi - Vj * Mh * Vj
    assert_zero(
        sp.expand(lhs - (D * Mh * Vi + sign * Vj * Mh * D)), "(1) pair identity"
    )
    # (2) M^H V_i = I + E_i^H V_i, V_j M^H = I + V_j E_j^H
    Eih, Ejh = Mh - Vih, Mh - Vjh
    assert_zero(sp.expand(sp.expand(Mh * Vi - 1 - Eih * Vi).subs(Vih * Vi, 1)), "(2a)")
    assert_zero(sp.expand(sp.expand(Vj * Mh - 1 - Vj * Ejh).subs(Vj * Vjh, 1)), "(2b)")
    # (4) the logistic bound solves y' = -K y (1 - c y), y(0) = D0, decays at rate K
    t, K, D0, c = sp.symbols("t K D0 c", positive=True)
    y = D0 * sp.exp(-K * t) / (1 - c * D0 + c * D0 * sp.exp(-K * t))
    assert_zero(sp.simplify(sp.diff(y, t) + K * y * (1 - c * y)), "(4) logistic ODE")
    assert_zero(y.subs(t, 0) - D0, "(4) initial value")
    lim = sp.limit(y * sp.exp(K * t), t, sp.oo)
    assert_zero(sp.simplify(lim - D0 / (1 - c * D0)), "(4) rate K prefactor")
    # linearisation: xi_j' = K (mean - xi_j) for N = 3 scalars: eigenvalues 0, -K, -K
    N = 3
    J = sp.Matrix(N, N, lambda a, b: K * (sp.Rational(1, N) - (1 if a == b else 0)))
    ev = J.eigenvals()
    assert_zero(sp.Integer(ev.get(-K, 0) - (N - 1)), "(4) linearisation rate K")


@check("symbolic")
def test_sync_proof_symbolic():
    prove()


@check("mutation")
def test_proof_rejects_wrong_pair_identity():
    assert_fails(prove, -1, what="the pair identity with a minus sign")


@check("numeric")
def test_pair_derivative_and_trace_inequality():
    import jax
    import jax.numpy as jnp

    from syncattn import group, lohe

    g = rng("matrix_sync")
    N, n, K = 5, 3, 1.4
    U = group.sample_haar(jax.random.key(CONFIG.seed), N, n)
    f = lohe.matrix_vector_field(U, None, K)
    sq = lambda V: jnp.sum(jnp.abs(V[0] - V[1]) ** 2)
    _, d = jax.jvp(sq, (U,), (f,))
    V, M = np.asarray(U), np.asarray(jnp.mean(U, axis=0))
    Dl = V[0] - V[1]
    Ei, Ej = M - V[0], M - V[1]
    h = lambda X: np.conj(X.T)
    want = -2 * K * np.sum(np.abs(Dl) ** 2) - K * np.real(
        np.trace(h(Dl) @ Dl @ h(Ei) @ V[0]) + np.trace(Dl @ h(Dl) @ V[1] @ h(Ej))
    )
    assert_close(d, want, "(2) d||Delta||^2/dt", atol=1e-13)
    for _ in range(20):
        A = g.normal(size=(4, 4)) + 1j * g.normal(size=(4, 4))
        P, Y = A @ h(A), g.normal(size=(4, 4)) + 1j * g.normal(size=(4, 4))
        if abs(np.trace(P @ Y)) > np.trace(P).real * np.linalg.norm(Y, 2) + 1e-12:
            raise AssertionError("(3) trace inequality failed")


def _cluster(key, N, n, kind, scale, g):
    import jax.numpy as jnp

    from syncattn import group

    base = group.sample_haar(key, (), n, kind)
    A = g.normal(size=(N, n, n)) + (1j * g.normal(size=(N, n, n)) if kind == "u" else 0)
    xi = scale * 0.5 * (A - np.conj(np.swapaxes(A, -1, -2)))
    return group.exp_map(jnp.broadcast_to(base, (N, n, n)), xi)


def theorem_check(bound=None) -> None:
    """Simulations from data meeting the hypothesis stay below `bound`; rate K."""
    import jax

    from syncattn import lohe

    bound = bound or lohe.matrix_sync_bound
    g = rng("matrix_sync_theorem")
    K = 1.0
    cases = [("so", 3), ("u", 2), ("u", 3)]
    Ns = (2, 4) if CONFIG.quick else (2, 3, 4, 6)
    draws = 1 if CONFIG.quick else 3
    key = jax.random.key(CONFIG.seed)
    for kind, n in cases:
        for N in Ns:
            for _ in range(draws):
                key, sub = jax.random.split(key)
                thr = lohe.matrix_sync_threshold(N)
                U0, D0 = None, np.inf
                scale = 0.6
                while not D0 < 0.95 * thr:  # shrink until the hypothesis holds
                    U0 = _cluster(sub, N, n, kind, scale, g)
                    D0, scale = float(lohe.ensemble_diameter(U0)), 0.8 * scale
                A = g.normal(size=(n, n))
                H = 0.5 * (A + A.T) + 0j if kind == "u" else 0.5 * (A - A.T)
                s = lohe.matrix_simulate(
                    U0, np.broadcast_to(H, (N, n, n)), K, 8.0, saveat=33, dt0=0.01
                )
                D = np.asarray(lohe.ensemble_diameter(s.states))
                b = np.asarray(bound(D0, K, N, s.ts))
                if np.any(D > b + 1e-10):
                    raise AssertionError(
                        f"{kind}({n}), N={N}: D(t) above the bound by {np.max(D - b):.3g}"
                    )
                rate = -np.log(D[-1] / D[-9]) / float(s.ts[-1] - s.ts[-9])
                if abs(rate - K) > 0.05 * K:
                    raise AssertionError(
                        f"{kind}({n}), N={N}: late rate {rate:.4f} != K"
                    )


@check("numeric", slow=True)
def test_simulations_obey_the_bound():
    theorem_check()


@check("mutation", slow=True)
def test_bound_with_double_rate_is_violated():
    from syncattn import lohe

    fast = lambda D0, K, N, t: lohe.matrix_sync_bound(D0, 2 * K, N, t)
    assert_fails(theorem_check, fast, what="a bound decaying at rate 2K")


@check("numeric", slow=True)
def test_just_outside_the_hypothesis():
    import jax

    from syncattn import lohe

    # N = 2, D = 2 = N/(N-1): the antipodal equilibrium never synchronises
    U0 = np.exp(1j * np.array([0.0, np.pi]))[:, None, None]
    s = lohe.matrix_simulate(U0, None, 1.0, 10.0, saveat=3, dt0=0.05)
    if abs(float(lohe.ensemble_diameter(s.final)) - 2.0) > 1e-12:
        raise AssertionError("the antipodal pair moved")
    # N >= 3, D0 a little above the threshold: still synchronises (sufficient only)
    g = rng("matrix_sync_outside")
    for N, kind, n in ((4, "u", 2), (6, "so", 3)):
        thr = lohe.matrix_sync_threshold(N)
        key = jax.random.key(CONFIG.seed + N)
        scale, D0 = 0.3, 0.0
        while not thr < D0 < 1.2 * thr:
            U0 = _cluster(key, N, n, kind, scale, g)
            D0 = float(lohe.ensemble_diameter(U0))
            scale *= 1.1 if D0 <= thr else 0.93
        s = lohe.matrix_simulate(U0, None, 1.0, 12.0, saveat=5, dt0=0.01)
        if float(lohe.ensemble_diameter(s.final)) > 1e-3:
            raise AssertionError(f"N={N}: D0={D0:.3f} just outside did not synchronise")


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

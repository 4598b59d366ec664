r"""Statement 23: Kuramoto with inertia, its energy and its equilibria.

Statement:
    For m theta_i'' + theta_i' = omega_i + F_i(theta), F_i = sum_j K_ij sin(theta_j - theta_i),
    as the first-order system theta' = v, m v' = omega + F(theta) - v (m >= 0):
    (a) with omega = 0 and K symmetric, E = (m/2) sum_i v_i^2
        + (1/2) sum_ij K_ij (1 - cos(theta_j - theta_i)) satisfies dE/dt = -sum_i v_i^2
        along solutions, for every N;
    (b) hence E never increases on an interval;
    (c) m = 0: the phases solve the first-order Kuramoto flow theta' = omega + F;
    (d) for m > 0 the equilibria are (theta*, 0) with theta* an equilibrium of the
        first-order flow;
    (e) linearised at such an equilibrium, the Jacobian's eigenvalues lambda are the roots
        of m lambda^2 + lambda + mu = 0, mu over the eigenvalues of -dF/dtheta (the
        first-order decay rates): det(lambda I - A) = det(m lambda^2 I + lambda I + J) / m^N;
    (f) mu > 0 gives Re lambda < 0 and mu < 0 a real lambda > 0, for every m > 0: inertia
        does not change which equilibria are linearly stable;
    (g) the library's energy never increases along its simulation (measured).

Proof idea:
    (a) Chain rule: dE/dt = m sum v_i v_i' + (1/2) sum_ij K_ij sin(theta_j - theta_i)(v_j - v_i).
        By symmetry and oddness of sin the double sum is -2 sum_i v_i F_i, and
        m v_i' = F_i - v_i; the F terms cancel.
    (b) Mean value theorem. (c) m = 0 in m v' = F - v gives v = F. (d) v = 0 and F = v.
    (e) Block elimination of A = [[0, I], [-J/m, -I/m]]. (f) If y != 0 the imaginary part
        gives x = -1/(2m); if y = 0, m x^2 + x + mu > 0 for x >= 0. For mu < 0,
        lambda = (sqrt(1 - 4 m mu) - 1)/(2m).

What is symbolic and what is numeric:
    Coq (proofs/coq/inertia.v, every N, Coquelicot derivatives through the standard
    library's derivable_pt_lim): (a)-(d), (f), and (e) as the eigenvector form of the
    block elimination (complex eigenvalues and eigenvectors, a free real J). Symbolic (sympy): (a) for N = 3 with a free
    symmetric matrix and its failure without symmetry; (e) the determinant for N = 2 with
    a free matrix J; (f) the roots of the quadratic. Numeric (float64):
    ``inertial_vector_field`` and ``inertial_energy`` against the lambdified statement
    (dense and scalar couplings); a theorem check: along a scipy DOP853 integration of
    ``inertial_vector_field`` (omega = 0, symmetric K) the energy never increases and its
    drop equals the integral of |v|^2. Measured (slow): the same along
    ``inertial_simulate``. Mutation: the proof rejects the energy m sum v^2 (no 1/2); the
    comparison rejects that energy too.

Mirrors: syncattn.kuramoto.inertial_vector_field, syncattn.kuramoto.inertial_energy,
syncattn.kuramoto.inertial_simulate.
Source: not a claim of the seeds; classical theory of the second-order Kuramoto model
(H.-A. Tanaka, A. J. Lichtenberg, S. Oishi, PRL 78, 2104 (1997); F. Dörfler and F. Bullo,
SIAM J. Control Optim. 50, 1616 (2012)) the inertial simulator is checked against
(issue 39 section 3).
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
    trig_zero,
)
from ._parts import Part


NUMBER = 23
TITLE = "Kuramoto with inertia: dE/dt = -|v|^2 (omega = 0, K = K^T), m = 0 is first order, inertia keeps linear stability"
MIRRORS = (
    "syncattn.kuramoto.inertial_vector_field",
    "syncattn.kuramoto.inertial_energy",
    "syncattn.kuramoto.inertial_simulate",
)

PARTS = (
    Part(
        "a",
        "With omega = 0 and symmetric K, dE/dt = -sum_i v_i^2 along solutions, for every N.",
        "coq",
        coq="energy_identity",
    ),
    Part(
        "b",
        "E never increases on an interval along a solution.",
        "coq",
        coq="energy_nonincreasing",
    ),
    Part(
        "c",
        "With m = 0 the phases solve the first-order Kuramoto flow.",
        "coq",
        coq="zero_mass",
    ),
    Part(
        "d",
        "For m > 0 the equilibria are (theta*, 0) with theta* a first-order equilibrium.",
        "coq",
        coq="equilibria",
    ),
    Part(
        "e",
        "For every N, m > 0 and real J = -dF/dtheta, lambda is an eigenvalue of the inertial Jacobian [[0, I], [-J/m, -I/m]] iff m lambda^2 + lambda + mu = 0 for an eigenvalue mu of J (eigenvectors (x, lambda x)).",
        "coq",
        coq="inertial_spectrum",
    ),
    Part(
        "f",
        "For m > 0, a first-order rate mu > 0 gives Re lambda < 0.",
        "coq",
        coq="mode_stable",
    ),
    Part(
        "f(ii)",
        "For m > 0, mu < 0 gives a real root lambda > 0.",
        "coq",
        coq="mode_unstable",
    ),
    Part(
        "g",
        "inertial_energy never increases along inertial_simulate (omega = 0, symmetric K).",
        "measured",
        why="a property of a floating-point adaptive solve, checked numerically",
    ),
)
COQ_SPEC_SHA256 = "bf21a7dfe45828db28f19ec864bf8ca524626bc07253ae8236035c2384c0421b"

m = sp.Symbol("m", positive=True)


def energy(theta, v, K, m):
    """E = (m/2) sum v_i^2 + (1/2) sum_ij K_ij (1 - cos(theta_j - theta_i))."""
    n = len(theta)
    return m / 2 * sum(vi**2 for vi in v) + sp.Rational(1, 2) * sum(
        K[i, j] * (1 - sp.cos(theta[j] - theta[i])) for i in range(n) for j in range(n)
    )


def wrong_energy(theta, v, K, m):
    """Mutation: the kinetic factor 1/2 dropped."""
    return energy(theta, v, K, m) + m / 2 * sum(vi**2 for vi in v)


def symmetric_matrix(n, name="k"):
    return sp.Matrix(
        n, n, lambda i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True)
    )


def force(theta, K):
    n = len(theta)
    return [
        sum(K[i, j] * sp.sin(theta[j] - theta[i]) for j in range(n)) for i in range(n)
    ]


def _trig(e):
    return trig_zero(e)


def _energy_rate(E, K, n=3):
    th = sp.symbols(f"theta0:{n}", real=True)
    v = sp.symbols(f"v0:{n}", real=True)
    F = force(th, K)
    En = E(th, v, K, m)
    # chain rule along theta' = v, v' = (F - v)/m
    return sum(
        sp.diff(En, th[i]) * v[i] + sp.diff(En, v[i]) * (F[i] - v[i]) / m
        for i in range(n)
    ), v


def prove(E=energy) -> None:
    """Symbolic proof of (a), (c)-(f); raises if a step fails."""
    # (a) N = 3, free symmetric K
    rate, v = _energy_rate(E, symmetric_matrix(3))
    assert_zero(rate + sum(vi**2 for vi in v), "(a) dE/dt = -|v|^2", simplify=_trig)
    assert_true((-sum(vi**2 for vi in v)).is_nonpositive, "(a) -|v|^2 <= 0")
    # (c) m = 0: m v' = F - v forces v = F
    Fs, vs, acc = sp.symbols("F v a", real=True)
    assert_zero(sp.solve(sp.Eq(0 * acc, Fs - vs), vs)[0] - Fs, "(c) v = F at m = 0")
    # (e) the block determinant, N = 2, free J
    J = sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"J{i}{j}", real=True))
    lam = sp.Symbol("lambda")
    A = sp.BlockMatrix(
        [[sp.zeros(2), sp.eye(2)], [-J / m, -sp.eye(2) / m]]
    ).as_explicit()
    lhs = (lam * sp.eye(4) - A).det()
    rhs = (m * lam**2 * sp.eye(2) + lam * sp.eye(2) + J).det() / m**2
    assert_zero(
        sp.expand(lhs - rhs),
        "(e) det(lambda I - A) = det(m lambda^2 + lambda + J) / m^N",
    )
    # (f) lambda = x + i y: Im(m lambda^2 + lambda + mu) = y (2 m x + 1), so y != 0 gives
    # x = -1/(2m) < 0; for y = 0 and x >= 0, m x^2 + x + mu > 0 (no root)
    x, y = sp.symbols("x y", real=True)
    mu = sp.Symbol("mu", positive=True)
    q = sp.expand(m * (x + sp.I * y) ** 2 + (x + sp.I * y) + mu)
    assert_zero(sp.im(q) - y * (2 * m * x + 1), "(f) imaginary part")
    assert_zero(sp.re(q) - (m * (x**2 - y**2) + x + mu), "(f) real part")
    assert_true((-1 / (2 * m)).is_negative, "(f) x = -1/(2m) < 0")
    xn = sp.Symbol("x_n", nonnegative=True)
    assert_true((m * xn**2 + xn + mu).is_positive, "(f) no real root x >= 0")
    # (f(ii)) mu = -nu < 0: lambda = (s - 1)/(2m) with s = sqrt(1 + 4 m nu) > 1 is a root
    nu = sp.Symbol("nu", positive=True)
    sq = sp.sqrt(1 + 4 * m * nu)
    rp = (sq - 1) / (2 * m)
    assert_zero(sp.expand(m * rp**2 + rp - nu), "(f(ii)) the root")
    # s > 1 since s^2 = 1 + 4 m nu > 1 and s >= 0
    assert_true((sq**2 - 1).is_positive and sq.is_nonnegative, "(f(ii)) s > 1")


def prove_needs_symmetry() -> None:
    """(a) is false for a free non-symmetric matrix: the hypothesis is needed."""
    K = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    rate, v = _energy_rate(energy, K)
    th = sp.symbols("theta0:3", real=True)
    # decided exactly: the remainder modulo sin^2 + cos^2 = 1 (0 iff the identity holds)
    assert_zero(
        rate + sum(vi**2 for vi in v),
        "(a) without symmetry",
        simplify=lambda e: pythagoras(sp.expand_trig(e), th),
    )


@check("symbolic")
def test_inertia_symbolic():
    prove()


@check("symbolic")
def test_energy_identity_needs_symmetry():
    assert_fails(prove_needs_symmetry, what="a non-symmetric coupling matrix")


@check("mutation")
def test_inertia_rejects_energy_without_half():
    assert_fails(prove, wrong_energy, what="the energy m sum v^2")


# ---------------------------------------------------------------- numeric
N = 4
_th = sp.symbols(f"t0:{N}", real=True)
_v = sp.symbols(f"u0:{N}", real=True)
_om = sp.symbols(f"w0:{N}", real=True)
_K = sp.MatrixSymbol("K", N, N)
_energy_numpy = sp.lambdify(
    [_th, _v, _K, m], energy(_th, _v, sp.Matrix(_K), m), "numpy"
)
_accel_numpy = sp.lambdify(
    [_th, _v, _om, _K, m],
    [(w + f - u) / m for w, f, u in zip(_om, force(_th, sp.Matrix(_K)), _v)],
    "numpy",
)


def compare(inertial_energy=None) -> None:
    import jax

    from syncattn import kuramoto

    inertial_energy = jax.jit(inertial_energy or kuramoto.inertial_energy)
    field = jax.jit(kuramoto.inertial_vector_field)
    g = rng("inertia")
    for _ in range(3 if CONFIG.quick else 20):
        theta, v, omega = g.uniform(-7, 7, N), g.normal(size=N), g.normal(size=N)
        mv = g.uniform(0.1, 3)
        M = g.normal(size=(N, N))
        for K, Kmat in ((M, M), (1.7, np.full((N, N), 1.7 / N))):
            th_dot, v_dot = field(theta, v, omega, K, mv)
            assert_close(th_dot, v, "theta' = v")
            assert_close(
                v_dot,
                np.array(_accel_numpy(list(theta), list(v), list(omega), Kmat, mv)),
                "v' = (omega + F - v)/m",
                atol=1e-11,
            )
            assert_close(
                inertial_energy(theta, v, K, mv),
                _energy_numpy(list(theta), list(v), Kmat, mv),
                "inertial_energy",
                atol=1e-11,
            )


@check("numeric")
def test_inertia_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_energy_without_half():
    from syncattn import kuramoto

    assert_fails(
        compare,
        lambda th, v, K, mv: (
            kuramoto.inertial_energy(th, v, K, mv) + 0.5 * mv * (v * v).sum(-1)
        ),
        what="the energy m sum v^2",
    )


def _energy_check(thetas, vs, ts, E):
    if np.max(np.diff(E)) > 1e-9 * max(1.0, np.max(np.abs(E))):
        raise AssertionError(f"energy increased by {np.max(np.diff(E)):.3g}")
    if not E[-1] < E[0]:
        raise AssertionError("energy did not decrease at all")
    v2 = np.sum(vs**2, -1)
    drop = np.sum((v2[1:] + v2[:-1]) / 2 * np.diff(ts))
    assert_close(E[0] - E[-1], drop, "E(0) - E(t1) = integral of |v|^2", rtol=2e-3)


@check("numeric")
def test_energy_never_increases_along_flow():
    """(a), (b) numerically: scipy DOP853 on the library's inertial field (omega = 0, K = K^T)."""
    import jax
    from scipy.integrate import solve_ivp

    from syncattn import kuramoto

    n, t1 = (8, 8.0) if CONFIG.quick else (32, 20.0)
    g = rng("inertial_descent")
    M = g.normal(size=(n, n)) / n
    K, mv = M + M.T, 0.7
    field = jax.jit(lambda th, v: kuramoto.inertial_vector_field(th, v, 0.0, K, mv))

    def rhs(_, y):
        a, b = field(y[:n], y[n:])
        return np.concatenate([np.asarray(a), np.asarray(b)])

    ts = np.linspace(0.0, t1, 401)
    y0 = np.concatenate([g.uniform(-np.pi, np.pi, n), g.normal(size=n)])
    sol = solve_ivp(
        rhs, (0.0, t1), y0, method="DOP853", t_eval=ts, rtol=1e-11, atol=1e-12
    )
    th, v = sol.y[:n].T, sol.y[n:].T
    E = np.asarray(kuramoto.inertial_energy(th, v, K, mv))
    _energy_check(th, v, ts, E)


@check("numeric", slow=True)
def test_energy_never_increases_along_inertial_simulate():
    """(g) the library's own solve."""
    from syncattn import kuramoto

    n = 6
    g = rng("inertial_simulate")
    M = g.normal(size=(n, n)) / n
    K, mv = M + M.T, 0.7
    sol = kuramoto.inertial_simulate(
        g.uniform(-np.pi, np.pi, n),
        0.0,
        K,
        8.0,
        mass=mv,
        velocity0=g.normal(size=n),
        saveat=401,
        rtol=1e-11,
        atol=1e-12,
    )
    E = np.asarray(kuramoto.inertial_energy(sol.theta, sol.velocity, K, mv))
    _energy_check(
        np.asarray(sol.theta), np.asarray(sol.velocity), np.asarray(sol.ts), E
    )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

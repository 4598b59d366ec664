r"""Statement 22: delayed Kuramoto, in-phase locking and its stability (Yeung-Strogatz).

Statement:
    For theta_i'(t) = omega + sum_j K_ij sin(theta_j(t - tau) - theta_i(t)) with every row
    sum sum_j K_ij = k (the mean field K_ij = k/N among them) and tau >= 0:
    (a) theta_i(t) = Omega t + c solves the flow iff Omega = omega - k sin(Omega tau);
    (b) linearised there, a perturbation phi obeys
        phi_i' = cos(Omega tau) sum_j K_ij (phi_j(t - tau) - phi_i(t));
    (c) for the mean field, exponential solutions phi = v e^{lambda t} are either zero-sum
        modes with lambda = -c, c = k cos(Omega tau) (they solve (b) exactly, decaying iff
        c > 0 and growing if c < 0), or the uniform mode with lambda + c = c e^{-lambda tau}
        (the characteristic determinant is (lambda + c - c e^{-lambda tau})(lambda + c)^{N-1});
    (d) when c > 0 the uniform mode's roots other than lambda = 0 (the phase shift) have
        Re lambda < 0; so a branch is linearly stable iff k cos(Omega tau) > 0 (N >= 2);
    (e) every locked frequency lies in [omega - |k|, omega + |k|], and
        g(Omega) = Omega - omega + k sin(Omega tau) has g' = 1 + k tau cos(Omega tau), so
        g is monotone between the closed-form turning points: bracketing each monotone
        piece finds every root (``delay_locked_frequencies``);
    (f) the cubic Hermite interpolant's midpoint is (y0 + y1)/2 + h (f0 - f1)/8, which
        the integrator uses; RK4 with it has global order 4 (measured);
    (g) a nearly in-phase start settles on a predicted stable branch (measured).

Proof idea:
    (a) On the in-phase state every delayed difference is -Omega tau, so the coupling is
        sin(-Omega tau) times the row sum; compare with the derivative Omega.
    (b) d/de sin(A + e p - (B + e q)) at e = 0 is cos(A - B)(p - q), A - B = -Omega tau.
    (c) The mean-field matrix (k/N) 1 1^T has eigenvalues k (uniform) and 0 (zero-sum).
        A zero-sum v kills the delayed average, leaving phi_i' = -c phi_i.
    (d) lambda = x + i y, x >= 0: |lambda + c|^2 = c^2 e^{-2 x tau} <= c^2, while
        |lambda + c|^2 = c^2 + 2 c x + x^2 + y^2; so 2 c x + x^2 + y^2 <= 0, x = y = 0.
    (e) |Omega - omega| = |k| |sin(Omega tau)|; differentiate g.
    (f) Solve for the cubic's coefficients and evaluate at h/2.

What is symbolic and what is numeric:
    Coq (proofs/coq/delay_locking.v, every N): (a), (b), the zero-sum modes of (c) and the
    classification of every exponential mode (uniform or zero-sum), (d),
    (e) and (f)'s algebra. Symbolic (sympy): (a) for N = 3 with a free matrix of equal row
    sums and the generic term; (b) for the generic term; (c) the characteristic determinant
    for N = 3 and the zero-sum solution; (d) the real/imaginary split and the modulus
    identity; (f) the Hermite midpoint. Numeric (float64): ``delay_vector_field`` on the
    locked state and its jax.jvp against the lambdified (a), (b);
    ``delay_locked_frequencies`` against the residual and the stability sign; the uniform
    mode's roots from scipy's Lambert W (lambda = W_k(c tau e^{c tau})/tau - c, 41
    branches) have Re lambda <= 0 for c > 0. Measured: the integrator's order on a linear
    delay equation with a closed-form solution; (slow) ``delay_simulate`` lands on a
    stable branch. Mutation: the proof rejects Omega = omega + k sin(Omega tau) and the
    uniform mode lambda = c(e^{-lambda tau} + 1); the comparison rejects flipped stability
    flags.

Mirrors: syncattn.kuramoto.delay_vector_field, syncattn.kuramoto.delay_simulate,
syncattn.kuramoto.delay_locked_frequencies.
Source: not a claim of the seeds; classical theory (M. K. S. Yeung and S. H. Strogatz,
PRL 82, 648 (1999); M. G. Earl and S. H. Strogatz, PRE 67, 036204 (2003)) that the delayed
simulator is validated against (issue 39 section 2).
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
    trig_zero,
)
from ._parts import Part


NUMBER = 22
TITLE = "Delayed Kuramoto: in-phase locking Omega = omega - K sin(Omega tau), stable iff K cos(Omega tau) > 0"
MIRRORS = (
    "syncattn.kuramoto.delay_vector_field",
    "syncattn.kuramoto.delay_simulate",
    "syncattn.kuramoto.delay_locked_frequencies",
)

PARTS = (
    Part(
        "a",
        "With equal row sums k, theta_i = Omega t + c solves the delayed flow iff Omega = omega - k sin(Omega tau).",
        "coq",
        coq="locked_state",
    ),
    Part(
        "b",
        "The linearisation about the locked state is phi_i' = cos(Omega tau) sum_j K_ij (phi_j(t - tau) - phi_i(t)).",
        "coq",
        coq="linearisation",
    ),
    Part(
        "c",
        "For the mean field, a zero-sum perturbation v e^{-k cos(Omega tau) t} solves the linearisation exactly (decays iff k cos(Omega tau) > 0).",
        "coq",
        coq="transverse_mode",
    ),
    Part(
        "c(ii)",
        "For the mean field with c = k cos(Omega tau) != 0 and every N, an exponential mode v e^{lambda t} (v != 0 complex) of the linearisation is either uniform with lambda + c = c e^{-lambda tau} or zero-sum with lambda + c = 0, and each such v is a mode.",
        "coq",
        coq="mode_classification",
    ),
    Part(
        "c(iii)",
        "For the mean field the characteristic determinant is (lambda + c - c e^{-lambda tau})(lambda + c)^{N-1} (with multiplicities).",
        "sympy",
        why="a determinant of an N x N matrix of exponentials: proved by sympy for N = 3; its zero set (every mode uniform or zero-sum) is c(ii), in Coq for every N, but the determinant with its multiplicities is not formalised (no matrices)",
    ),
    Part(
        "d",
        "If c > 0, the uniform mode's characteristic equation lambda + c = c e^{-lambda tau} has no root with Re lambda >= 0 but 0.",
        "coq",
        coq="uniform_mode_stable",
    ),
    Part(
        "e",
        "Every locked frequency lies in [omega - |k|, omega + |k|].",
        "coq",
        coq="roots_bounded",
    ),
    Part(
        "e(ii)",
        "g(Omega) = Omega - omega + k sin(Omega tau) has g' = 1 + k tau cos(Omega tau) (monotone between the closed-form turning points).",
        "coq",
        coq="residual_derivative",
    ),
    Part(
        "e(iii)",
        "delay_locked_frequencies returns every root in the interval with its stability flag.",
        "measured",
        why="a property of the library's floating-point bracketing and brentq refinement, checked against dense grids and tangencies",
    ),
    Part(
        "f",
        "The cubic Hermite interpolant's midpoint is (y0 + y1)/2 + h (f0 - f1)/8.",
        "coq",
        coq="hermite_midpoint",
    ),
    Part(
        "f(ii)",
        "delay_simulate's RK4 method of steps has global order 4.",
        "measured",
        why="a convergence rate of a floating-point scheme, measured on a linear delay equation with a closed-form solution",
    ),
    Part(
        "g",
        "A nearly in-phase start settles on a predicted stable branch.",
        "measured",
        why="a statement about a simulation's long-time behaviour (basins are not characterised)",
    ),
)
COQ_SPEC_SHA256 = "0d98fce6afa16a206a8f745b1ed794e22bd0642a657321ee7dc0a38ddcc1e24c"

t, tau, w, k, Om, c0, eps = sp.symbols("t tau omega k Omega c epsilon", real=True)
x, y = sp.symbols("x y", real=True)
lam, z = sp.symbols("lambda z")  # z stands for e^{-lambda tau}


def locked_frequency(w, k, tau, Om):
    """The locked-frequency equation's right side: omega - k sin(Omega tau)."""
    return w - k * sp.sin(Om * tau)


def wrong_locked_frequency(w, k, tau, Om):
    """Mutation: the sign of the coupling flipped."""
    return w + k * sp.sin(Om * tau)


def uniform_char(lam, c, z):
    """The uniform mode's characteristic function lambda + c - c e^{-lambda tau} (z = e^{-lambda tau})."""
    return lam + c - c * z


def wrong_uniform_char(lam, c, z):
    """Mutation: lambda = c (e^{-lambda tau} + 1)."""
    return lam - c - c * z


def _trig(e):
    return trig_zero(e)


def prove(locked=locked_frequency, char=uniform_char, n: int = 3) -> None:
    """Symbolic proof of (a)-(d), (f); raises if a step fails."""
    # (a) N = n, a free matrix with equal row sums k (last column fixed by the sum)
    Kf = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"K{i}{j}", real=True))
    Kf = Kf.copy()
    for i in range(n):
        Kf[i, n - 1] = k - sum(Kf[i, j] for j in range(n - 1))
    state = [Om * t + c0 for _ in range(n)]
    delayed = [s.subs(t, t - tau) for s in state]
    for i in range(n):
        field = w + sum(Kf[i, j] * sp.sin(delayed[j] - state[i]) for j in range(n))
        assert_zero(
            field - locked(w, k, tau, Om),
            f"(a) field on the locked state, i = {i}",
            simplify=_trig,
        )
    # ... and the derivative of the state is Omega: solution iff Omega = omega - k sin(Omega tau)
    assert_zero(sp.diff(state[0], t) - Om, "(a) d/dt (Omega t + c)")
    # (b) the generic term of the linearisation
    p, q = sp.symbols("p q", real=True)
    term = sp.sin(Om * (t - tau) + c0 + eps * p - (Om * t + c0 + eps * q))
    lin = sp.diff(term, eps).subs(eps, 0)
    assert_zero(lin - sp.cos(Om * tau) * (p - q), "(b) generic term", simplify=_trig)
    # (c) characteristic determinant of the mean field, N = n: phi' = c (P phi(t - tau) - phi)
    c = sp.Symbol("c", real=True)
    P = sp.ones(n, n) / n
    M = lam * sp.eye(n) - c * (P * z - sp.eye(n))
    assert_zero(
        sp.expand(M.det() - char(lam, c, z) * (lam + c) ** (n - 1)),
        "(c) det = (lambda + c - c z)(lambda + c)^(N-1)",
    )
    # zero-sum modes: v e^{-c t} with sum v = 0 solves the linearised mean field exactly
    v = sp.symbols(f"v0:{n}", real=True)
    vz = list(v[:-1]) + [-sum(v[:-1])]
    phi = [vi * sp.exp(-c * t) for vi in vz]
    for i in range(n):
        rhs = c * (sum(f.subs(t, t - tau) for f in phi) / n - phi[i])
        assert_zero(sp.diff(phi[i], t) - rhs, f"(c) zero-sum mode, i = {i}")
    # (d) lambda = x + i y: real and imaginary parts, then the modulus identity
    E = sp.exp(-x * tau)
    ch = sp.expand(
        char(x + sp.I * y, c, E * (sp.cos(y * tau) - sp.I * sp.sin(y * tau)))
    )
    re, im = sp.re(ch), sp.im(ch)
    assert_zero(re - (x + c - c * E * sp.cos(y * tau)), "(d) real part")
    assert_zero(im - (y + c * E * sp.sin(y * tau)), "(d) imaginary part")
    # on a root: (x + c)^2 + y^2 = c^2 e^{-2 x tau}, hence 2 c x + x^2 + y^2 = c^2 (E^2 - 1) <= 0
    A, B = c * E * sp.cos(y * tau), -c * E * sp.sin(y * tau)
    assert_zero(A**2 + B**2 - c**2 * E**2, "(d) |c e^{-lambda tau}|^2", simplify=_trig)
    # ... and e^{-2 x tau} <= 1 for x, tau >= 0 (exp is increasing; sympy cannot decide
    # it, Coq's uniform_mode_stable does), so 2 c x + x^2 + y^2 <= 0, which for c > 0 and
    # x >= 0 forces x = y = 0:
    xp, cp = sp.symbols("x_p c_p", positive=True)
    assert_true(
        (2 * cp * xp + xp**2 + y**2).is_positive, "(d) 2cx + x^2 + y^2 > 0 for x, c > 0"
    )
    # (f) the Hermite midpoint
    a0, a1, a2, a3, h = sp.symbols("a0:4 h", real=True)
    cub = a0 + a1 * t + a2 * t**2 + a3 * t**3
    y0, y1, f0, f1 = (
        cub.subs(t, 0),
        cub.subs(t, h),
        sp.diff(cub, t).subs(t, 0),
        sp.diff(cub, t).subs(t, h),
    )
    assert_zero(
        cub.subs(t, h / 2) - ((y0 + y1) / 2 + h * (f0 - f1) / 8), "(f) Hermite midpoint"
    )


@check("symbolic")
def test_locking_symbolic():
    prove()


@check("mutation")
def test_locking_rejects_flipped_coupling():
    assert_fails(prove, wrong_locked_frequency, what="Omega = omega + k sin(Omega tau)")


@check("mutation")
def test_locking_rejects_wrong_uniform_mode():
    assert_fails(
        prove,
        locked_frequency,
        wrong_uniform_char,
        what="lambda = c (e^{-lambda tau} + 1)",
    )


# ---------------------------------------------------------------- numeric
def compare(locked_frequencies=None) -> None:
    import jax
    import jax.numpy as jnp

    from syncattn import kuramoto

    locked_frequencies = locked_frequencies or kuramoto.delay_locked_frequencies
    g = rng("delay_locking")
    n = 4
    for trial in range(3 if CONFIG.quick else 10):
        wv, kv, tv = g.uniform(-2, 2), g.uniform(-3, 3), g.uniform(0, 4)
        roots, stable = locked_frequencies(wv, kv, tv)
        if len(roots) == 0:
            raise AssertionError("no locked frequency found (one always exists)")
        assert_close(
            roots - (wv - kv * np.sin(roots * tv)),
            np.zeros_like(roots),
            "(a) residual",
            atol=1e-12,
        )
        if not np.array_equal(np.asarray(stable), kv * np.cos(roots * tv) > 0):
            raise AssertionError("(d) stability flags differ from k cos(Omega tau) > 0")
        # (a) delay_vector_field on the locked state (dense matrix with row sums k)
        M = g.uniform(0, 1, (n, n))
        K = kv * M / M.sum(1, keepdims=True)
        Omv, cv, tt = roots[0], g.uniform(-3, 3), g.uniform(0, 5)
        theta = np.full(n, Omv * tt + cv)
        delayed = np.full(n, Omv * (tt - tv) + cv)
        assert_close(
            kuramoto.delay_vector_field(theta, delayed, wv, K),
            np.full(n, Omv),
            "(a) the field on the locked state is Omega",
            atol=1e-12,
        )
        # (b) the jvp of the field along a perturbation phi
        ph, ph_d = g.normal(size=n), g.normal(size=n)
        _, jv = jax.jvp(
            lambda a, b: kuramoto.delay_vector_field(a, b, wv, K),
            (jnp.asarray(theta), jnp.asarray(delayed)),
            (jnp.asarray(ph), jnp.asarray(ph_d)),
        )
        want = np.cos(Omv * tv) * (K @ ph_d - K.sum(1) * ph)
        assert_close(jv, want, "(b) linearisation", atol=1e-12)


@check("numeric")
def test_locking_matches_implementation():
    compare()


@check("mutation")
def test_comparison_rejects_flipped_stability():
    from syncattn import kuramoto

    def flipped(*a, **kw):
        roots, stable = kuramoto.delay_locked_frequencies(*a, **kw)
        return roots, ~stable

    assert_fails(compare, flipped, what="flipped stability flags")


@check("numeric")
def test_uniform_mode_roots_by_lambert_w():
    """(d) independently: lambda + c = c e^{-lambda tau} iff (lambda + c) tau e^{(lambda + c) tau}
    = c tau e^{c tau}, so lambda = W_k(c tau e^{c tau}) / tau - c over the branches k."""
    from scipy.special import lambertw

    g = rng("lambert")
    for _ in range(5 if CONFIG.quick else 50):
        cv, tv = g.uniform(0.05, 5), g.uniform(0.05, 5)
        arg = cv * tv * np.exp(cv * tv)
        lams = np.array([lambertw(arg, kb) / tv - cv for kb in range(-20, 21)])
        resid = lams + cv - cv * np.exp(-lams * tv)
        assert_close(
            np.abs(resid),
            np.zeros(len(lams)),
            "Lambert W roots solve the equation",
            atol=1e-8 * (1 + cv),
        )
        if np.max(lams.real) > 1e-10:
            raise AssertionError(
                f"a uniform-mode root with Re lambda > 0 at c = {cv}, tau = {tv}"
            )
        # the only root on the imaginary axis is 0 (the principal branch)
        if np.sum(np.abs(lams) < 1e-9) != 1:
            raise AssertionError(
                "lambda = 0 is not a (simple) root on the principal branch"
            )


@check("numeric")
def test_integrator_order_four():
    """(f(ii)) the integrator on y' = a y + b y(t - 1), y = h on t < 0, y(0) = y0 (a jump),
    against the method of steps' closed form on [0, 2]."""
    import jax.numpy as jnp

    from syncattn.kuramoto._delay import _integrate

    a, b, y0, h = -0.7, -1.3, 1.0, 0.4

    def exact(t):
        A = y0 + b * h / a
        y1 = A * np.exp(a * np.minimum(t, 1.0)) - b * h / a
        C = A * np.exp(a) - b * h / a - b * b * h / a**2
        s = t - 1.0
        y2 = C * np.exp(a * s) + b * A * s * np.exp(a * s) + b * b * h / a**2
        return np.where(t <= 1.0, y1, y2)

    errs = []
    for dt in (1 / 8, 1 / 16, 1 / 32):
        outs, _ = _integrate(
            lambda yv, D: a * yv + b * D,
            jnp.full((1, 1), y0),
            jnp.full((1, 1), h),
            int(round(1 / dt)),
            dt,
            int(round(2 / dt)),
            1,
            lambda yv: yv,
        )
        tt = np.arange(outs.shape[0]) * dt
        errs.append(np.max(np.abs(np.asarray(outs)[:, 0, 0] - exact(tt))))
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    if not np.all((orders > 3.8) & (orders < 4.3)):
        raise AssertionError(f"observed orders {orders} (errors {errs}), expected 4")


@check("numeric", slow=True)
def test_simulation_lands_on_a_stable_branch():
    import jax.numpy as jnp

    from syncattn import kuramoto

    roots, stable = kuramoto.delay_locked_frequencies(1.0, 1.5, 2.0)
    g = rng("landing")
    theta0 = 0.2 * g.normal(size=(6, 4))
    hist = theta0 + g.uniform(-2.5, 2.5, (6, 1))
    sol = kuramoto.delay_simulate(
        jnp.asarray(theta0),
        1.0,
        1.5,
        2.0,
        80.0,
        dt=0.05,
        history=jnp.asarray(hist),
        saveat=81,
    )
    th = np.asarray(sol.theta)
    freq = (th[-1] - th[-11]).mean(-1) / 10.0
    dist = np.abs(freq[:, None] - roots[None, :])
    if np.max(np.min(dist, axis=1)) > 1e-4 or not np.all(
        stable[np.argmin(dist, axis=1)]
    ):
        raise AssertionError(
            f"frequencies {freq} not on the stable branches of {roots}, {stable}"
        )


if __name__ == "__main__":
    raise SystemExit(run_module(globals()))

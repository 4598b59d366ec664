"""Tests for the delayed Kuramoto flow (kuramoto/_delay.py) against independent float64
computations: a double loop, closed-form solutions of a linear delay equation (method of
steps), a numpy Heun integration on a fine grid, brute-force root finding on a grid.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import sparse

from syncattn import kuramoto
from syncattn.kuramoto._delay import _integrate

from ..helpers import assert_close


def _loop_delayed(theta, delayed, omega, K, alpha=0.0):
    """omega_i + sum_j K_ij sin(D_ij - theta_i - alpha); D (n,) or (n, n): a double loop."""
    theta = np.asarray(theta, np.float64)
    n = theta.shape[-1]
    D = np.asarray(delayed, np.float64)
    out = np.array(np.broadcast_to(omega, theta.shape), np.float64)
    for i in range(n):
        for j in range(n):
            d = D[..., i, j] if D.ndim == theta.ndim + 1 else D[..., j]
            out[..., i] += K[i, j] * np.sin(d - theta[..., i] - alpha)
    return out


def _heun_reference(theta0, hist, omega, K, tau, t1, h):
    """Independent float64 reference: Heun (order 2) with step h dividing every delay,
    the whole past kept (delayed values read at grid points only: no interpolation)."""
    n = len(theta0)
    steps = int(round(t1 / h))
    lag = np.rint(np.broadcast_to(tau, (n, n)) / h).astype(int)
    ys = np.empty((steps + 1, n))
    ys[0] = theta0
    cols = np.arange(n)[None, :]

    def past(k):  # D_ij = theta_j(t_k - tau_ij); history for t < 0
        idx = k - lag
        return np.where(idx < 0, hist[cols], ys[np.maximum(idx, 0), cols])

    def f(y, D):
        return omega + np.sum(K * np.sin(D - y[:, None]), axis=1)

    for k in range(steps):
        y = ys[k]
        k1 = f(y, past(k))
        # the delayed value at t_{k+1}: its left limit for intervals in the history
        idx = k + 1 - lag
        D1 = np.where(idx <= 0, hist[cols], ys[np.maximum(idx, 0), cols])
        D1 = np.where(lag == 0, (y + h * k1)[cols], D1)
        k2 = f(y + h * k1, D1)
        ys[k + 1] = y + 0.5 * h * (k1 + k2)
    return ys


# --------------------------------------------------------------------------- the field


@pytest.mark.parametrize("pairwise", [False, True])
def test_delay_vector_field_matches_double_loop(pairwise):
    rng = np.random.default_rng(0)
    n = 5
    theta = rng.uniform(-7, 7, (2, n))
    D = rng.uniform(-7, 7, (2, n, n) if pairwise else (2, n))
    K = rng.normal(size=(n, n))
    omega = rng.normal(size=n)
    got = kuramoto.delay_vector_field(theta, D, omega, K, frustration=0.3)
    assert_close(got, _loop_delayed(theta, D, omega, K, 0.3), scale=10)
    # the scalar coupling is K_ij = K/N, in O(N) through the delayed order parameter
    got = kuramoto.delay_vector_field(theta, D, omega, 1.7)
    assert_close(
        got, _loop_delayed(theta, D, omega, np.full((n, n), 1.7 / n)), scale=10
    )
    if not pairwise:
        for g in (
            kuramoto.EdgeList.from_dense(K),
            sparse.BCOO.fromdense(jnp.asarray(K)),
        ):
            got = kuramoto.delay_vector_field(theta, D, omega, g)
            assert_close(got, _loop_delayed(theta, D, omega, K), scale=10)
    # no delay: the Kuramoto field itself
    same = theta[..., None, :] + 0 * D if pairwise else theta
    assert_close(
        kuramoto.delay_vector_field(theta, same, omega, K),
        kuramoto.vector_field(theta, omega, K),
        scale=10,
    )


# --------------------------------------------------------------------------- the integrator


def _linear_exact(t, a, b, y0, h):
    """y' = a y(t) + b y(t - 1), y = h on t < 0, y(0) = y0: the method of steps by hand.

    [0, 1]: y' = a y + b h, so y1 = (y0 + b h/a) e^{a t} - b h/a.
    [1, 2]: y' = a y + b y1(t - 1), a resonant exponential plus a constant:
    y2 = C e^{a s} + b (y0 + b h/a) s e^{a s} + b^2 h/a^2, s = t - 1, C = y1(1) - b^2 h/a^2.
    """
    A = y0 + b * h / a
    y1 = lambda s: A * np.exp(a * s) - b * h / a  # noqa: E731
    C = y1(1.0) - b * b * h / a**2
    s = t - 1.0
    y2 = C * np.exp(a * s) + b * A * s * np.exp(a * s) + b * b * h / a**2
    return np.where(t <= 1.0, y1(t), y2)


def _run_linear(dt, a=-0.7, b=-1.3, y0=1.0, h=0.4, t1=2.0, pairwise=False):
    steps = int(round(t1 / dt))
    m = int(round(1.0 / dt))
    lags = np.array([[m]]) if pairwise else m

    def field(y, D):
        return a * y + b * (D[..., 0] if pairwise else D)

    outs, final = jax.jit(
        lambda y0, hist: _integrate(field, y0, hist, lags, dt, steps, 1, lambda y: y)
    )(jnp.full((1, 1), y0), jnp.full((1, 1), h))
    return np.asarray(outs)[:, 0, 0]


@pytest.mark.parametrize(
    "pairwise", [False, pytest.param(True, marks=pytest.mark.slow)]
)
def test_integrator_has_order_four_on_a_linear_delay_equation(pairwise):
    """Measured global error on [0, 2] (the history jumps at t = 0) against the closed form:
    halving dt divides it by about 2^4."""
    errors = []
    for dt in (1 / 4, 1 / 8, 1 / 16, 1 / 32):
        ys = _run_linear(dt, pairwise=pairwise)
        t = np.arange(len(ys)) * dt
        errors.append(np.max(np.abs(ys - _linear_exact(t, -0.7, -1.3, 1.0, 0.4))))
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 3.8) & (orders < 4.3)), (errors, orders)
    assert errors[-1] < 1e-7


def test_integrator_is_exact_on_polynomial_pieces():
    """y' = -y(t - 1), y = 1 for t <= 0: y = 1 - t on [0, 1], 1 - t + (t - 1)^2 / 2 on
    [1, 2], minus (t - 2)^3 / 6 on [2, 3]; RK4 with Hermite interpolation is exact for
    such low-degree pieces (rounding only)."""
    dt = 0.25
    outs, _ = _integrate(
        lambda y, D: -D, jnp.ones((1, 1)), jnp.ones((1, 1)), 4, dt, 12, 1, lambda y: y
    )
    t = np.arange(13) * dt
    exact = (
        1
        - t
        + np.where(t > 1, (t - 1) ** 2 / 2, 0)
        - np.where(t > 2, (t - 2) ** 3 / 6, 0)
    )
    assert_close(np.asarray(outs)[:, 0, 0], exact, scale=10)


# --------------------------------------------------------------------------- delay_simulate


@pytest.mark.parametrize("kind", ["scalar", "matrix"])
def test_delay_simulate_matches_an_independent_heun_solve(kind):
    rng = np.random.default_rng(1)
    n = 4
    theta0 = rng.uniform(-np.pi, np.pi, n)
    hist = rng.uniform(-np.pi, np.pi, n)  # a jump at t = 0
    omega = rng.normal(size=n)
    K = rng.normal(size=(n, n)) + 1.0
    tau = 0.5 if kind == "scalar" else rng.integers(0, 5, (n, n)) * 0.25
    sol = kuramoto.delay_simulate(
        theta0, omega, K, tau, 3.0, dt=0.05, history=hist, saveat=7
    )
    ref = _heun_reference(theta0, hist, omega, K, tau, 3.0, 1e-3)
    # Heun at h = 1e-3 (error ~1e-6) against RK4 at dt = 0.05 (error ~1e-6): method bands
    np.testing.assert_allclose(sol.theta, ref[::500], atol=2e-5)
    assert_close(sol.ts, np.linspace(0, 3, 7))
    assert int(sol.num_steps) == 60
    assert_close(sol.final, sol.theta[-1])
    z = np.exp(1j * ref[::500]).mean(-1)
    assert_close(sol.order, z, scale=1e5)  # the phases' 2e-5
    assert_close(sol.r, np.abs(z), scale=1e5)


@pytest.mark.slow  # four compilations
def test_delay_simulate_converges_at_order_four():
    """Self-convergence on the Kuramoto flow (a delay matrix, dense coupling): the error
    against dt/16 falls by about 16 per halving."""
    rng = np.random.default_rng(2)
    n = 3
    theta0, omega = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
    K = rng.normal(size=(n, n))
    tau = np.array([[0.0, 0.5, 1.0], [0.5, 0.25, 0.0], [1.0, 0.75, 0.5]])

    def final(dt):
        return np.asarray(
            kuramoto.delay_simulate(
                theta0, omega, K, tau, 2.0, dt=dt, saveat=None
            ).final
        )

    ref = final(1 / 256)
    errors = [np.max(np.abs(final(dt) - ref)) for dt in (1 / 8, 1 / 16, 1 / 32)]
    orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
    assert np.all((orders > 3.6) & (orders < 4.5)), (errors, orders)


@pytest.mark.slow  # six compilations (about 6 s)
def test_coupling_forms_agree_and_zero_delay_is_the_ode():
    rng = np.random.default_rng(3)
    n = 5
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, (2, n)))
    omega = jnp.asarray(rng.normal(size=n))
    dense = np.full((n, n), 1.3 / n)
    kw = dict(dt=0.1, saveat=3)
    ref = kuramoto.delay_simulate(theta0, omega, 1.3, 0.7, 2.0, **kw)
    for K, tau in (
        (dense, 0.7),
        (dense, np.full((n, n), 0.7)),
        (1.3, np.full((n, n), 0.7)),
        (kuramoto.EdgeList.from_dense(dense), 0.7),
        (sparse.BCOO.fromdense(jnp.asarray(dense)), 0.7),
    ):
        got = kuramoto.delay_simulate(theta0, omega, K, tau, 2.0, **kw)
        assert_close(got.theta, ref.theta, scale=100)
    # tau = 0 is the undelayed flow (RK4 at dt = 0.01 against a tight Dopri5)
    ode = kuramoto.simulate(theta0, omega, 1.3, 2.0, saveat=3, rtol=1e-12, atol=1e-12)
    nodelay = kuramoto.delay_simulate(theta0, omega, 1.3, 0.0, 2.0, dt=0.01, saveat=3)
    np.testing.assert_allclose(nodelay.theta, ode.theta, atol=1e-9)


@pytest.mark.slow  # reverse mode through the scan: about 4 s of compilation
def test_delay_simulate_jit_and_grad():
    rng = np.random.default_rng(4)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, 4))

    def loss(K, th):
        return kuramoto.delay_simulate(th, 0.3, K, 0.5, 2.0, dt=0.1, saveat=None).r[-1]

    eager = loss(1.2, theta0)
    assert_close(jax.jit(loss)(1.2, theta0), eager)
    g = jax.grad(loss)(1.2, theta0)
    h = 1e-6
    fd = (loss(1.2 + h, theta0) - loss(1.2 - h, theta0)) / (2 * h)
    np.testing.assert_allclose(
        g, fd, rtol=1e-6, atol=1e-9
    )  # finite differences' O(h^2)


def test_delay_simulate_rejects_bad_input():
    th = jnp.zeros(3)
    with pytest.raises(ValueError, match="delay must be >= 0"):
        kuramoto.delay_simulate(th, 0.0, 1.0, -0.5, 1.0, dt=0.1)
    with pytest.raises(ValueError, match="delay must be finite"):
        kuramoto.delay_simulate(th, 0.0, 1.0, np.nan, 1.0, dt=0.1)
    with pytest.raises(
        ValueError, match=r"delay must be a whole number of steps dt.*dt=0\.0875"
    ):
        kuramoto.delay_simulate(th, 0.0, 1.0, 0.35, 1.0, dt=0.1)
    with pytest.raises(ValueError, match="t1 must be a whole number of steps"):
        kuramoto.delay_simulate(th, 0.0, 1.0, 0.5, 1.05, dt=0.1)
    with pytest.raises(ValueError, match=r"delay must be a scalar tau or an \(N, N\)"):
        kuramoto.delay_simulate(th, 0.0, 1.0, np.zeros(3), 1.0, dt=0.1)
    with pytest.raises(ValueError, match="history must be the constant past state"):
        kuramoto.delay_simulate(th, 0.0, 1.0, 0.5, 1.0, dt=0.1, history=jnp.zeros(2))
    with pytest.raises(ValueError, match="history must be finite"):
        kuramoto.delay_simulate(
            th, 0.0, 1.0, 0.5, 1.0, dt=0.1, history=jnp.array([0, np.nan, 0])
        )
    with pytest.raises(ValueError, match="dt must lie in"):
        kuramoto.delay_simulate(th, 0.0, 1.0, 0.5, 1.0, dt=0.0)
    with pytest.raises(ValueError, match="saveat - 1 must divide"):
        kuramoto.delay_simulate(th, 0.0, 1.0, 0.5, 1.0, dt=0.1, saveat=4)
    with pytest.raises(ValueError, match="theta0 must be finite"):
        kuramoto.delay_simulate(jnp.array([0.0, np.inf]), 0.0, 1.0, 0.5, 1.0, dt=0.1)
    with pytest.raises(ValueError, match="delay matrix needs a scalar or dense"):
        kuramoto.delay_simulate(
            th,
            0.0,
            kuramoto.EdgeList.from_dense(np.ones((3, 3))),
            np.ones((3, 3)),
            1.0,
            dt=0.5,
        )
    with pytest.raises(ValueError, match="delay must be concrete"):
        jax.jit(
            lambda tau: kuramoto.delay_simulate(th, 0.0, 1.0, tau, 1.0, dt=0.1).final
        )(0.5)
    with pytest.raises(ValueError, match="theta_delayed must have"):
        kuramoto.delay_vector_field(th, jnp.zeros(2), 0.0, 1.0)


# --------------------------------------------------------------------------- theory


def _grid_roots(w, K, tau, lo, hi, m=400_001):
    x = np.linspace(lo, hi, m)
    g = x - w + K * np.sin(x * tau)
    pos = g >= 0  # a root on a grid point counts once
    return x[:-1][pos[:-1] != pos[1:]]


@pytest.mark.parametrize(
    "w, K, tau",
    [
        (1.0, 1.5, 2.0),
        (0.3, -2.0, 3.0),
        (1.0, 4.0, 5.0),
        (0.5, 0.7, 1.0),
        (2.0, 1.0, 0.0),
    ],
)
def test_locked_frequencies_are_every_root(w, K, tau):
    roots, stable = kuramoto.delay_locked_frequencies(w, K, tau)
    grid = _grid_roots(w, K, tau, w - abs(K) - 1e-9, w + abs(K) + 1e-9)
    assert len(roots) == len(grid), (roots, grid)
    np.testing.assert_allclose(roots, grid, atol=1e-4)  # the grid's spacing
    np.testing.assert_allclose(roots - w + K * np.sin(roots * tau), 0, atol=1e-13)
    np.testing.assert_array_equal(stable, K * np.cos(roots * tau) > 0)
    # the roots of a sub-interval are those of the whole inside it
    sub, _ = kuramoto.delay_locked_frequencies(w, K, tau, interval=(w - 0.3, w + 0.3))
    np.testing.assert_allclose(sub, roots[np.abs(roots - w) <= 0.3])


def test_locked_frequencies_keep_a_tangency():
    """K tau = 2, cos(Omega tau) = -1/2 at Omega = 2 pi / 3 with omega chosen on it: a
    double root, which no sign change brackets."""
    K, tau = 2.0, 1.0
    star = 2 * np.pi / 3
    w = star + K * np.sin(star * tau)
    roots, _ = kuramoto.delay_locked_frequencies(w, K, tau)
    assert np.min(np.abs(roots - star)) < 1e-12
    with pytest.raises(ValueError, match="delay"):
        kuramoto.delay_locked_frequencies(1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="interval"):
        kuramoto.delay_locked_frequencies(1.0, 1.0, 1.0, interval=(2.0, 1.0))


def test_simulation_lands_on_a_predicted_stable_branch():
    """Yeung-Strogatz: omega = 1, K = 1.5, tau = 2 has three in-phase branches, the middle
    one unstable. Nearly in-phase starts (mean field, N = 4) settle on a stable one."""
    roots, stable = kuramoto.delay_locked_frequencies(1.0, 1.5, 2.0)
    assert len(roots) == 3 and list(stable) == [True, False, True]
    rng = np.random.default_rng(5)
    theta0 = jnp.asarray(0.2 * rng.normal(size=(6, 4)))
    hist = theta0 + jnp.asarray(
        rng.uniform(-2.5, 2.5, (6, 1))
    )  # the past's offset varies
    sol = kuramoto.delay_simulate(
        theta0, 1.0, 1.5, 2.0, 80.0, dt=0.05, history=hist, saveat=81
    )
    th = np.asarray(sol.theta)
    freq = (th[-1] - th[-11]).mean(-1) / 10.0  # the last 10 time units
    assert np.all(np.asarray(sol.r[-1]) > 0.9999)
    dist = np.abs(freq[:, None] - roots[None, :])
    landed = np.argmin(dist, axis=1)
    assert np.all(np.min(dist, axis=1) < 1e-4), (freq, roots)
    assert np.all(stable[landed]), (freq, roots)

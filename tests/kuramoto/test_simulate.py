"""Tests for syncattn.kuramoto against independent float64 computations."""

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.stats
from hypothesis import given
from jax.experimental import sparse

from syncattn import kuramoto

from .. import strategies
from ..helpers import approx, assert_close


def _loop_field(theta, omega, K, alpha=0.0):
    """Brute-force float64 double loop: omega_i + sum_j K_ij sin(theta_j - theta_i - alpha)."""
    theta = np.asarray(theta, np.float64)
    n = theta.shape[-1]
    out = np.array(np.broadcast_to(omega, theta.shape), dtype=np.float64)
    for i in range(n):
        for j in range(n):
            out[..., i] += K[i, j] * np.sin(theta[..., j] - theta[..., i] - alpha)
    return out


# --------------------------------------------------------------------------- vector field


@given(
    theta=strategies.phases(
        n=st.sampled_from([1, 3, 6]), batch=st.sampled_from([[], [2]])
    ),
    seed=strategies.seeds,
    alpha=st.floats(-1, 1),
)
def test_vector_field_dense_matches_double_loop(theta, seed, alpha):
    rng = np.random.default_rng(seed)
    n = theta.shape[-1]
    K = rng.normal(size=(n, n))
    omega = rng.normal(size=n)
    got = kuramoto.vector_field(theta, omega, K, frustration=alpha)
    assert_close(got, _loop_field(theta, omega, K, alpha), scale=10)


@given(
    theta=strategies.phases(
        n=st.sampled_from([1, 5]), batch=st.sampled_from([[], [2]])
    ),
    K=st.floats(-3, 3),
    seed=strategies.seeds,
)
def test_three_coupling_forms_agree(theta, K, seed):
    n = theta.shape[-1]
    omega = np.random.default_rng(seed).normal(size=n)
    dense = np.full((n, n), K / n)
    ref = _loop_field(theta, omega, dense)
    mean_field = kuramoto.vector_field(theta, omega, K)
    dense_out = kuramoto.vector_field(theta, omega, dense)
    edges = kuramoto.vector_field(theta, omega, kuramoto.EdgeList.from_dense(dense))
    bcoo = kuramoto.vector_field(
        theta, omega, sparse.BCOO.fromdense(jnp.asarray(dense))
    )
    for got in (mean_field, dense_out, edges, bcoo):
        assert_close(got, ref, scale=10)


def test_sparse_forms_match_directed_dense_graph():
    rng = np.random.default_rng(3)
    n = 11
    K = rng.normal(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.3)  # directed, sparse
    theta = rng.uniform(-np.pi, np.pi, size=(2, 3, n))
    omega = rng.normal(size=n)
    ref = _loop_field(theta, omega, K, 0.4)
    edges = kuramoto.EdgeList.from_dense(K)
    np.testing.assert_array_equal(edges.todense(), K)
    for c in (K, edges, sparse.BCOO.fromdense(jnp.asarray(K))):
        assert_close(kuramoto.vector_field(theta, omega, c, frustration=0.4), ref)


def test_vector_field_golden_and_row_convention():
    # oscillator 0 listens to 1 with weight 2, oscillator 1 listens to nobody
    K = np.array([[0.0, 2.0], [0.0, 0.0]])
    theta = np.array([0.0, np.pi / 2])
    assert_close(kuramoto.vector_field(theta, 0.0, K), [2.0, 0.0])
    # mean field: (K/N) sin(pi/2) and (K/N) sin(-pi/2)
    assert_close(kuramoto.vector_field(theta, 0.0, 2.0), [1.0, -1.0])


def test_vector_field_float32_preserved_and_bfloat16_runs():
    theta = jnp.linspace(0, 3, 8, dtype=jnp.float32)
    out = kuramoto.vector_field(theta, jnp.zeros(8, jnp.float32), 1.0)
    assert out.dtype == jnp.float32
    ref = _loop_field(np.asarray(theta, np.float64), 0.0, np.full((8, 8), 1 / 8))
    assert_close(out, ref)  # float32 tolerance (out is float32)
    out16 = kuramoto.vector_field(theta.astype(jnp.bfloat16), 0.0, 1.0)
    assert out16.dtype == jnp.bfloat16
    assert_close(out16, ref, scale=2.5)  # bfloat16: 8 bits of mantissa


def test_zero_coupling_is_free_rotation():
    theta = np.linspace(0, 1, 5)
    omega = np.arange(5.0)
    for c in (0.0, np.zeros((5, 5))):
        np.testing.assert_array_equal(kuramoto.vector_field(theta, omega, c), omega)


# --------------------------------------------------------------------------- attention identity


@given(
    seed=strategies.seeds, T=st.integers(1, 5), U=st.integers(1, 6), k=st.integers(1, 4)
)
def test_coupling_term_and_tangent_update_match_brute_force(seed, T, U, k):
    rng = np.random.default_rng(seed)
    tt = rng.uniform(-7, 7, size=(2, T, k))
    tu = rng.uniform(-7, 7, size=(2, U, k))
    A = rng.normal(size=(2, T, U))
    ref = np.zeros((2, T, k))
    for b in range(2):
        for t in range(T):
            for j in range(k):
                ref[b, t, j] = sum(
                    A[b, t, u] * np.sin(tu[b, u, j] - tt[b, t, j]) for u in range(U)
                )
    assert_close(kuramoto.coupling_term(tt, tu, A), ref, scale=10)
    G = np.einsum("btu,buk->btk", A, np.exp(1j * tu))
    assert_close(kuramoto.tangent_update(tt, G), ref, scale=10)
    assert_close(kuramoto.tangent_update(tt, (G.real, G.imag)), ref, scale=10)


def test_tangent_update_golden():
    assert float(kuramoto.tangent_update(0.0, 1j)) == 1.0
    assert float(kuramoto.tangent_update(np.pi / 2, 1.0 + 0j)) == approx(-1.0)


# --------------------------------------------------------------------------- energy


@given(
    theta=strategies.phases(n=st.integers(1, 6), batch=st.just([])),
    seed=strategies.seeds,
)
def test_coherence_energy_matches_loop_and_gradient_is_minus_field(theta, seed):
    n = theta.shape[-1]
    B = np.random.default_rng(seed).normal(size=(n, n))
    K = B + B.T
    ref = -0.5 * sum(
        K[i, j] * np.cos(theta[j] - theta[i]) for i in range(n) for j in range(n)
    )
    # a sum of n^2 <= 36 O(1) terms that may cancel: an absolute bound
    assert float(kuramoto.coherence_energy(theta, K)) - ref == approx(0.0, scale=10)
    g = jax.grad(lambda th: kuramoto.coherence_energy(th, K))(theta)
    assert_close(-g, _loop_field(theta, 0.0, K), scale=100)
    # scalar coupling: E = -(K N / 2) R^2
    R2 = np.abs(np.mean(np.exp(1j * np.asarray(theta)))) ** 2
    assert float(kuramoto.coherence_energy(theta, 1.7)) == approx(
        -1.7 * n / 2 * R2, scale=0.1
    )


def test_energy_never_increases_along_flow():
    rng = np.random.default_rng(0)
    n = 12
    B = rng.uniform(0, 1, size=(n, n))
    K = (B + B.T) / n
    theta0 = rng.uniform(-np.pi, np.pi, n)
    sol = kuramoto.simulate(theta0, 0.0, K, 20.0, saveat=201, rtol=1e-10, atol=1e-12)
    E = np.asarray(jax.vmap(lambda th: kuramoto.coherence_energy(th, K))(sol.theta))
    assert np.all(np.diff(E) <= 1e-10), np.diff(E).max()
    assert E[-1] < E[0] - 1e-3  # it actually descends


# --------------------------------------------------------------------------- simulate


def test_simulate_two_oscillators_closed_form():
    # N = 2, K_ij = K/2: phi = theta_2 - theta_1 obeys phi' = -K sin(phi): tan(phi/2) = tan(phi0/2) e^{-K t}
    K, phi0 = 1.3, 2.5
    sol = kuramoto.simulate(
        jnp.array([0.0, phi0]), 0.0, K, 4.0, saveat=41, rtol=1e-11, atol=1e-13
    )
    phi = np.asarray(sol.theta[:, 1] - sol.theta[:, 0])
    ts = np.asarray(sol.ts)
    exact = 2 * np.arctan(np.tan(phi0 / 2) * np.exp(-K * ts))
    # the solve's own error (rtol=1e-11 over t = 4), not rounding
    np.testing.assert_allclose(phi, exact, atol=1e-8)
    np.testing.assert_allclose(sol.r, np.abs(np.cos(exact / 2)), atol=1e-8)
    assert_close(sol.theta_final, sol.theta[-1])


def test_simulate_lorentzian_matches_theory():
    """N = 20000 Lorentzian oscillators (gamma = 0.5): r(K) = sqrt(1 - 2 gamma / K)."""
    N, gamma, t1 = 20000, 0.5, 50.0
    omega = kuramoto.sample_lorentzian(jax.random.key(0), (N,), gamma)
    theta0 = jax.random.uniform(jax.random.key(1), (N,), minval=-np.pi, maxval=np.pi)
    Ks = jnp.array([0.5, 1.5, 2.0, 3.0])

    def run(K):
        return kuramoto.simulate(
            theta0, omega, K, t1, saveat=101, save_phases=False, rtol=1e-4, atol=1e-6
        ).r

    r = np.asarray(jax.vmap(run)(Ks))
    r_avg = r[:, 50:].mean(axis=1)  # time average over the second half
    assert r_avg[0] < 0.05, r_avg
    theory = np.sqrt(1 - 2 * gamma / np.asarray(Ks[1:]))
    # finite N (fluctuations ~ N^{-1/2} = 0.007), a finite window and rtol=1e-4: the
    # band of the simulation, not rounding
    np.testing.assert_allclose(r_avg[1:], theory, atol=0.03)
    assert_close(kuramoto.lorentzian_order_parameter(Ks[1:], gamma), theory, scale=0.01)


def test_simulate_vmap_equals_batch_and_jit():
    rng = np.random.default_rng(1)
    theta0 = rng.uniform(-np.pi, np.pi, size=(3, 9))
    omega = rng.normal(size=9)
    kw = dict(saveat=5, rtol=1e-10, atol=1e-12)
    batched = kuramoto.simulate(theta0, omega, 1.2, 3.0, **kw).theta_final
    mapped = jax.vmap(
        lambda th: kuramoto.simulate(th, omega, 1.2, 3.0, **kw).theta_final
    )(theta0)
    jitted = jax.jit(
        lambda th: kuramoto.simulate(th, omega, 1.2, 3.0, **kw).theta_final
    )(theta0)
    # one step-size controller for the whole batch vs one per trajectory: the two
    # solves differ at the solver's tolerance (measured 1.6e-10), not at rounding
    np.testing.assert_allclose(batched, mapped, atol=1e-8)
    assert_close(jitted, batched)
    # against scipy's independent integrator
    ref = scipy.integrate.solve_ivp(
        lambda t, y: _loop_field(y, omega, np.full((9, 9), 1.2 / 9)),
        (0, 3),
        theta0[0],
        rtol=1e-11,
        atol=1e-12,
    ).y[:, -1]
    np.testing.assert_allclose(batched[0], ref, atol=1e-7)  # two solvers' errors


def test_grad_through_simulate_matches_finite_differences():
    rng = np.random.default_rng(2)
    theta0 = jnp.asarray(rng.uniform(-np.pi, np.pi, 6))
    omega = jnp.asarray(rng.normal(size=6))

    def loss(K, om):
        return kuramoto.simulate(
            theta0, om, K, 2.0, saveat=3, rtol=1e-11, atol=1e-12, max_steps=4096
        ).r[-1]

    gK, gom = jax.grad(loss, argnums=(0, 1))(1.5, omega)
    # central differences with h = 1e-5 over a solve to rtol 1e-11: O(h^2) plus the
    # solver's error / h, a method band
    fd_band = dict(rel=1e-5, abs=1e-8)
    h = 1e-5
    fdK = (loss(1.5 + h, omega) - loss(1.5 - h, omega)) / (2 * h)
    assert float(gK) == pytest.approx(float(fdK), **fd_band)
    e = jnp.zeros(6).at[2].set(h)
    fdom = (loss(1.5, omega + e) - loss(1.5, omega - e)) / (2 * h)
    assert float(gom[2]) == pytest.approx(float(fdom), **fd_band)


def test_simulate_float32_and_fixed_step():
    theta0 = jnp.linspace(-1, 1, 7, dtype=jnp.float32)
    sol = kuramoto.simulate(theta0, jnp.zeros(7, jnp.float32), 2.0, 1.0, saveat=3)
    assert sol.theta.dtype == jnp.float32 and sol.r.dtype == jnp.float32
    fixed = kuramoto.simulate(
        theta0.astype(jnp.float64),
        0.0,
        2.0,
        1.0,
        saveat=3,
        solver="heun",
        dt0=1e-3,
        rtol=None,
    )
    # Heun at dt = 1e-3 (error O(dt^2)) against a float32 adaptive solve: method error
    np.testing.assert_allclose(fixed.theta_final, sol.theta_final, atol=1e-4)


def test_simulate_sparse_graph_large_n_ring():
    """A 200,000-oscillator ring (each listens to both neighbours, O(N) memory).

    Linearised about sync, Fourier mode m of a small perturbation decays like
    exp(-2 (1 - cos(2 pi m / N)) t); with amplitude 1e-4 the nonlinear correction is
    O(1e-12), so the closed form is an independent reference for the edge-list path.
    """
    N, m, eps, t1 = 200_000, 25_000, 1e-4, 1.0  # m = N/8: rate 2 (1 - cos(pi/4))
    idx = np.arange(N)
    senders = np.concatenate([(idx + 1) % N, (idx - 1) % N])
    receivers = np.concatenate([idx, idx])
    g = kuramoto.EdgeList(
        jnp.asarray(senders), jnp.asarray(receivers), jnp.ones(2 * N), N
    )
    phase = 2 * np.pi * m * idx / N
    theta0 = jnp.asarray(eps * np.cos(phase))
    sol = kuramoto.simulate(
        theta0, 0.0, g, t1, saveat=None, save_phases=False, rtol=1e-9, atol=1e-13
    )
    rate = 2 * (1 - np.cos(2 * np.pi * m / N))
    exact = eps * np.exp(-rate * t1) * np.cos(phase)
    assert sol.theta_final.shape == (N,)
    assert_close(sol.theta_final, exact, scale=100)
    assert np.abs(np.asarray(sol.theta_final - theta0)).max() > 1e-5  # it moved


def test_simulate_rejects_bad_input():
    th = jnp.zeros(4)
    with pytest.raises(ValueError, match="t1"):
        kuramoto.simulate(th, 0.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="rtol"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, rtol=-1e-3)
    with pytest.raises(ValueError, match="solver"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, solver="rk99")
    with pytest.raises(ValueError, match="omega"):
        kuramoto.simulate(th, jnp.zeros(3), 1.0, 1.0)
    with pytest.raises(ValueError, match="theta0"):
        kuramoto.simulate(jnp.array([0.0, jnp.nan]), 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="dt0"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, solver="euler")
    with pytest.raises(ValueError, match="rtol=None"):
        kuramoto.simulate(th, 0.0, 1.0, 1.0, rtol=None)
    with pytest.raises(ValueError, match="G must be finite"):
        kuramoto.tangent_update(jnp.zeros(2), jnp.array([1j, jnp.nan]))
    with pytest.raises(ValueError, match="theta_t must be finite"):
        kuramoto.tangent_update(jnp.array([jnp.inf]), 1j)
    with pytest.raises(ValueError, match="r must be finite"):
        kuramoto.ott_antonsen_rhs(jnp.nan, 1.0, 0.5)


def test_vector_field_rejects_bad_input():
    th = jnp.zeros(4)
    with pytest.raises(ValueError, match=r"coupling.*\(N, N\)=\(4, 4\)"):
        kuramoto.vector_field(th, 0.0, jnp.ones((4, 3)))
    with pytest.raises(ValueError, match="coupling"):
        kuramoto.vector_field(th, 0.0, jnp.ones((3, 3)))
    with pytest.raises(ValueError, match="coupling"):
        kuramoto.vector_field(th, 0.0, jnp.array([[jnp.inf] * 4] * 4))
    with pytest.raises(ValueError, match="omega"):
        kuramoto.vector_field(th, jnp.ones(5), 1.0)
    with pytest.raises(ValueError, match="theta"):
        kuramoto.vector_field(jnp.zeros((2, 0)), 0.0, 1.0)
    with pytest.raises(ValueError, match="theta"):
        kuramoto.vector_field(jnp.array([jnp.inf]), 0.0, 1.0)
    with pytest.raises(ValueError, match="n=5"):
        kuramoto.vector_field(
            th, 0.0, kuramoto.EdgeList(jnp.array([0]), jnp.array([1]), jnp.ones(1), 5)
        )
    with pytest.raises(ValueError, match="receivers"):
        kuramoto.EdgeList(jnp.array([0]), jnp.array([7]), jnp.ones(1), 4)
    with pytest.raises(ValueError, match="A must have shape"):
        kuramoto.coupling_term(jnp.zeros((3, 2)), jnp.zeros((4, 2)), jnp.zeros((3, 3)))
    with pytest.raises(ValueError, match="non-empty"):
        kuramoto.coupling_term(jnp.zeros((3, 2)), jnp.zeros((0, 2)), jnp.zeros((3, 0)))


# --------------------------------------------------------------------------- theory


def test_critical_coupling_closed_forms():
    gamma = 0.7
    assert float(
        kuramoto.critical_coupling(scipy.stats.cauchy(scale=gamma).pdf(0))
    ) == approx(2 * gamma)
    assert float(
        kuramoto.critical_coupling(scipy.stats.uniform(-gamma, 2 * gamma).pdf(0))
    ) == approx(4 * gamma / np.pi)
    with pytest.raises(ValueError, match="g0"):
        kuramoto.critical_coupling(0.0)


def test_lorentzian_order_parameter_and_gradient_at_threshold():
    K = jnp.array([0.2, 1.0, 1.5, 4.0])
    np.testing.assert_allclose(
        kuramoto.lorentzian_order_parameter(K, 0.5),
        [0, 0, np.sqrt(1 / 3), np.sqrt(0.75)],
    )
    g = jax.grad(lambda k: kuramoto.lorentzian_order_parameter(k, 0.5))(1.0)
    assert np.isfinite(g)
    with pytest.raises(ValueError, match="gamma"):
        kuramoto.lorentzian_order_parameter(1.0, -0.1)


@pytest.mark.parametrize("K", [0.4, 1.0, 1.0 + 1e-12, 2.5])
def test_ott_antonsen_closed_form_vs_ode(K):
    gamma, r0 = 0.5, 0.05
    ts = np.linspace(0, 30, 31)
    ref = scipy.integrate.solve_ivp(
        lambda t, r: (K / 2 - gamma) * r - K / 2 * r**3,
        (0, 30),
        [r0],
        t_eval=ts,
        rtol=1e-12,
        atol=1e-14,
    ).y[0]
    # the closed form against scipy's solve (rtol=1e-12 over t = 30): solver error
    np.testing.assert_allclose(
        kuramoto.ott_antonsen(r0, K, gamma, ts), ref, rtol=1e-8, atol=1e-12
    )
    # the same polynomial evaluated twice: equal to a few ulps of its O(1) terms, an
    # absolute bound (the rhs cancels to ~0 near the fixed point)
    np.testing.assert_allclose(
        kuramoto.ott_antonsen_rhs(ref, K, gamma),
        (K / 2 - gamma) * ref - K / 2 * ref**3,
        atol=1e-15,
    )


def test_ott_antonsen_limits_and_grad():
    assert float(kuramoto.ott_antonsen(0.0, 3.0, 0.5, 10.0)) == 0.0
    # r(t) -> sqrt(1 - 2 gamma / K) at rate K - 2 gamma = 2: at t = 200, round-off only
    assert float(kuramoto.ott_antonsen(0.3, 3.0, 0.5, 200.0)) == approx(
        np.sqrt(1 - 1 / 3)
    )
    g = jax.grad(lambda K: kuramoto.ott_antonsen(0.1, K, 0.5, 5.0))(
        1.0
    )  # a = 0 exactly
    assert np.isfinite(g)
    with pytest.raises(ValueError, match="r0"):
        kuramoto.ott_antonsen(1.5, 1.0, 0.5, 1.0)


def test_lorentzian_frequencies_are_quantiles():
    w = np.asarray(kuramoto.lorentzian_frequencies(1001, 0.5, dtype=jnp.float64))
    cdf = scipy.stats.cauchy(scale=0.5).cdf(np.sort(w))
    assert_close(cdf, (np.arange(1, 1002) - 0.5) / 1001)
    s = kuramoto.sample_lorentzian(jax.random.key(0), (20000,), 0.5)
    assert (
        scipy.stats.kstest(np.asarray(s), scipy.stats.cauchy(scale=0.5).cdf).pvalue
        > 1e-3
    )


def test_simulate_saveat_conventions():
    th = jnp.array([0.0, 1.0])
    only_t1 = kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=None, rtol=1e-10, atol=1e-12)
    grid = kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=5, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(only_t1.ts, [2.0])
    np.testing.assert_allclose(grid.ts, [0.0, 0.5, 1.0, 1.5, 2.0])
    assert_close(only_t1.theta[-1], grid.theta[-1])  # saving a grid moves no step
    with pytest.raises(ValueError, match="saveat must be an int >= 2"):
        kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=1)
    with pytest.raises(ValueError, match="saveat times"):
        kuramoto.simulate(th, 0.0, 1.0, 2.0, saveat=jnp.array([0.0, 3.0]))


# ------------------------------------------------------- self-consistent order parameter
def test_self_consistent_order_parameter_closed_forms():
    import math

    from scipy import optimize

    # r solved by brentq on an integral from quad (epsrel 1e-10): r to about 1e-8, the
    # quadrature's accuracy, not rounding
    quad_atol = 1e-8
    lor = lambda w: 0.5 / (math.pi * (w * w + 0.25))  # gamma = 0.5: sqrt(1 - 1/K)
    for K in (1.01, 1.5, 3.0):
        got = kuramoto.self_consistent_order_parameter(K, lor)
        assert got == pytest.approx(math.sqrt(1 - 1 / K), abs=quad_atol)
    # uniform on [-1, 1]: with s = 1/(K r) <= 1, 1 = (K/2)(asin s + s sqrt(1 - s^2))
    uni = lambda w: 0.5 if abs(w) <= 1 else 0.0
    Kc = 4 / math.pi
    for K in (1.3, 2.0, 4.0):
        s = optimize.brentq(
            lambda s: K / 2 * (math.asin(s) + s * math.sqrt(1 - s * s)) - 1, 1e-12, 1.0
        )
        got = kuramoto.self_consistent_order_parameter(K, uni, breaks=(-1.0, 1.0))
        assert got == pytest.approx(1 / (K * s), abs=quad_atol)
    # r jumps to pi/4 at K_c (flat density): that limit, approached from 1e-9 above
    # K_c, to 1e-6 (a method band: the offset and the quadrature, not rounding)
    assert kuramoto.self_consistent_order_parameter(
        Kc * (1 + 1e-9), uni, breaks=(-1.0, 1.0)
    ) == pytest.approx(math.pi / 4, abs=1e-6)
    assert kuramoto.self_consistent_order_parameter(0.99 * Kc, uni) == 0.0
    gauss = lambda w: math.exp(-0.5 * w * w) / math.sqrt(2 * math.pi)
    assert kuramoto.self_consistent_order_parameter(1.5, gauss) == 0.0  # K_c = 1.596
    assert kuramoto.self_consistent_order_parameter(0.0, gauss) == 0.0
    with pytest.raises(ValueError, match="K must lie in"):
        kuramoto.self_consistent_order_parameter(-1.0, gauss)
    with pytest.raises(ValueError, match="density"):
        kuramoto.self_consistent_order_parameter(1.0, lambda w: 0.0)


@pytest.mark.parametrize("n", [999, 1000])  # both sides of the one-product threshold
def test_dense_field_large_n_matches_numpy(n):
    """Large dense couplings take the one-product path; batched K and theta too."""
    rng = np.random.default_rng(n)
    theta = rng.uniform(-np.pi, np.pi, (2, n))
    omega = rng.normal(size=n)
    K = rng.normal(size=(2, n, n)) / n
    # float64 numpy, the sine of every difference formed explicitly
    ref = omega + np.stack(
        [
            np.sum(K[b] * np.sin(theta[b][None, :] - theta[b][:, None] - 0.3), -1)
            for b in range(2)
        ]
    )
    got = kuramoto.vector_field(theta, omega, K, frustration=0.3)
    assert_close(got, ref)
    got_shared = kuramoto.vector_field(theta, omega, K[0], frustration=0.3)
    assert_close(got_shared[0], ref[0])

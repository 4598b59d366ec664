"""Tests for the Kuramoto-Daido harmonics (kuramoto/_daido.py) against float64 loops.

References: brute-force triple loops (tests/kuramoto/_daido_reference.py), numpy
eigenvalues of finite-difference Jacobians, scipy's solve_ivp, closed-form linear decay.
"""

import equinox as eqx
import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
from hypothesis import given
from jax.experimental import sparse

from syncattn import kuramoto
from syncattn.kuramoto import HarmonicCoupling

from .. import strategies
from ..helpers import approx, assert_close
from ._daido_reference import H, fd_jacobian, loop_daido


def _forms(K):
    return (K, kuramoto.EdgeList.from_dense(K), sparse.BCOO.fromdense(jnp.asarray(K)))


# --------------------------------------------------------------------------- coefficients


@given(coef=strategies.harmonics(order=st.sampled_from([1, 3])), phi=st.floats(-20, 20))
def test_complex_and_amplitude_forms_agree(coef, phi):
    a, alpha = coef
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    # c_m = a_m e^{-i alpha_m}: Im(c_m e^{i m phi}) = a_m sin(m phi - alpha_m)
    c = a * np.exp(-1j * alpha)
    assert_close(h.coefficients, c, scale=10)
    g = HarmonicCoupling.from_complex(c)
    assert float(h(phi)) == approx(float(H(phi, a, alpha)), scale=100)
    assert float(g(phi)) == approx(float(H(phi, a, alpha)), scale=100)
    dH = sum(m * am * np.cos(m * phi - al) for m, (am, al) in enumerate(zip(a, alpha), 1))
    assert float(h.derivative(phi)) == approx(float(dH), scale=100)
    # the amplitudes/frustrations read back give the same c (a negative a_m as |a_m|, alpha + pi)
    back = HarmonicCoupling.from_amplitudes(h.amplitudes, h.frustrations)
    assert_close(back.coefficients, c, scale=10)


def test_coefficient_golden_values_and_sign_convention():
    h = HarmonicCoupling.from_amplitudes(jnp.array([2.0]), jnp.array([0.5]))
    # H(phi) = 2 sin(phi - 0.5): H(0.5) = 0, H(0) = -2 sin(0.5) (the lag delays the pull)
    assert float(h(0.5)) == approx(0.0)
    assert float(h(0.0)) == approx(-2 * np.sin(0.5))
    assert complex(h.coefficients[0]) == approx(2 * np.exp(-0.5j))
    repulsive = HarmonicCoupling.from_amplitudes(jnp.array([-1.0]))
    assert float(repulsive.amplitudes[0]) == 1.0
    assert abs(float(repulsive.frustrations[0])) == approx(np.pi)
    assert HarmonicCoupling.from_complex(jnp.array([1.0, 0.0, 2j])).order == 3


def test_bad_coefficients_are_refused_with_the_argument_named():
    with pytest.raises(ValueError, match="amplitudes must be finite"):
        HarmonicCoupling.from_amplitudes(jnp.array([1.0, jnp.nan]))
    with pytest.raises(ValueError, match="frustrations must be finite"):
        HarmonicCoupling.from_amplitudes(jnp.array([1.0]), jnp.array([jnp.inf]))
    with pytest.raises(ValueError, match="amplitudes must be 1-D"):
        HarmonicCoupling.from_amplitudes(jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="amplitudes must be 1-D"):
        HarmonicCoupling.from_amplitudes(jnp.ones(0))
    with pytest.raises(ValueError, match="frustrations must be a scalar or have the shape"):
        HarmonicCoupling.from_amplitudes(jnp.ones(2), jnp.ones(3))
    with pytest.raises(ValueError, match="coefficients must be finite"):
        HarmonicCoupling.from_complex(jnp.array([1.0 + 1j, complex(np.nan, 0)]))
    with pytest.raises(ValueError, match="coefficients must be 1-D"):
        HarmonicCoupling.from_complex(jnp.ones((1, 2)))
    with pytest.raises(ValueError, match="real and imag must be 1-D"):
        HarmonicCoupling(jnp.ones(2), jnp.ones(3))
    with pytest.raises(ValueError, match="harmonics must be a HarmonicCoupling"):
        kuramoto.daido_coupling(jnp.zeros(3), jnp.ones((2, 2)))
    with pytest.raises(ValueError, match="frustration must be 0 when harmonics"):
        kuramoto.vector_field(jnp.zeros(3), 0.0, 1.0, frustration=0.2, harmonics=jnp.ones(1))
    with pytest.raises(ValueError, match="frustration must be 0 when harmonics"):
        kuramoto.simulate(jnp.zeros(3), 0.0, 1.0, 1.0, frustration=0.2, harmonics=jnp.ones(1))
    with pytest.raises(ValueError, match=r"coupling.*\(N, N\)=\(3, 3\)"):
        kuramoto.daido_coupling(jnp.zeros(3), jnp.ones(1), jnp.ones((3, 2)))
    with pytest.raises(ValueError, match="theta must be finite"):
        kuramoto.daido_coupling(jnp.array([jnp.nan]), jnp.ones(1))
    with pytest.raises(ValueError, match="G must have M=2 harmonics"):
        kuramoto.daido_update(jnp.zeros(3), jnp.ones((3, 1), complex), jnp.ones(2))
    with pytest.raises(ValueError, match="G's leading shape"):
        kuramoto.daido_update(jnp.zeros(3), jnp.ones((4, 1), complex), jnp.ones(1))
    with pytest.raises(ValueError, match="order must be a positive int"):
        kuramoto.daido_order_parameters(jnp.zeros(3), 0)
    with pytest.raises(ValueError, match="harmonic must be a positive int"):
        kuramoto.local_order_parameter(jnp.zeros(3), 1.0, harmonic=0)
    with pytest.raises(ValueError, match="axis=2 is out of range"):
        kuramoto.phase_locking_value(jnp.zeros((3, 2)), jnp.zeros(2), axis=2)
    with pytest.raises(ValueError, match="theta_b must be finite"):
        kuramoto.phase_locking_value(jnp.zeros(3), jnp.array([0.0, jnp.nan, 0.0]))
    with pytest.raises(ValueError, match="n must be a positive int"):
        kuramoto.in_phase_exponents(jnp.ones(1), 1.0)
    with pytest.raises(ValueError, match="fraction must lie in"):
        kuramoto.two_cluster_exponents(jnp.ones(1), 1.5, 1.0)


# --------------------------------------------------------------------------- the field


def test_daido_coupling_matches_triple_loop_on_every_form_golden():
    """The default run's case of the property below: N = 5, a batch of 2, M = 3."""
    rng = np.random.default_rng(10)
    theta = rng.uniform(-20, 20, (2, 5))
    coef = rng.normal(size=3), rng.uniform(-np.pi, np.pi, 3)
    test_daido_coupling_matches_triple_loop_on_every_form.hypothesis.inner_test(theta, coef, 11)


@pytest.mark.slow  # about 9 s: a compile per (N, batch, M, coupling form)
@given(
    theta=strategies.phases(n=st.sampled_from([1, 4]), batch=st.sampled_from([[], [2]])),
    coef=strategies.harmonics(order=st.sampled_from([1, 3])),
    seed=strategies.seeds,
)
def test_daido_coupling_matches_triple_loop_on_every_form(theta, coef, seed):
    a, alpha = coef
    rng = np.random.default_rng(seed)
    n = theta.shape[-1]
    K = rng.normal(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.7)  # directed, some zeros
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    ref = loop_daido(theta, 0.0, K, a, alpha)
    # sum of up to 5 x 4 terms of size <= |K a| m: an absolute bound in rounding units
    scale = 100 * max(1.0, float(np.abs(a).sum()))
    for form in _forms(K):
        assert_close(kuramoto.daido_coupling(theta, h, form), ref, scale=scale)
    Kc = float(rng.normal())
    assert_close(
        kuramoto.daido_coupling(theta, h, Kc),
        loop_daido(theta, 0.0, np.full((n, n), Kc / n), a, alpha),
        scale=scale,
    )
    omega = rng.normal(size=n)
    assert_close(
        kuramoto.vector_field(theta, omega, K, harmonics=h),
        loop_daido(theta, omega, K, a, alpha),
        scale=scale,
    )


@given(
    theta=strategies.phases(n=st.just(4), batch=st.sampled_from([[], [2, 3]])),
    alpha=st.floats(-np.pi, np.pi),
    seed=strategies.seeds,
)
def test_first_harmonic_is_the_sakaguchi_field_bit_for_bit(theta, alpha, seed):
    rng = np.random.default_rng(seed)
    n = theta.shape[-1]
    K = rng.normal(size=(n, n))
    omega = rng.normal(size=n)
    h = HarmonicCoupling.from_amplitudes(jnp.ones(1), jnp.array([alpha]))
    for form in (K, 1.7):  # the sparse forms: test_first_harmonic_sparse_forms_bit_for_bit
        np.testing.assert_array_equal(
            kuramoto.vector_field(theta, omega, form, harmonics=h),
            kuramoto.vector_field(theta, omega, form, frustration=alpha),
        )
    np.testing.assert_array_equal(
        kuramoto.daido_coupling(theta, h, K),
        kuramoto.vector_field(theta, 0.0, K, frustration=alpha),
    )


def test_first_harmonic_sparse_forms_bit_for_bit():
    rng = np.random.default_rng(12)
    theta, omega = rng.uniform(-5, 5, (2, 3, 4)), rng.normal(size=4)
    K = rng.normal(size=(4, 4)) * (rng.uniform(size=(4, 4)) < 0.6)
    h = HarmonicCoupling.from_amplitudes(jnp.ones(1), jnp.array([-0.7]))
    for form in _forms(K)[1:]:
        np.testing.assert_array_equal(
            kuramoto.vector_field(theta, omega, form, harmonics=h),
            kuramoto.vector_field(theta, omega, form, frustration=-0.7),
        )


def test_first_harmonic_simulation_is_the_sakaguchi_simulation_bit_for_bit():
    rng = np.random.default_rng(0)
    theta0, omega = rng.uniform(-np.pi, np.pi, (2, 5)), rng.normal(size=5)
    K = rng.uniform(size=(5, 5))
    h = HarmonicCoupling.from_amplitudes(jnp.ones(1), jnp.array([0.4]))
    a = kuramoto.simulate(theta0, omega, K, 1.0, saveat=3, frustration=0.4)
    b = kuramoto.simulate(theta0, omega, K, 1.0, saveat=3, harmonics=h)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert int(a.num_steps) == int(b.num_steps)


def test_mean_field_identity_with_daido_order_parameters():
    """Im(e^{-i m theta_i} c_m Z_m) = (a_m / N) sum_j sin(m (theta_j - theta_i) - alpha_m)."""
    rng = np.random.default_rng(1)
    theta = rng.uniform(-np.pi, np.pi, 9)
    a, alpha = rng.normal(size=3), rng.uniform(-np.pi, np.pi, 3)
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    Z = np.asarray(kuramoto.daido_order_parameters(theta, 3))
    assert_close(Z, [np.mean(np.exp(1j * m * theta)) for m in (1, 2, 3)])
    c = np.asarray(h.coefficients)
    via_Z = sum(np.imag(np.exp(-1j * m * theta) * c[m - 1] * Z[m - 1]) for m in (1, 2, 3))
    assert_close(via_Z, loop_daido(theta, 0.0, np.full((9, 9), 1 / 9), a, alpha), scale=10)
    assert_close(kuramoto.daido_coupling(theta, h), via_Z, scale=10)


def test_dtypes_float32_and_bfloat16():
    rng = np.random.default_rng(2)
    theta = jnp.asarray(rng.uniform(-3, 3, 6), jnp.float32)
    a, alpha = np.array([1.0, -0.5]), np.array([0.3, 1.1])
    h = HarmonicCoupling.from_amplitudes(a, alpha)  # float64 coefficients, cast to theta's dtype
    K = np.full((6, 6), 1 / 6)
    ref = loop_daido(np.asarray(theta, np.float64), 0.0, K, a, alpha)
    for form in _forms(K.astype(np.float32)):
        out = kuramoto.daido_coupling(theta, h, form)
        assert out.dtype == jnp.float32
        assert_close(out, ref, scale=10)
    assert_close(kuramoto.daido_coupling(theta, h, np.float32(1.0)), ref, scale=10)  # K_ij = 1/6
    out16 = kuramoto.daido_coupling(theta.astype(jnp.bfloat16), h, 1.0)
    assert out16.dtype == jnp.bfloat16
    assert_close(out16, ref, scale=5)  # bfloat16: 8 bits of mantissa, sums of 6 x 2 terms
    assert kuramoto.daido_order_parameters(theta, 2).dtype == jnp.complex64


def test_jit_vmap_and_grad_through_the_coefficients():
    rng = np.random.default_rng(3)
    theta = jnp.asarray(rng.uniform(-np.pi, np.pi, (3, 5)))
    K = jnp.asarray(rng.uniform(size=(5, 5)))
    h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, 0.4]), jnp.array([0.2, -0.3]))
    eager = kuramoto.daido_coupling(theta, h, K)
    assert_close(jax.jit(kuramoto.daido_coupling)(theta, h, K), eager)
    assert_close(jax.vmap(lambda th: kuramoto.daido_coupling(th, h, K))(theta), eager)
    # vmap over a stack of coefficient sets (one module per "head")
    hs = jax.tree.map(lambda *x: jnp.stack(x), h, HarmonicCoupling.from_complex(jnp.array([0.5j, 1.0])))
    both = jax.vmap(lambda hh: kuramoto.daido_coupling(theta, hh, K))(hs)
    assert_close(both[0], eager)

    def loss(hh):
        return jnp.sum(kuramoto.daido_coupling(theta, hh, K) ** 2)

    g = eqx.filter_grad(loss)(h)
    step = 1e-6
    for field in ("real", "imag"):
        for m in range(2):
            bump = lambda s: eqx.tree_at(lambda x: getattr(x, field), h, getattr(h, field).at[m].add(s))
            fd = (loss(bump(step)) - loss(bump(-step))) / (2 * step)
            # central differences, step 1e-6: O(step^2) plus rounding / step, a method band
            assert float(getattr(g, field)[m]) == pytest.approx(float(fd), rel=1e-6, abs=1e-7)


@pytest.mark.slow  # about 9 s: diffrax compiles for three coupling forms, float32 and a gradient
def test_simulate_with_harmonics_matches_scipy_and_grad_runs():
    rng = np.random.default_rng(4)
    n = 6
    theta0, omega = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
    K = rng.uniform(size=(n, n)) / n
    a, alpha = np.array([1.0, -0.8, 0.3]), np.array([0.1, 0.7, -1.2])
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    sol = kuramoto.simulate(theta0, omega, K, 2.0, saveat=None, harmonics=h, rtol=1e-10, atol=1e-12)
    ref = scipy.integrate.solve_ivp(
        lambda t, y: loop_daido(y, omega, K, a, alpha), (0, 2), theta0, rtol=1e-11, atol=1e-12
    ).y[:, -1]
    np.testing.assert_allclose(sol.theta_final, ref, atol=1e-7)  # two solvers' errors
    for form in _forms(K)[1:]:
        other = kuramoto.simulate(theta0, omega, form, 2.0, saveat=None, harmonics=h, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(other.theta_final, ref, atol=1e-7)

    def r_final(hh):
        return kuramoto.simulate(theta0, omega, 1.0, 1.0, saveat=None, harmonics=hh, rtol=1e-9, atol=1e-11).r[-1]

    g = eqx.filter_grad(r_final)(h)
    assert np.all(np.isfinite(np.asarray(g.real))) and float(jnp.abs(g.real).sum()) > 0
    f32 = kuramoto.simulate(
        jnp.asarray(theta0, jnp.float32), jnp.asarray(omega, jnp.float32), K.astype(np.float32),
        2.0, saveat=None, harmonics=h,
    )
    assert f32.theta.dtype == jnp.float32
    np.testing.assert_allclose(f32.theta_final, ref, atol=1e-4)  # float32 solve at rtol 1e-6


def test_daido_update_is_the_attention_form_of_the_coupling():
    """With G_m = sum_u A_tu e^{i m theta_u}: sum_m Im(c_m e^{-i m theta_t} G_m) = sum_u A_tu H(theta_u - theta_t)."""
    rng = np.random.default_rng(5)
    qt, ku = rng.uniform(-np.pi, np.pi, 4), rng.uniform(-np.pi, np.pi, 7)
    A = rng.uniform(size=(4, 7))
    a, alpha = np.array([0.7, 1.3, -0.2]), np.array([0.5, -0.1, 2.0])
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    G = np.stack([A @ np.exp(1j * m * ku) for m in (1, 2, 3)], axis=-1)
    ref = np.array([sum(A[t, u] * H(ku[u] - qt[t], a, alpha) for u in range(7)) for t in range(4)])
    assert_close(kuramoto.daido_update(qt, G, h), ref, scale=10)
    assert_close(kuramoto.daido_update(qt, (G.real, G.imag), h), ref, scale=10)
    # M = 1, c = 1: the Kuramoto tangent update
    assert_close(
        kuramoto.daido_update(qt, G[:, :1], jnp.ones(1)), kuramoto.tangent_update(qt, G[:, 0])
    )


# --------------------------------------------------------------------------- observables


def test_local_order_parameter_matches_loops_on_every_form():
    rng = np.random.default_rng(6)
    n = 7
    K = rng.normal(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.5)
    K[3] = 0.0  # an empty row: z = 0
    theta = rng.uniform(-np.pi, np.pi, (2, n))
    for m in (1, 2):
        W = np.abs(K)
        deg = W.sum(-1)
        ref = np.where(deg > 0, (np.exp(1j * m * theta) @ W.T) / np.where(deg > 0, deg, 1), 0)
        for form in _forms(K) if m == 2 else (K,):
            assert_close(kuramoto.local_order_parameter(theta, form, harmonic=m), ref)
        got = kuramoto.local_order_parameter(theta, 2.0, harmonic=m)
        assert_close(got, np.repeat(np.mean(np.exp(1j * m * theta), -1)[:, None], n, 1))
    assert np.all(np.abs(np.asarray(kuramoto.local_order_parameter(theta, K))) <= 1 + 1e-12)


def test_phase_locking_value():
    t = np.linspace(0, 20, 401)
    locked = kuramoto.phase_locking_value(3 * t + 1, 3 * t - 0.4)
    assert float(locked) == approx(1.0)
    # a uniformly drifting difference over whole periods: PLV = |mean e^{i t}| = 0
    tt = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    assert float(kuramoto.phase_locking_value(tt, 0.0 * tt)) == approx(0.0, scale=10)
    rng = np.random.default_rng(7)
    th = rng.uniform(-np.pi, np.pi, (50, 2, 4))
    M = kuramoto.phase_locking_value(th[:, :, :, None], th[:, :, None, :])
    ref = np.abs(np.mean(np.exp(1j * (th[:, :, :, None] - th[:, :, None, :])), axis=0))
    assert M.shape == (2, 4, 4)
    assert_close(M, ref)
    assert_close(np.diagonal(M, axis1=-2, axis2=-1), np.ones((2, 4)))


# --------------------------------------------------------------------------- theory


def test_in_phase_exponents_are_the_eigenvalues_of_the_field_jacobian():
    rng = np.random.default_rng(8)
    n = 6
    K = rng.uniform(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.6)  # directed
    a, alpha = np.array([1.0, -0.6, 0.25]), np.array([0.4, 0.9, -0.3])
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    J = fd_jacobian(lambda th: loop_daido(th, 0.0, K, a, alpha), np.full(n, 0.3))
    ev = np.sort_complex(np.linalg.eigvals(J))
    for form in _forms(K):
        got = np.sort_complex(np.asarray(kuramoto.in_phase_exponents(h, form)))
        np.testing.assert_allclose(got, ev, atol=1e-8)  # finite-difference Jacobian: a method band
    dH0 = sum(m * am * np.cos(al) for m, (am, al) in enumerate(zip(a, alpha), 1))
    mf = np.asarray(kuramoto.in_phase_exponents(h, 2.0, n=4))
    assert_close(np.sort(mf.real), np.sort([0.0] + [-2.0 * dH0] * 3), scale=10)
    assert_close(mf.imag, np.zeros(4), scale=10)


@pytest.mark.parametrize("p_num", [3, 4])  # N = 8: p = 3/8 and the balanced 1/2
def test_two_cluster_exponents_and_drift_match_the_full_jacobian(p_num):
    n = 8
    a, alpha = np.array([1.0, 0.9]), np.array([0.3, -0.5])
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    K = 1.4
    for gap in (np.pi, 2.1):
        theta = np.where(np.arange(n) < p_num, 0.2, 0.2 + gap)
        f = lambda th: loop_daido(th, 0.0, np.full((n, n), K / n), a, alpha)
        v = f(theta)
        p = p_num / n
        assert float(kuramoto.two_cluster_drift(h, p, gap, K)) == approx(v[-1] - v[0], scale=10)
        lam_a, lam_b, lam_c = np.asarray(kuramoto.two_cluster_exponents(h, p, gap, K))
        want = sorted([0.0, lam_c] + [lam_a] * (p_num - 1) + [lam_b] * (n - p_num - 1))
        got = np.sort(np.linalg.eigvals(fd_jacobian(f, theta)).real)
        np.testing.assert_allclose(got, want, atol=1e-8)  # finite-difference band


def test_biharmonic_balanced_antiphase_closed_form():
    for a1, al1, a2, al2 in ((1.0, 0.3, 0.8, -0.4), (-0.5, 1.0, 0.2, 2.0)):
        h = HarmonicCoupling.from_amplitudes(jnp.array([a1, a2]), jnp.array([al1, al2]))
        got = np.asarray(kuramoto.two_cluster_exponents(h, 0.5, np.pi, 1.5))
        want = [-2 * 1.5 * a2 * np.cos(al2)] * 2 + [-1.5 * (2 * a2 * np.cos(al2) - a1 * np.cos(al1))]
        assert_close(got, want, scale=10)
        assert float(kuramoto.two_cluster_drift(h, 0.5, np.pi, 1.5)) == approx(0.0, scale=10)


def test_in_phase_perturbation_decays_at_the_predicted_rate():
    """Ring of 10, H'(0) > 0: a Laplacian eigenvector perturbation decays like exp(-H'(0) lambda t)."""
    n, k, eps, t1 = 10, 2, 1e-5, 1.5
    idx = np.arange(n)
    K = np.zeros((n, n))
    K[idx, (idx + 1) % n] = K[idx, (idx - 1) % n] = 1.0
    a, alpha = np.array([1.0, 0.5]), np.array([0.0, 0.0])  # H(0) = 0, H'(0) = 2
    h = HarmonicCoupling.from_amplitudes(a, alpha)
    lam = 2 * (1 - np.cos(2 * np.pi * k / n))
    v = np.cos(2 * np.pi * k * idx / n)
    sol = kuramoto.simulate(eps * v, 0.0, kuramoto.EdgeList.from_dense(K), t1, saveat=None,
                            harmonics=h, rtol=1e-11, atol=1e-16)
    # the nonlinear correction is O(eps^2) relative: far below this band
    np.testing.assert_allclose(sol.theta_final, eps * np.exp(-2.0 * lam * t1) * v, rtol=1e-5, atol=1e-13)


def test_two_cluster_state_is_stable_above_and_unstable_below_the_threshold():
    """Balanced anti-phase, H = sin(phi) + a2 sin(2 phi): stable iff a2 > 1/2 (lambda_C = -K(2 a2 - 1))."""
    n = 8
    rng = np.random.default_rng(9)
    theta0 = np.where(np.arange(n) < n // 2, 0.0, np.pi) + 1e-3 * rng.normal(size=n)
    spread = []
    for a2 in (0.8, 0.3):
        h = HarmonicCoupling.from_amplitudes(jnp.array([1.0, a2]))
        sol = kuramoto.simulate(theta0, 0.0, 1.0, 20.0, saveat=None, harmonics=h)
        Z = np.asarray(kuramoto.daido_order_parameters(sol.theta_final, 2))
        spread.append((abs(Z[0]), abs(Z[1])))
    (r1_s, r2_s), (r1_u, r2_u) = spread
    assert r1_s < 1e-3 and r2_s > 1 - 1e-6  # stayed two anti-phase clusters
    assert r1_u > 0.99  # left them: collapsed to the in-phase state (H'(0) = 1 + 2 a2 > 0)

"""Tests for syncattn.torus against closed forms and float64 numpy loops."""

import math

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given

from syncattn import torus

from . import strategies
from .helpers import approx, assert_close


# few distinct shapes: every new shape costs a compilation
_phases = strategies.phases(n=st.sampled_from([1, 7]), batch=st.sampled_from([[], [3]]))


def _np_order_parameter(theta, w):
    """Brute-force float64 loop over the oscillators of one population."""
    num, den = 0j, 0.0
    for th, wj in zip(np.asarray(theta, float), np.asarray(w, float), strict=True):
        num += wj * complex(math.cos(th), math.sin(th))
        den += wj
    return num / den


# --- wrap / angle_diff / lift ---------------------------------------------------


@given(x=st.floats(-1e6, 1e6))
def test_wrap_range_and_representative(x):
    w = float(torus.wrap(x))
    assert -math.pi <= w < math.pi
    k = (x - w) / (2 * math.pi)  # x and wrap(x) differ by a multiple of 2 pi
    assert abs(k - round(k)) < 1e-9 * max(1.0, abs(x))
    # the reduction rounds to ~|x| eps <= 2e-10 at |x| <= 1e6: an absolute bound
    assert math.cos(w) - math.cos(x) == approx(0.0, scale=1e3)
    assert math.sin(w) - math.sin(x) == approx(0.0, scale=1e3)


@given(theta=_phases, k=st.integers(-5, 5))
def test_wrap_periodic(theta, k):
    w0, w1 = torus.wrap(theta), torus.wrap(theta + 2 * np.pi * k)
    d = np.abs(np.asarray(w1 - w0))
    assert np.all(np.minimum(d, 2 * np.pi - d) < 1e-12)


def test_wrap_identity_in_range_and_edges():
    x = np.array([-np.pi, -1.0, -1e-300, 0.0, 1e-10, 1.0, np.nextafter(np.pi, 0)])
    np.testing.assert_array_equal(np.asarray(torus.wrap(x)), x)
    assert float(torus.wrap(np.pi)) == -np.pi
    assert float(torus.wrap(-1e-20)) == -1e-20
    assert float(torus.wrap(3 * np.pi / 2)) == approx(-np.pi / 2, scale=1e-5)  # ulps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wrap_range_near_odd_multiples_of_pi(dtype):
    # the ulps around k pi are where rounding could leave [-pi, pi)
    xs = []
    for k in range(-40, 41):
        lo = hi = dtype(k * np.pi)
        xs.append(lo)
        for _ in range(3):
            lo, hi = np.nextafter(lo, dtype(-np.inf)), np.nextafter(hi, dtype(np.inf))
            xs += [lo, hi]
    x = np.array(xs, dtype)
    w = np.asarray(torus.wrap(x))
    assert w.dtype == dtype
    pi = dtype(np.pi)
    assert np.all(w >= -pi) and np.all(w < pi)
    # the wrap's rounding is absolute (it grows with |x|): compare the difference to 0
    assert_close(np.cos(w) - np.cos(x), 0.0)


def test_wrap_gradient_is_one():
    g = jax.vmap(jax.grad(torus.wrap))(jnp.array([-7.0, -1.0, 0.5, 2.0, 11.0]))
    np.testing.assert_array_equal(np.asarray(g), 1.0)


@given(
    a=strategies.phases(n=st.just(4), batch=st.just([2])),
    b=strategies.phases(n=st.just(4), batch=st.just([])),
)
def test_angle_diff_is_shortest_signed_angle(a, b):
    d = np.asarray(torus.angle_diff(a, b))
    a64, b64 = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
    assert np.all((d >= -np.pi) & (d < np.pi))
    # rotating b by d lands on a
    assert_close(np.cos(b64 + d), np.cos(a64))
    assert_close(np.sin(b64 + d), np.sin(a64))


def test_angle_diff_golden():
    # one subtraction and one wrap: a few ulp of the O(1) inputs
    assert float(torus.angle_diff(3.0, -3.0)) == approx(6.0 - 2 * np.pi, scale=1e-3)
    assert float(torus.angle_diff(0.1, 0.3)) == approx(-0.2, scale=1e-3)


@given(theta=_phases)
def test_lift(theta):
    z = torus.lift(theta)
    assert z.shape == (*theta.shape, 2)
    assert_close(z[..., 0], np.cos(np.asarray(theta)))
    assert_close(z[..., 1], np.sin(np.asarray(theta)))


# --- order parameter / circular mean ----------------------------------------------


def test_order_parameter_golden():
    z = torus.order_parameter(jnp.array([0.0, np.pi / 2]))
    assert z.dtype == jnp.complex128
    # two terms, a modulus and an angle: a few ulp
    assert abs(complex(z)) == approx(math.sqrt(2) / 2, scale=1e-5)
    assert float(jnp.angle(z)) == approx(math.pi / 4, scale=1e-5)
    assert float(torus.circular_mean(jnp.array([0.0, np.pi / 2]))) == approx(
        math.pi / 4, scale=1e-5
    )
    # identical phases: R = 1; three equally spaced: R = 0
    assert abs(complex(torus.order_parameter(jnp.full(5, 1.3)))) == approx(1.0)
    assert abs(complex(torus.order_parameter(2 * np.pi * jnp.arange(3) / 3))) < 1e-15


@given(theta=_phases, shift=st.floats(-20, 20))
def test_order_parameter_rotation_equivariant(theta, shift):
    z0, z1 = torus.order_parameter(theta), torus.order_parameter(theta + shift)
    assert_close(z1, z0 * np.exp(1j * shift))
    assert np.all(np.abs(np.asarray(z0)) <= 1 + 1e-12)


@given(theta=_phases, shift=st.floats(-20, 20))
def test_circular_mean_rotation_equivariant(theta, shift):
    R = np.abs(np.asarray(torus.order_parameter(theta)))
    psi0, psi1 = torus.circular_mean(theta), torus.circular_mean(theta + shift)
    ok = R > 1e-6  # the mean phase is ill-conditioned as R -> 0
    d = np.asarray(torus.angle_diff(psi1, psi0 + shift))
    assert np.all(np.abs(d[ok]) < 1e-8)


@given(seed=strategies.seeds, n=st.sampled_from([1, 6]), batch=st.just(2))
def test_weighted_order_parameter_vs_numpy_loop(seed, n, batch):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-10, 10, (batch, n))
    w = rng.uniform(0, 2, (batch, n))
    w[:, 0] += 0.1  # not all zero
    z = np.asarray(torus.order_parameter(theta, w))
    psi = np.asarray(torus.circular_mean(theta, w))
    for b in range(batch):
        ref = _np_order_parameter(theta[b], w[b])
        assert abs(z[b] - ref) < 1e-12
        if abs(ref) > 1e-8:
            assert abs(np.angle(np.exp(1j * (psi[b] - np.angle(ref))))) < 1e-10


def test_weights_broadcast_axis_and_unweighted_limit():
    rng = np.random.default_rng(0)
    theta = rng.uniform(-4, 4, (3, 5, 4))
    w = rng.uniform(0.1, 1, 5)
    # weights of shape (5, 1) broadcast along the last axis; oscillators on axis 1
    z = np.asarray(torus.order_parameter(theta, w[:, None], axis=1))
    for i in range(3):
        for k in range(4):
            assert abs(z[i, k] - _np_order_parameter(theta[i, :, k], w)) < 1e-12
    # constant weights = plain mean
    assert_close(
        torus.order_parameter(theta, np.full(theta.shape, 2.5)),
        torus.order_parameter(theta),
    )
    assert_close(torus.order_parameter(theta, axis=0), np.exp(1j * theta).mean(axis=0))


def test_zero_weight_ignores_oscillator():
    z = torus.order_parameter(
        jnp.array([0.0, 2.0, np.pi / 2]), jnp.array([1.0, 0.0, 1.0])
    )
    assert abs(complex(z) - (1 + 1j) / 2) < 1e-15


def test_circular_mean_at_zero_R_is_zero_with_finite_gradient():
    for theta in (
        jnp.array([0.0, np.pi]),
        jnp.array([0.3, 0.3 + np.pi]),
        jnp.arange(4) * np.pi / 2,
    ):
        assert float(torus.circular_mean(theta)) == 0.0
        g = jax.grad(torus.circular_mean)(theta)
        assert np.all(np.isfinite(np.asarray(g)))
    # traced all-zero weights give z = 0 (concrete ones raise, see below)
    f = jax.jit(lambda w: jnp.abs(torus.order_parameter(jnp.array([0.0, 1.0]), w)))
    assert float(f(jnp.zeros(2))) == 0.0


def test_circular_mean_gradient_vs_finite_differences():
    theta = jnp.array([0.2, 1.1, -0.4, 0.9])
    w = jnp.array([1.0, 0.5, 2.0, 0.3])
    f = lambda t: torus.circular_mean(t, w)
    g = np.asarray(jax.grad(f)(theta))
    h = 1e-6
    fd = [
        (float(f(theta.at[j].add(h))) - float(f(theta.at[j].add(-h)))) / (2 * h)
        for j in range(4)
    ]
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)  # central differences


def test_circular_mean_range():
    psi = torus.circular_mean(jnp.array([[np.pi, np.pi], [-np.pi, np.pi], [3.0, 3.2]]))
    assert np.all((np.asarray(psi) >= -np.pi) & (np.asarray(psi) < np.pi))
    assert float(psi[0]) == -np.pi


# --- dtypes --------------------------------------------------------------------


def test_float32_dtype_preserved():
    theta = jnp.array([[0.1, 2.0, -3.0], [1.0, 1.5, 4.0]], jnp.float32)
    w = jnp.array([1.0, 2.0, 0.5], jnp.float32)
    assert torus.wrap(theta).dtype == jnp.float32
    assert torus.angle_diff(theta, 1.0).dtype == jnp.float32
    assert torus.lift(theta).dtype == jnp.float32
    z = torus.order_parameter(theta)
    assert z.dtype == jnp.complex64
    assert torus.order_parameter(theta, w).dtype == jnp.complex64
    assert torus.circular_mean(theta, w).dtype == jnp.float32
    ref = np.exp(1j * np.asarray(theta, np.float64)).mean(-1)
    assert_close(z, ref, scale=0.1)  # complex64, |z| <= 1: atol 1e-6
    assert torus.wrap(jnp.array([1, 7])).dtype == jnp.float64  # ints -> default float
    # bfloat16 phases: computed in float32, returned in bfloat16
    psi = torus.circular_mean(theta.astype(jnp.bfloat16))
    assert psi.dtype == jnp.bfloat16
    ref = np.angle(np.exp(1j * np.asarray(theta, np.float64)).mean(-1))
    assert_close(psi, ref, scale=0.25)  # bfloat16, |psi| <= pi: at most 2e-2


# --- bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: torus.wrap(jnp.array([0.0, jnp.nan])), "theta"),
        (lambda: torus.wrap(jnp.array([1j])), "theta"),
        (lambda: torus.angle_diff(jnp.zeros(3), jnp.zeros(4)), "broadcastable"),
        (lambda: torus.lift(jnp.array([jnp.inf])), "theta"),
        (lambda: torus.order_parameter(jnp.zeros((2, 0))), "theta"),
        (lambda: torus.order_parameter(1.0), "theta"),
        (lambda: torus.order_parameter(jnp.zeros(3), axis=1), "axis"),
        (lambda: torus.order_parameter(jnp.zeros(3), jnp.ones(4)), "weights"),
        (lambda: torus.order_parameter(jnp.zeros(3), jnp.ones((2, 3))), "weights"),
        (
            lambda: torus.order_parameter(jnp.zeros(3), jnp.array([1.0, -1.0, 1.0])),
            "weights",
        ),
        (
            lambda: torus.order_parameter(
                jnp.zeros((2, 3)), jnp.array([[1.0, 0, 0], [0, 0, 0]])
            ),
            "weights",
        ),
        (
            lambda: torus.circular_mean(jnp.zeros(3), jnp.array([1.0, jnp.nan, 1.0])),
            "weights",
        ),
    ],
)
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_jit_and_vmap_agree_with_eager():
    rng = np.random.default_rng(5)
    theta = jnp.asarray(rng.uniform(-4, 4, (3, 7)))
    w = jnp.asarray(rng.uniform(0.1, 1, (3, 7)))
    eager = torus.circular_mean(theta, w)
    assert_close(jax.jit(torus.circular_mean)(theta, w), eager)
    assert_close(jax.vmap(torus.circular_mean)(theta, w), eager)
    assert_close(jax.jit(torus.wrap)(theta), torus.wrap(theta))

"""The fused CPU kernels of the lift, the bounded increment, the gated SiLU and RMSNorm
(syncattn._kernels: `torus_lift`, `bounded_add` in `sync.cc`; `gated_silu`, `rms_norm` in
`blocks.cc`) against their plain XLA compositions.

* The compositions `xla_torus_lift`, `xla_bounded_add`, `xla_gated_silu`, `xla_rms_norm`
  (float64) against independent numpy float64 computations from the formulas (np.cos and
  np.sin; tanh(rho)/rho row by row, rho = rms(u)/bound, 1 at u = 0; silu(a) b with
  sigma(a) = 1/(1 + exp(-a)); x w / sqrt(mean(x^2) + eps)), rows of zeros included.
  `torus_lift` in float32 (the kernel, and `xla_torus_lift`) on 500k points with
  |theta| <= 1e4 (a dense grid, uniform draws, the range [-4, 4]) within 1.2e-7 of the
  float64 cos and sin, and within 2.5e-7 of `syncattn._numerics.sincos` (the same
  reduction and polynomials; not bit for bit: see `test_torus_lift_float32_accuracy`).
* The kernels against the compositions in float32 under `jit`: values and the gradient
  of a weighted sum in every input, for widths k in 1..40 (across the 16-lane vector
  tails), rows not multiples of the 32- and 64-row work items, several leading batch
  axes, several bounds and eps (fixed cases in the default run, a small hypothesis
  search, a larger one `slow`); the degenerate rows: u = 0 exactly (theta' = theta bit
  for bit, the composition's finite gradients) and the bound's series branch
  (rho < 1e-3) for `bounded_add`, x = 0 rows for `rms_norm`, |a| = 80, 200, 1e4 for
  `gated_silu` (no NaN or inf, equal to the composition).
* `vmap` with an unbatched argument (rms_norm's weight: its gradient summed over the
  batch equals the composition's; bounded_add's theta; vmap over a non-leading axis).
* Bit-identical results run to run, forward and backward (several work items).
* Bad input raises ValueError naming the argument; float64, bfloat16, mixed dtypes and
  ``SYNCATTN_ATTENTION_KERNEL=0`` take the composition (no ffi target in the program,
  equal to it bit for bit).
* The layers `RMSNorm`, `SwiGLU`, `AngleSwiGLU`, `PrototypeReadout`, `LiftSwiGLU` (torus,
  and sphere with n = 4): the kernels are in their traced forward and gradient programs
  when on and absent when off; float32 outputs and parameter gradients with the kernels
  on equal those with them off; float64 and bfloat16 layers trace no kernel (bfloat16
  RMSNorm and AngleSwiGLU finite and near the float32 result).

Tolerances (float32, `helpers.assert_close`, rtol 1e-5 * `scale`, atol 1e-5 * `scale` *
max(1, the reference's largest entry)): values `scale=2`, gradients `scale=10` (rms_norm's
weight gradient sums over all rows); the layers alike. float64 compositions against numpy
at the float64 tolerance (rtol 1e-10, atol 1e-12). The lift's absolute bounds are stated
above. bfloat16 layers within the bfloat16 tolerance (2e-2) times 4 of the float32 layer.

Found while writing these: `xla_rms_norm` multiplies the weight (d,) into x (..., T, d)
by implicit rank promotion, so it (and `rms_norm` on float64, bfloat16, mixed dtypes or
with the kernels switched off) raises under `jax_numpy_rank_promotion="raise"`
(`test_xla_rms_norm_broadcasts_explicitly` fails until fixed; the other tests call it
with promotion allowed).
"""

import math

import equinox as eqx
import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

from syncattn import _kernels, nn
from syncattn._kernels import (
    _library,
    bounded_add,
    gated_silu,
    rms_norm,
    torus_lift,
    xla_bounded_add,
    xla_gated_silu,
    xla_rms_norm,
    xla_torus_lift,
)
from syncattn._numerics import sincos

from ..helpers import assert_close


pytestmark = pytest.mark.skipif(
    not _kernels.kernel_enabled(jnp.float32),
    reason=f"the CPU kernels are unavailable: {_kernels.status()['error']}",
)

F32 = jnp.float32
BF16 = jnp.bfloat16
TARGETS = ("syncattn_lift", "syncattn_bound", "syncattn_silu", "syncattn_rms")


def _close(got, want, scale):
    """float32 closeness: rtol = 1e-5 `scale`, atol = 1e-5 `scale` times the reference's
    largest entry (at least 1: the inputs are O(1), so a gradient that cancels to ~0 is
    held to their rounding)."""
    want = np.asarray(want)
    top = float(np.max(np.abs(want), initial=0.0))
    assert np.asarray(got).shape == want.shape
    assert_close(got, want, scale=scale, atol=1e-5 * scale * max(top, 1.0))


def _allowing(fn):
    """`fn` traced with implicit rank promotion allowed: `xla_rms_norm` multiplies the
    weight (d,) into x (..., T, d) implicitly (see test_xla_rms_norm_broadcasts_explicitly)."""

    def f(*a):
        with jax.numpy_rank_promotion("allow"):
            return fn(*a)

    return f


# --------------------------------------------------------------------------- inputs


def _rng(seed, *parts):
    return np.random.default_rng([seed, *parts])


def _normal(r, shape, s=1.0, dtype=F32):
    return jnp.asarray(s * r.standard_normal(shape), dtype)


def _lift_inputs(seed, shape, dtype=F32):
    """theta (..., k) in [-6, 6] and the cotangent of the lift (..., 2, k)."""
    r = _rng(seed, 1)
    theta = jnp.asarray(r.uniform(-6.0, 6.0, shape), dtype)
    return (theta,), (_normal(r, shape[:-1] + (2, shape[-1]), dtype=dtype),)


def _bound_inputs(seed, shape, s=1.0, dtype=F32):
    """theta, u (scale s) and the cotangent of theta', each (..., k)."""
    r = _rng(seed, 2)
    theta = jnp.asarray(r.uniform(-3.0, 3.0, shape), dtype)
    return (theta, _normal(r, shape, s, dtype)), (_normal(r, shape, dtype=dtype),)


def _silu_inputs(seed, shape, dtype=F32):
    """y (..., 2h) (a scale 3) and the cotangent (..., h)."""
    r = _rng(seed, 3)
    return (_normal(r, shape, 3.0, dtype),), (_normal(r, shape[:-1] + (shape[-1] // 2,),
                                                        dtype=dtype),)


def _rms_inputs(seed, shape, dtype=F32):
    """x (..., T, d), a weight (d,) around 1 and the cotangent of y."""
    r = _rng(seed, 4)
    x, ct = _normal(r, shape, 2.0, dtype), _normal(r, shape, dtype=dtype)
    w = jnp.asarray(1.0 + 0.5 * r.standard_normal(shape[-1:]), dtype)
    return (x, w), (ct,)


# ------------------------------------------------------------ float64 numpy formulas


def _np_lift(theta):
    t = np.asarray(theta, np.float64)
    return np.stack([np.cos(t), np.sin(t)], -2)


def _np_bounded_add(theta, u, bound):
    theta, u = np.asarray(theta, np.float64), np.asarray(u, np.float64)
    out = theta.copy()
    for idx in np.ndindex(u.shape[:-1]):
        rho = math.sqrt(float(np.mean(u[idx] ** 2))) / bound
        f = 1.0 if rho == 0 else math.tanh(rho) / rho
        out[idx] = theta[idx] + f * u[idx]
    return out


def _np_gated_silu(y):
    y = np.asarray(y, np.float64)
    h = y.shape[-1] // 2
    a, b = y[..., :h], y[..., h:]
    with np.errstate(over="ignore"):  # exp(-a) = inf at a << 0: sigma = 0
        sig = 1.0 / (1.0 + np.exp(-a))
    return a * sig * b


def _np_rms_norm(x, w, eps):
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    return x * w / np.sqrt(np.mean(x * x, -1, keepdims=True) + eps)


# -------------------------------------------- 1. the compositions against float64 numpy


def test_xla_torus_lift_is_cos_and_sin():
    (theta,), _ = _lift_inputs(0, (2, 3, 17), jnp.float64)
    theta = theta.at[0, 0].multiply(1e3)  # |theta| up to 6e3
    got = jax.jit(xla_torus_lift)(theta)
    assert got.shape == (2, 3, 2, 17)
    assert_close(got, _np_lift(theta))


def test_xla_bounded_add_is_the_formula():
    (theta, u), _ = _bound_inputs(1, (2, 7, 9), dtype=jnp.float64)
    u = u.at[0, 3].set(0.0).at[1, 2].multiply(1e-5).at[1, 5].multiply(40.0)
    for bound in (0.05, 1.0, 7.0):
        got = jax.jit(lambda t, v, b=bound: xla_bounded_add(t, v, b))(theta, u)
        want = _np_bounded_add(theta, u, bound)
        assert_close(got, want)
        np.testing.assert_array_equal(got[0, 3], theta[0, 3])
    # not vacuous: the bound shrinks the large rows
    assert not np.allclose(_np_bounded_add(theta, u, 0.05), theta + u)


def test_xla_gated_silu_is_the_formula():
    (y,), _ = _silu_inputs(2, (3, 5, 26), jnp.float64)
    y = y.at[0, 0, :4].set(jnp.asarray([80.0, -80.0, 200.0, -200.0]))
    got = jax.jit(xla_gated_silu)(y)
    assert got.shape == (3, 5, 13)
    assert_close(got, _np_gated_silu(y))


def test_xla_rms_norm_is_the_formula():
    (x, w), _ = _rms_inputs(3, (2, 9, 21), jnp.float64)
    x = x.at[1, 4].set(0.0)
    for eps in (1e-6, 0.5):
        got = jax.jit(_allowing(lambda x, w, e=eps: xla_rms_norm(x, w, e)))(x, w)
        assert_close(got, _np_rms_norm(x, w, eps))
        np.testing.assert_array_equal(got[1, 4], 0.0)


def test_xla_rms_norm_broadcasts_explicitly():
    """`xla_rms_norm` with the tests' `jax_numpy_rank_promotion="raise"` (a user's setting
    too): the weight (d,) must be broadcast against x (..., T, d) on purpose. This is what
    `rms_norm` returns on float64, bfloat16, mixed dtypes or with the kernels off.
    FAILS at the time of writing: `xf * inv * weight` promotes (d,) to x's rank implicitly."""
    (x, w), _ = _rms_inputs(3, (2, 9, 21), jnp.float64)
    try:
        got = jax.jit(lambda x, w: xla_rms_norm(x, w, 1e-6))(x, w)
        via_public = jax.jit(lambda x, w: rms_norm(x, w, 1e-6))(x, w)  # float64: the composition
    except ValueError as err:
        pytest.fail(f"xla_rms_norm relies on implicit rank promotion of the weight: {err}")
    assert_close(got, _np_rms_norm(x, w, 1e-6))
    assert_close(via_public, _np_rms_norm(x, w, 1e-6))


def test_torus_lift_float32_accuracy():
    """float32 on |theta| <= 1e4: a grid of 200,000 points (the ends included), 200,000
    uniform draws and 100,000 in [-4, 4]. The kernel and `xla_torus_lift` are within 1.2e-7 of the float64
    cos and sin (measured 2026: 6.9e-8 for the kernel; the composition 6.9e-8 at XLA's
    default optimisation level, 8.5e-8 at level 0, the default test run's); the kernel is
    within 2.5e-7 of `syncattn._numerics.sincos` under jit, not bit for bit (measured on
    these points: 5.96e-8 = 2^-24, 32 of the 1e6 outputs differ, at the default level;
    5.96e-8, 46,540 differ, at level 0, where XLA does not fuse the multiply-adds that
    the kernel's compiler does; 1.19e-7 at level 0 on another 500,001 points). The
    layout: cos on index 0 of the new axis, sin on 1."""
    r = _rng(4, 5)
    th = np.concatenate([
        np.linspace(-1e4, 1e4, 200_000),
        r.uniform(-1e4, 1e4, 200_000),
        r.uniform(-4.0, 4.0, 100_000),
    ]).astype(np.float32)
    theta = jnp.asarray(th.reshape(500, 1000))  # rows of 1000: 62 vectors of 16 and a tail of 8
    assert "syncattn_lift_forward" in str(jax.make_jaxpr(torus_lift)(theta))
    got, xla, (sn, cs) = jax.jit(lambda t: (torus_lift(t), xla_torus_lift(t), sincos(t)))(theta)
    want = _np_lift(theta)
    for x in (got, xla):
        assert x.shape == (500, 2, 1000) and x.dtype == F32
        err = np.abs(np.asarray(x, np.float64) - want)
        assert float(err.max()) <= 1.2e-7, float(err.max())
    np.testing.assert_allclose(got[:, 0], cs, rtol=0, atol=2.5e-7)
    np.testing.assert_allclose(got[:, 1], sn, rtol=0, atol=2.5e-7)



def test_torus_lift_past_the_fast_rounding():
    """Past |2 theta / pi| = 2^22 (|theta| > 6.59e6) the kernel rounds k = round(2 theta / pi)
    lane by lane instead of by the 1.5 * 2^23 trick (which rounds to even integers there):
    on 6.6e6 <= |theta| <= 3e7 it stays within 2e-3 of the float64 cos and sin of the
    float32 input (measured 2026: 1.8e-3, as `xla_torus_lift`; 0.74 before the lane-wise
    rounding), lanes below and above the threshold mixed in one vector; NaN and inf give
    NaN."""
    r = _rng(4, 6)
    big = r.uniform(6.6e6, 3e7, 16_000) * r.choice([-1.0, 1.0], 16_000)
    small = r.uniform(-4.0, 4.0, 16_000)
    th = np.stack([big, small], -1).reshape(1000, 32).astype(np.float32)  # mixed vectors
    got = np.asarray(jax.jit(torus_lift)(jnp.asarray(th)), np.float64)
    err = np.abs(got - _np_lift(jnp.asarray(th)))
    assert float(err.max()) <= 2e-3, float(err.max())
    assert float(err[..., 1::2].max()) <= 1.2e-7  # the small lanes keep their accuracy
    bad = jnp.asarray([[np.nan, np.inf, -np.inf, 1.0]], F32)
    out = np.asarray(jax.jit(torus_lift)(bad))
    assert np.isnan(out[0, :, :3]).all() and np.isfinite(out[0, :, 3]).all()


# ------------------------------------------------------ 2. the kernels against the compositions


def _jit_value_and_grads(fn, args, cts):
    """jit of (fn(*args), grad of <fn(*args), cts> in every argument)."""

    def loss(*a):
        out = fn(*a)
        return sum(jnp.vdot(o, c) for o, c in zip((out,), cts, strict=True)), out

    f = jax.jit(jax.value_and_grad(loss, tuple(range(len(args))), has_aux=True))
    (_, out), grads = f(*args)
    return out, grads


def _compare(kernel, xla, args, cts, target, check_jaxpr=True):
    """The kernel's value and gradients against the composition's; the kernel's target
    (forward and backward) in its traced programs."""
    if check_jaxpr:
        grad = jax.grad(lambda *a: jnp.vdot(kernel(*a), cts[0]), tuple(range(len(args))))
        assert f"{target}_forward" in str(jax.make_jaxpr(kernel)(*args))
        assert f"{target}_backward" in str(jax.make_jaxpr(grad)(*args))
    out, grads = _jit_value_and_grads(kernel, args, cts)
    want, want_grads = _jit_value_and_grads(_allowing(xla), args, cts)
    assert out.dtype == F32
    assert np.all(np.isfinite(np.asarray(out)))
    _close(out, want, scale=2)
    for g, w in zip(grads, want_grads, strict=True):
        assert g.dtype == F32
        assert np.all(np.isfinite(np.asarray(g)))
        _close(g, w, scale=10)
    return out, grads


def _check_lift(seed, shape, **kw):
    args, cts = _lift_inputs(seed, shape)
    return _compare(torus_lift, xla_torus_lift, args, cts, "syncattn_lift", **kw)


def _check_bound(seed, shape, bound, s=1.0, **kw):
    args, cts = _bound_inputs(seed, shape, s)
    return _compare(lambda t, u: bounded_add(t, u, bound),
                    lambda t, u: xla_bounded_add(t, u, bound), args, cts, "syncattn_bound", **kw)


def _check_silu(seed, shape, **kw):
    args, cts = _silu_inputs(seed, shape)
    return _compare(gated_silu, xla_gated_silu, args, cts, "syncattn_silu", **kw)


def _check_rms(seed, shape, eps, **kw):
    args, cts = _rms_inputs(seed, shape)
    return _compare(lambda x, w: rms_norm(x, w, eps), lambda x, w: xla_rms_norm(x, w, eps),
                    args, cts, "syncattn_rms", **kw)


@pytest.mark.parametrize("shape", [(70, 17), (2, 3, 11, 1), (33, 40), (5, 16)])
def test_torus_lift_equals_xla(shape):
    _check_lift(0, shape)


@pytest.mark.parametrize(
    "shape, bound, s",
    [((70, 17), 1.0, 1.0), ((2, 3, 11, 1), 0.3, 1.0), ((33, 40), 0.05, 3.0),
     ((4, 65, 16), 5.0, 0.5)],
)
def test_bounded_add_equals_xla(shape, bound, s):
    _check_bound(1, shape, bound, s)


@pytest.mark.parametrize("shape", [(70, 34), (2, 3, 11, 2), (33, 80), (4, 9, 32)])
def test_gated_silu_equals_xla(shape):
    _check_silu(2, shape)


@pytest.mark.parametrize(
    "shape, eps", [((70, 17), 1e-6), ((2, 3, 11, 1), 1e-2), ((33, 40), 1.0), ((3, 65, 16), 1e-5)]
)
def test_rms_norm_equals_xla(shape, eps):
    _check_rms(3, shape, eps)


_SHAPES = dict(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (2,), (2, 3)]),
    rows=st.integers(1, 70),
    k=st.integers(1, 40),
)


@settings(max_examples=10, deadline=None)
@given(which=st.sampled_from(["lift", "bound", "silu", "rms"]),
       bound=st.floats(0.05, 5.0), eps=st.sampled_from([1e-6, 1e-3, 0.5]), **_SHAPES)
def test_kernels_equal_xla_hypothesis(which, bound, eps, seed, batch, rows, k):
    """A small search over the four kernels (shape, bound, eps), traced programs not
    re-checked (the fixed cases do)."""
    shape = (*batch, rows, k)
    if which == "lift":
        _check_lift(seed, shape, check_jaxpr=False)
    elif which == "bound":
        _check_bound(seed, shape, bound, check_jaxpr=False)
    elif which == "silu":
        _check_silu(seed, (*batch, rows, 2 * k), check_jaxpr=False)
    else:
        _check_rms(seed, shape, eps, check_jaxpr=False)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(bound=st.floats(0.05, 5.0), s=st.sampled_from([1e-4, 1.0, 30.0]),
       eps=st.floats(1e-7, 2.0), **_SHAPES)
def test_kernels_equal_xla_outputs_and_gradients(bound, s, eps, seed, batch, rows, k):
    shape = (*batch, rows, k)
    _check_lift(seed, shape)
    _check_bound(seed, shape, bound, s)
    _check_silu(seed, (*batch, rows, 2 * k))
    _check_rms(seed, shape, eps)


def test_bounded_add_rows_with_zero_and_tiny_increments():
    """u = 0 exactly on rows 3 and 40: theta' = theta there bit for bit, and the
    gradients (the guarded rho = 0: du = dy) finite and equal to the composition's; rows
    with u ~ 1e-6 and 1e-3 (rho below 1e-3: the backward's series of f'(rho)/rho) against
    the float64 composition; a row of one nonzero entry."""
    (theta, u), (ct,) = _bound_inputs(5, (70, 19))
    u = (u.at[3].set(0.0).at[40].set(0.0).at[10].multiply(1e-6).at[11].multiply(1e-3)
         .at[12].set(0.0).at[12, 18].set(2.0))
    out, grads = _compare(lambda t, v: bounded_add(t, v, 0.8),
                          lambda t, v: xla_bounded_add(t, v, 0.8), (theta, u), (ct,),
                          "syncattn_bound")
    rows = jnp.array([3, 40])
    np.testing.assert_array_equal(out[rows], theta[rows])
    np.testing.assert_array_equal(grads[1][rows], ct[rows])  # f = 1, the u-term 0
    as64 = [a.astype(jnp.float64) for a in (theta, u, ct)]
    _, want64 = _jit_value_and_grads(lambda t, v: xla_bounded_add(t, v, 0.8), as64[:2], as64[2:])
    _close(grads[1][10:13], want64[1][10:13], scale=2)


def test_rms_norm_rows_of_zeros():
    """x = 0 rows (3 of them, in different batches and work items): y = 0 exactly, and
    the gradients finite and equal to the composition's (dx = w dy / sqrt(eps) there)."""
    (x, w), (ct,) = _rms_inputs(6, (2, 70, 23))
    x = x.at[0, 0].set(0.0).at[0, 33].set(0.0).at[1, 69].set(0.0)
    for eps in (1e-6, 0.1):
        out, grads = _compare(lambda x, w, e=eps: rms_norm(x, w, e),
                              lambda x, w, e=eps: xla_rms_norm(x, w, e), (x, w), (ct,),
                              "syncattn_rms", check_jaxpr=eps == 0.1)
        np.testing.assert_array_equal(out[0, 0], 0.0)
        np.testing.assert_array_equal(out[1, 69], 0.0)
        _close(grads[0][1, 69], w * ct[1, 69] / math.sqrt(eps), scale=2)


def test_gated_silu_at_large_arguments():
    """a = +-80, +-200, +-1e4 (e^{-|a|} far below float32's normal range; silu(a) = a or 0),
    with b of either sign and large: no NaN or inf, values and gradients equal to the
    composition's."""
    (y,), (ct,) = _silu_inputs(7, (40, 38))
    big = jnp.asarray([80.0, -80.0, 200.0, -200.0, 1e4, -1e4], F32)
    y = y.at[3, :6].set(big).at[20, 13:19].set(big)
    y = y.at[21, :6].set(big).at[21, 19:25].set(50.0 * jnp.sign(big))  # b = +-50
    out, grads = _compare(gated_silu, xla_gated_silu, (y,), (ct,), "syncattn_silu")
    assert float(out[3, 2]) == pytest.approx(200.0 * float(y[3, 21]), rel=1e-6)
    assert float(out[3, 3]) == 0.0


# -------------------------------------------------------------------------- 3. vmap, batch


def test_rms_norm_vmap_with_unbatched_weight():
    """jit of vmap over x (B, T, d) with the weight shared: values and the gradients
    (the weight's summed over the batch, shape (d,)) equal the composition's; and vmap
    over axis 1 of (T, B, d)."""
    (x, w), (ct,) = _rms_inputs(8, (3, 37, 21))

    def loss(fn):
        def total(x, w):
            return jnp.vdot(jax.vmap(lambda xb: fn(xb, w, 1e-5))(x), ct)

        return jax.jit(jax.value_and_grad(total, (0, 1))), total

    total = loss(rms_norm)[1]
    assert "syncattn_rms_forward" in str(jax.make_jaxpr(total)(x, w))
    assert "syncattn_rms_backward" in str(jax.make_jaxpr(jax.grad(total, 1))(x, w))
    val, grads = loss(rms_norm)[0](x, w)
    want, want_grads = loss(_allowing(xla_rms_norm))[0](x, w)
    _close(val, want, scale=10)
    assert grads[1].shape == w.shape
    for g, ww in zip(grads, want_grads, strict=True):
        _close(g, ww, scale=10)
    moved = jnp.moveaxis(x, 0, 1)
    one = lambda fn: jax.jit(jax.vmap(lambda xb: fn(xb, w, 1e-5), 1, 1))  # noqa: E731
    _close(one(rms_norm)(moved), one(_allowing(xla_rms_norm))(moved), scale=2)


def test_bounded_add_vmap():
    """vmap with theta shared (unbatched: its gradient the batch's sum) and u batched;
    both batched over axis 1; values and gradients equal the composition's."""
    (theta, u), (ct,) = _bound_inputs(9, (3, 37, 21))
    theta1 = theta[0]

    def loss(fn):
        def total(theta1, u):
            step = jax.vmap(lambda v: fn(theta1, v, 0.6))
            return jnp.vdot(step(u), ct)

        return jax.jit(jax.value_and_grad(total, (0, 1))), total

    total = loss(bounded_add)[1]
    assert "syncattn_bound_forward" in str(jax.make_jaxpr(total)(theta1, u))
    val, grads = loss(bounded_add)[0](theta1, u)
    want, want_grads = loss(xla_bounded_add)[0](theta1, u)
    _close(val, want, scale=10)
    assert grads[0].shape == theta1.shape
    _close(grads[0], jnp.sum(ct, 0), scale=2)
    for g, w in zip(grads, want_grads, strict=True):
        _close(g, w, scale=10)
    moved = [jnp.moveaxis(a, 0, 1) for a in (theta, u)]
    one = lambda fn: jax.jit(jax.vmap(lambda t, v: fn(t, v, 0.6), 1, 1))  # noqa: E731
    _close(one(bounded_add)(*moved), one(xla_bounded_add)(*moved), scale=2)


# --------------------------------------------------------------------------- 4. bit-stable


def test_bit_stable_run_to_run():
    """Forward and backward three times, bit for bit: many 32- and 64-row work items,
    rms_norm's weight gradient summed over them."""
    calls = [
        (torus_lift, *_lift_inputs(10, (6, 300, 33))),
        (lambda t, u: bounded_add(t, u, 0.7), *_bound_inputs(10, (6, 300, 33))),
        (gated_silu, *_silu_inputs(10, (6, 300, 66))),
        (lambda x, w: rms_norm(x, w, 1e-5), *_rms_inputs(10, (6, 300, 33))),
    ]
    for fn, args, (ct,) in calls:
        def both(*a, fn=fn, ct=ct):
            out, vjp = jax.vjp(fn, *a)
            return out, vjp(ct)

        f = jax.jit(both)
        first = jax.tree.map(np.asarray, f(*args))
        for _ in range(2):
            jax.tree.map(np.testing.assert_array_equal, first, f(*args))


# -------------------------------------------------------------------- 5. bad input, switch


def test_bad_shapes_name_the_arguments():
    with pytest.raises(ValueError, match="theta must have a last axis"):
        torus_lift(jnp.zeros((), F32))
    (theta, u), _ = _bound_inputs(11, (5, 4))
    with pytest.raises(ValueError, match="theta and u must have one shape"):
        bounded_add(theta, u[:, :3], 1.0)
    with pytest.raises(ValueError, match="theta and u must have one shape"):
        bounded_add(theta[0, 0], u[0, 0], 1.0)
    with pytest.raises(ValueError, match="y must have an even last axis"):
        gated_silu(jnp.zeros((4, 7), F32))
    with pytest.raises(ValueError, match="y must have an even last axis"):
        gated_silu(jnp.zeros((), F32))
    (x, w), _ = _rms_inputs(11, (5, 6))
    with pytest.raises(ValueError, match="x \\(..., T, d\\) and weight \\(d,\\) must agree"):
        rms_norm(x, w[:5], 1e-6)
    with pytest.raises(ValueError, match="x \\(..., T, d\\) and weight \\(d,\\) must agree"):
        rms_norm(x, jnp.ones((5, 6), F32), 1e-6)
    with pytest.raises(ValueError, match="x \\(..., T, d\\) and weight \\(d,\\) must agree"):
        rms_norm(x[0], w, 1e-6)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), True])
def test_bad_bound_and_eps_raise(bad):
    (theta, u), _ = _bound_inputs(12, (5, 4))
    with pytest.raises(ValueError, match="bound must be a finite number > 0"):
        bounded_add(theta, u, bad)
    (x, w), _ = _rms_inputs(12, (5, 6))
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        rms_norm(x, w, bad)


def _calls(dtype):
    """(public function, composition, arguments) of the four, in `dtype`."""
    lift, _ = _lift_inputs(13, (9, 19), dtype)
    bound, _ = _bound_inputs(13, (9, 19), dtype=dtype)
    silu, _ = _silu_inputs(13, (9, 38), dtype)
    rms, _ = _rms_inputs(13, (9, 19), dtype)
    return [
        (lambda t: torus_lift(t), xla_torus_lift, lift),
        (lambda t, u: bounded_add(t, u, 0.5), lambda t, u: xla_bounded_add(t, u, 0.5), bound),
        (lambda y: gated_silu(y), xla_gated_silu, silu),
        (_allowing(lambda x, w: rms_norm(x, w, 1e-5)),
         _allowing(lambda x, w: xla_rms_norm(x, w, 1e-5)), rms),
    ]


def _takes_the_composition(fn, xla, args):
    """No kernel in fn's forward or gradient program; equal to the composition exactly."""
    fwd = str(jax.make_jaxpr(fn)(*args))
    grad = str(jax.make_jaxpr(jax.grad(lambda *a: jnp.sum(fn(*a).astype(F32)),
                                       tuple(range(len(args)))))(*args))
    assert "syncattn_" not in fwd + grad
    np.testing.assert_array_equal(np.asarray(jax.jit(fn)(*args), np.float64),
                                  np.asarray(jax.jit(xla)(*args), np.float64))


@pytest.mark.parametrize("dtype", [jnp.float64, BF16])
def test_other_dtypes_take_the_composition(dtype):
    for (fn, _, args32), t in zip(_calls(F32), TARGETS, strict=True):
        assert f"{t}_forward" in str(jax.make_jaxpr(fn)(*args32))
    for fn, xla, args in _calls(dtype):
        _takes_the_composition(fn, xla, args)


def test_mixed_dtypes_take_the_composition():
    """float32 with a float64 partner (bounded_add's u, rms_norm's weight): no kernel."""
    (theta, u), _ = _bound_inputs(14, (6, 5))
    (x, w), _ = _rms_inputs(14, (6, 5))
    _takes_the_composition(lambda t, v: bounded_add(t, v, 0.5),
                           lambda t, v: xla_bounded_add(t, v, 0.5), (theta, u.astype(jnp.float64)))
    _takes_the_composition(_allowing(lambda x, w: rms_norm(x, w, 1e-5)),
                           _allowing(lambda x, w: xla_rms_norm(x, w, 1e-5)),
                           (x, w.astype(jnp.float64)))


def test_switched_off_takes_the_composition(monkeypatch):
    for (fn, _, args), t in zip(_calls(F32), TARGETS, strict=True):
        assert f"{t}_forward" in str(jax.make_jaxpr(fn)(*args))
    monkeypatch.setenv(_library.ENV, "0")
    for fn, xla, args in _calls(F32):  # fresh functions: traces are cached by function
        _takes_the_composition(fn, xla, args)


# ------------------------------------------------------------------------------- 6. layers


def _cast(module, dtype):
    return jax.tree.map(lambda a: a.astype(dtype) if eqx.is_inexact_array(a) else a, module)


def _run_layer(layer, states, ct):
    """One eqx.filter_jit (a fresh one: the switch is read at trace time) of the outputs
    over a batch (vmap) and the parameter gradient of <sin(outputs), ct>."""

    def loss(m):
        y = jax.vmap(m)(states)
        return jnp.vdot(jnp.sin(y), ct), y

    return eqx.filter_jit(lambda m: eqx.filter_grad(loss, has_aux=True)(m)[::-1])(layer)


def _layer_jaxprs(layer, states):
    """The traced program of the forward call and of the parameter gradient, as text."""
    fwd = jax.make_jaxpr(jax.vmap(layer))(states)
    params, static = eqx.partition(layer, eqx.is_inexact_array)
    grad = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jnp.sin(
        jax.vmap(eqx.combine(p, static))(states)))))(params)
    return str(fwd), str(grad)


def _theta(seed, shape, dtype=F32):
    return jnp.asarray(_rng(seed, 6).uniform(-math.pi, math.pi, shape), dtype)


def _rmsnorm(dtype=F32):
    layer = nn.RMSNorm(40, eps=1e-5)
    weight = jnp.asarray(1.0 + 0.3 * _rng(20, 7).standard_normal(40))
    layer = eqx.tree_at(lambda m: m.weight, layer, weight)
    x = 2.0 * _rng(20, 8).standard_normal((3, 37, 40))
    return _cast(layer, dtype), jnp.asarray(x, dtype)


def _swiglu(dtype=F32):
    layer = nn.SwiGLU(24, 20, key=jax.random.key(21))
    return _cast(layer, dtype), jnp.asarray(_rng(21, 8).standard_normal((3, 37, 24)), dtype)


def _angle(dtype=F32):
    layer = nn.AngleSwiGLU(17, 12, key=jax.random.key(22), bound=0.3)
    return _cast(layer, dtype), _theta(22, (3, 37, 17), dtype)


def _readout(dtype=F32):
    layer = nn.PrototypeReadout(19, 11, key=jax.random.key(23), scale=1.5)
    return _cast(layer, dtype), _theta(23, (3, 37, 19), dtype)


def _lift_torus(dtype=F32):
    layer = nn.LiftSwiGLU(9, 16, key=jax.random.key(24), bound=0.7, space="torus")
    return _cast(layer, dtype), _theta(24, (3, 37, 9), dtype)


def _lift_sphere(dtype=F32):
    layer = nn.LiftSwiGLU(5, 16, key=jax.random.key(25), bound=0.7, space="sphere", n=4)
    z = _rng(25, 8).standard_normal((3, 37, 5, 4))
    return _cast(layer, dtype), jnp.asarray(z / np.linalg.norm(z, axis=-1, keepdims=True), dtype)


# the layer, its block kernels in the forward program, and those in the parameter gradient's
# (the lift of the input angles has no backward there: the angles are not parameters)
LAYERS = {
    "rmsnorm": (_rmsnorm, ("rms",), ("rms",)),
    "swiglu": (_swiglu, ("silu",), ("silu",)),
    "angle_swiglu": (_angle, ("silu", "bound"), ("silu", "bound")),
    "prototype_readout": (_readout, ("lift",), ("lift",)),
    "lift_swiglu_torus": (_lift_torus, ("lift", "silu"), ("silu",)),
    "lift_swiglu_sphere": (_lift_sphere, ("silu",), ("silu",)),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_takes_the_kernels_and_equals_its_xla_path(name, monkeypatch):
    """float32 outputs and parameter gradients with the kernels on (checked in the traced
    forward and gradient programs) equal the pure-XLA path's (switched off: no kernel in
    either program), over a batch of 3."""
    build, fwd_targets, bwd_targets = LAYERS[name]
    layer, states = build()
    ct_shape = jax.eval_shape(jax.vmap(layer), states).shape
    ct = jnp.asarray(_rng(26, 9).standard_normal(ct_shape), F32)
    fwd, grad = _layer_jaxprs(layer, states)
    for t in fwd_targets:
        assert f"syncattn_{t}_forward" in fwd, t
    for t in bwd_targets:
        assert f"syncattn_{t}_backward" in grad, t
    got = _run_layer(layer, states, ct)
    monkeypatch.setenv(_library.ENV, "0")
    fwd, grad = _layer_jaxprs(layer, states)
    assert "syncattn_" not in fwd + grad
    want = _run_layer(layer, states, ct)
    (y, grads), (y_want, grads_want) = got, want
    assert y.dtype == F32
    _close(y, y_want, scale=2)
    leaves, want_leaves = jax.tree.leaves(grads), jax.tree.leaves(grads_want)
    assert len(leaves) == len(want_leaves) > 0
    for g, w in zip(leaves, want_leaves, strict=True):
        assert np.all(np.isfinite(np.asarray(g)))
        _close(g, w, scale=10)


@pytest.mark.parametrize("dtype", [jnp.float64, BF16])
def test_layers_in_other_dtypes_take_xla(dtype):
    """float64 and bfloat16 layers trace no kernel; bfloat16 RMSNorm and AngleSwiGLU are
    finite and within 4 bfloat16 units of the float32 layer (the kernels') on the same
    (rounded) inputs and parameters; float64 within float32 rounding of it."""
    for name, (build, _, _) in LAYERS.items():
        layer, states = build(dtype)
        jaxpr = str(jax.make_jaxpr(jax.vmap(layer))(states))
        assert "syncattn_" not in jaxpr, name
    for build in (_rmsnorm, _angle):
        layer, states = build(dtype)
        y = eqx.filter_jit(lambda m, s: jax.vmap(m)(s))(layer, states)
        assert y.dtype == dtype
        y32 = eqx.filter_jit(lambda m, s: jax.vmap(m)(s))(_cast(layer, F32), states.astype(F32))
        assert np.all(np.isfinite(np.asarray(y, np.float32)))
        if dtype == BF16:
            assert_close(y, y32, scale=4)
        else:
            _close(y, y32, scale=2)

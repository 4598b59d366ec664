"""The fused CPU kernels of the synchronisation layers (syncattn._kernels: `sync_features`,
`torus_step`, `sphere_step`, in `sync.cc`) against their plain XLA compositions.

* The compositions `xla_sync_features`, `xla_torus_step`, `xla_sphere_step` (float64)
  against independent numpy float64 loops written from the formulas (sync.cc's header:
  softplus gates divided by their mean, planes (2p, 2p+1) turned by t w_pj; the torus
  coupling as Im(c e^{-i theta} (G0 + i G1)) in complex arithmetic, the bound
  tanh(rho)/rho; the sphere's exponential map column by column), and against the
  layers' own compositions (`tangent_step` on the `Torus`, `Sphere.fused_step`).
* The kernels against the compositions in float32 under `jit`: values and the gradient
  of a weighted sum in every input (hypothesis over T, k across the 16-lane and
  16-token blocks, m, the planes P (P = 0 included), gate, per-head coefficients,
  bound, gate_norm, leading batch axes); rows with u = 0 exactly (the bound's and the
  exponential map's guarded points) give the composition's finite gradients.
* `vmap` with unbatched arguments (rates and scale; the coefficients; G), whose
  gradient is the composition's; explicit leading batch axes.
* Bit-identical results run to run, forward and backward.
* Bad input (shapes, bound, gate_norm) raises ValueError naming the arguments; float64
  and ``SYNCATTN_ATTENTION_KERNEL=0`` take the composition exactly.
* The layers (`KuramotoAttention`, `SphereAttention` n = 4 with drift "planes",
  `FrustratedAttention.from_kuramoto` with c = 1 and with learned c): the kernels are
  in their traced programs when enabled, and their float32 outputs and parameter
  gradients equal the pure-XLA path's (kernel switched off), with and without a
  key-padding mask; `from_kuramoto` is bit for bit the Kuramoto layer with the kernels on.

Tolerances (float32, `helpers.assert_close`, rtol 1e-5 * `scale`, atol 1e-5 * `scale` *
max(1, the reference's largest entry)): values `scale=2`, gradients `scale=10` (sums over
up to T tokens, the drift rates' weighted by t), the layers alike (measured 2026: the
kernels within 0.07 and 0.9 of those units, the layers within 0.02 and 0.2). float64
compositions against the loops at the float64 tolerance. Default run: fixed cases that
cross the 16-lane and 16-token blocks; the hypothesis searches are `slow`.

Found while writing these and fixed: the compositions promoted the shared rates and
coefficients against leading batch axes implicitly
(`test_xla_compositions_broadcast_explicitly`), and the features' backward overflowed
where a row's mean softplus is below about 1e-19
(`test_features_gradient_at_tiny_gate_means_is_finite`).
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
    sphere_step,
    sync_features,
    torus_step,
    xla_sphere_step,
    xla_sync_features,
    xla_torus_step,
)
from syncattn.geometry import Sphere, Torus
from syncattn.nn._sync_attention import tangent_step

from ..helpers import assert_close


pytestmark = pytest.mark.skipif(
    not _kernels.kernel_enabled(jnp.float32),
    reason=f"the CPU kernels are unavailable: {_kernels.status()['error']}",
)

F32 = jnp.float32
TARGETS = ("syncattn_features", "syncattn_torus", "syncattn_sphere")


def _close(got, want, scale):
    """float32 closeness: rtol = 1e-5 `scale`, atol = 1e-5 `scale` times the reference's
    largest entry (at least 1: the inputs are O(1), so a gradient that cancels to ~0 is
    held to their rounding)."""
    want = np.asarray(want)
    top = float(np.max(np.abs(want), initial=0.0))
    assert np.asarray(got).shape == want.shape
    assert_close(got, want, scale=scale, atol=1e-5 * scale * max(top, 1.0))


# --------------------------------------------------------------------------- inputs


def _rng(seed, *parts):
    return np.random.default_rng([seed, *parts])


def _features_inputs(seed, batch, T, m, k, P, dtype=F32):
    """(x, zq, zk, rates, scale) and the cotangents of (q, k); numpy draws (no compiles)."""
    r = _rng(seed, 1)
    a = lambda *shape, s=1.0: jnp.asarray(s * r.standard_normal(shape), dtype)  # noqa: E731
    x, zq, zk = a(*batch, T, m, k), a(*batch, T, k, s=1.5), a(*batch, T, k, s=1.5)
    rates, scale = a(P, k, s=0.4), jnp.asarray(r.uniform(0.2, 2.0), dtype)
    return (x, zq, zk, rates, scale), (a(*batch, T, m, k), a(*batch, T, m, k))


def _torus_inputs(seed, batch, T, k, H, dtype=F32):
    """theta, its lift x (..., T, 2, k), G, the gate, the coefficients (H,) twice, and the
    cotangent of theta'."""
    r = _rng(seed, 2)
    a = lambda *shape: jnp.asarray(r.standard_normal(shape), dtype)  # noqa: E731
    th = r.uniform(-4.0, 4.0, (*batch, T, k))
    x = jnp.asarray(np.stack([np.cos(th), np.sin(th)], -2), dtype)
    theta, G, gate = jnp.asarray(th, dtype), a(*batch, T, 2, k), a(*batch, T, k)
    return theta, x, G, gate, (a(H), a(H)), a(*batch, T, k)


def _sphere_inputs(seed, batch, T, n, k, dtype=F32):
    """The lift x (..., T, n, k) of unit z_j, G, the gate, the cotangent of z' (..., T, k, n)."""
    r = _rng(seed, 3)
    a = lambda *shape: jnp.asarray(r.standard_normal(shape), dtype)  # noqa: E731
    z = r.standard_normal((*batch, T, k, n))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    x = jnp.asarray(np.swapaxes(z, -1, -2), dtype)
    return x, a(*batch, T, n, k), a(*batch, T, k), a(*batch, T, k, n)


# ------------------------------------------------------------ float64 loops (numpy)


def _np_gate(z, norm):
    sp = np.logaddexp(0.0, z)  # softplus
    if norm == "none":
        return sp
    return sp / np.maximum(sp.mean(-1, keepdims=True), np.finfo(np.float64).tiny)


def _np_features(x, zq, zk, rates, scale, norm="mean"):
    """q = c g^q R_t x, k = g^k R_t x: each (t, p, j) plane turned by its own 2x2 matrix."""
    x, zq, zk, rates = (np.asarray(a, np.float64) for a in (x, zq, zk, rates))
    T, _, k = x.shape[-3:]
    r = x.copy()
    for t in range(T):
        for p in range(rates.shape[0]):
            for j in range(k):
                a = t * rates[p, j]
                rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
                pair = x[..., t, 2 * p : 2 * p + 2, j]  # (..., 2)
                r[..., t, 2 * p : 2 * p + 2, j] = pair @ rot.T
    gq, gk = _np_gate(zq, norm), _np_gate(zk, norm)
    return float(scale) * gq[..., None, :] * r, gk[..., None, :] * r


def _np_bound(u, bound):
    rho = math.sqrt(float(np.mean(u * u))) / bound
    return 1.0 if rho == 0 else math.tanh(rho) / rho


def _np_torus(theta, G, gate, bound, coef=None):
    """theta + f u, u = v Im(c e^{-i theta} (G0 + i G1)), row by row (complex arithmetic)."""
    theta, G = np.asarray(theta, np.float64), np.asarray(G, np.float64)
    k = theta.shape[-1]
    c = np.ones(k, complex)
    if coef is not None:
        cr, ci = (np.asarray(a, np.float64) for a in coef)
        c = np.repeat(cr + 1j * ci, k // cr.shape[0])
    out = theta.copy()
    for idx in np.ndindex(theta.shape[:-1]):
        g = G[idx][0] + 1j * G[idx][1]
        u = np.imag(c * np.exp(-1j * theta[idx]) * g)
        if gate is not None:
            u = u * np.asarray(gate, np.float64)[idx]
        out[idx] = theta[idx] + _np_bound(u, bound) * u
    return out


def _np_sphere(x, G, gate, bound):
    """z'_j = Exp_{z_j}(f u_j), u_j = v_j (I - z_j z_j^T) G_j, column by column; (T, k, n)."""
    x, G = np.asarray(x, np.float64), np.asarray(G, np.float64)
    out = np.zeros(x.shape[:-2] + (x.shape[-1], x.shape[-2]))
    for idx in np.ndindex(x.shape[:-2]):
        Z, Gt = x[idx].T, G[idx].T  # (k, n)
        U = np.stack([Gt[j] - (Z[j] @ Gt[j]) * Z[j] for j in range(len(Z))])
        if gate is not None:
            U = U * np.asarray(gate, np.float64)[idx][:, None]
        f = _np_bound(np.linalg.norm(U, axis=1), bound)
        for j in range(len(Z)):
            nu = np.linalg.norm(U[j])
            if nu > 0:
                out[idx][j] = math.cos(f * nu) * Z[j] + math.sin(f * nu) / nu * U[j]
            else:
                out[idx][j] = Z[j]
    return out


# -------------------------------------------- 1. the compositions against float64 loops


def _allowing(fn):
    """`fn` traced with implicit rank promotion allowed: `xla_sync_features` and
    `xla_torus_step` (with coefficients) broadcast the shared rates / coefficients against
    leading batch axes implicitly (see test_xla_compositions_broadcast_explicitly)."""

    def f(*a):
        with jax.numpy_rank_promotion("allow"):
            return fn(*a)

    return f


def _once(thunk):
    """`thunk()` as one compiled program (its arrays constants: one compile, not one per
    operation as eagerly)."""
    return jax.jit(_allowing(thunk))()


@pytest.mark.parametrize(
    "batch, T, m, k, P, norm",
    [((), 6, 4, 5, 2, "mean"), ((2,), 5, 5, 3, 1, "none"), ((), 4, 3, 2, 0, "mean")],
)
def test_xla_sync_features_is_the_loop(batch, T, m, k, P, norm):
    (x, zq, zk, rates, scale), _ = _features_inputs(0, batch, T, m, k, P, jnp.float64)
    q, kk = _once(lambda: xla_sync_features(x, zq, zk, rates, scale, gate_norm=norm))
    want_q, want_k = _np_features(x, zq, zk, rates, scale, norm)
    assert_close(q, want_q)
    assert_close(kk, want_k)
    if P:  # the loop is not vacuous: the planes do turn
        assert not np.allclose(want_k, _np_features(x, zq, zk, 0 * rates, scale, norm)[1])


@pytest.mark.parametrize(
    "batch, k, H, gated", [((), 6, 3, True), ((2,), 4, None, False), ((2,), 4, 2, False)]
)
def test_xla_torus_step_is_the_loop(batch, k, H, gated):
    theta, x, G, gate, coef, _ = _torus_inputs(1, batch, 5, k, H or 1, jnp.float64)
    gate = gate if gated else None
    coef = coef if H else None
    for bound in (0.3, 2.5):
        got = _once(lambda: xla_torus_step(theta, x, G, gate, bound, coef))
        assert_close(got, _np_torus(theta, G, gate, bound, coef))


def test_xla_compositions_broadcast_explicitly():
    """The compositions take leading batch axes with the rates (P, k) and the coefficients
    (H,) shared, under the tests' `jax_numpy_rank_promotion="raise"` (a user's setting
    too): no implicit rank promotion of the shared arguments. (This is what `sync_features`
    and `torus_step` return on float64, or with the kernels switched off.)"""
    (x, zq, zk, rates, scale), _ = _features_inputs(0, (2,), 4, 4, 3, 1, jnp.float64)
    q, _ = jax.jit(xla_sync_features)(x, zq, zk, rates, scale)
    assert_close(q, _np_features(x, zq, zk, rates, scale)[0])
    theta, tx, G, gate, coef, _ = _torus_inputs(0, (2,), 4, 4, 2, jnp.float64)
    got = jax.jit(lambda *a: xla_torus_step(*a, 0.5, coef))(theta, tx, G, gate)
    assert_close(got, _np_torus(theta, G, gate, 0.5, coef))


def test_xla_torus_step_is_tangent_step_on_the_torus():
    """Without coefficients: the layer's plain composition (`tangent_step`, no lift)."""
    theta, x, G, gate, _, _ = _torus_inputs(2, (), 9, 6, 1, jnp.float64)
    for g in (gate, None):
        got, want = _once(lambda g=g: (xla_torus_step(theta, x, G, g, 0.7),
                                       tangent_step(Torus(), theta, G, g, 0.7)))
        assert_close(got, want)


@pytest.mark.parametrize("n, k, gated", [(3, 4, True), (2, 5, False), (4, 3, True)])
def test_xla_sphere_step_is_the_loop_and_fused_step(n, k, gated):
    x, G, gate, _ = _sphere_inputs(3, (), 6, n, k, jnp.float64)
    gate = gate if gated else None
    z = jnp.swapaxes(x, -1, -2)
    for bound in (0.2, 3.0):
        got, fused = _once(lambda b=bound: (xla_sphere_step(x, G, gate, b),
                                            Sphere(n).fused_step(z, G, gate, b)))
        assert got.shape == z.shape
        assert_close(got, _np_sphere(x, G, gate, bound))
        assert_close(got, fused)
        assert_close(np.linalg.norm(got, axis=-1), np.ones(z.shape[:-1]))  # on the sphere
    # batched (leading axes) against the loop
    xb, Gb, gb, _ = _sphere_inputs(4, (2,), 3, n, k, jnp.float64)
    assert_close(_once(lambda: xla_sphere_step(xb, Gb, gb, 1.0)), _np_sphere(xb, Gb, gb, 1.0))


# ------------------------------------------------------ 2. the kernels against the compositions


def _jit_value_and_grads(fn, args, cts):
    """jit of (fn(*args), grad of <fn(*args), cts> in every argument)."""

    def loss(*a):
        out = fn(*a)
        outs = out if isinstance(out, tuple) else (out,)
        return sum(jnp.vdot(o, c) for o, c in zip(outs, cts, strict=True)), out

    f = jax.jit(jax.value_and_grad(loss, tuple(range(len(args))), has_aux=True))
    (_, out), grads = f(*args)
    return out, grads


def _compare(kernel, xla, args, cts, target):
    assert f"{target}_forward" in str(jax.make_jaxpr(kernel)(*args))
    out, grads = _jit_value_and_grads(kernel, args, cts)
    want, want_grads = _jit_value_and_grads(_allowing(xla), args, cts)
    for o, w in zip(out if isinstance(out, tuple) else (out,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        assert o.dtype == F32
        _close(o, w, scale=2)
    for g, w in zip(grads, want_grads, strict=True):
        assert np.all(np.isfinite(np.asarray(g)))
        _close(g, w, scale=10)
    return out, grads


def _check_features(seed, batch, T, m, k, P, norm):
    args, cts = _features_inputs(seed, batch, T, m, k, P)
    kw = dict(gate_norm=norm)
    _compare(lambda *a: sync_features(*a, **kw), lambda *a: xla_sync_features(*a, **kw),
             args, cts, "syncattn_features")


def _check_torus(seed, batch, T, k, H, gated, bound):
    theta, x, G, gate, coef, ct = _torus_inputs(seed, batch, T, k, H or 1)
    args = (theta, x, G) + ((gate,) if gated else ()) + (coef if H else ())

    def call(step):
        def f(theta, x, G, *rest):
            g = rest[0] if gated else None
            c = tuple(rest[1:] if gated else rest) or None
            return step(theta, x, G, g, bound, c)

        return f

    _compare(call(torus_step), call(xla_torus_step), args, (ct,), "syncattn_torus")


def _check_sphere(seed, batch, T, n, k, gated, bound):
    x, G, gate, ct = _sphere_inputs(seed, batch, T, n, k)
    args = (x, G) + ((gate,) if gated else ())

    def call(step):
        return lambda x, G, *g: step(x, G, g[0] if gated else None, bound)

    _compare(call(sphere_step), call(xla_sphere_step), args, (ct,), "syncattn_sphere")


@pytest.mark.parametrize(
    "batch, T, m, k, P, norm",
    [((), 37, 5, 33, 2, "mean"), ((2,), 16, 2, 1, 0, "none")],
)
def test_features_equal_xla(batch, T, m, k, P, norm):
    _check_features(0, batch, T, m, k, P, norm)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (2,)]),
    T=st.integers(1, 40),
    k=st.integers(1, 40),
    m=st.sampled_from([2, 3, 4, 5]),
    data=st.data(),
    norm=st.sampled_from(["mean", "none"]),
)
def test_features_equal_xla_outputs_and_gradients(seed, batch, T, k, m, data, norm):
    P = data.draw(st.integers(0, m // 2), label="P")
    _check_features(seed, batch, T, m, k, P, norm)


@pytest.mark.parametrize(
    "batch, T, k, H, gated, bound",
    [((), 37, 19, None, False, 1.0), ((2,), 16, 32, 4, True, 0.3)],
)
def test_torus_step_equals_xla(batch, T, k, H, gated, bound):
    _check_torus(0, batch, T, k, H, gated, bound)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (2,)]),
    T=st.integers(1, 40),
    k=st.integers(1, 40),
    gated=st.booleans(),
    bound=st.floats(0.1, 3.0),
    data=st.data(),
)
def test_torus_step_equals_xla_outputs_and_gradients(seed, batch, T, k, gated, bound, data):
    heads = [None] + [h for h in range(1, k + 1) if k % h == 0]
    H = data.draw(st.sampled_from(heads), label="H")
    _check_torus(seed, batch, T, k, H, gated, bound)


@pytest.mark.parametrize(
    "batch, T, n, k, gated, bound",
    [((), 37, 3, 19, True, 1.0), ((2,), 16, 4, 16, False, 0.2)],
)
def test_sphere_step_equals_xla(batch, T, n, k, gated, bound):
    _check_sphere(0, batch, T, n, k, gated, bound)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    batch=st.sampled_from([(), (2,)]),
    T=st.integers(1, 40),
    n=st.sampled_from([2, 3, 4, 5]),
    k=st.integers(1, 40),
    gated=st.booleans(),
    bound=st.floats(0.1, 3.0),
)
def test_sphere_step_equals_xla_outputs_and_gradients(seed, batch, T, n, k, gated, bound):
    _check_sphere(seed, batch, T, n, k, gated, bound)


def test_torus_rows_with_zero_increment():
    """u = 0 exactly on a row (G = 0 on token 3; the gate 0 on token 11): theta' = theta
    there bit for bit, and the gradients (the bound's guarded rho = 0) finite and equal to
    the composition's; with and without coefficients."""
    theta, x, G, gate, coef, ct = _torus_inputs(5, (), 20, 19, 1)
    G = G.at[3].set(0.0)
    gate = gate.at[11].set(0.0)
    for c in (None, coef):
        def call(step):
            return lambda theta, x, G, gate, *cc: step(theta, x, G, gate, 0.8, cc or None)

        args = (theta, x, G, gate) + (() if c is None else c)
        out, grads = _compare(call(torus_step), call(xla_torus_step), args, (ct,),
                              "syncattn_torus")
        np.testing.assert_array_equal(out[jnp.array([3, 11])], theta[jnp.array([3, 11])])
        assert float(jnp.max(jnp.abs(grads[2][3]))) > 0  # G's gradient on the zero row


def test_sphere_rows_with_zero_increment():
    """u = 0 exactly: token 2 with G = 0, token 5 with every G_j parallel to z_j (z_j a
    coordinate vector, G_j = 2.5 z_j), token 7 with one such column only (that column's
    step 0, the row's not): z' = z there bit for bit, and finite gradients equal to the
    composition's (the guarded rho = 0 and |u_j| = 0)."""
    x, G, gate, ct = _sphere_inputs(6, (), 20, 3, 19)
    e = jnp.zeros((3, 19), F32).at[jnp.arange(19) % 3, jnp.arange(19)].set(1.0)
    x = x.at[5].set(e).at[7, :, 4].set(e[:, 4])
    G = G.at[2].set(0.0).at[5].set(2.5 * e).at[7, :, 4].set(2.5 * e[:, 4])
    for g in (gate, None):
        def call(step):
            return lambda x, G, *gg: step(x, G, gg[0] if gg else None, 1.3)

        args = (x, G) + (() if g is None else (g,))
        out, _ = _compare(call(sphere_step), call(xla_sphere_step), args, (ct,),
                          "syncattn_sphere")
        z = jnp.swapaxes(x, -1, -2)
        np.testing.assert_array_equal(out[jnp.array([2, 5])], z[jnp.array([2, 5])])
        np.testing.assert_array_equal(out[7, 4], z[7, 4])
        assert not np.array_equal(out[7], z[7])


def test_features_with_extreme_gates():
    """Rows of gate pre-activations far out: z = 60 (softplus z itself), z = -30 (the
    softplus 1e-13, normalised by its mean: the backward's 1/M and 1/M^2 large), z = -120
    (the softplus 0 in float32: M = tiny). Values equal the composition's everywhere;
    gradients where the composition's are finite (at z = -120 its 0 * inf is NaN), and the
    kernel's are finite throughout."""
    (x, zq, zk, rates, scale), cts = _features_inputs(7, (), 18, 4, 5, 2)
    zq = zq.at[4].set(-120.0).at[9].set(60.0).at[12].set(-30.0)
    zk = zk.at[6].set(-120.0).at[13].set(-30.0)
    args = (x, zq, zk, rates, scale)
    out, grads = _jit_value_and_grads(sync_features, args, cts)
    want, want_grads = _jit_value_and_grads(xla_sync_features, args, cts)
    for o, w in zip(out, want, strict=True):
        _close(o, w, scale=2)
    for i, (g, w) in enumerate(zip(grads, want_grads, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        assert np.all(np.isfinite(g)), i
        bad = ~np.isfinite(w)
        assert (i, int(bad.sum())) in ((1, 5), (2, 5)) or not bad.any(), i  # the -120 rows
        _close(np.where(bad, 0.0, g), np.where(bad, 0.0, w), scale=10)


@pytest.mark.parametrize("z", [-30.0, -50.0])
def test_features_gradient_at_tiny_gate_means_is_finite(z):
    """A row with every gate pre-activation at z (softplus e^z, about 2e-22 at -50: the
    mean M far below 1 but a normal float32, above tiny): g = softplus / M is a softmax
    of z in effect, with O(1) derivatives, so the float32 kernel's gradient is finite and
    equals the float64 composition's. (The backward's shift sum(dg sp) / (k M^2) must not
    form M^2, which flushes to 0 below M ~ 1e-19.)"""
    (x, zq, zk, rates, scale), cts = _features_inputs(8, (), 5, 2, 3, 1)
    zq = zq.at[2].set(z + jnp.asarray([0.0, 0.5, -0.3], F32))
    args = (x, zq, zk, rates, scale)
    _, grads = _jit_value_and_grads(sync_features, args, cts)
    as64 = [jnp.asarray(a, jnp.float64) for a in (*args, *cts)]
    _, want = _jit_value_and_grads(xla_sync_features, as64[:5], as64[5:])
    assert np.all(np.isfinite(np.asarray(want[1])))
    assert np.all(np.isfinite(np.asarray(grads[1])))
    _close(grads[1], want[1], scale=10)


# -------------------------------------------------------------------------- 3. vmap, batch


def test_features_vmap_with_unbatched_rates_and_scale():
    """jit of vmap over the batch, rates and scale shared: their gradients (summed over
    the batch) equal the composition's; and explicit leading batch axes (2, 3) likewise."""
    (x, zq, zk, rates, scale), (cq, ck) = _features_inputs(8, (3,), 21, 4, 17, 2)

    def loss(fn):
        def total(x, zq, zk, rates, scale):
            q, kk = jax.vmap(lambda *a: fn(*a, rates, scale))(x, zq, zk)
            return jnp.vdot(q, cq) + jnp.vdot(kk, ck)

        return jax.jit(jax.value_and_grad(total, (0, 1, 2, 3, 4))), total

    args = (x, zq, zk, rates, scale)
    assert "syncattn_features_forward" in str(jax.make_jaxpr(loss(sync_features)[1])(*args))
    val, grads = loss(sync_features)[0](*args)
    want, want_grads = loss(xla_sync_features)[0](*args)
    _close(val, want, scale=10)
    for g, w in zip(grads, want_grads, strict=True):
        _close(g, w, scale=10)
    assert grads[3].shape == rates.shape and grads[4].shape == ()
    # leading axes (2, 3) without vmap, the rates and scale shared
    (x, zq, zk, rates, scale), cts = _features_inputs(9, (2, 3), 7, 3, 5, 1)
    _compare(sync_features, xla_sync_features, (x, zq, zk, rates, scale), cts,
             "syncattn_features")


def test_torus_vmap_with_unbatched_coefficients():
    theta, x, G, gate, (cr, ci), ct = _torus_inputs(10, (3,), 21, 12, 4)

    def loss(fn):
        def total(theta, x, G, gate, cr, ci):
            step = lambda th, x, G, g: fn(th, x, G, g, 0.9, (cr, ci))  # noqa: E731
            return jnp.vdot(jax.vmap(step)(theta, x, G, gate), ct)

        return jax.jit(jax.value_and_grad(total, tuple(range(6)))), total

    args = (theta, x, G, gate, cr, ci)
    assert "syncattn_torus_forward" in str(jax.make_jaxpr(loss(torus_step)[1])(*args))
    val, grads = loss(torus_step)[0](*args)
    want, want_grads = loss(xla_torus_step)[0](*args)
    _close(val, want, scale=10)
    for g, w in zip(grads, want_grads, strict=True):
        _close(g, w, scale=10)
    assert grads[4].shape == grads[5].shape == (4,)
    # vmap over a non-leading axis (tokens first), the coefficients shared
    moved = [jnp.moveaxis(a, 0, 1) for a in args[:4]]
    one = lambda fn: jax.jit(jax.vmap(lambda *a: fn(*a, 0.9, (cr, ci)), 1, 1))  # noqa: E731
    _close(one(torus_step)(*moved), one(xla_torus_step)(*moved), scale=2)
    # leading axes (2, 2) without vmap, the coefficients shared
    theta, x, G, gate, coef, ct = _torus_inputs(11, (2, 2), 9, 6, 2)
    _compare(lambda *a: torus_step(*a[:4], 1.1, a[4:]),
             lambda *a: xla_torus_step(*a[:4], 1.1, a[4:]),
             (theta, x, G, gate, *coef), (ct,), "syncattn_torus")


def test_sphere_vmap_with_unbatched_attention_average():
    x, G, gate, ct = _sphere_inputs(12, (3,), 18, 4, 9)
    G1 = G[0]

    def loss(fn):
        def total(x, G1, gate):
            step = lambda x, g: fn(x, G1, g, 0.6)  # noqa: E731
            return jnp.vdot(jax.vmap(step)(x, gate), ct)

        return jax.jit(jax.value_and_grad(total, (0, 1, 2))), total

    assert "syncattn_sphere_forward" in str(jax.make_jaxpr(loss(sphere_step)[1])(x, G1, gate))
    val, grads = loss(sphere_step)[0](x, G1, gate)
    want, want_grads = loss(xla_sphere_step)[0](x, G1, gate)
    _close(val, want, scale=10)
    for g, w in zip(grads, want_grads, strict=True):
        _close(g, w, scale=10)
    assert grads[1].shape == G1.shape
    x, G, gate, ct = _sphere_inputs(13, (2, 2), 5, 3, 7)
    _compare(lambda *a: sphere_step(*a, 0.6), lambda *a: xla_sphere_step(*a, 0.6),
             (x, G, gate), (ct,), "syncattn_sphere")


# --------------------------------------------------------------------------- 4. bit-stable


def test_bit_stable_run_to_run():
    """Forward and backward twice (and a third time), bit for bit: 4 x 5 token blocks."""
    (x, zq, zk, rates, scale), cts = _features_inputs(14, (4,), 70, 4, 33, 2)
    theta, tx, G, gate, coef, tct = _torus_inputs(14, (4,), 70, 33, 3)
    sx, sG, sgate, sct = _sphere_inputs(14, (4,), 70, 3, 33)
    calls = [
        (sync_features, (x, zq, zk, rates, scale), cts),
        (lambda *a: torus_step(*a[:4], 0.7, a[4:]), (theta, tx, G, gate, *coef), tct),
        (lambda *a: sphere_step(*a, 0.7), (sx, sG, sgate), sct),
    ]
    for fn, args, ct in calls:
        def both(*a, fn=fn, ct=ct):
            out, vjp = jax.vjp(fn, *a)
            return out, vjp(ct)

        f = jax.jit(both)
        first = jax.tree.map(np.asarray, f(*args))
        for _ in range(2):
            jax.tree.map(np.testing.assert_array_equal, first, f(*args))


# -------------------------------------------------------------------- 5. bad input, switch


def test_bad_shapes_name_the_arguments():
    (x, zq, zk, rates, scale), _ = _features_inputs(15, (), 5, 4, 3, 2)
    with pytest.raises(ValueError, match="x \\(..., T, m, k\\), zq and zk"):
        sync_features(x, zq[:, :2], zk, rates, scale)
    with pytest.raises(ValueError, match="2 P <= m"):
        sync_features(x, zq, zk, jnp.zeros((3, 3), F32), scale)
    with pytest.raises(ValueError, match="scalar scale"):
        sync_features(x, zq, zk, rates, jnp.ones((1,), F32))
    with pytest.raises(ValueError, match="rates \\(P, k\\)"):
        sync_features(x, zq, zk, rates[:, :2], scale)
    with pytest.raises(ValueError, match="gate_norm must be one of"):
        sync_features(x, zq, zk, rates, scale, gate_norm="max")
    theta, tx, G, gate, coef, _ = _torus_inputs(15, (), 5, 6, 4)
    with pytest.raises(ValueError, match="theta \\(..., T, k\\), x and G"):
        torus_step(theta, tx, G[..., :5], gate, 1.0)
    with pytest.raises(ValueError, match="theta \\(..., T, k\\), x and G"):
        torus_step(theta, tx, G, gate[:4], 1.0)
    with pytest.raises(ValueError, match="coef must be two \\(H,\\) arrays with H dividing k"):
        torus_step(theta, tx, G, gate, 1.0, coef)  # H = 4 does not divide k = 6
    sx, sG, sgate, _ = _sphere_inputs(15, (), 5, 3, 4)
    with pytest.raises(ValueError, match="x and G \\(..., T, n, k\\)"):
        sphere_step(sx, sG[:, :2], sgate, 1.0)
    with pytest.raises(ValueError, match="gate \\(..., T, k\\)"):
        sphere_step(sx, sG, sgate[:, :3], 1.0)


@pytest.mark.parametrize("bound", [0.0, -1.0, float("nan"), float("inf"), True])
def test_bad_bound_raises(bound):
    theta, tx, G, gate, _, _ = _torus_inputs(16, (), 4, 3, 1)
    with pytest.raises(ValueError, match="bound must be a finite number > 0"):
        torus_step(theta, tx, G, gate, bound)
    sx, sG, sgate, _ = _sphere_inputs(16, (), 4, 3, 3)
    with pytest.raises(ValueError, match="bound must be a finite number > 0"):
        sphere_step(sx, sG, sgate, bound)


def test_float64_and_switched_off_take_the_composition(monkeypatch):
    """float64 (and a float64 scale with float32 arrays) traces no kernel; with
    SYNCATTN_ATTENTION_KERNEL=0 the float32 calls are the compositions exactly."""
    (x, zq, zk, rates, scale), _ = _features_inputs(17, (), 6, 4, 5, 2)
    theta, tx, G, gate, coef, _ = _torus_inputs(17, (), 6, 4, 2)
    sx, sG, sgate, _ = _sphere_inputs(17, (), 6, 3, 4)

    def calls():  # fresh functions: make_jaxpr and jit cache their traces by function
        return [
            (lambda *a: sync_features(*a), xla_sync_features, (x, zq, zk, rates, scale)),
            (lambda *a: torus_step(*a[:4], 0.5, a[4:]),
             lambda *a: xla_torus_step(*a[:4], 0.5, a[4:]), (theta, tx, G, gate, *coef)),
            (lambda *a: sphere_step(*a, 0.5), lambda *a: xla_sphere_step(*a, 0.5),
             (sx, sG, sgate)),
        ]

    for (fn, xla, args), t in zip(calls(), TARGETS, strict=True):
        assert f"{t}_forward" in str(jax.make_jaxpr(fn)(*args))
        as64 = [a.astype(jnp.float64) for a in args]
        assert not any(t in str(jax.make_jaxpr(fn)(*as64)) for t in TARGETS)
        jax.tree.map(lambda a, b: assert_close(a, b, rtol=0, atol=0),
                     jax.jit(fn)(*as64), jax.jit(_allowing(xla))(*as64))
    # a Python scale is float64 under x64: mixed dtypes take the composition
    mixed = str(jax.make_jaxpr(lambda *a: sync_features(*a))(x, zq, zk, rates, 0.5))
    assert "syncattn_features" not in mixed
    monkeypatch.setenv(_library.ENV, "0")
    for fn, xla, args in calls():
        assert not any(t in str(jax.make_jaxpr(fn)(*args)) for t in TARGETS)
        jax.tree.map(lambda a, b: assert_close(a, b, rtol=0, atol=0),
                     jax.jit(fn)(*args), jax.jit(_allowing(xla))(*args))


# ------------------------------------------------------------------------------- 6. layers


def _f32(module):
    return jax.tree.map(lambda a: a.astype(F32) if eqx.is_inexact_array(a) else a, module)


def _run_layer(layer, states, masks, ct):
    """One eqx.filter_jit (a fresh one: the switch is read at trace time) of the outputs
    over a batch (vmap) and the parameter gradient of <sin(outputs), ct>, without a mask
    and with `masks`."""

    def loss(m, masked):
        if masked:
            y = jax.vmap(lambda s, km: m(s, mask=km))(states, masks)
        else:
            y = jax.vmap(m)(states)
        return jnp.vdot(jnp.sin(y), ct), y

    def both(m):
        return [eqx.filter_grad(loss, has_aux=True)(m, masked)[::-1] for masked in (False, True)]

    return eqx.filter_jit(both)(layer)


def _layer_jaxprs(layer, states, masks):
    """The traced program of the forward call and of the parameter gradient, as text."""
    fwd = jax.make_jaxpr(jax.vmap(lambda s, km: layer(s, mask=km)))(states, masks)
    params, static = eqx.partition(layer, eqx.is_inexact_array)
    grad = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jax.vmap(
        lambda s, km: eqx.combine(p, static)(s, mask=km))(states, masks))))(params)
    return str(fwd), str(grad)


def _masks(T):
    """Three sequences: no padding, left padding (the first rows with no real key), random."""
    left = jnp.arange(T) >= T // 3
    rand = jnp.asarray(_rng(T, 4).uniform(size=T) < 0.6).at[0].set(True)
    return jnp.stack([jnp.ones(T, bool), left, rand])


def _kuramoto(T=20, k=8, H=2):
    layer = _f32(nn.KuramotoAttention(k, H, key=jax.random.key(0), tau=1.3, bound=0.7))
    theta = jnp.asarray(_rng(1, 5).uniform(-math.pi, math.pi, (3, T, k)), F32)
    return layer, theta


def _sphere_layer(T=20, k=8, H=2, n=4):
    layer = _f32(nn.SphereAttention(k, n, H, key=jax.random.key(2), drift="planes", bound=0.9))
    z = _rng(3, 6).standard_normal((3, T, k, n))
    z = jnp.asarray(z / np.linalg.norm(z, axis=-1, keepdims=True), F32)
    return layer, z


def _frustrated(T=20, k=8, H=2, learned_c=False):
    kura, theta = _kuramoto(T, k, H)
    layer = nn.FrustratedAttention.from_kuramoto(kura)
    if learned_c:
        c = jnp.asarray(_rng(4, 7).standard_normal((2, H, 1)), F32)
        layer = eqx.tree_at(lambda m: (m.c_real, m.c_imag), layer, (c[0], c[1]))
    return _f32(layer), theta


LAYERS = {
    "kuramoto": (_kuramoto, ("syncattn_features", "syncattn_torus")),
    "sphere": (_sphere_layer, ("syncattn_features", "syncattn_sphere")),
    "frustrated": (lambda: _frustrated(learned_c=True), ("syncattn_features", "syncattn_torus")),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_takes_the_kernels_and_equals_its_xla_path(name, monkeypatch):
    """float32 outputs and parameter gradients with the kernels on (checked in the traced
    forward and gradient programs) equal the pure-XLA path's (switched off), over a batch
    without a mask and with one (no padding, left padding, a random key mask)."""
    build, targets = LAYERS[name]
    layer, states = build()
    masks = _masks(states.shape[1])
    ct = jnp.asarray(_rng(5, 8).standard_normal(states.shape), F32)
    fwd, grad = _layer_jaxprs(layer, states, masks)
    for t in targets:
        assert f"{t}_forward" in fwd and f"{t}_backward" in grad, t
    got = _run_layer(layer, states, masks, ct)
    monkeypatch.setenv(_library.ENV, "0")
    fwd, grad = _layer_jaxprs(layer, states, masks)
    assert not any(t in fwd + grad for t in TARGETS)
    want = _run_layer(layer, states, masks, ct)
    assert not np.allclose(got[0][0], got[1][0])  # the mask matters
    for (y, grads), (y_want, grads_want) in zip(got, want, strict=True):
        assert y.dtype == F32
        _close(y, y_want, scale=2)
        leaves, want_leaves = jax.tree.leaves(grads), jax.tree.leaves(grads_want)
        assert len(leaves) == len(want_leaves) > 0
        for g, w in zip(leaves, want_leaves, strict=True):
            _close(g, w, scale=10)


def test_frustrated_from_kuramoto_is_bit_for_bit_with_the_kernels():
    """With the kernels on (both layers' programs call them), `from_kuramoto` returns the
    Kuramoto layer's outputs bit for bit, jit-compiled, with and without a key mask."""
    K, theta = _kuramoto(T=23, k=12, H=3)
    F = nn.FrustratedAttention.from_kuramoto(K)
    for lay in (K, F):
        assert "syncattn_torus_forward" in str(jax.make_jaxpr(lambda x, lay=lay: lay(x))(theta[0]))
    f = eqx.filter_jit(lambda lay, x: jax.vmap(lay)(x))
    np.testing.assert_array_equal(f(K, theta), f(F, theta))
    g = eqx.filter_jit(lambda lay, x, m: jax.vmap(lambda s, km: lay(s, mask=km))(x, m))
    masks = _masks(theta.shape[1])
    np.testing.assert_array_equal(g(K, theta, masks), g(F, theta, masks))

"""FrustratedAttention and CollectiveModes (issue 40): against a float64 loop over
(t, u, m) written in the sine form of statement 26; the reduction to KuramotoAttention
bit for bit; exact causality of the delayed stream; the blocked path; jit/vmap/grad;
dtypes; bad input."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import nn
from syncattn._kernels import _library, kernel_enabled
from syncattn.nn import _common

from ..helpers import assert_close
from . import reference


T, K, H = 7, 4, 2


def phases(seed=0, shape=(T, K)):
    return jax.random.uniform(jax.random.key(seed), shape, minval=-4.0, maxval=4.0)


def randomised(L, seed=3, delay=True):
    """`L` with random complex c (and b): away from the Kuramoto start."""
    ks = jax.random.split(jax.random.key(seed), 4)
    shape = L.c_real.shape
    new = eqx.tree_at(lambda m: (m.c_real, m.c_imag), L,
                      (jax.random.normal(ks[0], shape), jax.random.normal(ks[1], shape)))  # fmt: skip
    if delay and L.delay:
        new = eqx.tree_at(lambda m: (m.b_real, m.b_imag), new,
                          (jax.random.normal(ks[2], shape), jax.random.normal(ks[3], shape)))  # fmt: skip
    return new


def layer(order=2, delay=True, seed=3, **kw):
    L = nn.FrustratedAttention(K, H, key=jax.random.key(1), order=order, delay=delay, **kw)
    return randomised(L, seed)


@pytest.mark.parametrize(
    ("order", "delay", "kw"),
    [(2, True, dict(tau=1.7, bound=0.8)), (1, True, {}), (3, False, dict(gates=False))],
)
def test_matches_brute_force_float64(order, delay, kw):
    L, th = layer(order, delay, **kw), phases()
    y, aux = L(th, diagnostics=True)
    want, A, F = reference.frustrated_attention(L, th)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(aux["coupling"], F)
    assert_close(L(th), y, rtol=0, atol=0)  # diagnostics do not change the output
    assert aux["harmonic_order"].shape == (T, K, order)
    assert ("delayed_order" in aux) == delay


def test_key_padding_matches_brute_force():
    L, th = layer(tau=1.3), phases(6)
    pad = jnp.ones(T, bool).at[2].set(False).at[T - 1].set(False)
    y, aux = L(th, mask=pad, diagnostics=True)
    want, A, _ = reference.frustrated_attention(L, th, pad)
    assert_close(y, want)
    assert_close(aux["weights"], A)


def e1(M):
    """(1, 0, ..., 0) per head: complex (H, M)."""
    return np.zeros((H, M), complex) + (np.arange(M) == 0)


def control(frustration, seed=3, **kw):
    """The fixed-coefficient control (issue 44), its learned b (delay-only) random."""
    L = nn.FrustratedAttention(K, H, key=jax.random.key(1), frustration=frustration, **kw)
    if L.b_real is None:
        return L
    ks = jax.random.split(jax.random.key(seed), 2)
    b = tuple(jax.random.normal(kk, L.b_real.shape) for kk in ks)
    return eqx.tree_at(lambda m: (m.b_real, m.b_imag), L, b)


@pytest.mark.parametrize("frustration", ["successor", "delay-only"])
def test_fixed_controls_match_brute_force(frustration):
    """successor: F_tj = sum_{u<t} A_tu sin(th_{u+1,j} - th_tj) (c = 0, b = e_1);
    delay-only: c = e_1 and the learned b; the float64 plain path and the float32 fast
    path, with key padding; the held coefficients are no leaves."""
    L = control(frustration, order=2, tau=1.3, bound=0.8)
    th, pad = phases(17), jnp.ones(T, bool).at[2].set(False)
    y, aux = L(th, mask=pad, diagnostics=True)
    c, b = (0 * e1(2), e1(2)) if frustration == "successor" else (e1(2), None)
    want, A, F = reference.frustrated_attention(L, th, pad, c=c, b=b)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(aux["coupling"], F)
    assert "delayed_order" in aux and aux["harmonic_order"].shape == (T, K, 2)
    y32 = eqx.filter_jit(lambda m, x: m(x, mask=pad))(L, th.astype(jnp.float32))
    assert_close(y32, want, jnp.float32, scale=10)
    assert L.c_real is None and L.c_imag is None
    assert (L.b_real is None) == (frustration == "successor")
    assert_close(L.coefficients, c)
    n_leaves = len(jax.tree.leaves(eqx.filter(L, eqx.is_inexact_array)))
    full = nn.FrustratedAttention(K, H, key=jax.random.key(1), order=2)
    assert len(jax.tree.leaves(eqx.filter(full, eqx.is_inexact_array))) - n_leaves == (
        4 if frustration == "successor" else 2
    )
    if frustration == "successor":
        assert_close(L.delay_coefficients, e1(2))


def test_delay_only_is_the_learned_layer_at_the_kuramoto_c():
    Ld = control("delay-only", order=2, tau=1.4)
    Ll = nn.FrustratedAttention(K, H, key=jax.random.key(1), order=2, tau=1.4)
    Ll = eqx.tree_at(lambda m: (m.b_real, m.b_imag), Ll, (Ld.b_real, Ld.b_imag))
    assert complex(Ll.coefficients[0, 0]) == 1.0 and complex(Ll.coefficients[0, 1]) == 0
    th = phases(18)
    np.testing.assert_array_equal(np.asarray(Ld(th)), np.asarray(Ll(th)))  # float64
    call = eqx.filter_jit(lambda m, x: m(x))
    y32 = call(Ld, th.astype(jnp.float32))
    assert_close(y32, Ll(th), jnp.float32, scale=10)  # the fast path: float64 composition
    # the gradient reaches b (and there is no c for it to reach)
    g = eqx.filter_jit(eqx.filter_grad(lambda m, x: jnp.sum(jnp.sin(m(x)))))(Ld, th.astype(jnp.float32))
    assert g.c_real is None and g.c_imag is None
    assert np.any(np.asarray(g.b_real) != 0) and np.any(np.asarray(g.b_imag) != 0)


@pytest.mark.slow  # about 6 s of compiling on the shared 2 cores
@pytest.mark.parametrize("frustration", ["successor", "delay-only"])
def test_fixed_controls_blocked_bfloat16_and_exactly_causal(frustration, monkeypatch):
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 4)  # float32: several blocks
    L, Tn = control(frustration, order=3, tau=1.1), 11
    th = phases(19, (Tn, K))
    want = L(th)  # float64: the plain composition
    f = eqx.filter_jit(lambda m, x: m(x))
    y = f(L, th.astype(jnp.float32))
    assert_close(y, want, jnp.float32, scale=10)
    y16 = f(L, th.astype(jnp.bfloat16))
    assert y16.dtype == jnp.bfloat16
    np.testing.assert_allclose(np.asarray(y16, np.float64), np.asarray(want), atol=0.1)
    for t in (0, 5, Tn - 2):
        th2 = th.at[t + 1 :].set(phases(20, (Tn - t - 1, K))).astype(jnp.float32)
        y2 = f(L, th2)
        np.testing.assert_array_equal(np.asarray(y2)[: t + 1], np.asarray(y)[: t + 1])
        assert not np.allclose(np.asarray(y2)[t + 1 :], np.asarray(y)[t + 1 :])


@pytest.mark.parametrize(
    "dtype", [jnp.float64, jnp.float32, pytest.param(jnp.bfloat16, marks=pytest.mark.slow)]
)
def test_from_kuramoto_is_the_kuramoto_layer_bit_for_bit(dtype, monkeypatch):
    Lk = nn.KuramotoAttention(K, H, key=jax.random.key(2), tau=1.7, bound=0.8)
    Lf = nn.FrustratedAttention.from_kuramoto(Lk)
    assert Lf.order == 1 and not Lf.delay and Lf.b_real is None
    assert complex(Lf.coefficients[0, 0]) == 1.0
    for t in (T, 13):  # 13 with blocks of 4: the blocked causal path
        if t == 13:
            monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 4)
        th = phases(5, (t, K)).astype(dtype)
        jit = eqx.filter_jit(lambda m, x: m(x))
        for f in (lambda m, x: m(x), jit) if dtype == jnp.float64 else (jit,):  # eager: slow
            np.testing.assert_array_equal(
                np.asarray(f(Lf, th), np.float64), np.asarray(f(Lk, th), np.float64)
            )


def test_delayed_stream_with_b_zero_is_kuramoto():
    Lk = nn.KuramotoAttention(K, H, key=jax.random.key(2), tau=1.2)
    L0 = nn.FrustratedAttention(K, H, key=jax.random.key(2), tau=1.2, order=1)  # b = 0
    assert L0.delay and not np.any(np.asarray(L0.b_real))
    th = phases(8)
    call = eqx.filter_jit(lambda m, x: m(x))
    assert_close(call(L0, th), call(Lk, th))
    # ... and the gradient in b is not 0: the delayed stream is live
    g = eqx.filter_jit(eqx.filter_grad(lambda m, x: jnp.sum(jnp.sin(m(x)))))(L0, th)
    assert np.any(np.asarray(g.b_real) != 0) and np.any(np.asarray(g.b_imag) != 0)


@pytest.mark.parametrize("dtype", [jnp.float64, jnp.float32])
def test_causality_exact_including_the_delayed_stream(dtype, monkeypatch):
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 4)  # float32: several blocks
    L = layer(order=2, delay=True)
    Tn = 11
    th = phases(9, (Tn, K)).astype(dtype)
    f = eqx.filter_jit(lambda m, x: m(x, diagnostics=True))
    y, aux = f(L, th)
    for t in (0, 4, Tn - 2):
        th2 = th.at[t + 1 :].set(phases(10, (Tn - t - 1, K)).astype(dtype))
        y2, aux2 = f(L, th2)
        np.testing.assert_array_equal(np.asarray(y2)[: t + 1], np.asarray(y)[: t + 1])
        for name in ("delayed_order", "coupling"):
            np.testing.assert_array_equal(np.asarray(aux2[name])[: t + 1], np.asarray(aux[name])[: t + 1])
        assert not np.allclose(np.asarray(y2)[t + 1 :], np.asarray(y)[t + 1 :])
    # the delayed stream reads the successor: changing theta_{u+1} alone moves W at t > u
    # (u = 3: W_t for t >= 5 holds A_t3 e^{i m theta_4}); theta_4's own change moves t = 4
    th3 = th.at[4].add(0.5)
    _, aux3 = f(L, th3)
    assert np.asarray(aux3["delayed_order"])[3] == pytest.approx(np.asarray(aux["delayed_order"])[3])
    assert not np.allclose(np.asarray(aux3["delayed_order"])[5:], np.asarray(aux["delayed_order"])[5:])


def test_blocked_float32_path_matches_float64(monkeypatch):
    L, th = layer(order=2, tau=1.4), phases(7, (13, K))
    want = L(th)  # float64: the exact einsum path
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 5)
    monkeypatch.setenv(_library.ENV, "0")  # the blocked path, not the fused CPU kernel
    jaxpr = str(jax.make_jaxpr(L)(th.astype(jnp.float32)))
    assert f"f32[{H},5,10]" in jaxpr and f"f32[{H},13,13]" not in jaxpr  # no upper blocks
    assert_close(eqx.filter_jit(L)(th.astype(jnp.float32)), want, jnp.float32, scale=10)


def test_attend_delayed_is_two_streams_through_one_softmax(monkeypatch):
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 3)
    ks = jax.random.split(jax.random.key(4), 4)
    q, k = (jax.random.normal(kk, (8, 2, 3)) for kk in ks[:2])
    v, w = (jax.random.normal(kk, (8, 2, 5)) for kk in ks[2:])
    A = np.asarray(_common.attention_weights(q, k, True))  # (H, T, T), float64
    y, z = _common.attend_delayed(q.astype(jnp.float32), k.astype(jnp.float32),
                                  v.astype(jnp.float32), w.astype(jnp.float32))  # fmt: skip
    assert_close(y, np.einsum("htu,uhd->thd", A, v), jnp.float32)
    assert_close(z, np.einsum("htu,uhd->thd", np.tril(A, -1), w), jnp.float32)
    y64, z64 = _common.attend_delayed(q, k, v, w)
    assert_close(z64, np.einsum("htu,uhd->thd", np.tril(A, -1), w))


def _successor_inputs(Tn=11):
    ks = jax.random.split(jax.random.key(21), 5)
    q, k = (jax.random.normal(kk, (Tn, H, 3)) for kk in ks[:2])
    p, d, w = (jax.random.normal(kk, (Tn, H, 5)) for kk in ks[2:])
    # left padding (rows 0, 1: no real key, their causal row) and a padded key at 6
    pad = (jnp.arange(Tn) >= 2).at[6].set(False)
    return (q, k, p, d), w, pad


def _successor_value_and_grads(pad, w):
    """A fresh jitted (<y, w>, y) and its gradient in (q, k, p, d) (a new trace: it reads
    `kernel_enabled` when first called)."""

    def loss(q, k, p, d):
        y = _common.attend_successor(q, k, p, d, pad)
        return jnp.vdot(y, w.astype(y.dtype)), y

    return jax.jit(jax.value_and_grad(loss, (0, 1, 2, 3), has_aux=True))


def test_attend_successor_kernel_and_blocked_paths_equal_float64(monkeypatch):
    """`attend_successor` in float32 by the fused CPU kernel (one strict kernel call, the
    diagonal through the differentiable L) and by the blocked XLA path (the kernel off:
    a fresh trace): values and gradients equal the float64 einsum path and each other,
    and both are exactly causal (y_t reads p_u for u < t only: p_t may hold token t + 1)."""
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 6)  # blocked: two blocks
    args, w, pad = _successor_inputs()
    args32 = [a.astype(jnp.float32) for a in args]
    (_, want), want_grads = _successor_value_and_grads(pad, w)(*args)  # float64
    paths = {}
    for name in ("kernel", "blocked") if kernel_enabled(jnp.float32) else ("blocked",):
        if name == "blocked":
            monkeypatch.setenv(_library.ENV, "0")
        jaxpr = jax.make_jaxpr(lambda *a: _common.attend_successor(*a, pad))(*args32)
        assert ("syncattn_attention" in str(jaxpr)) == (name == "kernel")
        f = paths[name] = _successor_value_and_grads(pad, w)
        (_, y), grads = f(*args32)
        assert y.dtype == jnp.float32
        assert_close(y, want, jnp.float32, scale=4)
        for g, gw in zip(grads, want_grads):
            assert_close(g, gw, jnp.float32, scale=10)
        for t in (1, 5, 9):  # everything after t, and p_t itself, replaced
            later = [np.array(a) for a in args32]  # numpy: no eager op to compile
            for a in later:
                a[t + 1 :] *= -2.0
            later[2][t] += 1.0
            y2 = np.asarray(f(*later)[0][1])
            np.testing.assert_array_equal(y2[: t + 1], np.asarray(y)[: t + 1])
            assert not np.allclose(y2[t + 1 :], np.asarray(y)[t + 1 :])
    if "kernel" in paths:
        ((_, y), grads), ((_, y_xla), grads_xla) = (f(*args32) for f in paths.values())
        assert_close(y, y_xla, jnp.float32, scale=4)
        for g, gx in zip(grads, grads_xla):
            assert_close(g, gx, jnp.float32, scale=10)


@pytest.mark.slow  # about 8 s of compiling on the shared 2 cores
def test_jit_vmap_grad():
    L = layer(order=2)
    thb = phases(11, (2, T, K))
    assert_close(jax.vmap(L)(thb)[1], L(thb[1]))
    g = eqx.filter_jit(eqx.filter_grad(lambda m, x: jnp.sum(jnp.cos(m(x)))))(L, thb[0])
    leaves = jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    assert all(np.all(np.isfinite(np.asarray(x))) for x in leaves)
    for name in ("c_real", "c_imag", "b_real", "b_imag", "omega"):
        assert np.any(np.asarray(getattr(g, name)) != 0), name
    # the input gradient against central differences of the float64 layer
    d = jax.random.normal(jax.random.key(12), (T, K))
    gx = jax.grad(lambda x: jnp.sum(jnp.cos(L(x))))(thb[0])
    e = 1e-6
    fd = (jnp.sum(jnp.cos(L(thb[0] + e * d))) - jnp.sum(jnp.cos(L(thb[0] - e * d)))) / (2 * e)
    assert float(jnp.sum(gx * d)) == pytest.approx(float(fd), rel=1e-6, abs=1e-8)


def test_dtypes():
    L, th = layer(order=2), phases(13)
    y64 = L(th)
    y32 = eqx.filter_jit(L)(th.astype(jnp.float32))
    y16 = eqx.filter_jit(L)(th.astype(jnp.bfloat16))
    assert (y64.dtype, y32.dtype, y16.dtype) == (jnp.float64, jnp.float32, jnp.bfloat16)
    assert_close(y32, y64, jnp.float32, scale=10)
    np.testing.assert_allclose(np.asarray(y16, np.float32), np.asarray(y32), atol=0.1)


@pytest.mark.slow  # about 7 s of compiling on the shared 2 cores
def test_collective_modes_match_brute_force_and_dtypes():
    B = nn.CollectiveModes(K, 5, H, key=jax.random.key(4), order=2, tau=1.3, bound=0.7)
    ks = jax.random.split(jax.random.key(5), 3)
    B = eqx.tree_at(lambda m: (m.c_real, m.c_imag, m.concentration), B,
                    (jax.random.normal(ks[0], (H, 2)), jax.random.normal(ks[1], (H, 2)),
                     jax.random.normal(ks[2], (5, K))))  # fmt: skip
    th = phases(14)
    y, aux = B(th, diagnostics=True)
    want, A, F = reference.collective_modes(B, th)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(B.weights(th), A)
    assert_close(aux["coupling"], F)
    y32 = eqx.filter_jit(B)(th.astype(jnp.float32))
    assert y32.dtype == jnp.float32
    assert_close(y32, want, jnp.float32, scale=10)
    assert eqx.filter_jit(B)(th.astype(jnp.bfloat16)).dtype == jnp.bfloat16
    g = eqx.filter_grad(lambda m, x: jnp.sum(jnp.cos(m(x))))(B, th)
    for name in ("modes", "concentration", "c_real", "log_tau"):
        assert np.any(np.asarray(getattr(g, name)) != 0), name


def test_collective_modes_match_brute_force():
    B = nn.CollectiveModes(K, 3, H, key=jax.random.key(4), order=2, tau=1.3)
    B = eqx.tree_at(lambda m: m.c_imag, B, jnp.full((H, 2), 0.4))
    th = phases(16)
    want, _, _ = reference.collective_modes(B, th)
    assert_close(B(th), want)


def test_bad_input():
    with pytest.raises(ValueError, match="order"):
        nn.FrustratedAttention(K, H, key=jax.random.key(0), order=0)
    with pytest.raises(ValueError, match="causal=True"):
        nn.FrustratedAttention(K, H, key=jax.random.key(0), causal=False)
    with pytest.raises(ValueError, match="divisible"):
        nn.FrustratedAttention(5, 2, key=jax.random.key(0))
    with pytest.raises(ValueError, match="frustration must be one of"):
        nn.FrustratedAttention(K, H, key=jax.random.key(0), frustration="fixed")
    for f in ("delay-only", "successor"):
        with pytest.raises(ValueError, match=f"frustration='{f}'.*delay=True"):
            nn.FrustratedAttention(K, H, key=jax.random.key(0), frustration=f, delay=False)
    L = layer()
    with pytest.raises(ValueError, match=r"\(T, k=4\)"):
        L(jnp.zeros((T, K + 1)))
    with pytest.raises(TypeError, match="floating"):
        L(jnp.zeros((T, K), jnp.int32))
    with pytest.raises(ValueError, match="mask"):
        L(phases(), mask=jnp.ones(T + 1, bool))
    with pytest.raises(ValueError, match="value='phase'"):
        nn.FrustratedAttention.from_kuramoto(nn.KuramotoAttention(K, H, key=jax.random.key(0), value="learned"))
    with pytest.raises(ValueError, match="KuramotoAttention"):
        nn.FrustratedAttention.from_kuramoto(L)
    with pytest.raises(ValueError, match="n_modes"):
        nn.CollectiveModes(K, 0, H, key=jax.random.key(0))
    with pytest.raises(ValueError, match="divisible"):
        nn.CollectiveModes(K, 3, 3, key=jax.random.key(0))
    with pytest.raises(ValueError, match=r"\(T, k=4\)"):
        nn.CollectiveModes(K, 3, H, key=jax.random.key(0))(jnp.zeros((T, 3)))


@pytest.mark.slow  # about 5 s eager; the default run checks the fast path against float64 above
def test_fused_path_equals_plain_composition(monkeypatch):
    # float32: y from the one-stream path; with diagnostics the plain Z, W are formed too
    monkeypatch.setattr(_common, "CPU_ATTENTION_BLOCK", 4)
    L = layer(order=3, tau=1.1)
    th = phases(15, (10, K)).astype(jnp.float32)
    pad = jnp.ones(10, bool).at[3].set(False)
    for mask in (None, pad):
        y, aux = L(th, mask=mask, diagnostics=True)
        s = L  # float32 parameters at construction
        Z, W = aux_streams = L._streams(th, *L._features(th)[:2], mask)
        from syncattn.nn._frustrated_attention import _daido_by_head

        F = _daido_by_head(th, Z, s.c_real, s.c_imag) + _daido_by_head(th, W, s.b_real, s.b_imag)
        assert_close(aux["coupling"], F, jnp.float32, scale=10)
        assert len(aux_streams) == 2
        np.testing.assert_array_equal(np.asarray(L(th, mask=mask)), np.asarray(y))

"""KuramotoAttention against a naive float64 loop; the identity, causality, paths, dtypes, errors."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import kuramoto, nn

from ..helpers import assert_close
from . import reference


T, K, H = 9, 6, 3


def layer(**kw):
    return nn.KuramotoAttention(K, H, key=jax.random.key(1), **kw)


def phases(seed=0, shape=(T, K)):
    return jax.random.uniform(jax.random.key(seed), shape, minval=-4.0, maxval=4.0)


@pytest.mark.parametrize("value", ["phase", "learned"])
@pytest.mark.parametrize("gates", [True, False])
def test_matches_naive_loop_float64(value, gates):
    L, th = layer(value=value, gates=gates, tau=1.7, bound=0.8), phases()
    y, aux = L(th, diagnostics=True)
    want, A, a = reference.kuramoto_attention(L, th)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(aux["coupling"], a)
    assert_close(L(th), y, rtol=0, atol=0)  # diagnostics do not change the output


@pytest.mark.parametrize("path", ["float64", "float32"])
def test_unnormalised_gates_match_naive_loop(path):
    # gate_norm="none": g = softplus(z), not divided by its mean; the reference loop
    # computes the scores from that definition
    L, th = layer(gate_norm="none", tau=1.3), phases(3)
    want, A, _ = reference.kuramoto_attention(L, th)
    if path == "float64":
        y, aux = L(th, diagnostics=True)
        assert_close(y, want)
        assert_close(aux["weights"], A)
    else:
        assert_close(eqx.filter_jit(L)(th.astype(jnp.float32)), want, jnp.float32)
    # the normalisation matters: the default layer (same parameters) differs
    assert not np.allclose(np.asarray(layer(tau=1.3)(th)), np.asarray(want), atol=1e-6)


def test_fused_path_float32_matches_naive():
    L, th = layer(), phases()
    want, _, _ = reference.kuramoto_attention(L, th)
    y = eqx.filter_jit(L)(th.astype(jnp.float32))
    assert y.dtype == jnp.float32
    assert_close(y, want, jnp.float32)


def test_coupling_diagnostic_is_kuramoto_coupling_term():
    L, th = layer(), phases(3)
    _, aux = L(th, diagnostics=True)
    kh = K // H
    for h in range(H):
        cols = slice(h * kh, (h + 1) * kh)
        want = kuramoto.coupling_term(th[:, cols], th[:, cols], aux["weights"][h])
        assert_close(aux["coupling"][:, cols], want)


def test_order_diagnostics():
    L, th = layer(), phases(4)
    _, aux = L(th, diagnostics=True)
    A = np.asarray(aux["weights"])
    thn = np.asarray(th)
    kh = K // H
    G = np.stack([A[j // kh] @ np.exp(1j * thn[:, j]) for j in range(K)], 1)
    assert_close(aux["local_order"], np.abs(G))
    assert_close(aux["global_order"], np.abs(np.exp(1j * thn).mean(0)))
    assert_close(aux["coherence"], np.real(np.exp(-1j * thn) * G))
    assert np.all(np.asarray(aux["local_order"]) <= 1 + 1e-12)


def test_weights_are_causal_rows_summing_to_one():
    _, aux = layer()(phases(), diagnostics=True)
    A = np.asarray(aux["weights"])
    assert A.shape == (H, T, T)
    assert np.all(np.triu(A, 1) == 0)
    assert_close(A.sum(-1), np.ones((H, T)))


@pytest.mark.parametrize("dtype", [jnp.float64, jnp.float32])
def test_causality_exact(dtype):
    L, th = layer(), phases().astype(dtype)
    f = eqx.filter_jit(L)
    y = f(th)
    for u in (3, T - 1):
        th2 = th.at[u:].add(1.234)
        np.testing.assert_array_equal(np.asarray(f(th2))[:u], np.asarray(y)[:u])


def test_bidirectional_sees_the_future():
    L, th = layer(causal=False), phases()
    y2 = L(th.at[-1].add(1.0))
    assert not np.allclose(np.asarray(y2)[0], np.asarray(L(th))[0])
    want, _, _ = reference.kuramoto_attention(L, th)
    assert_close(L(th), want)


def test_jit_grad_vmap():
    L = layer()
    thb = phases(5, (2, T, K))
    yb = jax.vmap(L)(thb)
    assert_close(yb[1], L(thb[1]))
    assert_close(eqx.filter_jit(L)(thb[0]), L(thb[0]))
    g = eqx.filter_jit(eqx.filter_grad(lambda m, t: jnp.sum(jnp.sin(m(t)))))(L, thb[0])
    leaves = jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    assert all(np.all(np.isfinite(np.asarray(x))) for x in leaves)
    assert any(np.any(np.asarray(x) != 0) for x in leaves)


def test_degenerate_inputs_finite_values_and_gradients():
    L = layer()

    @eqx.filter_jit
    def value_and_grads(m, t):
        gx = jax.grad(lambda t: jnp.sum(m(t)))(t)
        gm = eqx.filter_grad(lambda m: jnp.sum(m(t) ** 2))(m)
        return m(t), [gx, *jax.tree.leaves(eqx.filter(gm, eqx.is_inexact_array))]

    for theta in (jnp.zeros((T, K)), jnp.full((T, K), 0.3), phases(0, (1, K))):
        y, grads = value_and_grads(L, theta)
        for x in [y, *grads]:
            assert np.all(np.isfinite(np.asarray(x)))
        if theta.shape[0] > 1:  # all-equal phases are synchronised: no increment
            assert_close(y, theta)


def test_bfloat16_runs():
    L, th = layer(), phases()
    y32 = L(th.astype(jnp.float32))
    y16 = eqx.filter_jit(L)(th.astype(jnp.bfloat16))
    assert y16.dtype == jnp.bfloat16
    assert np.all(np.isfinite(np.asarray(y16, np.float32)))
    np.testing.assert_allclose(np.asarray(y16, np.float32), np.asarray(y32), atol=0.1)


def test_same_key_same_parameters_across_switches():
    a, b = layer(), layer(value="learned", gates=False)
    assert_close(a.gate_q.weight, b.gate_q.weight, rtol=0, atol=0)
    assert_close(a.omega, b.omega, rtol=0, atol=0)


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(k=7, n_heads=3), "divisible"),
        (dict(k=6, n_heads=0), "n_heads"),
        (dict(k=6, n_heads=3, tau=0.0), "tau"),
        (dict(k=6, n_heads=3, tau=-1.0), "tau"),
        (dict(k=6, n_heads=3, bound=0.0), "bound"),
        (dict(k=6, n_heads=3, value="projected"), "value"),
        (dict(k=6, n_heads=3, gate_norm="sum"), "gate_norm"),
    ],
)
def test_bad_hyperparameters(kw, match):
    with pytest.raises(ValueError, match=match):
        nn.KuramotoAttention(key=jax.random.key(0), **kw)


def test_bad_inputs():
    L = layer()
    with pytest.raises(ValueError, match="shape"):
        L(jnp.zeros((T, K + 1)))
    with pytest.raises(ValueError, match="unbatched"):
        L(jnp.zeros((2, T, K)))
    with pytest.raises(ValueError, match="T >= 1"):
        L(jnp.zeros((0, K)))
    with pytest.raises(TypeError, match="floating"):
        L(jnp.zeros((T, K), jnp.int32))


PAD = jnp.ones(T, bool).at[2].set(False).at[T - 2 :].set(False)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("value", ["phase", "learned"])
def test_key_padding_mask_matches_naive_loop_float64(causal, value):
    L, th = layer(causal=causal, value=value, tau=1.3), phases(6)
    y, aux = L(th, mask=PAD, diagnostics=True)
    want, A, a = reference.kuramoto_attention(L, th, PAD)
    assert_close(y, want)
    assert_close(aux["weights"], A)
    assert_close(aux["coupling"], a)
    assert np.all(np.asarray(aux["weights"])[:, :, ~np.asarray(PAD)] == 0)
    assert_close(L(th, mask=PAD), y, rtol=0, atol=0)  # diagnostics do not change it
    real = np.asarray(PAD)
    thn = np.asarray(th)[real]
    assert_close(aux["global_order"], np.abs(np.exp(1j * thn).mean(0)))


@pytest.mark.parametrize("causal", [True, False])
def test_key_padding_fused_path_float32_matches_naive(causal):
    L, th = layer(causal=causal), phases(7)
    want, _, _ = reference.kuramoto_attention(L, th, PAD)
    f = eqx.filter_jit(lambda m, t, k: m(t, mask=k))
    y = f(L, th.astype(jnp.float32), PAD)
    assert y.dtype == jnp.float32
    assert_close(y, want, jnp.float32)
    # what a padded token holds does not reach the real tokens' rows
    th2 = jnp.where(PAD[:, None], th, th + 2.5).astype(jnp.float32)
    real = np.asarray(PAD)
    assert_close(np.asarray(f(L, th2, PAD))[real], np.asarray(y)[real], jnp.float32)


@pytest.mark.parametrize("dtype", [jnp.float64, jnp.float32])
def test_rows_without_a_real_key_keep_their_unmasked_row(dtype):
    """All-False mask, and left padding: documented finite fallback, eager = jit."""
    L, th = layer(), phases(8).astype(dtype)
    jitted = eqx.filter_jit(lambda m, t, k: m(t, mask=k))
    unmasked = np.asarray(L(th))
    none = jnp.zeros(T, bool)
    for y in (L(th, mask=none), jitted(L, th, none)):
        assert np.all(np.isfinite(np.asarray(y)))
        assert_close(y, unmasked)
    left = jnp.arange(T) >= 3  # queries 0..2 see no real key
    y_eager, y_jit = np.asarray(L(th, mask=left)), np.asarray(jitted(L, th, left))
    assert_close(y_jit, y_eager)
    assert_close(y_eager[:3], unmasked[:3])
    if dtype == jnp.float64:
        want, _, _ = reference.kuramoto_attention(L, th, left)
        assert_close(y_eager, want)
    g = eqx.filter_jit(eqx.filter_grad(lambda m: jnp.sum(m(th, mask=none) ** 2)))(L)
    leaves = jax.tree.leaves(eqx.filter(g, eqx.is_inexact_array))
    assert all(np.all(np.isfinite(np.asarray(x))) for x in leaves)


@pytest.mark.parametrize("dtype", [jnp.float64, jnp.float32])
def test_causality_exact_with_mask(dtype):
    L, th = layer(), phases(9).astype(dtype)
    f = eqx.filter_jit(lambda m, t, k: m(t, mask=k))
    y = np.asarray(f(L, th, PAD))
    for u in (3, T - 1):
        th2 = th.at[u:].add(1.234)
        pad2 = PAD.at[u:].set(~PAD[u:])  # the future's padding changes too
        np.testing.assert_array_equal(np.asarray(f(L, th2, pad2))[:u], y[:u])


def test_bad_mask():
    L = layer()
    with pytest.raises(ValueError, match="mask"):
        L(phases(), mask=jnp.ones(T))
    with pytest.raises(ValueError, match="mask"):
        L(phases(), mask=jnp.ones(T + 1, bool))

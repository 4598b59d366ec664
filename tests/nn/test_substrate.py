"""nn.Substrate: the physical substrate of OscillatorAttention (issue 19, section 3)."""


import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import lohe, nn, sphere
from syncattn.nn import _substrate

from ..helpers import assert_close


T, D, H, DOSC, MAXLEN = 7, 12, 2, 3, 16
X = jax.random.normal(jax.random.key(1), (T, D))
SK = jax.random.key(5)


def layer(**kw):
    kw = {"key": jax.random.key(2), **kw}
    return nn.OscillatorAttention(D, H, kw.pop("d_osc", DOSC), MAXLEN, **kw)


IMPLS = [
    dict(),
    dict(impl="chunked", chunk=3),
    dict(impl="linear", chunk=3, coupling="elu1_features"),
    dict(equilibrium="ode", ode_t1=2.0),
]
IMPL_IDS = ["quadratic", "chunked", "linear", "ode"]


# ------------------------------------------------------------------ the ideal substrate
@pytest.mark.parametrize("kw", IMPLS, ids=IMPL_IDS)
def test_ideal_substrate_is_the_layer_bit_for_bit(kw):
    """Default, explicit ideal (train_with_substrate on), substrate_key passed, and a
    non-ideal substrate in training without train_with_substrate: outputs and
    gradients identical, and the same traced program."""
    L = layer(**kw)
    assert L.substrate.is_ideal and L.substrate == nn.Substrate()
    ideal = nn.with_substrate(L, nn.Substrate(train_with_substrate=True))
    off = nn.with_substrate(L, nn.Substrate(noise=0.5, coupling_mismatch=0.3))
    tk = jax.random.key(9)
    f = lambda m, x, **k: jnp.sum(m(x, **k) ** 2)
    for a, b in (
        (L(X), ideal(X, substrate_key=SK)),
        (L(X, key=tk), off(X, key=tk)),
        (L(X, key=tk), off(X, key=tk, substrate_key=SK)),
    ):
        assert np.array_equal(a, b)
    ga = jax.grad(f)(L, X)
    # gradients: ideal vs default bit for bit; training-mode non-ideal vs training-mode default
    for u, w in zip(
        jax.tree_util.tree_leaves(ga),
        jax.tree_util.tree_leaves(jax.grad(f)(ideal, X, substrate_key=SK)),
    ):
        assert np.array_equal(u, w)
    for u, w in zip(
        jax.tree_util.tree_leaves(jax.grad(f)(L, X, key=tk)),
        jax.tree_util.tree_leaves(jax.grad(f)(off, X, key=tk)),
    ):
        assert np.array_equal(u, w)
    assert str(jax.make_jaxpr(lambda x: L(x))(X)) == str(
        jax.make_jaxpr(lambda x: ideal(x, substrate_key=SK))(X)
    )
    # the substrate adds no leaves (checkpoints unchanged) and the hook is live
    assert len(jax.tree_util.tree_leaves(off)) == len(jax.tree_util.tree_leaves(L))
    assert not np.allclose(off(X, substrate_key=SK), L(X))


def test_with_substrate_reaches_every_layer_of_a_model():
    from syncattn import models

    cfg = models.get_config("tiny", attention="oscillator", d_osc=2, vocab_size=11,
                            n_layers=2, positions="sinusoidal")  # fmt: skip
    m = models.build(cfg, key=jax.random.key(0))
    tok = jnp.arange(T) % 11
    sub = nn.Substrate(noise=0.4, noise_mode="expected")
    noisy = nn.with_substrate(m, sub)
    layers = [a for a in jax.tree_util.tree_leaves(
        noisy, is_leaf=lambda a: isinstance(a, nn.OscillatorAttention))
        if isinstance(a, nn.OscillatorAttention)]  # fmt: skip
    assert len(layers) == 2 and all(a.substrate == sub for a in layers)
    assert np.array_equal(m(tok), nn.with_substrate(noisy, nn.Substrate())(tok))
    with pytest.raises(ValueError, match="substrate_key"):
        noisy(tok)
    a, b = noisy(tok, substrate_key=SK), noisy(tok, substrate_key=SK)
    assert np.array_equal(a, b) and not np.allclose(a, m(tok))
    # training: ideal unless train_with_substrate (then a key folded from the dropout key)
    tk = jax.random.key(3)
    assert np.array_equal(noisy(tok, key=tk), m(tok, key=tk))
    aware = nn.with_substrate(m, nn.Substrate(noise=0.4, noise_mode="expected",
                                              train_with_substrate=True))  # fmt: skip
    assert not np.allclose(aware(tok, key=tk), m(tok, key=tk))
    # each block its own draws: block b gets fold_in(substrate_key, b)
    clf = models.Classifier(
        models.get_config("paper-b-sva", attention="oscillator", n_heads=2, d_ff=16,
                          max_len=12, positions="none", pad_id=None),
        key=jax.random.key(0), in_features=5, n_classes=3,
    )  # fmt: skip
    u = jax.random.normal(jax.random.key(4), (T, 5))
    c = nn.with_substrate(clf, nn.Substrate(coupling_mismatch=0.5))
    assert c.pooled(u, substrate_key=SK).shape == (3,)
    assert not np.allclose(c.pooled(u, substrate_key=SK), clf.pooled(u))


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kw, err, match",
    [
        (dict(noise=-0.1), ValueError, "Substrate.noise"),
        (dict(noise=float("nan")), ValueError, "Substrate.noise"),
        (dict(coupling_mismatch=-1.0), ValueError, "Substrate.coupling_mismatch"),
        (dict(frequency_disorder=float("inf")), ValueError, "Substrate.frequency_disorder"),
        (dict(settle_time=0.0), ValueError, "Substrate.settle_time"),
        (dict(settle_time=-2.0), ValueError, "Substrate.settle_time"),
        (dict(readout_bits=0), ValueError, "Substrate.readout_bits"),
        (dict(readout_bits=2.5), TypeError, "Substrate.readout_bits"),
        (dict(noise="a"), TypeError, "Substrate.noise"),
        (dict(noise_mode="mean"), ValueError, "noise_mode"),
        (dict(noise=0.1, noise_mode="expected", settle_time=1.0), ValueError, "expected"),
        (dict(dt=0.0), ValueError, "Substrate.dt"),
    ],
)
def test_bad_substrate(kw, err, match):
    with pytest.raises(err, match=match):
        nn.Substrate(**kw)


def test_bad_use():
    with pytest.raises(TypeError, match="substrate must be"):
        layer(substrate=dict(noise=0.1))
    with pytest.raises(TypeError, match="substrate must be"):
        nn.with_substrate(layer(), 0.1)
    with pytest.raises(ValueError, match="substrate_key"):
        layer(substrate=nn.Substrate(readout_bits=4))(X)
    with pytest.raises(ValueError, match="p in"):
        layer(p=3, substrate=nn.Substrate(noise=0.2, noise_mode="expected"))(
            X, substrate_key=SK
        )


# ------------------------------------------------------------------ float64 reference
def reference(L, x, *, eps=0.0, xi=None, zmap=None):
    """The layer by hand in numpy float64 (causal, position anchors, no padding):
    w = sigma(q.k/sqrt(d_h)) (1 + eps xi), h = w r, z = zmap(h) (default h/|h|),
    a = mu max(0, 1 + z.r)^p / sum, y = W_o (a v) + b."""
    x = np.asarray(x, np.float64)
    dh = L.d_head
    proj = lambda lin: np.einsum("hed,td->hte", np.asarray(lin.weight).reshape(H, dh, D), x)
    q, k, v = proj(L.wq), proj(L.wk), proj(L.wv)
    n = x.shape[0]
    if L.coupling == "softplus":
        w = np.logaddexp(0.0, q @ np.swapaxes(k, -1, -2) / math.sqrt(dh))
    else:  # elu1_features: phi(q).phi(k)/d_h, phi = elu + 1
        phi = lambda a: np.where(a > 0, a + 1.0, np.exp(a))
        w = phi(q) @ np.swapaxes(phi(k), -1, -2) / dh
    if xi is not None:
        w = w * (1.0 + eps * np.asarray(xi))
    mu = np.tril(np.ones((n, n)))
    w = w * mu
    r = np.asarray(L.anchor_table[:, :n], np.float64)
    r = r / np.linalg.norm(r, axis=-1, keepdims=True)
    h = w @ r
    z = h / np.linalg.norm(h, axis=-1, keepdims=True) if zmap is None else zmap(h)
    u = mu * np.maximum(0.0, 1.0 + z @ np.swapaxes(r, -1, -2)) ** L.p
    a = u / u.sum(-1, keepdims=True)
    out = (a @ v).transpose(1, 0, 2).reshape(n, H * dh)
    return out @ np.asarray(L.wo.weight).T + np.asarray(L.wo.bias)


def z0_of(L, n=T):
    return np.asarray(sphere.sample_uniform(jax.random.key(L.ode_seed), (H, n), L.d_osc))


def test_reference_is_the_ideal_layer():
    L = layer()
    assert_close(L(X), reference(L, X))


@pytest.mark.parametrize("kw", IMPLS[:3], ids=IMPL_IDS[:3])
def test_coupling_mismatch_against_float64_loop(kw):
    L = layer(**kw)
    Ls = nn.with_substrate(L, nn.Substrate(coupling_mismatch=0.3))
    xi = _substrate.mismatch_normals(jax.random.fold_in(SK, 1), H, T, jnp.float64)
    y = Ls(X, substrate_key=SK)
    assert_close(y, reference(L, X, eps=0.3, xi=xi))
    assert not np.allclose(y, L(X))
    # xi is a function of (key, head, query, key position): not of T, not of impl
    big = _substrate.mismatch_normals(SK, H, 12, jnp.float64)
    assert np.array_equal(_substrate.mismatch_normals(SK, H, 5, jnp.float64), big[:, :5, :5])
    draws = np.asarray(_substrate.mismatch_normals(SK, 4, 40, jnp.float64)).ravel()
    assert abs(draws.mean()) < 4 / np.sqrt(draws.size)
    assert abs(draws.std() - 1) < 4 / np.sqrt(2 * draws.size)


def _quantise_np(z, bits):
    levels = -1 + (np.arange(2**bits) + 0.5) * 2.0 / 2**bits
    q = levels[np.argmin(np.abs(z[..., None] - levels), axis=-1)]  # the nearest level
    return q / np.maximum(1.0, np.linalg.norm(q, axis=-1, keepdims=True))


@pytest.mark.parametrize("bits", [1, 2, 5])
def test_readout_bits_against_nearest_level_quantiser(bits):
    L = layer()
    Ls = nn.with_substrate(L, nn.Substrate(readout_bits=bits))
    zmap = lambda h: _quantise_np(h / np.linalg.norm(h, axis=-1, keepdims=True), bits)
    assert_close(Ls(X, substrate_key=SK), reference(L, X, zmap=zmap))
    g = np.random.default_rng(bits).uniform(-1, 1, (200, 3))
    assert_close(_substrate.quantise(jnp.asarray(g), bits), _quantise_np(g, bits))
    # straight-through: the quantiser's gradient is the identity
    assert_close(jax.grad(lambda a: jnp.sum(_substrate.quantise(a, bits) * g))(jnp.asarray(g)), g)


def test_settle_time_closed_form_is_the_layers_ode_at_that_horizon():
    """Substrate(settle_time=T) on the closed-form layer (lohe.exact_angle in the plane
    of z0, h) against equilibrium='ode' at ode_t1 = T (lohe.settle, diffrax)."""
    Tset = 0.15
    L = layer()
    Ls = nn.with_substrate(L, nn.Substrate(settle_time=Tset))
    ode = layer(equilibrium="ode", ode_t1=Tset, ode_rtol=1e-11, ode_atol=1e-12)
    y = Ls(X, substrate_key=SK)
    assert_close(y, ode(X), scale=1e4)
    assert not np.allclose(y, L(X), atol=1e-3)  # unconverged at this horizon
    _, aux = Ls(X, substrate_key=SK, diagnostics=True)
    phi = np.arccos(np.clip(np.sum(np.asarray(aux["z"]) * np.asarray(aux["h"]), -1)
                            / np.linalg.norm(aux["h"], axis=-1), -1, 1))  # fmt: skip
    phi0 = np.arccos(np.clip(np.sum(z0_of(L) * np.asarray(aux["h"]), -1)
                             / np.linalg.norm(aux["h"], axis=-1), -1, 1))  # fmt: skip
    want = 2 * np.arctan(np.tan(phi0 / 2) * np.exp(-np.linalg.norm(aux["h"], axis=-1) * Tset))
    assert_close(phi, want, scale=1e4)


def test_frequency_disorder_against_scipy_and_the_locked_state():
    """z(T) of zdot = Omega z + (I - zz^T) h from the layer's z0 against scipy's DOP853
    (float64), Omega_i from the substrate's draw; at a long horizon the locked queries
    sit at lohe.locked_state."""
    from scipy.integrate import solve_ivp

    s, Tset = 0.4, 3.0
    L = layer()
    Om = np.asarray(_substrate.disorder_matrices(jax.random.fold_in(SK, 2), H, T, DOSC, s,
                                                 jnp.float64))  # fmt: skip
    assert_close(Om, -np.swapaxes(Om, -1, -2))
    z0 = z0_of(L)

    def zmap(h):
        out = np.empty_like(h)
        for a in range(H):
            for i in range(T):
                f = lambda t, z: Om[a, i] @ z + h[a, i] - (z @ h[a, i]) * z
                out[a, i] = solve_ivp(f, (0, Tset), z0[a, i], method="DOP853",
                                      rtol=1e-11, atol=1e-12).y[:, -1]  # fmt: skip
        return out

    Ls = nn.with_substrate(L, nn.Substrate(frequency_disorder=s, settle_time=Tset))
    assert_close(Ls(X, substrate_key=SK), reference(L, X, zmap=zmap), scale=1e5)
    # settle_time None: the layer's horizon ode_t1 = 30
    _, aux = nn.with_substrate(L, nn.Substrate(frequency_disorder=s))(
        X, substrate_key=SK, diagnostics=True
    )
    res = lohe.locked_state(jnp.asarray(Om[0, -1]), aux["h"][0, -1])
    assert bool(res.locked) and float(res.rate) * 30 > 10
    assert_close(aux["z"][0, -1], res.z, scale=1e5)


def test_noise_path_reproducible_and_on_the_sphere():
    L = layer()
    Ls = nn.with_substrate(L, nn.Substrate(noise=0.3, settle_time=1.0, dt=0.05))
    a, b = Ls(X, substrate_key=SK), Ls(X, substrate_key=SK)
    assert np.array_equal(a, b)
    assert_close(jax.jit(lambda k: Ls(X, substrate_key=k))(SK), a)
    assert not np.allclose(Ls(X, substrate_key=jax.random.key(6)), a)
    _, aux = Ls(X, substrate_key=SK, diagnostics=True)
    assert_close(np.linalg.norm(aux["z"], axis=-1), np.ones((H, T)))


def _balanced(p, **kw):
    """Non-causal d_osc = 2 layer over 4 keys with anchors e1, -e1, e2, -e2: the
    readout's denominator is constant on the circle, so the readout of the expected
    scores is the expected output exactly (lohe.vmf_readout)."""
    import equinox as eqx

    L = nn.OscillatorAttention(D, H, 2, 4, key=jax.random.key(2), causal=False, p=p, **kw)
    r = jnp.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    return eqx.tree_at(lambda m: m.anchor_table, L, jnp.broadcast_to(r, (H, 4, 2)))


@pytest.mark.parametrize("p", [1, 2])
def test_expected_readout_against_vmf_readout(p):
    """The fast path's weights: lohe.vmf_readout of the layer's own drive."""
    L = _balanced(p)
    x = X[:4]
    sub = nn.Substrate(noise=0.7, noise_mode="expected")
    y = nn.with_substrate(L, sub)(x, substrate_key=SK)
    _, aux = L(x, diagnostics=True)
    a = lohe.vmf_readout(aux["h"], 0.7, aux["anchors"][:, None], p=p)
    v = np.einsum("hed,td->hte", np.asarray(L.wv.weight).reshape(H, L.d_head, D), x)
    out = (np.asarray(a) @ v).transpose(1, 0, 2).reshape(4, -1)
    assert_close(y, out @ np.asarray(L.wo.weight).T + np.asarray(L.wo.bias))
    assert not np.allclose(y, L(x))


@pytest.mark.slow
@pytest.mark.parametrize("p", [1, 2])
def test_expected_readout_is_the_monte_carlo_of_the_sampled_path(p):
    """noise_mode='expected' against the mean output of 256 sampled SDE paths
    (noise_mode='path', T = 10 from the layer's z0, dt = 0.01), within 4 s.e."""
    L = _balanced(p)
    x = X[:4]
    s, n = 1.0, 256
    want = np.asarray(nn.with_substrate(L, nn.Substrate(noise=s, noise_mode="expected"))(
        x, substrate_key=SK))  # fmt: skip
    path = nn.with_substrate(L, nn.Substrate(noise=s, settle_time=10.0))
    ys = np.asarray(jax.vmap(lambda k: path(x, substrate_key=k))(
        jax.random.split(jax.random.key(8), n)))  # fmt: skip
    est, se = ys.mean(0), ys.std(0) / np.sqrt(n)
    assert np.all(np.abs(est - want) <= 4 * se + 1e-12), np.max(np.abs(est - want) / se)
    # the check can fail: the ideal (noise-free) output is far outside the band
    assert np.any(np.abs(est - np.asarray(L(x))) > 4 * se)


def test_train_with_substrate_uses_a_key_folded_from_the_training_key():
    L = layer()
    sub = nn.Substrate(coupling_mismatch=0.4, readout_bits=3, train_with_substrate=True)
    Ls = nn.with_substrate(L, sub)
    tk = jax.random.key(9)
    y = Ls(X, key=tk)
    assert np.array_equal(y, Ls(X, substrate_key=jax.random.fold_in(tk, 0x5B57)))
    assert not np.allclose(y, L(X, key=tk))
    g = jax.grad(lambda m: jnp.sum(m(X, key=tk) ** 2))(Ls)
    assert all(np.all(np.isfinite(a)) for a in jax.tree_util.tree_leaves(g))
    assert np.any(np.asarray(g.anchor_table) != 0)  # straight-through past the quantiser


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_every_substrate_runs_in_low_precision(dtype):
    L = layer(d_osc=2)
    x = X.astype(dtype)
    for sub in (
        nn.Substrate(noise=0.3, noise_mode="expected"),
        nn.Substrate(noise=0.3, settle_time=0.5, dt=0.1),
        nn.Substrate(frequency_disorder=0.3, settle_time=0.5),
        nn.Substrate(coupling_mismatch=0.2, readout_bits=4),
    ):
        y = nn.with_substrate(L, sub)(x, substrate_key=SK)
        assert y.dtype == dtype and bool(jnp.all(jnp.isfinite(y.astype(jnp.float32))))


# ------------------------------------------------------------------ the softmax analogue
def test_perturbed_softmax_mismatch_reweights_the_layers_own_weights():
    """nn.perturbed_softmax's mismatch against the softmax weights reweighted in float64,
    a~_ij = a_ij (1 + eps xi_ij) / sum_l a_il (1 + eps xi_il), y = W_o [a~ v]_heads; with
    eps = 0 and no bits it is the layer (the bits path and the mask against a float64
    loop: tests/experiments/test_robustness.py::test_perturbed_softmax_is_the_loop)."""
    sm = nn.SoftmaxAttention(8, 2, key=jax.random.key(0), causal=True, rope=False)
    x = jax.random.normal(jax.random.key(1), (5, 8), jnp.float64)
    key, eps = jax.random.key(3), 0.4
    W = {n: np.asarray(getattr(sm, n).weight, np.float64) for n in ("wq", "wk", "wv", "wo")}
    xs = np.asarray(x)
    q = (xs @ W["wq"].T).reshape(5, 2, 4) / 2.0  # / sqrt(d_h)
    k = (xs @ W["wk"].T).reshape(5, 2, 4)
    s = np.where(np.tril(np.ones((5, 5), bool)), np.einsum("thd,uhd->htu", q, k), -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a = a / a.sum(-1, keepdims=True)  # the layer's causal softmax weights (H, T, T)
    got, ideal, plain, xi = jax.jit(lambda x: (  # one compilation (eagerly, each op compiles)
        nn.perturbed_softmax(sm, x, key, mismatch=eps), nn.perturbed_softmax(sm, x, key), sm(x),
        _substrate.mismatch_normals(jax.random.fold_in(key, _substrate._MISMATCH), 2, 5, x.dtype),
    ))(x)  # fmt: skip
    xi = np.asarray(xi)
    w = a * (1 + eps * xi)
    w = w / w.sum(-1, keepdims=True)
    v = (xs @ W["wv"].T).reshape(5, 2, 4)
    heads = np.stack([w[h] @ v[:, h] for h in range(2)], 1).reshape(5, 8)
    want = heads @ W["wo"].T + (0 if sm.wo.bias is None else np.asarray(sm.wo.bias))
    assert_close(got, want)
    assert_close(ideal, plain)
    with pytest.raises(TypeError, match="SoftmaxAttention"):
        nn.perturbed_softmax(nn.RMSNorm(8), X, key)
    with pytest.raises(ValueError, match="mismatch"):
        nn.perturbed_softmax(sm, x, key, mismatch=-0.1)
    with pytest.raises(ValueError, match="bits"):
        nn.perturbed_softmax(sm, x, key, bits=0)

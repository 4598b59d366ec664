"""nn.Substrate: the physical substrate of OscillatorAttention (issue 19, section 3)."""


import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import nn


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

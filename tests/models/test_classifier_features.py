"""The Classifier on feature sequences: the linear input projection and the pooled head."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models

from ..helpers import assert_close


def _cfg(attention, **kw):
    return models.get_config(
        "paper-b-sva", attention=attention, n_heads=2, d_ff=128, max_len=12,
        positions=kw.pop("positions", "none"), final_norm=False, pad_id=None, **kw,
    )  # fmt: skip


@pytest.fixture(params=["oscillator", "softmax"])
def kws_model(request):
    return models.Classifier(
        _cfg(request.param), key=jax.random.key(0), in_features=5, n_classes=4
    )


def _features(T=9, F=5, seed=1):
    return jax.random.normal(jax.random.key(seed), (T, F))


def test_projection_then_blocks_is_the_plain_composition(kws_model):
    u = _features()
    enc = kws_model.encoder
    assert enc.embedding is None and enc.projection.weight.shape == (32, 5)
    # by hand: x0 = W u_t + b (no positions, no dropout), then the block
    x = u @ enc.projection.weight.T + enc.projection.bias[None, :]
    for block in enc.blocks:
        x = block(x)
    assert_close(enc(u), x)
    # with sinusoidal positions: + P_t
    m = models.Classifier(_cfg("softmax", positions="sinusoidal"), key=jax.random.key(0),
                          in_features=5, n_classes=4)  # fmt: skip
    x = u @ m.encoder.projection.weight.T + m.encoder.projection.bias[None, :]
    x = x + models.sinusoidal_positions(9, 32, dtype=x.dtype)
    for block in m.encoder.blocks:
        x = block(x)
    assert_close(m.encoder(u), x)


def test_pooled_is_the_head_of_the_mean_feature(kws_model):
    u = _features()
    h = np.asarray(kws_model.encoder(u), np.float64)
    W, b = np.asarray(kws_model.head.weight), np.asarray(kws_model.head.bias)
    assert_close(kws_model.pooled(u), h.mean(0) @ W.T + b)
    assert kws_model(u).shape == (9, 4)
    assert_close(kws_model.pooled(u), kws_model(u).mean(0))
    # masked: a float64 loop over the kept positions, on the masked encoder
    mask = jnp.array([True, False, True, True, False, True, True, True, False])
    hm = np.asarray(kws_model.encoder(u, mask=mask), np.float64)
    want = sum(hm[t] for t in range(9) if mask[t]) / int(mask.sum())
    assert_close(kws_model.pooled(u, mask=mask), want @ W.T + b)


def test_bidirectional(kws_model):
    u = _features()
    v = u.at[-1].add(1.0)  # change the last frame only
    # non-causal: the first position sees the last frame
    assert not np.allclose(kws_model(u)[0], kws_model(v)[0])


def test_batched_dropout_and_gradient():
    kws_model = models.Classifier(_cfg("softmax"), key=jax.random.key(0), in_features=5,
                                  n_classes=4)  # fmt: skip
    u = _features()
    v = u.at[-1].add(1.0)
    batch = jnp.stack([u, v])
    out = jax.jit(jax.vmap(kws_model.pooled))(batch)
    assert_close(out, jnp.stack([kws_model.pooled(u), kws_model.pooled(v)]))
    # dropout changes the output with a key, and not without one
    k = jax.random.key(3)
    assert not np.allclose(kws_model.pooled(u, key=k), kws_model.pooled(u))
    # gradients reach the input projection
    g = jax.grad(lambda m: jnp.sum(m.pooled(u) ** 2))(kws_model)
    assert float(jnp.abs(g.encoder.projection.weight).max()) > 0


def test_params_of_seed001_kws_model():
    """Seed 001's spotter (40 -> 32, 1 block, 2 heads, d_osc 2, FFN 128, 32 -> 10):
    the parameter count by hand."""
    cfg = models.get_config("paper-b-sva", attention="oscillator", n_heads=2, d_ff=128,
                            max_len=49, positions="none", final_norm=False, pad_id=None)  # fmt: skip
    m = models.Classifier(cfg, key=jax.random.key(0), in_features=40, n_classes=10)
    d = 32
    proj, ln = 40 * d + d, 2 * d
    attn = 3 * d * d + (d * d + d) + 2 * 49 * 2  # W_q, W_k, W_v; W_o + bias; anchors
    ffn = (d * 128 + 128) + (128 * d + d)
    head = d * 10 + 10
    assert models.count_params(m) == proj + 2 * ln + attn + ffn + head


def test_bad_inputs():
    kws_model = models.Classifier(_cfg("softmax"), key=jax.random.key(0), in_features=5,
                                  n_classes=4)  # fmt: skip
    with pytest.raises(TypeError, match="floating array of shape"):
        kws_model(jnp.arange(9))
    with pytest.raises(ValueError, match="in_features=5"):
        kws_model(_features(F=6))
    with pytest.raises(ValueError, match="max_len=12"):
        kws_model(_features(T=13))
    with pytest.raises(ValueError, match="n_classes must be"):
        models.Classifier(_cfg("softmax"), key=jax.random.key(0), n_classes=1)
    with pytest.raises(ValueError, match="in_features must be"):
        models.Classifier(_cfg("softmax"), key=jax.random.key(0), in_features=0)
    plain = models.Classifier(_cfg("softmax", vocab_size=7), key=jax.random.key(0))
    with pytest.raises(ValueError, match="pooled needs"):
        plain.pooled(jnp.arange(5))
    # the token model is unchanged: one logit per position
    assert plain(jnp.arange(5)).shape == (5,) and plain.encoder.projection is None

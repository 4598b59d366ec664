"""Transformer LM and agreement classifier: shapes, causality, masks, dropout,
dtypes, jit/grad/vmap, and the GELU feed-forward against an independent formula."""

import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models

from ..helpers import assert_close
from ._lm import check_causal, finite_loss_grad


# The default block of these tests: seed 001's LayerNorm + GELU.
BASE = dict(norm="layernorm", ffn="gelu")
POSITIONS = ["sinusoidal", "learned", "none"]


def lm(attention="softmax", **kw):
    cfg = models.get_config("tiny", attention=attention, **{**BASE, **kw})
    return models.build(cfg, key=jax.random.key(0))


def clf(attention="softmax", **kw):
    kw.setdefault("pad_id", None)  # the padding tests set it
    cfg = models.get_config(
        "paper-b-sva", attention=attention, d_model=16, d_ff=32, n_heads=2, **kw
    )
    return models.build(cfg, key=jax.random.key(0))


def tokens(T, vocab=256, seed=0, low=0):
    return jax.random.randint(jax.random.key(seed), (T,), low, vocab, dtype=jnp.int32)


ATTENTIONS = ["softmax", "oscillator"]
# (norm, ffn, positions): seed 001's LayerNorm + GELU with every additive position,
# and the RMSNorm + SwiGLU baseline with sinusoids or RoPE.
VARIANTS = [("layernorm", "gelu", p) for p in POSITIONS] + [
    ("rmsnorm", "swiglu", "sinusoidal"),
    ("rmsnorm", "swiglu", "rope"),
]


def _jit_call(m, x, key=None, mask=None):
    return m(x, key=key, mask=mask)


jit_call = eqx.filter_jit(_jit_call)


@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("norm, ffn, positions", VARIANTS)
def test_lm_shape_and_causality(attention, norm, ffn, positions):
    if attention == "oscillator" and positions == "rope":
        pytest.skip("the oscillator layer has no RoPE")
    model = lm(attention, norm=norm, ffn=ffn, positions=positions)
    out = check_causal(jit_call, model, tokens(12), (0, 5, 10), shift=17)
    assert out.shape == (12, 256) and out.dtype == jnp.float64


def test_lm_no_final_norm():
    model = lm(final_norm=False)
    assert model.encoder.final_norm is None
    assert jit_call(model, tokens(5)).shape == (5, 256)


def test_lm_ffn_none_and_tied_head():
    model = lm(ffn="none")
    assert model.encoder.blocks[0].ffn is None
    assert jit_call(model, tokens(5)).shape == (5, 256)
    tied = lm(tie_embeddings=True)
    untied = lm()
    assert tied.head is None
    d, V = tied.config.d_model, tied.config.vocab_size
    assert models.count_params(untied) - models.count_params(tied) == d * V + V
    x = tokens(6)
    feats = tied.encoder(x)
    assert_close(jit_call(tied, x), feats @ tied.encoder.embedding.T)


def test_pad_row_reads_zero_and_gets_no_gradient():
    model = lm(pad_id=0)
    assert float(jnp.abs(model.encoder.embedding[0]).max()) == 0.0
    x = jnp.array([5, 0, 7, 0, 3], jnp.int32)

    def loss(m):
        return jnp.sum(m(x) ** 2)

    g = eqx.filter_jit(eqx.filter_grad(loss))(model)
    assert float(jnp.abs(g.encoder.embedding[0]).max()) == 0.0
    assert float(jnp.abs(g.encoder.embedding[5]).max()) > 0.0


def test_dropout_key_none_is_deterministic_and_key_changes_output():
    model = lm(dropout=0.3)
    x = tokens(10)
    np.testing.assert_array_equal(jit_call(model, x), jit_call(model, x, None))
    a = jit_call(model, x, key=jax.random.key(1))
    b = jit_call(model, x, key=jax.random.key(1))
    c = jit_call(model, x, key=jax.random.key(2))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, jit_call(model, x))
    assert not np.allclose(a, c)
    # dropout off: a key changes nothing
    m0 = lm(dropout=0.0)
    np.testing.assert_array_equal(
        jit_call(m0, x, key=jax.random.key(3)), jit_call(m0, x)
    )


def test_dropout_function_scales_and_masks():
    x = jnp.ones((20000,))
    y = models.dropout(x, 0.25, jax.random.key(0))
    kept = np.asarray(y) != 0
    np.testing.assert_allclose(np.asarray(y)[kept], 1 / 0.75)
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_array_equal(models.dropout(x, 0.25, None), x)


def test_gelu_ffn_matches_erf_formula():
    from scipy.special import erf

    ffn = models.GeluFFN(4, 6, key=jax.random.key(0))
    x = np.asarray(jax.random.normal(jax.random.key(1), (3, 4)))
    W1, b1 = np.asarray(ffn.lin1.weight), np.asarray(ffn.lin1.bias)
    W2, b2 = np.asarray(ffn.lin2.weight), np.asarray(ffn.lin2.bias)
    h = x @ W1.T + b1
    h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
    assert_close(ffn(jnp.asarray(x)), h @ W2.T + b2, scale=0.01)


# Forward error of a cast model against float64, relative to the largest logit:
# rounding compounded through every layer (a measured budget, not one rounding unit).
LOW_PRECISION_BUDGET = {
    "lm": {jnp.float32: 1e-4, jnp.bfloat16: 0.15},
    "oscillator": {jnp.float32: 1e-3, jnp.bfloat16: 0.1},
}


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_lm_low_precision_forward(dtype):
    model = models.cast(lm(positions="sinusoidal"), dtype)
    out = jit_call(model, tokens(9))
    assert out.dtype == dtype
    assert bool(jnp.all(jnp.isfinite(out)))
    ref = jit_call(lm(positions="sinusoidal"), tokens(9))
    tol = LOW_PRECISION_BUDGET["lm"][dtype]
    assert float(jnp.max(jnp.abs(out.astype(jnp.float64) - ref))) < tol * float(
        jnp.max(jnp.abs(ref))
    )


def test_jit_grad_vmap_over_a_batch():
    model = lm(dropout=0.1, positions="learned")
    batch = jax.vmap(lambda k: jax.random.randint(k, (8,), 0, 256, dtype=jnp.int32))(
        jax.random.split(jax.random.key(4), 3)
    )
    finite_loss_grad(model, batch)
    # vmap equals the per-sequence loop
    batched = eqx.filter_jit(lambda m, b: jax.vmap(m)(b))(model, batch)
    for i in range(batch.shape[0]):
        assert_close(batched[i], jit_call(model, batch[i]), scale=0.01)


def test_bad_tokens():
    model = lm()
    with pytest.raises(TypeError, match="integer array"):
        model(jnp.zeros((4,)))
    with pytest.raises(ValueError, match="use jax.vmap for a batch"):
        model(jnp.zeros((2, 4), jnp.int32))
    with pytest.raises(ValueError, match="max_len=64; got T=65"):
        model(jnp.zeros((65,), jnp.int32))
    with pytest.raises(ValueError, match="1 <= T"):
        model(jnp.zeros((0,), jnp.int32))
    with pytest.raises(
        ValueError, match=r"\[0, vocab_size=256\); got range \[0, 300\]"
    ):
        model(jnp.array([0, 300], jnp.int32))
    with pytest.raises(ValueError, match="mask must be a boolean array of shape"):
        model(jnp.zeros((4,), jnp.int32), mask=jnp.ones((3,), bool))
    with pytest.raises(TypeError, match="ModelConfig"):
        models.build({"d_model": 4}, key=jax.random.key(0))


# --------------------------------------------------------------------------- classifier


@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("positions", POSITIONS)
def test_classifier_shapes_and_classify(attention, positions):
    model = clf(attention, positions=positions)
    x = tokens(9, vocab=169, low=1)
    out = model(x)
    assert out.shape == (9,)
    for pos in (0, 4, 8):
        np.testing.assert_array_equal(model.classify(x, pos), out[pos])
    np.testing.assert_array_equal(model.classify(x, jnp.int32(4)), out[4])
    assert_close(jit_call(model, x), out, scale=0.01)
    with pytest.raises(ValueError, match=r"position must lie in \[0, 9\)"):
        model.classify(x, 9)
    with pytest.raises(ValueError, match="integer scalar"):
        model.classify(x, 1.0)


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_classifier_is_bidirectional(attention):
    model = clf(attention)
    x = tokens(9, vocab=169, low=1)
    y = x.at[8].set(x[8] % 168 + 1)
    assert not np.allclose(jit_call(model, x)[0], jit_call(model, y)[0])


def test_classifier_head_is_linear_at_final_norm():
    model = clf()
    x = tokens(7, vocab=169, low=1)
    feats = model.encoder(x)
    w, b = model.head.weight[0], model.head.bias[0]
    assert_close(jit_call(model, x), feats @ w + b, scale=0.01)
    # final LayerNorm: each row has zero mean and unit variance before its affine map
    ln = model.encoder.final_norm
    pre = (feats - ln.bias[None, :]) / ln.weight[None, :]
    assert_close(pre.mean(-1), 0.0)


def _pad(x, n):
    return jnp.concatenate([x, jnp.zeros((n,), jnp.int32)])


@pytest.mark.parametrize(
    "attention, mask_readout",
    [("softmax", False), ("oscillator", True)],
)
def test_classifier_right_padding_changes_no_real_position(attention, mask_readout):
    """Keys equal to pad_id are masked: appending padding leaves real positions alone."""
    kw = {"mask_readout": True} if mask_readout else {}
    model = clf(attention, pad_id=0, **kw)
    x = tokens(6, vocab=169, low=1)
    ref = jit_call(model, x)
    assert_close(jit_call(model, _pad(x, 4))[:6], ref)
    # the default mask is tokens != pad_id
    np.testing.assert_array_equal(
        jit_call(model, _pad(x, 4)), jit_call(model, _pad(x, 4), mask=_pad(x, 4) != 0)
    )
    # an explicit all-True mask lets the pads in
    explicit = jit_call(model, _pad(x, 4), mask=jnp.ones((10,), bool))
    assert not np.allclose(explicit[:6], ref)


def test_oscillator_classifier_published_padding_semantics():
    """Seed 001's layer masks padded keys before the fixed point only (B0): the
    readout still weighs them, so padding moves real positions unless
    mask_readout=True."""
    model = clf("oscillator", pad_id=0)
    assert not model.config.osc.mask_readout
    x = tokens(6, vocab=169, low=1)
    assert not np.allclose(jit_call(model, _pad(x, 4))[:6], jit_call(model, x))


def test_classifier_jit_grad_vmap():
    model = clf(dropout=0.1)
    batch = jnp.stack([tokens(7, vocab=169, low=1, seed=s) for s in range(3)])
    verbs = jnp.array([2, 4, 6])
    labels = jnp.array([1.0, 0.0, 1.0])

    @eqx.filter_jit
    def loss(m, key):
        keys = jax.random.split(key, 3)
        logits = jax.vmap(lambda t, v, k: m.classify(t, v, key=k))(batch, verbs, keys)
        return jnp.mean(jax.nn.softplus(logits) - labels * logits)  # BCE with logits

    val, g = eqx.filter_value_and_grad(loss)(model, jax.random.key(0))
    assert np.isfinite(float(val))
    assert float(jnp.abs(g.head.weight).max()) > 0


@pytest.mark.parametrize("attention", ATTENTIONS)
@pytest.mark.parametrize("norm, ffn", [("layernorm", "gelu"), ("rmsnorm", "swiglu")])
def test_lm_is_the_pre_norm_composition(attention, norm, ffn):
    """The forward pass rebuilt by hand from the submodules: embedding + sinusoids,
    x += Attn(N1 x), x += FFN(N2 x) per block, final norm, untied head."""
    model = lm(attention, norm=norm, ffn=ffn, positions="sinusoidal")
    x = tokens(10)
    T, d = 10, model.config.d_model

    def per_token(
        norm_layer, h
    ):  # equinox's LayerNorm takes one token, nn.RMSNorm a sequence
        return (
            jax.vmap(norm_layer)(h)
            if isinstance(norm_layer, eqx.nn.LayerNorm)
            else norm_layer(h)
        )

    h = model.encoder.embedding[x] + models.sinusoidal_positions(
        T, d, dtype=jnp.float64
    )
    for block in model.encoder.blocks:
        h = h + block.attention(per_token(block.norm1, h))
        h = h + block.ffn(per_token(block.norm2, h))
    h = per_token(model.encoder.final_norm, h)
    ref = h @ model.head.weight.T + model.head.bias[None, :]
    assert_close(jit_call(model, x), ref)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_oscillator_lm_and_classifier_low_precision(dtype):
    model = lm("oscillator")
    out = jit_call(models.cast(model, dtype), tokens(9))
    assert out.dtype == dtype and bool(jnp.all(jnp.isfinite(out)))
    c = clf("oscillator", pad_id=0)
    x = _pad(tokens(6, vocab=169, low=1), 3)
    out = jit_call(models.cast(c, dtype), x)
    assert out.dtype == dtype and out.shape == (9,) and bool(jnp.all(jnp.isfinite(out)))
    ref = jit_call(c, x)
    tol = LOW_PRECISION_BUDGET["oscillator"][dtype]
    assert float(jnp.max(jnp.abs(out.astype(jnp.float64) - ref))) < tol * (
        1 + float(jnp.max(jnp.abs(ref)))
    )

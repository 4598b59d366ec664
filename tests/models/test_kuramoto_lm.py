"""Seed 000's Kuramoto LM: the composition of its nn pieces, causality, dtypes,
jit/grad/vmap and dropout on the phase increments."""

import dataclasses

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models

from ..helpers import assert_close
from ._lm import check_causal, finite_loss_grad


@eqx.filter_jit
def jit_call(m, x, key=None):
    return m(x, key=key)


def build(**kw):
    cfg = models.get_config("tiny", attention="kuramoto", **kw)
    return models.build(cfg, key=jax.random.key(0))


def tokens(T, seed=0):
    return jax.random.randint(jax.random.key(seed), (T,), 0, 256, dtype=jnp.int32)


def test_is_the_composition_of_its_layers():
    from syncattn import nn

    model = build()
    assert isinstance(model, models.KuramotoLM)
    assert isinstance(model.embedding, nn.PhaseEmbedding)
    assert all(isinstance(a, nn.KuramotoAttention) for a in model.attentions)
    assert all(isinstance(f, nn.AngleSwiGLU) for f in model.ffns)
    assert isinstance(model.readout, nn.PrototypeReadout)
    x = tokens(10)
    theta = model.embedding.phases[x]  # the embedding, by hand
    for attn, ffn in zip(model.attentions, model.ffns, strict=True):
        theta = ffn(attn(theta))
    # prototype readout by hand: s * sum_j cos(theta_tj - phi_vj)
    phi, s = model.readout.prototypes, model.readout.scale
    ref = s * jnp.cos(theta[:, None, :] - phi[None, :, :]).sum(-1)
    assert_close(model(x), ref)


def test_shape_and_causality():
    model = build()
    f = eqx.filter_jit(lambda m, x: m(x))
    out = check_causal(f, model, tokens(16), (0, 7, 14), shift=31)
    assert out.shape == (16, 256) and out.dtype == jnp.float64


def test_ablations_build_and_run():
    x = tokens(6)
    nofnn = build(ffn="none")
    assert nofnn.ffns is None and nofnn(x).shape == (6, 256)
    assert build(value="learned")(x).shape == (6, 256)
    assert build(gates=False)(x).shape == (6, 256)


# Forward error of the whole cast model against float64, relative to the largest logit:
# rounding compounded through every layer (a measured budget, not one rounding unit).
LOW_PRECISION_BUDGET = {jnp.float32: 1e-3, jnp.bfloat16: 0.25}


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.bfloat16])
def test_low_precision_forward(dtype):
    model = build()
    ref = model(tokens(12))
    out = eqx.filter_jit(lambda m, x: m(x))(models.cast(model, dtype), tokens(12))
    assert out.dtype == dtype and bool(jnp.all(jnp.isfinite(out)))
    err = float(jnp.max(jnp.abs(out.astype(jnp.float64) - ref)))
    assert err < LOW_PRECISION_BUDGET[dtype] * float(jnp.max(jnp.abs(ref))), err


def test_dropout_acts_on_increments():
    model = build(dropout=0.5)
    x = tokens(8)
    assert_close(jit_call(model, x), model(x, key=None))
    a = jit_call(model, x, jax.random.key(1))
    assert not np.allclose(a, jit_call(model, x))
    np.testing.assert_array_equal(a, jit_call(model, x, jax.random.key(1)))


def test_jit_grad_vmap_over_a_batch():
    model = build(dropout=0.1)
    batch = jnp.stack([tokens(9, seed=s) for s in range(3)])
    g = finite_loss_grad(model, batch)
    assert float(jnp.abs(g.embedding.phases).max()) > 0
    batched = eqx.filter_jit(lambda m, b: jax.vmap(m)(b))(model, batch)
    for i in range(3):
        assert_close(batched[i], jit_call(model, batch[i]))


def test_bad_tokens():
    model = build()
    with pytest.raises(ValueError, match="max_len=64; got T=65"):
        model(jnp.zeros((65,), jnp.int32))
    with pytest.raises(ValueError, match=r"got range \[0, 256\]"):
        model(jnp.array([0, 256], jnp.int32))


def test_diagnostics_per_layer():
    """``diagnostics=True``: the same logits, and per layer the order parameters of the
    phases entering it (rebuilt by hand from the layers, then numpy), and its omega."""
    model = build()
    x = tokens(12, seed=3)
    logits, layers = model(x, diagnostics=True)
    assert_close(logits, model(x), scale=0.01)  # the same ops: tighter than the default
    assert len(layers) == model.config.n_layers
    theta = model.embedding.phases[x]
    for attn, ffn, aux in zip(model.attentions, model.ffns, layers, strict=True):
        th = np.asarray(theta)
        # global order: |mean_t exp(i theta_tj)| per coordinate, in numpy
        ref_global = np.abs(np.exp(1j * th).mean(0))
        assert_close(aux["global_order"], ref_global)
        # local order: |sum_u A_tu exp(i theta_uj)| with the layer's own weights
        A = np.asarray(aux["weights"])  # (H, T, T)
        kh = th.shape[1] // A.shape[0]
        G = np.concatenate(
            [A[h] @ np.exp(1j * th[:, h * kh:(h + 1) * kh]) for h in range(A.shape[0])], 1)
        assert_close(aux["local_order"], np.abs(G))
        np.testing.assert_array_equal(aux["omega"], attn.omega)
        theta = ffn(attn(theta))
    # the ablation without feed-forward gives diagnostics too
    _, no_ffn = build(ffn="none")(x, diagnostics=True)
    assert len(no_ffn) == 2


def test_initial_scales_reach_the_layers():
    """tau, bound, readout_scale and rope_base set the layers' initial values (closed
    forms: log tau, sigma = s / sqrt(k), omega_j = b^(-j / k_h) per head); the defaults
    build the same model as before they existed."""
    base = models.get_config("tiny", attention="kuramoto")
    key = jax.random.key(3)
    same = models.build(models.replace(base, rope_base=10_000.0, **{
        "sync.tau": 1.0, "sync.bound": 1.0, "sync.readout_scale": 1.0}), key=key)
    ref = models.build(base, key=key)
    assert all(np.array_equal(a, b) for a, b in zip(
        jax.tree.leaves(eqx.filter(same, eqx.is_array)),
        jax.tree.leaves(eqx.filter(ref, eqx.is_array)), strict=True))  # fmt: skip
    cfg = models.replace(base, rope_base=100.0, **{
        "sync.tau": 4.0, "sync.bound": 2.5, "sync.readout_scale": 3.0})
    m = models.build(cfg, key=key)
    k, H = cfg.d_model, cfg.n_heads
    kh = k // H
    want = np.tile(100.0 ** (-np.arange(kh) / kh), H)
    for a in m.attentions:
        assert float(a.log_tau) == pytest.approx(np.log(4.0)) and a.bound == 2.5
        assert_close(np.asarray(a.omega), want, np.asarray(a.omega).dtype)
    assert all(f.bound == 2.5 for f in m.ffns)
    assert float(m.readout.scale) == pytest.approx(3.0 / np.sqrt(k))
    soft = models.build(dataclasses.replace(models.get_config("tiny"), rope_base=100.0), key=key)
    assert soft.encoder.blocks[0].attention.rope_base == 100.0
    for bad in ({"sync.tau": 0.0}, {"sync.bound": -1.0}, {"sync.readout_scale": float("nan")},
                {"rope_base": 1.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            models.replace(base, **bad)


def test_gate_norm_reaches_the_layers():
    """gate_norm="none" builds every attention with unnormalised gates and the same
    parameters; the logits change (the layer itself is checked against the naive loop in
    tests/nn/test_kuramoto_attention.py); a bad value is refused."""
    base = models.get_config("tiny", attention="kuramoto")
    key = jax.random.key(3)
    ref, m = (models.build(models.replace(base, **{"sync.gate_norm": g}), key=key)
              for g in ("mean", "none"))
    assert [a.gate_norm for a in ref.attentions] == ["mean"] * base.n_layers
    assert [a.gate_norm for a in m.attentions] == ["none"] * base.n_layers
    assert all(np.array_equal(a, b) for a, b in zip(
        jax.tree.leaves(eqx.filter(ref, eqx.is_array)),
        jax.tree.leaves(eqx.filter(m, eqx.is_array)), strict=True))  # fmt: skip
    x = jnp.arange(16) % base.vocab_size
    assert not np.allclose(np.asarray(ref(x)), np.asarray(m(x)))
    with pytest.raises(ValueError, match="sync.gate_norm must be one of"):
        models.replace(base, **{"sync.gate_norm": "sum"})

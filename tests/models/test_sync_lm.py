"""SyncLM (issue 28 §4): one LM class for the torus, the sphere and the groups; the
composition of its nn pieces, causality (perturbing the future), diagnostics with the
order parameters, dtypes (U(n): no bfloat16), dropout on the geometry, presets."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import group, models, nn

from ..helpers import assert_close
from ._lm import check_causal, finite_loss_grad


jax.config.update("jax_enable_x64", True)


def build(attention, **kw):
    return models.build(models.get_config("tiny", attention=attention, **kw), key=jax.random.key(0))


def tokens(T, seed=0):
    return jax.random.randint(jax.random.key(seed), (T,), 0, 256, dtype=jnp.int32)


def test_kuramoto_lm_is_sync_lm():
    assert models.KuramotoLM is models.SyncLM
    assert isinstance(build("kuramoto"), models.SyncLM)


@pytest.mark.parametrize(("attention", "sync", "attn_cls"), [
    ("sphere", {"sync.sphere_dim": 3}, nn.SyncAttention),
    ("group", {"sync.group": "so3"}, nn.SyncAttention),
])
def test_is_the_composition_of_its_layers(attention, sync, attn_cls):
    model = build(attention, **sync)
    assert isinstance(model.embedding, nn.StateEmbedding)
    assert all(isinstance(a, attn_cls) for a in model.attentions)
    assert all(isinstance(f, nn.LiftSwiGLU) for f in model.ffns)
    assert isinstance(model.readout, nn.AlignmentReadout)
    x = tokens(7)
    s = model.embedding(x)
    for attn, ffn in zip(model.attentions, model.ffns, strict=True):
        s = ffn(attn(s))
    assert_close(model(x), model.readout(s))
    # the states stay on the geometry (concrete: the layers' own checks passed); say it
    if attention == "sphere":
        assert_close(jnp.linalg.norm(s, axis=-1), jnp.ones(s.shape[:2]))
    else:
        group.check_member(s, "U")


@pytest.mark.parametrize(("attention", "sync"), [
    ("sphere", {}), ("group", {"sync.group": "so3", "sync.readout": "vonmises"}),
])
def test_causality_perturbing_the_future(attention, sync):
    model = build(attention, **sync)
    f = eqx.filter_jit(lambda m, x: m(x))
    out = check_causal(f, model, tokens(12), (0, 5, 10), shift=37)
    assert out.shape == (12, 256) and out.dtype == jnp.float64


@pytest.mark.parametrize("attention", ["sphere", "group"])
def test_diagnostics_hold_the_order_parameters(attention):
    model = build(attention)
    x = tokens(9)
    logits, layers = model(x, diagnostics=True)
    assert_close(logits, model(x))
    k = model.config.d_model
    assert len(layers) == model.config.n_layers
    for aux in layers:
        assert aux["weights"].shape == (model.config.n_heads, 9, 9)
        assert aux["local_order"].shape == (9, k) and aux["global_order"].shape == (k,)
        for name in ("local_order", "global_order"):
            r = np.asarray(aux[name])
            assert np.all(r >= 0) and np.all(r <= 1 + 1e-12)
    last = models.attention_diagnostics(model, x, layer=-1)
    assert_close(last["global_order"], layers[-1]["global_order"])
    with pytest.raises(ValueError, match="layer"):
        models.attention_diagnostics(model, x, layer=5)


@pytest.mark.parametrize(("attention", "sync"), [("sphere", {}), ("group", {"sync.group": "so3"})])
def test_grad_and_dropout_stay_on_the_geometry(attention, sync):
    model = build(attention, dropout=0.5, **sync)
    batch = jnp.stack([tokens(8, 1), tokens(8, 2)])
    finite_loss_grad(model, batch)
    from syncattn.models._sync import _step

    s = model.embedding(tokens(8))
    new = model.attentions[0](s)
    mixed = _step(s, new, 0.5, jax.random.key(3), torus=False)
    kept = np.all(np.asarray(mixed) == np.asarray(new), axis=tuple(range(2, s.ndim)))
    old = np.all(np.asarray(mixed) == np.asarray(s), axis=tuple(range(2, s.ndim)))
    assert np.all(kept | old) and kept.any() and (~kept).any()  # each oscillator: one or the other
    assert not np.allclose(model(tokens(8), key=jax.random.key(1)), model(tokens(8)))


def test_dtypes():
    x = tokens(6)
    sph = build("sphere")
    assert models.cast(sph, jnp.float32)(x).dtype == jnp.float32
    low = models.cast(sph, jnp.bfloat16)(x)
    assert low.dtype == jnp.bfloat16 and bool(jnp.all(jnp.isfinite(low.astype(jnp.float32))))
    u2 = build("group", **{"sync.group": "u2"})
    assert jnp.iscomplexobj(u2.embedding(x))
    assert jnp.isrealobj(u2(x)) and u2(x).dtype == jnp.float64
    with pytest.raises(ValueError, match="bfloat16"):
        models.cast(u2, jnp.bfloat16)
    with pytest.raises(ValueError, match="bfloat16"):
        models.cast(u2, "bfloat16")
    models.cast(build("group"), jnp.bfloat16)  # SO(3): real states, allowed
    u32 = models.cast(u2, jnp.float32)
    assert u32.embedding.table.dtype == jnp.complex64 and u32(x).dtype == jnp.float32


@pytest.mark.parametrize("readout", ["prototype", "vonmises", "lift_linear"])
@pytest.mark.parametrize("attention", ["kuramoto", "sphere", "group"])
def test_readouts_build_for_every_geometry(attention, readout):
    model = build(attention, **{"sync.readout": readout})
    cls = {"vonmises": nn.VonMisesReadout, "lift_linear": nn.LiftLinearReadout}.get(
        readout, nn.PrototypeReadout if attention == "kuramoto" else nn.AlignmentReadout)
    assert isinstance(model.readout, cls)
    assert model(tokens(5)).shape == (5, 256)


@pytest.mark.parametrize("name", ["tiny", "1m", "5m"])
def test_presets_match_the_kuramoto_count(name):
    ref = models.config_params(models.get_config(name, attention="kuramoto"))
    for attention in ("sphere", "group"):
        n = models.config_params(models.get_config(name, attention=attention))
        assert abs(n / ref - 1) < 0.05, (name, attention, n, ref)


def test_state_size_and_describe():
    cfg = lambda a, **kw: models.get_config("1m", attention=a, **kw)  # noqa: E731
    assert models.state_size(cfg("kuramoto")) == 128
    assert models.state_size(cfg("softmax")) == 128
    assert models.state_size(cfg("sphere")) == 64 * 4
    assert models.state_size(cfg("sphere", **{"sync.sphere_dim": 3})) == 64 * 3
    assert models.state_size(cfg("group")) == 32 * 9
    assert models.state_size(cfg("group", **{"sync.group": "u2"})) == 32 * 8
    line = models.describe(cfg("group", **{"sync.readout": "vonmises"}))
    assert "geometry so3" in line and "state 288 per token" in line and "readout vonmises" in line


def test_u2_model_trains_and_its_grad_norm_counts_the_imaginary_parts():
    import equinox as eqx

    from syncattn import training

    model = build("group", **{"sync.group": "u2"})
    tc = training.TrainConfig.preset("tiny", steps=10, batch_size=2, seq_len=8, warmup_steps=0)
    opt = training.make_optimizer(tc)
    step = training.make_train_step(opt, pad_id=None)
    state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    batch = jax.random.randint(jax.random.key(1), (2, 9), 0, 256)
    grads = eqx.filter_grad(lambda m: training.next_token_loss(m, batch))(model)
    leaves = jax.tree.leaves(eqx.filter(grads, eqx.is_inexact_array))
    ref = np.sqrt(sum(np.sum(np.abs(np.asarray(g, np.complex128)) ** 2) for g in leaves))
    new, _, _, metrics = step(model, state, jax.random.key(0), batch)
    assert bool(metrics["finite"]) and jnp.iscomplexobj(new.embedding.table)
    assert_close(metrics["grad_norm"], ref, jnp.float32, scale=10)
    assert not np.allclose(np.asarray(new.embedding.table), np.asarray(model.embedding.table))

"""The frustrated models (issue 40): ``attention="frustrated"`` (FrustratedAttention and the
angle SwiGLU) and ``"frustrated-mf"`` (no MLP: CollectiveModes); composition, causality,
sizes by the Kuramoto rule at every rung, a few training steps, config errors."""

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models, nn

from ..helpers import assert_close
from ._lm import check_causal


jax.config.update("jax_enable_x64", True)


def build(attention, **kw):
    return models.build(models.get_config("tiny", attention=attention, **kw), key=jax.random.key(0))


def tokens(T, seed=0):
    return jax.random.randint(jax.random.key(seed), (T,), 0, 256, dtype=jnp.int32)


@pytest.mark.parametrize(("attention", "ffn_cls"), [
    ("frustrated", nn.AngleSwiGLU), ("frustrated-mf", nn.CollectiveModes),
])
def test_is_the_composition_of_its_layers(attention, ffn_cls):
    model = build(attention)
    assert isinstance(model, models.SyncLM) and isinstance(model.embedding, nn.PhaseEmbedding)
    assert all(isinstance(a, nn.FrustratedAttention) for a in model.attentions)
    assert all(a.order == 1 and a.delay for a in model.attentions)
    assert all(isinstance(f, ffn_cls) for f in model.ffns)
    assert isinstance(model.readout, nn.PrototypeReadout)
    x = tokens(7)
    s = model.embedding(x)
    for attn, ffn in zip(model.attentions, model.ffns, strict=True):
        s = ffn(attn(s))
    assert_close(model(x), model.readout(s))
    if attention == "frustrated-mf":
        assert model.ffns[0].n_modes == model.config.d_ff
        assert not any(isinstance(leaf, nn.SwiGLU) for leaf in jax.tree.leaves(
            model, is_leaf=lambda x: isinstance(x, nn.SwiGLU)))  # no MLP


@pytest.mark.parametrize(
    ("attention", "frustration"),
    # frustrated-mf's attention is frustrated's: its case runs the delay-only control
    [("frustrated", "learned"), ("frustrated-mf", "delay-only"), ("frustrated", "successor")],
)
def test_causality_perturbing_the_future(attention, frustration):
    model = build(attention, **{"sync.harmonics": 3, "sync.frustration": frustration})
    f = eqx.filter_jit(lambda m, x: models.cast(m, jnp.float32)(x))  # the fast path
    out = check_causal(f, model, tokens(12), (0, 5, 10), shift=37)
    assert out.shape == (12, 256) and out.dtype == jnp.float32


@pytest.mark.slow  # 15-30 s on the shared 2 cores (compiling the train step)
@pytest.mark.parametrize("attention", ["frustrated", "frustrated-mf"])
def test_trains_a_few_steps_at_tiny(attention):
    from syncattn import training

    model = build(attention, dropout=0.1)
    tc = training.TrainConfig.preset("tiny", steps=10, batch_size=2, seq_len=16, warmup_steps=0)
    opt = training.make_optimizer(tc)
    step = eqx.filter_jit(training.make_train_step(opt, pad_id=None))
    state = opt.init(eqx.filter(model, eqx.is_inexact_array))
    batch = jax.random.randint(jax.random.key(1), (2, 17), 0, 256)
    key = jax.random.key(0)
    losses = []
    for _ in range(3):
        model, state, key, metrics = step(model, state, key, batch)
        assert bool(metrics["finite"])
        losses.append(float(metrics["loss"]))
    assert losses[-1] < losses[0]
    a = model.attentions[0]
    assert np.any(np.asarray(a.b_real) != 0)  # the delayed coupling moved off 0


@pytest.mark.parametrize("name", ["tiny", "1m", "5m"])
def test_presets_match_the_kuramoto_count(name):
    ref = models.config_params(models.get_config(name, attention="kuramoto"))
    for attention in ("frustrated", "frustrated-mf"):
        n = models.config_params(models.get_config(name, attention=attention))
        assert abs(n / ref - 1) < 0.01, (name, attention, n, ref)


def test_the_size_rule_sizes_them_at_every_rung():
    """The rungs of the pre-registered comparison (50k, 150k, 200k) and 1m: the same d, L,
    heads as the Kuramoto model, d_ff (frustrated-mf: J modes) by the rule; within 1 %;
    at 1m the rule gives the presets."""
    for target in (50_000, 150_000, 200_000, 1_000_000):
        s = models.shape_for_params(target, 256, ("kuramoto", "frustrated", "frustrated-mf"))
        for a in ("frustrated", "frustrated-mf"):
            assert s["shapes"][a]["d_model"] == s["d_model"]
            assert s["shapes"][a]["n_heads"] == s["n_heads"]
            assert abs(s["params"][a] / s["params"]["kuramoto"] - 1) < 0.01, (target, a)
    for a in ("frustrated", "frustrated-mf"):
        assert s["shapes"][a]["d_ff"] == models.get_config("1m", attention=a).d_ff


def test_config_errors_and_describe():
    cfg = models.get_config("1m", attention="frustrated-mf")
    assert cfg.ffn == "modes" and cfg.sync.harmonics == 1 and cfg.sync.delay
    line = models.describe(cfg)
    assert "(modes)" in line and "M 1, delayed stream" in line
    assert models.get_config("tiny", attention="frustrated", **{"sync.delay": "false"}).sync.delay is False
    with pytest.raises(ValueError, match="ffn must be 'modes'"):
        models.get_config("tiny", attention="frustrated-mf", ffn="swiglu")
    with pytest.raises(ValueError, match="ffn='modes'"):
        models.get_config("tiny", attention="kuramoto", ffn="modes")
    with pytest.raises(ValueError, match="sync.harmonics applies to the frustrated"):
        models.get_config("tiny", attention="kuramoto", **{"sync.harmonics": 3})
    with pytest.raises(ValueError, match="sync.harmonics must be >= 1"):
        models.get_config("tiny", attention="frustrated", **{"sync.harmonics": 0})
    with pytest.raises(ValueError, match="value must be 'phase'"):
        models.get_config("tiny", attention="frustrated", value="learned")
    with pytest.raises(ValueError, match="positions='rope'"):
        models.get_config("tiny", attention="frustrated", positions="learned")
    with pytest.raises(ValueError, match="sync.drift must be 'planes'"):
        models.get_config("tiny", attention="frustrated", **{"sync.drift": "none"})


def test_frustration_config_field():
    """sync.frustration (issue 44): the fixed-coefficient controls from overrides, their
    errors, the description, and the layer it builds."""
    from syncattn import training  # the CLI overrides: `syncattn train ... KEY=VALUE`
    from syncattn.models import _sync_config
    from syncattn.nn import _frustrated_attention

    assert models.SyncConfig.__dataclass_fields__["frustration"].default == "learned"

    assert _sync_config.FRUSTRATIONS == _frustrated_attention.FRUSTRATIONS
    cfg = models.get_config("tiny", attention="frustrated", **{"sync.frustration": "successor"})
    assert cfg.sync.frustration == "successor"
    assert models.get_config("tiny", attention="frustrated", **models.parse_overrides(
        ["sync.frustration=delay-only"])).sync.frustration == "delay-only"
    g = training.run_overrides(["sync.frustration=successor"])
    assert models.get_config("tiny", attention="frustrated", **g["model"]) == cfg
    assert "frustration successor" in models.describe(cfg)
    assert "frustration" not in models.describe(models.get_config("tiny", attention="frustrated"))
    model = models.build(cfg, key=jax.random.key(0))
    assert models.count_params(model) == models.config_params(cfg)  # held: no leaves
    attn = model.attentions[0]
    assert attn.frustration == "successor" and attn.c_real is None and attn.b_real is None
    mf = models.build(models.get_config("tiny", attention="frustrated-mf", **{"sync.frustration": "delay-only"}),
                      key=jax.random.key(0))
    assert all(a.frustration == "delay-only" and a.c_real is None and a.b_real is not None
               for a in mf.attentions)
    with pytest.raises(ValueError, match="sync.frustration must be one of"):
        models.get_config("tiny", attention="frustrated", **{"sync.frustration": "fixed"})
    for a in ("kuramoto", "sphere"):
        with pytest.raises(ValueError, match="sync.frustration applies to the frustrated"):
            models.get_config("tiny", attention=a, **{"sync.frustration": "successor"})
    with pytest.raises(ValueError, match="sync.frustration applies to the synchronisation"):
        models.get_config("tiny", attention="softmax", **{"sync.frustration": "successor"})
    for f in ("delay-only", "successor"):
        with pytest.raises(ValueError, match=f"sync.frustration='{f}'.*sync.delay=True"):
            models.get_config("tiny", attention="frustrated-mf", **{"sync.frustration": f, "sync.delay": False})

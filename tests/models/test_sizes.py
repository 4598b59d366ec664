"""Parameter counts: the 1m / 5m presets, and seed 001's models counted by hand
from the B3 / B2 architecture (../shared/EXPERIMENTS.md)."""

import jax
import pytest

from syncattn import models


@pytest.mark.parametrize("attention", ["kuramoto", "oscillator", "softmax"])
@pytest.mark.parametrize("name, target", [("1m", 1_000_000), ("5m", 5_000_000)])
def test_sized_presets_within_5_percent(name, target, attention):
    n = models.config_params(models.get_config(name, attention=attention))
    assert abs(n - target) <= 0.05 * target, (name, attention, n)


def test_config_params_equals_count_of_built_model():
    for attention in ("kuramoto", "oscillator", "softmax"):
        cfg = models.get_config("tiny", attention=attention)
        model = models.build(cfg, key=jax.random.key(0))
        assert models.count_params(model) == models.config_params(cfg)
    # the frustrated attention's fixed-coefficient controls (issue 44): c held (2HM per
    # layer fewer), c and b held (4HM fewer); the held coefficients are no leaves
    counts = {}
    for f in ("learned", "delay-only", "successor"):
        cfg = models.get_config("tiny", attention="frustrated", **{"sync.frustration": f, "sync.harmonics": 2})
        model = models.build(cfg, key=jax.random.key(0))
        counts[f] = models.count_params(model)
        assert counts[f] == models.config_params(cfg), f
    per = cfg.n_layers * cfg.n_heads * 2
    assert counts["learned"] - counts["delay-only"] == 2 * per
    assert counts["learned"] - counts["successor"] == 4 * per


def _paper_b_layer(d, H, d_ff, max_len, d_osc, attention):
    """One pre-LN layer of seed 001's code (B0/B3), counted from its modules."""
    ln = 2 * d  # LayerNorm weight + bias
    qkv = 3 * d * d  # W_q, W_k, W_v: no bias
    out = d * d + d  # W_o with bias (both of seed 001's attentions)
    anchors = H * max_len * d_osc if attention == "oscillator" else 0
    ffn = (d * d_ff + d_ff) + (d_ff * d + d)  # Linear -> GELU -> Linear, biases
    return ln + qkv + out + anchors + ln + ffn


@pytest.mark.parametrize("attention", ["oscillator", "softmax"])
@pytest.mark.parametrize(
    "d_osc, max_len, V", [(8, 50, 10_000), (2, 128, 8_004), (64, 50, 10_000)]
)
def test_paper_b_lm_size_by_hand(attention, d_osc, max_len, V):
    d, L, H, d_ff = 128, 2, 4, 512
    expected = (
        V * d  # embedding (padding_idx row included)
        + L * _paper_b_layer(d, H, d_ff, max_len, d_osc, attention)
        + 2 * d  # final LayerNorm
        + d * V + V  # untied head with bias
    )  # fmt: skip
    cfg = models.get_config(
        "paper-b-lm", attention=attention, d_osc=d_osc, max_len=max_len, vocab_size=V
    )
    assert models.config_params(cfg) == expected
    if attention == "oscillator" and (d_osc, V) == (8, 10_000):
        assert expected == 2_969_232  # the number, for the record


@pytest.mark.parametrize("attention", ["oscillator", "softmax"])
def test_paper_b_sva_size_by_hand(attention):
    V, d, H, d_ff, max_len, d_osc = 169, 32, 1, 64, 50, 2
    expected = (
        V * d
        + _paper_b_layer(d, H, d_ff, max_len, d_osc, attention)
        + 2 * d  # final LayerNorm
        + d + 1  # Linear(d, 1) at the verb
    )  # fmt: skip
    cfg = models.get_config("paper-b-sva", attention=attention)
    assert models.config_params(cfg) == expected
    assert models.count_params(models.build(cfg, key=jax.random.key(0))) == expected


def test_describe_one_line():
    line = models.describe(models.get_config("paper-b-lm"))
    assert "\n" not in line
    assert line.startswith("paper-b-lm: oscillator causal LM, 2 layers, d_model 128")
    assert "2,969,232 params" in line
    c = models.get_config("1m", attention="softmax")
    assert models.config_params(models.replace(c, out_bias=True)) == (
        models.config_params(c) + c.n_layers * c.d_model
    )
    assert "1m: kuramoto causal LM" in models.describe(
        models.get_config("1m", attention="kuramoto")
    )


def test_shape_for_params_is_the_closest_multiple_of_16():
    """The size rule by brute force: every d = 16, 32, ... up to past the target, the
    Kuramoto count of the real model, the closest in |ln N / N*|; the other attentions
    matched to it by their d_ff (the multiple of 8 with the closest count)."""
    import math

    target = 40_000
    shape = models.shape_for_params(target, 256, ("kuramoto", "softmax", "oscillator"))
    L = models.depth_for_params(target)
    assert L == 2 and shape["n_layers"] == L

    def count(attention, d, ff):
        return models.config_params(models.get_config(
            "1m", attention=attention, d_model=d, n_layers=L, n_heads=d // 16, d_ff=ff))

    counts = {d: count("kuramoto", d, 8 * math.floor(2.75 * d / 8 + 0.5)) for d in (16, 32, 48)}
    best = min(counts, key=lambda d: abs(math.log(counts[d] / target)))
    assert shape["d_model"] == best and shape["params"]["kuramoto"] == counts[best]
    for attention in ("softmax", "oscillator"):
        ff = shape["d_ff"][attention]
        n = shape["params"][attention]
        assert ff % 8 == 0 and n == count(attention, best, ff)
        for other in (ff - 8, ff + 8):
            assert abs(count(attention, best, other) - counts[best]) >= abs(n - counts[best])
    cfg = models.config_for_params(target, "oscillator", dropout=0.1)
    assert cfg.name == "auto" and cfg.dropout == 0.1 and cfg.d_model == best
    assert models.config_params(cfg) == shape["params"]["oscillator"]
    with pytest.raises(ValueError, match="target"):
        models.shape_for_params(0)


def test_shape_for_params_is_the_ladders_rung_rule():
    """One rule: the ladder's rungs (its families) and the models' size rule agree."""
    from syncattn.experiments import ladder

    for target in (12_000, 50_000):
        rung, shape = ladder.rung_shape(target), models.shape_for_params(target)
        for key in ("d_model", "n_layers", "n_heads", "d_ff", "params"):
            assert rung[key] == shape[key], key


def test_size_rule_sizes_the_sphere_and_group_models():
    """Their k makes the lift m k the Kuramoto lift 2 d; at 1m the rule gives the presets'
    widths and d_ff, and every count lies within 5 % of the Kuramoto count."""
    s = models.shape_for_params(1_000_000, 256, ("kuramoto", "sphere", "group"))
    assert (s["shapes"]["sphere"]["d_model"], s["shapes"]["sphere"]["d_ff"]) == (64, 216)
    assert (s["shapes"]["group"]["d_model"], s["shapes"]["group"]["d_ff"]) == (32, 216)
    for a in ("sphere", "group"):
        assert abs(s["params"][a] / s["params"]["kuramoto"] - 1) < 0.05
        cfg = models.config_for_params(1_000_000, a)
        assert cfg.name == "auto" and models.config_params(cfg) == s["params"][a]

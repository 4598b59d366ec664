"""Model configs: presets, key=value overrides parsed to the field types, errors."""

import dataclasses

import pytest

from syncattn import models


def test_list_configs_names():
    assert models.list_configs() == ["tiny", "1m", "5m", "paper-b-lm", "paper-b-sva"]


@pytest.mark.parametrize("name", ["tiny", "1m", "5m"])
@pytest.mark.parametrize("attention", ["kuramoto", "oscillator", "softmax"])
def test_every_size_exists_for_every_attention(name, attention):
    cfg = models.get_config(name, attention=attention)
    assert cfg.name == name and cfg.attention == attention and cfg.task == "lm"
    assert cfg.vocab_size == 256


def test_paper_b_lm_matches_b3():
    c = models.get_config("paper-b-lm")
    assert (c.attention, c.task, c.n_layers, c.d_model, c.n_heads, c.d_ff) == (
        "oscillator", "lm", 2, 128, 4, 512,
    )  # fmt: skip
    assert (c.dropout, c.positions, c.norm, c.ffn) == (
        0.1,
        "sinusoidal",
        "layernorm",
        "gelu",
    )
    assert c.final_norm and not c.tie_embeddings and c.pad_id == 0 and c.max_len == 50
    assert models.get_config("paper-b-lm", max_len=128, vocab_size=8004).max_len == 128
    # the published layer uses its anchors raw (weight decay shrinks them)
    assert not c.osc.normalize_anchors and c.osc.coupling == "softplus"
    assert c.osc.equilibrium == "closed"


def test_paper_b_sva_matches_b2_config_g():
    c = models.get_config("paper-b-sva")
    assert (c.task, c.n_layers, c.d_model, c.n_heads, c.d_ff, c.osc.d_osc, c.max_len) == (
        "classifier", 1, 32, 1, 64, 2, 50,
    )  # fmt: skip
    assert (c.positions, c.norm, c.ffn, c.dropout, c.vocab_size) == (
        "sinusoidal", "layernorm", "gelu", 0.1, 169,
    )  # fmt: skip
    assert models.get_config("paper-b-sva", attention="softmax").attention == "softmax"
    # seed 001's W_o has a bias; its layer masks padding before the fixed point only
    assert c.out_bias and not c.osc.mask_readout and not c.osc.normalize_anchors


def test_overrides_from_strings_take_the_field_types():
    c = models.get_config(
        "tiny", attention="oscillator", d_model="32", dropout="0.25", final_norm="false",
        pad_id="none", norm="layernorm", tie_embeddings="True", p="2",
    )  # fmt: skip
    assert c.d_model == 32 and isinstance(c.d_model, int)
    assert c.dropout == 0.25 and isinstance(c.dropout, float)
    assert c.final_norm is False and c.tie_embeddings is True
    assert c.pad_id is None and c.norm == "layernorm" and c.osc.p == 2
    assert models.get_config("tiny", pad_id="3").pad_id == 3
    assert models.get_config("tiny", dropout=0).dropout == 0.0  # int -> float
    assert isinstance(models.get_config("tiny", dropout=0).dropout, float)


def test_parse_overrides():
    got = models.parse_overrides(["d_model=64", " norm = layernorm", "dropout=1e-1"])
    assert got == {"d_model": 64, "norm": "layernorm", "dropout": 0.1}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        models.parse_overrides(["d_model"])
    with pytest.raises(ValueError, match="valid keys: name, task, attention"):
        models.parse_overrides(["width=3"])


def test_unknown_key_lists_the_valid_keys():
    with pytest.raises(ValueError) as e:
        models.get_config("tiny", d_modle=3)
    msg = str(e.value)
    assert "'d_modle'" in msg
    for f in dataclasses.fields(models.ModelConfig):
        assert f.name in msg


@pytest.mark.parametrize(
    "overrides, match",
    [
        ({"d_model": "abc"}, "d_model must be an int"),
        ({"final_norm": "maybe"}, "final_norm must be a bool"),
        ({"dropout": "x"}, "dropout must be a float"),
        ({"d_model": 2.5}, "d_model must be an int"),
        ({"d_model": True}, "d_model must be an int"),
        ({"norm": "batchnorm"}, "norm must be one of"),
        ({"positions": "alibi"}, "positions must be one of"),
        ({"anchors": "random"}, "anchors must be one of"),
        ({"n_heads": 3}, "must divide d_model"),
        ({"dropout": 1.0}, r"dropout must lie in \[0, 1\)"),
        ({"d_osc": 1}, "d_osc must be >= 2"),
        ({"p": 0}, "p must be >= 1"),
        ({"d_model": 0}, "d_model must be >= 1"),
        ({"pad_id": 256}, "pad_id must lie in"),
        ({"d_model": None}, "d_model must be an int; got None"),
    ],
)
def test_bad_values(overrides, match):
    with pytest.raises(ValueError, match=match):
        models.get_config("tiny", **overrides)


def test_bad_names_and_combinations():
    with pytest.raises(ValueError, match="unknown model config 'huge'; valid"):
        models.get_config("huge")
    with pytest.raises(ValueError, match=r"attention \(--model\) in"):
        models.get_config("paper-b-sva", attention="kuramoto")
    with pytest.raises(ValueError, match=r"exists for attention \(--model\) in"):
        models.get_config("tiny", attention="linear")
    with pytest.raises(ValueError, match="positions='rope'"):
        models.get_config("tiny", attention="kuramoto", positions="sinusoidal")
    with pytest.raises(ValueError, match="angle SwiGLU"):
        models.get_config("tiny", attention="kuramoto", ffn="gelu")
    with pytest.raises(ValueError, match="tie_embeddings"):
        models.get_config("paper-b-sva", tie_embeddings=True)


def test_configs_are_frozen_and_hashable():
    c = models.get_config("tiny")
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.d_model = 3
    assert hash(c) == hash(models.get_config("tiny"))
    assert models.replace(c, d_model="32").d_model == 32
    with pytest.raises(ValueError, match="unknown model config key"):
        models.replace(c, bogus=1)


def test_d_osc_rule_is_stated_once_on_the_config_path(monkeypatch):
    """ModelConfig and the experiments that sweep d_osc share one check: changing it
    changes all of them (the layer keeps its own, for direct use)."""
    from syncattn.experiments import convergence, scaling
    from syncattn.models import _osc_config

    with pytest.raises(ValueError, match=r"each of dims must be >= 2 \(oscillators"):
        scaling.Config(dims=(2, 1))
    with pytest.raises(ValueError, match="p_dim must be >= 2"):
        scaling.Config(p_dim=1)
    with pytest.raises(ValueError, match="each of dims must be >= 2"):
        convergence.Config(dims=(1,))
    calls = []
    def fake(d, name="d_osc"):
        calls.append((d, name))

    # the config calls its module's name; the experiments import the public one
    monkeypatch.setattr(_osc_config, "check_d_osc", fake)
    monkeypatch.setattr(models, "check_d_osc", fake)
    models.OscillatorConfig(d_osc=1)
    scaling.Config(dims=(1,), p_dim=3)
    convergence.Config(dims=(0,))
    assert calls == [(1, "osc.d_osc"), (1, "each of dims"), (3, "p_dim"), (0, "each of dims")]

"""ModelConfig's parts (issue 41 §4): the transformer fields and one part per family
(``osc``: OscillatorConfig, ``sync``: SyncConfig), each checking itself; the flat keys of
the layout before the split read as aliases in every parser and in every committed
config.json."""

import dataclasses
import json
from pathlib import Path

import pytest

from syncattn import models, training
from syncattn.models import _config


ROOT = Path(__file__).resolve().parents[2]
OSC = [f.name for f in dataclasses.fields(models.OscillatorConfig)]
MOVED_TO_SYNC = ["value", "gates", "gate_norm", "tau", "bound", "readout_scale"]


def _committed_run_configs() -> list[Path]:
    """Every committed config.json that holds a run's ``model`` section."""
    found = []
    for top in ("results", "benchmarks", "tests", "runs"):
        for path in sorted((ROOT / top).rglob("config.json")):
            raw = json.loads(path.read_text())
            if isinstance(raw, dict) and isinstance(raw.get("model"), dict):
                found.append(path)
    return found


def _flat(cfg: models.ModelConfig) -> dict:
    """The layout before the split: the parts' fields at the top (``sync`` nested)."""
    raw = cfg.to_dict()
    osc, sync = raw.pop("osc"), raw.pop("sync")
    return raw | osc | {k: sync.pop(k) for k in MOVED_TO_SYNC} | {"sync": sync}


def test_the_aliases_are_the_moved_fields():
    assert _config.ALIASES == {
        **{k: f"osc.{k}" for k in OSC},
        **{k: f"sync.{k}" for k in MOVED_TO_SYNC},
    }
    assert not set(_config.ALIASES) & set(dataclasses.fields(models.ModelConfig))
    top = {f.name for f in dataclasses.fields(models.ModelConfig)}
    assert top == {
        "name",
        "task",
        "attention",
        "vocab_size",
        "d_model",
        "n_layers",
        "n_heads",
        "d_ff",
        "max_len",
        "dropout",
        "norm",
        "ffn",
        "positions",
        "final_norm",
        "tie_embeddings",
        "pad_id",
        "norm_eps",
        "out_bias",
        "freeze_values",
        "rope_base",
        "osc",
        "sync",
    }


def test_every_committed_run_config_loads_into_its_parts():
    """Each committed run folder's config.json (flat, from before the split) reads back:
    every saved value lands in its part, and the run spec re-reads it."""
    paths = _committed_run_configs()
    assert len(paths) >= 7, paths
    for path in paths:
        raw = dict(json.loads(path.read_text())["model"])
        raw.pop("preset", None)
        cfg = models.ModelConfig.from_dict(raw)
        for key, value in raw.items():
            if key in _config.ALIASES:
                part, sub = _config.ALIASES[key].split(".")
                got = getattr(getattr(cfg, part), sub)
            elif key in ("osc", "sync"):
                got = {k: getattr(getattr(cfg, key), k) for k in value}
            else:
                got = getattr(cfg, key)
            assert got == value, (path, key)
        assert models.ModelConfig.from_dict(cfg.to_dict()) == cfg
        spec = training.read_config(path.parent)
        assert (
            spec.model == cfg and spec.to_json()["model"]["osc"] == cfg.to_dict()["osc"]
        )


@pytest.mark.parametrize("attention", ["softmax", "oscillator", "kuramoto", "sphere"])
def test_nested_and_flat_layouts_read_the_same(attention):
    fields = {"osc.p": 2} if attention == "oscillator" else {}
    if attention in ("kuramoto", "sphere"):
        fields = {"sync.tau": 2.0, "sync.gates": False, "sync.readout": "vonmises"}
    cfg = models.get_config("tiny", attention=attention, **fields)
    raw = json.loads(json.dumps(cfg.to_dict()))
    assert set(raw["osc"]) == set(OSC) and "d_osc" not in raw and "tau" not in raw
    assert models.ModelConfig.from_dict(raw) == cfg
    assert models.ModelConfig.from_dict(_flat(cfg)) == cfg
    old = {k: v for k, v in _flat(cfg).items() if k != "sync"}  # before issue 28
    if attention != "sphere":
        assert models.ModelConfig.from_dict(old).sync == dataclasses.replace(
            models.SyncConfig(), **{k: getattr(cfg.sync, k) for k in MOVED_TO_SYNC}
        )


def test_flat_keys_are_aliases_in_every_parser():
    dotted = models.get_config(
        "tiny", attention="oscillator", **{"osc.d_osc": 4, "osc.p": 2}
    )
    assert models.get_config("tiny", attention="oscillator", d_osc="4", p=2) == dotted
    assert dotted.osc == models.OscillatorConfig(d_osc=4, p=2)
    base = models.get_config("tiny", attention="kuramoto")
    assert models.replace(base, tau=2) == models.replace(base, **{"sync.tau": 2.0})
    assert models.replace(base, tau=2).sync.tau == 2.0
    assert models.parse_overrides(["d_osc=4", "tau=2"]) == {
        "osc": {"d_osc": 4},
        "sync": {"tau": 2.0},
    }
    # the training groups keep the keys as written (experiment cells are keyed by them)
    g = training.run_overrides(["d_osc=4", "model.p=2", "osc.coupling=relu", "lr=1e-3"])
    assert g["model"] == {"d_osc": 4, "p": 2, "osc": {"coupling": "relu"}}
    got = models.get_config("tiny", attention="oscillator", **g["model"])
    assert got.osc == models.OscillatorConfig(d_osc=4, p=2, coupling="relu")


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"d_osc": 4, "osc.d_osc": 8}, "given twice"),
        ({"tau": 2, "sync": {"tau": 3}}, "given twice"),
        ({"d_os": 3}, r"'d_os' \(did you mean 'd_osc'\?\)"),
        ({"osc.d_os": 3}, r"unknown .*osc key 'd_os' \(did you mean 'd_osc'\?\)"),
        ({"osc": "x"}, "set them one by one: osc.d_osc"),
        ({"osc.d_osc": 1}, "osc.d_osc must be >= 2"),
        ({"osc.coupling": "tanh"}, "osc.coupling must be one of"),
        ({"osc.p": 0}, "osc.p must be >= 1"),
        ({"osc.relative_rotation": True}, "osc.relative_rotation .* needs osc.d_osc=2"),
        ({"positions": "rope"}, "OscillatorAttention has no rotary positions"),
    ],
)
def test_oscillator_part_errors_name_the_field(fields, match):
    with pytest.raises(ValueError, match=match):
        models.get_config("1m", attention="oscillator", **fields)


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"sync.tau": 0.0}, "sync.tau must be a finite number > 0"),
        ({"bound": float("inf")}, "sync.bound must be a finite number > 0"),
        ({"sync.value": "key"}, "sync.value must be one of"),
        ({"gate_norm": "sum"}, "sync.gate_norm must be one of"),
        ({"sync.gates": "maybe"}, "sync.gates must be a bool"),
    ],
)
def test_sync_part_errors_name_the_field(fields, match):
    with pytest.raises(ValueError, match=match):
        models.get_config("tiny", attention="kuramoto", **fields)


def test_each_part_checks_itself_and_its_fit():
    with pytest.raises(ValueError, match="osc.d_osc must be >= 2"):
        models.OscillatorConfig(d_osc=1)
    with pytest.raises(ValueError, match="sync.readout_scale"):
        models.SyncConfig(readout_scale=-1.0)
    # the sync part belongs to the synchronisation models; the oscillator part is carried
    # by the softmax transformer (seed 001's presets set it for both attentions)
    with pytest.raises(ValueError, match="sync.tau applies to the synchronisation"):
        models.get_config("tiny", attention="softmax", tau=2)
    assert models.get_config("paper-b-lm", attention="softmax").osc.d_osc == 8
    with pytest.raises(ValueError, match="osc.query_scale is an oscillator ablation"):
        models.get_config("tiny", attention="softmax", query_scale=True)
    with pytest.raises(ValueError, match="sync.value must be 'phase'"):
        models.get_config("tiny", attention="frustrated", **{"sync.value": "learned"})

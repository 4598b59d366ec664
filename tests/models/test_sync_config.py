"""ModelConfig.sync (issue 28 §4): the SyncConfig sub-config, dotted overrides in every
parser (get_config, replace, the training groups), clear errors naming the field, and
the round trip of saved configs (with and without the nested "sync")."""

import dataclasses
import json

import pytest
from hypothesis import given, settings, strategies as st

from syncattn import models
from syncattn._overrides import OverrideError
from syncattn.training import run_overrides


def test_defaults_and_dotted_overrides():
    assert models.ModelConfig().sync == models.SyncConfig()
    s = models.SyncConfig()
    assert (s.sphere_dim, s.group, s.drift, s.readout) == (4, "so3", "planes", "prototype")
    cfg = models.get_config("1m", attention="sphere", **{"sync.sphere_dim": 3})
    assert cfg.sync.sphere_dim == 3 and cfg.ffn == "lift"
    assert models.get_config("tiny", attention="sphere", **{"sync.sphere_dim": "5"}).sync.sphere_dim == 5
    cfg2 = models.replace(cfg, **{"sync.readout": "vonmises"})
    assert cfg2.sync == models.SyncConfig(sphere_dim=3, readout="vonmises")  # the rest kept
    assert models.replace(cfg, sync={"drift": "none"}).sync.sphere_dim == 3
    assert models.replace(cfg, sync=models.SyncConfig(group="u2")).sync.sphere_dim == 4
    g = run_overrides(["sync.group=u2", "model.sync.readout=lift_linear", "lr=1e-3"])
    assert g["model"] == {"sync": {"group": "u2", "readout": "lift_linear"}}


@pytest.mark.parametrize(("overrides", "match"), [
    ({"sync.sphere_dm": 3}, r"unknown .*sync key 'sphere_dm' \(did you mean 'sphere_dim'\?\)"),
    ({"sync.sphere_dim": 1}, "sync.sphere_dim must be >= 2"),
    ({"sync.sphere_dim": "two"}, "sync.sphere_dim must be an int"),
    ({"sync.group": "sp3"}, "sync.group"),
    ({"sync.group": "so1"}, "sync.group"),
    ({"sync.drift": "spiral"}, "sync.drift must be one of"),
    ({"sync.readout": "softmax"}, "sync.readout must be one of"),
    ({"sync": "x"}, "set them one by one: sync.sphere_dim"),
    ({"sync.readout": "vonmises", "sync": {"readout": "prototype"}}, "given twice"),
    ({"ffn": "swiglu"}, "ffn must be 'lift' or 'none'"),
    ({"ffn": "gelu"}, "ffn must be 'lift' or 'none'"),
    ({"positions": "sinusoidal"}, "positions='rope'"),
])
def test_errors_name_the_field(overrides, match):
    with pytest.raises(ValueError, match=match):
        models.get_config("tiny", attention="sphere", **overrides)


def test_sync_fields_only_for_the_sync_models():
    with pytest.raises(ValueError, match=r"sync.readout applies to the synchronisation"):
        models.get_config("tiny", attention="softmax", **{"sync.readout": "vonmises"})
    with pytest.raises(ValueError, match="sync.drift must be 'planes'"):
        models.get_config("tiny", attention="kuramoto", **{"sync.drift": "none"})
    # the readout is the Kuramoto model's too
    assert models.get_config("tiny", attention="kuramoto", **{"sync.readout": "vonmises"})
    with pytest.raises(OverrideError, match="unknown"):
        run_overrides(["sync.readot=vonmises"])


@settings(max_examples=15, deadline=None)
@given(
    attention=st.sampled_from(["kuramoto", "sphere", "group"]),
    n=st.integers(2, 6),
    grp=st.sampled_from(["so2", "so3", "so4", "u1", "u2", "u3"]),
    readout=st.sampled_from(["prototype", "vonmises", "lift_linear"]),
    drift=st.sampled_from(["planes", "full", "none"]),
)
def test_saved_configs_round_trip(attention, n, grp, readout, drift):
    if attention == "kuramoto":
        drift = "planes"
    cfg = models.get_config("tiny", attention=attention, **{
        "sync.sphere_dim": n, "sync.group": grp, "sync.readout": readout, "sync.drift": drift})
    raw = json.loads(json.dumps(dataclasses.asdict(cfg)))
    assert isinstance(raw["sync"], dict)
    assert models.ModelConfig.from_dict(raw) == cfg


def test_old_saved_config_without_sync_loads():
    raw = dataclasses.asdict(models.get_config("tiny", attention="kuramoto"))
    raw.pop("sync")
    cfg = models.ModelConfig.from_dict(raw)
    assert cfg.sync == models.SyncConfig() and cfg == models.get_config("tiny", attention="kuramoto")
    with pytest.raises(ValueError, match="did you mean 'readout'"):
        models.ModelConfig.from_dict(raw | {"sync": {"readot": "x"}})

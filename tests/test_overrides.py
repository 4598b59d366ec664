"""syncattn._overrides: the one KEY=VALUE parser of train, experiment and study."""

from __future__ import annotations

import dataclasses
from typing import Literal

import pytest

from syncattn import _overrides as ov
from syncattn._overrides import OverrideError


@dataclasses.dataclass(frozen=True)
class Cfg:
    steps: int = 10
    lr: float = 1e-3
    flag: bool = False
    name: str = "x"
    path: str | None = None
    limit: int | None = 5
    mode: Literal["fast", "slow"] = "fast"
    seeds: tuple[int, ...] = (0,)
    dims: tuple[float, ...] = ()
    pair: tuple[int, str] = (1, "a")


def test_text_is_parsed_by_the_field_type():
    got = ov.parse_items(
        ["steps=12", "lr=2e-3", "flag=yes", "name= hello ", "path=none", "limit=null",
         "mode=slow", "seeds=3,1,2", "dims=(0.5, 2)", "pair=4,b"], Cfg,
    )
    assert got == {"steps": 12, "lr": 0.002, "flag": True, "name": "hello", "path": None,
                   "limit": None, "mode": "slow", "seeds": (3, 1, 2), "dims": (0.5, 2.0),
                   "pair": (4, "b")}
    assert type(got["dims"][1]) is float
    for text, value in (("true", True), ("1", True), ("on", True), ("False", False),
                        ("0", False), ("no", False), ("off", False)):
        assert ov.parse_value("flag", bool, text) is value
    # an int range includes both ends; an empty text is the empty tuple; [] accepted
    assert ov.parse_value("seeds", tuple[int, ...], "0-4") == (0, 1, 2, 3, 4)
    assert ov.parse_value("seeds", tuple[int, ...], "") == ()
    assert ov.parse_value("seeds", tuple[int, ...], "[-2, 3]") == (-2, 3)
    assert ov.parse_value("seeds", tuple[int, ...], "-3") == (-3,)
    assert ov.parse_value("path", str | None, "runs/a") == "runs/a"
    assert ov.parse_value("limit", int | None, "7") == 7


def test_python_values_are_checked_not_parsed():
    assert ov.parse_items({"lr": 1, "steps": 3.0, "seeds": [1, 2], "limit": None}, Cfg) == {
        "lr": 1.0, "steps": 3, "seeds": (1, 2), "limit": None}
    assert type(ov.check_value("lr", float, 1)) is float
    for key, value in (("steps", True), ("steps", 2.5), ("flag", 1), ("name", 3),
                       ("mode", "medium"), ("seeds", (1, "a")), ("pair", (1,))):
        with pytest.raises(OverrideError, match=f"^{key} must be"):
            ov.parse_items({key: value}, Cfg)


@pytest.mark.parametrize("item, message", [
    ("steps=many", "steps must be an int; got 'many'."),
    ("lr=fast", "lr must be a float; got 'fast'."),
    ("flag=maybe", "flag must be a bool (true/false); got 'maybe'."),
    ("limit=x", "limit must be an int or None; got 'x'."),
    ("mode=medium", "mode must be one of fast, slow; got 'medium'."),
    ("seeds=1,x", "seeds must be a comma-separated list of int; got '1,x'."),
    ("seeds=4-2", "seeds: the range '4-2' is empty."),
    ("pair=1", "pair must be 2 comma-separated values (int, str); got '1'."),
    ("steps", "overrides are KEY=VALUE; got 'steps'."),
    ("=3", "overrides are KEY=VALUE; got '=3'."),
])  # fmt: skip
def test_one_message_format(item, message):
    with pytest.raises(OverrideError) as e:
        ov.parse_items([item], Cfg)
    assert str(e.value) == message
    assert isinstance(e.value, ValueError) and e.value.exit_code == 2


def test_unknown_key_suggests_the_closest_and_lists_all():
    with pytest.raises(OverrideError) as e:
        ov.parse_items(["stpes=3"], Cfg, "study")
    fields = [f.name for f in dataclasses.fields(Cfg)]
    assert str(e.value) == (
        f"unknown study key 'stpes' (did you mean 'steps'?); valid keys: {', '.join(fields)}."
    )
    with pytest.raises(OverrideError) as e:  # nothing close: no suggestion
        ov.parse_items(["zzzz=3"], Cfg)
    assert "did you mean" not in str(e.value) and "valid keys: steps, lr," in str(e.value)


def test_a_key_given_twice_is_an_error():
    with pytest.raises(OverrideError) as e:
        ov.parse_items(["steps=1", "lr=1", "steps=2"], Cfg)
    assert str(e.value) == "steps is given twice ('steps=1' and 'steps=2'); give each key once."
    # pairs count too
    with pytest.raises(OverrideError, match="steps is given twice"):
        ov.parse_items([("steps", 1), "steps=1"], Cfg)


def test_apply_replaces_the_fields_and_keeps_the_rest():
    c = ov.apply(Cfg(), ["steps=7", "seeds=0-2"])
    assert c == Cfg(steps=7, seeds=(0, 1, 2))
    assert ov.apply(c, []) is c


@dataclasses.dataclass(frozen=True)
class Train:
    lr: float = 1e-3
    seed: int = 0


@dataclasses.dataclass(frozen=True)
class Model:
    d_osc: int = 8
    seed: int = 0


def test_grouped_keys_prefixes_and_open_groups():
    groups = {"train": Train, "model": Model, "data": None}
    got = ov.parse_grouped(
        ["lr=1", "d_osc=4", "train.seed=3", "model.seed=5", "data.vocab_size=2000",
         "data.val_fraction=0.25", "data.flag=true", "data.name=wiki", "data.x=none"],
        groups,
    )
    assert got == {"train": {"lr": 1.0, "seed": 3}, "model": {"d_osc": 4, "seed": 5},
                   "data": {"vocab_size": 2000, "val_fraction": 0.25, "flag": True,
                            "name": "wiki", "x": None}}
    assert type(got["train"]["lr"]) is float
    # typed values with prefixed keys (what the experiments' cells carry)
    assert ov.parse_grouped({"model.d_osc": 2, "train.lr": 1}, groups)["train"] == {"lr": 1.0}
    with pytest.raises(OverrideError) as e:
        ov.parse_grouped(["seed=1"], groups)
    assert str(e.value) == (
        "key 'seed' is a field of train and model; write it with a prefix, e.g. train.seed=1."
    )
    with pytest.raises(OverrideError) as e:
        ov.parse_grouped(["d_os=1"], groups)
    assert str(e.value) == (
        "unknown config key 'd_os' (did you mean 'd_osc'?); valid keys: train: lr, seed; "
        "model: d_osc, seed; data.OPTION."
    )
    with pytest.raises(OverrideError, match=r"^unknown model key 'lr'; valid keys: d_osc, seed\.$"):
        ov.parse_grouped(["model.lr=1"], groups)
    with pytest.raises(OverrideError) as e:
        ov.parse_grouped(["lr=1", "train.lr=2"], groups)
    assert str(e.value) == (
        "train.lr is given twice ('lr=1' and 'train.lr=2'); give each key once."
    )
    with pytest.raises(OverrideError, match="d_osc must be an int; got 'x'"):
        ov.parse_grouped(["model.d_osc=x"], groups)


def test_stack_later_layers_replace_earlier_keys():
    assert ov.stack(["a=1", "b=2"], {"b": 3}, [("c", 4)]) == {"a": "1", "b": 3, "c": 4}
    with pytest.raises(OverrideError, match="a is given twice"):
        ov.stack(["a=1", "a=2"])


def test_every_app_config_field_type_parses():
    """Every field of every study and experiment config, and of the training and model
    configs, takes its own default written as text back unchanged."""
    import importlib

    from syncattn import models, training
    from syncattn.experiments import EXPERIMENTS
    from syncattn.studies import STUDIES

    classes = [models.ModelConfig, training.TrainConfig]
    classes += [importlib.import_module(f"syncattn.studies.{m}").Config for m in STUDIES.values()]
    classes += [importlib.import_module(f"syncattn.experiments.{m}").Config
                for m in EXPERIMENTS.values()]
    for cls in classes:
        config = cls.default() if hasattr(cls, "default") else cls()
        pairs = []
        for key, tp in ov.field_types(cls).items():
            value = getattr(config, key)
            if ov.is_nested(tp):  # a sub-config: each of its fields (sync.sphere_dim=4)
                pairs += [(f"{key}.{k}", t, getattr(value, k))
                          for k, t in ov.field_types(tp).items()]
            else:
                pairs.append((key, tp, value))
        for key, tp, value in pairs:
            if isinstance(value, tuple):
                text = ",".join(map(str, value))
            else:
                text = "none" if value is None else str(value)
            if isinstance(value, str) and ("," in value or value.strip() != value):
                continue
            assert ov.parse_value(key, tp, text) == value, (cls, key, text)


def test_dict_access_to_run_configs_is_a_deprecated_alias():
    from syncattn import models, training

    for config in (training.TrainConfig(), models.ModelConfig()):
        key = "seed" if isinstance(config, training.TrainConfig) else "d_model"
        with pytest.warns(DeprecationWarning, match=f"use the attribute .{key}"):
            assert config[key] == getattr(config, key)
        with pytest.warns(DeprecationWarning), pytest.raises(KeyError):
            config["nope"]
    # a field of ModelConfig's parts by its flat key (issue 41)
    with pytest.warns(DeprecationWarning, match=r"use the attribute \.osc\.d_osc"):
        assert models.ModelConfig()["d_osc"] == models.ModelConfig().osc.d_osc


def test_studies_and_experiments_share_the_sizes():
    from syncattn.experiments import _common as exp_common, make_config
    from syncattn.studies import _common as study_common, lohe_sync

    assert exp_common.SIZES == study_common.SIZES == ("smoke", "default", "full")
    with pytest.warns(DeprecationWarning, match="smoke"):
        assert make_config("table", "small") == make_config("table", "smoke")
    with pytest.warns(DeprecationWarning, match="smoke"):
        assert study_common.at_size(lohe_sync.Config, "small") == lohe_sync.Config.smoke()
    with pytest.raises(ValueError, match="size must be one of smoke, default, full"):
        study_common.at_size(lohe_sync.Config, "huge")

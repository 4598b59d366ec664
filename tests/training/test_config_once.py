"""`syncattn train --model oscillator --config 1m d_osc=8` parses the override once and
validates the model config once (issue 16)."""

from __future__ import annotations

import json

import pytest

from syncattn import _overrides, models, nn
from syncattn.training import _cli, _loop, _run

from ._standin import TinyLM


@pytest.mark.parametrize("real_build", [
    False,  # the stand-in model (building the real one takes 5-70 s on a loaded CPU)
    pytest.param(True, marks=pytest.mark.slow),
])  # fmt: skip
def test_train_parses_and_validates_an_override_once(real_build, tmp_path, monkeypatch, capsys):
    import jax

    parsed, validated, built, fitted = [], [], [], []
    from_text = _overrides._from_text

    def spy_from_text(key, tp, text):
        parsed.append((key, text))
        return from_text(key, tp, text)

    post_init = models.ModelConfig.__post_init__

    def spy_post_init(self):
        validated.append(self)
        post_init(self)

    build = models.build

    def spy_build(cfg, *, key):
        built.append(cfg)
        return build(cfg, key=key) if real_build else TinyLM(cfg.vocab_size, key=key)

    def fake_fit(model, tcfg, corpus, out, **kw):
        fitted.append(model)
        return {"step": 0, "loss": 0.0, "eval": {}}

    monkeypatch.setattr(_overrides, "_from_text", spy_from_text)
    monkeypatch.setattr(models.ModelConfig, "__post_init__", spy_post_init)
    monkeypatch.setattr(models, "build", spy_build)
    monkeypatch.setattr(_loop, "fit", fake_fit)
    _run._cached_build.cache_clear()
    out = tmp_path / "run"
    code = _cli.train(["--model", "oscillator", "--config", "1m", "--quiet",
                       "--out", str(out), "d_osc=8"])
    assert code == 0, capsys.readouterr().err
    assert [p for p in parsed if p[0] == "d_osc"] == [("d_osc", "8")]  # parsed once
    # one ModelConfig constructed (and validated) in the whole path, and built as it is
    assert len(validated) == 1 and validated[0].osc.d_osc == 8
    assert len(built) == 1 and built[0] is validated[0]
    assert json.loads((out / "config.json").read_text())["model"]["osc"]["d_osc"] == 8
    if real_build:  # each layer checked its own argument once, when it was built
        (model,) = fitted
        layers = [x for x in jax.tree_util.tree_leaves(
            model, is_leaf=lambda x: isinstance(x, nn.OscillatorAttention))
            if isinstance(x, nn.OscillatorAttention)]  # fmt: skip
        assert len(layers) == 4 and all(a.d_osc == 8 for a in layers)
    # the mutation: a second construction (as before issue 16: three) is counted
    models.get_config("1m", attention="oscillator", d_osc=8)
    assert len(validated) == 2

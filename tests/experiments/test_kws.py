"""Experiment 8 (keyword spotting on the espeak-ng proxy): the optimiser, the statistics,
and the smoke run through the command line (slow; CI runs it)."""

import json
import math
import shutil

import jax.numpy as jnp
import numpy as np
import pytest

from syncattn.experiments import kws

from ..helpers import approx, assert_close
from .conftest import run_cli


def test_optimizer_is_torch_adam_with_coupled_decay_and_epoch_cosine():
    """optax chain against the recipe written out in float64 numpy (Adam with L2 added
    to the clipped gradient, ``CosineAnnealingLR`` stepped per epoch)."""
    recipe = kws.KWSRecipe(epochs=3, lr=1e-2, weight_decay=0.1, clip_norm=1.0)
    per_epoch = 2
    rng = np.random.default_rng(0)
    theta = rng.standard_normal(6)
    grads = [rng.standard_normal(6) * s for s in (0.3, 2.0, 0.5, 4.0, 0.1, 1.0, 0.7)]
    opt = kws.kws_optimizer(recipe, per_epoch)
    p, state = jnp.asarray(theta), None
    state = opt.init(p)
    for g in grads:
        upd, state = opt.update(jnp.asarray(g), state, p)
        p = p + upd
    # by hand
    th, m, v = theta.copy(), np.zeros(6), np.zeros(6)
    for s, g in enumerate(grads):
        g = g * min(1.0, recipe.clip_norm / np.linalg.norm(g)) + recipe.weight_decay * th
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        mh, vh = m / (1 - 0.9 ** (s + 1)), v / (1 - 0.999 ** (s + 1))
        eta = 0.5 * recipe.lr * (1 + math.cos(math.pi * (s // per_epoch) / recipe.epochs))
        th = th - eta * mh / (np.sqrt(vh) + 1e-8)
    assert_close(p, th)
    with pytest.raises(ValueError, match="per_epoch"):
        kws.kws_optimizer(recipe, 0)


def test_t_interval():
    x = [1.0, 2.0, 4.0, 3.0, 5.0]
    lo, hi = kws.t_interval(x, 0.95)
    # t_{0.975, 4} = 2.7764451051977987 (tables); s = sqrt(2.5)
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert (lo, hi) == approx((3.0 - half, 3.0 + half))
    assert kws.t_interval([1.0]) is None


def test_aggregate_pairs_by_seed():
    cfg = kws.Config(seeds=(0, 1, 2), voices=(3, 2, 2), clips_per_class=1)
    cl = kws.cells(cfg)
    acc = {("oscillator", 0): 0.8, ("oscillator", 1): 0.9, ("oscillator", 2): 0.7,
           ("softmax", 0): 0.7, ("softmax", 1): 0.85, ("softmax", 2): 0.72}  # fmt: skip
    res = [{"status": "ok", "test_at_best": acc[c.model, c.seed], "best_val_acc": 0.5,
            "final_test_acc": acc[c.model, c.seed] - 0.01, "best_epoch": 1} for c in cl]  # fmt: skip
    agg = kws.aggregate(cfg, cl, res)
    d = [100 * (acc["oscillator", s] - acc["softmax", s]) for s in (0, 1, 2)]
    assert agg["gap"]["test_at_best"]["mean"] == approx(np.mean(d))
    assert agg["gap"]["test_at_best"]["ci"] == approx(kws.t_interval(d))
    assert agg["table"]["softmax"]["test_at_best"]["mean"] == approx(100 * np.mean([0.7, 0.85, 0.72]))
    assert agg["gap"]["best_val"]["mean"] == approx(0.0)
    # a diverged cell is left out of its model's summary (and of the pairs)
    res[0] = {"status": "diverged"}
    agg = kws.aggregate(cfg, cl, res)
    assert agg["table"]["oscillator"]["test_at_best"]["n"] == 2
    assert agg["gap"]["test_at_best"]["n"] == 2


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_kws_smoke(tmp_path, compile_cache, monkeypatch):
    pytest.importorskip("librosa")
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert run_cli("kws", "--smoke", "--out", str(out), cache=compile_cache) == 0
    assert {"config.json", "results.json", "runs.csv", "kws.png"} <= {p.name for p in out.iterdir()}
    res = json.loads((out / "results.json").read_text())
    assert "synthetic proxy" in res["note"] and res["paper"]["gain_points"] == 1.00
    assert len(res["rows"]) == 4 and {r["status"] for r in res["rows"]} == {"ok"}
    for m, t in res["table"].items():
        vals = [r["test_at_best"] for r in res["rows"] if r["model"] == m]
        assert t["test_at_best"]["mean"] == approx(np.mean(vals))
        assert t["test_at_best"]["ci"] == approx(list(kws.t_interval(vals)))
        for r in res["rows"]:
            assert 0 <= r["test_at_best"] <= 100 and 1 <= r["best_epoch"] <= 2
    # the data came from the cache folder, split by voice
    sp = res["data"]["speakers"]
    assert set(sp["train"]).isdisjoint(sp["test"]) and res["data"]["counts"]["train"] == 72
    # each cell logged both epochs; re-running trains nothing again
    logs = sorted((out / "runs").glob("*/log.jsonl"))
    assert len(logs) == 4 and all(len(p.read_text().splitlines()) == 2 for p in logs)
    before = {p: p.stat().st_mtime for p in (out / "runs").glob("*/result.json")}
    assert run_cli("kws", "--smoke", "--out", str(out), cache=compile_cache) == 0
    assert before == {p: p.stat().st_mtime for p in (out / "runs").glob("*/result.json")}


def test_kws_without_espeak_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # no espeak-ng
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "cache"))
    assert run_cli("kws", "--smoke", "--out", str(tmp_path / "out")) == 2
    assert "espeak-ng was not found" in capsys.readouterr().err


def test_raw_anchor_cells_are_named_apart():
    cfg = kws.Config(seeds=(0,), voices=(3, 2, 2), clips_per_class=1, normalize_anchors=False)
    names = {c.model: c.name for c in kws.cells(cfg)}
    # the oscillator with raw anchors is another training; softmax does not depend on it
    assert names == {"oscillator": "oscillator-d2-raw-seed0", "softmax": "softmax-d2-seed0"}
    import jax

    m = kws.kws_model(cfg, "oscillator", key=jax.random.key(0))
    assert m.config.osc.normalize_anchors is False and m.config.final_norm is False


def test_kws_task_batches_and_optimizer():
    """The task's batch of step s is epoch e's permutation slice; its optimiser is the
    recipe's (one hashable value for every seed: one compiled step); too few clips fail."""
    recipe = kws.KWSRecipe(epochs=4, batch_size=3, lr=2e-3)
    rng = np.random.default_rng(0)
    splits = {s: {"x": rng.standard_normal((n, 5, 2)).astype(np.float32), "y": np.arange(n) % 3}
              for s, n in (("train", 7), ("val", 4), ("test", 4))}  # fmt: skip
    tasks = [kws.kws_task(recipe, splits, seed=s) for s in (5, 6)]
    t = tasks[0]
    assert t.optimizer == tasks[1].optimizer and hash(t.optimizer) == hash(tasks[1].optimizer)
    for step in range(8):  # 2 batches per epoch (the 7th clip dropped)
        e, i = divmod(step, 2)
        idx = np.random.default_rng((5, e)).permutation(7)[3 * i : 3 * i + 3]
        b = t.sample_batch(step)
        np.testing.assert_array_equal(b["x"], splits["train"]["x"][idx])
        np.testing.assert_array_equal(b["y"], splits["train"]["y"][idx])
        assert t.optimizer.lr_at(step) == approx(0.5 * 2e-3 * (1 + math.cos(math.pi * e / 4)))
    with pytest.raises(ValueError, match="batch_size=8"):
        kws.kws_task(kws.KWSRecipe(batch_size=8), splits, seed=0)


def test_frozen_value_arms_named_and_built():
    import jax

    from syncattn import nn

    cfg = kws.Config(seeds=(0,), voices=(3, 2, 2), clips_per_class=1, normalize_anchors=False,
                     models=("oscillator-frozen-wv", "softmax-frozen-wv"))  # fmt: skip
    names = {c.model: c.name for c in kws.cells(cfg)}
    assert names == {"oscillator-frozen-wv": "oscillator-frozen-wv-d2-raw-seed0",
                     "softmax-frozen-wv": "softmax-frozen-wv-d2-seed0"}  # fmt: skip
    import equinox as eqx

    for m in cfg.models:  # shapes only: nothing allocated
        model = eqx.filter_eval_shape(lambda k: kws.kws_model(cfg, m, key=k), jax.random.key(0))
        assert model.config.freeze_values and model.config.attention == m.split("-")[0]
        layers = [a for a in jax.tree.leaves(model, is_leaf=lambda a: isinstance(a, nn.FrozenLinear))
                  if isinstance(a, nn.FrozenLinear)]  # fmt: skip
        assert len(layers) == 1
    with pytest.raises(ValueError, match="oscillator-l3"):
        kws.Config(models=("oscillator-l3",))


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_kws_frozen_value_smoke(tmp_path, compile_cache, monkeypatch):
    pytest.importorskip("librosa")
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    arms = "models=oscillator,softmax,oscillator-frozen-wv,softmax-frozen-wv"
    assert run_cli("kws", "--smoke", arms, "--out", str(out), cache=compile_cache) == 0
    res = json.loads((out / "results.json").read_text())
    assert len(res["rows"]) == 8 and {r["status"] for r in res["rows"]} == {"ok"}
    comp = {(c["a"], c["b"]) for c in res["comparisons"]}
    assert ("oscillator-frozen-wv", "oscillator") in comp and ("softmax-frozen-wv", "softmax") in comp

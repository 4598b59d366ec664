"""The SVA classifier: loss, metrics against a plain loop, training with resume."""

import json
import math
import shutil

import equinox as eqx
import jax
import numpy as np
import pytest

from syncattn import models, training
from syncattn.data import sva

from ..helpers import approx


@pytest.fixture(scope="module")
def model():
    cfg = models.get_config("paper-b-sva", d_model=16, d_ff=32)
    return models.build(cfg, key=jax.random.key(0))


def test_loss_is_bce_at_the_verb(model):
    recs = sva.generate_sva(12, 5)
    b = sva.sva_batch(recs, np.arange(12))
    loss = float(training.verb_bce_loss(model, b["tokens"], b["mask"], b["verb_pos"], b["label"]))
    want = 0.0
    call = eqx.filter_jit(lambda m, t, k: m(t, mask=k))
    for i in range(12):
        full = np.asarray(call(model, b["tokens"][i], b["mask"][i]), np.float64)
        z, y = full[b["verb_pos"][i]], b["label"][i]
        s = 1 / (1 + math.exp(-z))
        want -= (y * math.log(s) + (1 - y) * math.log(1 - s)) / 12
    assert loss == approx(want, np.float32)  # a float32 model


def test_metrics_against_a_loop():
    recs = sva.generate_sva(300, 7)
    logits = np.random.default_rng(0).normal(size=300)
    m = training.sva_metrics(
        logits, [r["label"] for r in recs], [sva.is_hard(r) for r in recs],
        [r["has_distractor"] for r in recs],
    )
    right = {"all": [], "simple": [], "hard": []}
    for z, r in zip(logits, recs, strict=True):
        ok = int(z > 0) == r["label"]
        right["all"].append(ok)
        if not r["has_distractor"]:
            right["simple"].append(ok)
        elif r["distractor_agrees"] is False:
            right["hard"].append(ok)
    for k, v in right.items():
        assert m[f"acc_{k}"] == approx(sum(v) / len(v))
        assert m[f"n_{k}"] == len(v)
    assert m["failed"] == (sum(right["hard"]) / len(right["hard"]) < 0.85)


def test_mean_float32_is_the_float32_mean():
    # each loss rounded to float32, averaged in float32: within a few float32 ulps of the
    # float64 mean of the rounded losses, and itself a float32 number
    rng = np.random.default_rng(0)
    losses = list(rng.uniform(0.0, 3.0, size=37))
    got = training.mean_float32(losses)
    want = float(np.mean(np.asarray(losses, dtype=np.float32).astype(np.float64)))
    assert float(np.float32(got)) == got
    assert abs(got - want) <= 4 * float(np.spacing(np.float32(want)))
    assert training.mean_float32([0.1]) == float(np.float32(0.1)) != 0.1
    assert math.isnan(training.mean_float32([]))


def test_metrics_bad_input():
    with pytest.raises(ValueError, match="1-D"):
        training.sva_metrics([0.1], [1, 0], [True], [True])
    with pytest.raises(ValueError, match="0/1"):
        training.sva_metrics([0.1], [2], [True], [True])
    with pytest.raises(ValueError, match="finite"):
        training.sva_metrics([np.nan], [1], [True], [True])


@pytest.mark.slow
def test_fit_classifier_resumes_identically(tmp_path, model):
    splits = {"train": sva.generate_sva(128, 0), "val": sva.generate_sva(64, 1)}
    cfg = training.TrainConfig(steps=4, batch_size=64, lr=5e-4, warmup_steps=0, seed=3)
    a = training.fit_classifier(model, cfg, splits, tmp_path / "a", epochs=2)
    logs = [json.loads(x) for x in (tmp_path / "a" / "log.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in logs] == [1, 2]
    # lose the last epoch's checkpoint: the re-run redoes epoch 2 only, identically
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    last = training.list_checkpoints(tmp_path / "b" / "checkpoints")[0]
    assert last[0] == 4
    shutil.rmtree(last[1])
    b = training.fit_classifier(model, cfg, splits, tmp_path / "b", epochs=2)
    assert b["resumed_from"] == 2
    assert b["val"] == a["val"]
    la, lb = jax.tree.leaves(a["model"]), jax.tree.leaves(b["model"])
    for x, y in zip(la, lb, strict=True):
        if hasattr(x, "dtype"):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    with pytest.raises(ValueError, match="epochs"):
        training.fit_classifier(model, cfg, splits, tmp_path / "c", epochs=3)

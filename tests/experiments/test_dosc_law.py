"""Issue 20 item 4 (`dosc_law`): the budget rule on the real model, the walk (per-family
lr sweep with its extension, the law's cells), the law and convergence record against
hand computations, resume from committed results and the rebuild."""

import dataclasses
import json
import math

import jax
import numpy as np
import pytest

from syncattn import cli, models
from syncattn.experiments import Grid, dosc_law, scaling

from ..helpers import approx


SMOKE = dosc_law.Config.smoke()


def _spec(cell):
    from syncattn.training import make_spec

    spec, corpus = make_spec(cell.model, cell.config, data=cell.data, steps=cell.steps,
                             seed=cell.seed, overrides=cell.overrides)
    return spec, corpus


def test_budget_is_twenty_non_embedding_params_of_the_built_model():
    cell = dosc_law.cell(SMOKE, "softmax", 3e-3, 0)
    spec, corpus = _spec(cell)
    V, d = SMOKE.vocab_size, SMOKE.d_model
    # independent count: the built model's arrays, less every array with a vocabulary axis
    leaves = [x for x in jax.tree_util.tree_leaves(models.build(spec.model, key=jax.random.key(0)))
              if hasattr(x, "shape") and x.dtype.kind == "f"]  # fmt: skip
    vocab = sum(x.size for x in leaves if V in x.shape)
    assert vocab == V * d + d * V + V  # embedding, output weight and bias
    n = sum(x.size for x in leaves) - vocab
    assert dosc_law.budget_params(SMOKE) == n
    b = dosc_law.budget(SMOKE)
    T = spec.train.seq_len
    assert T == SMOKE.seq_len == corpus.train.shape[1] - 1  # the budget's T is the training's
    per = SMOKE.batch_size * T
    assert b["steps"] % SMOKE.evals == 0 and b["tokens"] == b["steps"] * per
    assert 0.2 * n <= b["tokens"] < 0.2 * n + SMOKE.evals * per
    t = spec.train
    assert (t.steps, t.warmup_steps, t.eval_every, t.lr) == (b["steps"], b["warmup_steps"],
                                                            b["eval_every"], 3e-3)  # fmt: skip
    assert (t.weight_decay, t.min_lr_ratio, t.b2, t.clip_norm) == (1e-4, 0.0, 0.999, 1.0)
    osc = dosc_law.cell(SMOKE, "oscillator", 3e-3, 1, 4, 2)
    ospec, _ = _spec(osc)
    assert (ospec.model.osc.d_osc, ospec.model.osc.p, ospec.model.d_model) == (4, 2, SMOKE.d_model)
    assert osc.steps == cell.steps and osc.name == "oscillator-d4-p2-lr0.003-seed1"


def test_default_size_numbers():
    b = dosc_law.budget(dosc_law.Config())
    assert b == {"params": 76_496, "tokens": 1_536_640, "target_tokens": 1_529_920,
                 "steps": 980, "warmup_steps": 49, "eval_every": 98}  # fmt: skip


ALPHA, C = 0.5, 12.0


def _fake(cell, folder):
    """A stand-in result: val loss best at lr 1e-2 (oscillator) / 3e-3 (softmax); test PPL
    100 + s (+ C d^-alpha for the oscillator, less 1 per unit of p - 1); a curve that fell
    2 % over its last 20 % at d = 2 and 0.5 % elsewhere."""
    lr, s = cell.overrides["train.lr"], cell.seed
    best = 1e-2 if cell.model == "oscillator" else 3e-3
    d, p = cell.overrides.get("model.d_osc"), cell.overrides.get("model.p", 1)
    ppl = 100.0 + s + (C * d ** -ALPHA - (p - 1) if d else 0.0)
    loss = 4.0 + abs(math.log10(lr / best)) + 0.001 * s
    steps, every = cell.steps, cell.steps // SMOKE.evals
    fall = 0.02 if d == 2 else 0.005
    curve = [{"step": k, "loss": loss * (1 + fall * (steps - k) / (0.2 * steps)),
              "ppl": ppl * (1 + fall * (steps - k) / (0.2 * steps))}
             for k in range(every, steps + 1, every)]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"kind": "train", "step": 1, "loss": 5.0}] + [{"kind": "eval", **q} for q in curve]
    (folder / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"status": "ok", "step": steps, "params": 1000, "val": {"loss": loss, "ppl": ppl + 1},
            "test": {"loss": loss, "ppl": ppl}, "curve": curve, "tokens_per_s": 100.0,
            "corpus": {"name": "embedded-words"}}  # fmt: skip


def test_walk_law_resume_and_rebuild(tmp_path, monkeypatch):
    committed = tmp_path / "committed"
    config = dataclasses.replace(SMOKE, dims=(2, 4, 8), p_dim=4, sweep_dim=4,
                                 lrs=(1e-3, 3e-3, 1e-2), extend=2, n_boot=200, committed=str(committed), export=True)  # fmt: skip
    calls = []

    def fake(cell, folder):
        calls.append(cell.name)
        return _fake(cell, folder)

    monkeypatch.setattr(dosc_law, "EXPERIMENT", dataclasses.replace(dosc_law.EXPERIMENT, cell=fake))
    dosc_law.run(config, tmp_path / "a", grid=Grid(progress=False), size="smoke")
    # the sweep, families interleaved; the oscillator's best (1e-2) is on the edge, so 3e-2
    # is tried (worse: stop); softmax's best (3e-3) lies inside
    assert calls[:7] == ["oscillator-d4-p1-lr0.001-seed0", "softmax-lr0.001-seed0",
                         "oscillator-d4-p1-lr0.003-seed0", "softmax-lr0.003-seed0",
                         "oscillator-d4-p1-lr0.01-seed0", "softmax-lr0.01-seed0",
                         "oscillator-d4-p1-lr0.03-seed0"]
    res = json.loads((tmp_path / "a" / "results.json").read_text())
    assert res["best_lr"] == {"oscillator": 1e-2, "softmax": 3e-3}
    assert res["lr_at_edge"] == {"oscillator": False, "softmax": False}
    assert list(res["lr_sweep"]["oscillator"]) == ["0.001", "0.003", "0.01", "0.03"]
    # the law's cells at the best lrs (d = 4 seed 0 is the sweep's), then the p sweep
    assert calls[7:] == ["oscillator-d2-p1-lr0.01-seed0", "oscillator-d8-p1-lr0.01-seed0",
                   "oscillator-d2-p1-lr0.01-seed1", "oscillator-d4-p1-lr0.01-seed1",
                   "oscillator-d8-p1-lr0.01-seed1", "softmax-lr0.003-seed1",
                   "oscillator-d4-p2-lr0.01-seed0", "oscillator-d4-p2-lr0.01-seed1"]
    # the law on the test PPL: gap C d^-alpha exactly (seed offsets cancel)
    for d in (2, 4, 8):
        assert res["gap"][str(d)] == approx(C * d ** -ALPHA)
    assert res["fit"]["alpha"] == approx(ALPHA) and res["fit"]["C"] == approx(C)
    assert res["val_law"]["fit"]["alpha"] == approx(ALPHA)  # val PPL = test + 1 for all
    assert res["p_sweep"]["2"]["mean"] == approx(res["p_sweep"]["1"]["mean"] - 1)
    # convergence record: 4 evaluations, so the window runs from 3/4 of the steps, where
    # the curve stood 1.25 x fall above its end: 2.4 % at d = 2 (not converged), 0.62 % else
    assert sorted(res["not_converged"]) == sorted(c for c in calls if "-d2-" in c)
    row = next(r for r in res["rows"] if r["cell"] == "softmax-lr0.003-seed1")
    assert row["improvement"] == approx(0.00625 / 1.00625) and row["converged"] is True
    row = next(r for r in res["rows"] if r["cell"] == "oscillator-d2-p1-lr0.01-seed1")
    assert row["improvement_ppl"] == approx(0.025 / 1.025) and row["converged"] is False
    # committed: result.json + eval rows only; another machine trains nothing
    rows = [json.loads(ln) for ln in
            (committed / "runs" / "softmax-lr0.003-seed0" / "log.jsonl").read_text().splitlines()]
    assert rows and all(r["kind"] == "eval" for r in rows)
    calls.clear()
    dosc_law.run(config, tmp_path / "b", grid=Grid(progress=False), size="smoke")
    assert calls == []
    second = json.loads((tmp_path / "b" / "results.json").read_text())
    assert second["fit"] == res["fit"] and second["rows"] == res["rows"]
    # the rebuild from the committed folder alone, through the command line
    out = tmp_path / "rebuilt"
    assert cli.main(["experiment", "dosc_law", "--from-results", str(committed), "--out",
                     str(out), "--quiet"]) == 0  # fmt: skip
    rebuilt = json.loads((out / "results.json").read_text())
    assert rebuilt["fit"] == res["fit"] and rebuilt["rebuilt_from"] == str(committed)
    assert (out / "dosc_law.png").is_file() and (out / "cells.csv").is_file()
    # a partial folder rebuilds, its absent cells missing
    (committed / "runs" / "oscillator-d8-p1-lr0.01-seed1" / "result.json").unlink()
    dosc_law.rebuild(committed, tmp_path / "partial")
    part = json.loads((tmp_path / "partial" / "results.json").read_text())
    assert part["missing"] == ["oscillator-d8-p1-lr0.01-seed1"] and part["ppl"]["8"]["n"] == 1
    assert res["sweep_complete"] == part["sweep_complete"] == {"oscillator": True, "softmax": True}
    text = dosc_law.summary(res)
    assert "alpha = 0.500" in text and "oscillator lr 0.01;" in text and "missing" not in text
    assert "missing cells: 1" in dosc_law.summary(part)


def test_a_gap_that_does_not_fall_fits_alpha_near_zero():
    # the law's fit, checked against numpy's least squares of log gap on log d
    config = dataclasses.replace(SMOKE, dims=(2, 4, 8, 16), n_boot=100)
    rng = np.random.default_rng(1)
    gaps = np.array([3.0, 2.9, 2.95, 2.8])
    osc = {d: list(100 + g + rng.normal(0, 0.01, 2)) for d, g in zip(config.dims, gaps, strict=True)}
    soft = [100.0, 100.0]
    out = scaling.law(config, osc, soft, {})
    means = np.array([np.mean(osc[d]) for d in config.dims]) - 100
    slope = np.polyfit(np.log(config.dims), np.log(means), 1)[0]
    assert out["fit"]["alpha"] == approx(-slope)
    assert abs(out["fit"]["alpha"]) < 0.05


def test_bad_config():
    with pytest.raises(ValueError, match="dims"):
        dosc_law.Config(dims=(1, 2))
    with pytest.raises(ValueError, match="lrs"):
        dosc_law.Config(lrs=(0.0,))
    with pytest.raises(ValueError, match="extend"):
        dosc_law.Config(extend=True)


@pytest.mark.slow
def test_smoke_end_to_end(tmp_path, compile_cache):
    from .conftest import run_cli

    out = tmp_path / "dosc"
    assert run_cli("dosc_law", "--smoke", "--out", str(out), cache=compile_cache) == 0
    res = json.loads((out / "results.json").read_text())
    # sweep 2 lrs x 2 families, then d = 4 + the other seed's d in {2, 4} + softmax + p = 2
    assert all(r["status"] == "ok" for r in res["rows"]) and len(res["rows"]) >= 8
    for r in res["rows"]:
        assert 1 < r["test_ppl"] < 400 and r["converged"] in (True, False)
    assert res["corpus"]["name"] == "embedded-words" and (out / "dosc_law.png").is_file()


def test_gap_paired_by_seed_against_a_hand_computation():
    # seeds 0, 1: oscillator 61.5 / 61.3, softmax 63.2 / 62.1 -> differences -1.7, -0.8
    config = dataclasses.replace(SMOKE, seeds=(0, 1))
    g = dosc_law.gap_interval({0: 61.5, 1: 61.3}, {0: 63.2, 1: 62.1}, config)
    t975_1 = 12.706204736174703  # Student t, 0.975 quantile, 1 degree of freedom
    half = t975_1 * (0.9 / math.sqrt(2)) / math.sqrt(2)  # s = |d_0 - d_1| / sqrt 2
    assert g["mean"] == approx(-1.25) and g["ci"] == approx([-1.25 - half, -1.25 + half])
    # two-sided p of t = -1.25 / (s / sqrt 2) = -2.78 on 1 dof: 1 - 2 atan(|t|) / pi
    t = 1.25 / (0.9 / math.sqrt(2) / math.sqrt(2))
    assert g["p"] == approx(1 - 2 * math.atan(t) / math.pi)
    one = dosc_law.gap_interval({0: 61.5}, {0: 63.2, 1: 62.1}, config)
    assert one["n"] == 1 and one["ci"] is None and one["p"] is None

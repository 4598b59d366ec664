"""Experiment 4's tables (failures, Fisher's tests, the paired gain) against counts done by
hand, and its committed results: export, adoption and the rebuild, with a stand-in cell
function (the real trainings run in test_seed001.py and in the committed cohort)."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from syncattn import stats
from syncattn.experiments import agreement


REPO = Path(__file__).resolve().parents[2]


def _fake_result(cell):
    """A deterministic stand-in for a training: odd seeds of softmax, and seed 3 of the
    oscillator, fail (hard accuracy below 85 %)."""
    hard = 0.80 if (cell.model == "softmax" and cell.seed % 2) or (cell.model == "oscillator"
                                                                    and cell.seed == 3) else 0.95
    hard += 0.001 * cell.seed
    return {"status": "ok", "step": 1, "params": 1, "data": "fake",
            "val": {"acc_all": hard + 0.01, "acc_simple": hard + 0.02, "acc_hard": hard,
                    "failed": hard < 0.85}}  # fmt: skip


def test_aggregate_counts_fisher_and_paired_gain():
    cfg = agreement.Config(seeds=tuple(range(6)), committed=None)
    cl = agreement.cells(cfg)
    results = [_fake_result(c) for c in cl]
    results[-1] = {"status": "missing"}  # softmax seed 5 not finished
    agg = agreement.aggregate(cfg, cl, results)
    assert agg["missing"] == ["softmax-d2-seed5"]
    osc, sm = agg["table"]["oscillator"], agg["table"]["softmax"]
    assert (osc["failures"], osc["n"]) == (1, 6) and (sm["failures"], sm["n"]) == (2, 5)
    assert osc["fisher_vs_paper_50"] == pytest.approx(stats.fisher_exact(1, 6, 3, 50))
    assert sm["fisher_vs_paper_50"] == pytest.approx(stats.fisher_exact(2, 5, 12, 50))
    b = agg["fisher_between_models"]
    assert b["oscillator_vs_softmax"] == pytest.approx(stats.fisher_exact(1, 6, 2, 5))
    assert b["paper_50"] == pytest.approx(0.0226, abs=5e-5)  # 3/50 against 12/50
    # paired over the five seeds both finished, by hand
    diffs = [100 * (_fake_result(o)["val"]["acc_hard"] - _fake_result(s)["val"]["acc_hard"])
             for o, s in zip(cl[0:10:2], cl[1:10:2], strict=True)]  # fmt: skip
    g = agg["paired_hard_gain"]
    assert g["n"] == 5 and g["mean"] == pytest.approx(np.mean(diffs))
    assert g["ci"] == pytest.approx(list(stats.t_interval(diffs, 0.95)))
    assert agg["hard_gain_points"] == pytest.approx(osc["hard"]["mean"] - sm["hard"]["mean"])


def test_default_size_shares_the_cohorts_committed_folder():
    cfg = agreement.Config()
    assert agreement._committed(cfg, "default") == agreement._committed(cfg, "full")
    assert agreement._committed(cfg, "full") == REPO / "results/experiments/agreement/agreement-full"
    assert agreement._committed(agreement.Config.smoke(), "smoke") is None


@pytest.mark.parametrize("size", ["default", "full"])
def test_committed_cohort_is_adopted_by_the_default_and_full_sizes(size):
    """Every cell of the default (seeds 0-4) and full (0-49) sizes finds its committed
    result with the same settings, so a run from a checkout trains nothing (a change
    to the recipe would make these cells train again, and fail here)."""
    from syncattn.experiments._grid import read_result
    from syncattn.experiments._protocol._committed import _same_cell

    cfg = getattr(agreement.Config, size)()
    src = agreement._committed(cfg, size)
    cl = agreement.cells(cfg)
    assert len(cl) == 2 * len(cfg.seeds)
    for c in cl:
        res = read_result(src / "runs" / c.name)
        assert res is not None and _same_cell(c, res), c.name


def test_export_adopt_and_rebuild(tmp_path, monkeypatch):
    calls = []

    def fake_cell(cell, folder):
        calls.append(cell.name)
        return _fake_result(cell)

    monkeypatch.setattr(agreement, "EXPERIMENT", dataclasses.replace(agreement.EXPERIMENT, cell=fake_cell))
    monkeypatch.setattr(agreement, "_cohort", lambda config: None)  # no cohort to adopt from
    committed = tmp_path / "committed"
    cfg = agreement.Config(seeds=(0, 1, 2), committed=str(committed), export=True)
    agreement.run(cfg, tmp_path / "a", progress=False, size="full")
    assert len(calls) == 6
    assert {p.parent.name for p in committed.glob("runs/*/result.json")} == {c.name for c in agreement.cells(cfg)}
    assert (committed / "config.json").is_file() and (committed / "results.json").is_file()
    # a fresh folder adopts every committed cell: nothing is trained
    agreement.run(cfg, tmp_path / "b", progress=False, size="full")
    assert len(calls) == 6
    # ... and a cell with other settings is trained, with a warning
    other = agreement.Config(seeds=(0,), committed=str(committed), lr=1e-3)
    with pytest.warns(UserWarning, match="other settings"):
        agreement.run(other, tmp_path / "c", progress=False, size="full")
    assert len(calls) == 8
    # the tables rebuilt from the committed folder alone equal the run's
    agreement.rebuild(committed, tmp_path / "r")
    got, want = (json.loads(p.read_text()) for p in (tmp_path / "r/results.json", tmp_path / "b/results.json"))
    for k in ("rows", "table", "paired_hard_gain", "fisher_between_models", "missing"):
        assert got[k] == want[k], k
    assert got["rebuilt_from"] == str(committed)


def test_rebuild_refuses_another_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a agreement config|holds no config.json"):
        agreement.rebuild(REPO / "results/experiments/linear/linear-default", tmp_path)


ARMS = ("oscillator", "softmax", "oscillator-frozen-wv", "softmax-frozen-wv", "oscillator-l3",
        "oscillator-l4")  # fmt: skip


def _arm_result(cell):
    """A stand-in with a distinct hard accuracy per arm and seed."""
    hard = 0.90 + 0.01 * ARMS.index(cell.model) + 0.003 * cell.seed ** 2 / (1 + ARMS.index(cell.model))
    return {"status": "ok", "step": 1, "params": 1, "data": "fake",
            "val": {"acc_all": hard - 0.01, "acc_simple": hard, "acc_hard": hard,
                    "failed": hard < 0.85}}  # fmt: skip


def test_ablation_arms_paired_differences_by_hand():
    cfg = agreement.Config(models=ARMS, seeds=(0, 1, 2, 3), committed=None)
    cl = agreement.cells(cfg)
    res = [_arm_result(c) for c in cl]
    agg = agreement.aggregate(cfg, cl, res)
    comp = {(c["a"], c["b"]): c for c in agg["comparisons"]}
    assert set(comp) == {("oscillator", "softmax"), ("oscillator-frozen-wv", "oscillator"),
                         ("softmax-frozen-wv", "softmax"), ("oscillator-frozen-wv", "softmax-frozen-wv"),
                         ("oscillator-l3", "oscillator"), ("oscillator-l4", "oscillator")}  # fmt: skip
    hard = {(c.model, c.seed): 100 * r["val"]["acc_hard"] for c, r in zip(cl, res, strict=True)}
    for (a, b), c in comp.items():
        d = [hard[a, s] - hard[b, s] for s in cfg.seeds]
        assert c["hard"]["n"] == 4 and c["hard"]["mean"] == pytest.approx(np.mean(d))
        assert c["hard"]["ci"] == pytest.approx(list(stats.t_interval(d, 0.95)))
    # the arms the paper has no 50-seed count for get no Fisher test against it
    assert agg["table"]["oscillator-l3"]["fisher_vs_paper_50"] is None
    assert "oscillator-l4 - oscillator (paired, 4 seeds)" in agreement.summary(
        {**agg, "paper": agreement.PAPER})


def test_ablation_run_adopts_the_cohorts_base_cells(tmp_path, monkeypatch):
    calls = []

    def fake_cell(cell, folder):
        calls.append(cell.name)
        return _arm_result(cell)

    monkeypatch.setattr(agreement, "EXPERIMENT", dataclasses.replace(agreement.EXPERIMENT, cell=fake_cell))
    cfg = agreement.Config(models=("oscillator", "oscillator-frozen-wv"), seeds=(0, 1),
                           committed=str(tmp_path / "committed"), export=True)  # fmt: skip
    agreement.run(cfg, tmp_path / "a", progress=False, size="full")
    # the base cells came from the committed cohort, only the new arm trained
    assert calls == ["oscillator-frozen-wv-d2-seed0", "oscillator-frozen-wv-d2-seed1"]
    cohort = REPO / "results/experiments/agreement/agreement-full/runs/oscillator-d2-seed1/result.json"
    mine = tmp_path / "committed/runs/oscillator-d2-seed1/result.json"
    assert json.loads(mine.read_text())["val"] == json.loads(cohort.read_text())["val"]
    agreement.rebuild(tmp_path / "committed", tmp_path / "r")
    assert json.loads((tmp_path / "r/results.json").read_text())["missing"] == []
    # without a committed folder (committed=None), or with another recipe, nothing is
    # adopted from the cohort (and nothing warns)
    for kw in (dict(committed=None), dict(committed=str(tmp_path / "other"), lr=1e-3)):
        calls.clear()
        agreement.run(agreement.Config(models=("oscillator",), seeds=(0,), **kw),
                      tmp_path / f"x{len(kw)}", progress=False, size="full")  # fmt: skip
        assert calls == ["oscillator-d2-seed0"]


@pytest.mark.slow
def test_ablation_arms_smoke(tmp_path, compile_cache):
    """Every ablation arm trains through the command line (1 epoch, 256 sentences)."""
    from .conftest import run_cli

    arms = "models=" + ",".join(ARMS)
    assert run_cli("agreement", "--smoke", "--seeds", "0-1", arms, "--out", str(tmp_path),
                   cache=compile_cache) == 0  # fmt: skip
    res = json.loads((tmp_path / "results.json").read_text())
    assert {r["model"] for r in res["rows"]} == set(ARMS) and res["missing"] == []
    assert all(c["hard"]["n"] == 2 for c in res["comparisons"])

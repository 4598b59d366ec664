"""Issue 20's ladder: the rung rule on the real models, the budget and schedule, the
convergence record, the lr selection, resume from committed results, the rebuild."""

import dataclasses
import json
import math

import jax
import pytest

from syncattn import cli, models
from syncattn.experiments import Grid, ladder

from ..helpers import approx


SMOKE = ladder.Config.smoke()


def _real_params(cell, build=False):
    """The parameter count of the model the training package makes for `cell` (its
    shapes, `eqx.filter_eval_shape` of the constructor; `build`: the arrays themselves)."""
    from syncattn.training import make_spec

    spec, _ = make_spec(cell.model, cell.config, data=cell.data, steps=cell.steps,
                        seed=cell.seed, overrides=cell.overrides)
    if build:
        return models.count_params(models.build(spec.model, key=jax.random.key(0))), spec
    return models.config_params(spec.model), spec


def _check_rung(config, target, build=False, neighbours=False):
    shape = ladder.rung_shape(target)
    d, L = shape["d_model"], shape["n_layers"]
    assert d % 16 == 0 and shape["n_heads"] == d // 16 and L == ladder.rung_depth(target)
    assert shape["d_ff"]["kuramoto"] == 8 * math.floor(2.75 * d / 8 + 0.5)  # ties upwards
    counts = {}
    for cell in ladder.sweep_cells(config, target)[::len(config.lrs)]:  # one per model
        counts[cell.model], spec = _real_params(cell, build)
        assert (spec.model.d_model, spec.model.n_layers) == (d, L)
        assert counts[cell.model] == shape["params"][cell.model]
    assert abs(counts["softmax"] / counts["kuramoto"] - 1) < 0.05  # matched within 5 %
    # no multiple of 16 gives a Kuramoto count closer to the target
    for other in (d - 16, d + 16) if neighbours else ():
        if other >= 16:
            n = models.config_params(models.get_config(
                "1m", attention="kuramoto", d_model=other, n_layers=L, n_heads=other // 16,
                d_ff=8 * math.floor(2.75 * other / 8 + 0.5)))  # fmt: skip
            assert abs(math.log(n / target)) >= abs(math.log(counts["kuramoto"] / target))
    return shape


def test_rung_depth_schedule():
    assert [ladder.rung_depth(n) for n in (12_000, 50_000, 100_000, 200_000, 400_000,
                                           1_000_000, 5_000_000)] == [1, 2, 2, 3, 4, 4, 6]


def test_rung_rule_on_the_real_models_smallest_rung():
    shape = _check_rung(SMOKE, 12_000)
    assert (shape["d_model"], shape["n_layers"], shape["params"]["kuramoto"]) == (16, 1, 12_098)


@pytest.mark.slow
def test_rung_rule_on_the_real_models_every_rung():
    full = ladder.Config.full()
    shape = _check_rung(ladder.Config(), 50_000)
    assert (shape["d_model"], shape["n_layers"]) == (32, 2)
    for target in full.targets:
        shape = _check_rung(full, target, build=target == 50_000, neighbours=True)
        # d moves in steps of 16: the count lands within 20 % of the target
        assert abs(math.log(shape["params"]["kuramoto"] / target)) < math.log(1.2)
    # the 1M rung's Kuramoto model is the 1m preset's shape
    assert ladder.rung_shape(1_000_000)["params"]["kuramoto"] == models.config_params(
        models.get_config("1m", attention="kuramoto"))


def test_budget_and_cosine_schedule():
    from syncattn.training import lr_schedule

    config = ladder.Config()
    b = ladder.rung_budget(config, 45_827)
    per_step = 16 * 128
    assert b["steps"] % config.evals == 0 and b["tokens"] == b["steps"] * per_step
    assert 20 * 45_827 <= b["tokens"] < 20 * 45_827 + config.evals * per_step
    assert b["eval_every"] * config.evals == b["steps"]
    cell = ladder.sweep_cells(SMOKE, 12_000)[0]
    _, spec = _real_params(cell)
    t = spec.train
    sb = ladder.rung_budget(SMOKE, 12_098)
    assert (t.steps, t.warmup_steps, t.eval_every) == (sb["steps"], sb["warmup_steps"], sb["eval_every"])
    assert sb["tokens"] >= 0.1 * 12_098 and t.batch_size * t.seq_len == 4 * 32
    lr = cell.overrides["train.lr"]
    # warm-up then cosine from lr to 0.1 lr, ending at the budget's last step
    s = lr_schedule(spec.train)
    sw, S = t.warmup_steps, t.steps
    assert float(s(sw)) == approx(lr, "float32")
    mid = (sw + S) / 2
    assert float(s(int(mid))) == approx(0.1 * lr + 0.45 * lr * (1 + math.cos(math.pi * (int(mid) - sw) / (S - sw))), "float32")
    assert float(s(S)) == approx(0.1 * lr, "float32")


def _fake(cell, folder, *, bpc=None):
    """A stand-in cell result: BPC falls with size, depends on the lr, and a curve."""
    n = ladder.rung_shape(int(cell.name.split("-")[0][:-1]) * 1000)["params"]["kuramoto"]
    lr = cell.overrides["train.lr"]
    base = bpc if bpc is not None else (
        4.0 - 0.2 * math.log(n / 1e4) + (0.05 if cell.model == "kuramoto" else 0.0)
        + abs(math.log10(lr / 3e-3)) * 0.1 + 0.01 * cell.seed)  # fmt: skip
    steps = cell.steps
    every = steps // SMOKE.evals
    curve = [{"step": s, "bpc": base * (1 + 0.3 * (1 - s / steps) ** 2)}
             for s in range(every, steps + 1, every)]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    rows = [{"kind": "train", "step": 1, "loss": 5.0}] + [{"kind": "eval", **p} for p in curve]
    (folder / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"status": "ok", "step": steps, "params": n, "val": {"bpc": base, "loss": base},
            "test": {"bpc": base + 0.02}, "curve": curve, "tokens_per_s": 1000.0,
            "corpus": {"name": "embedded"}}  # fmt: skip


def test_convergence_record_against_a_hand_computation():
    cell = ladder.sweep_cells(SMOKE, 12_000)[0]
    steps = [10, 20, 30, 40, 50]
    res = {"status": "ok", "curve": [{"step": s, "bpc": b} for s, b in
                                     zip(steps, [3.0, 2.5, 2.3, 2.20, 2.17], strict=True)]}
    rec = ladder._converged(SMOKE, res)
    # window 0.2 of 50 steps: from step 40 (2.20) to 50 (2.17): 1.36 % >= 1 %
    assert rec["from_step"] == 40 and rec["improvement"] == approx(0.03 / 2.20)
    assert rec["converged"] is False
    res["curve"][-1]["bpc"] = 2.185  # 0.68 %
    assert ladder._converged(SMOKE, res)["converged"] is True
    assert ladder._converged(SMOKE, {"status": "diverged"}) is None
    assert cell.steps % SMOKE.evals == 0


def test_lr_selection():
    ok = lambda b: {"status": "ok", "val": {"bpc": b}}  # noqa: E731
    assert ladder.best_lr({1e-3: ok(2.0), 3e-3: ok(1.9), 1e-2: ok(2.1)}) == 3e-3
    assert ladder.best_lr({1e-3: ok(1.9), 3e-3: ok(1.9)}) == 1e-3  # tie: smaller
    assert ladder.best_lr({1e-3: {"status": "diverged"}, 3e-3: ok(2.5)}) == 3e-3
    assert ladder.best_lr({1e-3: {"status": "diverged"}, 3e-3: None}) is None
    more = ladder.seed_cells(SMOKE, 12_000, {"kuramoto": 1e-2, "softmax": None})
    assert [c.name for c in more] == ["12k-kuramoto-lr0.01-seed1"]


def test_sweep_extends_past_an_edge(tmp_path, monkeypatch):
    lrs = (1e-3, 3e-3, 1e-2)  # step sqrt(10): 1e-2 sqrt(10) = 0.0316, 1e-2 * 10 = 0.1
    assert ladder.next_lr(lrs, lrs, 1e-2) == 3e-2
    assert ladder.next_lr(lrs, (*lrs, 3e-2), 3e-2) == 0.1
    assert ladder.next_lr(lrs, lrs, 1e-3) == 3e-4
    assert ladder.next_lr(lrs, (3e-4, *lrs), 3e-4) == 1e-4
    assert ladder.next_lr(lrs, lrs, 3e-3) is None
    assert ladder.next_lr(lrs, (*lrs, 3e-2), 1e-2) is None  # inside now
    assert ladder.next_lr(lrs, lrs, None) is None and ladder.next_lr((1e-3,), (1e-3,), 1e-3) is None
    # the rungs above the first centre their sweep on the best lr below, centre first
    config = dataclasses.replace(SMOKE, lrs=lrs)
    assert ladder.rung_lrs(config, None) == list(lrs)
    assert ladder.rung_lrs(config, 3e-2) == [3e-2, 1e-2, 0.1]
    assert ladder.rung_lrs(config, 1e-3) == [1e-3, 3e-4, 3e-3]
    assert [ladder.lr_grid(lrs, k) for k in (-2, 0, 5)] == [1e-4, 1e-3, 0.3]
    # the stand-in's best lr is 3e-2 for the Kuramoto model: 1e-2 is an edge, 3e-2 is tried,
    # then 1e-1 (worse), and the sweep stops; the transformer's 3e-3 is inside
    config = dataclasses.replace(SMOKE, targets=(12_000,), lrs=(1e-3, 3e-3, 1e-2), extend=2,
                                 ablate_at=None, dynamics=False)

    def fake(cell, folder):
        best = 3e-2 if cell.model == "kuramoto" else 3e-3
        return _fake(cell, folder, bpc=3.0 + abs(math.log10(cell.overrides["train.lr"] / best)))

    monkeypatch.setattr(ladder, "EXPERIMENT", dataclasses.replace(ladder.EXPERIMENT, cell=fake))
    ladder.run(config, tmp_path, grid=Grid(progress=False))
    res = json.loads((tmp_path / "results.json").read_text())
    rung = res["rungs"][0]
    assert list(rung["sweep"]["kuramoto"]) == ["0.001", "0.003", "0.01", "0.03", "0.1"]
    assert list(rung["sweep"]["softmax"]) == ["0.001", "0.003", "0.01"]
    assert rung["best_lr"] == {"kuramoto": 3e-2, "softmax": 3e-3}
    assert not rung["models"]["kuramoto"]["lr_at_edge"]
    assert [r["cell"] for r in res["rows"] if r["seed"] == 1] == [
        "12k-kuramoto-lr0.03-seed1", "12k-softmax-lr0.003-seed1"]


def test_resume_from_committed_results_and_rebuild(tmp_path, monkeypatch):
    committed = tmp_path / "committed"
    config = dataclasses.replace(SMOKE, committed=str(committed), export=True, dynamics=False)
    calls = []

    def fake(cell, folder):
        calls.append(cell.name)
        return _fake(cell, folder)

    monkeypatch.setattr(ladder, "EXPERIMENT", dataclasses.replace(ladder.EXPERIMENT, cell=fake))
    ladder.run(config, tmp_path / "a", grid=Grid(progress=False), size="smoke")
    # 2 rungs x 2 models x (2 lrs + 1 more seed), the ablation at 12k (2 seeds), a probe (1)
    assert len(calls) == 15 and calls[-3:] == [
        "12k-kuramoto-no-ffn-matched-lr0.003-seed0", "12k-kuramoto-no-ffn-matched-lr0.003-seed1",
        "12k-kuramoto-tau-4-lr0.003-seed0"]
    first = json.loads((tmp_path / "a" / "results.json").read_text())
    # lr selection: 3e-3 wins (the stand-in's BPC is lowest there)
    assert first["rungs"][0]["best_lr"] == {"kuramoto": 3e-3, "softmax": 3e-3}
    gap = first["rungs"][0]["gap"]
    assert gap["mean"] == approx(0.05) and gap["n"] == 2
    assert first["fit"]["status"] == "ok" and first["fit"]["b"] == approx(0.0, scale=1e6)
    assert first["not_converged"] == [r["cell"] for r in first["rows"]]  # 0.3 (1-0.8)^2 = 1.2 %
    # the ablation paired with the full model's cells at the same seeds (the stand-in's BPC
    # does not depend on the variant: delta 0), and its convergence record
    abl = first["ablations"]["table"]["no-ffn-matched"]
    assert abl["delta"]["values"] == [0.0, 0.0] and abl["paper_delta"] == 0.27
    assert [r["converged"] for r in first["ablation_rows"]] == [False, False, False]
    probe = first["ablations"]["probes"]
    assert probe["full"]["gap"]["values"] == [approx(0.05)] and probe["full"]["seeds"] == [0]
    assert probe["tau-4"]["delta"]["values"] == [0.0] and probe["tau-4"]["gap"]["values"] == [approx(0.05)]
    # the committed folder: result.json and the eval rows of log.jsonl, no checkpoints
    cell0 = committed / "runs" / "12k-kuramoto-lr0.003-seed0"
    rows = [json.loads(ln) for ln in (cell0 / "log.jsonl").read_text().splitlines()]
    assert rows and all(r["kind"] == "eval" for r in rows)
    assert {p.name for p in committed.iterdir()} >= {"config.json", "results.json", "ladder.png", "runs"}
    # another machine: a fresh --out resumes from what is committed, training nothing
    calls.clear()
    ladder.run(config, tmp_path / "b", grid=Grid(progress=False), size="smoke")
    assert calls == []
    second = json.loads((tmp_path / "b" / "results.json").read_text())
    assert second["rungs"] == first["rungs"] and second["fit"] == first["fit"]
    # a committed cell with other settings is not adopted
    other = dataclasses.replace(config, targets=(12_000,), tokens_per_param=0.2, export=False)
    with pytest.warns(UserWarning, match="other settings"):
        ladder.run(other, tmp_path / "c", grid=Grid(progress=False), size="smoke")
    assert len(calls) == 9
    # the rebuild from the committed results alone, through the command line
    out = tmp_path / "rebuilt"
    assert cli.main(["experiment", "ladder", "--from-results", str(committed), "--out", str(out),
                     "--quiet"]) == 0  # fmt: skip
    rebuilt = json.loads((out / "results.json").read_text())
    assert rebuilt["rungs"] == first["rungs"] and rebuilt["rebuilt_from"] == str(committed)
    assert rebuilt["ablations"] == first["ablations"]
    assert (out / "ablations.csv").is_file() and (out / "ladder_items.png").is_file()
    assert (out / "ladder.png").is_file() and (out / "rungs.csv").is_file()
    # a partial folder rebuilds, the absent cells reported missing
    for f in (committed / "runs").glob("30k-*seed1"):
        (f / "result.json").unlink()
    ladder.rebuild(committed, tmp_path / "partial")
    part = json.loads((tmp_path / "partial" / "results.json").read_text())
    assert sorted(part["missing"]) == ["30k-kuramoto-lr0.003-seed1", "30k-softmax-lr0.003-seed1"]
    assert part["rungs"][1]["gap"]["n"] == 1


def test_committed_folder_of_a_checkout():
    from pathlib import Path

    import syncattn

    repo = Path(syncattn.__file__).resolve().parents[1]
    want = repo / "results" / "experiments" / "ladder" / "ladder-default"
    config = ladder.Config()
    assert ladder.committed_dir(config, "default") == want
    assert ladder.committed_dir(config, None) is None  # from Python without a size
    assert ladder.committed_dir(dataclasses.replace(config, data_path="/x/f.txt"), "default") is None
    assert ladder.committed_dir(dataclasses.replace(config, committed=None), "default") is None


def test_from_results_refuses_what_it_cannot_rebuild(tmp_path, capsys):
    assert cli.main(["experiment", "table", "--from-results", str(tmp_path)]) == 2
    assert "cannot be rebuilt" in capsys.readouterr().err
    assert cli.main(["experiment", "ladder", "--from-results", str(tmp_path)]) == 2
    assert "no config.json" in capsys.readouterr().err
    (tmp_path / "config.json").write_text('{"experiment": "kws", "config": {}}')
    assert cli.main(["experiment", "ladder", "--from-results", str(tmp_path)]) == 2
    assert "not a ladder config" in capsys.readouterr().err


def test_a_variant_cell_shares_the_rung(tmp_path):
    base = ladder.rung_cell(SMOKE, 12_000, "kuramoto", 3e-3, 1)
    var = ladder.rung_cell(SMOKE, 12_000, "kuramoto", 3e-3, 1, "noffn", {"model.ffn": "none"})
    assert var.name == "12k-kuramoto-noffn-lr0.003-seed1" and var.overrides["model.ffn"] == "none"
    assert {k: v for k, v in var.overrides.items() if k != "model.ffn"} == base.overrides
    assert (var.steps, var.seed) == (base.steps, base.seed)


def test_data_path_runs_the_protocol_on_a_text_file(tmp_path):
    f = tmp_path / "my.txt"
    cfg = dataclasses.replace(SMOKE, data_path=str(f))
    assert ladder.corpus_choice(cfg)[:2] == ("text", str(f))
    cell = ladder.sweep_cells(cfg, 12_000)[0]
    assert cell.data == "text" and cell.overrides["data.test_fraction"] == 0.05
    assert ladder.corpus_choice(dataclasses.replace(SMOKE, data_path="/d/enwik8"))[0] == "enwik8"


@pytest.mark.slow
def test_smoke_end_to_end(tmp_path, compile_cache):
    from .conftest import run_cli

    out = tmp_path / "ladder"
    assert run_cli("ladder", "--smoke", "--out", str(out), cache=compile_cache) == 0
    res = json.loads((out / "results.json").read_text())
    assert len(res["rows"]) == 12 and all(r["status"] == "ok" for r in res["rows"])
    for r in res["rows"]:
        assert 0 < r["test_bpc"] < 8.6 and r["tokens_per_s"] > 0
        assert r["converged"] in (True, False)
    assert res["fit"]["status"] == "ok" and len(res["fit"]["predictions"]) == 2
    assert (out / "ladder.png").is_file()
    # items 2 and 3: the ablation at 12k (2 seeds), the dynamics of both rungs (real models)
    (abl,) = [v for k, v in res["ablations"]["table"].items() if k != "full"]
    assert abl["delta"]["n"] == 2 and abl["params"] > 0
    for rung in ("12k", "30k"):
        d = res["dynamics"]["rungs"][rung]
        assert d["seeds"] == [0, 1] and all(0 <= v <= 1 + 1e-6 for v in d["mean"]["local_order"])
    assert (out / "ladder_items.png").is_file() and (out / "dynamics.csv").is_file()


def test_no_ffn_variant_rematched_by_depth():
    """The re-matched depth is the count-closest (brute force over the real models' counts)."""
    from syncattn.experiments.ladder import _items

    for target in (50_000,):
        s = ladder.rung_shape(target)
        n = s["params"]["kuramoto"]

        def count(L):
            return models.config_params(models.get_config(
                "1m", attention="kuramoto", d_model=s["d_model"], n_layers=L,
                n_heads=s["n_heads"], ffn="none", vocab_size=256))  # fmt: skip

        L = ladder.matched_depth(target)
        assert L >= s["n_layers"]
        err = abs(math.log(count(L) / n))
        assert err <= abs(math.log(count(L + 1) / n)) and err <= abs(math.log(count(L - 1) / n))
        cell = _items.ablation_cells(ladder.Config(ablations=("no-ffn-matched",), ablate_at=target),
                                     {target: {"kuramoto": 1e-2}})[0]  # fmt: skip
        built = models.build(models.get_config("1m", attention="kuramoto", **{
            k.split(".")[1]: v for k, v in cell.overrides.items() if k.startswith("model.")}),
            key=jax.random.key(0))  # fmt: skip
        assert models.count_params(built) == count(L)
    assert ladder.matched_depth(50_000) == 5  # 47,750 against 45,827 (+4.2 %)


def test_ablation_and_dynamics_cells():
    from syncattn.experiments.ladder import _items

    cfg = ladder.Config()
    best = {t: {"kuramoto": 3e-2, "softmax": 1e-2} for t in cfg.targets}
    abl = _items.ablation_cells(cfg, best)
    assert len(abl) == 4 * 3 + len(ladder.PROBES) * 2 and {c.overrides["train.lr"] for c in abl} == {3e-2}
    assert [c.name for c in abl[12:14]] == ["50k-kuramoto-tau-4-lr0.03-seed0",
                                            "50k-kuramoto-tau-4-lr0.03-seed1"]
    assert abl[12].overrides["model.tau"] == 4.0 and abl[-3].overrides["model.rope_base"] == 100.0
    assert abl[-1].overrides["model.gate_norm"] == "none"
    assert abl[0].name == "50k-kuramoto-learned-value-lr0.03-seed0"
    assert [_items._variant(c) for c in abl[:12:3]] == list(ladder.ABLATIONS)
    assert [_items._variant(c) for c in abl[12::2]] == list(ladder.PROBES)
    assert abl[3].overrides["model.ffn"] == "none" and abl[3].overrides["model.n_layers"] == 2
    assert abl[6].overrides["model.n_layers"] == 5 and abl[9].overrides["model.gates"] is False
    assert _items.ablation_cells(dataclasses.replace(cfg, ablate_at=None), best) == []
    walk = [ladder.rung_cell(cfg, 50_000, m, lr, s) for m in ("kuramoto", "softmax")
            for lr in (1e-2, 3e-2) for s in (0, 1)]  # fmt: skip
    dyn = _items.dynamics_cells(cfg, walk + abl, best)
    assert [c.name for c in dyn] == ["50k-kuramoto-lr0.03-seed0", "50k-kuramoto-lr0.03-seed1"]
    with pytest.raises(ValueError, match="ablate_at"):
        ladder.Config(ablate_at=12_345)
    with pytest.raises(ValueError, match="ablations"):
        ladder.Config(ablations=("no-such",))


def test_dynamics_measured_once_retrained_when_adopted_and_rebuilt(tmp_path, monkeypatch):
    """Each Kuramoto cell at the chosen lr is measured once (dynamics.json, exported); an
    adopted cell has no checkpoint and is trained again into OUT/retrain; a rebuild reads it."""
    from syncattn.experiments import _dynamics as dynamics
    from syncattn.training import CheckpointError

    committed = tmp_path / "committed"
    config = dataclasses.replace(SMOKE, committed=str(committed), export=True, ablate_at=None)
    trained, measured = [], []  # (the dynamics of the full models only)

    def fake(cell, folder):
        trained.append(str(folder))
        (folder / "checkpoints").mkdir(parents=True, exist_ok=True)
        (folder / "checkpoints" / "step-1").write_text("")
        (folder / "config.json").write_text("{}")
        return _fake(cell, folder)

    def measure(folder, n, thr):  # load_run's errors for an adopted folder
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(f"{folder} is not a run folder (no config.json)")
        if not (folder / "checkpoints").is_dir():
            raise CheckpointError(f"{folder} has no checkpoint")
        measured.append(folder.name)
        v = [0.95, 0.8] if "seed0" in str(folder) else [0.97, 0.7]
        stats = {"local_order": v, "global_order": [0.5, 0.4], "omega_abs": [0.2, 0.1]}
        return {"step": 1, "corpus": "embedded", "trained": stats, "init": stats,
                "verdicts": dynamics.verdicts(stats, thr),
                "grad_norms": {"trained": {"readout": 1.0 + (v[0] > 0.96)}, "init": {"readout": 3.0}}}  # fmt: skip

    monkeypatch.setattr(ladder, "EXPERIMENT", dataclasses.replace(ladder.EXPERIMENT, cell=fake))
    monkeypatch.setattr(dynamics, "measure_run", measure)
    ladder.run(config, tmp_path / "a", grid=Grid(progress=False), size="smoke")
    want = ["12k-kuramoto-lr0.003-seed0", "12k-kuramoto-lr0.003-seed1",
            "30k-kuramoto-lr0.003-seed0", "30k-kuramoto-lr0.003-seed1"]
    assert measured == want
    first = json.loads((tmp_path / "a" / "results.json").read_text())
    rung = first["dynamics"]["rungs"]["12k"]
    assert rung["seeds"] == [0, 1] and rung["mean"]["local_order"] == approx([0.96, 0.75])
    assert rung["verdicts"]["global_order_falls_with_depth"] == "holds"
    assert rung["grad_norms"] == {"trained": {"readout": 1.5}, "init": {"readout": 3.0}}
    assert all((committed / "runs" / c / "dynamics.json").is_file() for c in want)
    # the same out folder: nothing is trained or measured again
    trained.clear(), measured.clear()
    ladder.run(config, tmp_path / "a", grid=Grid(progress=False), size="smoke")
    assert trained == [] and measured == []
    # another machine: cells adopted, dynamics read from the committed folder
    ladder.run(config, tmp_path / "b", grid=Grid(progress=False), size="smoke")
    assert trained == [] and measured == []
    # committed dynamics gone: adopted cells have no checkpoint, so they are trained again
    for c in want[:1]:
        (committed / "runs" / c / "dynamics.json").unlink()
    ladder.run(config, tmp_path / "c", grid=Grid(progress=False), size="smoke")
    assert trained == [str(tmp_path / "c" / "retrain" / want[0])] and measured == want[:1]
    again = json.loads((tmp_path / "c" / "runs" / want[0] / "dynamics.json").read_text())
    assert again["retrained"] is True and again["test_bpc_retrained"] == again["test_bpc_committed"]
    rebuilt = ladder.rebuild(committed, tmp_path / "rebuilt")
    assert "dynamics" in rebuilt
    res = json.loads((tmp_path / "rebuilt" / "results.json").read_text())
    assert res["dynamics"]["rungs"]["30k"] == first["dynamics"]["rungs"]["30k"]


@pytest.mark.slow
def test_rung_rule_over_a_list_of_families():
    """A third family (the transformer with a GELU feed-forward) is matched to the
    reference's count by its own feed-forward width, the count-closest multiple of 8
    (brute force over the real models' counts), and its cells carry its model fields."""
    from syncattn.experiments._protocol import Family

    gelu = Family("softmax-gelu", "softmax", "GELU transformer", model=(("ffn", "gelu"),))
    fams = (*ladder.FAMILIES, gelu)
    shape = ladder.rung_shape(12_000, families=fams)
    assert {k: shape[k] for k in ("d_model", "n_layers")} == {"d_model": 16, "n_layers": 1}
    assert shape["params"]["kuramoto"] == ladder.rung_shape(12_000)["params"]["kuramoto"]

    def count(ff):
        return models.config_params(models.get_config(
            "1m", attention="softmax", d_model=16, n_layers=1, n_heads=1, d_ff=ff, ffn="gelu"))

    n, ff = shape["params"]["kuramoto"], shape["d_ff"]["softmax-gelu"]
    assert shape["params"]["softmax-gelu"] == count(ff) and ff % 8 == 0
    assert all(abs(count(ff) - n) <= abs(count(other) - n) for other in (ff - 8, ff + 8) if other >= 8)
    assert shape["mismatch"] == max((shape["params"][m] / n - 1 for m in ("softmax", "softmax-gelu")),
                                    key=abs)  # fmt: skip
    cell = ladder.rung_cell(SMOKE, 12_000, "softmax-gelu", 3e-3, 0, families=fams)
    assert cell.name == "12k-softmax-gelu-lr0.003-seed0" and cell.model == "softmax"
    assert cell.overrides["model.ffn"] == "gelu" and cell.overrides["model.d_ff"] == ff
    with pytest.raises(ValueError, match="unknown family"):
        ladder.rung_cell(SMOKE, 12_000, "softmax-gelu", 3e-3, 0)

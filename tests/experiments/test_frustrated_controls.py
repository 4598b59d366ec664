"""Issue 44: the controls of the frustrated experiment (the cells at the frustrated family's
shape, the equal-compute timing read back once recorded, A1-A4 in the Holm family of 25,
A3's reading against the successor control, the committed folder still adopted)."""

import dataclasses
import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as sps

from syncattn import models
from syncattn.experiments import _protocol as protocol, frustrated as fr
from syncattn.experiments.frustrated import _controls_report, _timing
from tests.experiments import test_frustrated as tf
from tests.experiments.conftest import run_cli
from tests.experiments.test_frustrated import (
    CONFIG,
    OPT,
    TIME_RATIO,
    _expected,
    _model_config,
    _run,
    _test_bpc,
)
from tests.test_stats_multiplicity import _holm_brute


stand_in = tf.stand_in  # the stand-in cell function and timing (a fixture)


COMMITTED = Path(__file__).parents[2] / "results/experiments/frustrated/frustrated-default"
NAMES = [f.name for f in fr.FAMILIES]
FIELDS = {  # each control's model fields, as the pre-registration names them
    "c-only": {"harmonics": 1, "delay": False, "frustration": "learned"},
    "b-only": {"harmonics": 1, "delay": True, "frustration": "delay-only"},
    "successor": {"harmonics": 1, "delay": True, "frustration": "successor"},
}


# --------------------------------------------------------------------------- the plan


def test_the_controls_plan_and_config_errors():
    smoke = fr.Config.smoke()
    assert CONFIG.control_targets == (50_000, 150_000) and CONFIG.time_ratio is None
    assert (CONFIG.timing_rounds, CONFIG.timing_steps, CONFIG.timing_warmup) == (7, 20, 5)
    assert "controls" in CONFIG.only_phases and "controls" in fr.PHASES
    assert fr.extra_seeds(CONFIG, 50_000) == (3, 4) and fr.extra_seeds(CONFIG, 150_000) == ()
    assert fr.planned(smoke) == {"sweep": 4, "seeds": 4, "long": 8, "controls": 8, "total": 24}
    assert fr.Config(only_families=("kuramoto-time", "c-only")).only_families
    with pytest.raises(ValueError, match="control_targets"):
        fr.Config(control_targets=(100_000,))
    with pytest.raises(ValueError, match="time_ratio"):
        fr.Config(time_ratio=0.0)
    with pytest.raises(ValueError, match="timing_rounds"):
        fr.Config(timing_rounds=0)
    with pytest.raises(ValueError, match="only_families"):
        fr.Config(only_families=("successors",))


@pytest.mark.parametrize("target", [50_000, 150_000])
def test_control_cells_at_the_frustrated_shape_lr_and_budget(target):
    d, L, H, ff, n_f = fr.PREREGISTERED[target]["frustrated"]
    rung = fr.rung_name(target)
    mine = fr.frustrated_cell(CONFIG, target, fr.family("frustrated"), 0.03, 2)
    for name, fields in FIELDS.items():
        cell = fr.control_cell(CONFIG, target, fr.family(name), 0.03, 2)
        c = _model_config(cell)
        assert cell.name == f"{rung}-{name}-lr0.03-seed2" and cell.model == "frustrated"
        assert (c.d_model, c.n_layers, c.n_heads, c.d_ff) == (d, L, H, ff)
        assert {k: getattr(c.sync, k) for k in fields} == fields
        assert cell.overrides["train.lr"] == 0.03 and cell.seed == 2
        assert cell.steps == mine.steps and cell.overrides["train.warmup_steps"] == (
            mine.overrides["train.warmup_steps"])
        n = models.config_params(c)
        assert fr.control_shape(target, fr.family(name))["params"] == n
        # each fixed part is one complex coefficient per head and layer: 2 H L reals
        assert n_f - n == {"c-only": 2, "b-only": 2, "successor": 4}[name] * H * L
    # kuramoto-time: the Kuramoto model at its own shape on D = 20 r N tokens
    d, L, H, ff, n_k = fr.PREREGISTERED[target]["kuramoto"]
    cell = fr.control_cell(CONFIG, target, fr.family("kuramoto-time"), 0.01, 4, r=1.37)
    c = _model_config(cell)
    assert cell.name == f"{rung}-kuramoto-time-lr0.01-seed4" and cell.model == "kuramoto"
    assert (c.d_model, c.n_layers, c.n_heads, c.d_ff) == (d, L, H, ff)
    steps = 10 * math.ceil(math.ceil(20 * 1.37 * n_k) / (10 * 16 * 128))
    assert cell.steps == steps and cell.time_ratio == 1.37 and cell.overrides["train.lr"] == 0.01
    assert cell.overrides["train.warmup_steps"] == round(0.05 * steps)
    assert cell.overrides["train.eval_every"] == steps // 10 and cell.eval_batches == 40
    assert dataclasses.asdict(cell)["time_ratio"] == 1.37  # in the result's "cell"
    with pytest.raises(ValueError, match="time ratio"):
        fr.control_cell(CONFIG, target, fr.family("kuramoto-time"), 0.01, 4)


# --------------------------------------------------------------------------- the timing


def test_the_time_ratio_is_the_median_of_alternating_rounds():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0.05, 0.2, 7), rng.uniform(0.05, 0.1, 7)  # per step, round by round
    plan = [("f", 9.0)] * 5 + [("k", 7.0)] * 5  # warm-up: not timed
    for x, y in zip(a, b, strict=True):
        plan += [("f", x)] * 20 + [("k", y)] * 20
    now, calls = [0.0], []

    def step(label):
        def run():
            want, dt = plan[len(calls)]
            assert want == label  # the order: warm-ups, then F's 20 and K's 20 per round
            calls.append(label)
            now[0] += dt

        return run

    rounds = _timing.alternate(step("f"), step("k"), 7, 20, 5, clock=lambda: now[0])
    assert len(calls) == len(plan)
    assert [x["frustrated_s"] for x in rounds] == pytest.approx(20 * a)
    assert [x["kuramoto_s"] for x in rounds] == pytest.approx(20 * b)
    got = _timing.ratio_of_rounds(rounds)
    assert got["r_exact"] == pytest.approx(float(np.median(a / b)))
    assert got["r"] == round(float(np.median(a / b)), 2)
    with pytest.raises(ValueError, match="non-empty"):
        _timing.ratio_of_rounds([])
    with pytest.raises(ValueError, match="> 0"):
        _timing.ratio_of_rounds([{"frustrated_s": 1.0, "kuramoto_s": 0.0}])


def _one_rung(tmp_path, **kw):
    return dataclasses.replace(
        CONFIG, targets=(50_000,), control_targets=(50_000,), long_target=None,
        copy_target=None, committed=str(tmp_path / "committed"), export=True, **kw)


@pytest.mark.slow  # about 3 s: three stand-in sessions of the 50k rung
def test_a_recorded_r_is_read_back_and_never_measured_again(tmp_path, stand_in):
    config = _one_rung(tmp_path)
    res = _run(config, tmp_path / "a")
    assert [sorted(c) for c in stand_in.measured] == [["frustrated", "kuramoto"]]
    cells = stand_in.measured[0]  # the cells' own steps: the best lrs, the first seed
    assert (cells["frustrated"].name, cells["kuramoto"].name) == (
        "50k-frustrated-lr0.01-seed0", "50k-kuramoto-lr0.03-seed0")
    for folder in (tmp_path / "a", tmp_path / "committed"):  # recorded at once, both places
        assert json.loads((folder / "timing.json").read_text())["r"] == {"50k": 1.37}
    block = res["controls"][0]
    assert block["time_ratio"] == 1.37 and block["time_source"].startswith("timing.json")
    assert not res["missing"] and len(res["rows"]) == 12 + 2 * 3 + 22  # frustrated-mf failed
    # the budget of r: D = 20 r N, recorded in each cell's settings
    want = 10 * math.ceil(math.ceil(20 * 1.37 * 45_827) / 20_480)
    timed = [w for w in res["rows"] if w["family"] == "kuramoto-time"]
    assert {w["steps"] for w in timed} == {want} and {w["budget"] for w in timed} == {"27.4N"}
    got = json.loads((tmp_path / "committed/runs/50k-kuramoto-time-lr0.03-seed3/result.json")
                     .read_text())
    assert got["cell"]["time_ratio"] == 1.37 and got["cell"]["steps"] == want
    # later sessions (another --out): r is read from the committed folder, nothing measured
    stand_in.clear()
    TIME_RATIO["50k"] = 9.99  # a new measurement would show
    try:
        again = _run(config, tmp_path / "b")
    finally:
        TIME_RATIO["50k"] = 1.37
    assert len(stand_in.measured) == 1 and stand_in == []  # nothing timed, nothing trained
    assert again["controls"][0]["time_ratio"] == 1.37 and again["comparisons"] == res["comparisons"]
    # a rebuild reads the same r (the source's timing.json) and finds every cell
    out = tmp_path / "rebuilt"
    assert run_cli("frustrated", "--from-results", str(tmp_path / "committed"), "--out", str(out)) == 0
    for f in ("report.md", "comparisons.csv", "cells.csv"):
        assert (out / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    # r given explicitly: used as given, nothing measured
    given = _run(_one_rung(tmp_path / "x", time_ratio=1.5), tmp_path / "c")
    assert given["controls"][0]["time_source"] == "config.time_ratio"
    assert {w["budget"] for w in given["rows"] if w["family"] == "kuramoto-time"} == {"30N"}
    assert len(stand_in.measured) == 1


# --------------------------------------------------------------------------- the report


def _control_deltas(control, rung):
    """Frustrated minus `control` per seed 0-4, from the stand-in's formula (each at its
    best lr there: the controls at the frustrated family's, kuramoto-time at Kuramoto's)."""
    return [_test_bpc("frustrated", rung, OPT["frustrated"][rung], s)[0]
            - _test_bpc(control, rung, OPT[control][rung], s)[0] for s in range(5)]


def test_a1_to_a4_join_holm_over_25_and_h1_h4_keep_the_registered_17(tmp_path, stand_in):
    res = _run(dataclasses.replace(CONFIG, committed=None), tmp_path / "a")
    comps = res["comparisons"]
    ids = [c["id"] for c in comps]
    assert ids[17:] == [f"A{i} {r}" for r in ("50k", "150k") for i in (1, 2, 3, 4)]
    assert res["holm"] == {"m": 25, "alpha": 0.05, "final": True}
    assert res["holm_registered"] == {"m": 17, "alpha": 0.05, "final": True}
    assert sum(w["phase"] == "controls" for w in res["rows"]) == 42 and not res["missing"]
    want = _expected(res) + [_control_deltas(x, r) for r in ("50k", "150k")
                             for x in ("c-only", "b-only", "successor", "kuramoto-time")]
    p = []
    for c, d in zip(comps, want, strict=True):
        if d is None:
            p.append(1.0)
            continue
        assert c["values"] == pytest.approx(d, rel=1e-12, abs=1e-12)
        p.append(sps.ttest_1samp(d, 0.0, alternative="less").pvalue)
        assert c["p"] == pytest.approx(p[-1], rel=1e-9)
    adjusted, registered = _holm_brute(p), _holm_brute(p[:17])
    assert [c["p_holm"] for c in comps] == pytest.approx(adjusted, rel=1e-9)
    assert [c["p_holm_registered"] for c in comps[:17]] == pytest.approx(registered, rel=1e-9)
    for c, q in zip(comps[:17], registered, strict=True):
        if c["status"] == "complete":
            assert c["decision_registered"] == ("supported" if q <= 0.05 else "not supported")
    for c, q in zip(comps, adjusted, strict=True):
        if c["status"] == "complete":
            assert c["decision"] == ("supported" if q <= 0.05 else "not supported")
    # over 25 no adjusted p is below its value over the registered 17
    assert all(a >= b - 1e-15 for a, b in zip(adjusted, registered, strict=False))
    assert any(a > b for a, b in zip(adjusted, registered, strict=False))
    for c in comps[17:]:
        d = _control_deltas(c["b"], c["where"])
        lo, hi = sps.t.interval(0.95, 4, loc=np.mean(d), scale=sps.sem(d))
        assert c["ci"] == pytest.approx([lo, hi], rel=1e-9)
        if c["hypothesis"] == "A3":  # the successor control sits within ±0.02: "matches"
            assert not c["rejected"] and -0.02 <= lo and hi <= 0.02
            assert c["reading"] == "matches"
    # the descriptive rows: successor − Kuramoto at equal tokens (no p), the wall times
    d50 = res["descriptive"][0]
    assert d50["claim"] == "no claim" and "p" not in d50 and d50["n"] == 3
    assert d50["values"] == pytest.approx(
        [_test_bpc("successor", "50k", 0.01, s)[0] - _test_bpc("kuramoto", "50k", 0.03, s)[0]
         for s in range(3)])
    assert d50["time_ratio"] == 1.37 and d50["walls"]["kuramoto-time"]["n"] == 5
    md = (tmp_path / "a" / "report.md").read_text()
    assert "Holm's step-down adjustment over all 25 comparisons" in md
    assert "50k: **matches**; 150k: **matches**" in md and "## Equal compute" in md
    assert "| 50k | c-only | 32, 2, 2; 88 | 45,835 | 0.01 | 921,600, 450 |" in md
    csv = (tmp_path / "a" / "comparisons.csv").read_text()
    assert "\nD 50k," in csv and "no claim" in csv and ",matches\n" in csv


def test_the_successor_reading_by_hand():
    def comp(ci, status="complete", rejected=False):
        return {"status": status, "rejected": rejected, "ci": ci}

    read = _controls_report.successor_reading
    assert read(comp([-0.02, 0.02]), True) == "matches"  # the band's edges are inside
    assert read(comp([-0.021, 0.01]), True) == "undecided"
    assert read(comp([-0.01, 0.0201]), True) == "undecided"
    assert read(comp(None, "failed"), True) == "undecided"
    assert read(comp([-0.015, -0.01], rejected=True), True) == "A3 supported (not a match)"
    assert read(comp([-0.01, 0.01]), False) == "provisional: matches"
    assert read(comp(None, "pending"), False) == "pending"


# --------------------------------------------------------------------------- back-compatibility


def _old_committed(tmp_path) -> tuple[Path, set]:
    """The committed folder as the registered runs left it: its config.json as the old
    Config wrote it (no controls fields) and its cells of the registered plan (copies, no
    control cell, no 50k frustrated seed 3-4, no timing.json; the committed folder itself
    is only read)."""
    src = tmp_path / "committed"
    raw = json.loads((COMMITTED / "config.json").read_text())
    new = ("control_targets", "time_ratio", "timing_rounds", "timing_steps", "timing_warmup")
    raw["config"] = {k: v for k, v in raw["config"].items() if k not in new}
    (src / "runs").mkdir(parents=True)
    (src / "config.json").write_text(json.dumps(raw))
    have = set()
    for run in (COMMITTED / "runs").iterdir():
        extra = run.name.startswith("50k-frustrated-lr") and run.name[-1] in "34"
        if protocol.family_of(SimpleNamespace(name=run.name), fr.ALL_FAMILIES) in NAMES and not extra:
            shutil.copytree(run, src / "runs" / run.name)
            have.add(run.name)
    return src, have


def test_the_committed_folder_is_still_adopted_and_rebuilt(tmp_path):
    src, have = _old_committed(tmp_path)
    assert len(have) >= 44
    out = tmp_path / "rebuilt"
    assert run_cli("frustrated", "--from-results", str(src), "--out", str(out)) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["progress"]["finished"] == len(have) and res["holm"]["m"] == 25
    assert res["progress"]["by_phase"]["controls"] == 0
    assert "50k-c-only-lr0.03-seed0" in res["missing"]  # the 50k and 150k lrs are known
    assert "50k-frustrated-lr0.03-seed3" in res["missing"]
    assert any(c.startswith("150k-successor-") for c in res["missing"])
    assert all(c["decision"].startswith("pending") for c in res["comparisons"][17:])
    assert any("kuramoto-time: waits for the equal-compute timing" in w
               for w in res["progress"]["waiting"])
    # a run adopts every committed cell (same settings), trains and times nothing
    config = dataclasses.replace(fr.Config(), committed=str(src), max_cells=0)
    fr.run(config, tmp_path / "run", progress=False, size="default")
    got = json.loads((tmp_path / "run" / "results.json").read_text())
    assert got["progress"]["finished"] == len(have) and not (tmp_path / "run/timing.json").exists()
    assert {p.name for p in (tmp_path / "run" / "runs").iterdir()} == have

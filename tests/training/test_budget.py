"""``syncattn train --minutes M [--config auto]``: the plan, on a mocked clock, and for real."""

import dataclasses
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

from syncattn import cli, data, models
from syncattn.training import (
    Replanner,
    StepCosts,
    _budget,
    _checkpoint,
    _loop,
    auto_lr,
    next_size,
    plan_steps,
    planned_seconds,
    read_config,
)
from tests.helpers import approx
from tests.training.conftest import train_cli


def _loop_seconds(S, costs, E, C):
    """What `fit` spends on `S` steps: its evaluations and saves counted by walking its
    steps (every E, C steps and at the last), in float64."""
    s = np.arange(1, S + 1)
    evals = np.count_nonzero((s % E == 0) | (s == S))
    saves = np.count_nonzero((s % C == 0) | (s == S))
    return costs.compile_s + S * costs.step_s + evals * costs.eval_s + saves * costs.ckpt_s


costs_st = st.builds(
    StepCosts, params=st.just(1000), tokens_per_step=st.just(64),
    compile_s=st.floats(0, 60), step_s=st.floats(1e-3, 1.0), eval_s=st.floats(0, 5),
    ckpt_s=st.floats(0, 2),
)


@given(costs_st, st.floats(100, 3000), st.sampled_from([None, 7, 50]))
def test_plan_is_the_longest_run_that_fits(costs, seconds, eval_every):
    try:
        plan = plan_steps(seconds, costs, eval_every=eval_every)
    except ValueError as e:
        assert "too short" in str(e)
        unit = 10 if eval_every is None else 1
        E = eval_every or 1
        assert _loop_seconds(unit, costs, E, 2 * E) > seconds
        return
    S, E, C = plan["steps"], plan["eval_every"], plan["ckpt_every"]
    if eval_every is None:
        assert S % 10 == 0 and E == S // 10 and C == 2 * E
    else:
        assert E == eval_every and C == 2 * eval_every
    t = _loop_seconds(S, costs, E, C)
    assert plan["planned_s"] == approx(t, scale=1e3)
    assert plan["planned_s"] == approx(planned_seconds(S, costs, eval_every=E, ckpt_every=C))
    assert t <= seconds * (1 + 1e-12)
    # one more unit of steps would not fit
    more = S + (10 if eval_every is None else 1)
    E2 = more // 10 if eval_every is None else E
    assert _loop_seconds(more, costs, E2, 2 * E2) > seconds
    # the budget is used within 10 % whenever one unit of steps is small against it
    unit_cost = (10 if eval_every is None else 1) * costs.step_s + costs.eval_s + costs.ckpt_s
    if unit_cost < 0.1 * seconds:
        assert t >= 0.9 * seconds


@given(st.floats(1e3, 1e7), st.floats(1e8, 1e11), st.floats(10, 1e4), st.floats(0.2, 1.5))
def test_next_size_solves_the_compute_matched_rule(n0, a, T, b):
    # tokens/s r(N) = a / N: one step lands on kappa N = r(N) T
    n = next_size(n0, a / n0, T)
    assert 20 * n == approx(a / n * T, scale=100)
    # r(N) = a N^-b: the iteration contracts towards the fixed point by |1 - b| / 2
    star = (a * T / 20) ** (1 / (1 + b))
    n1 = next_size(n0, a * n0 ** -b, T)
    err0, err1 = abs(math.log(n0 / star)), abs(math.log(n1 / star))
    assert err1 <= abs(1 - b) / 2 * err0 + 1e-9


def test_auto_lr_is_the_ladders_best_at_the_nearest_rung():
    root = Path(__file__).resolve().parents[2]
    res = json.loads((root / "results/experiments/ladder/ladder-default/results.json").read_text())
    from syncattn.experiments import ladder

    targets = sorted(ladder.Config().targets)
    assert len(res["rungs"]) == len(targets)
    for target, rung in zip(targets, res["rungs"], strict=True):
        for attention, lr in rung["best_lr"].items():
            # at the rung and at any count nearer to it than to its neighbours
            assert auto_lr(attention, target) == lr
            assert auto_lr(attention, target * 1.1) == lr
    assert auto_lr("kuramoto", 10_000) == res["rungs"][0]["best_lr"]["kuramoto"]
    assert auto_lr("kuramoto", 5e6) == res["rungs"][-1]["best_lr"]["kuramoto"]
    assert auto_lr("oscillator", 50_000) == 1e-2


class FakeClock:
    """Seconds that pass only when the (mocked) work is done."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


STEP, COMPILE, EVAL_BATCH, CKPT, AGE = 0.5, 10.0, 0.25, 0.3, 5.0


@pytest.fixture
def fake_clock(monkeypatch):
    """A clock that advances by fixed costs: COMPILE + STEP for batch 0 (the first
    step of a compiled program) and the first after a re-plan, STEP x ``clock.slow``
    for any other batch of the run (``slow`` = 1 unless a test changes the machine's
    speed after the warm-up), EVAL_BATCH per validation batch, CKPT per checkpoint;
    the process was AGE s old when the command started. To keep the tests cheap, the
    warm-up and the run share one compiled step (the real run compiles again for its
    schedule's horizon, and after a re-plan: charged here all the same)."""
    clock = FakeClock()
    clock.slow, clock.compiling = 1.0, False
    math_fields, compiled = _loop._math_fields, _loop._compiled
    monkeypatch.setattr(_loop, "_math_fields", lambda c: math_fields(
        dataclasses.replace(c, steps=200, warmup_steps=10)))

    def compiled_once(config, loss, dtype, make=None, horizons=()):
        clock.compiling = bool(horizons)  # a re-plan: its next step compiles
        return compiled(config, loss, dtype, make)

    monkeypatch.setattr(_loop, "_compiled", compiled_once)
    monkeypatch.setattr(_budget, "clock", clock)
    monkeypatch.setattr(_loop, "clock", clock)
    monkeypatch.setattr(_budget, "process_age", lambda: AGE)
    sample, batches, save = data.sample_batch, data.eval_batches, _checkpoint.save_checkpoint

    def sample_batch(*a, step, **kw):
        clock.t += STEP * clock.slow + (COMPILE if step == 0 or clock.compiling else 0.0)
        clock.compiling = False
        return sample(*a, step=step, **kw)

    def eval_batches(*a, **kw):
        for b in batches(*a, **kw):
            clock.t += EVAL_BATCH
            yield b

    def save_checkpoint(*a, **kw):
        clock.t += CKPT
        return save(*a, **kw)

    monkeypatch.setattr(data, "sample_batch", sample_batch)
    monkeypatch.setattr(data, "eval_batches", eval_batches)
    monkeypatch.setattr(_checkpoint, "save_checkpoint", save_checkpoint)
    monkeypatch.setattr(_loop, "save_checkpoint", save_checkpoint)
    return clock


ARGS = ("batch_size=4", "seq_len=16", "eval_batches=2")


def test_minutes_keeps_the_budget_on_a_mocked_clock(tmp_path, small_text, tiny_models,
                                                    fake_clock, capsys):  # fmt: skip
    run = tmp_path / "run"
    assert train_cli(run, small_text, "--minutes", "2", *ARGS) == 0
    took = fake_clock.t + AGE
    assert 0.9 * 120 <= took <= 120, took
    cfg = json.loads((run / "config.json").read_text())
    b, t = cfg["budget"], cfg["train"]
    assert b["minutes"] == 2 and b["config"] == "tiny" and b["steps"] == t["steps"]
    # what the warm-up measured is what the mocked clock charged
    assert b["tokens_per_s"] == approx(4 * 16 / STEP) and b["step_s"] == approx(STEP)
    assert b["compile_s"] == approx(COMPILE) and b["ckpt_s"] == approx(CKPT)
    assert b["eval_s"] == approx(2 * EVAL_BATCH)
    # the plan: 10 evaluations, a save every 2, 5 % warm-up, the schedule ends at S
    S = t["steps"]
    assert S % 10 == 0 and t["eval_every"] == S // 10 and t["ckpt_every"] == S // 5
    assert t["warmup_steps"] == round(0.05 * S) and b["tokens"] == S * 64
    assert b["params"] == cfg["params"] and b["tokens_per_param"] == approx(S * 64 / b["params"])
    assert took == approx(b["before_s"] + b["planned_s"], scale=1e3)
    assert "of 2 minutes" in capsys.readouterr().out

    # the same command resumes with the planned steps and measures nothing
    before = fake_clock.t
    assert train_cli(run, small_text, "--minutes", "2", *ARGS) == 0
    assert fake_clock.t == before
    assert json.loads((run / "config.json").read_text()) == cfg
    assert "planned steps are kept" in capsys.readouterr().err
    # another budget into the same folder is refused
    assert train_cli(run, small_text, "--minutes", "3", *ARGS) == 2
    assert "--minutes 2" in capsys.readouterr().err


@pytest.mark.parametrize("slow", [1.4, 0.7])
def test_a_run_that_slows_down_or_speeds_up_re_plans(tmp_path, small_text, tiny_models,
                                                     fake_clock, monkeypatch, capsys, slow):  # fmt: skip
    """The machine changes speed after the warm-up (steps 40 % slower, or 30 % faster):
    the run re-plans at its first evaluation and still ends within 3 % of the budget
    (without re-planning: 131 s or 90 s of 120)."""
    measure = _budget.measure_costs

    def measure_then_change(*a, **kw):
        costs = measure(*a, **kw)
        fake_clock.slow = slow
        return costs

    monkeypatch.setattr(_budget, "measure_costs", measure_then_change)
    run = tmp_path / "run"
    assert train_cli(run, small_text, "--minutes", "2", *ARGS) == 0
    took = fake_clock.t + AGE
    assert 0.97 * 0.97 * 120 <= took <= 120, took
    cfg = json.loads((run / "config.json").read_text())
    b, t = cfg["budget"], cfg["train"]
    S0, E = b["steps"], t["eval_every"]
    first = b["replans"][0]
    assert first["step"] == E and first["was"] == S0
    assert first["step_s"] == approx(STEP * slow)  # measured by the loop, not assumed
    assert (t["steps"] < S0) if slow > 1 else (t["steps"] > S0)
    assert b["horizons"][0] == [0, S0] and b["horizons"][-1][1] == t["steps"]
    assert len(b["horizons"]) == len(b["replans"]) + 1 <= 3
    logged = [r for r in _loop.read_log(run / "log.jsonl") if r["kind"] == "replan"]
    assert [r["steps"] for r in logged] == [h[1] for h in b["horizons"][1:]]
    # config.json's re-plans are the loop's logged records, key for key
    assert [{k: v for k, v in r.items() if k != "kind"} for r in logged] == b["replans"]
    assert "re-planned at step" in capsys.readouterr().err
    # the same command resumes the finished run as recorded: nothing measured, no re-plan
    before = fake_clock.t
    assert train_cli(run, small_text, "--minutes", "2", *ARGS) == 0
    assert fake_clock.t == before and json.loads((run / "config.json").read_text()) == cfg


@given(st.integers(0, 500), st.integers(1, 400), st.integers(1, 60), st.integers(1, 3),
       st.floats(1e-3, 1.0), st.floats(0, 3), st.floats(0, 2), st.floats(0, 20),
       st.floats(-200, 600))
def test_replanner_takes_the_longest_run_that_fits(s, gap, E, c_mult, tau, t_e, t_c, compile_s,
                                                   left_s):  # fmt: skip
    """The re-plan against a walk over the steps (float64): ``None`` when the plan
    neither overruns 0.97 of what is left by 2 % of the budget nor ends earlier than
    that by more than 2 % and a compilation; else the largest S' whose rest and one
    compilation fit (s + 1 when none does)."""
    S, C, T = s + gap, E * c_mult, 600.0
    progress = {"step": s, "steps": S, "warmup_steps": 0, "eval_every": E,
                "ckpt_every": C, "step_s": tau, "eval_s": t_e, "ckpt_s": t_c}  # fmt: skip
    clock = FakeClock()
    clock.t = 1000.0
    r = Replanner(deadline=clock.t + left_s, budget_s=T, compile_s=compile_s, clock=clock)

    # what steps s+1..n cost for every n up to the last that could fit, walked: the
    # evaluations and saves due so far, plus one at n itself when it is not due anyway
    j = np.arange(s + 1, max(S, s + int(max(left_s, 0.0) / tau) + 2) + 1)
    costs = ((j - s) * tau + (np.cumsum(j % E == 0) + (j % E != 0)) * t_e
             + (np.cumsum(j % C == 0) + (j % C != 0)) * t_c)  # fmt: skip

    def rest(n):
        return costs[n - s - 1]

    new = r(progress)
    left = 0.97 * left_s
    if left - compile_s - 0.02 * T <= rest(S) <= left + 0.02 * T:
        assert new is None
        return
    fits = j[costs + compile_s <= left]
    best = int(fits.max()) if fits.size else s + 1
    assert new == (None if best == S else best)


@pytest.mark.parametrize("field,value,want", [
    ("budget_s", 0.0, "budget_s must be a finite number > 0"),
    ("tolerance", -0.1, "tolerance must be a finite number >= 0"),
    ("compile_s", float("nan"), "compile_s must be a finite number >= 0"),
    ("deadline", float("inf"), "deadline must be a finite number"),
])  # fmt: skip
def test_replanner_refuses_bad_settings(field, value, want):
    kw = {"deadline": 100.0, "budget_s": 60.0} | {field: value}
    with pytest.raises(ValueError, match=want):
        Replanner(**kw)


def test_minutes_errors(tmp_path, small_text, tiny_models, capsys):
    for bad in ("0", "-1", "nan", "inf"):
        assert train_cli(tmp_path / "a", small_text, "--minutes", bad) == 2
        assert "--minutes must be a finite number of minutes > 0" in capsys.readouterr().err
    assert cli.main(["train", "--model", "kuramoto", "--config", "auto", "--quiet",
                     "--out", str(tmp_path / "b")]) == 2  # fmt: skip
    assert "give --minutes" in capsys.readouterr().err
    assert train_cli(tmp_path / "c", small_text, "--minutes", "1", "--steps", "5") == 2
    assert "--steps and --minutes" in capsys.readouterr().err
    assert cli.main(["train", "--model", "kuramoto", "--config", "auto", "--minutes", "1",
                     "d_model=32", "--out", str(tmp_path / "d")]) == 2  # fmt: skip
    assert "--config auto chooses" in capsys.readouterr().err
    assert not any((tmp_path / x).exists() for x in "abcd")


def test_too_short_a_budget_is_refused(tmp_path, small_text, tiny_models, fake_clock, capsys):
    # (the warm-up of the test above, 18.8 s in all, compiled once)
    assert train_cli(tmp_path / "run", small_text, "--minutes", "0.3", *ARGS) == 2
    err = capsys.readouterr().err
    assert "too short" in err and "--minutes 0.3" in err and "s went to start-up" in err
    assert not (tmp_path / "run" / "config.json").exists()


def _mock_measure(monkeypatch, clock, A):
    """`measure_costs` at tokens/s = A / N (the real count of the spec's model): the
    clock advances by what the warm-up would take; the steps of the run that follows
    are charged at the last measured size's cost (the fixture's STEP)."""
    measured = []

    def measure(spec, corpus, *, step_timing=True, evaluation=True, checkpoint=True, **kw):
        n = models.config_params(spec.model)
        per_step = spec.train.batch_size * spec.train.seq_len
        step = per_step * n / A
        clock.t += (COMPILE + 4 * step) * step_timing + CKPT * checkpoint
        measured.extend([n] * step_timing)
        monkeypatch.setattr(sys.modules[__name__], "STEP", step)
        return StepCosts(n, per_step, COMPILE, step, 2 * EVAL_BATCH, CKPT)

    monkeypatch.setattr(_budget, "measure_costs", measure)
    return measured


def _check_auto(spec, measured, minutes):
    b = spec.budget
    assert spec.preset == "auto" and spec.model.name == "auto" and b["config"] == "auto"
    assert {k: getattr(spec.model, k) for k in b["shape"]} == b["shape"]
    assert b["params"] in measured and len(b["candidates"]) == len(measured) <= 3
    assert b["params"] == models.config_params(models.get_config(
        "1m", attention="kuramoto", vocab_size=256, **b["shape"]))  # fmt: skip
    # the size rule's shape of that count
    assert b["shape"]["d_model"] == models.shape_for_params(b["params"])["d_model"]
    # 20 tokens per parameter, up to the shape's grain (d in steps of 16)
    assert abs(math.log(b["tokens_per_param"] / 20)) < math.log(1.5), b
    assert b["before_s"] + b["planned_s"] <= 60 * minutes
    assert b["before_s"] + b["planned_s"] >= 0.9 * 60 * minutes


def test_auto_chooses_the_compute_matched_size(small_text, fake_clock, monkeypatch):
    """``--config auto`` with tokens/s = A / N: the spec (nothing trained)."""
    from syncattn.training import budget_spec

    measured = _mock_measure(monkeypatch, fake_clock, 1e8)
    spec, _ = budget_spec("kuramoto", "auto", 4, data="text", data_path=small_text,
                          overrides=["seq_len=64"], log=lambda m: None)  # fmt: skip
    _check_auto(spec, measured, 4)
    assert spec.train.batch_size == 16 and spec.train.seq_len == 64
    assert spec.train.lr == auto_lr("kuramoto", spec.budget["params"])
    n = next_size(1, 1e10, 0.97 * (240 - AGE))  # the first guess, then A / N's answer
    assert measured[0] == models.shape_for_params(n, 256, ("kuramoto",))["params"]["kuramoto"]




@pytest.mark.slow
def test_auto_trains_within_the_budget_on_a_mocked_clock(tmp_path, small_text, tiny_models,
                                                         fake_clock, monkeypatch):  # fmt: skip
    """``syncattn train --config auto`` with tokens/s = A / N (the measurement mocked;
    the stand-in model trained, its steps charged at the chosen size's cost)."""
    measured = _mock_measure(monkeypatch, fake_clock, 1e8)
    run = tmp_path / "run"
    assert cli.main(["train", "--model", "kuramoto", "--config", "auto", "--minutes", "4",
                     "--data", "text", "--data-path", str(small_text), "--out", str(run),
                     "--quiet", "batch_size=32", "seq_len=64", "eval_batches=1"]) == 0  # fmt: skip
    took = fake_clock.t + AGE
    assert 0.9 * 240 <= took <= 240, took
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["model"]["preset"] == "auto" and cfg["train"]["batch_size"] == 32
    _check_auto(read_config(run), measured, 4)
    # resumed as planned: the same size, steps and lr, nothing measured
    n, before = len(measured), fake_clock.t
    assert cli.main(["train", "--model", "kuramoto", "--config", "auto", "--minutes", "4",
                     "--data", "text", "--data-path", str(small_text), "--out", str(run),
                     "--quiet", "batch_size=32", "seq_len=64", "eval_batches=1"]) == 0  # fmt: skip
    assert len(measured) == n and fake_clock.t == before
    assert json.loads((run / "config.json").read_text()) == cfg


@pytest.mark.slow
def test_minutes_keeps_a_real_budget(tmp_path, small_text):
    """``syncattn train --minutes 3`` (tiny softmax model, a real clock, a new process):
    its plan fills the budget (the start-up and the planned seconds, from its own
    measured costs, between 90 % and 100 % of 3 minutes) and the run, re-planning as the
    machine's speed changes, ends within 10 % of 3 minutes.

    Before re-planning, the plan took the warm-up's throughput to last, and this shared
    2-core machine did not keep it: runs alone ended at 140 s, about 150 s and 206 s of
    180 (2026-12-03), and one in CI at 248 s (warm-up steps of 6.0 ms, run steps about
    8.5 ms). CI runs this file alone. The planning and re-planning arithmetic is checked
    exactly under a mocked clock above."""
    run = tmp_path / "run"
    root = Path(__file__).resolve().parents[2]
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from syncattn.cli import main; sys.exit(main())",
         "train", "--model", "softmax", "--config", "tiny", "--minutes", "3", "--data", "text",
         "--data-path", str(small_text), "--out", str(run), "--quiet"],
        cwd=root, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    wall = time.monotonic() - t0
    assert done.returncode == 0, done.stderr
    cfg = json.loads((run / "config.json").read_text())
    budget = cfg["budget"]
    assert budget["minutes"] == 3
    planned = budget["before_s"] + budget["planned_s"]
    assert 0.9 * 180 <= planned <= 180, budget
    report = dict(wall=wall, steps=cfg["train"]["steps"], first_plan=budget["steps"],
                  warm_step_s=budget["step_s"], replans=budget.get("replans", []))  # fmt: skip
    print(report)
    assert 0.9 * 180 <= wall <= 1.1 * 180, (report, done.stderr)

"""The frustrated experiment's held-out corpus check: a run's final checkpoint scored on
a byte stream, against a brute-force sum of the model's own log-probabilities."""

import json
import lzma
import math

import jax
import numpy as np
import pytest

from syncattn import training
from syncattn.experiments.frustrated import _heldout as heldout
from tests.training import conftest as run_fixtures


small_text = run_fixtures.small_text  # the run-folder tests' fixtures, here too
tiny_models = run_fixtures.tiny_models
ARGS = ("--steps", "4", "batch_size=2", "seq_len=16", "eval_every=2", "ckpt_every=2",
        "log_every=2", "eval_batches=1")


@pytest.fixture
def run(tmp_path, small_text, tiny_models):
    out = tmp_path / "runs" / "cell-a"
    assert run_fixtures.train_cli(out, small_text, *ARGS) == 0
    return out


def _brute_force_bpc(model, stream, L):
    """-1/(W L ln 2) sum over windows w < floor((n-1)/L) and positions of ln p(x_next),
    each window on its own, in float64 numpy."""
    W = (len(stream) - 1) // L
    total = 0.0
    for w in range(W):
        x = np.asarray(stream[w * L : w * L + L + 1], np.int32)
        z = np.asarray(model(jax.numpy.asarray(x[:-1]), key=None), np.float64)
        m = z.max(-1, keepdims=True)
        logp = z - m - np.log(np.exp(z - m).sum(-1, keepdims=True))
        total -= logp[np.arange(L), x[1:]].sum()
    return total / (W * L * math.log(2)), W * L


def test_score_run_is_the_brute_force_bpc_of_the_final_checkpoint(run):
    rng = np.random.default_rng(0)
    stream = rng.integers(0, 256, size=16 * 5 + 7).astype(np.uint8)  # 5 windows, a tail
    got = heldout.score_run(run, stream, batch_size=2, seq_len=16)  # batches 2, 2, 1
    _, _, model, step = training.load_run(run)
    want, n = _brute_force_bpc(model, stream, 16)
    assert got["step"] == step == 4 and got["tokens"] == n == 80
    assert got["test_bpc"] is None  # the CLI's run records no test split
    (run / "result.json").write_text(json.dumps({"test": {"bpc": 1.25}}))
    assert heldout.score_run(run, stream, batch_size=2, seq_len=16)["test_bpc"] == 1.25
    assert got["bpc"] == pytest.approx(want, rel=1e-5)
    assert got["loss"] == pytest.approx(want * math.log(2), rel=1e-5)


def test_cells_are_scored_once_recorded_everywhere_and_unfinished_ones_refused(
    run, tmp_path, monkeypatch
):
    calls = []
    real = heldout.score_run
    monkeypatch.setattr(heldout, "heldout_tokens", lambda: np.arange(200, dtype=np.uint8))

    def counted(*a, **k):
        calls.append(a[0].name)
        return real(*a, **k)

    monkeypatch.setattr(heldout, "score_run", counted)
    runs, f1, f2 = tmp_path / "runs", tmp_path / "out", tmp_path / "committed"
    names = ["cell-a", "cell-elsewhere"]  # the second has no run folder here
    got = heldout.score_cells(names, runs, [f1, f2], batch_size=2, seq_len=16,
                              progress=False)
    assert list(got) == ["cell-a"] and calls == ["cell-a"]
    for f in (f1, f2):
        body = json.loads((f / heldout.HELDOUT).read_text())
        assert body["corpus"] == "jargon" and body["cells"] == got
    # read back, not scored again
    assert heldout.score_cells(names, runs, [f2], batch_size=2, seq_len=16,
                               progress=False) == got
    assert calls == ["cell-a"]
    # a cell whose latest checkpoint is not its last step is refused
    import shutil

    shutil.rmtree(run / "checkpoints" / "step_00000004")
    with pytest.raises(ValueError, match="latest checkpoint is step 2, not the run's last step 4"):
        heldout.score_run(run, np.arange(100, dtype=np.uint8), batch_size=2, seq_len=16)
    (f1 / heldout.HELDOUT).write_text("{not json")
    with pytest.raises(ValueError, match="corrupt.*delete it"):
        heldout.read_scores(f1)


def test_the_held_out_stream_is_the_whole_jargon_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "cache"))
    from syncattn.data import _corpus

    raw = lzma.decompress((_corpus._EMBEDDED_DIR / "jargon.txt.xz").read_bytes())
    assert heldout.heldout_tokens().tobytes() == raw


def _rung(lrs, test):
    """A report's rung block: families with a best lr, seeds 0-4 and test BPC by seed."""
    return {
        "name": "200k",
        "families": {
            f: {"lr": lrs[f], "seeds": [0, 1, 2, 3, 4],
                "test_by_seed": {str(s): v for s, v in enumerate(test[f])}}
            for f in lrs
        },
    }


def test_summarise_pairs_held_out_scores_by_seed_and_compares_signs():
    from syncattn.experiments.frustrated._report import HYPOTHESES

    rng = np.random.default_rng(1)
    fams = ("frustrated", "frustrated-mf", "kuramoto", "softmax")
    lrs = dict.fromkeys(fams, 0.01)
    test = {f: list(2.0 + 0.1 * rng.standard_normal(5)) for f in fams}
    held = {f: list(3.0 + 0.1 * rng.standard_normal(5)) for f in fams}
    own = {f: list(2.0 + 0.1 * rng.standard_normal(5)) for f in fams}  # retrained cells' test

    def score(f, s):  # odd seeds: a score without its own test BPC (the committed one counts)
        return {"bpc": held[f][s], "test_bpc": own[f][s] if s % 2 == 0 else None}

    scores = {heldout.cell_name("200k", f, 0.01, s): score(f, s)
              for f in fams for s in range(5) if not (f == "softmax" and s == 4)}
    got = heldout.summarise(_rung(lrs, test), scores, HYPOTHESES, 0.95)
    assert got["corpus"] == "jargon" and got["rung"] == "200k"
    assert got["families"]["softmax"]["bpc"]["n"] == 4
    assert got["families"]["kuramoto"]["bpc"]["mean"] == pytest.approx(np.mean(held["kuramoto"]))
    for c, (h, a, b) in zip(got["comparisons"], HYPOTHESES, strict=True):
        seeds = [s for s in range(5) if not (b == "softmax" and s == 4)]
        mine = {f: [own[f][s] if s % 2 == 0 else test[f][s] for s in range(5)] for f in (a, b)}
        d = np.array([held[a][s] - held[b][s] for s in seeds])
        t = np.array([mine[a][s] - mine[b][s] for s in seeds])
        k = np.array([test[a][s] - test[b][s] for s in seeds])
        assert c["id"] == f"{h} 200k" and c["seeds"] == seeds and c["n"] == len(seeds)
        assert c["mean"] == pytest.approx(d.mean()) and c["test_mean"] == pytest.approx(t.mean())
        assert c["committed_test_mean"] == pytest.approx(k.mean())
        half = 2.7764451051977987 if len(seeds) == 5 else 3.182446305284263  # t_0.975(n-1)
        lo, hi = c["ci"]
        assert (hi - lo) / 2 == pytest.approx(half * d.std(ddof=1) / np.sqrt(len(seeds)))
        assert c["same_sign"] == (np.sign(d.mean()) == np.sign(t.mean()))


def test_summarise_without_scores_or_best_lr_claims_nothing():
    from syncattn.experiments.frustrated._markdown import _heldout
    from syncattn.experiments.frustrated._report import HYPOTHESES

    fams = ("frustrated", "frustrated-mf", "kuramoto", "softmax")
    lrs = dict.fromkeys(fams, 0.01) | {"softmax": None}
    got = heldout.summarise(_rung(lrs, {f: [2.0] * 5 for f in fams}), {}, HYPOTHESES, 0.95)
    assert all(c["same_sign"] is None and c["n"] == 0 for c in got["comparisons"])
    assert heldout.rung_cells(_rung(lrs, {f: [2.0] * 5 for f in fams}), ["softmax"]) == []
    text = "\n".join(_heldout({"heldout": got}))
    assert "## Held-out corpus (200k, descriptive)" in text and "| H1 200k |" in text


def test_cell_name_is_the_walks_name_of_a_best_lr_cell():
    from syncattn.experiments.frustrated import Config, _cells

    fam = next(f for f in _cells.FAMILIES if f.name == "kuramoto")
    c = _cells.frustrated_cell(Config.smoke(), 12_000, fam, 0.01, 3)
    assert c.name == heldout.cell_name("12k", "kuramoto", 0.01, 3)


def test_retrain_trains_the_committed_cell_again_and_reports_its_drift(tmp_path, monkeypatch):
    from syncattn.experiments._grid import TrainCell
    from syncattn.experiments.frustrated import _cells

    cell = TrainCell(name="200k-softmax-lr0.01-seed3", model="softmax", config="tiny",
                     seed=3, steps=5, overrides={"train.lr": 0.01})
    committed = tmp_path / "committed"
    for name, body in (
        (cell.name, {"status": "ok", "test": {"bpc": 2.5}, "cell": {
            "name": cell.name, "model": "softmax", "config": "tiny", "seed": 3,
            "steps": 5, "overrides": {"train.lr": 0.01}}}),
        ("200k-kuramoto-lr0.01-seed0", {"status": "ok", "test": {"bpc": 2.0}}),
    ):
        (committed / "runs" / name).mkdir(parents=True)
        (committed / "runs" / name / "result.json").write_text(json.dumps(body))
    seen = []

    def fake_cell(c, folder, **_):  # stands in for the training: records the cell
        seen.append(c)
        (folder / "checkpoints").mkdir(parents=True)
        return {"status": "ok", "test": {"bpc": 2.4375}}

    monkeypatch.setattr(_cells, "copy_depth_cell", fake_cell)
    runs = tmp_path / "runs"
    got = heldout.retrain([cell.name, "absent"], committed, runs, progress=False)
    assert seen == [cell]  # the committed settings, rebuilt as the same TrainCell
    assert got == {cell.name: {"committed_test_bpc": 2.5, "test_bpc": 2.4375,
                               "drift": -0.0625}}
    assert json.loads((runs / cell.name / "result.json").read_text())["test"]["bpc"] == 2.4375
    # done already (result and checkpoints here): read, not trained again
    assert heldout.retrain([cell.name], committed, runs, progress=False) == got
    assert len(seen) == 1
    with pytest.raises(ValueError, match="records no cell"):
        heldout.retrain(["200k-kuramoto-lr0.01-seed0"], committed, runs, progress=False)
    monkeypatch.setattr(_cells, "copy_depth_cell",
                        lambda c, f, **_: {"status": "diverged", "error": "nan"})
    (committed / "runs" / "x").mkdir()
    (committed / "runs" / "x" / "result.json").write_text(json.dumps(
        {"test": {"bpc": 1.0}, "cell": {"name": "x", "model": "softmax", "config": "tiny"}}))
    with pytest.raises(ValueError, match="did not finish: diverged"):
        heldout.retrain(["x"], committed, runs, progress=False)

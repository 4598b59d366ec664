"""Experiment 1 at smoke size, through the command line."""

import csv
import json
import math

import pytest

from syncattn import cli
from syncattn.experiments import table

from ..helpers import approx


@pytest.fixture
def smoke(table_smoke):
    return table_smoke


def test_table_smoke_writes_its_files(smoke):
    names = {p.name for p in smoke.iterdir()}
    assert {"config.json", "results.json", "table.csv", "table.png", "runs"} <= names
    cfg = json.loads((smoke / "config.json").read_text())
    assert cfg["experiment"] == "table" and cfg["size"] == "smoke"
    assert cfg["config"]["seeds"] == [0, 1]
    res = json.loads((smoke / "results.json").read_text())
    assert res["corpus"]["name"] == "embedded" and res["paper_corpus_matches"] is False
    rows = res["rows"]
    assert len(rows) == 4 and {r["model"] for r in rows} == {"kuramoto", "softmax"}
    for r in rows:
        # a byte model starts near log2(256) = 8 bits; 8 steps must not blow it up
        assert r["status"] == "ok" and 0 < r["val_bpc"] < 8.6
        # each cell is a run folder of the training package
        run = smoke / "runs" / f"tiny-{r['model']}-seed{r['seed']}"
        assert (run / "config.json").is_file() and (run / "checkpoints").is_dir()
    with open(smoke / "table.csv") as f:
        assert len(list(csv.DictReader(f))) == 4


def test_table_aggregates_its_rows(smoke):
    res = json.loads((smoke / "results.json").read_text())
    for model in ("kuramoto", "softmax"):
        vals = [r["val_bpc"] for r in res["rows"] if r["model"] == model]
        d = res["table"]["tiny"][model]
        assert d["mean"] == approx(sum(vals) / 2)
        assert d["std"] == approx(abs(vals[0] - vals[1]) / math.sqrt(2))
    k = {r["seed"]: r["val_bpc"] for r in res["rows"] if r["model"] == "kuramoto"}
    s = {r["seed"]: r["val_bpc"] for r in res["rows"] if r["model"] == "softmax"}
    diff = res["table"]["tiny"]["kuramoto_minus_softmax"]
    assert diff["mean"] == approx((k[0] - s[0] + k[1] - s[1]) / 2)
    assert "1.637" in table.summary(res)


def test_table_rerun_resumes_without_training(smoke, capsys):
    before = {p: p.stat().st_mtime_ns for p in (smoke / "runs").rglob("result.json")}
    assert cli.main(["experiment", "table", "--smoke", "--out", str(smoke), "--quiet"]) == 0
    after = {p: p.stat().st_mtime_ns for p in (smoke / "runs").rglob("result.json")}
    assert before == after
    assert "kuramoto" in capsys.readouterr().out


def test_unknown_key_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["experiment", "table", "--smoke", "--out", str(tmp_path), "nope=1"]) == 2
    assert "unknown config key 'nope'" in capsys.readouterr().err

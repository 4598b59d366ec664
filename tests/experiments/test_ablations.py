"""Experiment 2 at smoke size (sharing experiment 1's full-model cells)."""

import json

import pytest

from syncattn.experiments import ablations

from ..helpers import approx
from .conftest import smoke_on_table_runs


@pytest.fixture(scope="module")
def smoke(tmp_path_factory, table_smoke, compile_cache):
    return smoke_on_table_runs("ablations", tmp_path_factory, table_smoke, compile_cache)


@pytest.mark.slow  # three more model variants to compile and train; .ci/run runs it
def test_ablations_smoke(smoke, table_smoke):
    assert {"config.json", "results.json", "ablations.csv", "ablations.png"} <= {
        p.name for p in smoke.iterdir()}
    res = json.loads((smoke / "results.json").read_text())
    assert set(res["table"]) == {"full", "learned-value", "no-ffn", "no-gates"}
    # the full model is experiment 1's cell, reused (not retrained)
    t = json.loads((table_smoke / "results.json").read_text())
    k0 = next(r["val_bpc"] for r in t["rows"] if r["model"] == "kuramoto" and r["seed"] == 0)
    assert res["table"]["full"]["mean"] == approx(k0, scale=0.01)
    rows = {r["variant"]: r for r in res["rows"]}
    for v in ("learned-value", "no-ffn", "no-gates"):
        d = res["table"][v]["delta"]
        assert d["mean"] == approx(rows[v]["val_bpc"] - k0)
        assert res["table"][v]["paper_delta"] == ablations.PAPER["delta_bpc"][v]
    # the switches change the model: parameter counts differ as they must
    p = {v: res["table"][v]["params"] for v in res["table"]}
    assert p["no-ffn"] < p["full"] and p["learned-value"] > p["full"]
    assert p["no-gates"] == p["full"]  # gates are computed, then ignored
    assert "+0.27" in ablations.summary(res)
    cfg = json.loads((table_smoke / "runs" / "tiny-kuramoto-no-ffn-seed0" / "config.json").read_text())
    assert cfg["model"]["ffn"] == "none"


def test_unknown_variant():
    with pytest.raises(ValueError, match="unknown"):
        ablations.Config(variants=("no-attention",))

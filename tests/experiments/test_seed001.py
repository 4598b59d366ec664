"""Experiments 4-7 at smoke size through the command line; 6 and 7 reuse 5's run folders."""

import json
import os

import numpy as np
import pytest

from syncattn import cli, stats

from ..helpers import approx


# about 7 minutes on the shared 2-core machine (trainings and diffrax compiles): CI runs them
pytestmark = pytest.mark.slow


def _run(args, cache):
    os.environ["JAX_COMPILATION_CACHE_DIR"] = cache
    try:
        return cli.main(["experiment", *args, "--quiet"])
    finally:
        del os.environ["JAX_COMPILATION_CACHE_DIR"]


@pytest.fixture(scope="module")
def scaling(tmp_path_factory, compile_cache):
    out = tmp_path_factory.mktemp("scaling")
    assert _run(["scaling", "--smoke", "--out", str(out)], compile_cache) == 0
    return out


def test_agreement_smoke(tmp_path, compile_cache):
    assert _run(["agreement", "--smoke", "--out", str(tmp_path)], compile_cache) == 0
    assert {"config.json", "results.json", "runs.csv", "agreement.png"} <= {p.name for p in tmp_path.iterdir()}
    res = json.loads((tmp_path / "results.json").read_text())
    assert len(res["rows"]) == 4
    for m, t in res["table"].items():
        assert t["n"] == 2 and t["failures"] == sum(r["failed"] for r in res["rows"] if r["model"] == m)
        lo, hi = stats.clopper_pearson(t["failures"], t["n"])
        assert t["clopper_pearson"] == approx([float(lo), float(hi)])
        for r in res["rows"]:
            assert 0 <= r["acc_hard"] <= 100 and r["failed"] == (r["acc_hard"] < 85)
    # finished cells are not trained again
    before = {p: p.stat().st_mtime for p in (tmp_path / "runs").glob("*/result.json")}
    assert _run(["agreement", "--smoke", "--out", str(tmp_path)], compile_cache) == 0
    assert before == {p: p.stat().st_mtime for p in (tmp_path / "runs").glob("*/result.json")}


def test_scaling_smoke(scaling):
    res = json.loads((scaling / "results.json").read_text())
    assert res["corpus"]["name"] == "embedded-words" and res["paper_corpus_matches"] is False
    assert set(res["ppl"]) == {"2", "4"} and "2" in res["p_sweep"]
    gaps = [res["gap"][d] for d in ("2", "4")]
    np.testing.assert_allclose(
        gaps, [res["ppl"][d]["mean"] - res["softmax"]["mean"] for d in ("2", "4")]
    )
    if res["fit"]["status"] == "ok":  # two points: the fit goes through both
        assert res["fit"]["alpha"] == approx(stats.power_law_fit([2, 4], gaps)["alpha"])
    else:
        assert min(gaps) <= 0
    assert (scaling / "scaling.png").stat().st_size > 0


def test_convergence_smoke_reuses_scaling(scaling, tmp_path, compile_cache):
    args = ["convergence", "--smoke", f"runs_from={scaling}", "--out", str(tmp_path)]
    assert _run(args, compile_cache) == 0
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
    res = json.loads((tmp_path / "results.json").read_text())
    for d in ("2", "4"):
        r = res["per_d"][d]
        assert r["oscillators"] > 0 and r["solves"] == 2 * r["oscillators"]
        for src in ("predicted", "measured"):
            assert 0 <= r[src]["converged"] <= 1 and 0 <= r[src]["antipodal"] <= 1
        assert str(scaling) in r["run"]
    assert (tmp_path / "convergence.png").stat().st_size > 0


def test_linear_smoke_reuses_scaling(scaling, tmp_path, compile_cache):
    args = ["linear", "--smoke", "d=2", f"runs_from={scaling}", "--out", str(tmp_path)]
    assert _run(args, compile_cache) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert set(res["ppl"]) == {"linear", "softplus", "elu1", "softmax"}
    assert len(res["reused"]) == 2  # softplus and softmax came from experiment 5
    assert res["linear_minus_softplus"]["mean"] == approx(
        res["ppl"]["linear"]["mean"] - res["ppl"]["softplus"]["mean"]
    )
    assert res["linear_minus_elu1"]["mean"] == approx(
        res["ppl"]["linear"]["mean"] - res["ppl"]["elu1"]["mean"]
    )

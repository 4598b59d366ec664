"""docs/experiments.md, "Adding an experiment": the whole experiment shown there (under 80
lines) is taken from the page as it is, built and run: config.json, the results, the table
and the plot, and the rebuild from its results alone, byte for byte. The default run
trains with a stand-in cell function (seconds); the slow test trains the real models."""

import dataclasses
import json
import re
import sys
import types
from pathlib import Path

import pytest

from syncattn import cli
from syncattn.experiments import experiment, register
from syncattn.experiments._registry import unregister

from ..helpers import approx


DOC = Path(__file__).resolve().parents[2] / "docs" / "experiments.md"
NAME = "toy_rung"


def docs_block() -> str:
    """The first ``python`` block of the page's "Adding an experiment" section."""
    section = DOC.read_text().split("## Adding an experiment\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```python\n(.*?)^```", section, flags=re.M | re.S)
    assert block, "docs/experiments.md: no python block under 'Adding an experiment'"
    return block.group(1)


@pytest.fixture
def toy():
    """The block run as a module (it registers its experiment); forgotten afterwards."""
    unregister(NAME)
    module = types.ModuleType("toy_rung_from_the_docs")
    sys.modules[module.__name__] = module
    try:
        exec(compile(docs_block(), str(DOC), "exec"), module.__dict__)
        yield module
    finally:
        unregister(NAME)
        sys.modules.pop(module.__name__, None)


def stand_in(cell, folder):
    """A trained cell's result without training: test BPC 2 (Kuramoto 2.25) + seed / 10."""
    bpc = 2.0 + 0.1 * cell.seed + (0.25 if "-kuramoto-" in cell.name else 0.0)
    curve = [{"step": s, "bpc": bpc + 0.01 * (cell.steps - s)} for s in (1, cell.steps)]
    return {"status": "ok", "params": 12_000, "val": {"bpc": bpc}, "test": {"bpc": bpc + 0.5},
            "curve": curve, "tokens_per_s": 1.0}


def _check_outputs(out: Path, module) -> dict:
    assert json.loads((out / "config.json").read_text())["experiment"] == NAME
    results = json.loads((out / "results.json").read_text())
    assert results["experiment"] == NAME and len(results["rows"]) == 4  # 2 families x 2 seeds
    lines = (out / "cells.csv").read_text().splitlines()
    assert lines[0] == "cell,family,lr,seed,status,test_bpc" and len(lines) == 5
    assert (out / f"{NAME}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return results


def test_the_docs_experiment_is_short_and_complete():
    block = docs_block()
    assert len(block.splitlines()) < 80
    for part in ("class Config", "def walk", "def tables", "def plots", "Experiment(", "FAMILIES"):
        assert part in block, part


def test_the_docs_experiment_runs_and_rebuilds(tmp_path, toy):
    exp = experiment(NAME)
    assert exp is toy.EXPERIMENT and exp.families == toy.FAMILIES
    register(dataclasses.replace(exp, cell=stand_in), replace=True)
    out = tmp_path / "run"
    assert cli.main(["experiment", NAME, "--smoke", "--out", str(out), "--quiet"]) == 0
    results = _check_outputs(out, toy)
    assert {w["cell"] for w in results["rows"]} == {
        f"12k-{f}-lr0.01-seed{s}" for f in ("kuramoto", "softmax") for s in (0, 1)}
    assert results["best_lr"] == {"kuramoto": 0.01, "softmax": 0.01}
    # the paired gap by hand: Kuramoto - softmax = 0.25 at both seeds
    assert results["gap"]["n"] == 2 and results["gap"]["mean"] == approx(0.25)
    assert [w["test_bpc"] for w in results["rows"] if w["seed"] == 1] == approx([2.85, 2.6])

    # the rebuild from the results alone: the same table, plot and results
    again = tmp_path / "rebuilt"
    assert cli.main(["experiment", NAME, "--from-results", str(out), "--out", str(again),
                     "--quiet"]) == 0
    rebuilt = _check_outputs(again, toy)
    assert rebuilt == results | {"rebuilt_from": str(out)}
    for f in ("cells.csv", f"{NAME}.png"):
        assert (again / f).read_bytes() == (out / f).read_bytes(), f


@pytest.mark.slow
def test_the_docs_experiment_trains_the_real_models(tmp_path, toy, compile_cache, monkeypatch):
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", compile_cache)
    out = tmp_path / "run"
    assert cli.main(["experiment", NAME, "--smoke", "--out", str(out), "--quiet"]) == 0
    results = _check_outputs(out, toy)
    assert all(w["status"] == "ok" and w["test_bpc"] > 0 for w in results["rows"])
    assert (out / "runs" / "12k-kuramoto-lr0.01-seed0" / "result.json").is_file()

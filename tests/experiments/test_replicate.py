"""Provenance and replication (issue 40 §3): a cell trained through the protocol records the
commit and package versions that made it; ``replicate=CELL`` re-runs one committed cell and
reports the difference, 0 for a cell made here, the size of a stand-in's change otherwise."""

import dataclasses
import json
import platform
from importlib import metadata

import jax
import pytest

from syncattn import cli
from syncattn._outputs import revision
from syncattn.experiments import (
    Grid,
    TrainCell,
    _protocol as protocol,
    geometry,
    ladder,
)
from syncattn.experiments._protocol import _replicate

from ..helpers import approx


# a cell of a few steps of the tiny preset (trains in well under a second, compiles in 10 s or more)
TINY = TrainCell(
    name="tiny-kuramoto-seed0",
    model="kuramoto",
    config="tiny",
    seed=0,
    steps=3,
    eval_batches=1,
    overrides={
        "train.batch_size": 2,
        "train.seq_len": 16,
        "train.eval_every": 3,
        "train.eval_batches": 1,
        "train.log_every": 1,
        "model.d_model": 16,
        "model.n_layers": 1,
        "model.n_heads": 2,
        "model.d_ff": 16,
    },
)


def _fake(cell, folder, bpc=2.0):
    return {
        "status": "ok",
        "step": cell.steps,
        "params": 100,
        "train_loss": 1.5,
        "val": {"loss": 1.4, "bpc": bpc},
        "test": {"loss": 1.45, "bpc": bpc + 0.05},
        "curve": [{"step": 1, "bpc": bpc + 1}, {"step": 3, "bpc": bpc}],
    }


def test_provenance_names_the_commit_and_the_versions():
    p = protocol.provenance()
    assert p["commit"] == revision() and p["python"] == platform.python_version()
    assert p["packages"]["jax"] == jax.__version__
    assert p["packages"]["numpy"] == metadata.version("numpy")
    assert set(p["packages"]) == set(protocol.PACKAGES)
    assert (
        p["backend"] == jax.default_backend() and p["x64"] == jax.config.jax_enable_x64
    )


def test_cells_trained_through_the_fetcher_record_it_adopted_ones_do_not(tmp_path):
    committed = tmp_path / "committed" / "runs" / "old"
    committed.mkdir(parents=True)
    old = TrainCell(name="old", model="kuramoto", config="tiny", steps=3)
    (committed / "result.json").write_text(
        json.dumps(
            _fake(old, None)
            | {
                "cell": {
                    "name": "old",
                    "model": "kuramoto",
                    "config": "tiny",
                    "seed": 0,
                    "data": "embedded",
                    "data_path": None,
                    "steps": 3,
                    "overrides": {},
                    "eval_batches": None,
                }
            }
        )
    )
    fetch = protocol.fetcher(
        Grid(progress=False),
        tmp_path / "runs",
        None,
        _fake,
        "t",
        adopt_from=tmp_path / "committed",
    )
    new = TrainCell(name="new", model="kuramoto", config="tiny", steps=3)
    got = fetch([old, new])
    assert got[0].get("provenance") is None  # adopted as committed
    made = json.loads((tmp_path / "runs" / "new" / "result.json").read_text())[
        "provenance"
    ]
    assert made["commit"] == revision() and made["packages"]["jax"] == jax.__version__
    assert made["cell_function"].endswith("test_replicate._fake")


def test_difference_of_scores_and_curves():
    a, b = _fake(TINY, None, 2.0), _fake(TINY, None, 2.004)
    d = _replicate.difference(a, b)
    assert d["val.bpc"] == approx(0.004) and d["test.bpc"] == approx(0.004)
    assert d["curve.bpc"] == approx(0.004) and d["params"] == 0 and d["train_loss"] == 0


def test_replicate_reports_the_difference_through_the_command_line(
    tmp_path, monkeypatch
):
    # the committed cell as a cell function wrote it, then today's code moved its bpc
    Grid(progress=False).run([TINY], tmp_path / "c" / "runs", _fake)
    def moved(cell: TrainCell, folder) -> dict:  # the cell type read from the annotation
        return _fake(cell, folder, bpc=2.01)

    exp = dataclasses.replace(geometry.EXPERIMENT, cell=moved)
    monkeypatch.setattr(geometry, "EXPERIMENT", exp)
    out = tmp_path / "out"
    argv = [
        "experiment",
        "geometry",
        f"replicate={TINY.name}",
        f"committed={tmp_path / 'c'}",
    ]
    assert cli.main([*argv, "--out", str(out)]) == 0
    rep = json.loads((out / "replicate.json").read_text())
    assert rep["difference"]["val.bpc"] == approx(0.01) and not rep["identical"]
    assert (
        rep["committed"]["provenance"] is None
    )  # written by the grid, not the fetcher
    assert rep["replicated"]["provenance"]["commit"] == revision()
    # usage errors: another key, a cell not committed, an experiment without protocol cells
    assert cli.main([*argv, "lr=1", "--out", str(out)]) == 2
    assert cli.main([*argv[:2], "replicate=nope", argv[3], "--out", str(out)]) == 2
    assert (
        cli.main(["experiment", "kws", "replicate=x", argv[3], "--out", str(out)]) == 2
    )


@pytest.mark.slow  # two real trainings: 10-45 s of compiling on the shared 2-core CPU
def test_a_tiny_cell_replicates_exactly(tmp_path, compile_cache):
    """A real training of a few steps, committed then re-run at the same code: every
    score and the whole evaluation curve are equal (the cell is a pure function of its
    settings on one machine)."""
    from syncattn.experiments._grid import use_compile_cache

    use_compile_cache(compile_cache)
    fetch = protocol.fetcher(
        Grid(progress=False),
        tmp_path / "c" / "runs",
        None,
        ladder.ladder_cell,
        "t",
        adopt_from=None,
    )
    (made,) = fetch([TINY])
    assert made.ok and made["provenance"]["commit"] == revision()
    rep = protocol.replicate("ladder", TINY.name, tmp_path / "c", tmp_path / "out")
    assert rep["identical"], rep["difference"]
    assert {"val.bpc", "test.bpc", "curve.bpc", "train_loss"} <= set(rep["difference"])
    assert rep["committed"]["provenance"]["commit"] == revision()


def test_replicate_refuses_an_unfinished_cell(tmp_path):
    folder = tmp_path / "runs" / "x"
    folder.mkdir(parents=True)
    (folder / "result.json").write_text(json.dumps({"status": "diverged", "cell": {}}))
    with pytest.raises(ValueError, match="did not finish"):
        protocol.replicate("ladder", "x", tmp_path, tmp_path / "out")
    with pytest.raises(FileNotFoundError, match="committed=DIR"):
        protocol.replicate("ladder", "y", tmp_path, tmp_path / "out")

"""The grid runner: finished cells are skipped, interrupted ones resume, Ray = sequential."""

import dataclasses
import importlib.util
import json
import shutil
import statistics

import numpy as np
import pytest

from syncattn.experiments import Grid, TrainCell, _common, make_config, table
from syncattn.experiments._grid import RESULT, read_result

from ..helpers import approx, assert_close


HAVE_RAY = importlib.util.find_spec("ray") is not None


@dataclasses.dataclass(frozen=True)
class Toy:
    name: str
    x: int


def toy_cell(cell, folder):
    """A stand-in cell: writes a marker file (to count runs) and returns x^2."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "calls").open("a") as f:
        f.write("1")
    return {"status": "ok", "square": cell.x * cell.x}


def test_grid_skips_finished_cells(tmp_path):
    cells = [Toy(f"c{i}", i) for i in range(3)]
    grid = Grid(progress=False)
    first = grid.run(cells, tmp_path, toy_cell)
    assert [r["square"] for r in first] == [0, 1, 4]
    assert [r["cell"]["x"] for r in first] == [0, 1, 2]
    # the result file marks a finished cell: a second run calls nothing
    (tmp_path / "c1" / RESULT).unlink()
    second = grid.run(cells, tmp_path, toy_cell)
    assert [r["square"] for r in second] == [0, 1, 4]
    calls = [(tmp_path / c.name / "calls").read_text() for c in cells]
    assert calls == ["1", "11", "1"]


def toy_cell_with_bar(cell, folder, *, progress=False):
    """A stand-in cell that takes a ``progress`` keyword, and records what it got."""
    return toy_cell(cell, folder) | {"progress": progress}


def test_a_progress_grid_passes_the_bar_to_cell_functions_that_take_it(tmp_path):
    cells = [Toy("a", 2)]
    shown = Grid(progress=True).run(cells, tmp_path / "on", toy_cell_with_bar)
    hidden = Grid(progress=False).run(cells, tmp_path / "off", toy_cell_with_bar)
    assert shown[0]["progress"] is True and hidden[0]["progress"] is False
    # a function without the keyword is called as before
    assert Grid(progress=True).run(cells, tmp_path / "plain", toy_cell)[0]["square"] == 4


def test_grid_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="unique"):
        Grid(progress=False).run([Toy("a", 1), Toy("a", 2)], tmp_path, toy_cell)
    with pytest.raises(ValueError, match="workers"):
        Grid(workers=0)
    with pytest.raises(ValueError, match="folder name"):
        TrainCell(name="../x", model="softmax", config="tiny")
    if not HAVE_RAY:
        with pytest.raises(ImportError, match="cluster"):
            Grid(workers=2)


def test_describe_values_against_statistics():
    x = [1.61, 1.64, 1.63, 1.65, 1.62]
    d = _common.describe_values(x)
    assert d["n"] == 5
    # two implementations of the same sums: a few ulp
    assert d["mean"] == approx(statistics.fmean(x), scale=1e-5)
    assert d["std"] == approx(statistics.stdev(x), scale=0.01)
    assert d["median"] == approx(statistics.median(x), scale=1e-5)
    one = _common.describe_values([2.0, float("nan")])
    assert one["n"] == 1 and one["n_dropped"] == 1 and one["std"] is None
    assert _common.describe_values([])["mean"] is None


def test_overrides_are_typed_and_checked():
    c = make_config("table", "smoke", ["sizes=1m,5m", "steps=None", "eval_batches=3"],
                    seeds="0-4")
    assert c.sizes == ("1m", "5m") and c.steps is None and c.eval_batches == 3
    assert c.seeds == (0, 1, 2, 3, 4)
    assert make_config("table", "smoke", seed=7).seeds == (7,)
    assert make_config("table", "smoke", ["seeds=3,1"]).seeds == (3, 1)
    with pytest.raises(ValueError, match=r"unknown config key 'stpes' \(did you mean 'steps'\?\)"):
        make_config("table", "smoke", ["stpes=3"])
    with pytest.raises(ValueError, match="seeds is given twice"):
        make_config("table", "smoke", ["seeds=1"], seed=2)
    # train.KEY=VALUE: one more training override of every cell, checked at once
    c = make_config("table", "smoke", ["train.lr=0.01", "train.model.dropout=0.1",
                                       "train.warmup_steps=1"])
    smoke = table.Config.smoke().train
    assert "warmup_steps=2" in smoke and "warmup_steps=1" not in smoke
    # the config's own warmup_steps replaced in place, the new keys appended
    assert c.train == tuple(o.replace("warmup_steps=2", "warmup_steps=1") for o in smoke) + (
        "lr=0.01", "model.dropout=0.1")
    (cell, *_) = table.cells(c)
    assert cell.overrides["train.lr"] == 0.01 and cell.overrides["model.dropout"] == 0.1
    with pytest.raises(ValueError, match="lr must be a float"):
        make_config("table", "smoke", ["train.lr=fast"])
    with pytest.raises(ValueError, match="has no training overrides"):
        make_config("agreement", "smoke", ["train.lr=0.01"])
    with pytest.raises(ValueError, match="must be an int"):
        make_config("table", "smoke", ["steps=many"])
    rel = make_config("table", "smoke", data_path="enwik8")
    assert rel.data_path.startswith("/") and rel.data_path.endswith("/enwik8")
    with pytest.raises(ValueError, match="unknown experiment"):
        make_config("nope")


def _tiny_cells(seeds=(0, 1), models=("kuramoto", "softmax"), steps=8):
    config = dataclasses.replace(table.Config.smoke(), seeds=seeds, models=models,
                                 steps=steps)
    return table.cells(config)


def test_interrupted_cell_resumes_from_its_checkpoint(tmp_path, compile_cache):
    (cell,) = _tiny_cells(seeds=(0,), models=("softmax",))
    grid = Grid(progress=False, compile_cache=compile_cache)
    (done,) = grid.run([cell], tmp_path)
    assert done["status"] == "ok" and done["step"] == 8 and done["resumed_from"] is None
    # interrupt it after step 4: no result file, no step-8 checkpoint
    folder = tmp_path / cell.name
    (folder / RESULT).unlink()
    shutil.rmtree(folder / "checkpoints" / "step_00000008")
    (again,) = grid.run([cell], tmp_path)
    assert again["resumed_from"] == 4 and again["step"] == 8
    # the same float32 steps, compiled apart: round-off
    assert again["val"]["bpc"] == approx(done["val"]["bpc"], np.float32, scale=0.1)
    assert read_result(folder)["val"] == again["val"]


def _bpcs(results):
    return np.array([r["val"]["bpc"] for r in results])


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: cluster)")
def test_ray_grid_matches_sequential(tmp_path, compile_cache):
    """A 2 x 2 smoke grid (model x seed) through a local Ray instance gives the
    sequential path's results."""
    cells = _tiny_cells()
    seq = Grid(progress=False, compile_cache=compile_cache).run(cells, tmp_path / "seq")
    par = Grid(workers=2, progress=False, compile_cache=compile_cache).run(
        cells, tmp_path / "ray")
    assert [r["cell"] for r in par] == [r["cell"] for r in seq]
    assert all(r["status"] == "ok" for r in seq + par)
    # float32 training, the same programs: agreement well inside float32 rounding
    assert_close(_bpcs(par), _bpcs(seq), np.float32, scale=0.1)
    assert_close([r["train_loss"] for r in par], [r["train_loss"] for r in seq],
                 np.float32, scale=0.1)
    # the seeds and models differ, so the four results do too (the check can fail)
    assert len(set(np.round(_bpcs(seq), 6))) == 4
    for r in par:
        assert json.loads((tmp_path / "ray" / r["cell"]["name"] / RESULT).read_text())["val"] == r["val"]


@pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: cluster)")
def test_ray_runs_stand_in_cells(tmp_path):
    """The Ray path with a cheap cell function (fast enough for the default suite)."""
    cells = [Toy(f"c{i}", i) for i in range(4)]
    par = Grid(workers=2, progress=False).run(cells, tmp_path, toy_cell)
    assert [r["square"] for r in par] == [0, 1, 4, 9]
    assert all((tmp_path / c.name / RESULT).is_file() for c in cells)


@pytest.mark.parametrize("name", ["convergence", "linear"])
def test_default_recipe_is_experiment_5s(name):
    """Experiments 6 and 7 at default size find experiment 5's default cells by name."""
    from syncattn.experiments import get, scaling
    from syncattn.experiments._reuse import recipe

    sc = scaling.Config.default()
    mine = recipe(get(name).Config.default())
    for model, d in (("softmax", None), ("oscillator", 2), ("oscillator", 32)):
        assert scaling.lm_cell(mine, model, 0, d) == scaling.lm_cell(sc, model, 0, d)


def test_layered_overrides_later_layers_replace_earlier_keys():
    from syncattn.experiments._common import layered_overrides

    got = layered_overrides(["lr=1", "eval_every=3"], {"eval_every": 5, "d_osc": 2},
                            ["seed=2"])
    # typed by the fields, group-resolved, the later layer's eval_every kept
    assert got == {"train.lr": 1.0, "train.eval_every": 5, "model.d_osc": 2, "train.seed": 2}
    assert type(got["train.lr"]) is float
    with pytest.raises(ValueError, match="given twice"):
        layered_overrides(["lr=1", "lr=2"])
    with pytest.raises(ValueError, match="train.lr is given twice"):
        layered_overrides(["lr=1", "train.lr=2"])
    with pytest.raises(ValueError, match="d_osc must be an int"):
        layered_overrides({"d_osc": "two"})
    with pytest.raises(ValueError, match="KEY=VALUE"):
        layered_overrides(["lr"])

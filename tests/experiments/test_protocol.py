"""The protocol of the compute-matched experiments (`syncattn.experiments._protocol`): the
cell result and its status, the paired gap, the order of the seeds, and a whole
experiment written on it in a few lines (the example below, with two stand-in families
and a stand-in cell function): the lr sweep with its extension past an edge, the seeds
at the best lr, export, adoption on another machine, and the rebuild from the committed
folder alone."""

import dataclasses
import json
import math
import sys

import numpy as np
import pytest
from scipy import stats as sps

from syncattn.experiments import Grid, TrainCell, _protocol as protocol
from syncattn.experiments._common import write_json
from syncattn.experiments._protocol import CellResult, Family, ProtocolConfig, Status

from ..helpers import approx


# --------------------------------------------------------------------------- the example experiment
# A whole experiment over a list of families: its config, families, cell, walk, table, run
# and rebuild. (This test module is the experiment's module: `rebuild` reads its NAME and
# Config.)

NAME = "toy"
FAMILIES = (Family("wide", "softmax"), Family("narrow", "kuramoto", model=(("ffn", "none"),),
                                              lrs=(1e-2, 3e-2)))  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Config(ProtocolConfig):
    steps: int = 10


def cell(config, family, lr, seed):
    return TrainCell(name=f"{family.name}-lr{lr:g}-seed{seed}", model=family.attention,
                     config="tiny", seed=seed, steps=config.steps,
                     overrides={"train.lr": lr} | family.overrides())  # fmt: skip


def walk(config, fetch):
    cells, results, _, best = protocol.sweep(
        config, FAMILIES, lambda f, lr: cell(config, f, lr, config.seeds[0]), fetch)
    more = protocol.at_best(FAMILIES, best, config.seeds,
                            lambda f, lr, s: cell(config, f, lr, s), skip=cells)
    return cells + more, results + fetch(more), best


def write(config, out, cells, results, best, rebuilt_from=None):
    rows = [protocol.cell_row(config, c, r, {"family": c.name.split("-")[0]},
                              {"val_bpc": ("val", "bpc"), "test_bpc": ("test", "bpc")}, "bpc")
            for c, r in zip(cells, results, strict=True)]  # fmt: skip
    test = {f.name: {w["seed"]: w["test_bpc"] for w in rows
                     if w["family"] == f.name and w["lr"] == best[f.name]} for f in FAMILIES}
    gap = protocol.paired(test["narrow"], test["wide"], config.seeds, config.confidence)
    return {"results": write_json(out / "results.json", {
        "rows": rows, "best_lr": best, "gap": gap, **protocol.record(rows),
        "rebuilt_from": rebuilt_from})}  # fmt: skip


def run(config, out, grid=None, size=None):
    return protocol.run(config, out, NAME, toy_cell,
                        lambda fetch, out, grid, dst: write(config, out, *walk(config, fetch)),
                        grid=grid or Grid(progress=False), size=size)  # fmt: skip


def rebuild(src, out):
    return protocol.rebuild(sys.modules[__name__], src, out, lambda config, fetch, src, out:
                            write(config, out, *walk(config, fetch), rebuilt_from=str(src)))


# --------------------------------------------------------------------------- its stand-in cell

BEST = {"wide": 3e-2, "narrow": 1e-2}
CALLS = []


def _bpc(name, lr, seed):
    return 2.0 + abs(math.log10(lr / BEST[name])) + 0.1 * seed + (0.3 if name == "narrow" else 0)


def toy_cell(cell, folder):
    """Validation BPC lowest at the family's BEST lr; the narrow family diverges at 3e-2;
    a curve still falling 2 % over its last 20 % at seed 1."""
    CALLS.append(cell.name)
    name, lr = cell.name.split("-")[0], cell.overrides["train.lr"]
    if name == "narrow" and lr >= 3e-2:
        return {"status": "diverged", "error": "loss is nan"}
    b = _bpc(name, lr, cell.seed)
    fall = 0.02 if cell.seed == 1 else 0.005
    curve = [{"step": s, "bpc": b * (1 + fall * (10 - s) / 2)} for s in (2, 4, 6, 8, 10)]
    folder.mkdir(parents=True, exist_ok=True)
    log = [{"kind": "train", "step": 1}] + [{"kind": "eval", **p} for p in curve]
    (folder / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log))
    return {"status": "ok", "params": 100, "val": {"bpc": b}, "test": {"bpc": b + 0.01},
            "curve": curve}


# --------------------------------------------------------------------------- tests


def test_an_experiment_on_the_protocol_sweeps_extends_exports_adopts_rebuilds(tmp_path):
    committed = tmp_path / "committed"
    config = Config(seeds=(0, 1), extend=2, committed=str(committed), export=True)
    CALLS.clear()
    run(config, tmp_path / "a", size="smoke")
    # the sweeps interleaved (narrow has its own: 1e-2, 3e-2); then, family by family, the
    # grid past the edge the best lies on: wide 1e-2 -> 3e-2 (best) -> 0.1 (worse: stop);
    # narrow's 3e-2 diverged, its best 1e-2 is an edge: 3e-3 (its grid's step 3), worse
    assert CALLS == ["wide-lr0.001-seed0", "narrow-lr0.01-seed0", "wide-lr0.003-seed0",
                     "narrow-lr0.03-seed0", "wide-lr0.01-seed0", "wide-lr0.03-seed0",
                     "wide-lr0.1-seed0", "narrow-lr0.003-seed0",
                     "wide-lr0.03-seed1", "narrow-lr0.01-seed1"]  # fmt: skip
    res = json.loads((tmp_path / "a" / "results.json").read_text())
    assert res["best_lr"] == {"wide": 3e-2, "narrow": 1e-2}
    rows = {w["cell"]: w for w in res["rows"]}
    assert rows["narrow-lr0.03-seed0"]["status"] == "diverged"
    assert rows["narrow-lr0.03-seed0"]["converged"] is None
    assert rows["wide-lr0.03-seed1"]["val_bpc"] == approx(2.1)
    # convergence: from step 8 (the last 20 % of 10) to 10 the curve fell fall / (1 + fall)
    assert rows["wide-lr0.03-seed1"]["improvement"] == approx(0.02 / 1.02)
    assert res["not_converged"] == ["wide-lr0.03-seed1", "narrow-lr0.01-seed1"]
    # the gap narrow - wide at the best lrs, by seed: 0.3 at both
    assert res["gap"]["values"] == approx([0.3, 0.3]) and res["gap"]["n"] == 2
    # exported: each result and the eval rows of its log, and the settings
    log = (committed / "runs" / "wide-lr0.03-seed0" / "log.jsonl").read_text().splitlines()
    assert len(log) == 5 and all(json.loads(r)["kind"] == "eval" for r in log)
    assert (committed / "config.json").is_file() and (committed / "results.json").is_file()
    # another machine adopts every committed cell: nothing is trained
    CALLS.clear()
    run(config, tmp_path / "b", size="smoke")
    assert CALLS == []
    assert json.loads((tmp_path / "b" / "results.json").read_text())["rows"] == res["rows"]
    # the rebuild from the committed folder alone; a cell gone is reported missing
    rebuild(committed, tmp_path / "rebuilt")
    again = json.loads((tmp_path / "rebuilt" / "results.json").read_text())
    assert again["rows"] == res["rows"] and again["rebuilt_from"] == str(committed)
    (committed / "runs" / "narrow-lr0.01-seed1" / "result.json").unlink()
    rebuild(committed, tmp_path / "partial")
    part = json.loads((tmp_path / "partial" / "results.json").read_text())
    assert part["missing"] == ["narrow-lr0.01-seed1"] and part["gap"]["n"] == 1
    # a committed cell with other settings is trained again, with a warning
    other = dataclasses.replace(config, steps=12, extend=0, seeds=(0,), export=False)
    with pytest.warns(UserWarning, match="other settings"):
        run(other, tmp_path / "c", size="smoke")
    assert len(CALLS) == 5


def test_cell_result_reads_every_status():
    ok = CellResult.of({"status": "ok", "val": {"bpc": 1.5}, "params": 7})
    assert ok.ok and ok.status is Status.OK and ok.score("val", "bpc") == 1.5
    assert ok.get("params") == 7 and ok["params"] == 7 and math.isnan(ok.score("test", "bpc"))
    gone = CellResult.of(None)
    assert gone.status is Status.MISSING and not gone.ok and gone.get("status") == "missing"
    bad = CellResult.of({"status": "diverged", "val": {"bpc": 1.0}})
    assert bad.status is Status.DIVERGED and math.isnan(bad.score("val", "bpc"))
    assert CellResult.of(ok) is ok and Status.OK == "ok"
    with pytest.raises(ValueError, match="status must be one of"):
        CellResult.of({"status": "finished"})
    assert protocol.best_lr({1e-3: bad, 3e-3: ok, 1e-2: None}) == 3e-3


def test_paired_gap_against_a_hand_computed_t_interval():
    a = {0: 1.0, 1: 2.5, 2: 4.0, 3: math.nan}
    b = {0: 0.5, 1: 1.0, 2: 1.0, 4: 9.0}
    g = protocol.paired(a, b, (0, 1, 2, 3, 4), 0.9)
    d = np.array([0.5, 1.5, 3.0])  # seed 3 is not finite, seed 4 is unpaired
    half = sps.t.ppf(0.95, 2) * d.std(ddof=1) / math.sqrt(3)
    assert g["n"] == 3 and g["mean"] == approx(d.mean())
    assert list(g["ci"]) == approx([d.mean() - half, d.mean() + half])
    assert protocol.paired({0: 1.0}, {0: 0.0}, (0,), 0.9)["ci"] is None


def test_seeds_at_the_best_lr_in_either_order():
    fams = (Family("a", "softmax"), Family("b", "softmax"), Family("c", "softmax"))
    best = {"a": 1e-3, "b": None, "c": 3e-3}

    def make(f, lr, s):
        return TrainCell(name=f"{f.name}-lr{lr:g}-seed{s}", model="softmax", config="tiny", seed=s)

    by_seed = protocol.at_best(fams, best, (0, 1), make)
    assert [c.name for c in by_seed] == ["a-lr0.001-seed0", "c-lr0.003-seed0",
                                         "a-lr0.001-seed1", "c-lr0.003-seed1"]
    by_family = protocol.at_best(fams, best, (0, 1), make, by_seed=False, skip=by_seed[:1])
    assert [c.name for c in by_family] == ["a-lr0.001-seed1", "c-lr0.003-seed0",
                                           "c-lr0.003-seed1"]


def test_shared_fields_are_checked():
    with pytest.raises(ValueError, match="lrs and seeds"):
        Config(seeds=())
    with pytest.raises(ValueError, match="extend"):
        Config(extend=-1)
    b = protocol.budget(Config(tokens_per_param=2.0, batch_size=4, seq_len=8, evals=5), 100)
    # 200 tokens, 32 per step: 7 steps, rounded up to a multiple of 5 evaluations
    assert b == {"tokens": 320, "target_tokens": 200, "steps": 10, "warmup_steps": 0,
                 "eval_every": 2}

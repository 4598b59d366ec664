"""``--from-results``: the committed results of kws, linear and agreement rebuild their tables alone."""

import json
from pathlib import Path

import pytest

from syncattn import cli
from syncattn.experiments import kws, linear


REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "results" / "experiments"


def assert_same(got, want, where=""):
    """Equal JSON values, floats to 1e-12 relative: a rebuild on another CPU or numpy may
    round the last digit of a sum differently (seen on a Fisher p-value, 16th digit)."""
    if isinstance(want, float) and isinstance(got, float):
        assert got == pytest.approx(want, rel=1e-12, abs=0.0), where
    elif isinstance(want, dict) and isinstance(got, dict):
        assert got.keys() == want.keys(), where
        for k in want:
            assert_same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{i}]")
    else:
        assert got == want, where


def test_assert_same_tolerates_the_last_digit_only():
    assert_same({"p": [0.0013407499032238172]}, {"p": [0.0013407499032238167]})
    with pytest.raises(AssertionError):
        assert_same({"p": [0.00134075]}, {"p": [0.00134074]})
    with pytest.raises(AssertionError):
        assert_same({"p": 1.0, "q": 2}, {"p": 1.0})


@pytest.mark.parametrize("name, folder, keys", [
    ("kws", "kws/kws-default", ("rows", "table", "gap", "params")),
    ("linear", "linear/linear-default", ("linear_minus_elu1",)),
    ("agreement", "agreement/agreement-full", ("rows", "table", "paired_hard_gain",
                                               "fisher_between_models", "missing")),
    ("kws", "kws/kws-frozen-wv", ("rows", "table", "gap", "comparisons")),
    ("agreement", "agreement/agreement-ablations", ("rows", "table", "comparisons", "missing")),
])  # fmt: skip
def test_committed_results_rebuild_their_table(tmp_path, name, folder, keys):
    """The rebuild from result.json files alone equals what the run wrote (no data are
    generated and nothing is trained: it takes seconds)."""
    src = COMMITTED / folder
    out = tmp_path / "out"
    assert cli.main(["experiment", name, "--from-results", str(src), "--out", str(out), "--quiet"]) == 0
    got, want = (json.loads(p.read_text()) for p in (out / "results.json", src / "results.json"))
    for k in keys:
        assert_same(got[k], want[k], k)
    assert got["rebuilt_from"] == str(src)
    assert (out / f"{name}.png").is_file() and (out / "runs.csv").is_file()


def test_linear_rebuild_reports_what_is_not_committed(tmp_path):
    # the committed linear folder holds the linear and published-elu1 cells only (the
    # softplus and softmax rows of docs/experiments.md were not re-run in issue 15)
    linear.rebuild(COMMITTED / "linear" / "linear-default", tmp_path)
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["ppl"]["linear"]["n"] == 2 and res["ppl"]["softplus"]["n"] == 0
    assert sorted(res["missing"]) == ["oscillator-d32-p1-seed0", "oscillator-d32-p1-seed1",
                                      "softmax-seed0", "softmax-seed1"]


def test_rebuild_refuses_another_experiments_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a kws config"):
        kws.rebuild(COMMITTED / "linear" / "linear-default", tmp_path)


BYTE_FOR_BYTE = ("ladder/ladder-default", "ladder/ladder-budget100", "dosc_law/dosc_law-default")


@pytest.mark.slow
@pytest.mark.parametrize("folder", BYTE_FOR_BYTE)
def test_committed_tables_rebuild_byte_for_byte(tmp_path, folder):
    """Every table and plot the committed run wrote is rebuilt byte for byte from its cells
    (``results.json`` up to its ``rebuilt_from``, which names the source; ``config.json``
    up to the revision and the time it was written)."""
    src = COMMITTED / folder
    name = folder.split("/")[0]
    out = tmp_path / "out"
    assert cli.main(["experiment", name, "--from-results", str(src), "--out", str(out), "--quiet"]) == 0
    written = sorted(p.name for p in out.iterdir() if p.is_file())
    committed = sorted(p.name for p in src.iterdir() if p.is_file())
    assert written == committed
    for f in written:
        got, want = (out / f).read_bytes(), (src / f).read_bytes()
        if f == "config.json":
            assert json.loads(got)["config"] == json.loads(want)["config"]
            continue
        if f == "results.json":
            mark = b'"rebuilt_from": '
            assert got.count(mark) == want.count(mark) == 1
            assert want.replace(mark + b"null", mark + json.dumps(str(src)).encode()) == got
            continue
        assert got == want, f


@pytest.mark.slow
@pytest.mark.parametrize("folder", BYTE_FOR_BYTE)
def test_committed_cells_are_the_cells_the_code_builds(folder):
    """Every committed cell of the folder records the settings the current code gives
    that cell, so a run from a checkout adopts it instead of training it again."""
    from syncattn.experiments import _protocol, get
    from syncattn.experiments._from_results import committed_config
    from syncattn.experiments._protocol._committed import _same_cell

    src = COMMITTED / folder
    module = get(folder.split("/")[0])
    config, _ = committed_config(module, src)
    fetch = _protocol.committed_fetch(src)
    cells, results, best = module.walk(config, fetch)
    if module.NAME == "ladder":
        more = module._items.ablation_cells(config, best)
        cells, results = cells + more, results + fetch(more)
    assert {c.name for c in cells} == {p.name for p in (src / "runs").iterdir()}
    for c, r in zip(cells, results, strict=True):
        assert r.ok and _same_cell(c, r.data), c.name

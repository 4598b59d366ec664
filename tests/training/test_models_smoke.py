"""The issue's done-when, per model: train tiny on the embedded corpus, resume, eval BPC."""

import json
import shutil

import pytest

from syncattn import cli
from syncattn.training import list_checkpoints, read_log


def _curve(run):
    return [(r["kind"], r["step"], r["loss"]) for r in read_log(run / "log.jsonl")]


# the CLI round trip of every model; softmax by default, the other two (~10 s each) are
# slow (CI runs them, .ci/run): their layers are tested end to end in tests/models
@pytest.mark.parametrize(
    "attention",
    ["softmax", *(pytest.param(m, marks=pytest.mark.slow) for m in ("oscillator", "kuramoto"))],
)
def test_train_resume_eval_each_model(tmp_path, attention, capsys):
    run = tmp_path / attention
    argv = ["train", "--model", attention, "--config", "tiny", "--steps", "6", "--out", str(run),
            "--quiet", "batch_size=4", "seq_len=32", "eval_every=3", "ckpt_every=3",
            "log_every=1", "eval_batches=2", "dropout=0.1"]
    assert cli.main(argv) == 0
    first = _curve(run)
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [6, 3]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["model"]["attention"] == attention and cfg["params"] > 0
    # lose the last checkpoint: the same command resumes from step 3 and redoes 4..6
    shutil.rmtree(run / "checkpoints" / "step_00000006")
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert "resumed from" in capsys.readouterr().err
    assert _curve(run) == first
    assert cli.main(["eval", str(run), "--batches", "2"]) == 0
    assert "bpc" in capsys.readouterr().out

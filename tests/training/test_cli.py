"""The run-folder commands: train, resume, mismatch errors, eval, sample, report."""

import json

from syncattn import cli, data
from syncattn.training import read_log
from tests.training.conftest import train_cli as _train


ARGS = ("--steps", "12", "batch_size=4", "seq_len=16", "eval_every=6", "ckpt_every=6",
        "log_every=2", "eval_batches=2")


def test_train_resume_eval_sample_report(tmp_path, small_text, tiny_models, capsys):
    run = tmp_path / "run"
    assert _train(run, small_text, *ARGS) == 0
    assert "val bpc" in capsys.readouterr().out
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["model"]["attention"] == "softmax" and cfg["model"]["vocab_size"] == 256
    assert cfg["train"]["steps"] == 12 and cfg["train"]["batch_size"] == 4
    assert cfg["data"]["name"] == "text" and cfg["params"] > 0
    assert (run / "revision").read_text().strip()
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "step_00000006", "step_00000012"]
    log = read_log(run / "log.jsonl")
    assert [r["step"] for r in log if r["kind"] == "eval"] == [6, 12]

    # the same command again: resumes, finds the run complete, changes nothing
    assert _train(run, small_text, *ARGS) == 0
    assert read_log(run / "log.jsonl") == log
    # a truncated latest checkpoint: reported, set aside, and the run redone from step 6
    blob = run / "checkpoints" / "step_00000012" / "state.eqx"
    blob.write_bytes(blob.read_bytes()[:100])
    capsys.readouterr()
    assert _train(run, small_text, *ARGS) == 0
    err = capsys.readouterr().err
    assert "step_00000012 is unreadable" in err and "Falling back to step_00000006" in err
    assert (run / "checkpoints" / "corrupt-step_00000012").is_dir()
    assert [(r["step"], r["loss"]) for r in read_log(run / "log.jsonl")] == [
        (r["step"], r["loss"]) for r in log
    ]
    # bookkeeping may change on resume; the maths may not
    # (each key once: a duplicate is an error, see tests/training/test_faults.py)
    assert _train(run, small_text, *[a for a in ARGS if a != "log_every=2"], "log_every=3") == 0
    assert _train(run, small_text, *ARGS, "lr=0.5") == 2
    err = capsys.readouterr().err
    assert "train.lr" in err and "new --out" in err

    assert cli.main(["eval", str(run), "--batches", "3"]) == 0
    out = capsys.readouterr().out
    assert "bpc" in out and "step 12" in out
    assert json.loads((run / "eval.json").read_text())["val"]["step"] == 12

    assert cli.main(["sample", str(run), "--prompt", "line ", "--length", "20", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("line ")
    assert "=== step 12" in (run / "samples.txt").read_text()

    rep = tmp_path / "rep"
    assert cli.main(["report", str(run), "--out", str(rep)]) == 0
    md = (rep / "report.md").read_text()
    assert "| run |" in md and "BPC" in md
    full = json.loads((run / "eval.json").read_text())["val"]["bpc"]
    assert f"{full:.4f} BPC (step 12)" in md
    assert (rep / "loss_curves.png").stat().st_size > 1000


def test_clear_errors(tmp_path, small_text, tiny_models, capsys):
    assert _train(tmp_path / "a", small_text, "nonsense_key=3") == 2
    assert "unknown config key 'nonsense_key'" in capsys.readouterr().err
    assert _train(tmp_path / "a", tmp_path / "missing.txt") == 2
    assert "missing.txt" in capsys.readouterr().err
    assert _train(tmp_path / "a", small_text, "seq_len=1000") == 2
    assert "max_len" in capsys.readouterr().err
    # a diverging run stops with exit status 3 and says what to do
    assert _train(tmp_path / "nan", small_text, "--steps", "30", "batch_size=4", "seq_len=16",
                  "lr=1e30", "warmup_steps=0", "clip_norm=None", "ckpt_every=1") == 3
    err = capsys.readouterr().err
    assert "non-finite loss" in err and "last good checkpoint is step_" in err
    assert cli.main(["eval", str(tmp_path / "nowhere")]) == 2
    assert "not a run folder" in capsys.readouterr().err
    assert cli.main(["train", "--model", "bogus"]) == 2
    assert cli.main(["report", str(tmp_path / "nowhere")]) == 2


def test_data_options_pass_through(tmp_path, small_text, tiny_models, capsys):
    run = tmp_path / "r"
    assert _train(run, small_text, "--steps", "2", "batch_size=2", "seq_len=8",
                  "data.val_fraction=0.2") == 0
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["data"]["options"] == {"val_fraction": 0.2}
    # eval reloads the corpus with the run's options: the val split is 20% of the file
    assert cli.main(["eval", str(run), "--batch-size", "1"]) == 0
    n_val = data.load_corpus("text", small_text, val_fraction=0.2).val.size
    assert json.loads((run / "eval.json").read_text())["val"]["tokens"] == (n_val - 1) // 8 * 8
    assert _train(tmp_path / "s", small_text, "data.bogus=1") == 2
    assert "bogus" in capsys.readouterr().err

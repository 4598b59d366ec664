"""The sphere and group models through the one training path (issue 28 §4): ``syncattn
train --model sphere|group`` with dotted ``sync.*`` overrides, resume, eval, sample; the
run folder's config.json holds the nested ``sync`` and reads back to the same config."""

import json
import shutil

import pytest

from syncattn import cli, models
from syncattn.training import list_checkpoints, read_config, read_log


def _curve(run):
    return [(r["kind"], r["step"], r["loss"]) for r in read_log(run / "log.jsonl")]


# ~25 s each on 2 cores (compiling the train, eval and sample steps): slow
# (tests/slow_cases.txt), CI runs them
@pytest.mark.parametrize(
    ("attention", "sync"),
    [("sphere", ["sync.sphere_dim=3"]),
     ("group", ["sync.group=so3", "sync.readout=vonmises"])],
)
def test_train_resume_eval_sample(tmp_path, attention, sync, capsys):
    run = tmp_path / attention
    argv = ["train", "--model", attention, "--config", "tiny", "--steps", "4", "--out", str(run),
            "--quiet", "batch_size=2", "seq_len=16", "eval_every=2", "ckpt_every=2",
            "log_every=1", "eval_batches=1", *sync]
    assert cli.main(argv) == 0
    first = _curve(run)
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [4, 2]
    cfg = json.loads((run / "config.json").read_text())
    assert cfg["model"]["attention"] == attention and isinstance(cfg["model"]["sync"], dict)
    spec = read_config(run)
    want = dict(s.split("=") for s in sync)
    assert all(str(getattr(spec.model.sync, k.split(".")[1])) == v for k, v in want.items())
    # lose the last checkpoint: the same command resumes from step 2 and redoes 3..4
    shutil.rmtree(run / "checkpoints" / "step_00000004")
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert "resumed from" in capsys.readouterr().err
    assert _curve(run) == first
    assert cli.main(["eval", str(run), "--batches", "1"]) == 0
    assert "bpc" in capsys.readouterr().out
    assert cli.main(["sample", str(run), "--length", "8", "--prompt", "ab"]) == 0
    assert capsys.readouterr().out.strip()


def test_unknown_sync_key_and_bad_combination_exit_2(tmp_path, capsys):
    base = ["train", "--config", "tiny", "--steps", "1", "--out", str(tmp_path / "r"), "--quiet"]
    assert cli.main([*base, "--model", "sphere", "sync.sphere_dm=3"]) == 2
    assert "did you mean 'sphere_dim'" in capsys.readouterr().err
    assert cli.main([*base, "--model", "sphere", "ffn=swiglu"]) == 2
    assert "ffn must be 'lift' or 'none'" in capsys.readouterr().err
    assert cli.main([*base, "--model", "group", "sync.group=u2", "compute_dtype=bfloat16"]) == 2
    assert "bfloat16" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_old_config_json_without_sync_reads_back(tmp_path):
    cfg = models.get_config("tiny", attention="kuramoto")
    from syncattn.training import RunSpec, TrainConfig

    spec = RunSpec(model=cfg, data={"name": "embedded", "kind": "byte"}, train=TrainConfig())
    raw = json.loads(json.dumps(spec.to_json()))
    assert raw["model"]["sync"]["readout"] == "prototype"
    assert RunSpec(model=raw["model"], data=raw["data"], train=raw["train"]).model == cfg
    raw["model"].pop("sync")  # a folder written before the sub-config
    assert RunSpec(model=raw["model"], data=raw["data"], train=raw["train"]).model == cfg

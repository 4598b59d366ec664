"""Kill-and-resume: a SIGKILLed run resumed with the same command equals the uninterrupted one."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from syncattn.training import list_checkpoints, read_log


ROOT = Path(__file__).resolve().parents[2]


def _cmd(out, steps=40):
    return [sys.executable, "-m", "tests.training._train_script", str(out), "--steps", str(steps)]


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT), **extra)
    env.pop("XLA_FLAGS", None)
    return env


def _losses(run):
    return {r["step"]: r["loss"] for r in read_log(run / "log.jsonl") if r["kind"] == "train"}


def test_sigkill_mid_run_then_resume_is_bit_identical(tmp_path):
    ref, run = tmp_path / "ref", tmp_path / "run"
    # the uninterrupted reference, run alongside
    ref_proc = subprocess.Popen(
        _cmd(ref), cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    # the same command, slowed down so that the kill lands mid-run, then SIGKILL
    proc = subprocess.Popen(
        _cmd(run), cwd=ROOT, env=_env(SYNCATTN_DEBUG_STEP_DELAY="0.1"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 240
    while not any(s >= 20 for s, _ in list_checkpoints(run / "checkpoints")):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no checkpoint appeared"
        time.sleep(0.05)
    time.sleep(0.35)  # a few steps past the checkpoint
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    killed_at = max(_losses(run))
    assert killed_at < 40, "the kill must land before the end"

    resumed = subprocess.run(
        _cmd(run), check=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300
    )
    line = next(ln for ln in resumed.stderr.splitlines() if ln.startswith("resumed from"))
    start = int(line.rsplit("step ", 1)[1].rstrip(")"))
    assert killed_at - start <= 10, "lost more than one checkpoint interval"
    assert start >= 20

    assert ref_proc.wait(timeout=300) == 0, ref_proc.stderr.read()
    ref_losses, run_losses = _losses(ref), _losses(run)
    assert sorted(run_losses) == list(range(1, 41))
    assert run_losses == ref_losses  # bit for bit: JSON floats round-trip exactly
    ref_eval = [r for r in read_log(ref / "log.jsonl") if r["kind"] == "eval"]
    run_eval = [r for r in read_log(run / "log.jsonl") if r["kind"] == "eval"]
    assert [(r["step"], r["loss"]) for r in run_eval] == [(r["step"], r["loss"]) for r in ref_eval]

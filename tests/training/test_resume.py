"""Kill-and-resume: a SIGKILLed `syncattn train` resumed with the same command equals the
uninterrupted run bit for bit (model, optimiser state, step and dropout key round-trip)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from syncattn.training import list_checkpoints, read_log


ROOT = Path(__file__).resolve().parents[2]
STEPS, EVERY = 24, 6


def _cmd(out):
    return [
        sys.executable, "-m", "syncattn.cli", "train", "--model", "softmax", "--config", "tiny",
        "--steps", str(STEPS), "--out", str(out), "--quiet", "batch_size=4", "seq_len=32",
        f"eval_every={EVERY}", f"ckpt_every={EVERY}", "log_every=1", "eval_batches=2",
        "keep=2", "dropout=0.1",
    ]


def _env(cache, **extra):
    # the resumed process reuses the compiled programs (a persistent cache: same code)
    env = dict(
        os.environ, PYTHONPATH=str(ROOT), JAX_COMPILATION_CACHE_DIR=str(cache),
        JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
        JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0", **extra,
    )
    env.pop("XLA_FLAGS", None)
    return env


def _losses(run):
    return {r["step"]: r["loss"] for r in read_log(run / "log.jsonl") if r["kind"] == "train"}


@pytest.mark.slow  # two real training processes (~21 s); CI runs it (.ci/run)
def test_sigkill_mid_run_then_resume_is_bit_identical(tmp_path):
    ref, run = tmp_path / "ref", tmp_path / "run"
    # the uninterrupted reference, run alongside
    ref_proc = subprocess.Popen(
        _cmd(ref), cwd=ROOT, env=_env(tmp_path / "cache"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    # the same command, slowed down so that the kill lands mid-run, then SIGKILL
    proc = subprocess.Popen(
        _cmd(run), cwd=ROOT, env=_env(tmp_path / "cache", SYNCATTN_DEBUG_STEP_DELAY="0.1"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while not any(s >= 2 * EVERY for s, _ in list_checkpoints(run / "checkpoints")):
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "no checkpoint appeared"
        time.sleep(0.05)
    time.sleep(0.3)  # a few steps past the checkpoint
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    killed_at = max(_losses(run))
    assert killed_at < STEPS, "the kill must land before the end"

    resumed = subprocess.run(
        _cmd(run), check=True, cwd=ROOT, env=_env(tmp_path / "cache"), capture_output=True, text=True, timeout=300
    )
    line = next(ln for ln in resumed.stderr.splitlines() if ln.startswith("resumed from"))
    start = int(line.rsplit("step ", 1)[1].rstrip(")"))
    assert start >= 2 * EVERY
    assert killed_at - start <= EVERY, "lost more than one checkpoint interval"

    assert ref_proc.wait(timeout=300) == 0, ref_proc.stderr.read()
    ref_losses, run_losses = _losses(ref), _losses(run)
    assert sorted(run_losses) == list(range(1, STEPS + 1))
    assert run_losses == ref_losses  # bit for bit: JSON floats round-trip exactly
    ref_eval = [r for r in read_log(ref / "log.jsonl") if r["kind"] == "eval"]
    run_eval = [r for r in read_log(run / "log.jsonl") if r["kind"] == "eval"]
    assert [(r["step"], r["loss"]) for r in run_eval] == [(r["step"], r["loss"]) for r in ref_eval]
    # the final checkpoints hold the same bytes
    for name in ("step_00000024", "step_00000018"):
        a = (ref / "checkpoints" / name / "state.eqx").read_bytes()
        assert a == (run / "checkpoints" / name / "state.eqx").read_bytes()

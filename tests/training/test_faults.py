"""Faults and bad input at the command line (issue 17): one test per cause.

1. OS errors (a file as --out, a read-only file system, a full disk) give one message
   and exit status 6, never a traceback; a full disk while a checkpoint is written
   leaves the previous checkpoint loadable, nothing partial, and an exact resume.
2. Everything is validated before anything is written.
3. A broken config.json is named in the message.
4. Duplicate keys, --batch-size 0, a huge --length, a non-UTF-8 --prompt and a
   classifier preset are refused.
5. One training process per run folder (an OS lock; a killed holder does not block).
6. No silent restart after every checkpoint was quarantined (--restart).
7. SIGINT / SIGTERM finish the step, save, exit 130 / 143, and resume exactly.
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import equinox as eqx
import numpy as np
import pytest

from syncattn import _failures, cli, data
from syncattn.training import (
    _files,
    list_checkpoints,
    load_run,
    parse_overrides,
    read_log,
)
from syncattn.training._load import _prompt_ids
from tests.training.conftest import train_cli


ROOT = Path(__file__).resolve().parents[2]
ARGS = ("--steps", "12", "batch_size=4", "seq_len=16", "eval_every=6", "ckpt_every=6",
        "log_every=1", "eval_batches=2")

# a child process running the command line with the stand-in model (fast to compile)
CHILD = (
    "import sys\n"
    "from syncattn import cli, models\n"
    "from tests.training._standin import TinyLM\n"
    "models.build = lambda cfg, *, key: TinyLM(cfg.vocab_size, key=key)\n"
    "sys.exit(cli.main(sys.argv[1:]))\n"
)


def _train_child(out, corpus, delay: str):
    """`syncattn train ... ARGS` into `out` in a child process, `delay` s per step."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SYNCATTN_DEBUG_STEP_DELAY=delay)
    env.pop("XLA_FLAGS", None)
    argv = ["train", "--model", "softmax", "--config", "tiny", "--data", "text",
            "--data-path", str(corpus), "--out", str(out), "--quiet", *ARGS]
    return subprocess.Popen([sys.executable, "-c", CHILD, *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(what, proc, timeout=120):
    deadline = time.monotonic() + timeout
    while not what():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def _losses(run):
    return [(r["step"], r["loss"]) for r in read_log(run / "log.jsonl") if r["kind"] == "train"]


def _leftovers(run):
    """Temporaries anywhere under the run folder."""
    return [p for p in Path(run).rglob("*") if p.name.startswith((".tmp-", ".old-"))]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One finished 12-step run (stand-in model) and its corpus; tests copy it."""
    from syncattn import models
    from tests.training._standin import TinyLM

    root = tmp_path_factory.mktemp("trained")
    corpus = root / "corpus.txt"
    corpus.write_text("".join(
        f"line {i % 7} says {'abc'[i % 3] * (i % 5 + 1)}.\n" for i in range(600)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(models, "build", lambda cfg, *, key: TinyLM(cfg.vocab_size, key=key))
        assert train_cli(root / "run", corpus, *ARGS) == 0
    return root / "run", corpus


@pytest.fixture
def run_copy(trained, tmp_path):
    run, corpus = trained
    dst = tmp_path / "run"
    shutil.copytree(run, dst)
    return dst, corpus


# --------------------------------------------------------------------------- 1. OS errors


def test_out_is_a_file(tmp_path, small_text, tiny_models, capsys):
    out = tmp_path / "afile"
    out.write_text("mine")
    assert train_cli(out, small_text, *ARGS) == 2
    err = capsys.readouterr().err
    assert f"--out {out} is a file, not a folder" in err
    assert out.read_text() == "mine"
    assert train_cli(out / "run", small_text, *ARGS) == 2
    assert f"{out} is a file, not a folder" in capsys.readouterr().err


def test_report_out_is_a_file(run_copy, tmp_path, capsys):
    run, _ = run_copy
    out = tmp_path / "rep"
    out.write_text("mine")
    assert cli.main(["report", str(run), "--out", str(out)]) == 2
    assert f"--out {out} is a file, not a folder" in capsys.readouterr().err
    assert out.read_text() == "mine"


def _mount_tmpfs(path: Path, size: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                       capture_output=True)
    return r.returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@pytest.fixture
def read_only(run_copy, tmp_path):
    """A copy of the finished run on a read-only file system (a tmpfs remounted ro, as
    root), else in a folder without write permission (EACCES, as a normal user)."""
    run, corpus = run_copy
    disk = tmp_path / "ro"
    if _mount_tmpfs(disk, "4m"):
        shutil.copytree(run, disk / "run")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        yield disk, corpus, "EROFS"
        _umount(disk)
    elif os.geteuid() != 0:
        shutil.copytree(run, disk / "run")
        for p in [disk, *disk.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        yield disk, corpus, "EACCES"
        for p in [disk, *disk.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    else:
        pytest.skip("root without mount: no way to make a read-only folder")


def test_read_only_file_system(read_only, tiny_models, tmp_path, capsys):
    disk, corpus, code = read_only
    run = disk / "run"
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    # a fresh run, a re-run of the finished one, eval and sample: status 6, one message
    assert train_cli(disk / "new", corpus, *ARGS) == 6
    err = capsys.readouterr().err
    assert f"({code})" in err and str(disk / "new") in err and "Traceback" not in err
    assert not (disk / "new").exists()
    assert train_cli(run, corpus, *ARGS) == 6
    err = capsys.readouterr().err
    assert f"({code})" in err and str(run) in err
    assert cli.main(["eval", str(run), "--batches", "2"]) == 6
    out, err = capsys.readouterr()
    assert "bpc" in out and "step 12" in out  # the score is printed before the write fails
    assert f"({code})" in err and "the score above was not recorded in eval.json" in err
    assert cli.main(["sample", str(run), "--prompt", "line ", "--length", "5"]) == 6
    out, err = capsys.readouterr()
    assert out.startswith("line ") and "not recorded in samples.txt" in err
    # reading is fine: a report of the read-only run into a writable folder
    assert cli.main(["report", str(run), "--out", str(tmp_path / "rep")]) == 0
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def _fill(disk: Path) -> Path:
    """Fill the file system of `disk` up to the last byte."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError as e:
            assert e.errno == errno.ENOSPC
    return filler


def test_disk_full_during_checkpoint_write_tmpfs(trained, tmp_path, tiny_models, capsys):
    """A real full disk: a tmpfs with room for one checkpoint, not two."""
    ref, corpus = trained
    ckpt_bytes = sum(p.stat().st_size for p in (ref / "checkpoints" / "step_00000006").iterdir())
    disk = tmp_path / "disk"
    size_kib = (3 * ckpt_bytes // 2 + 48 * 1024) // 1024
    if not _mount_tmpfs(disk, f"{size_kib}k"):
        pytest.skip("cannot mount a tmpfs here (needs root); the injected ENOSPC test runs")
    try:
        run = disk / "run"
        assert train_cli(run, corpus, *ARGS) == 6
        err = capsys.readouterr().err
        assert "No space left on device (ENOSPC)" in err and "Traceback" not in err
        assert "newest complete checkpoint is step_00000006" in err
        assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [6]
        assert _leftovers(run) == []
        assert load_run(run)[3] == 6
        # eval and a resume on the full disk: a message each, nothing changed
        filler = _fill(disk)
        log = (run / "log.jsonl").read_bytes()
        assert cli.main(["eval", str(run), "--batches", "1"]) == 6
        out, err = capsys.readouterr()
        assert "step 6" in out and "ENOSPC" in err and "not recorded in eval.json" in err
        assert train_cli(run, corpus, *ARGS) == 6
        assert "ENOSPC" in capsys.readouterr().err
        assert (run / "log.jsonl").read_bytes() == log and _leftovers(run) == []
        # space again: the same command resumes and ends with the reference's losses
        filler.unlink()
        subprocess.run(["mount", "-o", f"remount,size={4 * size_kib}k", str(disk)], check=True)
        assert train_cli(run, corpus, *ARGS) == 0
        assert "resumed from" in capsys.readouterr().err
        assert _losses(run) == _losses(ref)
    finally:
        _umount(disk)


def test_disk_full_during_checkpoint_write_injected(trained, tmp_path, tiny_models,
                                                    monkeypatch, capsys):
    """ENOSPC injected in the middle of the second checkpoint's data (runs everywhere)."""
    ref, corpus = trained
    real = eqx.tree_serialise_leaves
    calls = []

    def disk_fills(f, tree):
        calls.append(1)
        if len(calls) == 2:
            f.write(b"\0" * 4096)  # part of the data reached the disk
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(f, tree)

    monkeypatch.setattr(eqx, "tree_serialise_leaves", disk_fills)
    run = tmp_path / "run"
    assert train_cli(run, corpus, *ARGS) == 6
    err = capsys.readouterr().err
    assert "No space left on device (ENOSPC)" in err and "step_00000012" in err
    assert "newest complete checkpoint is step_00000006" in err and "Free some space" in err
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [6]
    assert _leftovers(run) == []
    monkeypatch.setattr(eqx, "tree_serialise_leaves", real)
    assert load_run(run)[3] == 6
    assert train_cli(run, corpus, *ARGS) == 0
    assert _losses(run) == _losses(ref)


def test_atomic_write_and_append_leave_old_content_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "f.json"
    _files.atomic_write(path, "old")

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_files.os, "replace", full)
    with pytest.raises(OSError) as e:
        _files.atomic_write(path, "new")
    assert e.value.filename == str(path)
    monkeypatch.undo()
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["f.json"]

    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"a": 1}\n{"b": 2')  # a torn line left by a killed process
    _files.append_line(log, '{"c": 3}')
    assert log.read_bytes() == b'{"a": 1}\n{"c": 3}\n'

    class HalfWrite:
        def __init__(self, f):
            self.f = f

        def __getattr__(self, name):
            return getattr(self.f, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, raw):
            self.f.write(raw[: len(raw) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_files, "open", lambda *a: HalfWrite(open(*a)), raising=False)
    with pytest.raises(OSError):
        _files.append_line(log, '{"d": 4}')
    assert log.read_bytes() == b'{"a": 1}\n{"c": 3}\n'


def test_stale_temporaries_are_cleaned(run_copy, tiny_models, capsys):
    run, corpus = run_copy
    (run / ".tmp-1-ab-config.json").write_text("{")
    tmp_ckpt = run / "checkpoints" / ".tmp-1-ab-step_00000018"
    tmp_ckpt.mkdir()
    (tmp_ckpt / "state.eqx").write_bytes(b"partial")
    # killed between the two renames of a checkpoint replacement: only the parked copy
    (run / "checkpoints" / "step_00000012").rename(run / "checkpoints" / ".old-step_00000012-99")
    assert train_cli(run, corpus, *ARGS) == 0
    err = capsys.readouterr().err
    assert "removed what an interrupted process left" in err
    assert _leftovers(run) == []
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [12, 6]
    assert load_run(run)[3] == 12


def test_error_messages_and_exit_codes(monkeypatch, capsys):
    from syncattn.training import CheckpointError, TrainingDiverged
    from syncattn.training._files import RunBusy

    cases = [
        (ValueError("bad"), 2), (TypeError("bad"), 2), (FileNotFoundError("no data"), 2),
        (TrainingDiverged("nan"), 3), (CheckpointError("none"), 4), (RunBusy("busy"), 5),
        (OSError(errno.ENOSPC, "No space left on device", "/d/f"), 6),
        (OSError(errno.EROFS, "Read-only file system", "/d"), 6),
        (PermissionError(errno.EACCES, "Permission denied", "/d"), 6),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/f/x"), 6),
        (FileExistsError(errno.EEXIST, "File exists", "/f"), 6),
        (KeyboardInterrupt(), 130), (KeyError("x"), 1), (MemoryError(), 1),
    ]
    for err, code in cases:
        got, message = _failures.describe(err, "train")
        assert got == code, (err, got)
        assert message.startswith("syncattn train: ")
    _, msg = _failures.describe(OSError(errno.ENOSPC, "No space left on device", "/d/f"), "x")
    assert "(ENOSPC): /d/f" in msg and "Free some space" in msg
    _, msg = _failures.describe(KeyError("x"), "x")
    assert "--debug" in msg and "bug" in msg

    def boom():
        raise KeyError("x")

    assert _failures.run_command("x", boom) == 1
    assert "unexpected error KeyError" in capsys.readouterr().err
    with pytest.raises(KeyError):
        _failures.run_command("x", boom, debug=True)
    monkeypatch.setenv("SYNCATTN_DEBUG", "1")
    with pytest.raises(KeyError):
        _failures.run_command("x", boom)


def test_debug_flag_shows_the_traceback(tmp_path):
    with pytest.raises(FileNotFoundError):
        cli.main(["eval", str(tmp_path / "nowhere"), "--debug"])


# --------------------------------------------------------------------------- 2. validate first


def test_validation_comes_before_any_write(tmp_path, small_text, tiny_models, capsys):
    out = tmp_path / "run"
    short = tmp_path / "short.txt"
    short.write_text("abcdefghij0123456789")
    assert train_cli(out, short, *ARGS, "data.val_fraction=0.5") == 2
    err = capsys.readouterr().err
    assert "the training split of corpus 'text' has 10 tokens, fewer than one window of " \
           "seq_len + 1 = 17 (a split must hold more than seq_len = 16 tokens)" in err
    # which file, and how big: a short file is named with its size and its splits' sizes
    assert f"The corpus: UTF-8 file {short} (last 0.5 as val), 20 bytes = tokens " \
           "(10 train, 10 val)." in err
    assert not out.exists()
    n_val = data.load_corpus("text", small_text, val_fraction=0.001).val.size
    assert n_val < 17
    assert train_cli(out, small_text, *ARGS, "data.val_fraction=0.001") == 2
    err = capsys.readouterr().err
    assert f"the validation split of corpus 'text' has {n_val} tokens" in err
    assert f"UTF-8 file {small_text} (last 0.001 as val), {small_text.stat().st_size:,} bytes" in err
    assert "data.val_fraction" in err
    assert not out.exists()
    assert train_cli(out, small_text, *ARGS, "--seed", "-1") == 2
    assert "seed (--seed) must lie in [0, 4294967294]; got -1" in capsys.readouterr().err
    assert not out.exists()
    assert cli.main(["train", "--model", "oscillator", "--config", "paper-b-sva", "--data",
                     "text", "--data-path", str(small_text), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "'paper-b-sva' is a classifier preset" in err and "paper-b-lm" in err
    assert not out.exists()
    # the corrected retry runs
    assert train_cli(out, small_text, *ARGS) == 0


def test_folder_without_checkpoint_is_taken_over(tmp_path, small_text, tiny_models, capsys):
    """A failed first attempt that saved nothing does not block the corrected retry."""
    out = tmp_path / "run"
    assert train_cli(out, small_text, *ARGS, "--seed", "1") == 0  # (the same compiled step)
    assert train_cli(out, small_text, *ARGS, "--seed", "2") == 2  # it holds checkpoints
    assert "holds a different run" in capsys.readouterr().err
    shutil.rmtree(out / "checkpoints")  # as if it had died before its first checkpoint
    assert train_cli(out, small_text, *ARGS, "--seed", "2") == 0
    assert "holds no checkpoint, so nothing of the run it described is kept" in \
        capsys.readouterr().err
    assert json.loads((out / "config.json").read_text())["train"]["seed"] == 2


# --------------------------------------------------------------------------- 3. broken config.json


@pytest.mark.parametrize("content, says", [
    ("{not json", "is not valid JSON"),
    ("{}", "is not a run config: it lacks the section(s) model, data, train"),
    ('{"model": {}, "data": {"name": "text", "kind": "byte"}, "train": {"batch_size": 0}}',
     "holds an invalid run config"),
])
def test_broken_config_json_is_named(run_copy, tiny_models, tmp_path, capsys, content, says):
    run, corpus = run_copy
    (run / "config.json").write_text(content)
    for argv in (["eval", str(run)], ["sample", str(run), "--length", "3"],
                 ["report", str(run), "--out", str(tmp_path / "rep")]):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{run / 'config.json'} {says}" in err and "Traceback" not in err
    # training into it is refused too: it holds checkpoints
    assert train_cli(run, corpus, *ARGS) == 2
    assert str(run / "config.json") in capsys.readouterr().err


# --------------------------------------------------------------------------- 4. unchecked inputs


def test_duplicate_override_keys(tmp_path, small_text, tiny_models, capsys):
    out = tmp_path / "run"
    for dup in (("lr=1e-3", "lr=2e-3"), ("lr=1e-3", "train.lr=2e-3"),
                ("data.val_fraction=0.1", "data.val_fraction=0.2")):
        assert train_cli(out, small_text, *ARGS, *dup) == 2
        assert f"is given twice ({dup[0]!r} and {dup[1]!r})" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(ValueError, match="model.d_model is given twice"):
        parse_overrides(["d_model=8", "model.d_model=8"], {"model": ["d_model"]})
    assert parse_overrides(["data.x=1", "lr=2"], {"train": ["lr"], "data": None}) == {
        "train": {"lr": 2}, "data": {"x": 1}}


def test_eval_and_sample_bounds(run_copy, tiny_models, capsys):
    run, _ = run_copy
    assert cli.main(["eval", str(run), "--batch-size", "0"]) == 2
    assert "batch_size (--batch-size) must be an int >= 1; got 0" in capsys.readouterr().err
    assert cli.main(["eval", str(run), "--batches", "0"]) == 2
    assert "max_batches (--batches) must be an int >= 1; got 0" in capsys.readouterr().err
    t0 = time.perf_counter()
    assert cli.main(["sample", str(run), "--length", str(10**12)]) == 2
    assert time.perf_counter() - t0 < 5  # refused up front, nothing allocated
    assert "length (--length) must be an int in [0, 100,000]" in capsys.readouterr().err
    assert cli.main(["sample", str(run), "--num", "0"]) == 2
    assert "num_samples (--num)" in capsys.readouterr().err
    # a prompt that is not UTF-8 (argv decoded with surrogateescape, as Python does)
    assert cli.main(["sample", str(run), "--prompt", "ab\udcff", "--length", "3"]) == 2
    err = capsys.readouterr().err
    assert "the prompt (--prompt) is not valid UTF-8: bytes b'\\xff' at character 2" in err
    assert not (run / "samples.txt").exists()


def test_prompt_checked_against_the_vocabulary():
    vocab = ("<pad>", "<bos>", "<eos>", "<unk>", "the", "cat")
    rows = np.asarray([[1, 4, 5, 2], [1, 5, 4, 2]], np.int32)
    corpus = data.Corpus("w", "word", 6, rows, rows, None, pad_id=0, vocab=vocab,
                         tokenizer="wikitext2", bos_id=1, eos_id=2, unk_id=3)
    said = []
    ids = _prompt_ids(corpus, "The cat sat", 6, said.append)
    assert ids.tolist() == [4, 5, 3]
    assert said and "1 of 3 words are not in the run's vocabulary" in said[0] and "'sat'" in said[0]
    with pytest.raises(ValueError, match="token id 5, outside this run's vocabulary of 5"):
        _prompt_ids(corpus, "the cat", 5, said.append)


# --------------------------------------------------------------------------- 5. one trainer per folder


def _hold_lock(path):
    """A child process that takes the run lock with `filelock`, then waits."""
    proc = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time, filelock\n"
         "lock = filelock.FileLock(sys.argv[1], timeout=0)\n"
         "lock.acquire()\n"
         "print('held', flush=True)\n"
         "time.sleep(600)\n", str(path)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_lock_of_a_killed_process_does_not_block(tmp_path, small_text, tiny_models, capsys):
    out = tmp_path / "run"
    out.mkdir()
    holder = _hold_lock(out / ".lock")
    try:
        assert train_cli(out, small_text, *ARGS) == 5
        err = capsys.readouterr().err
        assert f"{out} is in use by another process" in err and "another --out" in err
        assert not (out / "config.json").exists()
    finally:
        holder.kill()
        holder.wait()
    assert (out / ".lock").exists()  # the stale file stays; the kernel dropped the lock
    assert train_cli(out, small_text, *ARGS) == 0


@pytest.mark.slow  # two processes: ~30 s on a loaded 2-core machine; .ci/run runs it
def test_two_trainers_into_one_folder(trained, tmp_path, tiny_models, capsys):
    ref, corpus = trained
    out = tmp_path / "run"
    first = _train_child(out, corpus, "0.5")
    try:
        _wait_for((out / "config.json").exists, first)  # written while holding the lock
        assert train_cli(out, corpus, *ARGS) == 5
        assert "is in use by another process" in capsys.readouterr().err
        assert first.wait(timeout=300) == 0, first.communicate()
    finally:
        first.kill()
    steps = [r["step"] for r in read_log(out / "log.jsonl") if r["kind"] == "train"]
    assert steps == list(range(1, 13))  # every step once
    assert [s for s, _ in list_checkpoints(out / "checkpoints")] == [12, 6]
    assert load_run(out)[3] == 12


# --------------------------------------------------------------------------- 6. no silent restart


def test_no_silent_restart_when_every_checkpoint_is_corrupt(run_copy, trained, tiny_models,
                                                            capsys):
    run, corpus = run_copy
    for _, path in list_checkpoints(run / "checkpoints"):
        blob = path / "state.eqx"
        blob.write_bytes(blob.read_bytes()[:100])
    log = (run / "log.jsonl").read_bytes()
    assert train_cli(run, corpus, *ARGS) == 4
    err = capsys.readouterr().err
    assert "no readable checkpoint" in err and "--restart" in err
    # the second attempt does not restart silently either
    assert train_cli(run, corpus, *ARGS) == 4
    err = capsys.readouterr().err
    assert "every checkpoint in" in err and "corrupt-step_00000012, corrupt-step_00000006" in err
    assert (run / "log.jsonl").read_bytes() == log
    assert cli.main(["eval", str(run)]) == 4
    capsys.readouterr()
    # asked for: it starts again from step 0 (and, deterministic, ends where it did)
    assert train_cli(run, corpus, *ARGS, "--restart") == 0
    assert "--restart: no readable checkpoint" in capsys.readouterr().err
    assert _losses(run) == _losses(trained[0])
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "corrupt-step_00000006", "corrupt-step_00000012", "step_00000006", "step_00000012"]


# --------------------------------------------------------------------------- 7. signals


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_finishes_the_step_saves_and_resumes(trained, tmp_path, tiny_models,
                                                    monkeypatch, capsys, sig, code):
    ref, corpus = trained
    real = data.sample_batch

    def batch(tokens, *, seed, step, **kw):
        if step == 8:  # the signal lands while step 9 is being computed
            os.kill(os.getpid(), sig)
        return real(tokens, seed=seed, step=step, **kw)

    monkeypatch.setattr(data, "sample_batch", batch)
    run = tmp_path / "run"
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    assert train_cli(run, corpus, *ARGS) == code
    err = capsys.readouterr().err
    name = signal.Signals(sig).name
    assert f"stopped by {name} after step 9 of 12" in err
    assert "checkpoint step_00000009 is saved" in err and "Run the same command" in err
    assert [s for s, _ in list_checkpoints(run / "checkpoints")] == [9, 6]
    assert _leftovers(run) == []
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
    monkeypatch.setattr(data, "sample_batch", real)
    assert train_cli(run, corpus, *ARGS) == 0
    assert "(step 9)" in capsys.readouterr().err
    assert _losses(run) == _losses(ref)


@pytest.mark.slow  # a child process: ~25 s on a loaded 2-core machine; .ci/run runs it
def test_ctrl_c_in_a_real_process(trained, tmp_path):
    """The command line in its own process: SIGINT mid-run gives status 130, a message
    saying where the run stands, no traceback, and a checkpoint of the last step."""
    _, corpus = trained
    out = tmp_path / "run"
    proc = _train_child(out, corpus, "0.3")
    _wait_for(lambda: list_checkpoints(out / "checkpoints"), proc)
    time.sleep(0.4)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped by SIGINT after step" in err
    step = int(err.split("stopped by SIGINT after step ")[1].split()[0])
    assert 6 < step < 12
    assert list_checkpoints(out / "checkpoints")[0][0] == step
    assert _leftovers(out) == []

"""The one loop trains the classifier as it trains the LM: a crash or a signal mid-epoch
resumes to the uninterrupted run bit for bit, a NaN stops with `TrainingDiverged`, the
run folder is locked; and a `Task` is checked when it is made."""

import dataclasses
import os
import signal

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import models, training as T
from syncattn.data import sva
from syncattn.training._files import run_lock


EPOCHS, PER_EPOCH = 2, 3


@pytest.fixture(scope="module")
def setup():
    cfg_m = models.get_config("paper-b-sva", attention="softmax", d_model=16, d_ff=32,
                              dropout=0.1)
    model = models.build(cfg_m, key=jax.random.key(3))
    splits = {"train": sva.generate_sva(16 * PER_EPOCH + 5, 0), "val": sva.generate_sva(24, 1)}
    cfg = T.TrainConfig(steps=EPOCHS * PER_EPOCH, batch_size=16, lr=5e-3, warmup_steps=1,
                        seed=5, keep=3)
    return model, cfg, splits


def _records(run):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in T.read_log(run / "log.jsonl")]


def _same_model(a, b):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        if hasattr(x, "dtype"):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _task_and_config(cfg, splits):
    # what fit_classifier runs: the task, evaluated and saved at every epoch's end
    task = T.sva_task(cfg, splits, epochs=EPOCHS)
    return task, dataclasses.replace(cfg, eval_every=PER_EPOCH, ckpt_every=PER_EPOCH)


class _Crash(Exception):
    pass


def test_classifier_crash_mid_epoch_resumes_identically(tmp_path, setup):
    model, cfg, splits = setup
    ref = T.fit_classifier(model, cfg, splits, tmp_path / "ref", epochs=EPOCHS, log=lambda m: None)
    task, tcfg = _task_and_config(cfg, splits)

    def crashing(step):
        if step == PER_EPOCH + 1:  # inside epoch 2
            raise _Crash
        return task.sample_batch(step)

    with pytest.raises(_Crash):
        T.fit(model, tcfg, dataclasses.replace(task, sample_batch=crashing), tmp_path / "run",
              progress=False, log=lambda m: None)
    assert [r["epoch"] for r in _records(tmp_path / "run")] == [1]
    res = T.fit_classifier(model, cfg, splits, tmp_path / "run", epochs=EPOCHS, log=lambda m: None)
    assert res["resumed_from"] == PER_EPOCH
    assert _records(tmp_path / "run") == _records(tmp_path / "ref")
    assert res["val"] == ref["val"] and res["step"] == ref["step"] == EPOCHS * PER_EPOCH
    _same_model(res["model"], ref["model"])
    # a finished run called again does nothing and reports the logged end state
    again = T.fit_classifier(model, cfg, splits, tmp_path / "run", epochs=EPOCHS, log=lambda m: None)
    assert again["resumed_from"] == EPOCHS * PER_EPOCH and again["val"] == ref["val"]
    # ... and evaluates the restored model if the log is gone
    (tmp_path / "run" / "log.jsonl").unlink()
    again = T.fit_classifier(model, cfg, splits, tmp_path / "run", epochs=EPOCHS, log=lambda m: None)
    assert again["val"] == ref["val"]


def test_classifier_signal_mid_epoch_resumes_identically(tmp_path, setup):
    """SIGINT inside epoch 2: the step finishes, a checkpoint of it is saved with the
    epoch's losses so far, and the resumed run logs the same epoch mean as one run."""
    model, cfg, splits = setup
    ref = T.fit_classifier(model, cfg, splits, tmp_path / "ref", epochs=EPOCHS, log=lambda m: None)
    task, tcfg = _task_and_config(cfg, splits)
    stop_at = PER_EPOCH + 1  # the second step of epoch 2

    def signalling(step):
        if step == stop_at - 1:
            os.kill(os.getpid(), signal.SIGINT)
        return task.sample_batch(step)

    with pytest.raises(T.TrainingInterrupted) as err:
        T.fit(model, tcfg, dataclasses.replace(task, sample_batch=signalling), tmp_path / "run",
              progress=False, log=lambda m: None, stop_on_signal=True)
    assert err.value.step == stop_at and err.value.exit_code == 130
    assert [s for s, _ in T.list_checkpoints(tmp_path / "run" / "checkpoints")] == [stop_at, PER_EPOCH]
    pending = [r for r in T.read_log(tmp_path / "run" / "log.jsonl") if r["kind"] == "train_losses"]
    assert [(r["step"], len(r["losses"])) for r in pending] == [(stop_at, 1)]
    res = T.fit_classifier(model, cfg, splits, tmp_path / "run", epochs=EPOCHS,
                           log=lambda m: None, stop_on_signal=True)
    assert res["resumed_from"] == stop_at
    evals = lambda run: [r for r in _records(run) if r["kind"] == "eval"]  # noqa: E731
    assert evals(tmp_path / "run") == evals(tmp_path / "ref")  # the epoch mean included
    assert res["val"] == ref["val"]
    _same_model(res["model"], ref["model"])


def test_classifier_divergence_is_the_lms_error(tmp_path, setup):
    model, cfg, splits = setup
    bad = dataclasses.replace(cfg, lr=1e30, clip_norm=None, warmup_steps=0)
    with pytest.raises(T.TrainingDiverged, match=r"non-finite loss.*new --out") as err:
        T.fit_classifier(model, bad, splits, tmp_path, epochs=EPOCHS, log=lambda m: None)
    assert err.value.exit_code == 3 and isinstance(err.value, RuntimeError)


def test_classifier_run_folder_is_locked(tmp_path, setup):
    model, cfg, splits = setup
    with run_lock(tmp_path), pytest.raises(T.RunBusy, match="in use"):
        T.fit_classifier(model, cfg, splits, tmp_path, epochs=EPOCHS, log=lambda m: None)
    assert not (tmp_path / "checkpoints").exists()


def _constant_loss(model, batch, key):
    return jnp.sum(batch["x"]) * 0.0


def test_task_is_checked_when_made():
    ok = dict(loss=_constant_loss, sample_batch=lambda s: {"x": np.zeros(2)},
              evaluate=lambda m, d: {"m": 0.0}, metrics=("m",))
    T.Task(**ok)
    with pytest.raises(TypeError, match="hashable"):
        T.Task(**{**ok, "loss": type("L", (), {"__call__": lambda *a: 0.0, "__hash__": None})()})
    with pytest.raises(ValueError, match="metrics"):
        T.Task(**{**ok, "metrics": ()})
    with pytest.raises(TypeError, match="sample_batch must be callable"):
        T.Task(**{**ok, "sample_batch": 3})
    with pytest.raises(TypeError, match="corpus"):
        T.fit(None, T.TrainConfig(), T.Task(**ok), "unused", sample_batch=lambda *a, **k: 0)

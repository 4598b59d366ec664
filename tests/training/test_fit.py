"""The loop: resume after an interruption equals one run; NaN stops and keeps the checkpoint."""

import jax
import numpy as np
import pytest

from syncattn import training as T
from syncattn.data import eval_batches, sample_batch
from tests.training._standin import DATA, TinyLM, toy_corpus


def _cfg(**kw):
    base = dict(steps=24, batch_size=4, seq_len=12, lr=1e-2, warmup_steps=3,
                eval_every=8, ckpt_every=8, log_every=1, eval_batches=2, keep=2,
                compute_dtype="float32")
    return T.TrainConfig(**{**base, **kw})


def _losses(run):
    return {r["step"]: r["loss"] for r in T.read_log(run / "log.jsonl") if r["kind"] == "train"}


class _Interrupt(Exception):
    pass


def test_interrupted_then_resumed_equals_uninterrupted(tmp_path):
    corpus = toy_corpus()
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(0), dropout=0.2)
    ref = T.fit(model, _cfg(), corpus, tmp_path / "ref", progress=False, **DATA)

    def crashing(tokens, *, step, **kw):
        if step == 19:
            raise _Interrupt
        return sample_batch(tokens, step=step, **kw)

    with pytest.raises(_Interrupt):
        T.fit(model, _cfg(), corpus, tmp_path / "run", progress=False,
              sample_batch=crashing, eval_batches=eval_batches)
    assert max(_losses(tmp_path / "run")) == 19
    messages = []
    res = T.fit(model, _cfg(), corpus, tmp_path / "run", progress=False, log=messages.append, **DATA)
    assert res["resumed_from"] == 16 and "step 16" in messages[0]
    assert _losses(tmp_path / "run") == _losses(tmp_path / "ref")
    assert res["eval"]["loss"] == ref["eval"]["loss"]
    for a, b in zip(jax.tree.leaves(res["model"]), jax.tree.leaves(ref["model"])):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    # a finished run resumed again does nothing and reports its end state
    again = T.fit(model, _cfg(), corpus, tmp_path / "run", progress=False, **DATA)
    assert again["step"] == 24 and again["loss"] == _losses(tmp_path / "ref")[24]
    assert again["eval"]["loss"] == ref["eval"]["loss"]


def test_nonfinite_loss_stops_and_keeps_the_last_good_checkpoint(tmp_path):
    corpus = toy_corpus()
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(0))
    T.fit(model, _cfg(steps=8), corpus, tmp_path, progress=False, **DATA)
    before = (tmp_path / "checkpoints" / "step_00000008" / "state.eqx").read_bytes()

    def poisoned(tokens, *, step, **kw):  # an out-of-range id gives a NaN loss at step 11
        batch = sample_batch(tokens, step=step, **kw)
        if step == 10:
            batch[0, 3] = 10**6
        return batch

    with pytest.raises(T.TrainingDiverged, match=r"step 11.*step_00000008.*new --out"):
        T.fit(model, _cfg(steps=16), corpus, tmp_path, progress=False,
              sample_batch=poisoned, eval_batches=eval_batches)
    ckpts = T.list_checkpoints(tmp_path / "checkpoints")
    assert [s for s, _ in ckpts] == [8]
    assert (ckpts[0][1] / "state.eqx").read_bytes() == before


def test_huge_learning_rate_diverges_with_a_clear_message(tmp_path):
    corpus = toy_corpus()
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(0))
    with pytest.raises(T.TrainingDiverged, match="non-finite loss"):
        T.fit(model, _cfg(lr=1e30, warmup_steps=0, clip_norm=None, steps=30, ckpt_every=1),
              corpus, tmp_path, progress=False, **DATA)
    assert T.list_checkpoints(tmp_path / "checkpoints")  # the good ones are kept

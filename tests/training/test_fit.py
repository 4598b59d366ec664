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


HORIZONS = ((0, 24), (8, 20))


def _replanned(tmp_path, asked, seen=None):
    """The loop of `_cfg()` (24 steps) with a `replan` that shortens it to 20 at step 8
    (`seen` collects what `on_replan` is given)."""
    corpus = toy_corpus()
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(0), dropout=0.2)

    def replan(progress):
        asked.append(dict(progress))
        return 20 if progress["step"] == 8 else None

    def on_replan(record, horizons):  # with the re-plan lines logged so far
        logged = [r for r in T.read_log(tmp_path / "ref" / "log.jsonl") if r["kind"] == "replan"]
        seen.append((record, horizons, len(logged)))

    ref = T.fit(model, _cfg(), corpus, tmp_path / "ref", progress=False, replan=replan,
                on_replan=None if seen is None else on_replan, **DATA)  # fmt: skip
    return corpus, model, replan, ref


def test_a_re_plan_re_aims_the_schedule(tmp_path):
    """`replan` (a --minutes run's) is asked after each evaluation but the last; its new
    step count re-aims the schedule from that step (the horizons of `lr_schedule`) and
    is logged."""
    asked, seen = [], []
    corpus, model, _, ref = _replanned(tmp_path, asked, seen)
    assert ref["step"] == 20 and [a["step"] for a in asked] == [8, 16]
    assert [a["steps"] for a in asked] == [24, 20]
    assert all(a["step_s"] > 0 and a["eval_s"] > 0 for a in asked)
    assert asked[0]["ckpt_s"] > 0 and asked[0]["eval_every"] == 8
    records = T.read_log(tmp_path / "ref" / "log.jsonl")
    (rec,) = [r for r in records if r["kind"] == "replan"]
    assert (rec["step"], rec["was"], rec["steps"]) == (8, 24, 20)
    # on_replan is given the logged record and the checked horizons, once, before the
    # record is logged (config.json first: a crash between never logs an unfollowed plan)
    assert seen == [({k: v for k, v in rec.items() if k != "kind"}, HORIZONS, 0)]
    # the logged rate: the old schedule up to step 8, the re-aimed one after
    new = T.lr_schedule(_cfg(steps=20), HORIZONS)
    old = T.lr_schedule(_cfg())
    for r in records:
        if r["kind"] == "train":
            want = float((old if r["step"] <= 8 else new)(r["step"] - 1))
            assert r["lr"] == pytest.approx(want, rel=1e-6)
    assert max(r["step"] for r in records if r["kind"] == "eval") == 20
    with pytest.raises(ValueError, match="last horizon must be steps=24"):
        T.fit(model, _cfg(), corpus, tmp_path / "bad", progress=False, horizons=HORIZONS, **DATA)


@pytest.mark.slow
def test_a_re_planned_run_resumes_exactly(tmp_path):
    """A run interrupted after its re-plan, resumed with the recorded horizons (as
    `train_run` does from config.json), equals the uninterrupted one bit for bit."""
    asked = []
    corpus, model, replan, ref = _replanned(tmp_path, asked)

    def crashing(tokens, *, step, **kw):
        if step == 13:
            raise _Interrupt
        return sample_batch(tokens, step=step, **kw)

    with pytest.raises(_Interrupt):
        T.fit(model, _cfg(), corpus, tmp_path / "run", progress=False, replan=replan,
              sample_batch=crashing, eval_batches=eval_batches)
    asked.clear()
    res = T.fit(model, _cfg(steps=20), corpus, tmp_path / "run", progress=False,
                horizons=HORIZONS, replan=replan, **DATA)
    assert res["resumed_from"] == 8 and not asked  # a resumed run does not re-plan
    assert _losses(tmp_path / "run") == _losses(tmp_path / "ref")
    for a, b in zip(jax.tree.leaves(res["model"]), jax.tree.leaves(ref["model"])):
        assert np.array_equal(np.asarray(a), np.asarray(b))


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

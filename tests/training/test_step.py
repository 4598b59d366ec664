"""The loss, the train step and the evaluation against float64 NumPy loops."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn.training import (
    TrainConfig,
    auto_splits,
    evaluate,
    make_optimizer,
    make_train_step,
    metric_from_loss,
    next_token_loss,
    token_nll,
)
from tests.training._standin import DATA, TinyLM, toy_corpus

from ..helpers import approx, assert_close


def _numpy_nll(model, tokens):
    """-log softmax(model(x[:-1]))[t, x[t+1]] one row and one position at a time."""
    out = np.zeros((tokens.shape[0], tokens.shape[1] - 1))
    for b in range(tokens.shape[0]):
        logits = np.asarray(model(jnp.asarray(tokens[b, :-1])), dtype=np.float64)
        for t in range(tokens.shape[1] - 1):
            z = logits[t]
            out[b, t] = math.log(np.sum(np.exp(z - z.max()))) + z.max() - z[tokens[b, t + 1]]
    return out


def test_token_nll_and_padded_mean_match_numpy():
    model = TinyLM(7, key=jax.random.PRNGKey(1))
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 7, size=(3, 9)).astype(np.int32)
    ref = _numpy_nll(model, tokens)
    assert_close(token_nll(model, jnp.asarray(tokens)), ref)
    assert float(next_token_loss(model, jnp.asarray(tokens))) == approx(ref.mean(), scale=0.01)
    # pad id 0: its targets carry no loss; a row of pads counts for nothing
    tokens[1, 5:] = 0
    tokens[2, :] = 0
    ref = _numpy_nll(model, tokens)
    mask = tokens[:, 1:] != 0
    want = ref[mask].sum() / mask.sum()
    got = next_token_loss(model, jnp.asarray(tokens), pad_id=0)
    assert float(got) == approx(want, scale=0.01)


@pytest.mark.parametrize("splits", [1, 2, 3, 7, "auto"])
def test_token_nll_row_blocks_are_the_same_function(splits):
    """Row blocks: the numpy loss per row and position, the per-row dropout keys of the
    one-block call (the masks reproduced exactly), and the same parameter gradient."""
    model = TinyLM(7, key=jax.random.PRNGKey(1), dropout=0.5)
    rng = np.random.default_rng(3)
    tokens = jnp.asarray(rng.integers(0, 7, size=(5, 9)).astype(np.int32))
    got = token_nll(model, tokens, splits=splits)
    assert_close(got, _numpy_nll(model, np.asarray(tokens)))
    key = jax.random.PRNGKey(4)
    one = token_nll(model, tokens, key=key, splits=1)
    assert_close(token_nll(model, tokens, key=key, splits=splits), one)
    # each row with its own key of jax.random.split(key, B), evaluated alone
    keys = jax.random.split(key, 5)
    for b in range(5):
        row = token_nll(lambda x, key: model(x, key=keys[b]), tokens[b : b + 1], splits=1)
        assert_close(one[b], row[0])
    grad = lambda n: jax.grad(  # noqa: E731
        lambda m: next_token_loss(m, tokens, pad_id=0, key=key, splits=n)
    )(model)
    for a, b in zip(jax.tree.leaves(grad(1)), jax.tree.leaves(grad(splits))):
        assert_close(a, b)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "two"])
def test_token_nll_rejects_bad_splits(bad):
    model = TinyLM(7, key=jax.random.PRNGKey(1))
    with pytest.raises(ValueError, match="splits"):
        token_nll(model, jnp.zeros((2, 5), jnp.int32), splits=bad)


def test_auto_splits_follows_backend_devices_and_cores(monkeypatch):
    import os

    monkeypatch.setattr(jax, "default_backend", lambda: "cpu")
    monkeypatch.setattr(jax, "device_count", lambda: 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert (auto_splits(16), auto_splits(2), auto_splits(1)) == (2, 2, 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert auto_splits(16) == 1  # one core: nothing to run side by side
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(jax, "device_count", lambda: 2)
    assert auto_splits(16) == 1  # a mesh shards the batch itself
    monkeypatch.setattr(jax, "device_count", lambda: 1)
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert auto_splits(16) == 1


def test_metrics():
    assert metric_from_loss(math.log(2.0), "byte") == {"bpc": approx(1.0)}
    assert metric_from_loss(math.log(50.0), "word") == {"ppl": approx(50.0)}
    with pytest.raises(ValueError, match="kind"):
        metric_from_loss(1.0, "char")


def test_train_step_descends_and_skips_nonfinite():
    model = TinyLM(5, key=jax.random.PRNGKey(0))
    cfg = TrainConfig(steps=30, warmup_steps=0, lr=3e-2)
    opt = make_optimizer(cfg)
    step = make_train_step(opt, pad_id=None, compute_dtype="float64")
    opt_state = opt.init(model)
    tokens = jnp.asarray(np.tile(np.arange(5), (4, 3))[:, :12], jnp.int32)
    key = jax.random.PRNGKey(0)
    before = float(next_token_loss(model, tokens))
    m, o, k = model, opt_state, key
    for _ in range(30):
        m, o, k, metrics = step(m, o, k, tokens)
        assert bool(metrics["finite"])
    assert float(next_token_loss(m, tokens)) < 0.5 * before
    # a NaN parameter makes the loss NaN: the update is skipped, the state unchanged
    bad = eqx_replace(m, m.embed.at[0, 0].set(jnp.nan))
    m2, o2, _, metrics = step(bad, o, k, tokens)
    assert not bool(metrics["finite"])
    assert np.array_equal(np.asarray(m2.out.weight), np.asarray(bad.out.weight))
    for a, b in zip(jax.tree.leaves(o2), jax.tree.leaves(o)):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def eqx_replace(model, embed):
    import equinox as eqx

    return eqx.tree_at(lambda m: m.embed, model, embed)


def test_bfloat16_compute_is_close_to_float32():
    model = TinyLM(7, key=jax.random.PRNGKey(1))
    model = jax.tree.map(lambda x: x.astype(jnp.float32) if eqx_is_float(x) else x, model)
    tokens = jnp.asarray(np.random.default_rng(1).integers(0, 7, (4, 17)), jnp.int32)
    cfg = TrainConfig(steps=10, warmup_steps=0, lr=1e-2)
    out = {}
    for dt in ("float32", "bfloat16"):
        opt = make_optimizer(cfg)
        step = make_train_step(opt, pad_id=None, compute_dtype=dt)
        m, o, _, metrics = step(model, opt.init(model), jax.random.PRNGKey(0), tokens)
        assert m.embed.dtype == jnp.float32  # master weights stay float32
        out[dt] = float(metrics["loss"])
    assert out["bfloat16"] == approx(out["float32"], jnp.bfloat16)


def eqx_is_float(x):
    return hasattr(x, "dtype") and jnp.issubdtype(x.dtype, jnp.floating)


def test_evaluate_matches_numpy_over_the_split():
    corpus = toy_corpus(n=600)
    model = TinyLM(corpus.vocab_size, key=jax.random.PRNGKey(2))
    # batch 4 over 59 rows of 10 tokens: the last batch is short and gets padded
    res = evaluate(model, corpus.val, kind="byte", pad_id=None, batch_size=4, seq_len=10,
                   compute_dtype="float64", eval_batches=DATA["eval_batches"])
    rows = np.stack([corpus.val[i * 10 : i * 10 + 11] for i in range((len(corpus.val) - 1) // 10)])
    ref = _numpy_nll(model, rows.astype(np.int32))
    assert res["tokens"] == ref.size
    assert res["loss"] == approx(ref.mean())
    assert res["bpc"] == approx(ref.mean() / math.log(2))


def _weak_leaves(tree):
    import equinox as eqx

    return [
        jax.tree_util.keystr(p)
        for p, x in jax.tree_util.tree_leaves_with_path(eqx.filter(tree, eqx.is_inexact_array))
        if x is not None and x.weak_type
    ]


@pytest.mark.parametrize("attention", ["softmax", "oscillator", "kuramoto"])
def test_no_parameter_is_weakly_typed(attention):
    """A weak-typed parameter (e.g. `jnp.asarray(math.log(tau))`) comes back strongly typed
    from the first optimiser update, so the jit-compiled train step would be traced and
    compiled a second time (issue 18: the Kuramoto LM's log_tau and readout scale did)."""
    from syncattn import models

    m = models.build(models.get_config("tiny", attention=attention), key=jax.random.key(0))
    assert _weak_leaves(m) == []


@pytest.mark.slow
@pytest.mark.parametrize("attention", ["softmax", "oscillator", "kuramoto"])
def test_one_step_keeps_every_leaf_type_so_the_step_compiles_once(attention):
    import equinox as eqx

    from syncattn import models

    m = models.build(models.get_config("tiny", attention=attention), key=jax.random.key(0))
    opt = make_optimizer(TrainConfig.preset("tiny", batch_size=2, seq_len=8))
    step = make_train_step(opt, pad_id=None)
    state = (m, opt.init(eqx.filter(m, eqx.is_inexact_array)), jax.random.key(1))
    batch = jnp.asarray(np.random.default_rng(0).integers(0, 256, (2, 9)), jnp.int32)
    after = step(*state, batch)[:3]

    def avals(t):
        return [str(jax.typeof(x)) for x in jax.tree_util.tree_leaves(t) if eqx.is_array(x)]

    assert avals(after) == avals(state)


class _Complex(__import__("equinox").Module):
    """One complex and one real parameter: the loss is |w - c|^2 summed, plus (a - 1)^2."""

    w: jax.Array
    a: jax.Array


def _ls_loss(target):
    def loss(model, batch, key):
        return jnp.sum(jnp.abs(model.w - target) ** 2) + jnp.sum((model.a - 1.0) ** 2)

    return loss


def test_complex_parameters_descend_like_their_real_pair():
    """A complex parameter z = x + iy moves as the pair (x, y) would under plain gradient
    descent (the step conjugates `jax.grad`'s complex leaves), and AdamW drives a complex
    least-squares loss to 0 (without the conjugation its imaginary part climbs: at lr
    0.1, |w - c|^2 ~ 1e3 after 200 steps)."""
    import optax

    from syncattn.training import descent_gradient

    rng = np.random.default_rng(0)
    c = rng.normal(size=3) + 1j * rng.normal(size=3)
    w0 = rng.normal(size=3) + 1j * rng.normal(size=3)
    model = _Complex(jnp.asarray(w0), jnp.asarray([0.3]))
    lr = 0.1
    step = make_train_step(optax.sgd(lr), loss=_ls_loss(jnp.asarray(c)), compute_dtype="float64")
    m, _, _, metrics = step(model, optax.sgd(lr).init(model), jax.random.PRNGKey(0), jnp.zeros(1))
    # the real pair: L = (x - cx)^2 + (y - cy)^2, so x' = x - 2 lr (x - cx), same for y
    x = w0.real - 2 * lr * (w0.real - c.real)
    y = w0.imag - 2 * lr * (w0.imag - c.imag)
    assert_close(np.asarray(m.w), x + 1j * y, rtol=1e-12, atol=1e-14)
    assert_close(np.asarray(m.a), [0.3 - 2 * lr * (0.3 - 1.0)], rtol=1e-12, atol=1e-14)
    assert float(metrics["grad_norm"]) == approx(  # accumulated in float32
        math.sqrt(np.sum(4 * np.abs(w0 - c) ** 2) + 4 * 0.7**2), np.float32)
    # descent_gradient: conjugates complex leaves only
    g = descent_gradient({"z": jnp.asarray([1 + 2j]), "r": jnp.asarray([3.0]), "s": "static"})
    assert complex(g["z"][0]) == 1 - 2j and float(g["r"][0]) == 3.0 and g["s"] == "static"
    # the library's AdamW on the same loss converges
    opt = make_optimizer(TrainConfig(steps=200, warmup_steps=0, lr=0.1, weight_decay=0.0))
    step = make_train_step(opt, loss=_ls_loss(jnp.asarray(c)), compute_dtype="float64")
    m, o, k = model, opt.init(model), jax.random.PRNGKey(0)
    for _ in range(200):
        m, o, k, _ = step(m, o, k, jnp.zeros(1))
    assert np.max(np.abs(np.asarray(m.w) - c)) < 1e-2

"""The schedule and AdamW + clipping against hand-written float64 NumPy references."""

import math

import jax.numpy as jnp
import numpy as np
import optax
import pytest

from syncattn.training import TrainConfig, lr_schedule, make_optimizer, parse_overrides

from ..helpers import approx, assert_close


def _eta(s, cfg):
    S, w, peak = cfg.steps, min(cfg.warmup_steps, cfg.steps), cfg.lr
    low = peak * cfg.min_lr_ratio
    if s < w:
        return peak * s / w
    if S == w:
        return peak
    u = min(s - w, S - w) / (S - w)
    return low + 0.5 * (peak - low) * (1 + math.cos(math.pi * u))


@pytest.mark.parametrize(
    "steps,warmup,ratio", [(100, 10, 0.1), (50, 0, 0.0), (20, 20, 0.1), (30, 50, 0.5)]
)
def test_schedule_matches_closed_form(steps, warmup, ratio):
    cfg = TrainConfig(steps=steps, warmup_steps=warmup, lr=3e-3, min_lr_ratio=ratio)
    sched = lr_schedule(cfg)
    for s in range(steps + 5):
        assert float(sched(s)) == approx(_eta(s, cfg))  # float64 under x64: round-off


def _adamw_reference(grads_seq, theta0, cfg):
    """Float64 AdamW with global-norm clipping, written out from the equations."""
    theta = np.array(theta0, float)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    for s, g in enumerate(grads_seq, start=1):
        g = np.array(g, float)
        norm = np.sqrt(np.sum(g * g))
        g = g * min(1.0, cfg.clip_norm / norm)
        m = cfg.b1 * m + (1 - cfg.b1) * g
        v = cfg.b2 * v + (1 - cfg.b2) * g * g
        mhat = m / (1 - cfg.b1**s)
        vhat = v / (1 - cfg.b2**s)
        eta = _eta(s - 1, cfg)
        theta = theta - eta * (mhat / (np.sqrt(vhat) + cfg.eps) + cfg.weight_decay * theta)
    return theta


def test_adamw_with_clipping_matches_reference():
    cfg = TrainConfig(steps=6, warmup_steps=2, lr=0.1, weight_decay=0.05, clip_norm=0.5)
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=5) * scale for scale in (0.1, 3.0, 1.0, 0.01, 10.0, 0.3)]
    theta0 = rng.normal(size=5)
    theta = jnp.asarray(theta0)
    opt = make_optimizer(cfg)
    state = opt.init(theta)
    for g in grads:
        upd, state = opt.update(jnp.asarray(g), state, theta)
        theta = optax.apply_updates(theta, upd)
    # optax evaluates the schedule in float32: the learning rate carries float32
    # rounding (~1e-8), a tenth of float32's tolerance after six steps
    assert_close(theta, _adamw_reference(grads, theta0, cfg), np.float32, scale=0.1)


def test_config_validation_and_overrides():
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(lr=0.0)
    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(batch_size=0)
    with pytest.raises(ValueError, match="compute_dtype"):
        TrainConfig(compute_dtype="float16")
    assert TrainConfig.preset("tiny").batch_size == 8
    assert TrainConfig.preset("nonexistent") == TrainConfig()
    groups = {"train": ["lr", "seed"], "model": ["d_model", "seed"]}
    got = parse_overrides(["lr=1e-3", "d_model=64", "train.seed=3", "model.seed=4"], groups)
    assert got == {"train": {"lr": 1e-3, "seed": 3}, "model": {"d_model": 64, "seed": 4}}
    with pytest.raises(ValueError, match="unknown config key 'nope'"):
        parse_overrides(["nope=1"], groups)
    with pytest.raises(ValueError, match="prefix"):
        parse_overrides(["seed=1"], groups)
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_overrides(["lr"], groups)
    with pytest.raises(ValueError, match="unknown model key .lr."):
        parse_overrides(["model.lr=1"], groups)

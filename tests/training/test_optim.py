"""The schedule and AdamW + clipping against hand-written float64 NumPy references."""

import dataclasses
import math

import jax.numpy as jnp
import numpy as np
import optax
import pytest
from hypothesis import given, strategies as st

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


# --------------------------------------------------------------------------- re-planned horizons


def _eta_replanned(cfg, horizons, last):
    """The re-planned rate at steps 0..`last`, in float64, by a recursion that is not the
    closed form: after the warm-up each step covers an equal share of the phase still
    left until the horizon in force, $u(s+1) = u(s) + (1 - u(s)) / (S_k - s)$."""
    w = min(cfg.warmup_steps, cfg.steps)
    peak, low = cfg.lr, cfg.lr * cfg.min_lr_ratio
    starts = {max(s, w): S for s, S in horizons}  # the first plan starts at the warm-up
    out, u, S = [], 0.0, None
    for s in range(last + 1):
        if s < w:
            out.append(peak * s / w)
            continue
        S = starts.get(s, S)
        out.append(low + 0.5 * (peak - low) * (1 + math.cos(math.pi * min(u, 1.0))))
        u = u + (1.0 - u) / (S - s) if s < S else 1.0
    return np.array(out)


@st.composite
def horizons_st(draw):
    S0 = draw(st.integers(20, 400))
    w = draw(st.integers(0, S0 // 2))
    hs, s = [(0, S0)], w
    for _ in range(draw(st.integers(1, 3))):
        lo = max(s + 1, w) if len(hs) > 1 else max(w, 1)
        if lo >= hs[-1][1]:
            break
        s = draw(st.integers(lo, hs[-1][1] - 1))
        hs.append((s, draw(st.integers(s + 1, 2 * S0))))
    return w, tuple(hs)


@given(horizons_st(), st.sampled_from([0.0, 0.1, 0.5]))
def test_replanned_schedule_matches_the_recursion(wh, ratio):
    w, hs = wh
    cfg = TrainConfig(steps=hs[-1][1], warmup_steps=w, lr=3e-3, min_lr_ratio=ratio)
    sched = lr_schedule(cfg, hs)
    last = cfg.steps + 3
    # the schedule is elementwise: one call, on one shape for every example (the eager
    # ops compile once)
    steps = jnp.arange(1024)
    got = np.asarray(sched(steps))[: last + 1]
    assert_close(got, _eta_replanned(cfg, hs, last), rtol=1e-9, atol=1e-12)
    # each re-plan keeps the rates before it, and the rate is continuous at it
    for k in range(1, len(hs)):
        before = lr_schedule(dataclasses.replace(cfg, steps=hs[k - 1][1]), hs[:k])
        before = np.asarray(before(steps))
        s_k = hs[k][0]
        assert_close(got[: s_k + 1], before[: s_k + 1], rtol=1e-12, atol=1e-15)
        assert abs(got[s_k + 1] - got[s_k]) <= 4 * cfg.lr / (hs[k][1] - s_k)
    # it ends at the floor at the last horizon; past the warm-up it never rises
    assert got[cfg.steps] == approx(cfg.lr * ratio)
    assert np.all(np.diff(got[w:]) <= 1e-15)


def test_one_horizon_is_the_plain_schedule():
    cfg = TrainConfig(steps=120, warmup_steps=6, lr=1e-2, min_lr_ratio=0.1)
    plain, one = lr_schedule(cfg), lr_schedule(cfg, ((0, 120),))
    for s in range(130):
        assert float(one(s)) == float(plain(s))


@pytest.mark.parametrize("horizons,match", [
    (((1, 50),), "start at step 0"),
    (((0, 80), (30, 50), (30, 50)), "must follow"),
    (((0, 40), (45, 50)), "before its horizon"),
    (((0, 80), (5, 50)), "warmup_steps=10 <= s < S"),
    (((0, 80), (20, 60)), "last horizon must be steps=50"),
    (((0, 80), (20, 50.0)), "pairs of ints"),
])  # fmt: skip
def test_bad_horizons_are_refused(horizons, match):
    cfg = TrainConfig(steps=50, warmup_steps=10)
    with pytest.raises(ValueError, match=match):
        lr_schedule(cfg, horizons)

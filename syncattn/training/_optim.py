"""The optimiser: AdamW with linear warm-up, cosine decay and global-norm clipping (optax)."""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import optax

from ._config import TrainConfig


__all__ = ["lr_schedule", "make_optimizer", "check_horizons"]


def check_horizons(horizons: Sequence[Sequence[int]], config: TrainConfig) -> tuple[tuple[int, int], ...]:
    r"""`horizons` as a tuple of ``(s_k, S_k)`` int pairs, checked against `config`: the
    first is ``(0, S_0)``, $s_{k-1} < s_k < S_{k-1}$, each $S_k > s_k$, every $s_k$ of a
    re-plan ($k \ge 1$) lies at or past the warm-up, and the last horizon is
    ``config.steps``. ``()`` stays ``()`` (no re-plan)."""
    out = []
    for h in horizons:
        if (len(h) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in h)):
            raise ValueError(f"horizons must be (step, steps) pairs of ints; got {h!r}.")
        out.append((int(h[0]), int(h[1])))
    if not out:
        return ()
    w = min(config.warmup_steps, config.steps)
    if out[0][0] != 0:
        raise ValueError(f"horizons must start at step 0 (the first plan); got {out!r}.")
    for (s0, S0), (s1, _) in zip(out, out[1:]):
        if not s0 < s1 < S0:
            raise ValueError(
                f"horizons: each re-plan's step must follow the last one and come before "
                f"its horizon; got {out!r}."
            )
    for s, S in out:
        if not S > s or (s > 0 and s < w):
            raise ValueError(
                f"horizons: each re-plan (s, S) needs warmup_steps={w} <= s < S; got {out!r}."
            )
    if out[-1][1] != config.steps:
        raise ValueError(f"the last horizon must be steps={config.steps}; got {out!r}.")
    return tuple(out)


def lr_schedule(config: TrainConfig, horizons: Sequence[Sequence[int]] = ()) -> optax.Schedule:
    r"""The learning rate as a function of the step $s$ (0-based update count).

    $$\eta(s) = \begin{cases} \eta_{\max}\, s / s_w & s < s_w \\
      \eta_{\min} + \tfrac12(\eta_{\max}-\eta_{\min})
      \left(1 + \cos\frac{\pi \min(s - s_w,\, S - s_w)}{S - s_w}\right) & s \ge s_w \end{cases}$$

    with $\eta_{\max}$ = `config.lr`, $\eta_{\min} = \eta_{\max}\,$`config.min_lr_ratio`,
    $s_w$ = `min(config.warmup_steps, config.steps)`, $S$ = `config.steps`. Built
    from `optax.warmup_cosine_decay_schedule`; when $S = s_w$ the rate stays at
    $\eta_{\max}$ after the warm-up.

    **Re-planned horizons** (a ``--minutes`` run that re-plans,
    [`syncattn.training.Replanner`][]): `horizons` $= ((0, S_0), (s_1, S_1), \dots,
    (s_m, S_m))$ with $S_m$ = `config.steps` re-aims the decay at $S_k$ from step $s_k$
    on, continuing from the phase it had reached there: with $a_0 = s_w$, $a_k = s_k$,
    $u(a_0) = 0$ and, on $a_k \le s < a_{k+1}$,

    $$u(s) = u(a_k) + \bigl(1 - u(a_k)\bigr)\frac{s - a_k}{S_k - a_k},\qquad
      \eta(s) = \eta_{\min} + \tfrac12(\eta_{\max}-\eta_{\min})\bigl(1 + \cos \pi
      \min(u(s), 1)\bigr),$$

    so the rate is continuous at every $s_k$ and reaches $\eta_{\min}$ at $S_m$.
    Steps before $s_k$ keep the rate they had. ``horizons=()`` (or one horizon) is the
    plain schedule.
    """
    horizons = check_horizons(horizons, config)
    if len(horizons) > 1:
        return _replanned_schedule(config, horizons)
    steps = config.steps
    warmup = min(config.warmup_steps, steps)
    peak = float(config.lr)
    end = peak * float(config.min_lr_ratio)
    if warmup >= steps:  # all warm-up: 0 -> peak, then flat
        return optax.linear_schedule(0.0, peak, warmup)
    return optax.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=peak,
        warmup_steps=warmup,
        decay_steps=steps,
        end_value=end,
    )


def _replanned_schedule(config: TrainConfig, horizons) -> optax.Schedule:
    w = min(config.warmup_steps, config.steps)
    peak = float(config.lr)
    end = peak * float(config.min_lr_ratio)
    knots, u = [], 0.0  # (a_k, u(a_k), S_k), in Python floats (exact enough: float64)
    for k, (s, S) in enumerate(horizons):
        a = w if k == 0 else s
        if k:
            a_prev, u_prev, S_prev = knots[-1]
            u = u_prev + (1.0 - u_prev) * (a - a_prev) / (S_prev - a_prev)
        knots.append((a, u, S))

    def schedule(count):
        c = jnp.asarray(count, jnp.result_type(float))  # float64 under x64
        phase = jnp.zeros_like(c)
        for a, u_a, S in knots:
            seg = u_a + (1.0 - u_a) * (c - a) / (S - a)
            phase = jnp.where(c >= a, seg, phase)
        phase = jnp.clip(phase, 0.0, 1.0)
        decay = end + 0.5 * (peak - end) * (1.0 + jnp.cos(jnp.pi * phase))
        warm = peak * c / w if w > 0 else jnp.full_like(c, peak)
        return jnp.where(c < w, warm, decay)

    return schedule


def make_optimizer(config: TrainConfig, horizons: Sequence[Sequence[int]] = ()) -> optax.GradientTransformation:
    r"""AdamW on the clipped gradient, with the [`syncattn.training.lr_schedule`][].

    $$g \leftarrow g \min\!\left(1, \frac{c}{\lVert g\rVert_2}\right),\qquad
      m \leftarrow \beta_1 m + (1-\beta_1) g,\quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,$$
    $$\theta \leftarrow \theta - \eta(s)\left(\frac{\hat m}{\sqrt{\hat v}+\epsilon}
      + \lambda\theta\right)$$

    with $\hat m, \hat v$ the bias-corrected moments, $c$ = `config.clip_norm` (no
    clipping when ``None``), $\lambda$ = `config.weight_decay` applied to every
    parameter (as seed 001's code does). `horizons`: see [`syncattn.training.lr_schedule`][].
    """
    adamw = optax.adamw(
        learning_rate=lr_schedule(config, horizons),
        b1=config.b1,
        b2=config.b2,
        eps=config.eps,
        weight_decay=config.weight_decay,
    )
    if config.clip_norm is None:
        return adamw
    return optax.chain(optax.clip_by_global_norm(config.clip_norm), adamw)

"""The optimiser: AdamW with linear warm-up, cosine decay and global-norm clipping (optax)."""

from __future__ import annotations

import optax

from ._config import TrainConfig


__all__ = ["lr_schedule", "make_optimizer"]


def lr_schedule(config: TrainConfig) -> optax.Schedule:
    r"""The learning rate as a function of the step $s$ (0-based update count).

    $$\eta(s) = \begin{cases} \eta_{\max}\, s / s_w & s < s_w \\
      \eta_{\min} + \tfrac12(\eta_{\max}-\eta_{\min})
      \left(1 + \cos\frac{\pi \min(s - s_w,\, S - s_w)}{S - s_w}\right) & s \ge s_w \end{cases}$$

    with $\eta_{\max}$ = `config.lr`, $\eta_{\min} = \eta_{\max}\,$`config.min_lr_ratio`,
    $s_w$ = `min(config.warmup_steps, config.steps)`, $S$ = `config.steps`. Built
    from `optax.warmup_cosine_decay_schedule`; when $S = s_w$ the rate stays at
    $\eta_{\max}$ after the warm-up.
    """
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


def make_optimizer(config: TrainConfig) -> optax.GradientTransformation:
    r"""AdamW on the clipped gradient, with the [`syncattn.training.lr_schedule`][].

    $$g \leftarrow g \min\!\left(1, \frac{c}{\lVert g\rVert_2}\right),\qquad
      m \leftarrow \beta_1 m + (1-\beta_1) g,\quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,$$
    $$\theta \leftarrow \theta - \eta(s)\left(\frac{\hat m}{\sqrt{\hat v}+\epsilon}
      + \lambda\theta\right)$$

    with $\hat m, \hat v$ the bias-corrected moments, $c$ = `config.clip_norm` (no
    clipping when ``None``), $\lambda$ = `config.weight_decay` applied to every
    parameter (as seed 001's code does).
    """
    adamw = optax.adamw(
        learning_rate=lr_schedule(config),
        b1=config.b1,
        b2=config.b2,
        eps=config.eps,
        weight_decay=config.weight_decay,
    )
    if config.clip_norm is None:
        return adamw
    return optax.chain(optax.clip_by_global_norm(config.clip_norm), adamw)

r"""The model arms of seed 001's ablations, shared by the agreement and keyword-spotting
experiments: a model name is an attention plus the ablation options of
[`syncattn.models.ModelConfig`][] it switches on.

* ``"oscillator"``, ``"softmax"``: the two layers as published (the base cells);
* ``"oscillator-frozen-wv"``, ``"softmax-frozen-wv"``: $W_V$ frozen at its random
  initialisation (``freeze_values``; seed 001's keyword_spotting/frozen_value.py);
* ``"oscillator-l3"``: a learned anchor rotation by the distance $i - j$
  (``relative_rotation``, Appendix C L3);
* ``"oscillator-l4"``: a learned per-head, per-query coupling scale (``query_scale``,
  Appendix C L4).

A base model's cells keep their names and settings, so committed base cells are
adopted by the ablation runs.
"""

from __future__ import annotations

from typing import Any


VARIANTS: dict[str, dict[str, Any]] = {
    "oscillator": {"attention": "oscillator"},
    "softmax": {"attention": "softmax"},
    "oscillator-frozen-wv": {"attention": "oscillator", "freeze_values": True},
    "softmax-frozen-wv": {"attention": "softmax", "freeze_values": True},
    "oscillator-l3": {"attention": "oscillator", "relative_rotation": True},
    "oscillator-l4": {"attention": "oscillator", "query_scale": True},
}

# (a, b): the paired differences a - b reported when both arms ran
COMPARISONS: tuple[tuple[str, str], ...] = (
    ("oscillator", "softmax"),
    ("oscillator-frozen-wv", "oscillator"),
    ("softmax-frozen-wv", "softmax"),
    ("oscillator-frozen-wv", "softmax-frozen-wv"),
    ("oscillator-l3", "oscillator"),
    ("oscillator-l4", "oscillator"),
)


def variant_fields(model: str) -> dict[str, Any]:
    """The [`syncattn.models.ModelConfig`][] overrides of arm `model` (with ``attention``).

    Raises:
        ValueError: an unknown arm (listing the known ones).
    """
    if model not in VARIANTS:
        raise ValueError(f"models: unknown model {model!r} ({', '.join(VARIANTS)}).")
    return dict(VARIANTS[model])


def check_models(models, allowed=tuple(VARIANTS)) -> None:
    """Raise ValueError naming the first entry of `models` not in `allowed`."""
    for m in models:
        if m not in allowed:
            raise ValueError(f"models: unknown model {m!r} ({', '.join(allowed)}).")


def paired(values: dict, seeds, a: str, b: str, confidence: float) -> dict:
    r"""The paired difference $d_s = x_{a,s} - x_{b,s}$ over the seeds both arms finished:
    its mean, count and Student-t interval ([`syncattn.stats.t_interval`][]; ``None``
    below 2 pairs). `values` maps ``(model, seed)`` to a number."""
    import numpy as np

    from .. import stats

    d = [
        values[a, s] - values[b, s]
        for s in seeds
        if (a, s) in values and (b, s) in values
    ]
    d = [v for v in d if np.isfinite(v)]
    ci = stats.t_interval(d, confidence) if len(d) > 1 else None
    return {
        "a": a,
        "b": b,
        "n": len(d),
        "mean": float(np.mean(d)) if d else None,
        "ci": None if ci is None else [float(ci[0]), float(ci[1])],
    }


__all__ = ["VARIANTS", "COMPARISONS", "variant_fields", "check_models", "paired"]

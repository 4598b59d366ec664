r"""A model of a given size: the size rule of the compute-matched ladder.

For a target parameter count $N^\ast$ the rule picks

* the depth $L$ = 1 up to 30 k, 2 up to 140 k, 3 up to 280 k, 4 up to 3 M, 6 above
  (the 1m and 5m presets' depths; ``DEPTHS``);
* heads of width 16, $n_{heads} = d/16$;
* the Kuramoto model's feed-forward $d_{ff}$ = the multiple of 8 nearest
  $2.75\,d$ (the 1m preset's ratio; ties upwards);
* the width $d$ = the multiple of 16 whose Kuramoto count $N(d)$ minimises
  $|\ln(N(d)/N^\ast)|$;
* every other attention has the same $d$, $L$ and heads, and the multiple of 8 for its
  $d_{ff}$ that brings its count closest to the Kuramoto count; except that a
  synchronisation model's $k$ = ``d_model`` makes its lift $mk$ ($m$ its geometry's,
  [`geometry_of`][syncattn.models.geometry_of]: torus 2, sphere $n$, $SO(n)$ $n^2$)
  the Kuramoto lift $2d$ (nearest multiple of the heads; heads reduced to divide $k$):
  the same attention width, then the same $d_{ff}$ rule.

Counts are those of the real models ([`syncattn.models.config_params`][]), built on
the 1m preset (byte vocabulary unless told, ``max_len`` 256). The ladder experiment
(`syncattn.experiments.ladder`) trains these shapes; ``syncattn train --config auto``
builds the one its time budget affords (`syncattn.training.budget_spec`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

from ._build import config_params
from ._config import SYNC_ATTENTIONS, ModelConfig
from ._geometry import geometry_of
from ._presets import get_config


__all__ = [
    "depth_for_params",
    "shape_for_params",
    "config_for_params",
    "HEAD_WIDTH",
    "FF_RATIO",
    "DEPTHS",
]

HEAD_WIDTH = 16
FF_RATIO = 2.75
DEPTHS = ((30_000, 1), (140_000, 2), (280_000, 3), (3_000_000, 4))
"""``(upper bound on the target, depth)``; above the last bound, depth 6."""


def depth_for_params(target: int | float) -> int:
    """Depth $L$ of a model of about `target` parameters (``DEPTHS``; 6 above 3 M)."""
    return next((L for bound, L in DEPTHS if target <= bound), 6)


def _kuramoto_ff(d: int) -> int:
    return max(8, 8 * int(FF_RATIO * d / 8 + 0.5))


@functools.lru_cache(maxsize=512)
def _count(
    attention: str, d: int, L: int, ff: int, vocab: int, heads: int | None = None
) -> int:
    return config_params(
        get_config(
            "1m",
            attention=attention,
            d_model=d,
            n_layers=L,
            n_heads=heads or d // HEAD_WIDTH,
            d_ff=ff,
            vocab_size=vocab,
        )
    )


def _lift_width(attention: str) -> int | None:
    """Real coordinates $m$ per oscillator of `attention`'s geometry at the 1m preset's
    ``sync`` (torus 2, sphere $n$, $SO(n)$ $n^2$, $U(n)$ $2n^2$); None for the
    transformers."""
    if attention not in SYNC_ATTENTIONS:
        return None
    return geometry_of(get_config("1m", attention=attention)).m


def _width(attention: str, d: int) -> tuple[int, int]:
    """``(d_model, n_heads)`` of `attention` beside a Kuramoto model of width $d$: the
    same for the transformers; for a synchronisation model the $k$ whose lift $mk$
    ($m$ its geometry's) is nearest the Kuramoto lift $2d$ (a multiple of the heads
    $d/16$, which shrink to divide it; on the torus $k = d$)."""
    heads = d // HEAD_WIDTH
    m = _lift_width(attention)
    if m is None:
        return d, heads
    k = max(heads, heads * round(2 * d / m / heads))
    return k, math.gcd(k, heads)


@functools.lru_cache(maxsize=128)
def shape_for_params(
    target: int | float,
    vocab: int = 256,
    attentions: tuple[str, ...] = ("kuramoto", "softmax"),
) -> dict[str, Any]:
    r"""The shape the size rule (module docstring) gives for $N^\ast$ = `target`.

    Args:
        target: the target count $N^\ast > 0$.
        vocab: the vocabulary size (the embeddings and head count).
        attentions: the attentions to size (the Kuramoto model is always sized: the
            others are matched to it).

    Returns:
        ``{"name", "target", "d_model", "n_layers", "n_heads", "d_ff": {attention:
        int}, "params": {attention: int}, "shapes": {attention: {"d_model",
        "n_layers", "n_heads", "d_ff"}}, "mismatch"}``; ``d_model`` and ``n_heads``
        are the Kuramoto model's (``shapes`` has each attention's own); ``mismatch``
        = softmax count / Kuramoto count - 1 (when the softmax model is sized, else 0).

    Raises:
        ValueError: `target` not a finite number > 0.
    """
    if not isinstance(target, (int, float)) or not math.isfinite(target) or target <= 0:
        raise ValueError(
            f"target must be a finite number of parameters > 0; got {target!r}."
        )
    L = depth_for_params(target)
    best, d = None, HEAD_WIDTH
    while True:
        n = _count("kuramoto", d, L, _kuramoto_ff(d), vocab)
        cand = (abs(math.log(n / target)), d)
        best = min(best or cand, cand)
        if n >= target:
            break
        d += HEAD_WIDTH
    d = best[1]
    ff = {"kuramoto": _kuramoto_ff(d)}
    params = {"kuramoto": _count("kuramoto", d, L, ff["kuramoto"], vocab)}
    widths = {"kuramoto": (d, d // HEAD_WIDTH)}
    for a in attentions:
        if a == "kuramoto":
            continue
        widths[a] = da, ha = _width(a, d)
        base = _count(a, da, L, 8, vocab, ha)
        per8 = _count(a, da, L, 16, vocab, ha) - base
        ff[a] = max(8, 8 + 8 * round((params["kuramoto"] - base) / per8))
        params[a] = _count(a, da, L, ff[a], vocab, ha)
    if "kuramoto" not in attentions:
        ff.pop("kuramoto")
        kuramoto = params.pop("kuramoto")
    else:
        kuramoto = params["kuramoto"]
    name = (
        f"{target // 1_000_000}m"
        if target % 1_000_000 == 0
        else f"{round(target / 1000)}k"
    )
    shapes = {
        a: {
            "d_model": widths[a][0],
            "n_layers": L,
            "n_heads": widths[a][1],
            "d_ff": ff[a],
        }
        for a in ff
    }
    return {
        "name": name,
        "target": target,
        "d_model": d,
        "n_layers": L,
        "n_heads": d // HEAD_WIDTH,
        "d_ff": ff,
        "params": params,
        "shapes": shapes,
        "mismatch": params["softmax"] / kuramoto - 1 if "softmax" in params else 0.0,
    }


def config_for_params(
    target: int | float, attention: str, vocab_size: int = 256, **overrides: Any
) -> ModelConfig:
    """The 1m preset of `attention` with the shape [`shape_for_params`][syncattn.models.shape_for_params]
    gives for `target` (name ``"auto"``), and `overrides` (any other field).

    Raises:
        ValueError: an unknown attention, a bad target or override.
    """
    shape = shape_for_params(target, int(vocab_size), (attention,))
    fields = shape["shapes"][attention] | {"vocab_size": vocab_size}
    config = get_config("1m", attention=attention, **(fields | overrides))
    return dataclasses.replace(config, name="auto")

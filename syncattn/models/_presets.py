r"""The named model presets ([`get_config`][syncattn.models.get_config]).

* ``"tiny"``: a few thousand parameters, for CPU smoke runs and CI;
* ``"1m"`` and ``"5m"``: byte-level (vocabulary 256) language models whose
  parameter counts lie within 5% of $10^6$ and $5\cdot10^6$, one size per
  attention (seed 000 compares the Kuramoto model with a RoPE + SwiGLU
  transformer at these two sizes). The sphere ($n = 4$) and group (SO(3)) models
  are sized to the Kuramoto model's count (tiny within 2.1 %, 1m and 5m within 0.9 %)
  at the defaults of ``sync``; another ``sync.sphere_dim`` or ``sync.group`` changes
  their count (``models.config_params``);
* ``"paper-b-lm"``: seed 001's causal word-level LM (../shared/EXPERIMENTS.md,
  B3): 2 layers, $d=128$, 4 heads, $d_{ff}=512$, dropout 0.1, sinusoidal
  positions, LayerNorm, GELU feed-forward, final LayerNorm, untied head;
* ``"paper-b-sva"``: seed 001's bidirectional agreement classifier (B2,
  "config G"): 1 layer, $d=32$, 1 head, $d_{ff}=64$, $d_{osc}=2$, max_len 50,
  sinusoidal positions.

The size of a preset depends on the attention, so a preset is looked up by
``(name, attention)``: ``get_config("1m", attention="kuramoto")``.
"""

from __future__ import annotations

from typing import Any

from .._overrides import merge
from ._config import (
    ATTENTIONS,
    SYNC_ATTENTIONS,
    ModelConfig,
    SyncConfig,
    parse_overrides,
)
from ._geometry import SPACES, phase_states
from ._osc_config import OscillatorConfig


__all__ = ["get_config", "list_configs"]

# frustrated-mf's modes J = d_ff at the presets: by the size rule of `_sizes` (tests/models)
TINY_MODES, MODES_1M, MODES_5M = 32, 400, 560

_DEFAULT_ATTENTION = {
    "tiny": "softmax",
    "1m": "softmax",
    "5m": "softmax",
    "paper-b-lm": "oscillator",
    "paper-b-sva": "oscillator",
}


def _lm(name, attention, **kw) -> dict[str, Any]:
    if attention in SYNC_ATTENTIONS:
        kw.setdefault("positions", "rope")
    if attention == "frustrated-mf":
        kw.setdefault("ffn", "modes")
    if attention in SYNC_ATTENTIONS and not phase_states(
        SPACES[attention](SyncConfig())
    ):
        kw.setdefault("ffn", "lift")  # a geometry's states: the lift feed-forward
    elif attention == "oscillator":
        # The oscillator layer's own positional signal is its per-position
        # anchors r_j; it has no rotary embedding, so give it sinusoids.
        kw.setdefault("positions", "sinusoidal")
    return dict(name=name, attention=attention, **kw)


def _osc(d_osc: int, **fields: Any) -> OscillatorConfig:
    """A preset's oscillator part (``ModelConfig.osc``): $d_{osc}$ and other fields."""
    return OscillatorConfig(d_osc=d_osc, **fields)


_PAPER_B = dict(
    max_len=50,
    dropout=0.1,
    norm="layernorm",
    ffn="gelu",
    positions="sinusoidal",
    final_norm=True,
    pad_id=0,
    out_bias=True,
)
"""The fields seed 001's two presets share (B2, B3)."""


def _presets(name: str, attention: str) -> dict[str, Any]:
    """The fields of preset ``name`` for ``attention`` (sizes tuned with count_params);
    [`get_config`][syncattn.models.get_config] constructs the config once, with the
    overrides."""
    if name == "tiny":
        # sphere (n = 4) and SO(3): the Kuramoto count (14,467) within 2 %
        shape = {
            "sphere": dict(d_model=4, d_ff=64),
            "group": dict(d_model=2, d_ff=48),
            "stiefel": dict(d_model=2, d_ff=64),  # St(2, 4): 14,551
            "frustrated-mf": dict(d_model=16, d_ff=TINY_MODES),
        }.get(attention, dict(d_model=16, d_ff=32))
        return _lm(
            name, attention, n_layers=2, n_heads=2, max_len=64, osc=_osc(2), **shape
        )
    if name == "1m":
        sizes = {
            "softmax": dict(d_model=128, n_layers=4, n_heads=4, d_ff=432),
            "oscillator": dict(
                d_model=128, n_layers=4, n_heads=4, d_ff=416, osc=_osc(8)
            ),
            "kuramoto": dict(d_model=128, n_layers=4, n_heads=4, d_ff=352),
            "frustrated": dict(d_model=128, n_layers=4, n_heads=4, d_ff=352),
            "frustrated-mf": dict(d_model=128, n_layers=4, n_heads=4, d_ff=MODES_1M),
            # the lift widths of the Kuramoto model: 2 x 128, sphere 4 x 64, SO(3) 9 x 32
            "sphere": dict(d_model=64, n_layers=4, n_heads=4, d_ff=216),
            "group": dict(d_model=32, n_layers=4, n_heads=4, d_ff=216),
            # St(2, 4): lift 8 x 32 (991,877)
            "stiefel": dict(d_model=32, n_layers=4, n_heads=4, d_ff=248),
        }
        sizes = sizes.get(attention, sizes["sphere"])  # a new geometry: the sphere's
        return _lm(name, attention, max_len=256, **sizes)
    if name == "5m":
        sizes = {
            "softmax": dict(d_model=256, n_layers=6, n_heads=8, d_ff=712),
            "oscillator": dict(
                d_model=256, n_layers=6, n_heads=8, d_ff=696, osc=_osc(8)
            ),
            "kuramoto": dict(d_model=256, n_layers=6, n_heads=8, d_ff=544),
            "frustrated": dict(d_model=256, n_layers=6, n_heads=8, d_ff=544),
            "frustrated-mf": dict(d_model=256, n_layers=6, n_heads=8, d_ff=MODES_5M),
            "sphere": dict(d_model=128, n_layers=6, n_heads=8, d_ff=384),
            "group": dict(d_model=64, n_layers=6, n_heads=8, d_ff=392),
            "stiefel": dict(d_model=64, n_layers=6, n_heads=8, d_ff=448),  # 4,982,663
        }
        sizes = sizes.get(attention, sizes["sphere"])  # a new geometry: the sphere's
        return _lm(name, attention, max_len=256, **sizes)
    if name == "paper-b-lm":
        return dict(
            _PAPER_B,
            name=name,
            task="lm",
            attention=attention,
            vocab_size=10_000,
            d_model=128,
            n_layers=2,
            n_heads=4,
            d_ff=512,
            tie_embeddings=False,
            osc=_osc(8, p=1, normalize_anchors=False),
        )
    if name == "paper-b-sva":
        return dict(
            _PAPER_B,
            name=name,
            task="classifier",
            attention=attention,
            vocab_size=169,
            d_model=32,
            n_layers=1,
            n_heads=1,
            d_ff=64,
            osc=_osc(2, p=1, normalize_anchors=False),
        )
    raise KeyError(name)


_PRESET_ATTENTIONS = {
    "tiny": ATTENTIONS,
    "1m": ATTENTIONS,
    "5m": ATTENTIONS,
    "paper-b-lm": ("oscillator", "softmax"),
    "paper-b-sva": ("oscillator", "softmax"),
}


def list_configs() -> list[str]:
    """Names of the presets accepted by [`syncattn.models.get_config`][]."""
    return list(_PRESET_ATTENTIONS)


def get_config(name: str, **overrides: Any) -> ModelConfig:
    """The preset ``name`` with ``overrides`` applied.

    ``attention`` is chosen first (the preset's sizes depend on it); the other
    overrides then replace fields. Values may be strings, as they come from a
    command line (``"d_model=64"``): they are parsed to the field's type
    (`syncattn._overrides`). The config is constructed (and validated) once.

    Args:
        name: one of [`syncattn.models.list_configs`][].
        **overrides: field values, e.g. ``attention="kuramoto", dropout="0.1"``.

    Returns:
        A frozen [`ModelConfig`][syncattn.models.ModelConfig].

    Raises:
        ValueError: an unknown preset name or field (the message suggests the closest
            field and lists the valid ones), a value that does not parse to the
            field's type, or an invalid combination.

    Example:
        >>> get_config("paper-b-lm", attention="softmax", **{"osc.d_osc": "16"}).osc.d_osc
        16
    """
    if name not in _PRESET_ATTENTIONS:
        raise ValueError(f"unknown model config {name!r}; valid: {list_configs()}.")
    parsed = parse_overrides(overrides)
    attention = parsed.pop("attention", None) or _DEFAULT_ATTENTION[name]
    if attention not in _PRESET_ATTENTIONS[name]:
        raise ValueError(
            f"config {name!r} exists for attention (--model) in "
            f"{', '.join(_PRESET_ATTENTIONS[name])}; got {attention!r}."
        )
    preset = _presets(name, attention)
    return ModelConfig(**(preset | merge(preset, parsed, ModelConfig)))

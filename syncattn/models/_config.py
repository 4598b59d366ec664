r"""Model configurations: one frozen dataclass of a transformer part and one part per
family (`OscillatorConfig`, `SyncConfig`), and ``key=value`` overrides of it.

A [`ModelConfig`][syncattn.models.ModelConfig] fully determines a model's
architecture (not its training); the named presets are in `syncattn.models._presets`
([`get_config`][syncattn.models.get_config]).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections.abc import Mapping
from typing import Any

from .._overrides import (
    check_value,
    deprecated_item,
    field_types,
    merge,
    parse_items,
    split,
    unknown_key,
)
from ._geometry import SPACES
from ._osc_config import OscillatorConfig, check_d_osc as check_d_osc
from ._sync_config import DRIFTS as DRIFTS, READOUTS as READOUTS, SyncConfig


__all__ = [
    "ModelConfig",
    "OscillatorConfig",
    "SyncConfig",
    "parse_overrides",
    "override_fields",
]

SYNC_ATTENTIONS = tuple(SPACES)
"""The synchronisation family: one LM class ([`syncattn.models.SyncLM`][]), states on the
geometry ``SPACES`` names ([`syncattn.models.geometry_of`][]): the torus, the sphere
$S^{n-1}$ or a group."""
ATTENTIONS = (
    "kuramoto",
    "oscillator",
    "softmax",
    *(a for a in SYNC_ATTENTIONS if a != "kuramoto"),
)

TASKS = ("lm", "classifier")
NORMS = ("layernorm", "rmsnorm")
FFNS = ("swiglu", "gelu", "lift", "none", "modes")
POSITIONS = ("rope", "sinusoidal", "learned", "none")

PARTS = {"osc": OscillatorConfig, "sync": SyncConfig}
"""The per-family parts of a ModelConfig, by field name."""
ALIASES = {
    key: f"{part}.{key}"
    for part, cls in PARTS.items()
    for key in field_types(cls)
    if part == "osc"
    or key in ("value", "gates", "gate_norm", "tau", "bound", "readout_scale")
}
"""The flat keys of the configs before the split (issue 41) and the dotted key each
stands for: ``d_osc`` is ``osc.d_osc``, ``tau`` is ``sync.tau``. A saved
``config.json`` of that layout reads back ([`ModelConfig.from_dict`][syncattn.models.ModelConfig.from_dict])
and an override may still use them (the committed experiments' cells are keyed by
them: ``model.d_osc``, ``model.tau``)."""


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    r"""Architecture of a language model or agreement classifier: the transformer part
    (these fields) and one part per family, ``osc``
    ([`OscillatorConfig`][syncattn.models.OscillatorConfig]) and ``sync``
    ([`SyncConfig`][syncattn.models.SyncConfig]), each validating its own fields.

    Transformer models (``attention`` = ``"oscillator"`` or ``"softmax"``) are
    pre-norm residual stacks,

    $$x \leftarrow x + \mathrm{Attn}(\mathrm{N}(x)), \qquad
      x \leftarrow x + \mathrm{FFN}(\mathrm{N}(x)),$$

    after a token embedding plus the additive positions, and before an
    optional final norm and the head. The synchronisation models
    ([`syncattn.models.SyncLM`][]) keep a state of $k$ = ``d_model`` oscillators per
    token on a geometry and have no norms: the Kuramoto model (seed 000) phases
    $\theta\in\mathbb{T}^k$, the sphere model $z \in (S^{n-1})^k$, the group model
    $U \in SO(n)^k$ or $U(n)^k$ (``sync``).

    A part's field is set by a dotted key (``osc.d_osc=16``, ``sync.tau=2``); the flat
    key of the configs before the split (``d_osc=16``, ``tau=2``; `ALIASES`) is read as
    the same. ``dataclasses.asdict`` (a run's ``config.json``) holds each part as a
    nested dict; [`from_dict`][syncattn.models.ModelConfig.from_dict] reads that and the
    flat layout of older run folders.

    Attributes:
        name: the preset this config came from (informational).
        task: ``"lm"`` (causal, logits over the vocabulary at every position)
            or ``"classifier"`` (bidirectional, one logit per position).
        attention: ``"kuramoto"``, ``"oscillator"``, ``"softmax"``, ``"sphere"``, ``"group"``
            ([`syncattn.models.SyncLM`][] on $S^{n-1}$ or a group, ``sync``), ``"frustrated"``
            ([`syncattn.nn.FrustratedAttention`][], issue 40) or ``"frustrated-mf"`` (and
            [`syncattn.nn.CollectiveModes`][] for the feed-forward: no MLP).
        vocab_size: number of token ids.
        d_model: width $d$ (for the synchronisation models, the number of
            oscillators $k$ per token).
        n_layers: number of blocks $L$.
        n_heads: attention heads; must divide ``d_model``.
        d_ff: hidden width of the feed-forward block (``ffn="modes"``: the number of modes).
        max_len: longest sequence the model accepts.
        dropout: dropout rate on the embedded input and inside the
            feed-forward block (after its activation and after its output),
            where seed 001's model puts it; 0 disables it.
        norm: ``"layernorm"`` or ``"rmsnorm"``.
        ffn: ``"swiglu"``, ``"gelu"`` (Linear, GELU, Linear, with biases),
            ``"lift"`` (the synchronisation models only: the SwiGLU on the lift
            (torus $(\cos\theta, \sin\theta)$, sphere $z$, group the entries of $U$)
            applied as a bounded tangent step, [`syncattn.nn.LiftSwiGLU`][], on the
            torus $2\pi$-periodic; the only feed-forward of the sphere and group
            models), ``"none"`` (the no-feed-forward ablation) or ``"modes"`` (``"frustrated-mf"``'s
            only choice: [`syncattn.nn.CollectiveModes`][], ``d_ff`` modes).
        positions: ``"rope"`` (applied inside the attention layers),
            ``"sinusoidal"`` or ``"learned"`` (added to the embedding) or
            ``"none"``. The Kuramoto model's positions are its learned phase
            drift $\omega_j(t-u)$, so it takes ``"rope"``.
        final_norm: apply a norm before the head.
        tie_embeddings: use the embedding matrix as the head (LM only).
        pad_id: a padding token id, or ``None``. In the transformers its
            embedding is zero (as PyTorch's ``padding_idx``) and the classifier
            masks it as a key; the Kuramoto model embeds it as any token (its
            causal mask keeps right-padding away from real positions).
        norm_eps: $\epsilon$ of the norms.
        out_bias: a bias on the softmax attention's output projection (seed
            001's softmax baseline has one; the oscillator layer always does).
        freeze_values: keep the attention's value projection $W_v$ at its random
            initialisation (oscillator or softmax attention; seed 001's frozen-$W_V$
            ablation, [`syncattn.nn.FrozenLinear`][]).
        rope_base: the base $b > 1$ of the rotary frequencies $b^{-j'/k_h}$ (the
            synchronisation models' initial drift rates $\omega_j$; the softmax
            attention's RoPE).
        osc: the oscillator attention's
            [`OscillatorConfig`][syncattn.models.OscillatorConfig] ($d_{osc}$, coupling,
            $p$, equilibrium, evaluation, anchors, ablations L3 and L4).
        sync: the synchronisation family's [`SyncConfig`][syncattn.models.SyncConfig]
            (value path, gates, temperature, bound, readout, drift, sphere dimension,
            group, harmonics).
    """

    name: str = "custom"
    task: str = "lm"
    attention: str = "softmax"
    vocab_size: int = 256
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 2
    d_ff: int = 128
    max_len: int = 256
    dropout: float = 0.0
    norm: str = "rmsnorm"
    ffn: str = "swiglu"
    positions: str = "rope"
    final_norm: bool = True
    tie_embeddings: bool = False
    pad_id: int | None = None
    norm_eps: float = 1e-5
    out_bias: bool = False
    freeze_values: bool = False
    rope_base: float = 10_000.0
    osc: OscillatorConfig = dataclasses.field(default_factory=OscillatorConfig)
    sync: SyncConfig = dataclasses.field(default_factory=SyncConfig)

    def __post_init__(self):
        _check_types(self)
        _check_transformer(self)
        self.osc.check(self)
        self.sync.check(self, SYNC_ATTENTIONS)

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> ModelConfig:
        """The config whose ``dataclasses.asdict`` is `fields` (a ``config.json``'s
        ``model`` section, less ``preset``): the nested ``osc`` and ``sync`` mappings
        become an [`OscillatorConfig`][syncattn.models.OscillatorConfig] and a
        [`SyncConfig`][syncattn.models.SyncConfig]. The flat layout of the run folders
        before the split (``d_osc``, ``tau``, ... at the top, `ALIASES`) is read into
        the parts; a part absent (a run folder from before it) gets its defaults.

        Raises:
            ValueError: an unknown field (also of a part), a field given both flat and
                in its part, or an invalid value.
        """
        fields = nest(fields)
        unknown = set(fields) - set(field_types(cls))
        if unknown:
            raise unknown_key(sorted(unknown)[0], override_fields(), "model config")
        for part, tp in PARTS.items():
            if isinstance(fields.get(part), Mapping):
                fields[part] = check_value(part, tp, fields[part])
        return cls(**fields)

    def to_dict(self) -> dict[str, Any]:
        """``dataclasses.asdict``: the transformer fields at the top, each part as a
        nested dict (``{"d_model": 64, ..., "osc": {"d_osc": 8, ...}, "sync": {...}}``),
        the layout a run's ``config.json`` holds."""
        return dataclasses.asdict(self)

    @property
    def d_head(self) -> int:
        """Width of one head, ``d_model // n_heads``."""
        return self.d_model // self.n_heads

    def __getitem__(self, key: str) -> Any:
        """Deprecated: ``config[key]``, from when a ``RunSpec`` held its configs as dicts;
        use the attribute ``config.key`` (a flat key of `ALIASES`: ``config.osc.d_osc``)."""
        if key in ALIASES:
            part, sub = ALIASES[key].split(".")
            warnings.warn(
                f"ModelConfig[{key!r}] is deprecated (RunSpec holds typed configs now); "
                f"use the attribute .{part}.{sub}.",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(getattr(self, part), sub)
        return deprecated_item(self, key)


def replace(config: ModelConfig, **overrides: Any) -> ModelConfig:
    """``dataclasses.replace`` with the same key check and string parsing as
    [`syncattn.models.get_config`][]; a dotted key changes one field of a sub-config
    (``replace(cfg, **{"sync.readout": "vonmises"})`` keeps the other ``sync`` fields)."""
    return dataclasses.replace(config, **merge(config, parse_overrides(overrides)))


def parse_overrides(items) -> dict[str, Any]:
    """Turn ``["d_model=64", "osc.d_osc=4"]`` (or a ``{key: value}`` mapping) into a
    dict of typed values (`syncattn._overrides.parse_items`); a part's fields come as
    its dict of changes (``{"d_model": 64, "osc": {"d_osc": 4}}``), and a flat key of
    `ALIASES` (``d_osc=4``) as its dotted one.

    Raises:
        ValueError: an item without ``=``, an unknown key (suggesting the closest and
            listing the valid ones), a value that does not parse to the field's type,
            or a key given twice (also as ``d_osc`` and ``osc.d_osc``).
    """
    return parse_items(_dotted(items), override_fields(), "model config")


def _dotted(items) -> Any:
    """`items` as ``(key, value)`` pairs with dotted keys for the parts' fields: a flat
    key of `ALIASES` as its dotted one, a part given as a mapping of changes as one
    pair per field (a malformed item or a plain string is left for `parse_items`)."""
    if isinstance(items, str):
        return items
    if isinstance(items, Mapping):
        pairs = list(items.items())
    else:
        pairs = [
            item if isinstance(item, tuple) and len(item) == 2 else split(item)
            for item in items
        ]
    out = []
    for k, v in pairs:
        key = str(k).strip()
        if key in PARTS and isinstance(v, Mapping):
            out += [(f"{key}.{sub}", x) for sub, x in v.items()]
        else:
            out.append((ALIASES.get(key, k), v))
    return out


@functools.cache
def override_fields() -> dict[str, Any]:
    """``{key: annotation}`` of every override key of a ModelConfig: its fields (a part
    set as ``osc.FIELD``) and the flat `ALIASES` (typed by their part's field): the
    ``model`` group of [`syncattn.training.run_overrides`][]."""
    aliases = {}
    for key, dotted in ALIASES.items():
        part, sub = dotted.split(".")
        aliases[key] = field_types(PARTS[part])[sub]
    return field_types(ModelConfig) | aliases


def nest(fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` (``{field: value}`` of a ModelConfig) with each flat key of `ALIASES`
    moved into its part: ``{"d_osc": 4, "sync": {"group": "u2"}, "tau": 2.0}`` gives
    ``{"osc": {"d_osc": 4}, "sync": {"group": "u2", "tau": 2.0}}``.

    Raises:
        ValueError: a field given both flat and in its part's mapping.
    """
    out = dict(fields)
    for key in [k for k in out if k in ALIASES]:
        part, sub = ALIASES[key].split(".")
        value, current = out.pop(key), out.get(part)
        if dataclasses.is_dataclass(current):
            out[part] = dataclasses.replace(current, **{sub: value})
            continue
        current = dict(current or {})
        if sub in current:
            raise ValueError(
                f"{part}.{sub} is given twice (as {key!r} and in {part!r}); give it once."
            )
        out[part] = current | {sub: value}
    return out


def _check_types(config: ModelConfig) -> None:
    for key, tp in field_types(ModelConfig).items():
        v = getattr(config, key)
        checked = check_value(key, tp, v)
        if checked is not v:
            # an int given for a float field: store the float.
            object.__setattr__(config, key, checked)


def _check_transformer(c: ModelConfig) -> None:
    """The transformer part's own fields and their combinations (the parts check
    themselves against it: `OscillatorConfig.check`, `SyncConfig.check`)."""
    for field, allowed in (
        ("task", TASKS),
        ("attention", ATTENTIONS),
        ("norm", NORMS),
        ("ffn", FFNS),
        ("positions", POSITIONS),
    ):
        if getattr(c, field) not in allowed:
            raise ValueError(
                f"{field} must be one of {allowed}; got {getattr(c, field)!r}."
            )
    for field in ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff", "max_len"):
        if getattr(c, field) < 1:
            raise ValueError(f"{field} must be >= 1; got {getattr(c, field)}.")
    if c.d_model % c.n_heads:
        raise ValueError(f"n_heads={c.n_heads} must divide d_model={c.d_model}.")
    if not 0.0 <= c.dropout < 1.0:
        raise ValueError(f"dropout must lie in [0, 1); got {c.dropout}.")
    if not c.norm_eps > 0:
        raise ValueError(f"norm_eps must be > 0; got {c.norm_eps}.")
    if not c.rope_base > 1 or not math.isfinite(c.rope_base):
        raise ValueError(f"rope_base must be a finite number > 1; got {c.rope_base}.")
    if c.pad_id is not None and not 0 <= c.pad_id < c.vocab_size:
        raise ValueError(
            f"pad_id must lie in [0, vocab_size={c.vocab_size}); got {c.pad_id}."
        )
    if c.freeze_values and c.attention in SYNC_ATTENTIONS:
        raise ValueError(
            "freeze_values needs attention='oscillator' or 'softmax' (a learned W_v); "
            "the Kuramoto model's value path is its own."
        )
    if c.task == "classifier" and c.tie_embeddings:
        raise ValueError("tie_embeddings applies to task='lm' only.")

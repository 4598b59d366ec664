r"""Model configurations: one frozen dataclass, named presets, ``key=value`` overrides.

A [`ModelConfig`][syncattn.models.ModelConfig] fully determines a model's
architecture (not its training). The named presets are

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

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from .._overrides import (
    check_value,
    deprecated_item,
    field_types,
    merge,
    parse_items,
    unknown_key,
)
from ._sync_config import (
    DRIFTS as DRIFTS,
    READOUTS as READOUTS,
    SyncConfig,
    check_frustrated,
    check_sync,
)


__all__ = ["ModelConfig", "SyncConfig", "get_config", "list_configs", "parse_overrides"]

ATTENTIONS = ("kuramoto", "oscillator", "softmax", "sphere", "group", "frustrated", "frustrated-mf")
SYNC_ATTENTIONS = ("kuramoto", "sphere", "group", "frustrated", "frustrated-mf")
"""The synchronisation family: one LM class ([`syncattn.models.SyncLM`][]), states on the
torus, the sphere $S^{n-1}$ or a group."""
TORUS_ATTENTIONS = ("kuramoto", "frustrated", "frustrated-mf")
"""The synchronisation models on the torus (phases, seed 000's embedding and readout)."""
# frustrated-mf's modes J = d_ff at the presets: by the size rule of `_sizes` (tests/models)
TINY_MODES, MODES_1M, MODES_5M = 32, 400, 560

TASKS = ("lm", "classifier")
NORMS = ("layernorm", "rmsnorm")
FFNS = ("swiglu", "gelu", "lift", "none", "modes")
POSITIONS = ("rope", "sinusoidal", "learned", "none")
COUPLINGS = ("softplus", "relu", "elu1", "elu1_features")
EQUILIBRIA = ("closed", "ode")
IMPLS = ("quadratic", "linear", "chunked")
VALUES = ("phase", "learned")
GATE_NORMS = ("mean", "none")
ANCHORS = ("position", "content")


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    r"""Architecture of a language model or agreement classifier.

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
        d_osc: oscillator dimension (oscillator attention).
        coupling: oscillator coupling map: ``"softplus"``, ``"relu"``, ``"elu1"``
            (the published score nonlinearities) or ``"elu1_features"`` (the
            feature-map kernel that ``impl="linear"`` needs).
        p: oscillator readout sharpening exponent.
        equilibrium: oscillator fixed point: ``"closed"`` or ``"ode"``.
        impl: oscillator evaluation: ``"quadratic"``, ``"linear"``, ``"chunked"``.
        anchors: oscillator anchors: ``"position"`` (published, a learned table
            indexed by key position) or ``"content"``.
        normalize_anchors: keep the oscillator anchors on the sphere (the
            theory's unit anchors, projected in the forward pass); ``False`` uses
            them raw and reproduces the published layer (the ``paper-*`` presets).
        mask_readout: also drop padded keys from the oscillator readout (the
            published layer masks them only before the fixed point).
        out_bias: a bias on the softmax attention's output projection (seed
            001's softmax baseline has one; the oscillator layer always does).
        freeze_values: keep the attention's value projection $W_v$ at its random
            initialisation (oscillator or softmax attention; seed 001's frozen-$W_V$
            ablation, [`syncattn.nn.FrozenLinear`][]).
        relative_rotation: oscillator ablation L3, a learned rotation of the anchors by
            the distance $i - j$ (``d_osc=2``, ``impl="quadratic"``).
        query_scale: oscillator ablation L4, a learned per-head, per-query scale of the
            coupling's score.
        value: the synchronisation models' value path: ``"phase"`` (the state itself:
            the Kuramoto identity, the Lohe coupling; ``value="state"`` of the sphere
            and group layers) or ``"learned"`` (the ablation).
        gates: the synchronisation models' metric gates on (``False`` is the ablation).
        gate_norm: the gates' normalisation: ``"mean"`` (softplus divided
            by its mean over the coordinates, seed 000's) or ``"none"`` (softplus alone,
            a probe).
        tau: the synchronisation attention's initial temperature $\tau > 0$ (learned).
        bound: the bound $\beta > 0$ on the rms of the synchronisation models' tangent
            steps (attention and feed-forward).
        readout_scale: the prototype (and von Mises) readout's initial
            $\sigma\sqrt{k} > 0$.
        rope_base: the base $b > 1$ of the rotary frequencies $b^{-j'/k_h}$ (the
            synchronisation models' initial drift rates $\omega_j$; the softmax
            attention's RoPE).
        sync: the synchronisation family's [`SyncConfig`][syncattn.models.SyncConfig]
            (sphere dimension, group, drift, readout). A saved config (``config.json``,
            with ``sync`` as a nested dict) reads back with
            [`ModelConfig.from_dict`][syncattn.models.ModelConfig.from_dict].
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
    d_osc: int = 8
    coupling: str = "softplus"
    p: int = 1
    equilibrium: str = "closed"
    impl: str = "quadratic"
    anchors: str = "position"
    normalize_anchors: bool = True
    mask_readout: bool = False
    out_bias: bool = False
    freeze_values: bool = False
    relative_rotation: bool = False
    query_scale: bool = False
    value: str = "phase"
    gates: bool = True
    gate_norm: str = "mean"
    tau: float = 1.0
    bound: float = 1.0
    readout_scale: float = 1.0
    rope_base: float = 10_000.0
    sync: SyncConfig = dataclasses.field(default_factory=SyncConfig)

    def __post_init__(self):
        _check_types(self)
        for field, allowed in (
            ("task", TASKS),
            ("attention", ATTENTIONS),
            ("norm", NORMS),
            ("ffn", FFNS),
            ("positions", POSITIONS),
            ("coupling", COUPLINGS),
            ("equilibrium", EQUILIBRIA),
            ("impl", IMPLS),
            ("value", VALUES),
            ("gate_norm", GATE_NORMS),
            ("anchors", ANCHORS),
        ):
            v = getattr(self, field)
            if v not in allowed:
                raise ValueError(f"{field} must be one of {allowed}; got {v!r}.")
        for field in (
            "vocab_size",
            "d_model",
            "n_layers",
            "n_heads",
            "d_ff",
            "max_len",
        ):
            if getattr(self, field) < 1:
                raise ValueError(f"{field} must be >= 1; got {getattr(self, field)}.")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"n_heads={self.n_heads} must divide d_model={self.d_model}."
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1); got {self.dropout}.")
        if not self.norm_eps > 0:
            raise ValueError(f"norm_eps must be > 0; got {self.norm_eps}.")
        for field in ("tau", "bound", "readout_scale"):
            if not getattr(self, field) > 0 or not math.isfinite(getattr(self, field)):
                raise ValueError(f"{field} must be a finite number > 0; got {getattr(self, field)}.")
        if not self.rope_base > 1 or not math.isfinite(self.rope_base):
            raise ValueError(f"rope_base must be a finite number > 1; got {self.rope_base}.")
        check_d_osc(self.d_osc)
        if self.p < 1:
            raise ValueError(f"p must be >= 1; got {self.p}.")
        if self.pad_id is not None and not 0 <= self.pad_id < self.vocab_size:
            raise ValueError(
                f"pad_id must lie in [0, vocab_size={self.vocab_size}); got {self.pad_id}."
            )
        check_sync(self, SYNC_ATTENTIONS)
        check_frustrated(self)
        if self.attention in TORUS_ATTENTIONS:
            if self.task != "lm":
                raise ValueError(
                    f"the {self.attention} model is a causal LM; task='classifier' needs "
                    "attention='oscillator' or 'softmax'."
                )
            if self.positions != "rope":
                raise ValueError(
                    f"the {self.attention} model's positions are its learned phase drift "
                    f"omega_j (t - u); set positions='rope' (got {self.positions!r})."
                )
            if self.ffn == "gelu":
                raise ValueError(
                    "the Kuramoto model's feed-forward is the angle SwiGLU or the lift "
                    "SwiGLU; ffn must be 'swiglu', 'lift' or 'none' (got 'gelu')."
                )
            if self.tie_embeddings:
                raise ValueError(
                    f"the {self.attention} model reads out through prototype phases; "
                    "tie_embeddings must be False."
                )
        if self.attention not in SYNC_ATTENTIONS and self.ffn == "lift":
            raise ValueError(
                "ffn='lift' (the feed-forward on the lift of a synchronisation state) needs "
                f"attention in {SYNC_ATTENTIONS}; got attention={self.attention!r}."
            )
        if self.attention == "oscillator" and self.positions == "rope":
            raise ValueError(
                "OscillatorAttention has no rotary positions (its anchors r_j are "
                "indexed by position); set positions to 'sinusoidal', 'learned' or "
                "'none'."
            )
        if self.freeze_values and self.attention in SYNC_ATTENTIONS:
            raise ValueError("freeze_values needs attention='oscillator' or 'softmax' (a "
                             "learned W_v); the Kuramoto model's value path is its own.")
        for field in ("relative_rotation", "query_scale"):
            if getattr(self, field) and self.attention != "oscillator":
                raise ValueError(f"{field} is an oscillator ablation; got attention="
                                 f"{self.attention!r}.")
        if self.relative_rotation and (self.d_osc != 2 or self.impl != "quadratic"):
            raise ValueError("relative_rotation (L3) needs d_osc=2 and impl='quadratic'; "
                             f"got d_osc={self.d_osc}, impl={self.impl!r}.")
        if self.task == "classifier" and self.tie_embeddings:
            raise ValueError("tie_embeddings applies to task='lm' only.")

    @classmethod
    def from_dict(cls, fields: Mapping[str, Any]) -> ModelConfig:
        """The config whose ``dataclasses.asdict`` is `fields` (a ``config.json``'s
        ``model`` section, less ``preset``): the nested ``sync`` mapping becomes a
        [`SyncConfig`][syncattn.models.SyncConfig]; a dict without it (a run folder
        from before the sub-config) gets the default.

        Raises:
            ValueError: an unknown field (also of ``sync``) or an invalid value.
        """
        fields = dict(fields)
        if isinstance(fields.get("sync"), Mapping):
            fields["sync"] = check_value("sync", SyncConfig, fields["sync"])
        unknown = set(fields) - set(field_types(cls))
        if unknown:
            raise unknown_key(sorted(unknown)[0], field_types(cls), "model config")
        return cls(**fields)

    @property
    def d_head(self) -> int:
        """Width of one head, ``d_model // n_heads``."""
        return self.d_model // self.n_heads

    def __getitem__(self, key: str) -> Any:
        """Deprecated: ``config[key]``, from when a ``RunSpec`` held its configs as dicts;
        use the attribute ``config.key``."""
        return deprecated_item(self, key)


def check_d_osc(d_osc: int, name: str = "d_osc") -> None:
    r"""The config path's one statement of $d_{osc} \ge 2$ (oscillators on
    $S^{d_{osc}-1}$), used by [`ModelConfig`][syncattn.models.ModelConfig] and by the
    experiments' configs that sweep it (``nn.OscillatorAttention`` keeps its own check,
    for a layer built directly from Python).

    Raises:
        ValueError: ``"{name} must be >= 2 ..."``.
    """
    if d_osc < 2:
        raise ValueError(f"{name} must be >= 2 (oscillators on S^(d_osc-1)); got {d_osc}.")


# --------------------------------------------------------------------------- presets

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
    if attention in ("sphere", "group"):
        kw.setdefault("ffn", "lift")
    elif attention == "oscillator":
        # The oscillator layer's own positional signal is its per-position
        # anchors r_j; it has no rotary embedding, so give it sinusoids.
        kw.setdefault("positions", "sinusoidal")
    return dict(name=name, attention=attention, **kw)


def _presets(name: str, attention: str) -> dict[str, Any]:
    """The fields of preset ``name`` for ``attention`` (sizes tuned with count_params);
    [`get_config`][syncattn.models.get_config] constructs the config once, with the
    overrides."""
    if name == "tiny":
        # sphere (n = 4) and SO(3): the Kuramoto count (14,467) within 2 %
        shape = {"sphere": dict(d_model=4, d_ff=64), "group": dict(d_model=2, d_ff=48),
                 "frustrated-mf": dict(d_model=16, d_ff=TINY_MODES)}  # fmt: skip
        return _lm(
            name, attention, n_layers=2, n_heads=2, max_len=64, d_osc=2,
            **shape.get(attention, dict(d_model=16, d_ff=32)),
        )  # fmt: skip
    if name == "1m":
        sizes = {
            "softmax": dict(d_model=128, n_layers=4, n_heads=4, d_ff=432),
            "oscillator": dict(d_model=128, n_layers=4, n_heads=4, d_ff=416, d_osc=8),
            "kuramoto": dict(d_model=128, n_layers=4, n_heads=4, d_ff=352),
            "frustrated": dict(d_model=128, n_layers=4, n_heads=4, d_ff=352),
            "frustrated-mf": dict(d_model=128, n_layers=4, n_heads=4, d_ff=MODES_1M),
            # the lift widths of the Kuramoto model: 2 x 128, sphere 4 x 64, SO(3) 9 x 32
            "sphere": dict(d_model=64, n_layers=4, n_heads=4, d_ff=216),
            "group": dict(d_model=32, n_layers=4, n_heads=4, d_ff=216),
        }[attention]
        return _lm(name, attention, max_len=256, **sizes)
    if name == "5m":
        sizes = {
            "softmax": dict(d_model=256, n_layers=6, n_heads=8, d_ff=712),
            "oscillator": dict(d_model=256, n_layers=6, n_heads=8, d_ff=696, d_osc=8),
            "kuramoto": dict(d_model=256, n_layers=6, n_heads=8, d_ff=544),
            "frustrated": dict(d_model=256, n_layers=6, n_heads=8, d_ff=544),
            "frustrated-mf": dict(d_model=256, n_layers=6, n_heads=8, d_ff=MODES_5M),
            "sphere": dict(d_model=128, n_layers=6, n_heads=8, d_ff=384),
            "group": dict(d_model=64, n_layers=6, n_heads=8, d_ff=392),
        }[attention]
        return _lm(name, attention, max_len=256, **sizes)
    if name == "paper-b-lm":
        return dict(
            name=name, task="lm", attention=attention, vocab_size=10_000,
            d_model=128, n_layers=2, n_heads=4, d_ff=512, max_len=50,
            dropout=0.1, norm="layernorm", ffn="gelu", positions="sinusoidal",
            final_norm=True, tie_embeddings=False, pad_id=0, d_osc=8, p=1,
            out_bias=True, normalize_anchors=False,
        )  # fmt: skip
    if name == "paper-b-sva":
        return dict(
            name=name, task="classifier", attention=attention, vocab_size=169,
            d_model=32, n_layers=1, n_heads=1, d_ff=64, max_len=50,
            dropout=0.1, norm="layernorm", ffn="gelu", positions="sinusoidal",
            final_norm=True, pad_id=0, d_osc=2, p=1, out_bias=True,
            normalize_anchors=False,
        )  # fmt: skip
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
        >>> get_config("paper-b-lm", attention="softmax", d_osc="16").d_osc
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


def replace(config: ModelConfig, **overrides: Any) -> ModelConfig:
    """``dataclasses.replace`` with the same key check and string parsing as
    [`syncattn.models.get_config`][]; a dotted key changes one field of a sub-config
    (``replace(cfg, **{"sync.readout": "vonmises"})`` keeps the other ``sync`` fields)."""
    return dataclasses.replace(config, **merge(config, parse_overrides(overrides)))


def parse_overrides(items) -> dict[str, Any]:
    """Turn ``["d_model=64", "norm=layernorm"]`` (or a ``{key: value}`` mapping) into a
    dict of typed values (`syncattn._overrides.parse_items`).

    Raises:
        ValueError: an item without ``=``, an unknown key (suggesting the closest and
            listing the valid ones), a value that does not parse to the field's type,
            or a key given twice.
    """
    return parse_items(items, ModelConfig, "model config")


def _check_types(config: ModelConfig) -> None:
    for key, tp in field_types(ModelConfig).items():
        v = getattr(config, key)
        checked = check_value(key, tp, v)
        if checked is not v:
            # an int given for a float field: store the float.
            object.__setattr__(config, key, checked)

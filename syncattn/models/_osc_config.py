r"""The oscillator attention's sub-config, ``ModelConfig.osc`` (issue 41 §4)."""

from __future__ import annotations

import dataclasses
from typing import Any

from .._overrides import check_value, deprecated_item, field_types


__all__ = [
    "OscillatorConfig",
    "check_d_osc",
    "COUPLINGS",
    "EQUILIBRIA",
    "IMPLS",
    "ANCHORS",
]

COUPLINGS = ("softplus", "relu", "elu1", "elu1_features")
EQUILIBRIA = ("closed", "ode")
IMPLS = ("quadratic", "linear", "chunked")
ANCHORS = ("position", "content")


@dataclasses.dataclass(frozen=True)
class OscillatorConfig:
    r"""The oscillator attention's own fields (``ModelConfig.osc``;
    [`syncattn.nn.OscillatorAttention`][]): each query's oscillator $z \in
    S^{d_{osc}-1}$ settles to $z^\star = h/\|h\|$ under the drive $h = \sum_j w_j r_j$
    of its keys' anchors $r_j$, and reads out $a_j \propto
    \max(0, 1 + \langle z^\star, r_j\rangle)^p$.

    Set from overrides by dotted keys: ``get_config("tiny", attention="oscillator",
    **{"osc.d_osc": 4})``, ``syncattn train --model oscillator osc.p=2``; the flat keys
    of the configs before the split (``d_osc=4``) are accepted as aliases
    ([`syncattn.models.ModelConfig`][]).

    A transformer with softmax attention carries this part unused: the seed 001
    presets (``paper-b-*``) set it for both attentions they compare.

    Attributes:
        d_osc: $d_{osc} \ge 2$, the oscillator dimension.
        coupling: the coupling map $w$: ``"softplus"``, ``"relu"``, ``"elu1"``
            (the published score nonlinearities) or ``"elu1_features"`` (the
            feature-map kernel that ``impl="linear"`` needs).
        p: $p \ge 1$, the readout's sharpening exponent.
        equilibrium: the fixed point: ``"closed"`` ($h/\|h\|$) or ``"ode"`` (the
            Lohe flow integrated).
        impl: the evaluation: ``"quadratic"``, ``"linear"`` or ``"chunked"``.
        anchors: ``"position"`` (published, a learned table indexed by key position)
            or ``"content"``.
        normalize_anchors: keep the anchors on the sphere (the theory's unit anchors,
            projected in the forward pass); ``False`` uses them raw and reproduces the
            published layer (the ``paper-*`` presets).
        mask_readout: also drop padded keys from the readout (the published layer
            masks them only before the fixed point).
        relative_rotation: ablation L3, a learned rotation of the anchors by the
            distance $i - j$ (``d_osc=2``, ``impl="quadratic"``).
        query_scale: ablation L4, a learned per-head, per-query scale of the
            coupling's score.
    """

    d_osc: int = 8
    coupling: str = "softplus"
    p: int = 1
    equilibrium: str = "closed"
    impl: str = "quadratic"
    anchors: str = "position"
    normalize_anchors: bool = True
    mask_readout: bool = False
    relative_rotation: bool = False
    query_scale: bool = False

    def __post_init__(self):
        for key, tp in field_types(OscillatorConfig).items():
            checked = check_value(f"osc.{key}", tp, getattr(self, key))
            if checked is not getattr(self, key):
                object.__setattr__(self, key, checked)
        for field, allowed in (
            ("coupling", COUPLINGS),
            ("equilibrium", EQUILIBRIA),
            ("impl", IMPLS),
            ("anchors", ANCHORS),
        ):
            if getattr(self, field) not in allowed:
                raise ValueError(
                    f"osc.{field} must be one of {allowed}; got {getattr(self, field)!r}."
                )
        check_d_osc(self.d_osc, "osc.d_osc")
        if self.p < 1:
            raise ValueError(f"osc.p must be >= 1; got {self.p}.")
        if self.relative_rotation and (self.d_osc != 2 or self.impl != "quadratic"):
            raise ValueError(
                "osc.relative_rotation (L3) needs osc.d_osc=2 and osc.impl='quadratic'; "
                f"got d_osc={self.d_osc}, impl={self.impl!r}."
            )

    def check(self, config) -> None:
        """This part against the rest of the ModelConfig `config` (its
        ``__post_init__``): the ablations are the oscillator layer's, and that layer
        has no rotary positions.

        Raises:
            ValueError: naming the field.
        """
        a = config.attention
        for field in ("relative_rotation", "query_scale"):
            if getattr(self, field) and a != "oscillator":
                raise ValueError(
                    f"osc.{field} is an oscillator ablation; got attention={a!r}."
                )
        if a == "oscillator" and config.positions == "rope":
            raise ValueError(
                "OscillatorAttention has no rotary positions (its anchors r_j are "
                "indexed by position); set positions to 'sinusoidal', 'learned' or "
                "'none'."
            )

    def __getitem__(self, key: str) -> Any:
        """Deprecated, as ``ModelConfig[key]``."""
        return deprecated_item(self, key)


def check_d_osc(d_osc: int, name: str = "d_osc") -> None:
    r"""The config path's one statement of $d_{osc} \ge 2$ (oscillators on
    $S^{d_{osc}-1}$), used by [`OscillatorConfig`][syncattn.models.OscillatorConfig] and
    by the experiments' configs that sweep it (``nn.OscillatorAttention`` keeps its own
    check, for a layer built directly from Python).

    Raises:
        ValueError: ``"{name} must be >= 2 ..."``.
    """
    if d_osc < 2:
        raise ValueError(
            f"{name} must be >= 2 (oscillators on S^(d_osc-1)); got {d_osc}."
        )

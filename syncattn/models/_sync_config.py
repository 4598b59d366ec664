r"""The synchronisation family's sub-config, ``ModelConfig.sync`` (issue 28)."""

from __future__ import annotations

import dataclasses
from typing import Any

from .._overrides import check_value, deprecated_item, field_types


__all__ = ["SyncConfig", "group_kind", "check_sync", "check_frustrated", "DRIFTS", "READOUTS"]

DRIFTS = ("planes", "full", "none")
READOUTS = ("prototype", "vonmises", "lift_linear")


@dataclasses.dataclass(frozen=True)
class SyncConfig:
    r"""The synchronisation family's own fields (``ModelConfig.sync``; issue 28).

    Set from overrides by dotted keys: ``get_config("1m", attention="sphere",
    **{"sync.sphere_dim": 3})``, ``syncattn train --model sphere sync.readout=vonmises``.

    Attributes:
        sphere_dim: $n \ge 2$, the ambient dimension of the sphere model's states
            $z_{tj} \in S^{n-1}$ (``attention="sphere"``).
        group: the group model's group (``attention="group"``): ``"so<n>"`` ($n \ge 2$,
            real states) or ``"u<n>"`` ($n \ge 1$, complex states), as
            [`syncattn.group.parse_group`][] reads it: ``"so3"``, ``"u2"``, ``"u1"``.
        drift: the rotary drift $e^{(t-u)\Omega_j}$ of the sphere and group attention:
            ``"planes"`` ($\lfloor n/2\rfloor$ plane rotations with learned rates),
            ``"full"`` (a learned generator) or ``"none"``. The Kuramoto model's drift
            is its phase drift $\omega_j(t-u)$: ``"planes"`` only.
        readout: the logits from the state: ``"prototype"`` ($\ell_{tv} = \sigma
            \sum_j\langle s_{tj}, p_{vj}\rangle$, [`syncattn.nn.AlignmentReadout`][];
            the Kuramoto model's [`syncattn.nn.PrototypeReadout`][]), ``"vonmises"``
            (a learned concentration per prototype and oscillator,
            [`syncattn.nn.VonMisesReadout`][]) or ``"lift_linear"`` (a linear head on
            the lift, [`syncattn.nn.LiftLinearReadout`][]).
        harmonics: $M \ge 1$, the Daido harmonics of the frustrated models
            (``attention="frustrated"``, ``"frustrated-mf"``;
            [`syncattn.nn.FrustratedAttention`][]; also the collective modes' $M$).
            Default 1 (the Sakaguchi frustration $\arg c_1$ and the delayed coupling
            $b_1$): each harmonic widens the attention's value stream by $2k_h$, and at
            "1m" on CPU $M = 2$ trains 1.56-1.77x slower than the Kuramoto model,
            $M = 1$ within the issue's 1.3x (benchmarks/training.py, docs/benchmarks.md).
        delay: the frustrated attention's delayed stream $W^m_t = \sum_{u<t} A_{tu}
            e^{im\theta_{u+1}}$ (``False``: the ablation without it, $b = 0$).
    """

    sphere_dim: int = 4
    group: str = "so3"
    drift: str = "planes"
    readout: str = "prototype"
    harmonics: int = 1
    delay: bool = True

    def __post_init__(self):
        for key, tp in field_types(SyncConfig).items():
            checked = check_value(f"sync.{key}", tp, getattr(self, key))
            if checked is not getattr(self, key):
                object.__setattr__(self, key, checked)
        if self.harmonics < 1:
            raise ValueError(
                f"sync.harmonics must be >= 1 (harmonics m = 1..M); got {self.harmonics}."
            )
        if self.sphere_dim < 2:
            raise ValueError(
                f"sync.sphere_dim must be >= 2 (states on S^(n-1)); got {self.sphere_dim}."
            )
        try:
            group_kind(self.group)
        except ValueError as e:
            raise ValueError(f"sync.group: {e}") from None
        for field, allowed in (("drift", DRIFTS), ("readout", READOUTS)):
            if getattr(self, field) not in allowed:
                raise ValueError(
                    f"sync.{field} must be one of {allowed}; got {getattr(self, field)!r}."
                )

    def __getitem__(self, key: str) -> Any:
        """Deprecated, as ``ModelConfig[key]``."""
        return deprecated_item(self, key)


def group_kind(name: str) -> tuple[str, int]:
    """``("so" | "u", n)`` of a group name ([`syncattn.group.parse_group`][]).

    Raises:
        ValueError: an unknown group name.
    """
    from ..group import parse_group

    return parse_group(name)


def check_sync(config, sync_attentions: tuple[str, ...]) -> None:
    """The synchronisation family's combinations in the ModelConfig `config` (``sync``,
    ffn, positions, ...; its ``__post_init__``).

    Raises:
        ValueError: naming the field.
    """
    self = config
    a, sync = self.attention, self.sync
    if a not in sync_attentions:
        changed = [f"sync.{f.name}" for f in dataclasses.fields(SyncConfig)
                   if getattr(sync, f.name) != f.default]  # fmt: skip
        if changed:
            raise ValueError(
                f"{', '.join(changed)} applies to the synchronisation models (attention "
                f"in {sync_attentions}); got attention={a!r}."
            )
        return
    torus = a in ("kuramoto", "frustrated", "frustrated-mf")
    if torus and sync.drift != "planes":
        raise ValueError(
            f"the {a} model's drift is its phase drift omega_j (t - u): "
            f"sync.drift must be 'planes'; got {sync.drift!r}."
        )
    if not a.startswith("frustrated"):
        for f in ("harmonics", "delay"):
            if getattr(sync, f) != SyncConfig.__dataclass_fields__[f].default:
                raise ValueError(
                    f"sync.{f} applies to the frustrated models (attention='frustrated' or "
                    f"'frustrated-mf'); got attention={a!r}."
                )
    if torus:
        return  # their own checks follow (kept as they were)
    if self.task != "lm":
        raise ValueError(f"the {a} model is a causal LM; task must be 'lm' (got "
                         f"{self.task!r}).")  # fmt: skip
    if self.ffn not in ("lift", "none"):
        raise ValueError(
            f"the {a} model's feed-forward is the lift SwiGLU: ffn must be 'lift' or "
            f"'none'; got ffn={self.ffn!r}."
        )
    if self.positions != "rope":
        raise ValueError(
            f"the {a} model's positions are its rotary drift exp((t - u) Omega_j); set "
            f"positions='rope' (got {self.positions!r})."
        )
    if self.tie_embeddings:
        raise ValueError(f"the {a} model reads out through its readout head; "
                         "tie_embeddings must be False.")  # fmt: skip


def check_frustrated(config) -> None:
    """The frustrated models' combinations (issue 40): ``frustrated-mf`` has the collective
    modes (``ffn="modes"``) and only it; both couple the phases (``value="phase"``).

    Raises:
        ValueError: naming the field.
    """
    a, ffn = config.attention, config.ffn
    if a == "frustrated-mf" and ffn != "modes":
        raise ValueError(
            "the frustrated-mf model's feed-forward is its coupling to d_ff collective "
            f"modes: ffn must be 'modes' (got {ffn!r}; attention='frustrated' has the angle "
            "SwiGLU)."
        )
    if ffn == "modes" and a != "frustrated-mf":
        raise ValueError(
            "ffn='modes' (coupling to learned collective modes) is the frustrated-mf model's "
            f"block; got attention={a!r}."
        )
    if a.startswith("frustrated") and config.value != "phase":
        raise ValueError(
            f"the {a} model couples the phases themselves (its identities need them): value "
            f"must be 'phase'; got {config.value!r}."
        )

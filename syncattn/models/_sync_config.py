r"""The synchronisation family's sub-config, ``ModelConfig.sync`` (issue 28)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from .._overrides import check_value, deprecated_item, field_types
from ..group import parse_group
from ._geometry import geometry_of, phase_states


__all__ = ["SyncConfig", "DRIFTS", "READOUTS", "VALUES", "GATE_NORMS", "FRUSTRATIONS"]

DRIFTS = ("planes", "full", "none")
READOUTS = ("prototype", "vonmises", "lift_linear")
VALUES = ("phase", "learned")
GATE_NORMS = ("mean", "none")
# FrustratedAttention's `frustration` (syncattn.nn: FRUSTRATIONS, tested equal)
FRUSTRATIONS = ("learned", "delay-only", "successor")


@dataclasses.dataclass(frozen=True)
class SyncConfig:
    r"""The synchronisation family's own fields (``ModelConfig.sync``; issues 28, 41).

    Set from overrides by dotted keys: ``get_config("1m", attention="sphere",
    **{"sync.sphere_dim": 3})``, ``syncattn train --model sphere sync.readout=vonmises``;
    the flat keys of the configs before the split (``tau=2``) are accepted as aliases
    ([`syncattn.models.ModelConfig`][]). Any field off its default is an error for the
    other attentions.

    Attributes:
        sphere_dim: $n \ge 2$, the ambient dimension of the sphere model's states
            $z_{tj} \in S^{n-1}$ (``attention="sphere"``) and of the Stiefel model's
            frames $X_{tj} \in \mathrm{St}(p, n)$ (``attention="stiefel"``).
        stiefel_p: $1 \le p \le n$, the Stiefel model's frame size: orthonormal
            $p$-frames in $\mathbb{R}^n$ ([`syncattn.geometry.Stiefel`][]; $p = 1$ is
            the sphere model's state space).
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
        frustration: the frustrated attention's coefficients (issue 44):
            ``"learned"`` ($c$ and $b$), or a fixed-coefficient control (both need
            ``delay``): ``"delay-only"`` ($c$ held at the Kuramoto coupling
            $c_1 = 1$, $c_{m\ge2} = 0$; $b$ learned) or ``"successor"`` ($c = 0$,
            $b = (1, 0, \dots, 0)$ held: $F_t = \sum_{u<t} A_{tu}\sin(\theta_{u+1} -
            \theta_t)$, Kuramoto attention on the successors' phases). Held
            coefficients are no parameters.
        value: the value path: ``"phase"`` (the state itself: the Kuramoto identity,
            the Lohe coupling; ``value="state"`` of the sphere and group layers) or
            ``"learned"`` (the ablation; not for the frustrated models).
        gates: the metric gates on (``False`` is the ablation).
        gate_norm: the gates' normalisation: ``"mean"`` (softplus divided by its mean
            over the coordinates, seed 000's) or ``"none"`` (softplus alone, a probe).
        tau: the attention's initial temperature $\tau > 0$ (learned).
        bound: the bound $\beta > 0$ on the rms of the tangent steps (attention and
            feed-forward).
        readout_scale: the prototype (and von Mises) readout's initial
            $\sigma\sqrt{k} > 0$.
    """

    sphere_dim: int = 4
    stiefel_p: int = 2
    group: str = "so3"
    drift: str = "planes"
    readout: str = "prototype"
    harmonics: int = 1
    delay: bool = True
    frustration: str = "learned"
    value: str = "phase"
    gates: bool = True
    gate_norm: str = "mean"
    tau: float = 1.0
    bound: float = 1.0
    readout_scale: float = 1.0

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
        if not 1 <= self.stiefel_p <= self.sphere_dim:
            raise ValueError(
                f"sync.stiefel_p must be in [1, sync.sphere_dim = {self.sphere_dim}] "
                f"(p-frames in R^n); got {self.stiefel_p}."
            )
        try:
            parse_group(self.group)
        except ValueError as e:
            raise ValueError(f"sync.group: {e}") from None
        for field, allowed in (
            ("drift", DRIFTS),
            ("readout", READOUTS),
            ("value", VALUES),
            ("gate_norm", GATE_NORMS),
            ("frustration", FRUSTRATIONS),
        ):
            if getattr(self, field) not in allowed:
                raise ValueError(
                    f"sync.{field} must be one of {allowed}; got {getattr(self, field)!r}."
                )
        for field in ("tau", "bound", "readout_scale"):
            v = getattr(self, field)
            if not v > 0 or not math.isfinite(v):
                raise ValueError(f"sync.{field} must be a finite number > 0; got {v}.")

    def check(self, config, sync_attentions: tuple[str, ...]) -> None:
        """This part against the rest of the ModelConfig `config` (its
        ``__post_init__``): set only for the synchronisation models (attention in
        `sync_attentions`), whose task, feed-forward, positions and head it fixes.

        Raises:
            ValueError: naming the field.
        """
        _check_sync(config, sync_attentions)
        _check_frustrated(config)
        _check_torus(config, sync_attentions)

    def __getitem__(self, key: str) -> Any:
        """Deprecated, as ``ModelConfig[key]``."""
        return deprecated_item(self, key)


def _phases(config) -> bool:
    """Whether `config` is a model of phases (the torus models: Kuramoto, frustrated),
    read from its geometry."""
    return phase_states(geometry_of(config))


def _check_sync(config, sync_attentions: tuple[str, ...]) -> None:
    """The synchronisation family's combinations: ``sync`` only for its models, the
    torus models' drift, the frustrated models' harmonics, delay and frustration, and the sphere
    and group models' task, feed-forward, positions and head."""
    a, sync = config.attention, config.sync
    if a not in sync_attentions:
        changed = [
            f"sync.{f.name}"
            for f in dataclasses.fields(SyncConfig)
            if getattr(sync, f.name) != f.default
        ]
        if changed:
            raise ValueError(
                f"{', '.join(changed)} applies to the synchronisation models (attention "
                f"in {sync_attentions}); got attention={a!r}."
            )
        if config.ffn == "lift":
            raise ValueError(
                "ffn='lift' (the feed-forward on the lift of a synchronisation state) "
                f"needs attention in {sync_attentions}; got attention={a!r}."
            )
        return
    if _phases(config) and sync.drift != "planes":
        raise ValueError(
            f"the {a} model's drift is its phase drift omega_j (t - u): "
            f"sync.drift must be 'planes'; got {sync.drift!r}."
        )
    if not a.startswith("frustrated"):
        for f in ("harmonics", "delay", "frustration"):
            if getattr(sync, f) != SyncConfig.__dataclass_fields__[f].default:
                raise ValueError(
                    f"sync.{f} applies to the frustrated models (attention='frustrated' or "
                    f"'frustrated-mf'); got attention={a!r}."
                )
    if not _phases(config):
        _check_geometric(config)


def _check_geometric(config) -> None:
    """The sphere and group models: a causal LM with the lift SwiGLU, rotary drift and
    a readout head."""
    a = config.attention
    if config.task != "lm":
        raise ValueError(
            f"the {a} model is a causal LM; task must be 'lm' (got {config.task!r})."
        )
    if config.ffn not in ("lift", "none"):
        raise ValueError(
            f"the {a} model's feed-forward is the lift SwiGLU: ffn must be 'lift' or "
            f"'none'; got ffn={config.ffn!r}."
        )
    if config.positions != "rope":
        raise ValueError(
            f"the {a} model's positions are its rotary drift exp((t - u) Omega_j); set "
            f"positions='rope' (got {config.positions!r})."
        )
    if config.tie_embeddings:
        raise ValueError(
            f"the {a} model reads out through its readout head; tie_embeddings must be "
            "False."
        )


def _check_torus(config, sync_attentions: tuple[str, ...]) -> None:
    """The models on the torus (Kuramoto, frustrated): a causal LM with the phase drift
    as positions, the angle (or lift) SwiGLU and the prototype phases as head."""
    a = config.attention
    if a not in sync_attentions or not _phases(config):
        return
    if config.task != "lm":
        raise ValueError(
            f"the {a} model is a causal LM; task='classifier' needs "
            "attention='oscillator' or 'softmax'."
        )
    if config.positions != "rope":
        raise ValueError(
            f"the {a} model's positions are its learned phase drift "
            f"omega_j (t - u); set positions='rope' (got {config.positions!r})."
        )
    if config.ffn == "gelu":
        raise ValueError(
            "the Kuramoto model's feed-forward is the angle SwiGLU or the lift "
            "SwiGLU; ffn must be 'swiglu', 'lift' or 'none' (got 'gelu')."
        )
    if config.tie_embeddings:
        raise ValueError(
            f"the {a} model reads out through prototype phases; "
            "tie_embeddings must be False."
        )


def _check_frustrated(config) -> None:
    """The frustrated models' combinations (issue 40): ``frustrated-mf`` has the collective
    modes (``ffn="modes"``) and only it; both couple the phases (``sync.value="phase"``);
    a fixed-coefficient control (``sync.frustration``) needs the delayed stream."""
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
    if a.startswith("frustrated") and config.sync.value != "phase":
        raise ValueError(
            f"the {a} model couples the phases themselves (its identities need them): "
            f"sync.value must be 'phase'; got {config.sync.value!r}."
        )
    f = config.sync.frustration
    if a.startswith("frustrated") and f != "learned" and not config.sync.delay:
        raise ValueError(
            f"sync.frustration={f!r} couples through the delayed stream W (b): it needs "
            "sync.delay=True; got sync.delay=False."
        )

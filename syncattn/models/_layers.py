"""The seam between the model configs and the layers of [`syncattn.nn`][].

Every constructor call of an ``nn`` layer made by the models goes through
here, so the models follow the layers' signatures in one place.
"""

from __future__ import annotations

import equinox as eqx
import jax

from .._numerics import default_floating_dtype
from ._config import ModelConfig
from ._geometry import geometry_of, phase_states


def dtype():
    """Parameter dtype at construction (float64 under x64, else float32)."""
    return default_floating_dtype()


def _nn():
    from .. import nn

    return nn


def make_norm(config: ModelConfig) -> eqx.Module:
    if config.norm == "layernorm":
        return eqx.nn.LayerNorm(config.d_model, eps=config.norm_eps, dtype=dtype())
    return _nn().RMSNorm(config.d_model, eps=config.norm_eps)


def apply_norm(norm: eqx.Module, x):
    # equinox's LayerNorm takes one token; nn.RMSNorm takes the sequence (T, d).
    if isinstance(norm, eqx.nn.LayerNorm):
        return jax.vmap(norm)(x)
    return norm(x)


def make_attention(config: ModelConfig, *, causal: bool, key) -> eqx.Module:
    nn = _nn()
    if config.attention == "softmax":
        return nn.SoftmaxAttention(
            config.d_model,
            config.n_heads,
            key=key,
            causal=causal,
            rope=config.positions == "rope",
            rope_base=config.rope_base,
            out_bias=config.out_bias,
            freeze_values=config.freeze_values,
        )
    if config.attention == "oscillator":
        return nn.OscillatorAttention(
            config.d_model,
            config.n_heads,
            config.osc.d_osc,
            config.max_len,
            key=key,
            coupling=config.osc.coupling,
            p=config.osc.p,
            equilibrium=config.osc.equilibrium,
            impl=config.osc.impl,
            causal=causal,
            anchors=config.osc.anchors,
            normalize_anchors=config.osc.normalize_anchors,
            mask_readout=config.osc.mask_readout,
            freeze_values=config.freeze_values,
            relative_rotation=config.osc.relative_rotation,
            query_scale=config.osc.query_scale,
        )
    raise ValueError(f"no transformer attention {config.attention!r}.")


def call_attention(attention: eqx.Module, x, mask, *, key=None, substrate_key=None):
    """The block's attention call; `key` is the block's training key (None: evaluation).

    Oscillator layers take their `substrate_key` (and in training, with
    `train_with_substrate`, a key folded from `key`): `nn._substrate.call_in_model`.
    """
    if isinstance(attention, _nn().OscillatorAttention):
        from ..nn import call_in_model

        return call_in_model(attention, x, mask, key=key, substrate_key=substrate_key)
    if mask is None:
        return attention(x)
    return attention(x, mask=mask)


def make_swiglu(config: ModelConfig, *, key) -> eqx.Module:
    return _nn().SwiGLU(config.d_model, config.d_ff, key=key)


def call_swiglu(ffn: eqx.Module, x):
    return ffn(x)


# --------------------------------------------------------------------------- synchronisation models
# SyncLM's pieces, one factory each, on the model's geometry (`geometry_of`): the phase
# models (the torus) keep seed 000's classes, so their parameters and checkpoints are
# unchanged; every other geometry gets the generic layers on its geometry object.


def _sync_value(config: ModelConfig) -> str:
    return "state" if config.sync.value == "phase" else "learned"


def _phases(config: ModelConfig) -> bool:
    return phase_states(geometry_of(config))


def make_state_embedding(config: ModelConfig, *, key) -> eqx.Module:
    if _phases(config):
        return make_phase_embedding(config, key=key)
    return _nn().StateEmbedding(
        config.vocab_size, config.d_model, key=key, space=geometry_of(config)
    )


def make_sync_attention(config: ModelConfig, *, key) -> eqx.Module:
    if config.attention == "kuramoto":
        return make_kuramoto_attention(config, key=key)
    if config.attention in ("frustrated", "frustrated-mf"):
        return make_frustrated_attention(config, key=key)
    c = config
    return _nn().SyncAttention(
        geometry_of(c),
        c.d_model,
        c.n_heads,
        key=key,
        value=_sync_value(c),
        gates=c.sync.gates,
        tau=c.sync.tau,
        bound=c.sync.bound,
        rope_base=c.rope_base,
        gate_norm=c.sync.gate_norm,
    )


def call_sync_attention(attention: eqx.Module, state, diagnostics: bool = False):
    if diagnostics:
        return attention(state, diagnostics=True)
    return attention(state)


def make_sync_ffn(config: ModelConfig, *, key) -> eqx.Module:
    if config.ffn == "modes":
        # one softmax over the modes for all k coordinates: a mode is a collective state of
        # the whole token (and n_heads times fewer exponentials than a softmax per head)
        return _nn().CollectiveModes(
            config.d_model,
            config.d_ff,
            1,
            key=key,
            order=config.sync.harmonics,
            tau=config.sync.tau,
            bound=config.sync.bound,
        )
    if _phases(config):
        return make_angle_swiglu(config, key=key)
    return _nn().LiftSwiGLU(
        config.d_model,
        config.d_ff,
        key=key,
        bound=config.sync.bound,
        space=geometry_of(config),
    )


def call_sync_ffn(ffn: eqx.Module, state):
    return ffn(state)


def make_sync_readout(config: ModelConfig, *, key) -> eqx.Module:
    nn, c = _nn(), config
    kind = c.sync.readout
    if kind == "prototype" and _phases(c):
        return make_prototype_readout(c, key=key)
    geo, V, scale = geometry_of(c), c.vocab_size, c.sync.readout_scale
    if kind == "prototype":
        return nn.AlignmentReadout(c.d_model, V, key=key, space=geo, scale=scale)
    if kind == "vonmises":
        return nn.VonMisesReadout(c.d_model, V, key=key, space=geo, scale=scale)
    return nn.LiftLinearReadout(c.d_model, V, key=key, space=geo)


# --------------------------------------------------------------------------- Kuramoto model


def make_phase_embedding(config: ModelConfig, *, key) -> eqx.Module:
    return _nn().PhaseEmbedding(config.vocab_size, config.d_model, key=key)


def make_kuramoto_attention(config: ModelConfig, *, key) -> eqx.Module:
    return _nn().KuramotoAttention(
        config.d_model,
        config.n_heads,
        key=key,
        value=config.sync.value,
        gates=config.sync.gates,
        tau=config.sync.tau,
        bound=config.sync.bound,
        rope_base=config.rope_base,
        gate_norm=config.sync.gate_norm,
    )


def make_frustrated_attention(config: ModelConfig, *, key) -> eqx.Module:
    if config.sync.value != "phase":
        raise ValueError(
            f"the {config.attention} model couples the phases themselves: value must be "
            f"'phase' (got {config.sync.value!r})."
        )
    return _nn().FrustratedAttention(
        config.d_model,
        config.n_heads,
        key=key,
        order=config.sync.harmonics,
        delay=config.sync.delay,
        frustration=config.sync.frustration,
        gates=config.sync.gates,
        tau=config.sync.tau,
        bound=config.sync.bound,
        rope_base=config.rope_base,
        gate_norm=config.sync.gate_norm,
    )


def call_kuramoto_attention(attention: eqx.Module, theta, diagnostics: bool = False):
    if diagnostics:
        return attention(theta, diagnostics=True)
    return attention(theta)


def make_angle_swiglu(config: ModelConfig, *, key) -> eqx.Module:
    if config.ffn == "lift":
        return _nn().LiftSwiGLU(
            config.d_model, config.d_ff, key=key, bound=config.sync.bound
        )
    return _nn().AngleSwiGLU(
        config.d_model, config.d_ff, key=key, bound=config.sync.bound
    )


def call_angle_swiglu(ffn: eqx.Module, theta):
    return ffn(theta)


def make_prototype_readout(config: ModelConfig, *, key) -> eqx.Module:
    return _nn().PrototypeReadout(
        config.d_model, config.vocab_size, key=key, scale=config.sync.readout_scale
    )

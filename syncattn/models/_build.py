"""Build a model from its config; count its parameters; describe it in one line."""

from __future__ import annotations

import math

import equinox as eqx
import jax

from .._trees import cast_floating, count_parameters
from .._types import PRNGKeyArray
from ._config import SYNC_ATTENTIONS, ModelConfig
from ._geometry import geometry_of, phase_states


__all__ = ["build", "count_params", "describe", "cast", "state_size"]


def build(config: ModelConfig, *, key: PRNGKeyArray) -> eqx.Module:
    """The model described by ``config``.

    * ``attention`` in ``SYNC_ATTENTIONS`` (``"kuramoto"``, ``"sphere"``, ``"group"``,
      ``"frustrated"``, ``"frustrated-mf"``: the geometries of
      [`geometry_of`][syncattn.models.geometry_of]):
      [`syncattn.models.SyncLM`][] (``"kuramoto"``: seed 000's model,
      ``KuramotoLM``);
    * ``task="lm"``: [`syncattn.models.TransformerLM`][];
    * ``task="classifier"``: [`syncattn.models.Classifier`][] (seed 001, B2).

    Args:
        config: a [`ModelConfig`][syncattn.models.ModelConfig], e.g. from
            [`syncattn.models.get_config`][].
        key: PRNG key for the initial parameters.

    Raises:
        TypeError: if ``config`` is not a ``ModelConfig``.
    """
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a syncattn.models.ModelConfig (see models.get_config); "
            f"got {type(config).__name__}."
        )
    if config.attention in SYNC_ATTENTIONS:
        from ._sync import SyncLM

        return SyncLM(config, key=key)
    from ._transformer import Classifier, TransformerLM

    if config.task == "classifier":
        return Classifier(config, key=key)
    return TransformerLM(config, key=key)


def count_params(model) -> int:
    r"""Number of trainable scalars: $\sum$ of the sizes of the floating arrays
    in ``model`` (also accepts the ``jax.ShapeDtypeStruct`` leaves of
    ``eqx.filter_eval_shape(build, config, key=key)``); the same count as
    [`syncattn.training.count_parameters`][]."""
    return count_parameters(model)


def config_params(config: ModelConfig) -> int:
    """Parameter count of ``build(config)``, without allocating the model."""
    shapes = eqx.filter_eval_shape(build, config, key=jax.random.key(0))
    return count_params(shapes)


def describe(config: ModelConfig) -> str:
    """One line for logs and the training CLI, with the parameter count."""
    c = config
    kind = {"lm": "causal LM", "classifier": "bidirectional classifier"}[c.task]
    parts = [
        f"{c.name}: {c.attention} {kind}",
        f"{c.n_layers} layer{'s' if c.n_layers > 1 else ''}",
        f"d_model {c.d_model}",
        f"{c.n_heads} head{'s' if c.n_heads > 1 else ''}",
        f"d_ff {c.d_ff} ({c.ffn})",
    ]
    if c.attention not in SYNC_ATTENTIONS:
        parts.append(c.norm)
        parts.append(f"{c.positions} positions")
    if c.attention == "oscillator":
        parts.append(f"d_osc {c.osc.d_osc}, p {c.osc.p}, {c.osc.coupling}")
    if c.attention in SYNC_ATTENTIONS:
        parts.extend(_sync_parts(c))
    parts.append(f"state {state_size(c)} per token")
    if c.dropout:
        parts.append(f"dropout {c.dropout:g}")
    parts.append(f"vocab {c.vocab_size}, max_len {c.max_len}")
    parts.append(f"{config_params(c):,} params")
    return ", ".join(parts)


def _sync_parts(c: ModelConfig) -> list[str]:
    """The synchronisation model's part of `describe`: its geometry (from
    [`geometry_of`][syncattn.models.geometry_of]) and the ``sync`` fields off their
    defaults."""
    geo, s = geometry_of(c), c.sync
    parts = []
    if s.value != "phase" or not s.gates:
        parts.append(f"value {s.value}, gates {s.gates}")
    if not phase_states(geo):
        parts.append(f"geometry {geo.space} (dim {geo.dim}, lift {geo.m})")
    if c.attention.startswith("frustrated"):
        parts.append(
            f"M {s.harmonics}" + (", delayed stream" if s.delay else ", no delay")
        )
        if s.frustration != "learned":  # a fixed-coefficient control (issue 44)
            parts.append(f"frustration {s.frustration}")
    if s.drift != "planes":  # the phase models' drift is "planes" (SyncConfig)
        parts.append(f"drift {s.drift}")
    if s.readout != "prototype":
        parts.append(f"readout {s.readout}")
    return parts


def state_size(config: ModelConfig) -> int:
    r"""Real numbers per token in the model's state.

    $$|s_t| = \begin{cases} d & \text{transformers (the residual stream)} \\
      k\,|\text{fiber}|\,(1 + [\text{complex}]) & \text{a synchronisation model}
      \end{cases}$$

    with $k$ = ``d_model`` and the fiber the shape of one oscillator's state in its
    geometry ([`geometry_of`][syncattn.models.geometry_of]; the stored coordinates, not
    the manifold's dimension): torus $k$, sphere $(S^{n-1})^k$ $kn$, $SO(n)^k$ $kn^2$,
    $U(n)^k$ $2kn^2$ (complex entries).
    """
    k = config.d_model
    if config.attention not in SYNC_ATTENTIONS:
        return k
    geo = geometry_of(config)
    return k * math.prod(geo.fiber) * (2 if geo.complex else 1)


def complex_states(config: ModelConfig) -> bool:
    """Whether the model's states are complex (its geometry's ``complex``: $U(n)$)."""
    return config.attention in SYNC_ATTENTIONS and geometry_of(config).complex


def check_dtype(config: ModelConfig, dtype) -> None:
    """The dtype rule of the state: real states (torus, sphere, SO(n)) float32,
    bfloat16 or float64; $U(n)$ states complex64 / complex128 only, so their
    parameters float32 or float64 (no bfloat16: JAX has no bfloat16 complex type).

    Raises:
        ValueError: bfloat16 for a $U(n)$ model.
    """
    import jax.numpy as jnp

    from .._trees import float_dtype

    if complex_states(config) and jnp.dtype(float_dtype(dtype)) == jnp.bfloat16:
        raise ValueError(
            f"the {geometry_of(config).space} model has complex states (complex64/complex128 only): "
            "its dtype must be float32 or float64, not bfloat16 (no bfloat16 complex type)."
        )


def cast(model, dtype):
    """``model`` with every floating parameter cast to ``dtype`` (e.g.
    ``jnp.bfloat16`` for low-precision compute); the same cast as
    [`syncattn.training.cast_floating`][], and a $U(n)$ model's complex parameters to
    the complex counterpart (float32: complex64, float64: complex128).

    Raises:
        ValueError: ``bfloat16`` for a $U(n)$ group model (its states are complex64 or
            complex128 only).
    """
    config = getattr(model, "config", None)
    if isinstance(config, ModelConfig):
        check_dtype(config, dtype)
    # a U(n) model's complex parameters follow (float32: complex64, float64: complex128)
    return cast_floating(model, dtype, complex_too=True)

"""Build a model from its config; count its parameters; describe it in one line."""

from __future__ import annotations

import equinox as eqx
import jax

from .._trees import cast_floating, count_parameters
from .._types import PRNGKeyArray
from ._config import ModelConfig


__all__ = ["build", "count_params", "describe", "cast"]


def build(config: ModelConfig, *, key: PRNGKeyArray) -> eqx.Module:
    """The model described by ``config``.

    * ``attention="kuramoto"``: [`syncattn.models.KuramotoLM`][] (seed 000);
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
    if config.attention == "kuramoto":
        from ._kuramoto import KuramotoLM

        return KuramotoLM(config, key=key)
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
    if c.attention != "kuramoto":
        parts.append(c.norm)
        parts.append(f"{c.positions} positions")
    if c.attention == "oscillator":
        parts.append(f"d_osc {c.d_osc}, p {c.p}, {c.coupling}")
    if c.attention == "kuramoto" and (c.value != "phase" or not c.gates):
        parts.append(f"value {c.value}, gates {c.gates}")
    if c.dropout:
        parts.append(f"dropout {c.dropout:g}")
    parts.append(f"vocab {c.vocab_size}, max_len {c.max_len}")
    parts.append(f"{config_params(c):,} params")
    return ", ".join(parts)


def cast(model, dtype):
    """``model`` with every floating parameter cast to ``dtype`` (e.g.
    ``jnp.bfloat16`` for low-precision compute); the same cast as
    [`syncattn.training.cast_floating`][]."""
    return cast_floating(model, dtype)

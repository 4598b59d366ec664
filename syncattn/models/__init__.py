r"""Language models and the agreement classifier, built from [`syncattn.nn`][].

* [`get_config`][syncattn.models.get_config] / [`build`][syncattn.models.build]:
  a frozen [`ModelConfig`][syncattn.models.ModelConfig] from a named preset
  (``list_configs()``) with ``key=value`` overrides, then the model;
* the causal LMs ([`TransformerLM`][syncattn.models.TransformerLM],
  [`SyncLM`][syncattn.models.SyncLM], alias ``KuramotoLM``: states on the torus,
  a sphere or a group) map token ids ``(T,)`` to
  logits ``(T, vocab)``; the [`Classifier`][syncattn.models.Classifier] maps
  them to one logit per position;
* [`geometry_of`][syncattn.models.geometry_of]: the
  [`syncattn.geometry.Geometry`][] a synchronisation model's states live on (one line
  of ``SPACES`` per geometry);
* [`attention_diagnostics`][syncattn.models.attention_diagnostics]: one layer's
  attention internals (drives, equilibria) on a sequence;
* [`shape_for_params`][syncattn.models.shape_for_params] /
  [`config_for_params`][syncattn.models.config_for_params]: the shape of a given
  parameter count (the size rule of the compute-matched ladder);
* [`count_params`][syncattn.models.count_params] and
  [`describe`][syncattn.models.describe] for logs.

Models take one unbatched sequence; ``jax.vmap`` over a batch.

Example:
    >>> import jax
    >>> from syncattn import models
    >>> cfg = models.get_config("tiny", attention="softmax")
    >>> model = models.build(cfg, key=jax.random.key(0))
    >>> model(jax.numpy.arange(8)).shape
    (8, 256)
"""

__all__ = [
    "ModelConfig",
    "get_config",
    "list_configs",
    "parse_overrides",
    "override_fields",
    "replace",
    "build",
    "cast",
    "config_params",
    "count_params",
    "describe",
    "depth_for_params",
    "shape_for_params",
    "config_for_params",
    "TransformerLM",
    "KuramotoLM",
    "SyncLM",
    "SyncConfig",
    "OscillatorConfig",
    "state_size",
    "check_dtype",
    "ATTENTIONS",
    "SYNC_ATTENTIONS",
    "SPACES",
    "geometry_of",
    "Classifier",
    "Encoder",
    "Block",
    "GeluFFN",
    "LearnedPositions",
    "sinusoidal_positions",
    "dropout",
    "attention_diagnostics",
]

from ._build import (
    build as build,
    cast as cast,
    check_dtype as check_dtype,
    config_params as config_params,
    count_params as count_params,
    describe as describe,
    state_size as state_size,
)
from ._config import (
    ATTENTIONS as ATTENTIONS,
    SYNC_ATTENTIONS as SYNC_ATTENTIONS,
    ModelConfig as ModelConfig,
    OscillatorConfig as OscillatorConfig,
    SyncConfig as SyncConfig,
    check_d_osc as check_d_osc,
    override_fields as override_fields,
    parse_overrides as parse_overrides,
    replace as replace,
)
from ._geometry import SPACES as SPACES, geometry_of as geometry_of
from ._inspect import attention_diagnostics as attention_diagnostics
from ._positions import (
    LearnedPositions as LearnedPositions,
    sinusoidal_positions as sinusoidal_positions,
)
from ._presets import get_config as get_config, list_configs as list_configs
from ._sizes import (
    DEPTHS as DEPTHS,
    FF_RATIO as FF_RATIO,
    HEAD_WIDTH as HEAD_WIDTH,
    config_for_params as config_for_params,
    depth_for_params as depth_for_params,
    shape_for_params as shape_for_params,
)
from ._sync import KuramotoLM as KuramotoLM, SyncLM as SyncLM
from ._transformer import (
    Block as Block,
    Classifier as Classifier,
    Encoder as Encoder,
    GeluFFN as GeluFFN,
    TransformerLM as TransformerLM,
    dropout as dropout,
)

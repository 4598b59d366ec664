r"""Looking inside a trained model: the attention diagnostics of one layer."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from .._types import Array, Bool, Int
from . import _layers
from ._positions import sinusoidal_positions


def attention_diagnostics(
    model,
    tokens: Int[Array, " seq"],
    layer: int = -1,
    *,
    mask: Bool[Array, " seq"] | None = None,
) -> dict[str, Any]:
    r"""The diagnostics of block `layer`'s attention on `tokens` (no dropout).

    $$x^{(0)} = E[w] + P, \qquad x^{(l+1)} = \mathrm{Block}_l(x^{(l)}),\qquad
      \mathrm{aux} = \mathrm{Attn}_\ell\bigl(\mathrm{N}_1^{(\ell)}(x^{(\ell)})\bigr)\ \text{(diagnostics)}$$

    i.e. the model's own forward pass up to block $\ell$ = `layer`, whose attention is
    called with ``diagnostics=True``. For [`syncattn.nn.OscillatorAttention`][] the
    result holds the drives ``h`` ``(heads, T, d_osc)``, the equilibria ``z``, the
    anchors, the readout weights and the ``degenerate`` flags. For a
    [`syncattn.models.SyncLM`][] (torus, sphere, group) it is the model's own
    ``diagnostics=True`` dict of layer $\ell$: ``weights``, ``coupling``,
    ``increment``, the order parameters ``local_order``, ``global_order``,
    ``coherence`` and the drift ``omega``.

    Args:
        model: a [`syncattn.models.SyncLM`][], [`syncattn.models.TransformerLM`][] or
            [`syncattn.models.Classifier`][].
        tokens: ids ``(T,)``.
        layer: block index (negative counts from the end).
        mask: key-padding mask passed to the blocks (as the model's own call).

    Returns:
        The attention layer's diagnostics dict.

    Raises:
        ValueError: `layer` out of range; a model without blocks.
        TypeError: the layer's attention has no diagnostics.
    """
    from ._sync import SyncLM

    if isinstance(model, SyncLM):
        n = len(model.attentions)
        if not -n <= layer < n:
            raise ValueError(f"layer must lie in [-{n}, {n}); got {layer}.")
        return model(tokens, mask=mask, diagnostics=True)[1][layer]
    enc = getattr(model, "encoder", None)
    if enc is None or not hasattr(enc, "blocks"):
        raise ValueError(
            "model must be a SyncLM, TransformerLM or Classifier (with encoder.blocks)."
        )
    n = len(enc.blocks)
    if not -n <= layer < n:
        raise ValueError(f"layer must lie in [-{n}, {n}); got {layer}.")
    layer %= n
    cfg = enc.config
    tokens = jnp.asarray(tokens)
    x = enc.embedding[tokens]
    if cfg.pad_id is not None:
        x = jnp.where((tokens == cfg.pad_id)[:, None], jnp.zeros((), x.dtype), x)
    if cfg.positions == "sinusoidal":
        x = x + sinusoidal_positions(tokens.shape[0], cfg.d_model, dtype=x.dtype)
    elif cfg.positions == "learned":
        x = x + enc.positions(tokens.shape[0]).astype(x.dtype)
    for block in enc.blocks[:layer]:
        x = block(x, mask=mask, key=None)
    blk = enc.blocks[layer]
    y = _layers.apply_norm(blk.norm1, x)
    try:
        kw = {} if mask is None else {"mask": mask}
        out = blk.attention(y, diagnostics=True, **kw)
    except TypeError as e:
        raise TypeError(
            f"{type(blk.attention).__name__} has no diagnostics: {e}"
        ) from None
    return out[1]

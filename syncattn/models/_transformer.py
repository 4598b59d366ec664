r"""Pre-norm transformers: the causal LM and the bidirectional agreement classifier.

Both share one [`Encoder`][syncattn.models.Encoder]:

$$x^{(0)}_t = \mathrm{Drop}\big(E_{w_t} + P_t\big),\qquad
  x \leftarrow x + \mathrm{Attn}(\mathrm{N}_1 x),\qquad
  x \leftarrow x + \mathrm{FFN}(\mathrm{N}_2 x),$$

then an optional final norm. $E$ is the token embedding (the row of
``pad_id`` reads as zero, as PyTorch's ``padding_idx``), $P$ the additive
positions (sinusoidal, learned, or none when the attention applies RoPE
itself), and the attention is [`syncattn.nn.OscillatorAttention`][] or
[`syncattn.nn.SoftmaxAttention`][]. This is seed 001's block (pre-LN residual,
../shared/EXPERIMENTS.md B0) and, with RMSNorm + SwiGLU + RoPE, seed 000's
matched baseline.

All models take one unbatched sequence of token ids, shape ``(T,)``; batch with
``jax.vmap``. ``key=None`` switches dropout off (evaluation).
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._checks import is_concrete
from .._types import Array, Bool, Float, Int, PRNGKeyArray
from . import _layers
from ._config import ModelConfig
from ._positions import LearnedPositions, sinusoidal_positions


__all__ = ["Block", "Encoder", "TransformerLM", "Classifier", "GeluFFN"]


def dropout(
    x: Float[Array, "*shape"], rate: float, key: PRNGKeyArray | None
) -> Float[Array, "*shape"]:
    r"""Inverted dropout: $x \odot m / (1-\rho)$ with $m_i \sim \mathrm{Bernoulli}(1-\rho)$.

    The identity when ``key`` is ``None`` or $\rho$ = ``rate`` is 0.
    """
    if key is None or rate == 0.0:
        return x
    keep = jax.random.bernoulli(key, 1.0 - rate, x.shape)
    return jnp.where(keep, x / jnp.asarray(1.0 - rate, x.dtype), jnp.zeros((), x.dtype))


def _split(key: PRNGKeyArray | None, n: int):
    if key is None:
        return (None,) * n
    return tuple(jax.random.split(key, n))


class GeluFFN(eqx.Module):
    r"""Seed 001's feed-forward, per token:
    $\mathrm{Drop}\big(W_2\,\mathrm{Drop}(\mathrm{GELU}(W_1 x + b_1)) + b_2\big)$,
    with the exact (erf) GELU as PyTorch's default."""

    lin1: eqx.nn.Linear
    lin2: eqx.nn.Linear
    rate: float = eqx.field(static=True)

    def __init__(
        self, d_model: int, d_ff: int, *, key: PRNGKeyArray, dropout: float = 0.0
    ):
        k1, k2 = jax.random.split(key)
        self.lin1 = eqx.nn.Linear(d_model, d_ff, key=k1)
        self.lin2 = eqx.nn.Linear(d_ff, d_model, key=k2)
        self.rate = float(dropout)

    def __call__(
        self, x: Float[Array, "seq d_model"], *, key: PRNGKeyArray | None = None
    ) -> Float[Array, "seq d_model"]:
        k1, k2 = _split(key, 2)
        h = jax.nn.gelu(jax.vmap(self.lin1)(x), approximate=False)
        h = dropout(h, self.rate, k1)
        return dropout(jax.vmap(self.lin2)(h), self.rate, k2)


class Block(eqx.Module):
    r"""One pre-norm residual block:
    $x \leftarrow x + \mathrm{Attn}(\mathrm{N}_1 x)$, then
    $x \leftarrow x + \mathrm{FFN}(\mathrm{N}_2 x)$ (skipped when ``ffn="none"``)."""

    norm1: eqx.Module
    attention: eqx.Module
    norm2: eqx.Module | None
    ffn: eqx.Module | None
    rate: float = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        ka, kf = jax.random.split(key)
        causal = config.task == "lm"
        self.norm1 = _layers.make_norm(config)
        self.attention = _layers.make_attention(config, causal=causal, key=ka)
        self.rate = config.dropout
        if config.ffn == "none":
            self.norm2, self.ffn = None, None
        else:
            self.norm2 = _layers.make_norm(config)
            if config.ffn == "gelu":
                self.ffn = GeluFFN(
                    config.d_model, config.d_ff, key=kf, dropout=config.dropout
                )
            else:
                self.ffn = _layers.make_swiglu(config, key=kf)

    def __call__(
        self,
        x: Float[Array, "seq d_model"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq d_model"]:
        x = x + _layers.call_attention(
            self.attention, _layers.apply_norm(self.norm1, x), mask
        )
        if self.ffn is not None:
            h = _layers.apply_norm(self.norm2, x)
            if isinstance(self.ffn, GeluFFN):
                h = self.ffn(h, key=key)
            else:
                h = dropout(_layers.call_swiglu(self.ffn, h), self.rate, key)
            x = x + h
        return x


class Encoder(eqx.Module):
    r"""Token embedding, additive positions, $L$ blocks and the optional final norm:
    ``(T,)`` token ids to ``(T, d_model)`` features."""

    embedding: Float[Array, "vocab d_model"]
    positions: LearnedPositions | None
    blocks: tuple[Block, ...]
    final_norm: eqx.Module | None
    config: ModelConfig = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        ke, kp, kb = jax.random.split(key, 3)
        self.config = config
        emb = jax.random.normal(
            ke, (config.vocab_size, config.d_model), _layers.dtype()
        )
        if config.pad_id is not None:
            emb = emb.at[config.pad_id].set(0.0)
        self.embedding = emb
        self.positions = (
            LearnedPositions(
                config.max_len, config.d_model, key=kp, dtype=_layers.dtype()
            )
            if config.positions == "learned"
            else None
        )
        self.blocks = tuple(
            Block(config, key=k) for k in jax.random.split(kb, config.n_layers)
        )
        self.final_norm = _layers.make_norm(config) if config.final_norm else None

    def __call__(
        self,
        tokens: Int[Array, " seq"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq d_model"]:
        cfg = self.config
        T = check_tokens(tokens, cfg)
        if mask is not None:
            mask = check_mask(mask, T)
        x = self.embedding[tokens]
        if cfg.pad_id is not None:
            # padding_idx: the pad row reads (and therefore trains) as zero.
            x = jnp.where((tokens == cfg.pad_id)[:, None], jnp.zeros((), x.dtype), x)
        if cfg.positions == "sinusoidal":
            x = x + sinusoidal_positions(T, cfg.d_model, dtype=x.dtype)
        elif cfg.positions == "learned":
            x = x + self.positions(T).astype(x.dtype)
        keys = _split(key, 1 + len(self.blocks))
        x = dropout(x, cfg.dropout, keys[0])
        for block, k in zip(self.blocks, keys[1:], strict=True):
            x = block(x, mask=mask, key=k)
        if self.final_norm is not None:
            x = _layers.apply_norm(self.final_norm, x)
        return x


class TransformerLM(eqx.Module):
    r"""Causal transformer LM: logits $=\;W_o\,\mathrm{Encoder}(w) + b_o$, or
    $E\,\mathrm{Encoder}(w)$ with tied embeddings.

    Called on ``tokens`` of shape ``(T,)``; returns ``(T, vocab_size)`` logits
    where row $t$ depends on tokens $0..t$ only.
    """

    encoder: Encoder
    head: eqx.nn.Linear | None
    config: ModelConfig = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        if config.task != "lm" or config.attention == "kuramoto":
            raise ValueError(
                "TransformerLM needs task='lm' and attention 'oscillator' or "
                f"'softmax'; got task={config.task!r}, attention={config.attention!r}."
            )
        ke, kh = jax.random.split(key)
        self.config = config
        self.encoder = Encoder(config, key=ke)
        self.head = (
            None
            if config.tie_embeddings
            else eqx.nn.Linear(
                config.d_model, config.vocab_size, key=kh, dtype=_layers.dtype()
            )
        )

    def __call__(
        self,
        tokens: Int[Array, " seq"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq vocab"]:
        """Next-token logits at every position (``key=None``: no dropout)."""
        x = self.encoder(tokens, mask=mask, key=key)
        if self.head is None:
            return x @ self.encoder.embedding.T.astype(x.dtype)
        return jax.vmap(self.head)(x)


class Classifier(eqx.Module):
    r"""Bidirectional agreement classifier (seed 001, B2): one logit per position,
    $\ell_t = w^\top\,\mathrm{Encoder}(w)_t + b$; the task reads $\ell$ at the
    verb position.

    Keys equal to ``pad_id`` are masked out of the attention (unless an
    explicit ``mask`` is given).
    """

    encoder: Encoder
    head: eqx.nn.Linear
    config: ModelConfig = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        if config.task != "classifier":
            raise ValueError(
                f"Classifier needs task='classifier'; got {config.task!r}."
            )
        ke, kh = jax.random.split(key)
        self.config = config
        self.encoder = Encoder(config, key=ke)
        self.head = eqx.nn.Linear(config.d_model, 1, key=kh, dtype=_layers.dtype())

    def __call__(
        self,
        tokens: Int[Array, " seq"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
    ) -> Float[Array, " seq"]:
        """Per-position logits, shape ``(T,)``.

        Args:
            tokens: token ids, shape ``(T,)``.
            mask: True for real tokens, False for keys to ignore; default
                ``tokens != pad_id`` (all True when ``pad_id`` is None).
            key: dropout key; ``None`` for evaluation.
        """
        if mask is None and self.config.pad_id is not None:
            mask = tokens != self.config.pad_id
        x = self.encoder(tokens, mask=mask, key=key)
        return jax.vmap(self.head)(x)[:, 0]

    def classify(
        self,
        tokens: Int[Array, " seq"],
        position: Int[Array, ""] | int,
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
    ) -> Float[Array, ""]:
        """The logit at ``position`` (the verb): $\\ell_{\\text{position}}$."""
        position = jnp.asarray(position)
        if position.ndim != 0 or not jnp.issubdtype(position.dtype, jnp.integer):
            raise ValueError(
                f"position must be an integer scalar; got dtype {position.dtype}, "
                f"shape {position.shape}."
            )
        T = jnp.shape(tokens)[-1] if jnp.ndim(tokens) else 0
        if is_concrete(position) and not 0 <= int(position) < T:
            raise ValueError(f"position must lie in [0, {T}); got {int(position)}.")
        return self(tokens, mask=mask, key=key)[position]


def check_tokens(tokens, config: ModelConfig) -> int:
    """Trace-time checks of a token array; returns its length $T$."""
    if not hasattr(tokens, "dtype") or not jnp.issubdtype(tokens.dtype, jnp.integer):
        raise TypeError(
            f"tokens must be an integer array of shape (T,); got "
            f"{getattr(tokens, 'dtype', type(tokens).__name__)}."
        )
    if tokens.ndim != 1:
        raise ValueError(
            f"tokens must have shape (T,) (one unbatched sequence; use jax.vmap for "
            f"a batch); got shape {tokens.shape}."
        )
    T = tokens.shape[0]
    if not 1 <= T <= config.max_len:
        raise ValueError(
            f"tokens must have length 1 <= T <= max_len={config.max_len}; got T={T}."
        )
    if is_concrete(tokens):
        arr = np.asarray(tokens)  # concrete: check on the host, outside any trace
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= config.vocab_size:
            raise ValueError(
                f"token ids must lie in [0, vocab_size={config.vocab_size}); "
                f"got range [{lo}, {hi}]."
            )
    return T


def check_mask(mask, T: int):
    mask = jnp.asarray(mask)
    if mask.shape != (T,) or mask.dtype != jnp.bool_:
        raise ValueError(
            f"mask must be a boolean array of shape (T,)=({T},); got dtype "
            f"{mask.dtype}, shape {mask.shape}."
        )
    return mask

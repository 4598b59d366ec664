r"""Pre-norm transformers: the causal LM and the bidirectional agreement classifier.

Both share one [`Encoder`][syncattn.models.Encoder]:

$$x^{(0)}_t = \mathrm{Drop}\big(E_{w_t} + P_t\big),\qquad
  x \leftarrow x + \mathrm{Attn}(\mathrm{N}_1 x),\qquad
  x \leftarrow x + \mathrm{FFN}(\mathrm{N}_2 x),$$

then an optional final norm. $E$ is the token embedding (the row of
``pad_id`` reads as zero, as PyTorch's ``padding_idx``), or, for a model of
feature sequences (``in_features``, e.g. log-mel frames for keyword spotting),
the input projection $E(u_t) = W_{\mathrm{in}} u_t + b_{\mathrm{in}}$; $P$ the additive
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
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq d_model"]:
        x = x + _layers.call_attention(
            self.attention,
            _layers.apply_norm(self.norm1, x),
            mask,
            key=key,
            substrate_key=substrate_key,
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
    ``(T,)`` token ids to ``(T, d_model)`` features.

    With ``in_features`` $= F$ the token embedding is replaced by a linear input
    projection $x^{(0)}_t = \mathrm{Drop}(W_{\mathrm{in}} u_t + b_{\mathrm{in}} + P_t)$
    of a ``(T, F)`` feature sequence $u$ (``embedding`` is then ``None``, and
    ``vocab_size`` / ``pad_id`` are unused).
    """

    embedding: Float[Array, "vocab d_model"] | None
    positions: LearnedPositions | None
    blocks: tuple[Block, ...]
    final_norm: eqx.Module | None
    config: ModelConfig = eqx.field(static=True)
    projection: eqx.nn.Linear | None = None

    def __init__(
        self, config: ModelConfig, *, key: PRNGKeyArray, in_features: int | None = None
    ):
        ke, kp, kb = jax.random.split(key, 3)
        self.config = config
        if in_features is not None:
            if (
                isinstance(in_features, bool)
                or not isinstance(in_features, int)
                or in_features < 1
            ):
                raise ValueError(
                    f"in_features must be an int >= 1 or None; got {in_features!r}."
                )
            self.embedding = None
            self.projection = eqx.nn.Linear(
                in_features, config.d_model, key=ke, dtype=_layers.dtype()
            )
        else:
            emb = jax.random.normal(
                ke, (config.vocab_size, config.d_model), _layers.dtype()
            )
            if config.pad_id is not None:
                emb = emb.at[config.pad_id].set(0.0)
            self.embedding = emb
            self.projection = None
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
        tokens: Int[Array, " seq"] | Float[Array, "seq features"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq d_model"]:
        cfg = self.config
        if self.projection is not None:
            T = check_features(tokens, cfg, self.projection.in_features)
            x = jax.vmap(self.projection)(tokens.astype(self.projection.weight.dtype))
        else:
            T = check_tokens(tokens, cfg)
            x = self.embedding[tokens]
            if cfg.pad_id is not None:
                # padding_idx: the pad row reads (and therefore trains) as zero.
                x = jnp.where(
                    (tokens == cfg.pad_id)[:, None], jnp.zeros((), x.dtype), x
                )
        if mask is not None:
            mask = check_mask(mask, T)
        if cfg.positions == "sinusoidal":
            x = x + sinusoidal_positions(T, cfg.d_model, dtype=x.dtype)
        elif cfg.positions == "learned":
            x = x + self.positions(T).astype(x.dtype)
        keys = _split(key, 1 + len(self.blocks))
        x = dropout(x, cfg.dropout, keys[0])
        for i, (block, k) in enumerate(zip(self.blocks, keys[1:], strict=True)):
            # each block its own substrate draws (the oscillator layers' substrate_key)
            sk = None if substrate_key is None else jax.random.fold_in(substrate_key, i)
            x = block(x, mask=mask, key=k, substrate_key=sk)
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
        if config.task != "lm" or config.attention not in ("oscillator", "softmax"):
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
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, "seq vocab"]:
        """Next-token logits at every position (``key=None``: no dropout).

        ``substrate_key``: the key of the oscillator layers' non-ideal
        [`syncattn.nn.Substrate`][] (block $b$ gets ``fold_in(substrate_key, b)``).
        """
        x = self.encoder(tokens, mask=mask, key=key, substrate_key=substrate_key)
        if self.head is None:
            return x @ self.encoder.embedding.T.astype(x.dtype)
        return jax.vmap(self.head)(x)


class Classifier(eqx.Module):
    r"""Bidirectional classifier: the agreement task's one logit per position
    (seed 001, B2), or a pooled multi-class sequence classifier (keyword spotting, B1).

    * default: $\ell_t = w^\top\,\mathrm{Encoder}(w)_t + b$; the agreement task
      reads $\ell$ at the verb position ([`classify`][syncattn.models.Classifier.classify]);
    * ``n_classes`` $= C$: $\ell_t = W\,\mathrm{Encoder}(\cdot)_t + b \in \mathbb{R}^C$,
      and [`pooled`][syncattn.models.Classifier.pooled] gives the class logits of the
      whole sequence, $W \bar h + b$ with $\bar h$ the mean of the encoder features
      over the (unmasked) positions;
    * ``in_features`` $= F$: the input is a ``(T, F)`` feature sequence through a
      linear input projection instead of token ids (see
      [`Encoder`][syncattn.models.Encoder]); seed 001's keyword spotter is
      ``in_features=40, n_classes=10`` (a linear 40 -> 32, one block, mean-pool, a
      linear 32 -> 10).

    Keys equal to ``pad_id`` are masked out of the attention (unless an
    explicit ``mask`` is given; token input only).
    """

    encoder: Encoder
    head: eqx.nn.Linear
    config: ModelConfig = eqx.field(static=True)
    n_classes: int | None = eqx.field(static=True, default=None)

    def __init__(
        self,
        config: ModelConfig,
        *,
        key: PRNGKeyArray,
        in_features: int | None = None,
        n_classes: int | None = None,
    ):
        if config.task != "classifier":
            raise ValueError(
                f"Classifier needs task='classifier'; got {config.task!r}."
            )
        if n_classes is not None and (
            isinstance(n_classes, bool)
            or not isinstance(n_classes, int)
            or n_classes < 2
        ):
            raise ValueError(
                f"n_classes must be an int >= 2 or None; got {n_classes!r}."
            )
        ke, kh = jax.random.split(key)
        self.config = config
        self.n_classes = n_classes
        self.encoder = Encoder(config, key=ke, in_features=in_features)
        self.head = eqx.nn.Linear(
            config.d_model, n_classes or 1, key=kh, dtype=_layers.dtype()
        )

    def __call__(
        self,
        tokens: Int[Array, " seq"] | Float[Array, "seq features"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, " seq"] | Float[Array, "seq classes"]:
        """Per-position logits, shape ``(T,)`` (``(T, n_classes)`` with ``n_classes``).

        Args:
            tokens: token ids, shape ``(T,)``; or features ``(T, in_features)``.
            mask: True for real tokens, False for keys to ignore; default
                ``tokens != pad_id`` (all True when ``pad_id`` is None or the
                input is features).
            key: dropout key; ``None`` for evaluation.
            substrate_key: key of the oscillator layers' non-ideal
                [`syncattn.nn.Substrate`][] (block $b$: ``fold_in(substrate_key, b)``).
        """
        if (
            mask is None
            and self.config.pad_id is not None
            and self.encoder.projection is None
        ):
            mask = tokens != self.config.pad_id
        x = self.encoder(tokens, mask=mask, key=key, substrate_key=substrate_key)
        logits = jax.vmap(self.head)(x)
        return logits if self.n_classes else logits[:, 0]

    def pooled(
        self,
        tokens: Int[Array, " seq"] | Float[Array, "seq features"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, " classes"]:
        r"""Class logits of the whole sequence (needs ``n_classes``):

        $$\ell = W\,\bar h + b,\qquad
          \bar h = \frac{\sum_t m_t\,\mathrm{Encoder}(\cdot)_t}{\max(1, \sum_t m_t)},$$

        with $m$ = ``mask`` (all ones by default): the mean of the per-position logits
        over the unmasked positions, as the head is affine.
        """
        if not self.n_classes:
            raise ValueError("pooled needs a Classifier built with n_classes.")
        if (
            mask is None
            and self.config.pad_id is not None
            and self.encoder.projection is None
        ):
            mask = tokens != self.config.pad_id
        x = self.encoder(tokens, mask=mask, key=key, substrate_key=substrate_key)
        if mask is None:
            h = jnp.mean(x, axis=0)
        else:
            w = mask.astype(x.dtype)
            h = (w @ x) / jnp.maximum(jnp.sum(w), jnp.ones((), x.dtype))
        return self.head(h)

    def classify(
        self,
        tokens: Int[Array, " seq"],
        position: Int[Array, ""] | int,
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
        substrate_key: PRNGKeyArray | None = None,
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
        return self(tokens, mask=mask, key=key, substrate_key=substrate_key)[position]


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


def check_features(features, config: ModelConfig, in_features: int) -> int:
    """Trace-time checks of a ``(T, in_features)`` float feature array; returns $T$."""
    if not hasattr(features, "dtype") or not jnp.issubdtype(
        features.dtype, jnp.floating
    ):
        raise TypeError(
            f"features must be a floating array of shape (T, {in_features}); got "
            f"{getattr(features, 'dtype', type(features).__name__)}."
        )
    if features.ndim != 2 or features.shape[1] != in_features:
        raise ValueError(
            f"features must have shape (T, in_features={in_features}) (one unbatched "
            f"sequence; use jax.vmap for a batch); got shape {features.shape}."
        )
    T = features.shape[0]
    if not 1 <= T <= config.max_len:
        raise ValueError(
            f"features must have length 1 <= T <= max_len={config.max_len}; got T={T}."
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

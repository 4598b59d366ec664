r"""The synchronisation language model: one class for states on the torus, the sphere
$S^{n-1}$ or a group (seed 000's Kuramoto model and its Lohe generalisations, issue 28).

$$s^{(0)}_t = \pi(E_{w_t}), \qquad
  s \leftarrow \mathrm{Attn}(s), \qquad
  s \leftarrow \mathrm{FFN}(s) \quad (\times L), \qquad
  \ell_{t,v} = \mathrm{Readout}(s_t)_v,$$

where each layer moves every oscillator $s_{tj}$ by a bounded tangent step along its
geometry (the state never leaves it: no norms, no additive positions; the attention's
rotary drift $e^{(t-u)\Omega_j}$ is the position signal). The geometry is
[`geometry_of`][syncattn.models.geometry_of] ``(config)``, from ``config.attention`` and
``config.sync`` (one line of ``SPACES`` per geometry):

| attention | state $s_{tj}$ | embedding | attention | feed-forward |
|---|---|---|---|---|
| ``"kuramoto"`` | $\theta \in \mathbb{T}$ | [`syncattn.nn.PhaseEmbedding`][] | [`syncattn.nn.KuramotoAttention`][] | [`syncattn.nn.AngleSwiGLU`][] / [`syncattn.nn.LiftSwiGLU`][] |
| ``"sphere"`` | $z \in S^{n-1}$ | [`syncattn.nn.StateEmbedding`][] | [`syncattn.nn.SyncAttention`][] (as [`syncattn.nn.SphereAttention`][]) | [`syncattn.nn.LiftSwiGLU`][] |
| ``"group"`` | $U \in SO(n), U(n)$ | [`syncattn.nn.StateEmbedding`][] | [`syncattn.nn.SyncAttention`][] (as [`syncattn.nn.GroupAttention`][]) | [`syncattn.nn.LiftSwiGLU`][] |
| ``"frustrated"`` | $\theta \in \mathbb{T}$ | [`syncattn.nn.PhaseEmbedding`][] | [`syncattn.nn.FrustratedAttention`][] | [`syncattn.nn.AngleSwiGLU`][] / [`syncattn.nn.LiftSwiGLU`][] |
| ``"frustrated-mf"`` | $\theta \in \mathbb{T}$ | [`syncattn.nn.PhaseEmbedding`][] | [`syncattn.nn.FrustratedAttention`][] | [`syncattn.nn.CollectiveModes`][] (no MLP) |

and the readout is ``config.sync.readout``: ``"prototype"``
($\ell_{tv} = \sigma\sum_j\langle s_{tj}, p_{vj}\rangle$; on the torus seed 000's
[`syncattn.nn.PrototypeReadout`][], else [`syncattn.nn.AlignmentReadout`][]),
``"vonmises"`` ([`syncattn.nn.VonMisesReadout`][]) or ``"lift_linear"``
([`syncattn.nn.LiftLinearReadout`][]). The layers are built in `_layers` (one factory
per piece, dispatching on the geometry); the loop below is the same for all.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from .._types import Array, Bool, Float, Int, PRNGKeyArray
from . import _layers
from ._config import SYNC_ATTENTIONS, ModelConfig
from ._geometry import geometry_of, phase_states
from ._transformer import _split, check_mask, check_tokens, dropout


__all__ = ["SyncLM", "KuramotoLM"]


class SyncLM(eqx.Module):
    r"""A causal synchronisation LM: ``(T,)`` token ids to ``(T, vocab_size)`` logits.

    $$s^{(0)}_t = \pi(E_{w_t}), \quad
      s^{(l+\frac12)} = \mathrm{Attn}_l(s^{(l)}), \quad
      s^{(l+1)} = \mathrm{FFN}_l(s^{(l+\frac12)}), \quad
      \ell_t = \mathrm{Readout}(s^{(L)}_t)$$

    (module docstring: the pieces per geometry). ``KuramotoLM`` is this class (the
    torus model, ``attention="kuramoto"``: its parameters, pytree and outputs are
    those of seed 000's model).

    Dropout (``config.dropout``), when on, acts on each layer's step: on the torus
    on the phase increment $\Delta\theta$ before it is added (inverted dropout); on
    the sphere and the groups (where a step cannot be rescaled and stay on the
    geometry) each oscillator's step $s_{tj} \to s'_{tj}$ is dropped (kept at
    $s_{tj}$) with probability ``dropout``.

    Args:
        config: a [`ModelConfig`][syncattn.models.ModelConfig] with ``attention`` in
            ``"kuramoto"``, ``"sphere"``, ``"group"`` and ``task="lm"``.
        key: PRNG key.
    """

    embedding: eqx.Module
    attentions: tuple[eqx.Module, ...]
    ffns: tuple[eqx.Module, ...] | None
    readout: eqx.Module
    config: ModelConfig = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        if config.attention not in SYNC_ATTENTIONS or config.task != "lm":
            raise ValueError(
                f"SyncLM needs attention in {SYNC_ATTENTIONS}, task='lm'; got "
                f"attention={config.attention!r}, task={config.task!r}."
            )
        ke, ka, kf, kr = jax.random.split(key, 4)
        L = config.n_layers
        self.config = config
        self.embedding = _layers.make_state_embedding(config, key=ke)
        self.attentions = tuple(
            _layers.make_sync_attention(config, key=k) for k in jax.random.split(ka, L)
        )
        self.ffns = (
            None
            if config.ffn == "none"
            else tuple(
                _layers.make_sync_ffn(config, key=k) for k in jax.random.split(kf, L)
            )
        )
        self.readout = _layers.make_sync_readout(config, key=kr)

    def __call__(
        self,
        tokens: Int[Array, " seq"],
        *,
        mask: Bool[Array, " seq"] | None = None,
        key: PRNGKeyArray | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "seq vocab"] | tuple[Float[Array, "seq vocab"], tuple[dict, ...]]:
        r"""Next-token logits at every position (``key=None``: no dropout).

        ``mask`` (True = real token) is accepted for a uniform interface; the
        model is causal, so right-padding never reaches a real position.

        With ``diagnostics=True`` it returns ``(logits, layers)``: one dict per
        layer, the diagnostics of its attention on the state entering that layer
        (``weights`` $(n_h, T, T)$, ``coupling``, ``increment``, the order parameters
        ``local_order`` $(T, k)$ (torus $|G_{tj}|$, sphere $\|G_{tj}\|$, group
        $\|G_{tj}\|_F/\sqrt n$), ``global_order`` $(k,)$ (the order parameter of
        oscillator $j$ over the sequence, e.g. $|\frac1T\sum_t e^{i\theta_{tj}}|$) and
        ``coherence`` $(T, k)$) plus its drift parameter ``omega`` (None: no drift).
        """
        cfg = self.config
        T = check_tokens(tokens, cfg)
        if mask is not None:
            check_mask(mask, T)
        state = self.embedding(tokens)
        keys = _split(key, 2 * cfg.n_layers)
        torus = phase_states(geometry_of(cfg))
        layers = []
        for i, attention in enumerate(self.attentions):
            new = _layers.call_sync_attention(attention, state, diagnostics)
            if diagnostics:
                new, aux = new
                layers.append({**aux, "omega": attention.omega})
            state = _step(state, new, cfg.dropout, keys[2 * i], torus)
            if self.ffns is not None:
                state = _step(
                    state,
                    _layers.call_sync_ffn(self.ffns[i], state),
                    cfg.dropout,
                    keys[2 * i + 1],
                    torus,
                )
        logits = self.readout(state)
        return (logits, tuple(layers)) if diagnostics else logits


KuramotoLM = SyncLM
"""Seed 000's Kuramoto LM: [`SyncLM`][syncattn.models.SyncLM] (the same class) with
``attention="kuramoto"``."""


def _step(state, new_state, rate, key, torus: bool):
    # The layers return the updated states; dropout acts on the step.
    if key is None or rate == 0.0:
        return new_state
    if torus:  # theta + Delta: inverted dropout on Delta
        return state + dropout(new_state - state, rate, key)
    keep = jax.random.bernoulli(
        key, 1.0 - rate, state.shape[:2]
    )  # (T, k): one per oscillator
    keep = keep.reshape(keep.shape + (1,) * (state.ndim - 2))
    return jnp.where(keep, new_state, state)

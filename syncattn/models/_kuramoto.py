r"""Seed 000's Kuramoto language model, end to end on the torus.

$$\theta^{(0)}_t = \Phi_{w_t}, \qquad
  \theta \leftarrow \mathrm{KuramotoAttention}(\theta), \qquad
  \theta \leftarrow \mathrm{AngleSwiGLU}(\theta) \quad (\times L),$$

$$\ell_{t,v} = s \sum_{j=1}^{k} \cos(\theta_{t,j} - \varphi_{v,j}),$$

with the phase embedding $\Phi$ ([`syncattn.nn.PhaseEmbedding`][]), the layers
[`syncattn.nn.KuramotoAttention`][] and [`syncattn.nn.AngleSwiGLU`][] (each adds
a bounded increment to the phases; ``ffn="lift"``: [`syncattn.nn.LiftSwiGLU`][], the
feed-forward on $(\cos\theta, \sin\theta)$), and the prototype readout
[`syncattn.nn.PrototypeReadout`][] (learned prototype phases $\varphi_v$ and
scale $s$). The state stays a phase vector throughout: no norms, no additive
positions (the attention's phase drift $\omega_j(t-u)$ is the position signal).
"""

from __future__ import annotations

import equinox as eqx
import jax

from .._types import Array, Bool, Float, Int, PRNGKeyArray
from . import _layers
from ._config import ModelConfig
from ._transformer import _split, check_mask, check_tokens, dropout


__all__ = ["KuramotoLM"]


class KuramotoLM(eqx.Module):
    r"""Seed 000's causal phase LM: ``(T,)`` token ids to ``(T, vocab_size)`` logits.

    Dropout (``config.dropout``), when on, acts on each layer's phase
    increment $\Delta\theta$ before it is added.
    """

    embedding: eqx.Module
    attentions: tuple[eqx.Module, ...]
    ffns: tuple[eqx.Module, ...] | None
    readout: eqx.Module
    config: ModelConfig = eqx.field(static=True)

    def __init__(self, config: ModelConfig, *, key: PRNGKeyArray):
        if config.attention != "kuramoto" or config.task != "lm":
            raise ValueError(
                "KuramotoLM needs attention='kuramoto', task='lm'; got "
                f"attention={config.attention!r}, task={config.task!r}."
            )
        ke, ka, kf, kr = jax.random.split(key, 4)
        L = config.n_layers
        self.config = config
        self.embedding = _layers.make_phase_embedding(config, key=ke)
        self.attentions = tuple(
            _layers.make_kuramoto_attention(config, key=k)
            for k in jax.random.split(ka, L)
        )
        self.ffns = (
            None
            if config.ffn == "none"
            else tuple(
                _layers.make_angle_swiglu(config, key=k)
                for k in jax.random.split(kf, L)
            )
        )
        self.readout = _layers.make_prototype_readout(config, key=kr)

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
        layer, the diagnostics of its [`syncattn.nn.KuramotoAttention`][] on the
        phases entering that layer (``local_order`` $|G_{tj}|$ $(T, k)$,
        ``global_order`` $|\frac1T\sum_t e^{i\theta_{tj}}|$ $(k,)$, ...) plus its
        learned frequencies ``omega`` $(k,)$.
        """
        cfg = self.config
        T = check_tokens(tokens, cfg)
        if mask is not None:
            check_mask(mask, T)
        theta = self.embedding(tokens)
        keys = _split(key, 2 * cfg.n_layers)
        layers = []
        for i, attention in enumerate(self.attentions):
            new = _layers.call_kuramoto_attention(attention, theta, diagnostics)
            if diagnostics:
                new, aux = new
                layers.append({**aux, "omega": attention.omega})
            theta = _step(theta, new, cfg.dropout, keys[2 * i])
            if self.ffns is not None:
                theta = _step(
                    theta,
                    _layers.call_angle_swiglu(self.ffns[i], theta),
                    cfg.dropout,
                    keys[2 * i + 1],
                )
        logits = self.readout(theta)
        return (logits, tuple(layers)) if diagnostics else logits


def _step(theta, new_theta, rate, key):
    # The layers return updated phases theta + Delta; dropout acts on Delta.
    if key is None or rate == 0.0:
        return new_theta
    return theta + dropout(new_theta - theta, rate, key)

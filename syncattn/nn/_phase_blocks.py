r"""The phase-model pieces around Kuramoto attention: embedding, feed-forward, readout (seed 000)."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .._kernels import bounded_add
from .._types import Array, ArrayLike, Float, Int, PRNGKeyArray
from ..geometry import Torus
from ._blocks import SwiGLU
from ._common import cast, check_input, check_int, check_positive


_TORUS = Torus()


class PhaseEmbedding(eqx.Module):
    r"""Tokens to learned phases: $\theta_t = \Phi_{x_t} \in \mathbb{T}^k$.

    $$\theta_t = \Phi[x_t, :], \qquad \Phi \in [-\pi, \pi)^{V \times k}
      \text{ at initialisation (uniform)}$$

    Args:
        vocab_size: $V$.
        k: phases per token.
        key: PRNG key.
    """

    phases: Float[Array, "vocab k"]
    vocab_size: int = eqx.field(static=True)
    k: int = eqx.field(static=True)

    def __init__(self, vocab_size, k, *, key: PRNGKeyArray):
        self.vocab_size = check_int(vocab_size, "vocab_size")
        self.k = check_int(k, "k")
        self.phases = jax.random.uniform(
            key, (self.vocab_size, self.k), minval=-math.pi, maxval=math.pi
        )

    def __call__(self, tokens: Int[ArrayLike, " T"]) -> Float[Array, "T k"]:
        tokens = jnp.asarray(tokens)
        if not jnp.issubdtype(tokens.dtype, jnp.integer) or tokens.ndim != 1:
            raise TypeError(
                f"tokens must be a 1-D integer array (T,); got dtype {tokens.dtype}, shape {tokens.shape}."
            )
        if tokens.shape[0] == 0:
            raise ValueError("tokens must hold at least one token (T >= 1).")
        if not isinstance(tokens, jax.core.Tracer) and (
            int(tokens.min()) < 0 or int(tokens.max()) >= self.vocab_size
        ):
            raise ValueError(
                f"tokens must lie in the range [0, vocab_size={self.vocab_size}); got "
                f"[{int(tokens.min())}, {int(tokens.max())}]. (Under jit they are clipped.)"
            )
        return jnp.take(self.phases, tokens, axis=0, mode="clip")


class AngleSwiGLU(eqx.Module):
    r"""The SwiGLU feed-forward on the raw angles, as a bounded phase increment.

    $$\theta_t \leftarrow \theta_t + \mathcal{B}_\beta\big(\mathrm{SwiGLU}(\theta_t)\big)$$

    with [`syncattn.nn.SwiGLU`][] acting on $\theta_t \in \mathbb{R}^k$ (not on the lift,
    so it is not $2\pi$-periodic, as in the seed) and $\mathcal{B}_\beta$ the
    norm-adaptive bound $u \mapsto u\tanh(\rho)/\rho$, $\rho = \operatorname{rms}(u)/\beta$.

    Args:
        k: phases per token.
        d_hidden: hidden width (default `4 * k`).
        key: PRNG key.
        bound: $\beta > 0$.
    """

    ffn: SwiGLU
    k: int = eqx.field(static=True)
    bound: float = eqx.field(static=True)

    def __init__(self, k, d_hidden=None, *, key: PRNGKeyArray, bound=1.0):
        self.k = check_int(k, "k")
        self.bound = check_positive(bound, "bound")
        self.ffn = SwiGLU(self.k, d_hidden, key=key)

    def __call__(self, theta: Float[ArrayLike, "T k"]) -> Float[Array, "T k"]:
        theta = check_input(theta, "theta", f"(T, k={self.k})", self.k)
        return bounded_add(theta, self.ffn(theta), self.bound)  # the fused kernel in float32


class PrototypeReadout(eqx.Module):
    r"""Logits from phase alignment with learned prototype phases.

    $$\ell_{tv} = \sigma \sum_{j=1}^k \cos(\theta_{tj} - \varphi_{vj})
      = \sigma\big(\cos\theta_t \cdot \cos\varphi_v + \sin\theta_t \cdot \sin\varphi_v\big)$$

    computed as one matrix product of the lifts $(\cos\theta_t, \sin\theta_t) \in
    \mathbb{R}^{2k}$ ([`syncattn.geometry.Torus`][]'s `lift`: `syncattn._numerics.sincos`,
    or its fused CPU kernel in float32);
    $\varphi \in \mathbb{R}^{V\times k}$ and the scale $\sigma$ (initially $1/\sqrt{k}$
    times `scale`) are learned.

    Args:
        k: phases per token.
        vocab_size: $V$.
        key: PRNG key.
        scale: initial $\sigma\sqrt{k}$, > 0.
    """

    prototypes: Float[Array, "vocab k"]
    scale: Float[Array, ""]
    k: int = eqx.field(static=True)

    def __init__(self, k, vocab_size, *, key: PRNGKeyArray, scale=1.0):
        self.k = check_int(k, "k")
        V = check_int(vocab_size, "vocab_size")
        s = check_positive(scale, "scale")
        self.prototypes = jax.random.uniform(
            key, (V, self.k), minval=-math.pi, maxval=math.pi
        )
        self.scale = jnp.asarray(s / math.sqrt(self.k), dtype=jnp.result_type(float))  # strong: see
        # KuramotoAttention.log_tau (a weak scalar would make the train step compile twice)

    def __call__(self, theta: Float[ArrayLike, "T k"]) -> Float[Array, "T vocab"]:
        theta = check_input(theta, "theta", f"(T, k={self.k})", self.k)
        s = cast(self, theta.dtype)
        T, V = theta.shape[0], s.prototypes.shape[0]
        # the lifts (cos, sin) as (T, 2k) and (V, 2k): one product (fused lift in float32)
        x = _TORUS.lift(theta).reshape(T, 2 * self.k)
        xp = _TORUS.lift(s.prototypes).reshape(V, 2 * self.k)
        return s.scale * (x @ xp.T)

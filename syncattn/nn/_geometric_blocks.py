r"""Geometry-native model pieces (issue 28): a feed-forward on the lift, an embedding and
a prototype readout for states on the torus, a sphere or a group.

`space` is the geometry: a [`syncattn.geometry.Geometry`][], or its name: `"torus"` ($\theta \in \mathbb{T}^k$, states $(T, k)$),
`"sphere"` with `n` ($z \in (S^{n-1})^k$, $(T, k, n)$), or a group `"so<n>"` /
`"u<n>"` ($(T, k, n, n)$; $U(n)$ complex).
"""

from __future__ import annotations

import math

import equinox as eqx
import jax.numpy as jnp

from .._types import Array, ArrayLike, Int, PRNGKeyArray
from ..geometry import Geometry, from_space
from ._blocks import SwiGLU, gated_silu
from ._common import cast, check_int, check_positive, linear, linear_stacked
from ._sync_attention import tangent_step


__all__ = [
    "LiftSwiGLU",
    "StateEmbedding",
    "AlignmentReadout",
    "VonMisesReadout",
    "LiftLinearReadout",
    "make_geometry",
]


def make_geometry(space: str | Geometry, n: int | None = None) -> Geometry:
    """The geometry object for `space`: a [`syncattn.geometry.Geometry`][] itself (`n`
    unused: e.g. the model's, `models.geometry_of(config)`), or a name for
    [`syncattn.geometry.from_space`][] (`"torus"`, `"sphere"` with `n`, `"so<n>"`,
    `"u<n>"`)."""
    if isinstance(space, Geometry):
        return space
    if space == "sphere":
        n = check_int(n, "n", low=2)
    return from_space(space, n)


class LiftSwiGLU(eqx.Module):
    r"""The SwiGLU feed-forward on the lift, applied as a tangent step (geometry-native).

    $$u_t = \mathrm{SwiGLU}(x_t), \qquad a_{tj} = P_{s_{tj}}(u_{tj}), \qquad
      s_{tj} \leftarrow \operatorname{Exp}_{s_{tj}}\big(\mathcal B_\beta(a_t)_j\big)$$

    with $x_t \in \mathbb{R}^{mk}$ the lift of the state (torus $(\cos\theta,
    \sin\theta)$, sphere $z$, group the entries of $U$), $u_{tj} \in \mathbb{R}^m$ read
    as an ambient vector, $P$ the tangent projection of the attention layers (torus
    $\operatorname{Im}(e^{-i\theta}(u_1 + iu_2))$, sphere $(I - zz^\top)u$, group
    $\operatorname{skew}(U^H u)$), $\mathcal B_\beta$ the bound and $\operatorname{Exp}$
    the exponential map. On the torus the block depends on $\theta$ only through
    $(\cos\theta, \sin\theta)$: it is $2\pi$-periodic (unlike
    [`AngleSwiGLU`][syncattn.nn.AngleSwiGLU], which reads the raw angles).

    Args:
        k: oscillators per token.
        d_hidden: hidden width (default $4mk$).
        key: PRNG key.
        bound: $\beta > 0$.
        space: a `Geometry`, or `"torus"`, `"sphere"` (with `n`), `"so<n>"` or `"u<n>"`.
        n: the sphere's ambient dimension.
    """

    ffn: SwiGLU
    k: int = eqx.field(static=True)
    bound: float = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(
        self, k, d_hidden=None, *, key: PRNGKeyArray, bound=1.0, space="torus", n=None
    ):
        self.k = check_int(k, "k")
        self.bound = check_positive(bound, "bound")
        self.geometry = make_geometry(space, n)
        self.ffn = SwiGLU(self.geometry.m * self.k, d_hidden, key=key)

    def __call__(self, state: ArrayLike) -> Array:
        geo = self.geometry
        state = geo.check(
            state, self.k, geo.arg_name if geo.arg_name == "theta" else "state"
        )
        s = cast(self.ffn, geo.real_dtype(state))
        x = geo.lift(state)  # (T, m, k)
        T, m = x.shape[0], x.shape[1]
        y = linear_stacked((s.w1, s.w3), x.reshape(T, m * self.k))
        u = linear(s.w2, gated_silu(y)).reshape(T, m, self.k)
        return tangent_step(geo, state, u, None, self.bound, x)  # x: the kernel's lift


class StateEmbedding(eqx.Module):
    r"""Tokens to states on a geometry: $s_t = \pi(E_{w_t})$.

    $\pi$: torus the phases $E \in [-\pi, \pi)^{V\times k}$ themselves (as
    [`PhaseEmbedding`][syncattn.nn.PhaseEmbedding]); sphere $E_{vj}/\|E_{vj}\|$ ($E$
    Gaussian: uniform directions); group $\exp(\operatorname{skew} E_{vj})$ (always in
    the group). Args: `vocab_size`, `k`, `key`, `space`, `n`.
    """

    table: Array
    vocab_size: int = eqx.field(static=True)
    k: int = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(self, vocab_size, k, *, key: PRNGKeyArray, space="torus", n=None):
        self.vocab_size = check_int(vocab_size, "vocab_size")
        self.k = check_int(k, "k")
        self.geometry = make_geometry(space, n)
        self.table = self.geometry.init_params(key, (self.vocab_size, self.k))

    def __call__(self, tokens: Int[ArrayLike, " T"]) -> Array:
        tokens = jnp.asarray(tokens)
        if (
            not jnp.issubdtype(tokens.dtype, jnp.integer)
            or tokens.ndim != 1
            or not tokens.size
        ):
            raise ValueError(
                f"tokens must be a non-empty 1-D integer array (T,); got dtype {tokens.dtype}, "
                f"shape {tokens.shape}."
            )
        # the points of the whole table, then the rows: under vmap over a batch the
        # table's V k points are formed once, not once per token (SO(3): 16x fewer
        # exponentials at batch 16 x 256, vocabulary 256); row by row the same numbers
        return jnp.take(
            self.geometry.from_params(self.table), tokens, axis=0, mode="clip"
        )


class AlignmentReadout(eqx.Module):
    r"""Logits from the alignment of the state with learned prototypes.

    $$\ell_{tv} = \sigma \sum_{j=1}^k \langle s_{tj}, p_{vj}\rangle$$

    with the geometry's inner product: torus $\cos(\theta_{tj} - \varphi_{vj})$ (seed
    000's [`PrototypeReadout`][syncattn.nn.PrototypeReadout]), sphere $z^\top p$, groups
    $\frac1n\operatorname{Re}\operatorname{tr}(U^H P)$; computed as one product of the
    lifts. Prototypes parametrised as in [`StateEmbedding`][syncattn.nn.StateEmbedding];
    $\sigma$ learned, initially `scale`$/\sqrt k$.
    """

    prototypes: Array
    scale: Array
    k: int = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(
        self, k, vocab_size, *, key: PRNGKeyArray, space="torus", n=None, scale=1.0
    ):
        self.k, self.geometry, self.prototypes, V, s = _prototypes(
            k, vocab_size, key, space, n, scale
        )
        self.scale = jnp.asarray(s, dtype=jnp.result_type(float))

    def __call__(self, state: ArrayLike) -> Array:
        geo = self.geometry
        state = _check_state(geo, state, self.k)
        rdt = geo.real_dtype(state)
        s = cast(self, rdt)
        # the inner product sums over every (oscillator, coordinate) pair, so both sides
        # are flattened in `embed`'s oscillator-major order: no transpose to the lift
        xt = geo.embed(state).reshape(state.shape[0], -1)
        P = geo.from_params(s.prototypes)  # complex parameters (U(n)) are not cast
        xp = geo.embed(P).reshape(P.shape[0], -1).astype(rdt)
        return (s.scale * geo.norm_scale) * (xt @ xp.T)


def _prototypes(k, vocab_size, key, space, n, scale):
    # the readouts' shared start: checked sizes, the geometry, V x k prototype points,
    # and the initial scale sigma = scale / sqrt(k)
    k = check_int(k, "k")
    V = check_int(vocab_size, "vocab_size")
    s = check_positive(scale, "scale")
    geometry = make_geometry(space, n)
    return k, geometry, geometry.init_params(key, (V, k)), V, s / math.sqrt(k)


def _check_state(geo, state, k):
    return geo.check(state, k, geo.arg_name if geo.arg_name == "theta" else "state")


class VonMisesReadout(eqx.Module):
    r"""Logits from the alignment with learned prototypes, each oscillator with its own
    learned concentration (a von Mises likelihood per prototype).

    $$\ell_{tv} = \sum_{j=1}^k \kappa_{vj}\, \langle s_{tj}, p_{vj}\rangle$$

    torus: $\ell_{tv} = \sum_j \kappa_{vj}\cos(\theta_{tj} - \varphi_{vj})$, the
    log-density of independent von Mises laws $\mathrm{VM}(\varphi_{vj},
    \kappa_{vj})$ at $\theta_t$ up to the normaliser $\sum_j\log I_0(\kappa_{vj})$
    (which a learned bias would absorb); sphere $z^\top p$ (the von Mises-Fisher
    exponent), groups $\frac1n\operatorname{Re}\operatorname{tr}(U^H P)$ ($p_{vj}$ unit,
    parametrised as in [`StateEmbedding`][syncattn.nn.StateEmbedding]). $\kappa$
    $(V, k)$ starts at $\sigma$ = `scale`$/\sqrt k$, where the layer equals
    [`AlignmentReadout`][syncattn.nn.AlignmentReadout]. One product of the lifts.

    Args:
        k: oscillators per token.
        vocab_size: $V$.
        key: PRNG key.
        space, n: the geometry (as [`LiftSwiGLU`][syncattn.nn.LiftSwiGLU]).
        scale: initial $\kappa\sqrt k > 0$.
    """

    prototypes: Array
    kappa: Array
    k: int = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(
        self, k, vocab_size, *, key: PRNGKeyArray, space="torus", n=None, scale=1.0
    ):
        self.k, self.geometry, self.prototypes, V, s = _prototypes(
            k, vocab_size, key, space, n, scale
        )
        self.kappa = jnp.full((V, self.k), s, dtype=jnp.result_type(float))

    def __call__(self, state: ArrayLike) -> Array:
        geo = self.geometry
        state = _check_state(geo, state, self.k)
        rdt = geo.real_dtype(state)
        s = cast(self, rdt)
        xt = geo.lift(state).reshape(state.shape[0], -1)  # (T, m k)
        P = geo.from_params(s.prototypes)  # complex parameters (U(n)) are not cast
        xp = geo.lift(P).astype(rdt) * s.kappa[:, None, :]  # (V, m, k)
        return geo.norm_scale * (xt @ xp.reshape(xp.shape[0], -1).T)


class LiftLinearReadout(eqx.Module):
    r"""A linear head on the lift of the state: $\ell_t = W x_t + b$.

    $$\ell_{tv} = \sum_{c=1}^{m}\sum_{j=1}^{k} W_{v,\,ck+j}\, x_{t,cj} + b_v$$

    with $x_{tj} \in \mathbb{R}^m$ the lift of oscillator $j$ (torus $(\cos\theta_{tj},
    \sin\theta_{tj})$, sphere $z_{tj}$, group the entries of $U_{tj}$, real and
    imaginary parts for $U(n)$), coordinate-major as in the attention layers, and
    $W \in \mathbb{R}^{V \times mk}$, $b \in \mathbb{R}^V$ learned (`eqx.nn.Linear`).
    On the torus it depends on $\theta$ through $(\cos\theta, \sin\theta)$ only
    ($2\pi$-periodic); it is the transformer's linear head read on the ambient
    coordinates, with no constraint that ties a token to a point of the geometry.

    Args:
        k: oscillators per token.
        vocab_size: $V$.
        key: PRNG key.
        space, n: the geometry (as [`LiftSwiGLU`][syncattn.nn.LiftSwiGLU]).
    """

    head: eqx.nn.Linear
    k: int = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(self, k, vocab_size, *, key: PRNGKeyArray, space="torus", n=None):
        self.k = check_int(k, "k")
        V = check_int(vocab_size, "vocab_size")
        self.geometry = make_geometry(space, n)
        self.head = eqx.nn.Linear(self.geometry.m * self.k, V, key=key)

    def __call__(self, state: ArrayLike) -> Array:
        geo = self.geometry
        state = _check_state(geo, state, self.k)
        s = cast(self, geo.real_dtype(state))
        return linear(s.head, geo.lift(state).reshape(state.shape[0], -1))

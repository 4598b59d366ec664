r"""Coupling to learned collective modes: the mean-field block of the `frustrated-mf` model.

The harmonic kernel is [`FrustratedAttention`][syncattn.nn.FrustratedAttention]'s
(`_frustrated_attention.py`).
"""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .._types import Array, ArrayLike, Float, PRNGKeyArray
from ..geometry import Torus
from ._common import cast, check_input, check_int, check_positive, linear
from ._frustrated_attention import (
    _daido_by_head,
    _from_heads,
    _initial_coefficients,
    _to_heads,
    harmonic_lift,
)
from ._sync_attention import bounded_increment


__all__ = ["CollectiveModes"]


class CollectiveModes(eqx.Module):
    r"""Coupling to $J$ learned collective modes: the frustrated model's mean-field block,
    in place of the feed-forward (the `frustrated-mf` model has no MLP).

    Each oscillator $\theta_{tj}$ couples, through the harmonic kernel of
    [`FrustratedAttention`][syncattn.nn.FrustratedAttention], to $J$ learned modes with
    phases $\psi_{1..J} \in \mathbb{T}^k$ and concentrations $\kappa_{ij} =
    \operatorname{softplus}(\rho_{ij}) > 0$:

    $$s^h_{ti} = \frac{\tau}{\sqrt{k_h}} \sum_{j \in h} \kappa_{ij}
      \cos(\theta_{tj} - \psi_{ij}), \qquad
      A^h_{ti} = \operatorname{softmax}_{i \le J}\, s^h_{ti},$$

    $$Z^m_{tj} = \sum_{i=1}^J A^{h(j)}_{ti}\, e^{im\psi_{ij}}, \qquad
      F_{tj} = \sum_{m=1}^M \operatorname{Im}\big(c_{hm} e^{-im\theta_{tj}} Z^m_{tj}\big)
      = \sum_i A^{h}_{ti}\, H_h(\psi_{ij} - \theta_{tj}),$$

    $$\theta_t \leftarrow \theta_t + \mathcal B_\beta\big(v(\theta_t) \odot F_t\big),
      \qquad v(\theta_t) = W_v x_t + b_v,$$

    (the mean-field Daido coupling of the token to a softmax mixture of the modes; the
    modes have no position and no successor, so no delayed term). The scores are dot
    products of the lift $x_t$ with the modes' weighted lifts $\kappa_i \odot
    (\cos\psi_i, \sin\psi_i)$: one $(T, J)$ softmax per head. With $d_{ff}$ = $J$ the
    model is sized by the feed-forward rule (``syncattn.models``).

    Args:
        k: phases per token.
        n_modes: $J \ge 1$.
        n_heads: heads (groups of $k_h = k/H$ coordinates sharing one softmax and one
            coupling function); must divide `k`. The `frustrated-mf` model uses 1: one
            softmax over the modes for the whole token (a mode is a collective state of all
            $k$ coordinates), and $H$ times fewer exponentials than one per head.
        key: PRNG key.
        order: $M \ge 1$.
        tau: initial temperature $\tau > 0$ (learned).
        bound: $\beta > 0$.
    """

    modes: Float[Array, "J k"]
    concentration: Float[Array, "J k"]
    value_gate: eqx.nn.Linear
    c_real: Float[Array, "H M"]
    c_imag: Float[Array, "H M"]
    log_tau: Float[Array, ""]
    k: int = eqx.field(static=True)
    n_modes: int = eqx.field(static=True)
    n_heads: int = eqx.field(static=True)
    order: int = eqx.field(static=True)
    bound: float = eqx.field(static=True)

    def __init__(
        self, k, n_modes, n_heads, *, key: PRNGKeyArray, order=1, tau=1.0, bound=1.0
    ):
        self.k = k = check_int(k, "k")
        self.n_modes = J = check_int(n_modes, "n_modes")
        self.n_heads = H = check_int(n_heads, "n_heads")
        if k % H:
            raise ValueError(f"k={k} phases must be divisible by n_heads={H}.")
        self.order = check_int(order, "order")
        self.bound = check_positive(bound, "bound")
        tau = check_positive(tau, "tau")
        km, kv = jax.random.split(key)
        self.modes = jax.random.uniform(km, (J, k), minval=-math.pi, maxval=math.pi)
        dtype = self.modes.dtype
        # softplus(log(e - 1)) = 1: every concentration starts at 1
        self.concentration = jnp.full((J, k), math.log(math.e - 1.0), dtype)
        vg = eqx.nn.Linear(2 * k, k, key=kv)
        self.value_gate = eqx.tree_at(lambda l: l.bias, vg, jnp.ones_like(vg.bias))
        self.c_real, self.c_imag = _initial_coefficients(H, self.order, dtype)
        self.log_tau = jnp.asarray(
            math.log(tau), dtype=jnp.result_type(float)
        )  # strong: see SyncAttention

    def weights(self, theta: Float[ArrayLike, "T k"]) -> Float[Array, "H T J"]:
        r"""The mode weights $A^h_{ti}$ $(H, T, J)$."""
        theta = check_input(theta, "theta", f"(T, k={self.k})", self.k)
        return self._weights(cast(self, theta.dtype), theta)

    def _weights(self, s, theta):
        H, kh = self.n_heads, self.k // self.n_heads
        x = Torus().lift(theta)  # (T, 2, k)
        keys = jax.nn.softplus(s.concentration)[:, None, :] * Torus().lift(
            s.modes
        )  # (J, 2, k)
        q = _to_heads(x, H) * (jnp.exp(s.log_tau) / math.sqrt(kh))
        wdt = jnp.promote_types(theta.dtype, jnp.float32)
        sc = jnp.einsum(
            "thd,jhd->htj", q, _to_heads(keys, H), preferred_element_type=wdt
        )
        return jax.nn.softmax(sc, -1).astype(theta.dtype)

    def _mix(self, s, theta):
        r"""$\sum_i A^h_{ti} e^{im\psi_{ij}}$ $(T, H, 2Mk_h)$ without forming $A$: the
        softmax's exponentials times the values, then one division of the $(T, 2Mk_h)$
        result by the row sums (as `blocked_causal_attend`; the max held constant in the
        gradient), in the head-major layout of the products."""
        H, kh, M = self.n_heads, self.k // self.n_heads, self.order
        wdt = jnp.promote_types(theta.dtype, jnp.float32)
        x = Torus().lift(theta)  # (T, 2, k)
        q = _to_heads(x, H).transpose(1, 0, 2) * (
            jnp.exp(s.log_tau) / math.sqrt(kh)
        )  # (H, T, 2k_h)
        keys = jax.nn.softplus(s.concentration)[:, None, :] * Torus().lift(s.modes)
        keys = _to_heads(keys, H).transpose(1, 0, 2)  # (H, J, 2k_h)
        V = _to_heads(harmonic_lift(s.modes, M), H).transpose(1, 0, 2)  # (H, J, 2M k_h)
        sc = jnp.einsum("htd,hjd->htj", q, keys, preferred_element_type=wdt)
        E = jnp.exp(sc - jax.lax.stop_gradient(jnp.max(sc, -1, keepdims=True)))
        y = jnp.einsum("htj,hjd->htd", E.astype(V.dtype), V, preferred_element_type=wdt)
        y = y / jnp.sum(E, -1, keepdims=True)
        return y.transpose(1, 0, 2).astype(theta.dtype)

    def __call__(
        self, theta: Float[ArrayLike, "T k"], *, diagnostics: bool = False
    ) -> Float[Array, "T k"] | tuple[Float[Array, "T k"], dict]:
        theta = check_input(theta, "theta", f"(T, k={self.k})", self.k)
        s = cast(self, theta.dtype)
        T, M = theta.shape[0], self.order
        Zh = self._mix(s, theta)  # (T, H, 2M k_h)
        Z = _from_heads(Zh, 2 * M, self.k)
        F = _daido_by_head(theta, Z, s.c_real, s.c_imag)
        gate = linear(s.value_gate, Torus().lift(theta).reshape(T, 2 * self.k))
        inc = bounded_increment(gate * F, self.bound)
        y = theta + inc
        if not diagnostics:
            return y
        return y, {"weights": self._weights(s, theta), "coupling": F, "increment": inc}

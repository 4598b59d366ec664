r"""Kuramoto phase attention (seed 000): self-attention whose value update is the Kuramoto coupling."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .. import entropic, kuramoto, torus
from .._numerics import sincos
from .._types import Array, ArrayLike, Bool, Float, PRNGKeyArray
from ._common import (
    attend,
    attention_weights,
    cast,
    check_choice,
    check_input,
    check_int,
    check_key_mask,
    check_positive,
    linear,
    linear_many,
)
from ._rope import rope_frequencies


def bounded_increment(u: Float[Array, "T k"], bound: float) -> Float[Array, "T k"]:
    r"""Norm-adaptive bound of a per-token increment.

    $$\Delta_t = u_t\,\frac{\tanh\rho_t}{\rho_t}, \qquad
      \rho_t = \frac{\operatorname{rms}(u_t)}{\beta}, \qquad
      \operatorname{rms}(\Delta_t) = \beta \tanh\rho_t < \beta$$

    The direction of $u_t$ is kept; small increments pass almost unchanged
    ($\Delta \approx u$ for $\rho \ll 1$), large ones are shrunk to rms $\beta$ = `bound`.
    $u_t = 0$ gives $\Delta_t = 0$ with finite gradients (double-`where`).
    """
    wdt = jnp.promote_types(u.dtype, jnp.float32)
    uf = u.astype(wdt)
    sq = jnp.mean(uf * uf, -1, keepdims=True)
    pos = sq > 0
    rho = jnp.sqrt(jnp.where(pos, sq, 1.0)) / bound
    factor = jnp.where(pos, jnp.tanh(rho) / rho, 1.0)
    return (uf * factor).astype(u.dtype)


def _lift(theta):
    """(cos theta, sin theta), each of theta's shape (the fused sin/cos kernel)."""
    sn, c = sincos(theta)
    return c, sn


class KuramotoAttention(eqx.Module):
    r"""Kuramoto phase self-attention: every coordinate synchronises with the tokens it attends to.

    State: phases $\theta_t \in \mathbb{T}^k$ per token. With $x_t = (\cos\theta_t,
    \sin\theta_t) \in \mathbb{R}^{2k}$ (the lift),

    $$g^{q,k}_t = \frac{\operatorname{softplus}(W_{q,k} x_t + b_{q,k})}
      {\operatorname{mean}_j \operatorname{softplus}(W_{q,k} x_t + b_{q,k})_j},\qquad
      s^h_{tu} = \frac{\tau}{\sqrt{k_h}} \sum_{j \in h} g^q_{tj} g^k_{uj}
      \cos(\theta_{tj} - \theta_{uj} + \omega_j (t - u))$$

    $$A^h_{tu} = \operatorname{softmax}_{u \le t} s^h_{tu},\qquad
      G_{tj} = \sum_{u} A^{h(j)}_{tu} e^{i\theta_{uj}},\qquad
      a_{tj} = -\sin\theta_{tj}\operatorname{Re}G_{tj} + \cos\theta_{tj}\operatorname{Im}G_{tj}
      = \sum_u A^{h(j)}_{tu}\sin(\theta_{uj} - \theta_{tj})$$

    $$\theta_t \leftarrow \theta_t + \mathcal{B}_\beta\big(v(\theta_t) \odot a_t\big),
      \qquad v(\theta_t) = W_v x_t + b_v \text{ (signed)}$$

    The increment $a$ is [`syncattn.kuramoto.tangent_update`][] (statement 1: it
    equals [`syncattn.kuramoto.coupling_term`][] with the attention matrix as the
    coupling kernel); $\mathcal{B}_\beta$ is the norm-adaptive bound
    $u \mapsto u \tanh(\rho)/\rho$, $\rho = \operatorname{rms}(u)/\beta$. The $k$
    coordinates are split into `n_heads` heads of $k_h = k/n_h$ coordinates, and the
    scale $\tau > 0$ is learned (as $\log\tau$).

    **Efficient path.** By statement 2 (`proofs/proof_rotary_phase_drift.py`),
    $s^h_{tu}$ is the dot product of the RoPE-rotated gated lifts
    $q_t = g^q_t \odot [\cos(\theta_t + \omega t), \sin(\theta_t + \omega t)]$ and
    $k_u = g^k_u \odot [\cos(\theta_u + \omega u), \sin(\theta_u + \omega u)]$, and $G$
    is the attention average of the values $[\cos\theta_u, \sin\theta_u]$. So the layer
    is one call of `jax.nn.dot_product_attention` with head width $2k_h$ (a fused
    kernel on GPU, $O(T \cdot k)$ memory). float64 takes an exact einsum path of the
    same shape (that function's softmax runs in float32).

    Key padding: `__call__(theta, mask=m)`, `m` bool `(T,)` with True = a real token,
    gives the padded keys $u$ ($m_u$ = False) zero weight: $A^h_{tu}$ is the softmax
    over $u \in \{u \le t : m_u\}$ (every real $u$ if not causal), on both paths (the
    mask goes to `jax.nn.dot_product_attention`, and to the exact float64 path). A
    query with no real key to attend to (left padding, or an all-False mask) keeps its
    unmasked row, so its output is finite and equals the unmasked layer's, eagerly and
    under `jit` alike. Padded queries are updated like any other token (their outputs
    are for the caller to ignore). With a mask, `global_order` is taken over the real
    tokens (all tokens if there is none).

    Ablations: `value="learned"` replaces the values by a learned projection
    $W_\text{val} x_u$ (read as $(\operatorname{Re}, \operatorname{Im})$ pairs; this
    breaks the identity); `gates=False` sets $g^q = g^k = 1$. The gates are
    $g = \operatorname{softplus}(z) / \overline{\operatorname{softplus}(z)}$ (the mean over
    the $k$ coordinates, seed 000's normalisation); `gate_norm="none"` keeps
    $g = \operatorname{softplus}(z)$ (a probe of that choice).

    Args:
        k: number of phases per token.
        n_heads: heads; must divide `k`.
        key: PRNG key.
        value: `"phase"` (the Kuramoto layer) or `"learned"`.
        gates: learned metric gates.
        causal: attend to $u \le t$ only (the seed's layer is causal).
        tau: initial temperature $\tau > 0$.
        bound: the bound $\beta > 0$ on the rms increment.
        rope_base: base $b$ of the initial frequencies $\omega_j = b^{-j'/k_h}$
            ($j'$ = index within the head).
        gate_norm: `"mean"` (the gates divided by their mean) or `"none"`.

    Returns (from `__call__`): the updated phases $(T, k)$ (not wrapped), or
    `(phases, aux)` with `diagnostics=True`; `aux` holds `weights` $(n_h, T, T)$,
    `coupling` $a$ $(T, k)$, `local_order` $|G|$ $(T, k)$, `global_order`
    $|\frac1T\sum_t e^{i\theta_t}|$ $(k,)$, `coherence`
    $\operatorname{Re}(e^{-i\theta_t}G_t)$ $(T, k)$
    ([`syncattn.entropic.local_coherence`][]) and `increment` $(T, k)$.
    """

    gate_q: eqx.nn.Linear
    gate_k: eqx.nn.Linear
    value_gate: eqx.nn.Linear
    value_proj: eqx.nn.Linear | None
    omega: Float[Array, " k"]
    log_tau: Float[Array, ""]
    k: int = eqx.field(static=True)
    n_heads: int = eqx.field(static=True)
    value: str = eqx.field(static=True)
    gates: bool = eqx.field(static=True)
    gate_norm: str = eqx.field(static=True)
    causal: bool = eqx.field(static=True)
    bound: float = eqx.field(static=True)

    def __init__(
        self,
        k,
        n_heads,
        *,
        key: PRNGKeyArray,
        value="phase",
        gates=True,
        causal=True,
        tau=1.0,
        bound=1.0,
        rope_base=10_000.0,
        gate_norm="mean",
    ):
        k, n_heads = check_int(k, "k"), check_int(n_heads, "n_heads")
        if k % n_heads:
            raise ValueError(f"k={k} phases must be divisible by n_heads={n_heads}.")
        check_choice(value, "value", ("phase", "learned"))
        self.gate_norm = check_choice(gate_norm, "gate_norm", ("mean", "none"))
        tau = check_positive(tau, "tau")
        self.bound = check_positive(bound, "bound")
        check_positive(rope_base, "rope_base")
        if rope_base <= 1:
            raise ValueError(f"rope_base must be > 1; got {rope_base}.")
        kq, kk, kv, kp = jax.random.split(key, 4)  # same split in every mode
        self.gate_q = eqx.nn.Linear(2 * k, k, key=kq)
        self.gate_k = eqx.nn.Linear(2 * k, k, key=kk)
        vg = eqx.nn.Linear(2 * k, k, key=kv)
        self.value_gate = eqx.tree_at(lambda m: m.bias, vg, jnp.ones_like(vg.bias))
        self.value_proj = (
            eqx.nn.Linear(2 * k, 2 * k, use_bias=False, key=kp)
            if value == "learned"
            else None
        )
        kh = k // n_heads
        self.omega = jnp.tile(rope_frequencies(kh, rope_base), n_heads)
        # a strongly typed scalar: a weak-typed one turns strong after the first optimiser
        # update, and the jit-compiled train step would be traced and compiled twice
        self.log_tau = jnp.asarray(math.log(tau), dtype=jnp.result_type(float))
        self.k, self.n_heads, self.value = k, n_heads, value
        self.gates, self.causal = bool(gates), bool(causal)

    def _gate(self, z):
        g = jax.nn.softplus(z)
        if self.gate_norm == "none":
            return g
        tiny = jnp.finfo(g.dtype).tiny
        return g / jnp.maximum(jnp.mean(g, -1, keepdims=True), tiny)

    def _features(self, theta):
        """Queries, keys (T, H, 2 k_h) (scale folded into the queries), values, and the value gate."""
        s = cast(self, theta.dtype)
        T, H = theta.shape[0], self.n_heads
        kh = self.k // H
        c, sn = _lift(theta)
        x = jnp.concatenate([c, sn], -1)  # (T, 2k)
        if self.gates:  # the three (2k -> k) maps of x as one GEMM
            zq, zk, gate = linear_many((s.gate_q, s.gate_k, s.value_gate), x)
            gq, gk = self._gate(zq), self._gate(zk)
        else:
            gq = gk = jnp.ones_like(c)
            gate = linear(s.value_gate, x)

        def heads(re, im):  # (T, k) pair -> (T, H, 2 k_h)
            return jnp.concatenate([re.reshape(T, H, kh), im.reshape(T, H, kh)], -1)

        # statement 2: RoPE on the lift is the lift of the drifted phase,
        # R(omega t)(cos theta, sin theta) = (cos(theta + omega t), sin(theta + omega t))
        # (angles in at least float32: bfloat16 would lose omega t for t in the hundreds)
        wdt = jnp.promote_types(theta.dtype, jnp.float32)
        pos = jnp.arange(T, dtype=wdt)[:, None]
        drift = theta.astype(wdt) + pos * self.omega.astype(wdt)[None, :]
        cd, sd = (a.astype(theta.dtype) for a in _lift(drift))
        scale = jnp.exp(s.log_tau) / math.sqrt(kh)
        q = heads(gq * cd, gq * sd) * scale
        kk = heads(gk * cd, gk * sd)
        if self.value == "phase":
            v = heads(c, sn)
        else:
            vx = linear(s.value_proj, x)
            v = heads(vx[:, : self.k], vx[:, self.k :])
        return q, kk, v, gate

    def __call__(
        self,
        theta: Float[ArrayLike, "T k"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "T k"] | tuple[Float[Array, "T k"], dict]:
        theta = check_input(theta, "theta", f"(T, k={self.k})", self.k)
        T, H = theta.shape[0], self.n_heads
        km = check_key_mask(mask, T)
        kh = self.k // H
        q, kk, v, gate = self._features(theta)
        out = attend(q, kk, v, self.causal, km)  # (T, H, 2 k_h)
        re = out[..., :kh].reshape(T, self.k)
        im = out[..., kh:].reshape(T, self.k)
        a = kuramoto.tangent_update(theta, (re, im))  # the Kuramoto coupling
        inc = bounded_increment(gate * a, self.bound)
        y = theta + inc
        if not diagnostics:
            return y
        cdt = jnp.promote_types(theta.dtype, jnp.float32)
        G = jax.lax.complex(re.astype(cdt), im.astype(cdt))
        # the global order over the real tokens (all of them if none is real)
        w = None if km is None else jnp.where(jnp.any(km), km, True).astype(theta.dtype)
        aux = {
            "weights": attention_weights(q, kk, self.causal, km),
            "coupling": a,
            "local_order": jnp.abs(G).astype(theta.dtype),
            "global_order": jnp.abs(
                torus.order_parameter(theta, None if w is None else w[:, None], axis=0)
            ).astype(theta.dtype),
            "coherence": entropic.local_coherence(theta.astype(cdt), G).astype(
                theta.dtype
            ),
            "increment": inc,
        }
        return y, aux

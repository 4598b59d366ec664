r"""Kuramoto phase attention (seed 000): self-attention whose value update is the Kuramoto coupling.

[`SyncAttention`][syncattn.nn.SyncAttention] on the torus geometry
([`syncattn.geometry.Torus`][]), its identity values named `"phase"`."""

from __future__ import annotations

from .._types import PRNGKeyArray
from ..geometry import Torus
from ._common import check_choice
from ._sync_attention import SyncAttention, bounded_increment


__all__ = ["KuramotoAttention", "bounded_increment"]


class KuramotoAttention(SyncAttention):
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
        check_choice(value, "value", ("phase", "learned"))
        super().__init__(
            Torus(),
            k,
            n_heads,
            key=key,
            value="state" if value == "phase" else value,
            gates=gates,
            causal=causal,
            tau=tau,
            bound=bound,
            rope_base=rope_base,
            gate_norm=gate_norm,
        )
        self.value = value  # the torus layer's name of the identity values

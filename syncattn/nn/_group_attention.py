r"""Group synchronisation attention: the matrix Lohe model on SO(n) and U(n) as a layer (issue 28)."""

from __future__ import annotations

from .. import group as group_geometry
from .._types import PRNGKeyArray
from ..geometry import Group
from ._sync_attention import SyncAttention, from_kuramoto


__all__ = ["GroupAttention"]


class GroupAttention(SyncAttention):
    r"""Matrix Lohe self-attention: $k$ banks of $U_{tj} \in SO(n)$ or $U(n)$ per token.

    With the lift $x_t$ (the entries of $U_{t1}, \dots, U_{tk}$; for $U(n)$ their real
    and imaginary parts: width $n^2 k$ or $2 n^2 k$), the gates $g^{q,k}$ of
    [`KuramotoAttention`][syncattn.nn.KuramotoAttention] and generators $\Omega_j$ in
    the Lie algebra,

    $$s^h_{tu} = \frac{\tau}{\sqrt{k_h}} \sum_{j \in h} g^q_{tj} g^k_{uj}
      \tfrac1n \operatorname{Re}\operatorname{tr}\big(U_{tj}^H e^{(t-u)\Omega_j}
      U_{uj}\big), \qquad A^h_{tu} = \operatorname{softmax}_{u \le t} s^h_{tu},$$

    $$G_{tj} = \sum_u A^{h(j)}_{tu} U_{uj}, \qquad
      \xi_{tj} = \operatorname{skew}(U_{tj}^H G_{tj}), \qquad
      U_{tj} \leftarrow U_{tj} \exp\!\big(\mathcal{B}_\beta(v_t \odot \xi_t)_j\big),$$

    $\operatorname{skew}(M) = (M - M^H)/2$. $U_{tj}\xi_{tj} = \frac12\sum_u
    A_{tu}(U_{uj} - U_{tj}U_{uj}^H U_{tj})$ is the Lohe matrix coupling with the
    attention matrix as kernel (left-trivialised), and the update is a step along
    the group, so states stay in it. The bound measures $\xi$ with the scores'
    metric, $\|\xi\|^2 = \frac1n\|\xi\|_F^2$ (at $U(1)$ and $SO(2)$: the angle step).

    **Drift.** `"planes"` (default): SO(n): the sphere layer's plane rotations,
    $\omega$ $(k, \lfloor n/2\rfloor)$; U(n): $\Omega_j = -i\operatorname{diag}(\omega_j)$,
    $\omega$ $(k, n)$ (each row's phase turns by $\omega_{ja} t$); `"full"`: a learned
    $\omega$ $(k, n, n)$ (complex for U(n)), used as its skew(-Hermitian) part; `"none"`.
    Initial rates: the RoPE frequencies over the rates of a head.

    **Fast path.** $e^{s\Omega}$ is unitary and a one-parameter group, so the score is
    $\frac1n\operatorname{Re}\operatorname{tr}((e^{-t\Omega}U_t)^H e^{-u\Omega}U_u)$, a
    dot product of the rotated, gated real lifts: one call of the blocked causal
    softmax / `jax.nn.dot_product_attention` with head width $n^2 k_h$ ($2n^2 k_h$).

    U(n) states are complex64 or complex128 only (the parameters are real, cast to
    the real counterpart); SO(n) states float32, bfloat16 or float64. At $U(1)$ with
    $U = e^{i\theta}$ it is [`KuramotoAttention`][syncattn.nn.KuramotoAttention]
    (`from_kuramoto`).

    Args:
        k: banks per token.
        n_heads: heads; must divide `k`.
        key: PRNG key.
        group: `"so<n>"` ($n \ge 2$) or `"u<n>"` ($n \ge 1$): `"so3"`, `"u2"`, `"u1"`.
        value: `"state"` (the Lohe layer) or `"learned"`.
        gates, causal, tau, bound, rope_base, gate_norm: as in `KuramotoAttention`.
        drift: `"planes"`, `"full"` or `"none"`.

    Returns (from `__call__(U, mask=None, diagnostics=False)`, `U` $(T, k, n, n)$): the
    updated states, or `(states, aux)`: `weights` $(n_h, T, T)$, `coupling` $\xi$
    $(T, k, n, n)$, `increment` $(T, k, n, n)$, `local_order`
    $\|G_{tj}\|_F/\sqrt n$ $(T, k)$, `global_order` $\|\frac1T\sum_t U_{tj}\|_F/\sqrt n$
    $(k,)$ and `coherence` $\frac1n\operatorname{Re}\operatorname{tr}(U_{tj}^H G_{tj})$.
    """

    def __init__(
        self,
        k,
        n_heads,
        *,
        key: PRNGKeyArray,
        group="so3",
        value="state",
        gates=True,
        causal=True,
        tau=1.0,
        bound=1.0,
        rope_base=10_000.0,
        gate_norm="mean",
        drift="planes",
    ):
        kind, n = group_geometry.parse_group(group)
        super().__init__(
            Group(kind, n, drift),
            k,
            n_heads,
            key=key,
            value=value,
            gates=gates,
            causal=causal,
            tau=tau,
            bound=bound,
            rope_base=rope_base,
            gate_norm=gate_norm,
        )

    @property
    def group(self) -> str:
        """The group's name (`"so3"`, `"u2"`), read from the geometry."""
        return f"{self.geometry.kind}{self.geometry.n}"

    @property
    def n(self) -> int:
        """The matrices' size $n$, read from the geometry."""
        return self.geometry.n

    @property
    def drift(self) -> str:
        """The drift (`"planes"`, `"full"`, `"none"`), read from the geometry."""
        return self.geometry.drift

    @classmethod
    def from_kuramoto(cls, layer, group: str = "u1") -> GroupAttention:
        r"""The $U(1)$ layer with `layer`'s parameters: on $U = e^{i\theta}$ $(T, k, 1, 1)$
        it returns $e^{i\theta'}$ with $\theta'$ = `layer(theta)`
        (`_sync_attention.from_kuramoto`)."""
        if group != "u1":
            raise ValueError(
                f"from_kuramoto builds the U(1) layer; group must be 'u1', got {group!r}."
            )
        return from_kuramoto(
            layer, lambda **kw: cls(layer.k, layer.n_heads, group="u1", **kw)
        )

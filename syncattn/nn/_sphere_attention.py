r"""Sphere synchronisation attention: the Lohe model on $S^{n-1}$ as a layer (issue 28)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._types import Array, ArrayLike, Bool, Float, PRNGKeyArray
from ..geometry import Sphere
from ._common import check_int
from ._sync_attention import SyncAttention, from_kuramoto


__all__ = ["SphereAttention"]


class SphereAttention(SyncAttention):
    r"""Lohe (sphere) self-attention: $k$ banks of oscillators $z_{tj} \in S^{n-1}$ per token.

    With the lift $x_t = (z_{t1}, \dots, z_{tk})$ (coordinate-major, $\mathbb{R}^{nk}$),
    the gates $g^{q,k}_t$ of [`KuramotoAttention`][syncattn.nn.KuramotoAttention] and
    generators $\Omega_j \in \mathfrak{so}(n)$,

    $$s^h_{tu} = \frac{\tau}{\sqrt{k_h}} \sum_{j \in h} g^q_{tj} g^k_{uj}
      \langle z_{tj},\, e^{(t-u)\Omega_j} z_{uj}\rangle, \qquad
      A^h_{tu} = \operatorname{softmax}_{u \le t} s^h_{tu},$$

    $$G_{tj} = \sum_u A^{h(j)}_{tu} z_{uj}, \qquad
      a_{tj} = (I - z_{tj} z_{tj}^\top)\, G_{tj}
      = \sum_u A^{h(j)}_{tu}\big(z_{uj} - \langle z_{uj}, z_{tj}\rangle z_{tj}\big),$$

    $$z_{tj} \leftarrow \exp_{z_{tj}}\!\big(\mathcal{B}_\beta(v_t \odot a_t)_j\big),$$

    the Lohe coupling with the attention matrix as coupling kernel, applied as a
    geodesic step ([`syncattn.sphere.exp_map`][]), so states stay on the sphere.
    $v_t = W_v x_t + b_v$ is the signed value gate and $\mathcal{B}_\beta$ the bound
    $u \mapsto u\tanh\rho/\rho$, $\rho = \beta^{-1}(\frac1k\sum_j\|u_{tj}\|^2)^{1/2}$.

    **Drift.** `"planes"` (default): $\Omega_j = \sum_{p < \lfloor n/2\rfloor}
    \omega_{jp}(e_{2p}e_{2p+1}^\top - e_{2p+1}e_{2p}^\top)$ with learned rates $\omega$
    $(k, \lfloor n/2\rfloor)$, initially the RoPE frequencies $b^{-i/(k_h P)}$ over the
    $k_h P$ planes of a head; `"full"`: a learned $\omega$ $(k, n, n)$, used as its
    skew part $\Omega = (\omega - \omega^\top)/2$ (initially the planes' generator, or
    `generator`); `"none"`: no drift.

    **Fast path.** $e^{s\Omega}$ is orthogonal and $e^{(t-u)\Omega} =
    e^{t\Omega}e^{-u\Omega}$, so $\langle z_t, e^{(t-u)\Omega} z_u\rangle =
    \langle e^{-t\Omega} z_t, e^{-u\Omega} z_u\rangle$: the scores are dot products of
    the rotated, gated lifts, and the layer is one call of the blocked causal softmax /
    `jax.nn.dot_product_attention` with head width $n k_h$.

    At $n = 2$ with $z = (\cos\theta, \sin\theta)$ it is
    [`KuramotoAttention`][syncattn.nn.KuramotoAttention] (`from_kuramoto`).

    Args:
        k: oscillators (banks) per token.
        n: dimension of the ambient space ($z \in S^{n-1}$), $n \ge 2$.
        n_heads: heads; must divide `k`.
        key: PRNG key.
        value: `"state"` (the Lohe layer: $G$ averages the states) or `"learned"`
            ($W_\text{val} x_u$, read as $k$ vectors of $\mathbb{R}^n$).
        gates, causal, tau, bound, rope_base, gate_norm: as in `KuramotoAttention`.
        drift: `"planes"`, `"full"` or `"none"`.
        generator: with `drift="full"`, the initial $\Omega$ $(k, n, n)$, skew.

    Returns (from `__call__(z, mask=None, diagnostics=False)`, `z` $(T, k, n)$ unit
    vectors): the updated states $(T, k, n)$, or `(states, aux)`; `aux` holds
    `weights` $(n_h, T, T)$, `coupling` $a$ $(T, k, n)$, `increment` $(T, k, n)$,
    `local_order` $\|G_{tj}\|$ $(T, k)$, `global_order` $\|\frac1T\sum_t z_{tj}\|$
    $(k,)$ (over the real tokens with a mask) and `coherence` $\langle z_{tj},
    G_{tj}\rangle$ $(T, k)$.
    """

    def __init__(
        self,
        k,
        n,
        n_heads,
        *,
        key: PRNGKeyArray,
        value="state",
        gates=True,
        causal=True,
        tau=1.0,
        bound=1.0,
        rope_base=10_000.0,
        gate_norm="mean",
        drift="planes",
        generator=None,
    ):
        n = check_int(n, "n", low=2)
        if generator is not None and drift != "full":
            raise ValueError(
                f"generator is the initial Omega of drift='full'; got drift={drift!r}."
            )
        super().__init__(
            Sphere(n, drift),
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
        if generator is not None:
            self.omega = _check_generator(generator, self.k, n)

    def __call__(
        self,
        z: Float[ArrayLike, "T k n"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "T k n"] | tuple[Float[Array, "T k n"], dict]:
        # the errors name the states `z` (the geometry's own name is the generic "state")
        return self._call(z, mask, diagnostics, "z")

    @property
    def n(self) -> int:
        r"""The ambient dimension ($z \in S^{n-1}$), read from the geometry."""
        return self.geometry.n

    @property
    def drift(self) -> str:
        """The drift (`"planes"`, `"full"`, `"none"`), read from the geometry."""
        return self.geometry.drift

    @classmethod
    def from_kuramoto(cls, layer) -> SphereAttention:
        r"""The $n = 2$ layer with `layer`'s parameters ($\omega_j \to$ one plane of rate
        $\omega_j$): on $z = (\cos\theta, \sin\theta)$ it returns $(\cos\theta',
        \sin\theta')$ with $\theta'$ = `layer(theta)` (the value gate, gates and
        `value_proj` act on the same lift, coordinate-major; `_sync_attention.from_kuramoto`)."""
        return from_kuramoto(layer, lambda **kw: cls(layer.k, 2, layer.n_heads, **kw))


def _check_generator(generator, k, n):
    g = jnp.asarray(generator)
    if not jnp.issubdtype(g.dtype, jnp.floating) or g.shape != (k, n, n):
        raise ValueError(
            f"generator must be a real floating array (k={k}, n={n}, n={n}); got dtype "
            f"{g.dtype}, shape {g.shape}."
        )
    a = np.asarray(g, np.float64)
    err = float(np.max(np.abs(a + np.swapaxes(a, -1, -2)), initial=0.0))
    if not np.all(np.isfinite(a)) or err > 1e-6 * max(1.0, float(np.max(np.abs(a)))):
        raise ValueError(
            f"generator must be finite and skew (Omega^T = -Omega, in so(n)); got "
            f"max |Omega + Omega^T| = {err:.3g}."
        )
    return g

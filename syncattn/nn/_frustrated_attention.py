r"""Frustrated synchronisation attention (issue 40): Kuramoto attention with Daido harmonics
and a delayed (successor) coupling, and its mean-field block of learned collective modes.

This is syncattn's own formulation of the description in the abstract of arXiv 2606.18694
("Attention as Frustrated Synchronization"; only the abstract was available, no body and
no code): it is not that paper's model. On the torus $\mathbb{T}^k$, with the scores and
weights $A^h_{tu}$ of [`KuramotoAttention`][syncattn.nn.KuramotoAttention],

$$Z^m_t = \sum_{u \le t} A_{tu}\, e^{im\theta_u}, \qquad
  W^m_t = \sum_{u < t} A_{tu}\, e^{im\theta_{u+1}}, \qquad m = 1..M,$$

$$F_t = \sum_{m=1}^M \operatorname{Im}\big(e^{-im\theta_t}(c_m Z^m_t + b_m W^m_t)\big)
  = \sum_u A_{tu} \sum_m \Big(|c_m|\sin\big(m(\theta_u - \theta_t) + \arg c_m\big)
  + [u < t]\,|b_m|\sin\big(m(\theta_u - \theta_t) + m\delta_u + \arg b_m\big)\Big)$$

with $\delta_u = \theta_{u+1} - \theta_u$ (the data's own transition as a Sakaguchi
frustration; the delayed term locks at $\theta_t = \theta_{u+1}$ + a lag). In the
convention of [`syncattn.kuramoto.HarmonicCoupling`][], $c_m = a_m e^{-i\alpha_m}$, so
$\arg c_m = -\alpha_m$: the first sum is [`syncattn.kuramoto.daido_update`][] with the
attention weights as the coupling graph, i.e. the Kuramoto-Sakaguchi-Daido coupling
$\sum_u A_{tu} H_h(\theta_u - \theta_t)$, $H_h(\varphi) = \sum_m a_m\sin(m\varphi -
\alpha_m)$ (statement 26, `proofs/proof_frustrated_attention.py`; theory:
docs/theory/frustrated_attention.md).

Fixed-coefficient controls (issue 44, `frustration`): ``"delay-only"`` holds $c$ at the
Kuramoto coupling ($c_1 = 1$, $c_{m\ge2} = 0$) and learns $b$; ``"successor"`` holds
$c = 0$, $b = (1, 0, \dots, 0)$, so $F_t = \sum_{u<t} A_{tu}\sin(\theta_{u+1} -
\theta_t)$: Kuramoto attention whose values are the keys' successors.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from .. import kuramoto
from .._kernels import (
    grouped_attention,
    grouped_heads,
    kernel_enabled,
    torus_step,
    ungrouped_heads,
)
from .._numerics import sincos
from .._types import Array, ArrayLike, Bool, Complex, Float, PRNGKeyArray
from ..geometry import Torus
from ._common import (
    attend,
    attend_delayed,
    attend_successor,
    attention_weights,
    cast,
    check_int,
    check_key_mask,
)
from ._sync_attention import SyncAttention, bounded_increment


__all__ = ["FrustratedAttention", "harmonic_lift", "FRUSTRATIONS"]

FRUSTRATIONS = ("learned", "delay-only", "successor")


def harmonic_lift(theta: Float[Array, "T k"], order: int) -> Float[Array, "T r k"]:
    r"""The harmonic lift $(\cos\theta, \sin\theta, \cos 2\theta, \sin 2\theta, \dots,
    \cos M\theta, \sin M\theta)$, coordinate-major $(T, 2M, k)$: row $2(m-1)$ is
    $\operatorname{Re} e^{im\theta}$, row $2m - 1$ its imaginary part. $M = 1$ is the
    torus lift (the same operations); the angles $m\theta$, $m \ge 2$, are formed in at
    least float32. Shape $(T, r, k)$ with $r = 2M$."""
    wdt = jnp.promote_types(theta.dtype, jnp.float32)
    parts = []
    for m in range(1, order + 1):
        sn, c = sincos(theta) if m == 1 else sincos(m * theta.astype(wdt))
        parts += [c.astype(theta.dtype), sn.astype(theta.dtype)]
    return jnp.stack(parts, 1)


def _to_heads(y, H):
    """(N, r, k) coordinate-major -> (N, H, r k_h): head h holds its k_h oscillators
    (`_kernels.grouped_heads` of `y` seen as (N, r, H, k_h))."""
    N, r, k = y.shape
    return grouped_heads(y.reshape(N, r, H, k // H))


def _from_heads(y, r, k):
    return ungrouped_heads(y, r).reshape(y.shape[0], r, k)


def _daido_by_head(theta, G, c_real, c_imag):
    r"""$\sum_m \operatorname{Im}(c_{hm} e^{-im\theta_{tj}} G^m_{tj})$ for every $(t, j)$, $h = h(j)$:
    [`syncattn.kuramoto.daido_update`][] once per head (`jax.vmap` over the heads),
    with the head's [`syncattn.kuramoto.HarmonicCoupling`][] $c_{h\cdot}$; `G`
    $(T, 2M, k)$ as `harmonic_lift` lays it out, $c$ $(H, M)$."""
    T, k = theta.shape
    H, M = c_real.shape
    kh = k // H

    def parts(i):  # rows i, i + 2, ...: (T, H, k_h, M)
        return G[:, i::2].transpose(0, 2, 1).reshape(T, H, kh, M)

    def head(th, re, im, cr, ci):
        return kuramoto.daido_update(th, (re, im), kuramoto.HarmonicCoupling(cr, ci))

    F = jax.vmap(head, in_axes=(1, 1, 1, 0, 0), out_axes=1)(
        theta.reshape(T, H, kh), parts(0), parts(1), c_real, c_imag
    )
    return F.reshape(T, k)


def _times(V, c_real, c_imag):
    r"""$c_{hm} e^{im\theta}$ from the harmonic lift `V` $(T, 2M, k)$ and $c$ $(H, M)$ (each
    coordinate takes its head's coefficient): rows $(\operatorname{Re}, \operatorname{Im})$."""
    T, r, k = V.shape
    H, M = c_real.shape
    cr = jnp.repeat(c_real.T, k // H, axis=1)[None]  # (1, M, k)
    ci = jnp.repeat(c_imag.T, k // H, axis=1)[None]
    re, im = V[:, 0::2], V[:, 1::2]
    return jnp.stack([cr * re - ci * im, cr * im + ci * re], 2).reshape(T, r, k)


def _initial_coefficients(H, M, dtype):
    """$c_1 = 1$, $c_{m \\ge 2} = 0$ (the Kuramoto coupling), as (real, imag) $(H, M)$."""
    re = jnp.zeros((H, M), dtype).at[:, 0].set(1.0)
    return re, jnp.zeros((H, M), dtype)


class FrustratedAttention(SyncAttention):
    r"""Frustrated synchronisation attention: Kuramoto attention whose coupling is a learned
    Daido series per head plus a delayed coupling to each key's successor.

    syncattn's own formulation of the abstract of arXiv 2606.18694 (see the module); not
    that paper's model. With the scores, weights $A^h_{tu}$ (causal softmax), gates and
    rotary drift of [`KuramotoAttention`][syncattn.nn.KuramotoAttention],

    $$Z^m_{tj} = \sum_{u \le t} A^{h}_{tu} e^{im\theta_{uj}}, \qquad
      W^m_{tj} = \sum_{u < t} A^{h}_{tu} e^{im\theta_{u+1,j}}, \qquad h = h(j),$$

    $$F_{tj} = \sum_{m=1}^M \operatorname{Im}\big(e^{-im\theta_{tj}}
      (c_{hm} Z^m_{tj} + b_{hm} W^m_{tj})\big), \qquad
      \theta_t \leftarrow \theta_t + \mathcal B_\beta\big(v(\theta_t) \odot F_t\big),$$

    $v$ the signed value gate and $\mathcal B_\beta$ the norm-adaptive bound, as in the
    Kuramoto layer. Per term (statement 26):

    $$\operatorname{Im}(e^{-im\theta_t} c_m Z^m_t) = \sum_u A_{tu}|c_m|
      \sin\big(m(\theta_u - \theta_t) + \arg c_m\big),$$
    $$\operatorname{Im}(e^{-im\theta_t} b_m W^m_t) = \sum_{u<t} A_{tu}|b_m|
      \sin\big(m(\theta_u - \theta_t) + m\delta_u + \arg b_m\big), \quad
      \delta_u = \theta_{u+1} - \theta_u:$$

    the Kuramoto-Sakaguchi-Daido coupling ([`syncattn.kuramoto.daido_update`][], whose
    convention $c_m = a_m e^{-i\alpha_m}$ makes $\arg c_m = -\alpha_m$ the frustration),
    and a Sakaguchi coupling whose frustration is the data's transition $\delta_u$, which
    locks $\theta_t$ at the successor $\theta_{u+1}$ (for $\arg b_m = 0$). The increment
    is `daido_update` called per head, so the layer is the Daido flow's coupling on the
    attention graph, as Kuramoto attention's is `kuramoto.coupling_term`.

    **Coefficients per head.** $c, b \in \mathbb{C}^{H\times M}$: one coupling function
    per head, i.e. per attention graph $A^h$ (the flow has one $H$ per graph). Per
    coordinate, their common scale would duplicate the per-coordinate signed value gate
    $v$; per head they add $4HM$ real parameters, so the model is sized by the Kuramoto
    rule unchanged. Initially $c_1 = 1$, $c_{m\ge2} = 0$, $b = 0$: the layer starts as
    the Kuramoto layer (and learns away from it; the gradients in $c_m$, $b_m$ are not 0).

    **Paths.** float64 (and the diagnostics) take the plain composition: $Z$ and $W$
    as two value streams of the one causal softmax (values $(\cos m\theta_u,
    \sin m\theta_u)_{m \le M}$, [`harmonic_lift`][syncattn.nn.harmonic_lift], and their
    successors, through `attend_delayed`: the delayed stream's diagonal is masked, so
    the layer is exactly causal), then `daido_update` per head with $c$ and with $b$.
    Other dtypes fold the coefficients into the values first: $P^m_u = c_m
    e^{im\theta_u} + b_m e^{im\theta_{u+1}}$ through the strictly lower weights, plus
    the diagonal $A_{tt} c_m e^{im\theta_t}$ (`attend_successor`; float32 on CPU: one
    call of the fused kernel and the diagonal from its row log-sum-exp), gives $c_m Z^m_t +
    b_m W^m_t$ in one value stream of head width $2Mk_h$ (half the two streams'), and
    `daido_update` with unit coefficients (linearity); tested equal to the plain
    composition. `delay=False` drops $W$ ($b = 0$) and goes through the Kuramoto
    layer's `attend`; with $M = 1$ it is then the Kuramoto layer bit for bit
    ([`from_kuramoto`][syncattn.nn.FrustratedAttention.from_kuramoto]).

    **Fixed-coefficient controls** (`frustration`; issue 44). ``"learned"``: $c$, $b$ as
    above. ``"delay-only"``: $c$ held at the Kuramoto coupling, $b$ learned,

    $$F_{tj} = \sum_{u \le t} A^h_{tu}\sin(\theta_{uj} - \theta_{tj})
      + \sum_{m=1}^M \operatorname{Im}\big(e^{-im\theta_{tj}} b_{hm} W^m_{tj}\big).$$

    ``"successor"``: $c = 0$, $b = (1, 0, \dots, 0)$, neither learned,

    $$F_{tj} = \operatorname{Im}(e^{-i\theta_{tj}} W^1_{tj})
      = \sum_{u < t} A^h_{tu}\sin(\theta_{u+1,j} - \theta_{tj}):$$

    Kuramoto attention whose values are the keys' successors, through the same weights
    (the diagonal $u = t$ is in the softmax's normaliser but carries no value). Both
    need `delay`. The held coefficients are constants of the call, not leaves
    (`c_real`, `c_imag` and, for ``"successor"``, `b_real`, `b_imag` are None), so no
    optimizer or weight decay can move them; `coefficients` and `delay_coefficients`
    return their values. Both paths give them; the fast path of ``"successor"`` folds
    the one harmonic $m = 1$ only (the others carry $b_m = 0$).

    Key padding (`mask`, True = real token): as in the Kuramoto layer, on the weights
    $A_{tu}$ of both streams.

    Args:
        k: phases per token.
        n_heads: heads; must divide `k`.
        key: PRNG key.
        order: the number of harmonics $M \ge 1$ (default 1, the models' preset:
            each harmonic widens the value stream by $2k_h$).
        delay: include the delayed stream $W$ (needs `causal`).
        frustration: ``"learned"`` (default), ``"delay-only"`` ($c$ held at the
            Kuramoto coupling) or ``"successor"`` ($c = 0$, $b = e_1$ held); the
            last two need `delay`.
        gates, causal, tau, bound, rope_base, gate_norm: as in `KuramotoAttention`.

    Returns (from `__call__(theta, mask=None, diagnostics=False)`): the updated phases
    $(T, k)$, or `(phases, aux)` with `weights` $(n_h, T, T)$, `coupling` $F$ $(T, k)$,
    `increment` $(T, k)$, `local_order` $|Z^1|$, `coherence`
    $\operatorname{Re}(e^{-i\theta_t}Z^1_t)$ $(T, k)$, `global_order` $(k,)$,
    `harmonic_order` $|Z^m|$ $(T, k, M)$ and, with `delay`, `delayed_order` $|W^1|$
    $(T, k)$.
    """

    c_real: Float[Array, "H M"] | None
    c_imag: Float[Array, "H M"] | None
    b_real: Float[Array, "H M"] | None
    b_imag: Float[Array, "H M"] | None
    order: int = eqx.field(static=True)
    delay: bool = eqx.field(static=True)
    frustration: str = eqx.field(static=True)

    def __init__(
        self,
        k,
        n_heads,
        *,
        key: PRNGKeyArray,
        order=1,
        delay=True,
        frustration="learned",
        gates=True,
        causal=True,
        tau=1.0,
        bound=1.0,
        rope_base=10_000.0,
        gate_norm="mean",
    ):
        self.order = check_int(order, "order")
        self.delay = bool(delay)
        if self.delay and not causal:
            raise ValueError(
                "delay=True (the stream W_t = sum_{u<t} A_tu e^{i m theta_{u+1}}) needs "
                "causal=True: a non-causal layer would read the successor of t; set delay=False."
            )
        if frustration not in FRUSTRATIONS:
            raise ValueError(
                f"frustration must be one of {FRUSTRATIONS}; got {frustration!r}."
            )
        if frustration != "learned" and not self.delay:
            raise ValueError(
                f"frustration={frustration!r} couples through the delayed stream W (b): "
                "it needs delay=True; got delay=False."
            )
        self.frustration = frustration
        super().__init__(
            Torus(),
            k,
            n_heads,
            key=key,
            value="state",
            gates=gates,
            causal=causal,
            tau=tau,
            bound=bound,
            rope_base=rope_base,
            gate_norm=gate_norm,
        )
        self.value = "phase"  # the torus layer's name of the identity values
        n_heads = self.n_heads
        dtype = self.log_tau.dtype
        held_c = frustration != "learned"  # constants of the call, not leaves
        self.c_real, self.c_imag = (
            (None, None)
            if held_c
            else _initial_coefficients(n_heads, self.order, dtype)
        )
        if self.delay and frustration != "successor":
            self.b_real = jnp.zeros((n_heads, self.order), dtype)
            self.b_imag = jnp.zeros((n_heads, self.order), dtype)
        else:
            self.b_real = self.b_imag = None

    @property
    def coefficients(self) -> Complex[Array, "H M"]:
        r"""$c_{hm} = a_{hm} e^{-i\alpha_{hm}}$ (complex $(H, M)$; the held values for
        the controls)."""
        cr, ci, _, _ = self._coupling(self, self.log_tau.dtype)
        return jax.lax.complex(cr, ci)

    @property
    def delay_coefficients(self) -> Complex[Array, "H M"] | None:
        r"""$b_{hm}$ (complex $(H, M)$; None without the delayed stream; $e_1$ for
        ``"successor"``)."""
        _, _, br, bi = self._coupling(self, self.log_tau.dtype)
        return None if br is None else jax.lax.complex(br, bi)

    def _coupling(self, s, dtype):
        r"""$(\operatorname{Re} c, \operatorname{Im} c, \operatorname{Re} b,
        \operatorname{Im} b)$, each $(H, M)$ in `dtype` (None for $b$ without the
        delayed stream): the leaves of `s` (this layer cast), or the control's
        constants: $c = e_1$ (``"delay-only"``); $c = 0$, $b = e_1$ (``"successor"``)."""
        if self.frustration == "learned":
            return s.c_real, s.c_imag, s.b_real, s.b_imag
        kuramoto_c = _initial_coefficients(self.n_heads, self.order, dtype)
        if self.frustration == "delay-only":
            return (*kuramoto_c, s.b_real, s.b_imag)
        zero = jnp.zeros((self.n_heads, self.order), dtype)
        return (zero, zero, *kuramoto_c)

    def __call__(
        self,
        theta: Float[ArrayLike, "T k"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "T k"] | tuple[Float[Array, "T k"], dict]:
        geo = self.geometry
        theta = geo.check(theta, self.k, "theta")
        T = theta.shape[0]
        km = check_key_mask(mask, T)
        s = cast(self, theta.dtype)
        H, M = self.n_heads, self.order
        if M == 1 and not self.delay and kernel_enabled(theta.dtype):
            return self._kernel_call(theta, km, s, diagnostics)
        q, kk, v, gate, _ = self._features(theta)
        Z = W = None
        fused = (
            self.delay and theta.dtype != jnp.float64
        )  # float64: the plain composition
        if M == 1 and not self.delay:  # the Kuramoto layer's values and attention
            Z = _from_heads(attend(q, kk, v, self.causal, km), 2, self.k)
        elif not self.delay:
            Vh = _to_heads(harmonic_lift(theta, M), H)
            Z = _from_heads(attend(q, kk, Vh, self.causal, km), 2 * M, self.k)
        elif diagnostics or not fused:
            Z, W = self._streams(theta, q, kk, km)
        cr, ci, br, bi = self._coupling(s, theta.dtype)
        if fused:
            if self.frustration == "successor":  # b_{m>=2} = 0: harmonic 1 alone
                cr, ci, br, bi = (x[:, :1] for x in (cr, ci, br, bi))
            F = self._fused_coupling(theta, q, kk, km, cr, ci, br, bi)
        elif self.frustration == "successor":  # c = 0: the delayed stream alone
            F = _daido_by_head(theta, W, br, bi)
        else:
            F = _daido_by_head(theta, Z, cr, ci)
            if W is not None:
                F = F + _daido_by_head(theta, W, br, bi)
        inc = bounded_increment(gate * F, self.bound)
        y = theta + inc
        if not diagnostics:
            return y
        w = None if km is None else jnp.where(jnp.any(km), km, True)
        aux = {
            "weights": attention_weights(q, kk, self.causal, km),
            "coupling": F,
            **geo.orders(theta, Z[:, :2], w),
            "increment": inc,
            "harmonic_order": jnp.stack(
                [jnp.hypot(Z[:, 2 * i], Z[:, 2 * i + 1]) for i in range(M)], -1
            ),
        }
        if W is not None:
            aux["delayed_order"] = jnp.hypot(W[:, 0], W[:, 1])
        return y, aux

    def _kernel_call(self, theta, km, s, diagnostics):
        r"""One harmonic, no delay, float32 on the CPU: the Kuramoto layer's fused path
        (features, grouped attention, `_kernels.torus_step`) with the coefficient
        $c_h$ per head, $F = \operatorname{Im}(c_h e^{-i\theta} Z)$ (at $c = 1$ the
        Kuramoto layer's operations, bit for bit)."""
        T = theta.shape[0]
        q, kk, v, gate, x = self._features(theta, grouped=True)
        Z = grouped_attention(q, kk, v, mask=km, causal=self.causal).reshape(T, 2, self.k)
        cr, ci, _, _ = self._coupling(s, theta.dtype)
        y = torus_step(theta, x, Z, gate, self.bound, (cr[:, 0], ci[:, 0]))
        if not diagnostics:
            return y
        F = _daido_by_head(theta, Z, cr, ci)
        w = None if km is None else jnp.where(jnp.any(km), km, True)
        q, kk = grouped_heads(q), grouped_heads(kk)  # the diagnostics' layout
        return y, {
            "weights": attention_weights(q, kk, self.causal, km),
            "coupling": F,
            **self.geometry.orders(theta, Z, w),
            "increment": bounded_increment(gate * F, self.bound),
            "harmonic_order": jnp.hypot(Z[:, 0], Z[:, 1])[..., None],
        }

    def _streams(self, theta, q, kk, km):
        """$Z^m$ and $W^m$, each $(T, 2M, k)$ laid out as `harmonic_lift`, through
        `attend_delayed` (the successor stream's diagonal masked)."""
        H, M = self.n_heads, self.order
        Vh = _to_heads(harmonic_lift(theta, M), H)
        succ = jnp.concatenate([Vh[1:], jnp.zeros_like(Vh[:1])], 0)  # never read at T-1
        Zh, Wh = attend_delayed(q, kk, Vh, succ, km)
        return _from_heads(Zh, 2 * M, self.k), _from_heads(Wh, 2 * M, self.k)

    def _fused_coupling(self, theta, q, kk, km, c_real, c_imag, b_real, b_imag):
        r"""$F$ from ONE value stream: with $P^m_u = c_m e^{im\theta_u} + b_m
        e^{im\theta_{u+1}}$ and $D^m_t = c_m e^{im\theta_t}$ (per head),
        $G^m_t = \sum_{u<t} A_{tu} P^m_u + A_{tt} D^m_t = c_m Z^m_t + b_m W^m_t$
        (`attend_successor`), and $F_t = \sum_m \operatorname{Im}(e^{-im\theta_t} G^m_t)$
        = [`syncattn.kuramoto.daido_update`][] with unit coefficients (linearity). Half
        the value width of the two streams; tested equal to the plain composition. The
        harmonics are those of $c$, $b$ $(H, M)$ (fewer than `order` where the rest are
        0)."""
        H, k = self.n_heads, self.k
        M = c_real.shape[1]
        V = harmonic_lift(theta, M)  # (T, 2M, k)
        succ = jnp.concatenate([V[1:], jnp.zeros_like(V[:1])], 0)  # never read at T-1
        cV = _times(V, c_real, c_imag)
        P = cV + _times(succ, b_real, b_imag)
        G = _from_heads(
            attend_successor(q, kk, _to_heads(P, H), _to_heads(cV, H), km), 2 * M, k
        )
        re, im = (
            G[:, 0::2].transpose(0, 2, 1),
            G[:, 1::2].transpose(0, 2, 1),
        )  # (T, k, M)
        unit = kuramoto.HarmonicCoupling(
            jnp.ones((M,), theta.dtype), jnp.zeros((M,), theta.dtype)
        )
        return kuramoto.daido_update(theta, (re, im), unit)

    @classmethod
    def from_kuramoto(cls, layer) -> FrustratedAttention:
        r"""The layer with $M = 1$, $c_1 = 1$, $b = 0$ (`delay=False`) and `layer`'s
        parameters (gates, value gate, drift, temperature): the
        [`KuramotoAttention`][syncattn.nn.KuramotoAttention] `layer` bit for bit.

        Raises:
            ValueError: `layer` is not a `KuramotoAttention` with `value="phase"`.
        """
        from ._kuramoto_attention import KuramotoAttention

        if not isinstance(layer, KuramotoAttention) or layer.value != "phase":
            raise ValueError(
                "from_kuramoto needs a KuramotoAttention with value='phase' (the coupling "
                f"of the phases themselves); got {type(layer).__name__}"
                + (
                    f" with value={layer.value!r}"
                    if isinstance(layer, KuramotoAttention)
                    else ""
                )
                + "."
            )
        new = cls(
            layer.k,
            layer.n_heads,
            key=jax.random.key(0),
            order=1,
            delay=False,
            gates=layer.gates,
            causal=layer.causal,
            bound=layer.bound,
            gate_norm=layer.gate_norm,
        )
        new = eqx.tree_at(
            lambda m: (m.gate_q, m.gate_k, m.value_gate, m.omega, m.log_tau),
            new,
            (layer.gate_q, layer.gate_k, layer.value_gate, layer.omega, layer.log_tau),
        )
        dtype = layer.log_tau.dtype
        return eqx.tree_at(
            lambda m: (m.c_real, m.c_imag),
            new,
            (jnp.ones((layer.n_heads, 1), dtype), jnp.zeros((layer.n_heads, 1), dtype)),
        )

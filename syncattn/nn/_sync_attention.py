r"""The one synchronisation-attention core shared by the torus, sphere and group layers.

A geometry ([`syncattn.geometry.Geometry`][]) supplies the few things that depend on where
the oscillators live: the lift of a state to ambient coordinates, the rotary drift
$e^{-t\Omega}$ of that lift, the tangent increment built from the attention average
$G$, its norm, the retraction (exponential map) and the order parameters. This
module owns everything else: the gates, the causal softmax (through `attend`, the
blocked / fused fast path), the value gate, the norm-adaptive bound and the
diagnostics. [`KuramotoAttention`][syncattn.nn.KuramotoAttention],
[`SphereAttention`][syncattn.nn.SphereAttention] and the group layer are this core
with their geometry.
"""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp

from .._kernels import (
    grouped_attention,
    grouped_heads,
    kernel_enabled,
    sync_features,
    ungrouped_heads,
)
from .._types import Array, ArrayLike, Bool, Float, Inexact, PRNGKeyArray
from ..geometry import Geometry
from ._common import (
    attend,
    attention_weights,
    cast,
    check_choice,
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


def tangent_step(
    geo: Geometry,
    state: Array,
    G: Array,
    gate: Array | None,
    bound: float,
    lift: Array | None = None,
) -> Array:
    r"""One layer's move: $s' = \operatorname{Exp}_s\big(\mathcal B_\beta(v \odot P_s G)\big)$,
    the composition `exp(state, bounded_tangent(gated(gate, tangent(state, G))))`
    (`gate` None: no gate), or the geometry's `fused_step` where it declares one
    (`has_fused_step`; the sphere's: the same value in one coordinate-major pass). Given
    the `lift` $(T, m, k)$ of `state`, the geometry's `kernel_step` (a fused CPU kernel,
    float32) where it has one."""
    if lift is not None:
        y = geo.kernel_step(state, lift, G, gate, bound)
        if y is not None:
            return y
    if geo.has_fused_step:
        return geo.fused_step(state, G, gate, bound)
    a = geo.tangent(state, G)
    if gate is not None:
        a = geo.gated(gate, a)
    return geo.exp(state, bounded_tangent(a, bound, geo.fiber_ndim, geo.norm_scale))


def bounded_tangent(
    u: Array, bound: float, fiber_ndim: int, scale: float = 1.0
) -> Array:
    r"""`bounded_increment` for tangent vectors: $k$ oscillators per token, each a
    vector or matrix (the last `fiber_ndim` axes), shape $(T, k, \dots)$.

    $$\Delta_t = u_t\,\frac{\tanh\rho_t}{\rho_t}, \qquad
      \rho_t = \frac{1}{\beta}\Big(\frac1k \sum_{j=1}^k \|u_{tj}\|^2\Big)^{1/2}$$

    with $\|u\|^2 = c \sum |u_{\cdot}|^2$ over one oscillator's tangent coordinates
    ($c$ = `scale`: 1 for the sphere's Euclidean norm, $1/n$ for the groups' metric
    $\frac1n\operatorname{Re}\operatorname{tr}(A^H B)$): the rms over the oscillators
    of their geodesic step lengths. With `fiber_ndim=0` it is `bounded_increment` (the same operations).
    """
    if fiber_ndim == 0:
        return bounded_increment(u, bound)
    fiber = tuple(range(-fiber_ndim, 0))
    if jnp.iscomplexobj(u):
        uf = u.astype(jnp.promote_types(u.dtype, jnp.complex64))
        sq_j = jnp.sum(jnp.real(uf) ** 2 + jnp.imag(uf) ** 2, fiber)
    else:
        uf = u.astype(jnp.promote_types(u.dtype, jnp.float32))
        sq_j = jnp.sum(uf * uf, fiber)
    if scale != 1.0:
        sq_j = sq_j * scale
    sq = jnp.mean(sq_j, -1, keepdims=True)
    pos = sq > 0
    rho = jnp.sqrt(jnp.where(pos, sq, 1.0)) / bound
    factor = jnp.where(pos, jnp.tanh(rho) / rho, 1.0)
    factor = factor.reshape(factor.shape + (1,) * fiber_ndim)
    return (uf * factor.astype(uf.dtype)).astype(u.dtype)


class SyncAttention(eqx.Module):
    r"""Synchronisation attention on a geometry: the shared core (see the module).

    With the lift $x_t \in \mathbb{R}^{m k}$ of the state (coordinate-major: the
    $m$ ambient coordinates of oscillator $j$ at $x_{t, c k + j}$), the gates
    $g^{q,k}_t$ (normalised softplus of $W_{q,k} x_t + b_{q,k}$, or 1), the drifted
    lifts $\tilde x_{tj} = \operatorname{lift}(e^{-t\Omega_j}\cdot s_{tj})$ and
    $\langle\cdot,\cdot\rangle$ the geometry's inner product,

    $$s^h_{tu} = \frac{\tau}{\sqrt{k_h}} \sum_{j \in h} g^q_{tj} g^k_{uj}
      \langle \tilde x_{tj}, \tilde x_{uj}\rangle, \quad
      A^h = \operatorname{softmax}_{u \le t} s^h, \quad
      G_{tj} = \sum_u A^{h(j)}_{tu}\, x_{uj},$$

    $$a_{tj} = P_{s_{tj}}(G_{tj}), \qquad
      s_{tj} \leftarrow \operatorname{Exp}_{s_{tj}}\big(\mathcal B_\beta(v_t \odot a_t)_j\big),$$

    with $P$ the geometry's tangent increment, $\mathcal B_\beta$ the bound
    (`bounded_tangent`), $v_t = W_v x_t + b_v$ the value gate and $\operatorname{Exp}$
    the geometry's exponential map. The scores are dot products of the gated, drifted lifts, so one
    call of `attend` computes $G$ (head width $m k_h$).

    Fields: the parameters `gate_q`, `gate_k`, `value_gate`, `value_proj`, `omega`
    (the drift generator, in the geometry's parametrisation), `log_tau`; the static
    `geometry` and switches. The constructor works for any geometry through its
    contract ([`syncattn.geometry.Geometry`][]); `KuramotoAttention`, `SphereAttention`
    and `GroupAttention` are this class on `Torus()`, `Sphere(n, drift)` and
    `Group(kind, n, drift)`, with the same parameters (names, order, values).

    Example:
        >>> import jax
        >>> from syncattn import geometry, nn
        >>> layer = nn.SyncAttention(geometry.from_space("so3"), 4, 2, key=jax.random.key(0))
        >>> U = geometry.from_space("so3").random(jax.random.key(1), (5, 4))
        >>> layer(U).shape
        (5, 4, 3, 3)
    """

    gate_q: eqx.nn.Linear
    gate_k: eqx.nn.Linear
    value_gate: eqx.nn.Linear
    value_proj: eqx.nn.Linear | None
    omega: Array | None
    log_tau: Float[Array, ""]
    k: int = eqx.field(static=True)
    n_heads: int = eqx.field(static=True)
    value: str = eqx.field(static=True)
    gates: bool = eqx.field(static=True)
    gate_norm: str = eqx.field(static=True)
    causal: bool = eqx.field(static=True)
    bound: float = eqx.field(static=True)
    geometry: Geometry = eqx.field(static=True)

    def __init__(
        self,
        geometry,
        k,
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
    ):
        r"""The layer on any geometry, through its contract only.

        The drift starts at the rotary frequencies: with $P$ = `geometry.drift_planes`
        planes per oscillator, the rates $r_{jp} = b^{-(P j' + p)/(P k_h)}$
        (`_drift_rates`; $j'$ the index within the head, $b$ = `rope_base`) and
        $\omega$ = `geometry.omega_from_rates(r)` (torus: $\omega_j = b^{-j'/k_h}$;
        $P = 0$, a geometry without drift: $\omega$ = None).

        Args:
            geometry: a [`syncattn.geometry.Geometry`][] (e.g.
                `geometry.from_space("so3")`, `geometry.Sphere(4, "full")`).
            k: oscillators per token.
            n_heads: heads; must divide `k`.
            key: PRNG key (split in four: the gates, the value gate, `value_proj`).
            value: `"state"` ($G$ averages the states themselves: the Kuramoto / Lohe
                coupling; the torus layer calls it `"phase"`) or `"learned"` (values
                $W_\text{val} x_u$, read as $k$ ambient vectors).
            gates: learned metric gates ($g^q = g^k = 1$ without).
            causal: attend to $u \le t$ only.
            tau: initial temperature $\tau > 0$ (learned as $\log\tau$).
            bound: the bound $\beta > 0$ on the rms tangent step.
            rope_base: base $b > 1$ of the initial drift rates.
            gate_norm: `"mean"` (the gates divided by their mean) or `"none"`.

        Raises:
            TypeError: `geometry` is not a `Geometry`.
            ValueError: a bad hyperparameter, named.
        """
        if not isinstance(geometry, Geometry):
            raise TypeError(
                "geometry must be a syncattn.geometry.Geometry (e.g. "
                f"geometry.from_space('so3')); got {type(geometry).__name__}."
            )
        check_positive(rope_base, "rope_base")
        if rope_base <= 1:
            raise ValueError(f"rope_base must be > 1; got {rope_base}.")
        k, n_heads = check_int(k, "k"), check_int(n_heads, "n_heads")
        if k % n_heads:
            raise ValueError(f"k={k} phases must be divisible by n_heads={n_heads}.")
        self.value = check_choice(value, "value", ("state", "learned"))
        self.gate_norm = check_choice(gate_norm, "gate_norm", ("mean", "none"))
        tau = check_positive(tau, "tau")
        self.bound = check_positive(bound, "bound")
        m = geometry.m
        kq, kk, kv, kp = jax.random.split(key, 4)  # same split in every mode
        self.gate_q = eqx.nn.Linear(m * k, k, key=kq)
        self.gate_k = eqx.nn.Linear(m * k, k, key=kk)
        vg = eqx.nn.Linear(m * k, k, key=kv)
        self.value_gate = eqx.tree_at(lambda l: l.bias, vg, jnp.ones_like(vg.bias))
        self.value_proj = (
            eqx.nn.Linear(m * k, m * k, use_bias=False, key=kp)
            if value == "learned"
            else None
        )
        # a strongly typed scalar: a weak-typed one turns strong after the first optimiser
        # update, and the jit-compiled train step would be traced and compiled twice
        self.log_tau = jnp.asarray(math.log(tau), dtype=jnp.result_type(float))
        self.k, self.n_heads = k, n_heads
        self.gates, self.causal = bool(gates), bool(causal)
        self.geometry = geometry
        planes = geometry.drift_planes
        self.omega = (
            None
            if planes == 0
            else geometry.omega_from_rates(self._drift_rates(planes, rope_base))
        )

    def __call__(
        self,
        state: Inexact[ArrayLike, "T k ..."],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        diagnostics: bool = False,
    ) -> Inexact[Array, "T k ..."] | tuple[Inexact[Array, "T k ..."], dict]:
        r"""The updated states $(T, k, *\text{fiber})$ of `state` (on the geometry;
        unbatched), or `(states, aux)` with `diagnostics=True` (`weights` $(n_h, T,
        T)$, `coupling`, `increment`, `local_order`, `global_order`, `coherence`).
        `mask` (bool $(T,)$, True = a real token) gives the padded keys zero weight.
        Errors name the argument as the geometry does (`theta`, `z`, `U`)."""
        return self._call(state, mask, diagnostics, self.geometry.arg_name)

    def generator(self) -> Array | None:
        r"""The drift generators $\Omega_j$ from `omega` (the geometry's `generator`:
        torus the rates $\omega_j$; sphere and group $(k, n, n)$ in the Lie algebra;
        None: no drift)."""
        return self.geometry.generator(self.omega)

    def _drift_rates(self, planes: int, rope_base: float) -> Float[Array, "k planes"]:
        r"""The initial drift rates $(k, P)$: head by head, oscillator $j'$ of a head
        turns its $P$ planes at the rotary frequencies $b^{-(P j' + p)/(P k_h)}$, the
        torus's $\omega_j$ at $P = 1$."""
        kh = self.k // self.n_heads
        rates = rope_frequencies(kh * planes, rope_base).reshape(kh, planes)
        return jnp.tile(rates, (self.n_heads, 1))

    def _gate(self, z):
        g = jax.nn.softplus(z)
        if self.gate_norm == "none":
            return g
        tiny = jnp.finfo(g.dtype).tiny
        return g / jnp.maximum(jnp.mean(g, -1, keepdims=True), tiny)

    def _heads(self, y):
        """(T, m, k) coordinate-major -> (T, H, m k_h): head h holds its k_h oscillators
        (`_kernels.grouped_heads` of the lift seen as (T, m, H, k_h))."""
        T, m, _ = y.shape
        return grouped_heads(y.reshape(T, m, self.n_heads, self.k // self.n_heads))

    def _unheads(self, y):
        T = y.shape[0]
        return ungrouped_heads(y, self.geometry.m).reshape(T, self.geometry.m, self.k)

    def _features(self, state, grouped: bool = False):
        """Queries, keys, values (T, H, m k_h) (scale folded into the queries), value gate
        and the lift (T, m, k); `grouped`: in the coordinate-major layout (T, m, H, k_h)
        instead (the same features, not transposed: `_kernels.grouped_heads` maps one to
        the other), the gates and drifted lift by the fused CPU kernel
        (`_kernels.sync_features`) where the geometry's drift turns planes
        (`plane_rates`) and the gates are on."""
        geo = self.geometry
        dtype = geo.real_dtype(state)
        s = cast(self, dtype)
        x = geo.lift(state)  # (T, m, k)
        T, m = x.shape[0], x.shape[1]
        kh = self.k // self.n_heads
        xf = x.reshape(T, m * self.k)
        scale = jnp.exp(s.log_tau) / math.sqrt(kh)
        rates = geo.plane_rates(self.omega) if grouped and self.gates else None
        if rates is not None:  # the three (m k -> k) maps of x as one GEMM, then the kernel
            zq, zk, gate = linear_many((s.gate_q, s.gate_k, s.value_gate), xf)
            q, kk = sync_features(
                x,
                zq,
                zk,
                rates.astype(x.dtype),
                scale.astype(x.dtype),
                gate_norm=self.gate_norm,
            )
            q, kk = (a.reshape(T, m, self.n_heads, kh) for a in (q, kk))
        else:
            if self.gates:  # the three (m k -> k) maps of x as one GEMM
                zq, zk, gate = linear_many((s.gate_q, s.gate_k, s.value_gate), xf)
                gq, gk = self._gate(zq), self._gate(zk)
            else:
                gq = gk = jnp.ones((T, self.k), dtype)
                gate = linear(s.value_gate, xf)
            # the drift: the lift of e^{-t Omega} s_t (for the torus, statement 2: RoPE on
            # the lift is the lift of the drifted phase); the raw (uncast) generator, so
            # that its angles are formed in at least float32
            xd = geo.drifted_lift(state, self.omega)
            heads = (
                (lambda y: y.reshape(T, m, self.n_heads, kh)) if grouped else self._heads
            )
            q = heads(gq[:, None, :] * xd) * scale
            kk = heads(gk[:, None, :] * xd)
        heads = (lambda y: y.reshape(T, m, self.n_heads, kh)) if grouped else self._heads
        if self.value == "learned":
            v = heads(linear(s.value_proj, xf).reshape(T, m, self.k))
        else:
            v = heads(x)
        return q, kk, v, gate, x

    def _call(
        self,
        state: Array,
        mask: Bool[Array, " T"] | None,
        diagnostics: bool,
        name: str,
    ):
        geo = self.geometry
        state = geo.check(state, self.k, name)
        T = state.shape[0]
        km = check_key_mask(mask, T)
        # with the fused kernel, the coordinate-major lift goes in as it lies (T, m, H, k_h)
        grouped = kernel_enabled(geo.real_dtype(state))
        q, kk, v, gate, x = self._features(state, grouped)
        if grouped:
            G = grouped_attention(q, kk, v, mask=km, causal=self.causal)
            G = G.reshape(T, geo.m, self.k)
            q, kk = grouped_heads(q), grouped_heads(kk)  # the diagnostics' layout
        else:
            G = self._unheads(attend(q, kk, v, self.causal, km))  # (T, m, k)
        y = tangent_step(geo, state, G, gate, self.bound, x if grouped else None)
        if not diagnostics:
            return y
        a = geo.tangent(state, G)  # the coupling: the tangent increment
        inc = bounded_tangent(
            geo.gated(gate, a), self.bound, geo.fiber_ndim, geo.norm_scale
        )
        # the global order over the real tokens (all of them if none is real)
        w = None if km is None else jnp.where(jnp.any(km), km, True)
        aux = {
            "weights": attention_weights(q, kk, self.causal, km),
            "coupling": a,
            **geo.orders(state, G, w),
            "increment": inc,
        }
        return y, aux


def from_kuramoto(layer, build):
    r"""A layer with one drift plane per oscillator (the sphere at $n = 2$, $U(1)$) that
    carries the Kuramoto `layer`'s parameters: `build(**options)` makes it with
    `layer`'s options (`value` `"phase"` read as `"state"`, `gates`, `causal`, `bound`,
    `gate_norm`), then `gate_q`, `gate_k`, `value_gate`, `value_proj` and `log_tau` are
    `layer`'s and $\omega_j \to$ one plane of rate $\omega_j$ $(k, 1)$. The lifts agree
    coordinate-major ($z = (\cos\theta, \sin\theta)$, $U = e^{i\theta}$), so on the lift
    of $\theta$ it returns the lift of $\theta'$ = `layer(theta)`.

    Raises:
        ValueError: the built layer's drift is not one plane per oscillator.
    """
    new = build(
        key=jax.random.key(0),
        value="learned" if layer.value == "learned" else "state",
        gates=layer.gates,
        causal=layer.causal,
        bound=layer.bound,
        gate_norm=layer.gate_norm,
    )
    omega = layer.omega[:, None]
    if new.omega is None or new.omega.shape != omega.shape:
        raise ValueError(
            "from_kuramoto needs a geometry with one drift plane per oscillator (omega "
            f"{omega.shape}, e.g. the sphere at n = 2, U(1)); got omega "
            f"{None if new.omega is None else new.omega.shape}."
        )
    return eqx.tree_at(
        lambda m: (m.gate_q, m.gate_k, m.value_gate, m.value_proj, m.omega, m.log_tau),
        new,
        (
            layer.gate_q,
            layer.gate_k,
            layer.value_gate,
            layer.value_proj,
            omega,
            layer.log_tau,
        ),
        is_leaf=lambda x: x is None,
    )

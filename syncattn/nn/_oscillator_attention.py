r"""Fixed-query oscillator attention (seed 001): each query settles on the sphere, then reads out."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from .. import lohe, sphere
from .._kernels import swap_axes
from .._types import Array, ArrayLike, Bool, Float, PRNGKeyArray
from ..lohe import RELU_EPS as RELU_EPS  # the published relu(s) + 1e-3
from . import _substrate
from ._common import (
    allowed,
    cast,
    causal_mask,
    check_input,
    check_int,
    check_key_mask,
    linear,
    linear_stacked,
)
from ._frozen import FrozenLinear, value_weights
from ._oscillator_options import (
    COUPLINGS as COUPLINGS,
    ODE_FLOWS as ODE_FLOWS,
    check_modes,
    check_ode,
    check_sizes,
)
from ._oscillator_paths import (
    chunked_drive,
    chunked_readout,
    diagnostic_maps,
    drive_mask as _drive_mask,
    has_real_key,
    linear_attention as _linear_attention,
    query_scales,
    relative_angles,
    relative_path,
    rotated_anchors,
    uniform_values,
)
from ._substrate import Substrate


def _projections(d_model: int, width: int, keys, freeze_values: bool) -> tuple:
    r"""$W_q, W_k, W_v$ ($d \to n_h d_h$, no bias; $W_v$ a
    [`syncattn.nn.FrozenLinear`][] when frozen) and $W_o$ ($n_h d_h \to d$, with
    bias), from the keys ``(kq, kk, kv, ko)``."""
    kq, kk, kv, ko = keys
    wq = eqx.nn.Linear(d_model, width, use_bias=False, key=kq)
    wk = eqx.nn.Linear(d_model, width, use_bias=False, key=kk)
    if freeze_values:
        wv = FrozenLinear(d_model, width, key=kv)
    else:
        wv = eqx.nn.Linear(d_model, width, use_bias=False, key=kv)
    wo = eqx.nn.Linear(width, d_model, use_bias=True, key=ko)
    return wq, wk, wv, wo


def _anchor_parameters(anchors: str, table_shape, d_model: int, ka, kr) -> tuple:
    r"""``(anchor_table, anchor_proj)``: with ``"position"`` anchors the table of shape
    `table_shape` $= (n_h, \mathrm{max\_len}, d_\mathrm{osc})$, normalised Gaussians
    (key `ka`); with ``"content"`` anchors $W_r$ ($d \to n_h d_\mathrm{osc}$, key
    `kr`)."""
    if anchors == "position":
        g = jax.random.normal(ka, table_shape)
        return g / jnp.linalg.norm(g, axis=-1, keepdims=True), None
    n_heads, _, d_osc = table_shape
    return None, eqx.nn.Linear(d_model, n_heads * d_osc, use_bias=False, key=kr)


class OscillatorAttention(eqx.Module):
    r"""Fixed-query oscillator attention: queries settle on $S^{d_\mathrm{osc}-1}$, then read out the values.

    Per head $h$ (dropped below), with $q_i = W_q x_i$, $k_j = W_k x_j$ in
    $\mathbb{R}^{d_h}$, anchors $r_j$ and the mask $\mu_{ij}$ ($j \le i$ if causal;
    real keys $j$ under a key-padding mask):

    $$w_{ij} = \mu_{ij}\,\sigma(q_i, k_j), \qquad h_i = \sum_j w_{ij} r_j, \qquad
      z_i = \frac{h_i}{\|h_i\|}, \qquad
      a_{ij} = \frac{\mu'_{ij}\max(0, 1 + z_i\cdot r_j)^p}{\sum_l \mu'_{il}\max(0, 1+z_i\cdot r_l)^p}$$

    $$y_i = W_o \big\Vert_h \sum_j a_{ij} W_v x_j + b_o$$

    $z_i$ is the stable equilibrium of the fixed-query flow $\dot z = (I - z z^\top) h_i$.

    What it calls: every path evaluates the library's kernels, nothing re-derived.
    The couplings are [`syncattn.lohe.coupling_weights`][] (the $\sigma$ of
    [`syncattn.lohe.fixed_query_weights`][]), the equilibrium
    [`syncattn.lohe.equilibrium`][] (or [`syncattn.lohe.settle`][]), the readout kernel
    [`syncattn.lohe.readout_kernel`][] and the row normalisation
    [`syncattn.lohe.normalize_readout`][]. The quadratic path contracts them in the fused
    products [`syncattn.lohe.masked_drive`][] and [`syncattn.lohe.readout_sums`][]
    (memory-light custom VJPs); the chunked path calls the kernels block by block; the
    linear path their feature maps [`syncattn.lohe.elu1_feature_map`][] and
    [`syncattn.lohe.readout_features`][]. The tests hold every path, in float64 and with
    its gradients, to the composition [`syncattn.lohe.fixed_query_weights`][] →
    [`syncattn.lohe.drive`][] → [`syncattn.lohe.equilibrium`][] →
    [`syncattn.lohe.readout`][], and check that perturbing lohe's kernels changes the
    layer.

    Couplings $\sigma$ ([`syncattn.lohe.coupling_weights`][], $s = q\cdot
    k/\sqrt{d_h}$): `"softplus"` $\log(1 + e^{s})$ (published), `"relu"` $\max(0, s) +
    10^{-3}$ and `"elu1"` $\operatorname{elu}(s) + 1$ (the published ablations), and
    `"elu1_features"` $\phi(q)\cdot\phi(k)/d_h$ with the feature map $\phi =
    \operatorname{elu} + 1$: a kernel, which the linear path needs, and not the
    published elu1 (until this release `"elu1"` named this kernel; only the direction of
    $h_i$ matters, so its constant $1/d_h$ does not change the output).

    Anchors: `anchors="position"` (published): a learned $(n_h, \mathrm{max\_len},
    d_\mathrm{osc})$ table indexed by key position, initialised as normalised Gaussians;
    `anchors="content"`: $r_j = W_r x_j$. `normalize_anchors=True` (default) is the
    theory's reading "$r_j \in S^{d-1}$": the anchors are projected onto the sphere in
    the forward pass ([`syncattn.sphere.normalize`][]), so the anchor gradient is the
    tangential part of the raw one. `normalize_anchors=False` uses them raw, as the
    published layer does (and the `paper-*` presets of [`syncattn.models`][]): weight
    decay then shrinks them, they leave the sphere, and $\max(0,\cdot)$ can bite.

    Equilibrium: `"closed"` ($h/\|h\|$, [`syncattn.lohe.equilibrium`][]) or `"ode"`:
    [`syncattn.lohe.settle`][] integrates the paper's flow $\dot z = (I - z z^\top) h$
    (`ode_flow="paper"`, default) from a uniform random start $z_0$ drawn from `key`
    (default `jax.random.key(ode_seed)`) to $T$ = `ode_t1` (default 30, the paper's
    $T_\max$), each query with its own adaptive steps (tolerances `ode_rtol`/`ode_atol`),
    differentiably. At finite $T$ the angle to $h_i$ is
    [`syncattn.lohe.exact_angle`][]$(\angle(z_0, h_i), \|h_i\|, T)$, so a query with
    $\|h_i\| T < \log\cot(\delta/2)$ can stay unconverged (statement 12 of
    [finite-time threshold](../theory/finite_time_threshold.md)): the layer shows the
    finite-time failure the library proves. `ode_flow="unit"` integrates the
    time-rescaled $\dot z = (I - z z^\top) h/\|h\|$ instead (same orbit,
    $\tan(\varphi/2)$ decays as $e^{-t}$ whatever $\|h\|$: the closed form up to
    $e^{-T}$).

    A degenerate drive ($\|h_i\| \le \sqrt{\varepsilon}$: a query with no allowed key,
    e.g. left padding) reads out uniformly over its allowed keys, as the published
    layer does ($z^\star = h/\max(\|h\|, 10^{-8}) = 0$): the readout is evaluated at
    $z_i = 0$, where every kernel value is 1. Finite, with zero gradient; flagged in
    `aux["degenerate"]` (eagerly and under `jit`).

    Implementations (same parameters, same result):

    - `"quadratic"`: $h$ = [`syncattn.lohe.masked_drive`][] and [numerator,
      denominator] = [`syncattn.lohe.readout_sums`][], each mask fused into its
      nonlinearity, the normalised $a_{ij}$ never formed; their backward passes
      recompute the $(T, T)$ maps instead of storing them, so the step needs about the
      memory of softmax attention. Being custom VJPs they support reverse-mode
      differentiation (`grad`, `vjp`) but not `jax.jvp`.
    - `"linear"` (coupling `"elu1_features"`, integer $p$, unit anchors): $h_i =
      \phi(q_i)^\top \sum_{j \le i}\phi(k_j) r_j^\top / d_h$ and, since $(1 + z\cdot
      r)^p = \psi_p(z)\cdot\psi_p(r)$ with $\psi_p(x) = [1, x]^{\otimes p}$ and $1 +
      z\cdot r \ge 0$ for $\|z\| \le 1 = \|r\|$, the readout numerator $\sum_{j\le i}
      \psi_p(z_i)\cdot\psi_p(r_j)\, v_j$ and denominator are prefix sums too:
      $O(T\, d_h (d_\mathrm{osc}+1)^p)$ time, memory linear in $T$ (chunks of `chunk`).
    - `"chunked"` (any coupling): the same sums accumulated over key blocks of `chunk`
      tokens (`lax.scan`, rematerialised), $O(T\cdot\mathrm{chunk})$ memory.

    Key padding: `__call__(x, mask=m)`, `m` bool `(T,)` with True = real token, zeroes
    the couplings $w_{ij}$ of padded keys $j$ before the fixed point (as the published
    layer does); with `mask_readout=True` padded keys are also dropped from the readout
    $\mu'$ (the published layer keeps them there). A query with no real key keeps its
    causal readout row.

    If every unmasked $1 + z_i\cdot r_j$ vanishes, row $i$ falls back to uniform weights
    over its allowed keys ([`syncattn.lohe.normalize_readout`][]).

    Seed 001's ablations (Appendix C and its frozen-value run), each off by default:

    - `relative_rotation=True` (L3, `d_osc = 2`, `impl="quadratic"`): key $j$'s anchor
      seen by query $i$ is rotated by a learned angle of the distance $i - j$,
      $r_{ij} = R(\delta_{c(i-j)})\, r_j$ with $c(n) = \min(\max(n, 0), T-1)$ (keys
      ahead of the query take $\delta_0$) and $\delta \in \mathbb{R}^{\mathrm{max\_len}}$
      initialised to 0 (the base layer at init); $r_{ij}$ replaces $r_j$ in the drive
      and the readout. The published `LoheRelativeAnchorAttention`.
    - `query_scale=True` (L4): $w_{ij} = \mu_{ij}\,\sigma(\beta'_{hi}\, q_i\cdot
      k_j/\sqrt{d_h})$ with $\beta'_{hi} = \max(|\beta_{hi}|, 0.1)$, $\beta$ a learned
      $(n_h, \mathrm{max\_len})$ table initialised to 1 (score couplings only, not
      `"elu1_features"`). The published `LoheSharpAttention`.
    - `freeze_values=True`: $W_v$ stays at its random initialisation, a
      [`syncattn.nn.FrozenLinear`][] (no gradient, no optimiser step, not a parameter).

    Diagnostics: `__call__(x, diagnostics=True)` returns `(y, aux)` with `couplings`
    $w$ $(n_h, T, T)$ after masking, `anchors` $r$, `h`, `z` $(n_h, T, d_\mathrm{osc})$
    (the query read out: 0 on degenerate rows), `weights` $a$ $(n_h, T, T)$,
    `degenerate` $(n_h, T)$ bool (with L3 `anchors` are the $r_{ij}$, $(n_h, T, T, 2)$) and, for `equilibrium="ode"`, the start `z0`; $y$ is
    unchanged (the $(T, T)$ matrices of `aux` are built for inspection only, from
    [`syncattn.lohe.fixed_query_weights`][] and [`syncattn.lohe.readout`][]).

    Args:
        d_model: width $d$.
        n_heads: heads $n_h$.
        d_osc: oscillator dimension $\ge 2$.
        max_len: longest sequence (size of the position-anchor table).
        key: PRNG key.
        coupling: `"softplus"`, `"relu"`, `"elu1"` or `"elu1_features"`.
        p: readout exponent $\ge 1$ (an integer for `impl="linear"`).
        equilibrium: `"closed"` or `"ode"`.
        impl: `"quadratic"`, `"linear"` or `"chunked"`.
        causal: mask $j > i$ (before the fixed point and again at the readout).
        anchors: `"position"` or `"content"`.
        normalize_anchors: project anchors onto the sphere (see above).
        d_head: query/key/value width per head (default `d_model // n_heads`).
        chunk: block length of the linear and chunked paths.
        ode_t1, ode_rtol, ode_atol, ode_seed, ode_flow: settings of `equilibrium="ode"`.
        mask_readout: also apply a key-padding mask at the readout.
        relative_rotation, query_scale, freeze_values: the ablations L3, L4 and frozen
            $W_v$ (above).
        substrate: the physical substrate, a [`syncattn.nn.Substrate`][] (default the
            ideal one: this layer bit for bit). A non-ideal one acts at inference
            (`key=None`) with `__call__(..., substrate_key=k)`, and in training only
            with `train_with_substrate`; see [`syncattn.nn.Substrate`][] and
            [`syncattn.nn.with_substrate`][].
    """

    wq: eqx.nn.Linear
    wk: eqx.nn.Linear
    wv: eqx.nn.Linear | FrozenLinear
    wo: eqx.nn.Linear
    anchor_table: Float[Array, "heads max_len d_osc"] | None
    anchor_proj: eqx.nn.Linear | None
    delta: Float[Array, " max_len"] | None
    beta: Float[Array, "heads max_len"] | None
    d_model: int = eqx.field(static=True)
    n_heads: int = eqx.field(static=True)
    d_head: int = eqx.field(static=True)
    d_osc: int = eqx.field(static=True)
    max_len: int = eqx.field(static=True)
    coupling: str = eqx.field(static=True)
    p: float = eqx.field(static=True)
    equilibrium: str = eqx.field(static=True)
    impl: str = eqx.field(static=True)
    causal: bool = eqx.field(static=True)
    anchors: str = eqx.field(static=True)
    normalize_anchors: bool = eqx.field(static=True)
    chunk: int = eqx.field(static=True)
    ode_t1: float = eqx.field(static=True)
    ode_rtol: float = eqx.field(static=True)
    ode_atol: float = eqx.field(static=True)
    ode_seed: int = eqx.field(static=True)
    ode_flow: str = eqx.field(static=True)
    mask_readout: bool = eqx.field(static=True)
    relative_rotation: bool = eqx.field(static=True)
    query_scale: bool = eqx.field(static=True)
    freeze_values: bool = eqx.field(static=True)
    substrate: Substrate

    def __init__(
        self,
        d_model,
        n_heads,
        d_osc,
        max_len,
        *,
        key: PRNGKeyArray,
        coupling="softplus",
        p=1,
        equilibrium="closed",
        impl="quadratic",
        causal=True,
        anchors="position",
        normalize_anchors=True,
        mask_readout=False,
        d_head=None,
        chunk=128,
        ode_t1=30.0,
        ode_rtol=1e-8,
        ode_atol=1e-10,
        ode_seed=0,
        ode_flow="paper",
        substrate: Substrate = Substrate(),
        relative_rotation=False,
        query_scale=False,
        freeze_values=False,
    ):
        d_model, n_heads, d_head, d_osc, max_len = check_sizes(
            d_model, n_heads, d_osc, max_len, d_head
        )
        check_modes(
            coupling=coupling,
            p=p,
            equilibrium=equilibrium,
            impl=impl,
            anchors=anchors,
            normalize_anchors=normalize_anchors,
            ode_flow=ode_flow,
            d_osc=d_osc,
            relative_rotation=relative_rotation,
            query_scale=query_scale,
        )
        self.chunk = check_int(chunk, "chunk")
        ode = check_ode(ode_t1, ode_rtol, ode_atol, ode_seed)
        self.ode_t1, self.ode_rtol, self.ode_atol, self.ode_seed = ode
        self.ode_flow = ode_flow
        # one fixed split: the same key gives the same shared parameters in every mode
        kq, kk, kv, ko, ka, kr = jax.random.split(key, 6)
        self.wq, self.wk, self.wv, self.wo = _projections(
            d_model, n_heads * d_head, (kq, kk, kv, ko), freeze_values
        )
        self.anchor_table, self.anchor_proj = _anchor_parameters(
            anchors, (n_heads, max_len, d_osc), d_model, ka, kr
        )
        self.d_model, self.n_heads, self.d_head = d_model, n_heads, d_head
        self.d_osc, self.max_len, self.coupling, self.p = d_osc, max_len, coupling, p
        self.equilibrium, self.impl, self.causal = equilibrium, impl, bool(causal)
        self.anchors, self.normalize_anchors = anchors, bool(normalize_anchors)
        self.mask_readout = bool(mask_readout)
        self.relative_rotation = bool(relative_rotation)
        self.query_scale = bool(query_scale)
        self.freeze_values = bool(freeze_values)
        self.delta = jnp.zeros(max_len) if relative_rotation else None
        self.beta = jnp.ones((n_heads, max_len)) if query_scale else None
        if not isinstance(substrate, Substrate):
            raise TypeError(
                f"substrate must be a syncattn.nn.Substrate; got {type(substrate).__name__}."
            )
        self.substrate = substrate

    # ------------------------------------------------------------------ pieces
    def _anchor_vectors(self, s, x):
        T, H = x.shape[0], self.n_heads
        if self.anchors == "position":
            r = s.anchor_table[:, :T]
        else:
            r = linear(s.anchor_proj, x).reshape(T, H, self.d_osc).transpose(1, 0, 2)
        return sphere.normalize(r) if self.normalize_anchors else r

    def _qkv(self, s, x):
        """q, k, v head-major (H, T, d_h): one (T, d) x (d, 3 H d_h) product (linear_stacked),
        one layout copy (T, 3 H, d_h) -> (3 H, T, d_h) (`_kernels.swap_axes`)."""
        T, H, dh = x.shape[0], self.n_heads, self.d_head
        qkv = linear_stacked((s.wq, s.wk, value_weights(s.wv, x.dtype)), x)
        return swap_axes(qkv.reshape(T, 3 * H, dh)).reshape(3, H, T, dh)

    def _read_km(self, km):
        """The key mask of the readout: `km` with `mask_readout`, else None."""
        return km if self.mask_readout else None

    def _readout_mask(self, T, km):
        """The readout's (1, T, T) mask, or None (bidirectional, no padding mask)."""
        if self.mask_readout and km is not None:
            return allowed(T, self.causal, km)[None]
        return causal_mask(T)[None] if self.causal else None

    def _settle(self, h, key):
        """The readout queries z, the degeneracy flag and the ODE's start, from h."""
        key, skeys = _substrate.split(key)  # substrate hook: Keys only when one acts
        z, deg = lohe.equilibrium(h)
        extra = {}
        if self.equilibrium == "ode":
            # uniform from key, default key(ode_seed)
            z0 = _substrate.start(self, h, key)
            hf = h.astype(z0.dtype)
            if self.ode_flow == "unit":  # the rescaled flow: drive h / |h|
                e1 = jnp.zeros_like(hf).at[..., 0].set(1.0)
                hs = jnp.where(deg[..., None], e1, hf)  # double where: no 0/0
                hf = jnp.where(
                    deg[..., None],
                    0.0,
                    hs / jnp.linalg.norm(hs, axis=-1, keepdims=True),
                )
            sol = lohe.settle(
                z0, hf, self.ode_t1, rtol=self.ode_rtol, atol=self.ode_atol
            )
            z = sol.final.astype(h.dtype)
            extra["z0"] = z0.astype(h.dtype)
        if skeys is not None:  # the substrate's z: dynamics to settle_time, bits
            z = _substrate.settle_hook(self, h, z, deg, key, skeys)
        # a degenerate drive reads out at z = 0: uniform over the allowed keys
        return jnp.where(deg[..., None], 0.0, z).astype(h.dtype), deg, extra

    def _finish(self, num, den, v, km_read):
        """Normalised readout: lohe's row normalisation with the uniform fallback."""
        return lohe.normalize_readout(num, den, uniform_values(v, km_read, self.causal))

    # ------------------------------------------------------------------ paths
    def _quadratic(self, s, x, q, k, v, km, key):
        T = x.shape[0]
        r = self._anchor_vectors(s, x)
        # without key padding the causal restriction goes by `causal=` alone (the same
        # sums), so that the fused CPU pair-map kernel takes them (mask=None)
        h = lohe.masked_drive(
            q,
            k,
            r,
            mask=None if km is None else _drive_mask(T, km, self.causal),
            kind=self.coupling,
            causal=self.causal,
        )
        z, deg, extra = self._settle(h, key)
        padded = self.mask_readout and km is not None
        num, den = lohe.readout_sums(
            z,
            r,
            v,
            mask=self._readout_mask(T, km) if padded else None,
            p=self.p,
            causal=self.causal,
        )
        out = self._finish(num, den, v, self._read_km(km))
        return out, dict(anchors=r, h=h, z=z, degenerate=deg, **extra)

    def _relative(self, s, x, q, k, v, km, key):
        T = x.shape[0]
        R = rotated_anchors(self._anchor_vectors(s, x), relative_angles(s.delta, T))
        u, h, z, deg, extra = relative_path(
            q,
            k,
            R,
            _drive_mask(T, km, self.causal),
            self._readout_mask(T, km),
            kind=self.coupling,
            p=self.p,
            settle=lambda h: self._settle(h, key),
        )
        num, den = u @ v, jnp.sum(u, -1, keepdims=True)
        out = self._finish(num, den, v, self._read_km(km))
        return out, dict(anchors=R, h=h, z=z, degenerate=deg, **extra)

    def _linear(self, s, x, q, k, v, km, key):
        r = self._anchor_vectors(s, x)
        fk = lohe.elu1_feature_map(k)
        if km is not None:  # padded keys: zero features, zero couplings
            fk = fk * km[None, :, None].astype(fk.dtype)
        fq = lohe.elu1_feature_map(q) / self.d_head
        h = _linear_attention(fq, fk, r, self.causal, self.chunk)
        z, deg, extra = self._settle(h, key)
        p = int(self.p)
        vv = jnp.concatenate([v, jnp.ones_like(v[..., :1])], -1)
        fz, fr = lohe.readout_features(z, p), lohe.readout_features(r, p)
        nd = _linear_attention(fz, fr, vv, self.causal, self.chunk)
        km_read = self._read_km(km)
        if km_read is not None:
            fr_m = fr * km_read[None, :, None].astype(fr.dtype)
            nd_m = _linear_attention(fz, fr_m, vv, self.causal, self.chunk)
            nd = jnp.where(has_real_key(km_read, self.causal)[None, :, None], nd_m, nd)
        out = self._finish(nd[..., :-1], nd[..., -1:], v, km_read)
        return out, dict(anchors=r, h=h, z=z, degenerate=deg, **extra)

    def _chunked(self, s, x, q, k, v, km, key):
        r = self._anchor_vectors(s, x)
        h = chunked_drive(
            q, k, r, km, causal=self.causal, chunk=self.chunk, kind=self.coupling
        )
        z, deg, extra = self._settle(h, key)
        km_read = self._read_km(km)
        acc = chunked_readout(z, r, v, km, km_read, causal=self.causal, chunk=self.chunk, p=self.p)
        num, den = acc[0], acc[1]
        if km_read is not None:
            has = has_real_key(km_read, self.causal)[None, :, None]
            num, den = jnp.where(has, acc[2], num), jnp.where(has, acc[3], den)
        out = self._finish(num, den, v, km_read)
        return out, dict(anchors=r, h=h, z=z, degenerate=deg, **extra)

    # ------------------------------------------------------------------ call
    def __call__(
        self,
        x: Float[ArrayLike, "T d_model"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        key: PRNGKeyArray | None = None,
        diagnostics: bool = False,
        substrate_key: PRNGKeyArray | None = None,
    ) -> Float[Array, "T d_model"] | tuple[Float[Array, "T d_model"], dict]:
        x = check_input(x, "x", f"(T, d_model={self.d_model})", self.d_model)
        T, H = x.shape[0], self.n_heads
        if self.anchors == "position" and T > self.max_len:
            raise ValueError(
                f"x has T={T} tokens, more than max_len={self.max_len} position anchors."
            )
        km = check_key_mask(mask, T)
        s = cast(self, x.dtype)
        q, k, v = self._qkv(s, x)
        if self.query_scale:  # L4: sigma(beta' q.k / sqrt(d_h))
            q = q * query_scales(s.beta, T)[..., None]
        path = {
            "quadratic": self._relative if self.relative_rotation else self._quadratic,
            "linear": self._linear,
            "chunked": self._chunked,
        }[self.impl]
        skeys = _substrate.keys(self.substrate, key, substrate_key)  # substrate hook
        if skeys is not None and self.relative_rotation:
            raise ValueError(
                "a non-ideal substrate does not model relative_rotation (L3)."
            )
        if skeys is not None and self.substrate._dense:
            dm = _drive_mask(T, km, self.causal)
            out, aux = _substrate.dense_path(self, s, x, q, k, v, km, skeys, dm)
        else:
            out, aux = path(s, x, q, k, v, km, key if skeys is None else skeys)
        y = linear(s.wo, out.transpose(1, 0, 2).reshape(T, H * self.d_head))
        if not diagnostics:
            return y
        # the (T, T) maps, for inspection only (no path keeps them)
        diagnostic_maps(self, s, x, q, k, km, aux)
        return y, aux


__all__ = ["OscillatorAttention"]

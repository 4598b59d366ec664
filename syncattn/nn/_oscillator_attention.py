r"""Fixed-query oscillator attention (seed 001): each query settles on the sphere, then reads out."""

from __future__ import annotations

import math
from functools import partial

import equinox as eqx
import jax
import jax.numpy as jnp

from .. import lohe, sphere
from .._types import Array, ArrayLike, Bool, Float, PRNGKeyArray
from ._common import (
    allowed,
    cast,
    causal_mask,
    check_choice,
    check_input,
    check_int,
    check_key_mask,
    check_positive,
    linear,
)


RELU_EPS = 1e-3  # the published "relu" coupling: relu(s) + 1e-3


def _elu1(x):
    return jax.nn.elu(x) + 1.0


def _tensor_power_features(x, p: int):
    r"""$\psi_p(x) = [1, x]^{\otimes p}$ (flattened), so $\psi_p(a)\cdot\psi_p(b) = (1 + a\cdot b)^p$."""
    one = jnp.concatenate([jnp.ones_like(x[..., :1]), x], -1)
    out = one
    for _ in range(p - 1):
        out = (out[..., :, None] * one[..., None, :]).reshape(*x.shape[:-1], -1)
    return out


def _linear_attention(qf, kf, v, causal: bool, chunk: int):
    r"""$o_i = \sum_{j \le i} (q_i\cdot k_j)\, v_j$ (all $j$ if not causal) in $O(T)$ memory.

    qf, kf: (H, T, F); v: (H, T, D). Causal: chunks of `chunk` tokens; within a chunk
    the masked product is quadratic ($O(T\cdot C)$), across chunks an exclusive prefix
    sum of $k_j v_j^\top$ ($O(T F D / C)$).
    """
    if not causal:
        return jnp.einsum("htf,hfd->htd", qf, jnp.einsum("htf,htd->hfd", kf, v))
    H, T, F = qf.shape
    C = min(chunk, T)
    N = -(-T // C)
    pad = N * C - T

    def blocks(a):
        a = jnp.pad(a, ((0, 0), (0, pad), (0, 0)))  # zero keys/values add nothing
        return a.reshape(H, N, C, a.shape[-1])

    Q, K, V = blocks(qf), blocks(kf), blocks(v)
    kv = jnp.einsum("hncf,hncd->hnfd", K, V)
    state = jnp.cumsum(kv, axis=1)
    state = jnp.concatenate(
        [jnp.zeros_like(state[:, :1]), state[:, :-1]], 1
    )  # exclusive
    inter = jnp.einsum("hncf,hnfd->hncd", Q, state)
    s = (
        jnp.einsum("hncf,hnmf->hncm", Q, K)
        * jnp.tril(jnp.ones((C, C), qf.dtype))[None, None]
    )
    intra = jnp.einsum("hncm,hnmd->hncd", s, V)
    return (inter + intra).reshape(H, N * C, -1)[:, :T]


def _sigma_core(q, k, coupling: str):
    """sigma(q_i, k_j) for q (H, T, d_h), k (H, U, d_h): (H, T, U)."""
    dh = q.shape[-1]
    if coupling == "elu1":
        return jnp.einsum("htd,hud->htu", _elu1(q), _elu1(k)) / dh
    raw = jnp.einsum("htd,hud->htu", q, k) / math.sqrt(dh)
    if coupling == "softplus":
        return jax.nn.softplus(raw)
    return jax.nn.relu(raw) + RELU_EPS


def _drive_mask(T: int, km, causal: bool):
    """(1, T, T) bool: key j enters query i's drive (causal, and real), or None (all)."""
    if not causal and km is None:
        return None
    m = causal_mask(T) if causal else jnp.ones((T, T), bool)
    if km is not None:
        m = m & km[None, :]
    return m[None]


def _after(g, *xs):
    r"""`xs` unchanged, but data-dependent on the cotangent `g`.

    XLA on CPU drops optimisation barriers, and its scheduler would then hoist the
    backward pass's recomputation of the (H, T, T) matrices into the forward pass,
    where they would sit in memory just as if they had been stored. Adding
    $0 \cdot g_{0}$ (not folded away: $0 \cdot \infty$ is NaN) orders them after
    the cotangent exists. A NaN/inf cotangent already makes every gradient NaN/inf.
    """
    zero = jnp.zeros((), g.dtype) * g.reshape(-1)[0]
    return tuple(x + zero.astype(x.dtype) for x in xs)


def _masked(w, m):
    return w if m is None else jnp.where(m, w, 0.0)


@partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _drive(q, k, r, km, coupling: str, causal: bool):
    r"""$h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_j$ (H, T, d_osc), the mask fused into $\sigma$.

    q, k (H, T, d_h), r (H, T, d_osc), km (T,) bool or None. The backward pass
    recomputes the couplings (key-major, $w^\top$) instead of storing them: they would
    be the step's largest buffers.
    """
    w = _masked(_sigma_core(q, k, coupling), _drive_mask(q.shape[1], km, causal))
    return jnp.einsum("htu,hud->htd", w, r)


def _drive_fwd(q, k, r, km, coupling, causal):
    return _drive(q, k, r, km, coupling, causal), (q, k, r, km)


def _drive_bwd(coupling, causal, res, g):
    q, k, r, km = res
    q, k = _after(g, q, k)
    m = _drive_mask(q.shape[1], km, causal)
    mt = None if m is None else jnp.swapaxes(m, -1, -2)

    def wt(q, k):  # (H, U, T): w_tu, key-major (sigma is symmetric in its arguments)
        return _masked(_sigma_core(k, q, coupling), mt)

    w_t, vjp = jax.vjp(wt, q, k)
    g_r = jnp.einsum("hut,htd->hud", w_t, g)
    g_q, g_k = vjp(jnp.einsum("hud,htd->hut", r, g))
    return g_q, g_k, g_r, None


_drive.defvjp(_drive_fwd, _drive_bwd)


def _readout_u(base, mask, p):
    """mask * max(0, base)^p in one pass; double where: 0^p and its gradient stay finite."""
    pos = base > 0
    if mask is not None:
        pos = pos & mask
    if p == 1:
        return jnp.where(pos, base, 0.0)
    return jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)


def _readout_mask_core(T: int, km, causal: bool):
    """(T, T) bool readout mask (`allowed`), or None (bidirectional, no key mask)."""
    return allowed(T, causal, km) if causal or km is not None else None


def _readout_weights_t(z, r, km, p, causal: bool):
    r"""$u_{ij} = \mu_{ij}\max(0, 1 + z_i\cdot r_j)^p$, key-major: (H, U, T) holds $u_{ij}$ at [j, i]."""
    m = _readout_mask_core(z.shape[1], km, causal)
    base = 1.0 + jnp.einsum("hud,htd->hut", r, z)
    return _readout_u(base, None if m is None else m.T[None], p)


@partial(jax.custom_vjp, nondiff_argnums=(4, 5))
def _readout_sums(z, r, vv, km, p, causal: bool):
    r"""$\sum_j \mu_{ij} \max(0, 1 + z_i\cdot r_j)^p\, [v_j, 1]$: numerator and denominator.

    $\mu$ is the readout mask (`allowed` of `_common`: causal, and
    real keys for a query that has one); the last column of `vv` is 1, so the row sums
    of the (H, T, T) weights come out of the same product. The backward pass
    recomputes the weights, like `_drive`.
    """
    m = _readout_mask_core(z.shape[1], km, causal)
    base = 1.0 + jnp.einsum("htd,hud->htu", z, r)
    u = _readout_u(base, None if m is None else m[None], p)
    return jnp.einsum("htu,hud->htd", u, vv)


def _readout_fwd(z, r, vv, km, p, causal):
    return _readout_sums(z, r, vv, km, p, causal), (z, r, vv, km)


def _readout_bwd(p, causal, res, g):
    z, r, vv, km = res
    z, r = _after(g, z, r)
    u_t, vjp = jax.vjp(lambda z, r: _readout_weights_t(z, r, km, p, causal), z, r)
    g_vv = jnp.einsum("hut,htd->hud", u_t, g)
    g_z, g_r = vjp(jnp.einsum("hud,htd->hut", vv, g))
    return g_z, g_r, g_vv, None


_readout_sums.defvjp(_readout_fwd, _readout_bwd)


class OscillatorAttention(eqx.Module):
    r"""Fixed-query oscillator attention: queries settle on $S^{d_\mathrm{osc}-1}$, then read out the values.

    Per head $h$ (dropped below), with $q_i = W_q x_i$, $k_j = W_k x_j$ in
    $\mathbb{R}^{d_h}$, anchors $r_j \in S^{d_\mathrm{osc}-1}$ and the mask $\mu_{ij}$
    ($j \le i$ if causal):

    $$w_{ij} = \mu_{ij}\,\sigma(q_i, k_j), \qquad h_i = \sum_j w_{ij} r_j, \qquad
      z_i = \frac{h_i}{\|h_i\|}, \qquad
      a_{ij} = \frac{\mu_{ij}\max(0, 1 + z_i\cdot r_j)^p}{\sum_l \mu_{il}\max(0, 1+z_i\cdot r_l)^p}$$

    $$y_i = W_o \big\Vert_h \sum_j a_{ij} W_v x_j + b_o$$

    $z_i$ is the stable equilibrium of the fixed-query flow $\dot z = (I - z z^\top) h_i$.
    The pieces are the library's: [`syncattn.lohe.fixed_query_weights`][] (softplus
    coupling), [`syncattn.lohe.drive`][], [`syncattn.lohe.equilibrium`][] and
    [`syncattn.lohe.readout`][]. The equilibrium is computed by
    [`syncattn.lohe.equilibrium`][] on every path; the drive and readout sums are
    evaluated in fused form (below), and the diagnostics' $(T, T)$ matrices come from
    the library functions themselves (the tests hold both to a float64 loop).

    Couplings $\sigma$: `"softplus"` $\log(1 + e^{q\cdot k/\sqrt{d_h}})$ (published),
    `"relu"` $\max(0, q\cdot k/\sqrt{d_h}) + 10^{-3}$ (published ablation), `"elu1"`
    $\phi(q)\cdot\phi(k)/d_h$ with the feature map $\phi = \operatorname{elu} + 1$ (a
    kernel, unlike the published $\operatorname{elu}(q\cdot k/\sqrt{d_h}) + 1$; only
    the direction of $h_i$ matters, so the constant $1/d_h$ does not change the output).

    Anchors: `anchors="position"` (published): a learned $(n_h, \mathrm{max\_len},
    d_\mathrm{osc})$ table indexed by key position, initialised as normalised Gaussians;
    `anchors="content"`: $r_j = W_r x_j$. With `normalize_anchors=True` (default, the
    theory's unit anchors) they are projected onto the sphere in the forward pass
    ([`syncattn.sphere.normalize`][]); `False` uses them raw, as the published code does
    (weight decay then shrinks them, and $\max(0,\cdot)$ can bite).

    Equilibrium: `"closed"` ($h/\|h\|$) or `"ode"`: the fixed-query flow, time-rescaled
    to $\dot z = (I - z z^\top) h/\|h\|$ (same orbit; $\tan(\varphi/2)$ decays as
    $e^{-t}$). That is the Lohe flow of the pair $(z, \hat h)$ in which $z$ listens to
    $\hat h = h/\|h\|$ with weight 1 and $\hat h$ to nobody, so it is integrated by
    [`syncattn.lohe.simulate`][] (diffrax, adaptive steps per oscillator, tolerances
    `ode_rtol`/`ode_atol`) to
    $t_1$ = `ode_t1` from a uniform random start drawn from `key` (default
    `jax.random.key(ode_seed)`), differentiably. A degenerate drive
    ($\|h_i\| \le \sqrt{\varepsilon}$) gives $z_i = e_1$ in both (finite, zero
    gradient) and is flagged in `aux["degenerate"]`.

    Implementations (same parameters, same result):

    - `"quadratic"`: the $(T, T)$ matrices above, in two products: $h = (\mu \odot
      \sigma) R$ and $[\text{numerator}, \text{denominator}] = (\mu' \odot
      \max(0, 1 + Z R^\top)^p)\,[V, \mathbf 1]$, each mask fused into its
      nonlinearity, and the normalised $a_{ij}$ never formed. The backward pass
      recomputes both $(T, T)$ maps instead of storing them (a hand-written VJP), so the
      step needs about the memory of softmax attention. Being a custom VJP, it supports
      reverse-mode differentiation (`grad`, `vjp`) but not `jax.jvp`.
    - `"linear"` (coupling `"elu1"`, integer $p$, unit anchors): $h_i = \phi(q_i)^\top
      \sum_{j \le i}\phi(k_j) r_j^\top / d_h$ and, since $(1 + z\cdot r)^p =
      \psi_p(z)\cdot\psi_p(r)$ with $\psi_p(x) = [1, x]^{\otimes p}$ and $1 + z\cdot r
      \ge 0$ for $\|z\| = 1 \ge \|r\|$, the readout numerator $\sum_{j\le i}
      \psi_p(z_i)\cdot\psi_p(r_j)\, v_j$ and denominator are prefix sums too:
      $O(T\, d_h (d_\mathrm{osc}+1)^p)$ time, memory linear in $T$ (chunks of `chunk`).
    - `"chunked"` (any coupling): the same sums accumulated over key blocks of `chunk`
      tokens (`lax.scan`, rematerialised), $O(T\cdot\mathrm{chunk})$ memory.

    Key padding: `__call__(x, mask=m)`, `m` bool `(T,)` with True = real token, zeroes
    the couplings $w_{ij}$ of padded keys $j$ before the fixed point (as the published
    layer does); with `mask_readout=True` padded keys are also dropped from the readout
    (the published layer keeps them there). A query with no real key keeps its causal
    readout row.

    If every unmasked $1 + z_i\cdot r_j$ vanishes, row $i$ falls back to uniform weights
    (as [`syncattn.lohe.readout`][]).

    Diagnostics: `__call__(x, diagnostics=True)` returns `(y, aux)` with `couplings`
    $w$ $(n_h, T, T)$ after masking, `anchors` $r$, `h`, `z` $(n_h, T, d_\mathrm{osc})$,
    `weights` $a$ $(n_h, T, T)$ and `degenerate` $(n_h, T)$ bool; $y$ is unchanged (the
    $(T, T)$ matrices of `aux` are built for inspection only, from
    [`syncattn.lohe.fixed_query_weights`][] and [`syncattn.lohe.readout`][]).

    Args:
        d_model: width $d$.
        n_heads: heads $n_h$.
        d_osc: oscillator dimension $\ge 2$.
        max_len: longest sequence (size of the position-anchor table).
        key: PRNG key.
        coupling: `"softplus"`, `"relu"` or `"elu1"`.
        p: readout exponent $\ge 1$ (an integer for `impl="linear"`).
        equilibrium: `"closed"` or `"ode"`.
        impl: `"quadratic"`, `"linear"` or `"chunked"`.
        causal: mask $j > i$ (before the fixed point and again at the readout).
        anchors: `"position"` or `"content"`.
        normalize_anchors: project anchors onto the sphere (see above).
        d_head: query/key/value width per head (default `d_model // n_heads`).
        chunk: block length of the linear and chunked paths.
        ode_t1, ode_rtol, ode_atol, ode_seed: settings of `equilibrium="ode"`.
        mask_readout: also apply a key-padding mask at the readout.
    """

    wq: eqx.nn.Linear
    wk: eqx.nn.Linear
    wv: eqx.nn.Linear
    wo: eqx.nn.Linear
    anchor_table: Float[Array, "heads max_len d_osc"] | None
    anchor_proj: eqx.nn.Linear | None
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
    mask_readout: bool = eqx.field(static=True)

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
        ode_t1=40.0,
        ode_rtol=1e-8,
        ode_atol=1e-10,
        ode_seed=0,
    ):
        d_model, n_heads = check_int(d_model, "d_model"), check_int(n_heads, "n_heads")
        if d_head is None:
            if d_model % n_heads:
                raise ValueError(
                    f"d_model={d_model} is not divisible by n_heads={n_heads}; pass d_head."
                )
            d_head = d_model // n_heads
        d_head = check_int(d_head, "d_head")
        if isinstance(d_osc, bool) or not isinstance(d_osc, int) or d_osc < 2:
            raise ValueError(
                f"d_osc must be an int >= 2 (oscillators on S^(d_osc-1)); got {d_osc!r}."
            )
        max_len = check_int(max_len, "max_len")
        check_choice(coupling, "coupling", ("softplus", "relu", "elu1"))
        check_choice(equilibrium, "equilibrium", ("closed", "ode"))
        check_choice(impl, "impl", ("quadratic", "linear", "chunked"))
        check_choice(anchors, "anchors", ("position", "content"))
        if (
            isinstance(p, bool)
            or not isinstance(p, (int, float))
            or not math.isfinite(p)
            or p < 1
        ):
            raise ValueError(
                f"p (readout exponent) must be a finite number >= 1; got {p!r}."
            )
        if impl == "linear":
            if coupling != "elu1":
                raise ValueError(
                    f"impl='linear' needs coupling='elu1' (a kernel phi(q).phi(k)); got {coupling!r}. "
                    "Use impl='chunked' for O(T * chunk) memory with other couplings."
                )
            if p != int(p):
                raise ValueError(
                    f"impl='linear' needs an integer p (polynomial readout kernel); got p={p}."
                )
            if not normalize_anchors:
                raise ValueError(
                    "impl='linear' needs unit anchors (normalize_anchors=True): with ||r|| > 1, "
                    "max(0, 1 + z.r) clips and the readout is no longer a polynomial kernel."
                )
        self.chunk = check_int(chunk, "chunk")
        self.ode_t1 = check_positive(ode_t1, "ode_t1")
        self.ode_rtol = check_positive(ode_rtol, "ode_rtol")
        self.ode_atol = check_positive(ode_atol, "ode_atol")
        self.ode_seed = check_int(ode_seed, "ode_seed", low=0)
        # one fixed split: the same key gives the same shared parameters in every mode
        kq, kk, kv, ko, ka, kr = jax.random.split(key, 6)
        w = n_heads * d_head
        self.wq = eqx.nn.Linear(d_model, w, use_bias=False, key=kq)
        self.wk = eqx.nn.Linear(d_model, w, use_bias=False, key=kk)
        self.wv = eqx.nn.Linear(d_model, w, use_bias=False, key=kv)
        self.wo = eqx.nn.Linear(w, d_model, use_bias=True, key=ko)
        if anchors == "position":
            g = jax.random.normal(ka, (n_heads, max_len, d_osc))
            self.anchor_table = g / jnp.linalg.norm(g, axis=-1, keepdims=True)
            self.anchor_proj = None
        else:
            self.anchor_table = None
            self.anchor_proj = eqx.nn.Linear(
                d_model, n_heads * d_osc, use_bias=False, key=kr
            )
        self.d_model, self.n_heads, self.d_head, self.d_osc = (
            d_model,
            n_heads,
            d_head,
            d_osc,
        )
        self.max_len, self.coupling, self.p = max_len, coupling, p
        self.equilibrium, self.impl, self.causal = equilibrium, impl, bool(causal)
        self.anchors, self.normalize_anchors = anchors, bool(normalize_anchors)
        self.mask_readout = bool(mask_readout)

    # ------------------------------------------------------------------ pieces
    def _anchor_vectors(self, s, x):
        T, H = x.shape[0], self.n_heads
        if self.anchors == "position":
            r = s.anchor_table[:, :T]
        else:
            r = linear(s.anchor_proj, x).reshape(T, H, self.d_osc).transpose(1, 0, 2)
        return sphere.normalize(r) if self.normalize_anchors else r

    def _qk(self, s, x):
        T, H, dh = x.shape[0], self.n_heads, self.d_head
        q = linear(s.wq, x).reshape(T, H, dh).transpose(1, 0, 2)
        k = linear(s.wk, x).reshape(T, H, dh).transpose(1, 0, 2)
        return q, k

    def _couplings(self, s, x, q, k, km):
        """The masked couplings w (H, T, T): causal and key-padding masks."""
        T, H, dh = x.shape[0], self.n_heads, self.d_head
        if self.coupling == "softplus":
            F = s.wq.weight.reshape(H, dh, self.d_model)
            G = s.wk.weight.reshape(H, dh, self.d_model)
            w = jax.vmap(lohe.fixed_query_weights, in_axes=(None, 0, 0))(x, F, G)
        else:
            w = self._sigma(q, k)
        if self.causal:
            w = w * causal_mask(T)[None].astype(w.dtype)
        if km is not None:
            w = w * km[None, None, :].astype(w.dtype)
        return w

    def _sigma(self, q, k):
        """sigma(q_i, k_j) for q (H, T, d_h), k (H, C, d_h): (H, T, C), dot products by einsum."""
        return _sigma_core(q, k, self.coupling)

    def _readout_mask(self, T, km):
        """The readout's (1, T, T) mask, or None (bidirectional, no padding mask)."""
        if self.mask_readout and km is not None:
            return allowed(T, self.causal, km)[None]
        return causal_mask(T)[None] if self.causal else None

    def _settle(self, h, key):
        """z and the degeneracy flag from the drive h (H, T, d_osc)."""
        z, deg = lohe.equilibrium(h)
        if self.equilibrium == "closed":
            return z, deg
        wdt = jnp.promote_types(h.dtype, jnp.float32)
        key = jax.random.key(self.ode_seed) if key is None else key
        z0 = sphere.sample_uniform(key, h.shape[:-1], self.d_osc, dtype=wdt)
        hf = h.astype(wdt)
        e1 = jnp.zeros_like(hf).at[..., 0].set(1.0)
        n = jnp.linalg.norm(jnp.where(deg[..., None], e1, hf), axis=-1, keepdims=True)
        hhat = jnp.where(deg[..., None], e1, hf / n)  # double where: no 0/0
        # the fixed-query flow, time-rescaled, is the Lohe flow of the pair (z, hhat)
        # in which z listens to hhat with weight 1 and hhat listens to nobody
        K = jnp.array([[0.0, 1.0], [0.0, 0.0]], wdt)

        def solve(z0_i, hhat_i):  # one oscillator, its own adaptive steps (causality)
            sol = lohe.simulate(
                jnp.stack([z0_i, hhat_i]),
                None,
                K,
                self.ode_t1,
                saveat=None,
                rtol=self.ode_rtol,
                atol=self.ode_atol,
                max_steps=16_384,
            )
            return sol.final[0]

        z_ode = jax.vmap(jax.vmap(solve))(z0, hhat).astype(h.dtype)
        return jnp.where(deg[..., None], z, z_ode), deg

    # ------------------------------------------------------------------ paths
    def _quadratic(self, s, x, v, km, key):
        q, k = self._qk(s, x)
        r = self._anchor_vectors(s, x)
        h = _drive(q, k, r, km, self.coupling, self.causal)
        z, deg = self._settle(h, key)
        km_read = km if self.mask_readout else None
        vv = jnp.concatenate([v, jnp.ones_like(v[..., :1])], -1)
        nd = _readout_sums(z, r, vv, km_read, self.p, self.causal)
        out = self._normalise(nd[..., :-1], nd[..., -1:], v, None)
        if km_read is not None:
            out_m = self._normalise(nd[..., :-1], nd[..., -1:], v, km_read)
            out = jnp.where(self._has_real_key(km_read)[None, :, None], out_m, out)
        return out, dict(anchors=r, h=h, z=z, degenerate=deg)

    def _linear(self, s, x, v, km, key):
        q, k = self._qk(s, x)
        r = self._anchor_vectors(s, x)
        fk = _elu1(k)
        if km is not None:  # padded keys: zero features, zero couplings
            fk = fk * km[None, :, None].astype(fk.dtype)
        h = _linear_attention(_elu1(q) / self.d_head, fk, r, self.causal, self.chunk)
        z, deg = self._settle(h, key)
        p = int(self.p)
        vv = jnp.concatenate([v, jnp.ones_like(v[..., :1])], -1)
        fz, fr = _tensor_power_features(z, p), _tensor_power_features(r, p)
        nd = _linear_attention(fz, fr, vv, self.causal, self.chunk)
        out = self._normalise(nd[..., :-1], nd[..., -1:], v, None)
        if self.mask_readout and km is not None:
            fr_m = fr * km[None, :, None].astype(fr.dtype)
            nd = _linear_attention(fz, fr_m, vv, self.causal, self.chunk)
            out_m = self._normalise(nd[..., :-1], nd[..., -1:], v, km)
            out = jnp.where(self._has_real_key(km)[None, :, None], out_m, out)
        return out, dict(anchors=r, h=h, z=z, degenerate=deg)

    def _chunked(self, s, x, v, km, key):
        T, H = x.shape[0], self.n_heads
        q, k = self._qk(s, x)
        r = self._anchor_vectors(s, x)
        C = min(self.chunk, T)
        N = -(-T // C)
        pad = N * C - T

        def blocks(a):  # (H, T, f) -> (N, H, C, f), zero-padded keys
            a = jnp.pad(a, ((0, 0), (0, pad), (0, 0)))
            return a.reshape(H, N, C, a.shape[-1]).transpose(1, 0, 2, 3)

        valid = jnp.arange(N * C) < T
        real = valid if km is None else valid & jnp.pad(km, (0, pad))
        valid, real = valid.reshape(N, C), real.reshape(N, C)
        rows = jnp.arange(T)

        def block_mask(j0, ok):  # (1, T, C): key j0 + c is allowed for query i
            m = ok[None, :]
            if self.causal:
                m = m & (j0 + jnp.arange(C)[None, :] <= rows[:, None])
            return m[None]

        @jax.checkpoint
        def drive_step(h, blk):
            kb, rb, j0, ok = blk
            w = self._sigma(q, kb)
            w = jnp.where(block_mask(j0, ok), w, 0.0)
            return h + jnp.einsum("htc,hcd->htd", w, rb), None

        starts = jnp.arange(N) * C
        h0 = jnp.zeros((H, T, self.d_osc), x.dtype)
        h, _ = jax.lax.scan(drive_step, h0, (blocks(k), blocks(r), starts, real))
        z, deg = self._settle(h, key)
        p = self.p

        @jax.checkpoint
        def read_step(acc, blk):
            rb, vb, j0, ok, ok_real = blk
            base = jnp.maximum(0.0, 1.0 + jnp.einsum("htd,hcd->htc", z, rb))
            pos = base > 0
            u = jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)  # double where: 0^p
            u_all = jnp.where(block_mask(j0, ok), u, 0.0)
            u_real = jnp.where(block_mask(j0, ok_real), u, 0.0)
            num, den, num_r, den_r = acc
            return (
                num + jnp.einsum("htc,hcd->htd", u_all, vb),
                den + jnp.sum(u_all, -1, keepdims=True),
                num_r + jnp.einsum("htc,hcd->htd", u_real, vb),
                den_r + jnp.sum(u_real, -1, keepdims=True),
            ), None

        zero_den = jnp.zeros((H, T, 1), v.dtype)
        acc0 = (jnp.zeros_like(v), zero_den, jnp.zeros_like(v), zero_den)
        (num, den, num_r, den_r), _ = jax.lax.scan(
            read_step, acc0, (blocks(r), blocks(v), starts, valid, real)
        )
        out = self._normalise(num, den, v, None)
        if self.mask_readout and km is not None:
            out_m = self._normalise(num_r, den_r, v, km)
            out = jnp.where(self._has_real_key(km)[None, :, None], out_m, out)
        return out, dict(anchors=r, h=h, z=z, degenerate=deg)

    def _has_real_key(self, km):
        """(T,) True where query i has at least one allowed real key."""
        return (
            jnp.cumsum(km) > 0
            if self.causal
            else jnp.broadcast_to(jnp.any(km), km.shape)
        )

    def _normalise(self, num, den, v, km):
        """num/den, or the uniform average over the allowed keys where den = 0."""
        w = (
            jnp.ones_like(v[..., :1])
            if km is None
            else km[None, :, None].astype(v.dtype)
        )
        if self.causal:
            tot, cnt = jnp.cumsum(v * w, axis=1), jnp.cumsum(w, axis=1)
        else:
            tot = jnp.sum(v * w, axis=1, keepdims=True)
            cnt = jnp.sum(w, axis=1, keepdims=True)
        mean = tot / jnp.maximum(cnt, 1.0)
        ok = den > 0
        return jnp.where(ok, num / jnp.where(ok, den, 1.0), mean)

    # ------------------------------------------------------------------ call
    def __call__(
        self,
        x: Float[ArrayLike, "T d_model"],
        *,
        mask: Bool[ArrayLike, " T"] | None = None,
        key: PRNGKeyArray | None = None,
        diagnostics: bool = False,
    ) -> Float[Array, "T d_model"] | tuple[Float[Array, "T d_model"], dict]:
        x = check_input(x, "x", f"(T, d_model={self.d_model})", self.d_model)
        T, H = x.shape[0], self.n_heads
        if self.anchors == "position" and T > self.max_len:
            raise ValueError(
                f"x has T={T} tokens, more than max_len={self.max_len} position anchors."
            )
        km = check_key_mask(mask, T)
        s = cast(self, x.dtype)
        v = linear(s.wv, x).reshape(T, H, self.d_head).transpose(1, 0, 2)
        path = {
            "quadratic": self._quadratic,
            "linear": self._linear,
            "chunked": self._chunked,
        }[self.impl]
        out, aux = path(s, x, v, km, key)
        y = linear(s.wo, out.transpose(1, 0, 2).reshape(T, H * self.d_head))
        if not diagnostics:
            return y
        # the (T, T) matrices, for inspection only, from lohe's own functions (every
        # path evaluates its sums without keeping them)
        q, k = self._qk(s, x)
        aux["couplings"] = self._couplings(s, x, q, k, km)
        aux["weights"] = lohe.readout(
            aux["z"], aux["anchors"], mask=self._readout_mask(T, km), p=self.p
        )
        return y, aux


__all__ = ["OscillatorAttention"]

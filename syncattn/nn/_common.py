"""Shared plumbing of the nn layers: dtype casting, argument checks, masked attention."""

from __future__ import annotations

import math

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._kernels import causal_attention, causal_attention_lse, kernel_enabled
from .._trees import cast_floating


def check_int(v, name: str, low: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"{name} must be an int >= {low}; got {v!r}.")
    return int(v)


def check_positive(v, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a positive number; got {v!r}.")
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be finite and > 0; got {v!r}.")
    return float(v)


def check_choice(v, name: str, choices: tuple) -> str:
    if v not in choices:
        raise ValueError(f"{name} must be one of {choices}; got {v!r}.")
    return v


def check_input(x, name: str, shape_doc: str, last: int | None, ndim: int = 2):
    """Trace-time check of a layer input: rank, last axis, non-empty, floating."""
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(
            f"{name} must be a floating array {shape_doc}; got dtype {x.dtype}."
        )
    if x.ndim != ndim or (last is not None and x.shape[-1] != last):
        raise ValueError(
            f"{name} must have shape {shape_doc} (unbatched; vmap over a batch); got {x.shape}."
        )
    if x.shape[0] == 0:
        raise ValueError(
            f"{name} must hold at least one token (T >= 1); got {x.shape}."
        )
    return x


cast = cast_floating  # every floating leaf of a layer cast to its input's dtype


def linear(layer: eqx.nn.Linear, x):
    """`layer` applied to every row of `x` (..., d_in) -> (..., d_out)."""
    y = x @ layer.weight.T
    if layer.bias is not None:
        y = y + layer.bias.reshape((1,) * (y.ndim - 1) + layer.bias.shape)
    return y


def linear_many(layers, x):
    r"""Several `eqx.nn.Linear` layers on the same rows `x` (..., d_in) as ONE matrix product.

    $$\big[y_1 \,\Vert\, \cdots \,\Vert\, y_n\big] = x\,[W_1; \dots; W_n]^\top
      + [b_1 \Vert \cdots \Vert b_n], \qquad y_i = x W_i^\top + b_i$$

    Returns the tuple $(y_1, \dots, y_n)$; equal to ``[linear(l, x) for l in layers]``
    (one wide GEMM instead of $n$ narrow ones; the concatenated weight is built per call
    and its gradient splits back onto the layers). Biases: all or none.
    """
    y = linear_stacked(layers, x)
    cuts = np.cumsum([layer.weight.shape[0] for layer in layers])[:-1]
    return tuple(jnp.split(y, [int(c) for c in cuts], axis=-1))


def linear_stacked(layers, x):
    r"""The product of `linear_many` before the split: $x\,[W_1; \dots; W_n]^\top + [b_1 \Vert
    \cdots \Vert b_n]$, shape (..., $\sum_i d_i$); for a caller that reshapes it at once."""
    w = jnp.concatenate([layer.weight for layer in layers], 0)
    y = x @ w.T
    if layers[0].bias is not None:
        b = jnp.concatenate([layer.bias for layer in layers], 0)
        y = y + b.reshape((1,) * (y.ndim - 1) + b.shape)
    return y


def causal_mask(T: int, U: int | None = None):
    """Boolean (T, U) mask, True where u <= t (attend)."""
    U = T if U is None else U
    return jnp.tril(jnp.ones((T, U), bool))


def check_key_mask(mask, T: int):
    """A key-padding mask: bool (T,), True = a real token that may be attended to."""
    if mask is None:
        return None
    mask = jnp.asarray(mask)
    if mask.dtype != jnp.bool_ or mask.shape != (T,):
        raise ValueError(
            f"mask must be a boolean array of shape (T,)=({T},) (True = real token); "
            f"got dtype {mask.dtype}, shape {mask.shape}."
        )
    return mask


def allowed(T: int, causal: bool, key_mask=None):
    """Boolean (T, T) attend-matrix: causal and/or key padding.

    A row left with no real key (a padding token before every real one) falls back to
    its causal row, so every row attends to something and no softmax sees only -inf.
    """
    base = causal_mask(T) if causal else jnp.ones((T, T), bool)
    if key_mask is None:
        return base
    m = base & key_mask[None, :]
    return jnp.where(jnp.any(m, -1, keepdims=True), m, base)


def attention_weights(q, k, causal: bool, key_mask=None):
    """Softmax weights (H, T, U) of the scores q_t . k_u (scale already folded into q)."""
    s = jnp.einsum("thd,uhd->htu", q, k)
    if causal or key_mask is not None:
        s = jnp.where(allowed(q.shape[0], causal, key_mask)[None], s, -jnp.inf)
    wdt = jnp.promote_types(s.dtype, jnp.float32)
    return jax.nn.softmax(s.astype(wdt), axis=-1).astype(q.dtype)


# Query-block width of the CPU attention path (see `blocked_causal_attend`): at least
# this, and at most 8 blocks (long sequences take wider blocks: fewer, larger products).
CPU_ATTENTION_BLOCK = 64
CPU_ATTENTION_MAX_BLOCKS = 8


def blocked_causal_attend(q, k, v, key_mask=None, block: int = CPU_ATTENTION_BLOCK):
    r"""Causal $\operatorname{softmax}(q k^\top)\, v$ per head, by query blocks, without the
    key blocks above the diagonal; q, k, v of shape (T, H, D).

    For the query block $I = [s, e)$ every allowed key has $u \le t < e$, so with
    $E_{tu} = \exp(q_t\cdot k_u - m_t)\,[u \in \mathcal A_t]$ and
    $m_t = \max_{u \in \mathcal A_t} q_t\cdot k_u$,

    $$y_t = \frac{\sum_{u < e} E_{tu}\, v_u}{\ell_t}, \qquad \ell_t = \sum_{u < e} E_{tu},
      \qquad t \in I,$$

    with $\mathcal A_t$ the allowed keys of `allowed` (causal, and the key-padding
    mask): the full causal attention exactly, on $\tfrac{n+1}{2n}$ of its $T \times T$
    score entries for $n = \lceil T/\text{block}\rceil$ blocks. The normalisation
    divides the $(T, D)$ output, not the $(T, T)$ weights (one $(T, T)$ pass less
    forward and backward), and $m$ is held constant in the gradient (exact: $y$ does
    not depend on $m$). Scores and softmax in at least float32 (float64 stays
    float64); the result takes `q`'s dtype.
    """
    T = q.shape[0]
    ok = allowed(T, True, key_mask)
    wdt = jnp.promote_types(q.dtype, jnp.float32)
    outs = []
    for s0 in range(0, T, block):
        e = min(s0 + block, T)
        s = jnp.einsum("thd,uhd->htu", q[s0:e], k[:e], preferred_element_type=wdt)
        s = jnp.where(ok[None, s0:e, :e], s, -jnp.inf)
        m = jax.lax.stop_gradient(jnp.max(s, -1, keepdims=True))  # finite: a key per row
        E = jnp.exp(s - m)
        ell = jnp.sum(E, -1)  # (H, t)
        y = jnp.einsum("htu,uhd->thd", E.astype(v.dtype), v[:e], preferred_element_type=wdt)
        outs.append((y / ell.T[..., None]).astype(q.dtype))
    return outs[0] if len(outs) == 1 else jnp.concatenate(outs, 0)


def attend(q, k, v, causal: bool, key_mask=None):
    r"""$\operatorname{softmax}(q k^\top)\, v$ per head; q, k, v of shape (T, H, D).

    float64 takes the exact einsum path (jax.nn.dot_product_attention computes its
    softmax in float32). float32 on the CPU backend takes the fused kernel
    (`syncattn._kernels.causal_attention`, C++ through jax.ffi) when it is built;
    without it, a causal layer longer than one block
    takes `blocked_causal_attend`, which skips the masked upper blocks: it computes
    0.625 of the score entries at T = 256 (blocks of 64), and 0.5625 for long T (8
    blocks at most). Every other case goes through jax.nn.dot_product_attention, a fused kernel on GPU with
    O(T * width) memory.
    """
    if kernel_enabled(q.dtype):
        return causal_attention(q, k, v, mask=key_mask, causal=causal)
    if q.dtype == jnp.float64:
        return jnp.einsum("htu,uhd->thd", attention_weights(q, k, causal, key_mask), v)
    T = q.shape[0]
    if causal and T > CPU_ATTENTION_BLOCK and jax.default_backend() == "cpu":
        block = max(CPU_ATTENTION_BLOCK, -(-T // CPU_ATTENTION_MAX_BLOCKS))
        return blocked_causal_attend(q, k, v, key_mask, block)
    if key_mask is None:
        return jax.nn.dot_product_attention(q, k, v, scale=1.0, is_causal=causal)
    m = allowed(T, causal, key_mask)[None]
    return jax.nn.dot_product_attention(q, k, v, mask=m, scale=1.0)


def attend_delayed(q, k, v, w, key_mask=None):
    r"""Causal attention of two value streams through the same weights; q, k of shape
    (T, H, D), v and w of shape (T, H, E).

    $$y_t = \sum_{u \le t} A_{tu}\, v_u, \qquad z_t = \sum_{u < t} A_{tu}\, w_u,
      \qquad A_{tu} = \operatorname{softmax}_{u \in \mathcal A_t}\, q_t\cdot k_u$$

    ($\mathcal A_t$ the allowed keys of `allowed`, causal with the key-padding mask). The
    second sum stops before the diagonal, so a stream $w_u$ that holds the successor's
    features ($w_u = f(x_{u+1})$, at most $x_t$ for $u < t$) stays causal: $z_t$ reads
    tokens $\le t$ only, exactly (the diagonal is masked, not subtracted). The weights
    are those of $y$ (the same row normaliser $\ell_t$ over $u \le t$), so $z$ is one
    more value stream through the softmax of `blocked_causal_attend`: float64 takes the
    exact einsum path, every other dtype the blocked path (query blocks of at least
    `CPU_ATTENTION_BLOCK`, at most `CPU_ATTENTION_MAX_BLOCKS` blocks) on every backend.
    Returns `(y, z)` in `q`'s dtype.
    """
    T = q.shape[0]
    ok = allowed(T, True, key_mask)
    strict = ok & ~jnp.eye(T, dtype=bool)
    if q.dtype == jnp.float64:
        A = attention_weights(q, k, True, key_mask)
        As = jnp.where(strict[None], A, 0.0)
        return jnp.einsum("htu,uhd->thd", A, v), jnp.einsum("htu,uhd->thd", As, w)
    block = max(CPU_ATTENTION_BLOCK, -(-T // CPU_ATTENTION_MAX_BLOCKS))
    wdt = jnp.promote_types(q.dtype, jnp.float32)
    ys, zs = [], []
    for s0 in range(0, T, block):
        e = min(s0 + block, T)
        s = jnp.einsum("thd,uhd->htu", q[s0:e], k[:e], preferred_element_type=wdt)
        s = jnp.where(ok[None, s0:e, :e], s, -jnp.inf)
        m = jax.lax.stop_gradient(jnp.max(s, -1, keepdims=True))  # finite: a key per row
        E = jnp.exp(s - m)
        ell = jnp.sum(E, -1).T[..., None]  # (t, H, 1)
        Es = jnp.where(strict[None, s0:e, :e], E, 0.0)
        y = jnp.einsum("htu,uhd->thd", E.astype(v.dtype), v[:e], preferred_element_type=wdt)
        z = jnp.einsum("htu,uhd->thd", Es.astype(w.dtype), w[:e], preferred_element_type=wdt)
        ys.append((y / ell).astype(q.dtype))
        zs.append((z / ell).astype(q.dtype))
    if len(ys) == 1:
        return ys[0], zs[0]
    return jnp.concatenate(ys, 0), jnp.concatenate(zs, 0)


def attend_successor(q, k, p, d, key_mask=None):
    r"""Causal attention whose diagonal takes its own value: q, k (T, H, D), p, d (T, H, E).

    $$y_t = \sum_{u < t} A_{tu}\, p_u + A_{tt}\, d_t,
      \qquad A_{tu} = \operatorname{softmax}_{u \in \mathcal A_t}\, q_t\cdot k_u$$

    (the weights of `attend_delayed`; $A_{tt} = 0$ where key $t$ is padded). With
    $p_u = v_u + w_u$ and $d_t = v_t$ it is $\sum_{u \le t} A_{tu} v_u + \sum_{u<t}
    A_{tu} w_u$, the two streams of `attend_delayed` in ONE product of width $E$
    (instead of two): exactly causal when $p_u$ reads tokens $\le u + 1$ (the
    strictly lower product never sees $p_t$). float64: the exact einsum path. float32
    on the CPU backend, where the fused kernel is built (`kernel_enabled`, the gate of
    `attend`): ONE kernel call for the strictly lower sum and the row log-sum-exp
    $L_t$ (`syncattn._kernels.causal_attention_lse`, ``strict=True``: the diagonal
    counts in $L_t$, its value $p_t$ is left out, not subtracted), then the diagonal in
    $O(T)$, $A_{tt} = e^{q_t\cdot k_t - L_t}$, differentiable through $L$. Other
    dtypes, or without the kernel: the blocked path (as `attend_delayed`).
    """
    if kernel_enabled(q.dtype):
        return _successor_by_kernel(q, k, p, d, key_mask)
    T = q.shape[0]
    ok = allowed(T, True, key_mask)
    eye = jnp.eye(T, dtype=bool)
    strict = ok & ~eye
    if q.dtype == jnp.float64:
        A = attention_weights(q, k, True, key_mask)
        diag = jnp.sum(jnp.where(eye[None], A, 0.0), -1).T[..., None]  # (T, H, 1)
        return jnp.einsum("htu,uhd->thd", jnp.where(strict[None], A, 0.0), p) + diag * d
    block = max(CPU_ATTENTION_BLOCK, -(-T // CPU_ATTENTION_MAX_BLOCKS))
    wdt = jnp.promote_types(q.dtype, jnp.float32)
    # the diagonal score q_t . k_t apart (O(T D)), so the (T, T) blocks hold the strictly
    # lower part only: one mask, one exp, one sum per entry, as `blocked_causal_attend`
    s_tt = jnp.einsum("thd,thd->th", q, k, preferred_element_type=wdt)
    s_tt = jnp.where(jnp.diagonal(ok)[:, None], s_tt, -jnp.inf)  # a padded key t: A_tt = 0
    outs = []
    for s0 in range(0, T, block):
        e = min(s0 + block, T)
        s = jnp.einsum("thd,uhd->htu", q[s0:e], k[:e], preferred_element_type=wdt)
        s = jnp.where(strict[None, s0:e, :e], s, -jnp.inf)
        d_s = s_tt[s0:e].T  # (H, t)
        # finite: every row has an allowed key (strictly lower or its diagonal)
        m = jax.lax.stop_gradient(jnp.maximum(jnp.max(s, -1), d_s))[..., None]
        E = jnp.exp(s - m)
        diag = jnp.exp(d_s[..., None] - m)  # (H, t, 1); 0 where masked
        ell = (jnp.sum(E, -1, keepdims=True) + diag).transpose(1, 0, 2)  # (t, H, 1)
        y = jnp.einsum("htu,uhd->thd", E.astype(p.dtype), p[:e], preferred_element_type=wdt)
        y = y + diag.transpose(1, 0, 2) * d[s0:e].astype(wdt)
        outs.append((y / ell).astype(q.dtype))
    return outs[0] if len(outs) == 1 else jnp.concatenate(outs, 0)


def _successor_by_kernel(q, k, p, d, key_mask):
    r"""`attend_successor` as $y_t = o_t + e^{s_{tt} - L_t} d_t$ with $(o, L)$ the kernel's
    strictly lower sum and row log-sum-exp. The diagonal key is allowed where it is real
    or where row $t$ has no real key $u \le t$ (then it keeps its causal row, as
    `allowed`); elsewhere $s_{tt} = -\infty$ and $A_{tt} = 0$."""
    o, L = causal_attention_lse(q, k, p, mask=key_mask, causal=True, strict=True)
    s_tt = jnp.einsum("thd,thd->th", q, k, preferred_element_type=L.dtype)
    if key_mask is not None:
        # key t real, or no real key u <= t (row t keeps its causal row)
        diag_ok = key_mask | (jnp.cumsum(key_mask) == 0)
        s_tt = jnp.where(diag_ok[:, None], s_tt, -jnp.inf)  # exp(-inf - L) = 0, grad 0
    return o + (jnp.exp(s_tt - L)[..., None] * d).astype(o.dtype)

r"""The oscillator layer's O(T)-memory paths: the linear-time sums of the feature-map
coupling and the key-block scans of the chunked path.

Each function evaluates, block by block, the same sums as the quadratic path of
[`syncattn.nn.OscillatorAttention`][] (the drive $h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_j$
and the readout sums $\sum_j u_{ij} v_j$, $\sum_j u_{ij}$ with
$u_{ij} = \max(0, 1 + z_i\cdot r_j)^p$), from lohe's kernels; tests/nn compares each
path with the plain composition in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import lohe
from ._common import causal_mask


__all__ = ["linear_attention", "drive_mask", "chunked_drive", "chunked_readout",
           "relative_angles", "rotated_anchors", "relative_path", "query_scales",
           "BETA_FLOOR", "uniform_values", "has_real_key", "diagnostic_maps"]

BETA_FLOOR = 0.1  # the published |beta|.clamp(min=0.1) of the L4 ablation


def linear_attention(qf, kf, v, causal: bool, chunk: int):
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


def drive_mask(T: int, km, causal: bool):
    """(1, T, T) bool: key j enters query i's drive (causal, and real), or None (all)."""
    if not causal and km is None:
        return None
    m = causal_mask(T) if causal else jnp.ones((T, T), bool)
    if km is not None:
        m = m & km[None, :]
    return m[None]


def _key_blocks(T: int, chunk: int, km):
    """Block geometry of the chunked path: size C, count N, padding, and the (N, C)
    masks of keys that exist (`valid`) and that are real (`real`: not padded by `km`)."""
    C = min(chunk, T)
    N = -(-T // C)
    pad = N * C - T
    valid = jnp.arange(N * C) < T
    real = valid if km is None else valid & jnp.pad(km, (0, pad))
    return C, N, pad, valid.reshape(N, C), real.reshape(N, C)


def _blocker(H: int, N: int, C: int, pad: int):
    def blocks(a):  # (H, T, f) -> (N, H, C, f), zero-padded keys
        a = jnp.pad(a, ((0, 0), (0, pad), (0, 0)))
        return a.reshape(H, N, C, a.shape[-1]).transpose(1, 0, 2, 3)

    return blocks


def _block_mask(T: int, C: int, causal: bool):
    rows = jnp.arange(T)

    def block_mask(j0, ok):  # (1, T, C): key j0 + c is allowed for query i
        m = ok[None, :]
        if causal:
            m = m & (j0 + jnp.arange(C)[None, :] <= rows[:, None])
        return m[None]

    return block_mask


def chunked_drive(q, k, r, km, *, causal: bool, chunk: int, kind: str):
    r"""$h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_j$ by a scan over key blocks of `chunk`
    (rematerialised in the backward pass): $O(T\cdot C)$ memory.

    q, k: (H, T, d_h); r: (H, T, d_osc); km: (T,) real keys or None;
    $\mu_{ij}$ = key $j$ real (and $j \le i$ if `causal`). Returns h: (H, T, d_osc).
    """
    H, T = q.shape[0], q.shape[1]
    C, N, pad, _, real = _key_blocks(T, chunk, km)
    blocks, block_mask = _blocker(H, N, C, pad), _block_mask(T, C, causal)

    @jax.checkpoint
    def drive_step(h, blk):
        kb, rb, j0, ok = blk
        w = jnp.where(block_mask(j0, ok), lohe.coupling_weights(q, kb, kind=kind), 0.0)
        return h + jnp.einsum("htc,hcd->htd", w, rb), None

    starts = jnp.arange(N) * C
    h0 = jnp.zeros((H, T, r.shape[-1]), q.dtype)
    h, _ = jax.lax.scan(drive_step, h0, (blocks(k), blocks(r), starts, real))
    return h


def chunked_readout(z, r, v, km, km_read, *, causal: bool, chunk: int, p: float | int):
    r"""The readout sums $\sum_j u_{ij} v_j$ and $\sum_j u_{ij}$,
    $u_{ij} = \max(0, 1 + z_i\cdot r_j)^p$ over the allowed keys (every existing key, or
    $j \le i$ if `causal`), by a scan over key blocks of `chunk`.

    z: (H, T, d_osc); r: anchors; v: (H, T, D); km: (T,) real keys or None.
    Returns ``(num, den)``, and with `km_read` (the readout's key mask) also the sums over
    the real keys only, ``(num, den, num_real, den_real)``.
    """
    H, T = v.shape[0], v.shape[1]
    C, N, pad, valid, real = _key_blocks(T, chunk, km)
    blocks, block_mask = _blocker(H, N, C, pad), _block_mask(T, C, causal)

    @jax.checkpoint
    def read_step(acc, blk):
        rb, vb, j0, ok, ok_real = blk
        u_all = lohe.readout_kernel(z, rb, p=p, mask=block_mask(j0, ok))
        num, den = (
            acc[0] + jnp.einsum("htc,hcd->htd", u_all, vb),
            acc[1] + jnp.sum(u_all, -1, keepdims=True),
        )
        if km_read is None:
            return (num, den), None
        u_real = lohe.readout_kernel(z, rb, p=p, mask=block_mask(j0, ok_real))
        return (
            num,
            den,
            acc[2] + jnp.einsum("htc,hcd->htd", u_real, vb),
            acc[3] + jnp.sum(u_real, -1, keepdims=True),
        ), None

    starts = jnp.arange(N) * C
    zero_den = jnp.zeros((H, T, 1), v.dtype)
    acc0 = (jnp.zeros_like(v), zero_den)
    if km_read is not None:
        acc0 = acc0 * 2
    acc, _ = jax.lax.scan(read_step, acc0, (blocks(r), blocks(v), starts, valid, real))
    return acc


# --------------------------------------------------------------------------- ablations L3, L4


def relative_angles(delta, T: int):
    r"""$\theta_{ij} = \delta_{\min(\max(i - j, 0),\, T - 1)}$, shape (T, T): the L3 rotation
    angle of key $j$ for query $i$, indexed by how many steps back the key is ($i - j$;
    keys ahead of the query, $j > i$, take $\delta_0$, as the published clamp does)."""
    pos = jnp.arange(T)
    return delta[jnp.clip(pos[:, None] - pos[None, :], 0, T - 1)]


def rotated_anchors(r, theta):
    r"""$r_{ij} = R(\theta_{ij})\, r_j$ with $R(\theta) = \begin{pmatrix}\cos\theta & -\sin\theta
    \\ \sin\theta & \cos\theta\end{pmatrix}$: r (H, T, 2), theta (T, T) -> (H, T, T, 2)."""
    c, s = jnp.cos(theta)[None], jnp.sin(theta)[None]  # (1, T_q, T_k)
    a0, a1 = r[:, None, :, 0], r[:, None, :, 1]  # (H, 1, T_k)
    return jnp.stack([c * a0 - s * a1, s * a0 + c * a1], -1)


def relative_path(q, k, R, dmask, rmask, *, kind: str, p, settle):
    r"""The quadratic path with per-pair anchors $r_{ij}$ (L3): lohe's kernels on them,

    $$h_i = \sum_j \mu_{ij}\,\sigma(q_i, k_j)\, r_{ij}, \qquad
      u_{ij} = \mu'_{ij}\max(0, 1 + z_i\cdot r_{ij})^p$$

    ([`syncattn.lohe.coupling_weights`][], [`syncattn.lohe.drive`][],
    [`syncattn.lohe.readout_kernel`][] with query $i$ as a batch axis). `dmask`, `rmask`:
    the drive and readout masks, (1, T, T) or None; `settle(h) -> (z, deg, extra)`.
    Returns ``(u, h, z, deg, extra)`` with u (H, T, T).
    """
    w = lohe.coupling_weights(q, k, kind=kind)
    if dmask is not None:
        w = jnp.where(dmask, w, 0.0)
    h = lohe.drive(w[..., None, :], R)[..., 0, :]
    z, deg, extra = settle(h)
    m = None if rmask is None else rmask[..., None, :]
    u = lohe.readout_kernel(z[..., None, :], R, p=p, mask=m)[..., 0, :]
    return u, h, z, deg, extra


def query_scales(beta, T: int):
    r"""$\beta'_{h i} = \max(|\beta_{h i}|, 0.1)$ for $i < T$, shape (H, T): the L4 coupling
    scales (positive, floored at 0.1 as published)."""
    return jnp.maximum(jnp.abs(beta[:, :T]), BETA_FLOOR)


# --------------------------------------------------------------------------- readout helpers


def uniform_values(v, km, causal: bool):
    r"""$\bar v_i$: the mean of the values over query i's allowed readout keys.

    `km` is the readout key mask (or None); a query with no real key falls back
    to its causal row, as `allowed`. Prefix sums: O(T).
    """

    def mean(w):
        if causal:
            tot, cnt = jnp.cumsum(v * w, axis=1), jnp.cumsum(w, axis=1)
        else:
            tot = jnp.sum(v * w, axis=1, keepdims=True)
            cnt = jnp.sum(w, axis=1, keepdims=True)
        return tot / jnp.maximum(cnt, 1.0), cnt

    every, _ = mean(jnp.ones_like(v[..., :1]))
    if km is None:
        return every
    real, cnt = mean(km[None, :, None].astype(v.dtype))
    return jnp.where(cnt > 0, real, every)


def has_real_key(km, causal: bool):
    """(T,) True where query i has at least one allowed real key."""
    return jnp.cumsum(km) > 0 if causal else jnp.broadcast_to(jnp.any(km), km.shape)


def diagnostic_maps(layer, s, x, q, k, km, aux) -> None:
    r"""Add the $(T, T)$ maps `couplings` $w$ and `weights` $a$ to `aux`, from lohe's own
    functions ([`syncattn.lohe.fixed_query_weights`][], or with L4's scaled queries
    [`syncattn.lohe.coupling_weights`][]; [`syncattn.lohe.readout`][], per pair of
    anchors with L3): for inspection only."""
    T, H, dh = x.shape[0], layer.n_heads, layer.d_head
    if layer.query_scale:
        w = lohe.coupling_weights(q, k, kind=layer.coupling)
    else:
        F = s.wq.weight.reshape(H, dh, layer.d_model)
        G = s.wk.weight.reshape(H, dh, layer.d_model)
        w = jax.vmap(lambda F, G: lohe.fixed_query_weights(x, F, G, kind=layer.coupling))(F, G)
    dm = drive_mask(T, km, layer.causal)
    aux["couplings"] = w if dm is None else jnp.where(dm, w, 0.0)
    rm = layer._readout_mask(T, km)
    if layer.relative_rotation:
        m = None if rm is None else rm[..., None, :]
        a = lohe.readout(aux["z"][..., None, :], aux["anchors"], mask=m, p=layer.p)
        aux["weights"] = a[..., 0, :]
    else:
        aux["weights"] = lohe.readout(aux["z"], aux["anchors"], mask=rm, p=layer.p)

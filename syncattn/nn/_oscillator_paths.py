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


__all__ = ["linear_attention", "drive_mask", "chunked_drive", "chunked_readout"]


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

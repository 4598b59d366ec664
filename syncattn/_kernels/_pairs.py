r"""The pair maps of fixed-query attention through the fused CPU kernel, and their plain
XLA composition.

$$\mathrm{out}_i = \sum_{j \in \mathcal A_i} \varphi(a_i\cdot b_j)\, c_j, \qquad
  \mathcal A_i = \{j < m\} \text{ or, causal, } \{j \le i\}$$

with $\varphi$ the drive's softplus coupling ($\varphi(s) = \log(1 + e^{\gamma s})$,
$\gamma$ = `scale`, [`syncattn.lohe.masked_drive`][]) or the readout kernel
($\varphi(s) = \max(0, 1 + s)^p$, [`syncattn.lohe.readout_sums`][]). The kernel
(`attention.cc`) never forms the $(n, m)$ map: rows in blocks, keys in chunks, and the
VJP recomputes the map from $a$ and $b$.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._types import Array, ArrayLike, Float
from . import _library
from ._attention import kernel_enabled


KINDS = ("softplus", "power")


def _phi(s, kind: str, scale: float, p: int):
    if kind == "softplus":
        return jax.nn.softplus(scale * s)
    base = 1.0 + s
    pos = base > 0
    return jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)


def xla_pair_map(
    a: Float[ArrayLike, "*batch n d"],
    b: Float[ArrayLike, "*batch m d"],
    c: Float[ArrayLike, "*batch m f"],
    *,
    kind: str,
    scale: float = 1.0,
    p: int = 1,
    causal: bool = False,
) -> Float[Array, "*batch n f"]:
    r"""The plain XLA composition of `pair_map`: the $(n, m)$ map, materialised.

    $$\mathrm{out} = \big(\mu \odot \varphi(a b^\top)\big)\, c, \qquad
      \mu_{ij} = [j \le i] \text{ if causal, else } 1$$

    the reference the kernel is tested against.
    """
    a, b, c = jnp.asarray(a), jnp.asarray(b), jnp.asarray(c)
    w = _phi(jnp.einsum("...nd,...md->...nm", a, b), kind, scale, p)
    if causal:
        n, m = w.shape[-2:]
        w = jnp.where(np.arange(n)[:, None] >= np.arange(m)[None, :], w, 0.0)
    return jnp.einsum("...nm,...mf->...nf", w, c)


def _call(name, args, results, flags):
    kind, p, scale, causal = flags
    attrs = dict(kind=np.int32(kind), p=np.int32(p), scale=np.float32(scale),
                 causal=np.int32(causal))
    return jax.ffi.ffi_call(name, results, vmap_method="broadcast_all")(*args, **attrs)


@partial(jax.custom_vjp, nondiff_argnums=(3,))
def _fused(a, b, c, flags):
    out = jax.ShapeDtypeStruct(a.shape[:-1] + c.shape[-1:], jnp.float32)
    return _call(_library.PAIR_FORWARD, (a, b, c), out, flags)


def _fused_fwd(a, b, c, flags):
    return _fused(a, b, c, flags), (a, b, c)


def _fused_bwd(flags, res, g):
    a, b, c = res
    out = tuple(jax.ShapeDtypeStruct(x.shape, jnp.float32) for x in (a, b, c))
    return _call(_library.PAIR_BACKWARD, (a, b, c, g), out, flags)


_fused.defvjp(_fused_fwd, _fused_bwd)


def pair_map(
    a: Float[ArrayLike, "*batch n d"],
    b: Float[ArrayLike, "*batch m d"],
    c: Float[ArrayLike, "*batch m f"],
    *,
    kind: str,
    scale: float = 1.0,
    p: int = 1,
    causal: bool = False,
) -> Float[Array, "*batch n f"]:
    r"""$\mathrm{out}_i = \sum_{j \in \mathcal A_i} \varphi(a_i\cdot b_j)\, c_j$ by the
    fused CPU kernel (`attention.cc`, through `jax.ffi`), where `kernel_enabled`.

    $$\varphi(s) = \begin{cases} \log(1 + e^{\gamma s}) & \texttt{"softplus"} \\
      \max(0, 1 + s)^p & \texttt{"power"} \end{cases}, \qquad
      \mathcal A_i = \{j \le i\} \text{ if causal, else all } j$$

    The VJP is the kernel's: $\bar c_j = \sum_i \mu_{ij}\varphi(s_{ij})\bar o_i$,
    $\bar s_{ij} = \mu_{ij}\varphi'(s_{ij})\,\bar o_i\cdot c_j$, $\bar a = \bar s\, b$,
    $\bar b = \bar s^\top a$, with the map recomputed (never stored). The batch axes
    broadcast. Elsewhere (another dtype, a GPU, no compiler,
    ``SYNCATTN_ATTENTION_KERNEL=0``) it returns `xla_pair_map`.

    Args:
        a: `(..., n, d)`.
        b: `(..., m, d)`.
        c: `(..., m, f)`.
        kind: `"softplus"` or `"power"`.
        scale: $\gamma$ of the softplus (ignored by `"power"`).
        p: the power's integer exponent $\ge 1$ (ignored by `"softplus"`).
        causal: keys $j \le i$ only.

    Returns:
        `(..., n, f)`.

    Raises:
        ValueError: shapes that do not agree, an unknown `kind`, a bad `p`.
    """
    a, b, c = jnp.asarray(a), jnp.asarray(b), jnp.asarray(c)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")
    if isinstance(p, bool) or int(p) != p or p < 1:
        raise ValueError(f"p must be an integer >= 1; got {p!r}.")
    if (
        min(a.ndim, b.ndim, c.ndim) < 2
        or a.shape[-1] != b.shape[-1]
        or b.shape[-2] != c.shape[-2]
    ):
        raise ValueError(
            "a (..., n, d), b (..., m, d) and c (..., m, f) must agree; got "
            f"{a.shape}, {b.shape} and {c.shape}."
        )
    dtypes = {a.dtype, b.dtype, c.dtype}
    if len(dtypes) != 1 or not kernel_enabled(a.dtype):
        return xla_pair_map(a, b, c, kind=kind, scale=scale, p=int(p), causal=causal)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    a, b, c = (jnp.broadcast_to(x, batch + x.shape[-2:]) for x in (a, b, c))
    flags = (KINDS.index(kind), int(p), float(scale), bool(causal))
    return _fused(a, b, c, flags)

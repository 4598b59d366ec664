r"""Fixed-query attention pieces: couplings, drive, readout kernel, row normalisation.

The kernels here are the ones [`syncattn.nn.OscillatorAttention`][] evaluates on every
path: [`coupling_weights`][syncattn.lohe.coupling_weights] ($\sigma$),
[`elu1_feature_map`][syncattn.lohe.elu1_feature_map] ($\phi$),
[`readout_features`][syncattn.lohe.readout_features] ($\psi_p$),
[`readout_kernel`][syncattn.lohe.readout_kernel] ($\max(0, 1 + z\cdot r)^p$) and
[`normalize_readout`][syncattn.lohe.normalize_readout] (the row normalisation with its
uniform fallback); the fused masked products with their memory-light VJPs are in
`_fused.py`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_finite,
    check_scalar_range,
)
from .._types import (
    Array,
    ArrayLike,
    Bool,
    Float,
    ScalarLike,
)


COUPLINGS = ("softplus", "relu", "elu1", "elu1_features")
RELU_EPS = 1e-3
r"""The floor of the published ``"relu"`` coupling: $\mathrm{relu}(s) + 10^{-3}$."""


def _elu1(x):
    return jax.nn.elu(x) + 1.0


def _coupling(q, k, kind: str):
    """sigma(q_i, k_j), (..., n, m), for q (..., n, d_h), k (..., m, d_h); no checks."""
    dh = q.shape[-1]
    if kind == "elu1_features":
        return jnp.einsum("...nd,...md->...nm", _elu1(q), _elu1(k)) / dh
    raw = jnp.einsum("...nd,...md->...nm", q, k) / math.sqrt(dh)
    if kind == "softplus":
        return jax.nn.softplus(raw)
    if kind == "relu":
        return jax.nn.relu(raw) + RELU_EPS
    return _elu1(raw)  # "elu1": the published score nonlinearity


def _check_kind(kind):
    if kind not in COUPLINGS:
        raise ValueError(f"kind (coupling) must be one of {COUPLINGS}; got {kind!r}.")
    return kind


def coupling_weights(
    q: Float[ArrayLike, "*batch n d_h"],
    k: Float[ArrayLike, "*batch m d_h"],
    *,
    kind: str = "softplus",
) -> Float[Array, "*batch n m"]:
    r"""Couplings $\sigma(q_i, k_j)$ of fixed-query attention, one coupling kind each.

    With $s_{ij} = q_i\cdot k_j/\sqrt{d_h}$:

    $$\sigma(q_i, k_j) = \begin{cases}
      \log(1 + e^{s_{ij}}) & \texttt{"softplus"}\ \text{(published)} \\
      \max(0, s_{ij}) + 10^{-3} & \texttt{"relu"}\ \text{(published ablation)} \\
      \operatorname{elu}(s_{ij}) + 1 & \texttt{"elu1"}\ \text{(published ablation)} \\
      \phi(q_i)\cdot\phi(k_j)/d_h,\ \phi = \operatorname{elu} + 1 & \texttt{"elu1\_features"}
    \end{cases}$$

    $\operatorname{elu}(s) = s$ for $s > 0$, $e^s - 1$ otherwise. All four are positive.
    `"elu1_features"` is a kernel (a dot product of feature maps,
    [`syncattn.lohe.elu1_feature_map`][]), which is what makes the linear-time layer
    possible; it is not the published `"elu1"`.

    Args:
        q: queries $q_i$ = `q[..., i, :]`, shape `(*batch, n, d_h)`.
        k: keys $k_j$ = `k[..., j, :]`, shape `(*batch, m, d_h)` (batch axes broadcast).
        kind: `"softplus"`, `"relu"`, `"elu1"` or `"elu1_features"`.

    Returns:
        $\sigma$, shape `(*batch, n, m)`.

    Raises:
        ValueError: unknown `kind`, mismatched $d_h$, NaN/inf.

    Example:
        >>> coupling_weights(jnp.ones((1, 4)), jnp.zeros((2, 4)))  # log 2 each
    """
    _check_kind(kind)
    q, k = as_float(q, "q"), as_float(k, "k")
    try:
        if q.ndim < 2 or k.ndim < 2 or q.shape[-1] != k.shape[-1] or not q.shape[-1]:
            raise ValueError
        np.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    except ValueError:
        raise ValueError(
            f"q must have shape (*batch, n, d_h) and k (*batch, m, d_h); "
            f"got {q.shape} and {k.shape}."
        ) from None
    check_finite(q, "q")
    check_finite(k, "k")
    return _coupling(q, k, kind)


def elu1_feature_map(x: Float[ArrayLike, "*batch d"]) -> Float[Array, "*batch d"]:
    r"""Feature map $\phi(x) = \operatorname{elu}(x) + 1 > 0$ of the `"elu1_features"` coupling.

    $$\phi(x)_a = \begin{cases} x_a + 1 & x_a > 0 \\ e^{x_a} & x_a \le 0\end{cases},
      \qquad \sigma(q, k) = \phi(q)\cdot\phi(k)/d_h$$

    Args:
        x: any shape.

    Returns:
        $\phi(x)$, the shape of `x`.

    Raises:
        ValueError: NaN/inf.

    Example:
        >>> elu1_feature_map(jnp.array([0.0, 1.0]))  # [1, 2]
    """
    x = as_float(x, "x")
    check_finite(x, "x")
    return _elu1(x)


def _features(x, p: int):
    one = jnp.concatenate([jnp.ones_like(x[..., :1]), x], -1)
    out = one
    for _ in range(p - 1):
        out = (out[..., :, None] * one[..., None, :]).reshape(*x.shape[:-1], -1)
    return out


def readout_features(
    x: Float[ArrayLike, "*batch d"], p: int
) -> Float[Array, "*batch f"]:
    r"""Features $\psi_p(x) = [1, x]^{\otimes p}$ of the polynomial readout kernel.

    $$\psi_p(z)\cdot\psi_p(r) = (1 + z\cdot r)^p, \qquad
      \psi_p(x) \in \mathbb{R}^{(d+1)^p}$$

    (flattened tensor power). Where $1 + z\cdot r \ge 0$ (unit $z$, $\|r\| \le 1$)
    this equals the readout kernel [`syncattn.lohe.readout_kernel`][], so the readout
    sums become prefix sums (the linear-time layer).

    Args:
        x: shape `(*batch, d)`.
        p: an integer $\ge 1$.

    Returns:
        $\psi_p(x)$, shape `(*batch, (d + 1)^p)`.

    Raises:
        ValueError: `p` not an integer $\ge 1$; NaN/inf.

    Example:
        >>> readout_features(jnp.array([2.0]), 2)  # [1, 2, 2, 4]
    """
    if isinstance(p, bool) or int(p) != p or p < 1:
        raise ValueError(f"p must be an integer >= 1; got {p!r}.")
    x = as_float(x, "x")
    if x.ndim < 1:
        raise ValueError(f"x must have shape (*batch, d); got {x.shape}.")
    check_finite(x, "x")
    return _features(x, int(p))


def _kernel(base, mask, p):
    """mask * max(0, base)^p in one pass; double where: 0^p and its gradient stay finite."""
    pos = base > 0
    if mask is not None:
        pos = pos & mask
    if isinstance(p, (int, float)) and p == 1:
        return jnp.where(pos, base, 0.0)
    return jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)


def readout_kernel(
    z: Float[ArrayLike, "*batch n d"],
    r: Float[ArrayLike, "... m d"],
    *,
    p: ScalarLike = 1,
    mask: Bool[ArrayLike, "*#mbatch #n #m"] | None = None,
) -> Float[Array, "*batch n m"]:
    r"""Unnormalised readout weights of fixed-query attention.

    $$u_{ij} = \mu_{ij}\max(0, 1 + z_i\cdot r_j)^p$$

    $z_i$ = `z[..., i, :]`, $r_j$ = `r[..., j, :]`, $\mu$ = `mask` (True = attend;
    `None` = all), $p$ = `p`. Values and gradients are finite where the base is 0
    (double-`where`). [`syncattn.lohe.readout`][] normalises the rows.

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.
        p: exponent $\ge 1$.
        mask: bool, broadcastable to `(*batch, n, m)`.

    Returns:
        $u \ge 0$, shape `(*batch, n, m)`.

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`. TypeError: non-boolean `mask`.

    Example:
        >>> readout_kernel(jnp.array([[1.0, 0.0]]), jnp.eye(2), p=2)  # [[4, 1]]
    """
    z, r, mask, p = _readout_args(z, r, mask, p)
    return _kernel(1.0 + z @ jnp.swapaxes(r, -1, -2), mask, p)


def normalize_readout(
    num: Float[ArrayLike, "*batch n f"],
    den: Float[ArrayLike, "*#batch #n 1"],
    fallback: Float[ArrayLike, "*#batch #n #f"],
) -> Float[Array, "*batch n f"]:
    r"""Row normalisation of the readout, with its uniform fallback.

    $$o_i = \begin{cases} \dfrac{\sum_j u_{ij} v_j}{\sum_j u_{ij}} & \sum_j u_{ij} > 0
      \\[1ex] \bar v_i = \dfrac{\sum_j \mu_{ij} v_j}{\max(1, \sum_j \mu_{ij})} &
      \text{otherwise} \end{cases}$$

    `num` $= \sum_j u_{ij} v_j$, `den` $= \sum_j u_{ij}$, `fallback` $= \bar v_i$, the
    uniform average over the allowed keys (0 for a row with none). With $v_j = e_j$
    (one-hot) this is the row of [`syncattn.lohe.readout`][]. The division only sees
    positive denominators (double-`where`): finite values and gradients.

    Args:
        num: numerators, shape `(*batch, n, f)`.
        den: denominators $\ge 0$, shape `(*batch, n, 1)`.
        fallback: the uniform rows, broadcastable to `num`.

    Returns:
        $o$, the shape of `num`.

    Raises:
        ValueError: shapes that do not broadcast, NaN/inf.

    Example:
        >>> normalize_readout(jnp.ones((1, 2)), jnp.zeros((1, 1)), jnp.full((1, 2), 0.5))
    """
    num, den, fb = (
        as_float(num, "num"),
        as_float(den, "den"),
        as_float(fallback, "fallback"),
    )
    try:
        if num.ndim < 2 or den.ndim < 2 or den.shape[-1] != 1:
            raise ValueError
        np.broadcast_shapes(num.shape, den.shape, fb.shape)
    except ValueError:
        raise ValueError(
            f"num must have shape (*batch, n, f), den (*batch, n, 1) and fallback "
            f"broadcast to num; got {num.shape}, {den.shape} and {fb.shape}."
        ) from None
    for a, name in ((num, "num"), (den, "den"), (fb, "fallback")):
        check_finite(a, name)
    return _normalize(num, den, fb)


def _normalize(num, den, fallback):
    ok = den > 0
    return jnp.where(ok, num / jnp.where(ok, den, 1.0), fallback)


def fixed_query_weights(
    e: Float[ArrayLike, "*batch n d_model"],
    F: Float[ArrayLike, "d_h d_model"],
    G: Float[ArrayLike, "d_h d_model"],
    *,
    kind: str = "softplus",
) -> Float[Array, "*batch n n"]:
    r"""Coupling weights of fixed-query attention (the seed paper's $w_{ij}$).

    $$w_{ij} = \sigma(F e_i, G e_j), \qquad \text{softplus (default):}\quad
      w_{ij} = \operatorname{softplus}\Bigl(\frac{(F e_i)^\top (G e_j)}{\sqrt{d_h}}
      \Bigr) = \log\bigl(1 + e^{(F e_i)^\top (G e_j)/\sqrt{d_h}}\bigr) > 0$$

    $e_i$ = `e[..., i, :]` (token embeddings), $F$ = `F`, $G$ = `G` (query and key
    maps $\mathbb{R}^{d_\mathrm{model}} \to \mathbb{R}^{d_h}$), $\sigma$ the coupling
    `kind` of [`syncattn.lohe.coupling_weights`][]. Positive weights make
    $h_i = \sum_j w_{ij} r_j$ a conic combination of the anchors.

    Args:
        e: embeddings, shape `(*batch, n, d_model)`.
        F: query map, shape `(d_h, d_model)`.
        G: key map, shape `(d_h, d_model)`.
        kind: `"softplus"`, `"relu"`, `"elu1"` or `"elu1_features"`.

    Returns:
        $w$, shape `(*batch, n, n)`; row $i$ holds token $i$'s weights.

    Raises:
        ValueError: shape mismatch, NaN/inf, unknown `kind`.

    Example:
        >>> fixed_query_weights(jnp.eye(2), jnp.eye(2), jnp.eye(2))  # softplus(I/√2)
    """
    _check_kind(kind)
    e, F, G = as_float(e, "e"), as_float(F, "F"), as_float(G, "G")
    if e.ndim < 2:
        raise ValueError(f"e must have shape (*batch, n, d_model); got {e.shape}.")
    for M, name in ((F, "F"), (G, "G")):
        if M.ndim != 2 or M.shape[1] != e.shape[-1] or M.shape != F.shape or not M.size:
            raise ValueError(
                f"{name} must have shape (d_h, d_model={e.shape[-1]}), F and G alike; "
                f"got {M.shape}."
            )
        check_finite(M, name)
    check_finite(e, "e")
    return _coupling(e @ F.T, e @ G.T, kind)


def drive(
    w: Float[ArrayLike, "*batch n m"], r: Float[ArrayLike, "... m d"]
) -> Float[Array, "*batch n d"]:
    r"""Drive of fixed-query attention: a weighted sum of anchors.

    $$h_i = \sum_{j=1}^m w_{ij}\, r_j$$

    $w$ = `w` (e.g. [`syncattn.lohe.fixed_query_weights`][]), $r_j$ = `r[..., j, :]` (anchors).

    Args:
        w: weights, shape `(*batch, n, m)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.

    Returns:
        $h$, shape `(*batch, n, d)`.

    Raises:
        ValueError: `m` mismatch, non-broadcastable batch axes, NaN/inf.

    Example:
        >>> drive(jnp.ones((1, 2)), jnp.eye(2))  # [[1, 1]]
    """
    w, r = as_float(w, "w"), as_float(r, "r")
    try:
        if w.ndim < 2 or r.ndim < 2 or w.shape[-1] != r.shape[-2]:
            raise ValueError
        np.broadcast_shapes(w.shape[:-2], r.shape[:-2])
    except ValueError:
        raise ValueError(
            f"w must have shape (*batch, n, m) and r (m, d) or (*batch, m, d); "
            f"got {w.shape} and {r.shape}."
        ) from None
    check_finite(w, "w")
    check_finite(r, "r")
    return w @ r


@jax.jit
def _readout(z, r, mask, p):
    u = _kernel(1.0 + z @ jnp.swapaxes(r, -1, -2), mask, p)
    cnt = jnp.sum(mask, -1, keepdims=True).astype(u.dtype)
    uniform = jnp.where(mask, 1.0, 0.0).astype(u.dtype) / jnp.maximum(cnt, 1.0)
    return _normalize(u, jnp.sum(u, -1, keepdims=True), uniform).astype(u.dtype)


def _readout_args(z, r, mask, p):
    z, r = as_float(z, "z"), as_float(r, "r")
    if z.ndim < 2 or r.ndim < 2 or z.shape[-1] != r.shape[-1]:
        raise ValueError(
            f"z must have shape (*batch, n, d) and r (m, d) or (*batch, m, d); "
            f"got {z.shape} and {r.shape}."
        )
    check_finite(z, "z")
    check_finite(r, "r")
    p = check_scalar_range(p, "p", low=1.0)
    mask = jnp.ones((), bool) if mask is None else jnp.asarray(mask)
    if mask.dtype != jnp.bool_:
        raise TypeError(f"mask must be boolean (True = attend); got {mask.dtype}.")
    try:
        shape = np.broadcast_shapes(z.shape[:-1] + (1,), r.shape[:-2] + (1, 1))
        shape = shape[:-1] + (r.shape[-2],)
        mask = jnp.broadcast_to(mask, np.broadcast_shapes(mask.shape, shape))
    except ValueError:
        raise ValueError(
            f"z {z.shape}, r {r.shape} and mask {mask.shape} must broadcast to "
            "(*batch, n, m)."
        ) from None
    return z, r, mask, p


def readout(
    z: Float[ArrayLike, "*batch n d"],
    r: Float[ArrayLike, "... m d"],
    *,
    mask: Bool[ArrayLike, "*#mbatch #n #m"] | None = None,
    p: ScalarLike = 1,
) -> Float[Array, "*batch n m"]:
    r"""Readout weights of fixed-query attention.

    $$a_{ij} = \frac{\mu_{ij}\max(0, 1 + z_i\cdot r_j)^p}
      {\sum_k \mu_{ik}\max(0, 1 + z_i\cdot r_k)^p}$$

    $z_i$ = `z[..., i, :]` (settled queries), $r_j$ = `r[..., j, :]`, $\mu$ = `mask`
    (True = attend; `None` = all), $p$ = `p`: the kernel
    [`syncattn.lohe.readout_kernel`][] normalised by
    [`syncattn.lohe.normalize_readout`][]. If all unmasked weights of row $i$ vanish
    (only when $z_i = -r_j$ for every unmasked $j$) the row falls back to uniform
    weights over its unmasked entries. A row with nothing unmasked attends to
    nothing: its weights are all 0 (the same eagerly and under `jit`; a padded query
    row then reads out 0). Values and gradients are finite (double-`where`).

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.
        mask: bool, broadcastable to `(*batch, n, m)`.
        p: exponent $\ge 1$.

    Returns:
        $a$, shape `(*batch, n, m)`, rows non-negative and summing to 1 (0 for a
        fully masked row).

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`.
        TypeError: non-boolean `mask`.

    Example:
        >>> readout(jnp.array([[1.0, 0.0]]), jnp.eye(2))  # [[2/3, 1/3]]
    """
    return _readout(*_readout_args(z, r, mask, p))

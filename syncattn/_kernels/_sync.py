r"""The elementwise maps around the synchronisation layers' attention through the fused CPU
kernel (`sync.cc`), and their plain XLA compositions.

* `sync_features`: the gates and the drifted lift, the queries and keys of
  [`syncattn.nn.SyncAttention`][] for a geometry whose drift turns coordinate planes (the
  torus, the sphere with `drift="planes"`);
* `torus_step`: the Kuramoto layer's move $\theta' = \theta + \mathcal B_\beta(v \odot a)$,
  optionally with one complex coefficient per head (the frustrated layer at one harmonic);
* `sphere_step`: the sphere layer's move ([`syncattn.geometry.Sphere.fused_step`][]).

Each kernel has a hand-written VJP (forward and backward in `sync.cc`); each is tested
against its `xla_` composition (values and gradients, under `jit` and `vmap`). Where
`kernel_enabled` is false (another dtype, a GPU, no compiler,
``SYNCATTN_ATTENTION_KERNEL=0``) the public functions return the composition.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._numerics import sincos
from .._types import Array, ArrayLike, Float
from . import _library
from ._attention import kernel_enabled


NORMS = ("mean", "none")


def _gate(z, gate_norm: str):
    g = jax.nn.softplus(z)
    if gate_norm == "none":
        return g
    return g / jnp.maximum(jnp.mean(g, -1, keepdims=True), jnp.finfo(g.dtype).tiny)


def _turned(x, rates):
    """$R_t x_t$: planes $(2p, 2p+1)$ of the coordinate axis turned by $t\\,w_{pj}$."""
    T, P = x.shape[-3], rates.shape[-2]
    pos = jnp.arange(T, dtype=x.dtype)
    sn, c = sincos(pos[:, None, None] * rates[None])  # (T, P, k)
    sn, c = (a.reshape((1,) * (x.ndim - 3) + a.shape) for a in (sn, c))  # x's rank
    xa, xb = x[..., 0 : 2 * P : 2, :], x[..., 1 : 2 * P : 2, :]
    turned = jnp.stack([c * xa - sn * xb, sn * xa + c * xb], -2)
    turned = turned.reshape(x.shape[:-2] + (2 * P, x.shape[-1]))
    return jnp.concatenate([turned, x[..., 2 * P :, :]], -2)


def xla_sync_features(
    x: Float[ArrayLike, "*batch T m k"],
    zq: Float[ArrayLike, "*batch T k"],
    zk: Float[ArrayLike, "*batch T k"],
    rates: Float[ArrayLike, "P k"],
    scale: Float[ArrayLike, ""],
    *,
    gate_norm: str = "mean",
) -> tuple[Float[Array, "*batch T m k"], Float[Array, "*batch T m k"]]:
    r"""The plain XLA composition of `sync_features`:

    $$g_t = \frac{\operatorname{softplus}(z_t)}{\max(\operatorname{mean}_j
      \operatorname{softplus}(z_{tj}), \text{tiny})},\quad
      r_t = R_t x_t,\quad q_t = c\, g^q_t \odot r_t,\quad k_t = g^k_t \odot r_t$$

    with $R_t$ turning the planes $(x_{2p}, x_{2p+1})$, $p < P$, of oscillator $j$ by
    the angle $t\,w_{pj}$ (the coordinates past $2P$ unchanged), $c$ = `scale`; with
    `gate_norm="none"` the softplus is not normalised.
    """
    x, zq, zk, rates = (jnp.asarray(a) for a in (x, zq, zk, rates))
    r = _turned(x, rates.astype(x.dtype))
    gq, gk = _gate(zq, gate_norm), _gate(zk, gate_norm)
    return (gq[..., None, :] * r) * jnp.asarray(scale, x.dtype), gk[..., None, :] * r


def _call(name, args, results, **attrs):
    return jax.ffi.ffi_call(name, results, vmap_method="broadcast_all")(*args, **attrs)


@partial(jax.custom_vjp, nondiff_argnums=(5,))
def _features(x, zq, zk, rates, scale, norm):
    out = (jax.ShapeDtypeStruct(x.shape, jnp.float32),) * 2
    return tuple(_call(_library.FEATURES_FORWARD, (x, zq, zk, rates, scale), out, norm=np.int32(norm)))


def _features_fwd(x, zq, zk, rates, scale, norm):
    return _features(x, zq, zk, rates, scale, norm), (x, zq, zk, rates, scale)


def _features_bwd(norm, res, cts):
    dq, dk = cts
    out = tuple(jax.ShapeDtypeStruct(a.shape, jnp.float32) for a in res)
    return tuple(_call(_library.FEATURES_BACKWARD, (*res, dq, dk), out, norm=np.int32(norm)))


_features.defvjp(_features_fwd, _features_bwd)


def sync_features(
    x: Float[ArrayLike, "*batch T m k"],
    zq: Float[ArrayLike, "*batch T k"],
    zk: Float[ArrayLike, "*batch T k"],
    rates: Float[ArrayLike, "P k"],
    scale: Float[ArrayLike, ""],
    *,
    gate_norm: str = "mean",
) -> tuple[Float[Array, "*batch T m k"], Float[Array, "*batch T m k"]]:
    r"""The queries and keys of a synchronisation layer from its lift, by the fused CPU
    kernel (`sync.cc`) where `kernel_enabled`, else `xla_sync_features`:

    $$q_t = c\, g^q_t \odot R_t x_t, \qquad k_t = g^k_t \odot R_t x_t, \qquad
      g_t = \frac{\operatorname{softplus}(z_t)}{\max(\operatorname{mean}_j
      \operatorname{softplus}(z_{tj}), \text{tiny})}$$

    ($R_t$ turns plane $p$ of oscillator $j$ by $t\,w_{pj}$; see `xla_sync_features`).
    The VJP is the kernel's: $\bar r = c\,g^q\bar q + g^k\bar k$, $\bar x = R_t^\top\bar r$,
    $\bar g^q_j = c\sum_i \bar q_{ij} r_{ij}$, $\bar c = \sum_{ij}\bar q_{ij} g^q_j r_{ij}$,
    $\bar w_{pj} = \sum_t t\,(r_{2p}\bar r_{2p+1} - r_{2p+1}\bar r_{2p})$, and through the
    normalisation ($s = \operatorname{softplus}(z)$, $M = \max(\bar s, \text{tiny})$, $\bar s$ its
    mean) $\partial_{s_j} = \bar g_j/M - [\bar s > \text{tiny}]\,\sum_i \bar g_i s_i/(k M^2)$,
    $\bar z = \bar s\,\sigma(z)$.

    Args:
        x: the lift `(..., T, m, k)`, coordinate-major.
        zq: query gate pre-activations `(..., T, k)`.
        zk: key gate pre-activations `(..., T, k)`.
        rates: drift rates `(P, k)`, $2P \le m$.
        scale: the score scale $c$ (a scalar).
        gate_norm: `"mean"` or `"none"`.

    Returns:
        `(q, k)`, each `(..., T, m, k)`.

    Raises:
        ValueError: shapes that do not agree, an unknown `gate_norm`.
    """
    x, zq, zk, rates = (jnp.asarray(a) for a in (x, zq, zk, rates))
    scale = jnp.asarray(scale)
    if gate_norm not in NORMS:
        raise ValueError(f"gate_norm must be one of {NORMS}; got {gate_norm!r}.")
    if (
        x.ndim < 3
        or zq.shape != x.shape[:-2] + x.shape[-1:]
        or zk.shape != zq.shape
        or rates.ndim != 2
        or rates.shape[-1] != x.shape[-1]
        or 2 * rates.shape[0] > x.shape[-2]
        or scale.shape != ()
    ):
        raise ValueError(
            "x (..., T, m, k), zq and zk (..., T, k), rates (P, k) with 2 P <= m and a "
            f"scalar scale must agree; got {x.shape}, {zq.shape}, {zk.shape}, "
            f"{rates.shape}, {scale.shape}."
        )
    dtypes = {a.dtype for a in (x, zq, zk, rates, scale)}
    if len(dtypes) != 1 or not kernel_enabled(x.dtype):
        return xla_sync_features(x, zq, zk, rates, scale, gate_norm=gate_norm)
    batch = x.shape[:-3]
    rates = jnp.broadcast_to(rates, batch + rates.shape)
    scale = jnp.broadcast_to(scale, batch + (1,))
    return _features(x, zq, zk, rates, scale, NORMS.index(gate_norm) == 0)


# ------------------------------------------------------------------------------ the steps


def _bounded(u, bound, axes):
    sq = jnp.mean(jnp.sum(u * u, axes[1:]) if len(axes) > 1 else u * u, -1, keepdims=True)
    pos = sq > 0
    rho = jnp.sqrt(jnp.where(pos, sq, 1.0)) / bound
    return jnp.where(pos, jnp.tanh(rho) / rho, 1.0)


def _per_coordinate(c, k):
    """Per-head coefficients `(..., H)` to `(..., k)` (head h: coordinates h k/H ...)."""
    return jnp.repeat(c, k // c.shape[-1], axis=-1)


def xla_torus_step(
    theta: Float[ArrayLike, "*batch T k"],
    x: Float[ArrayLike, "*batch T 2 k"],
    G: Float[ArrayLike, "*batch T 2 k"],
    gate: Float[ArrayLike, "*batch T k"] | None,
    bound: float,
    coef: tuple[Float[ArrayLike, " H"], Float[ArrayLike, " H"]] | None = None,
) -> Float[Array, "*batch T k"]:
    r"""The plain XLA composition of `torus_step`:

    $$a_j = -x_{1j}G_{0j} + x_{0j}G_{1j} \;\big(\text{with } c:\ \operatorname{Re}c_{h(j)}\,a_j
      + \operatorname{Im}c_{h(j)}\,(x_{0j}G_{0j} + x_{1j}G_{1j})\big),\quad u = v\odot a,$$
    $$\theta' = \theta + u\,\frac{\tanh\rho}{\rho},\qquad \rho = \operatorname{rms}(u)/\beta$$

    ($x = (\cos\theta, \sin\theta)$; $\rho = 0$: $\theta' = \theta$).
    """
    theta, x, G = (jnp.asarray(a) for a in (theta, x, G))
    x0, x1, G0, G1 = x[..., 0, :], x[..., 1, :], G[..., 0, :], G[..., 1, :]
    a = x0 * G1 - x1 * G0
    if coef is not None:
        k = theta.shape[-1]
        cr, ci = (_per_coordinate(jnp.asarray(c), k) for c in coef)
        cr, ci = (c.reshape((1,) * (a.ndim - 1) + c.shape) for c in (cr, ci))
        a = cr * a + ci * (x0 * G0 + x1 * G1)
    u = a if gate is None else jnp.asarray(gate) * a
    return theta + u * _bounded(u, bound, (-1,))


@partial(jax.custom_vjp, nondiff_argnums=(6,))
def _torus(theta, x, G, gate, cr, ci, flags):
    bound, has_gate, has_coef = flags
    out = jax.ShapeDtypeStruct(theta.shape, jnp.float32)
    attrs = dict(bound=np.float32(bound), has_gate=np.int32(has_gate), has_coef=np.int32(has_coef))
    return _call(_library.TORUS_FORWARD, (theta, x, G, gate, cr, ci), out, **attrs)


def _torus_fwd(theta, x, G, gate, cr, ci, flags):
    return _torus(theta, x, G, gate, cr, ci, flags), (theta, x, G, gate, cr, ci)


def _torus_bwd(flags, res, dy):
    bound, has_gate, has_coef = flags
    out = tuple(jax.ShapeDtypeStruct(a.shape, jnp.float32) for a in res[1:])
    attrs = dict(bound=np.float32(bound), has_gate=np.int32(has_gate), has_coef=np.int32(has_coef))
    grads = _call(_library.TORUS_BACKWARD, (*res, dy), out, **attrs)
    return (dy, *grads)


_torus.defvjp(_torus_fwd, _torus_bwd)


def _check_bound(bound):
    if isinstance(bound, bool) or not np.isfinite(bound) or not bound > 0:
        raise ValueError(f"bound must be a finite number > 0; got {bound!r}.")
    return float(bound)


def torus_step(
    theta: Float[ArrayLike, "*batch T k"],
    x: Float[ArrayLike, "*batch T 2 k"],
    G: Float[ArrayLike, "*batch T 2 k"],
    gate: Float[ArrayLike, "*batch T k"] | None,
    bound: float,
    coef: tuple[Float[ArrayLike, " H"], Float[ArrayLike, " H"]] | None = None,
) -> Float[Array, "*batch T k"]:
    r"""The Kuramoto layer's move by the fused CPU kernel where `kernel_enabled`, else
    `xla_torus_step`:

    $$\theta' = \theta + u\,\frac{\tanh\rho}{\rho},\quad \rho = \frac{\operatorname{rms}(u)}
      {\beta},\quad u = v \odot a,\quad a_j = \operatorname{Im}\big(c_{h(j)}\,
      e^{-i\theta_j}(G_{0j} + iG_{1j})\big)$$

    with $c = 1$ without `coef`: $a_j = -\sin\theta_j\,G_{0j} + \cos\theta_j\,G_{1j}$ (the
    Kuramoto coupling $\sum_u A_{tu}\sin(\theta_u - \theta_t)$ for $G = \sum_u A_{tu}
    e^{i\theta_u}$), or with `coef` $= (\operatorname{Re}c, \operatorname{Im}c)$ per head,
    $a_j = \operatorname{Re}c_h\,(-\sin\theta_j G_{0j} + \cos\theta_j G_{1j}) +
    \operatorname{Im}c_h\,(\cos\theta_j G_{0j} + \sin\theta_j G_{1j})$. `x` must be the
    lift $(\cos\theta, \sin\theta)$ of `theta` (the caller's: the gradient through it
    is taken where it was made). The VJP is the kernel's: $\bar u = f\bar\theta' +
    \frac{f'(\rho)}{\beta^2\rho k}(\bar\theta'\cdot u)\,u$, $\bar v = \bar u\odot a$,
    $\bar a = \bar u \odot v$, then the bilinear maps' transposes.

    Args:
        theta: phases `(..., T, k)`.
        x: their lift `(..., T, 2, k)`.
        G: the attention average `(..., T, 2, k)`.
        gate: the value gate $v$ `(..., T, k)`, or None ($v = 1$).
        bound: $\beta > 0$.
        coef: None, or `(re, im)` of one coefficient per head, each `(H,)`, $H$ dividing $k$.

    Returns:
        $\theta'$ `(..., T, k)`.

    Raises:
        ValueError: shapes that do not agree, a bad `bound`.
    """
    bound = _check_bound(bound)
    theta, x, G = (jnp.asarray(a) for a in (theta, x, G))
    k = theta.shape[-1] if theta.ndim else 0
    if (
        theta.ndim < 2
        or x.shape != theta.shape[:-1] + (2, k)
        or G.shape != x.shape
        or (gate is not None and jnp.shape(gate) != theta.shape)
    ):
        raise ValueError(
            "theta (..., T, k), x and G (..., T, 2, k) and gate (..., T, k) must agree; got "
            f"{theta.shape}, {x.shape}, {G.shape}, {None if gate is None else jnp.shape(gate)}."
        )
    if coef is not None:
        cr, ci = (jnp.asarray(c) for c in coef)
        if cr.ndim != 1 or cr.shape != ci.shape or k % cr.shape[0]:
            raise ValueError(
                f"coef must be two (H,) arrays with H dividing k={k}; got {cr.shape}, {ci.shape}."
            )
    args = [theta, x, G] + ([] if gate is None else [jnp.asarray(gate)])
    args += [] if coef is None else [cr, ci]
    if len({a.dtype for a in args}) != 1 or not kernel_enabled(theta.dtype):
        return xla_torus_step(theta, x, G, gate, bound, coef)
    batch = theta.shape[:-2]
    dummy = jnp.zeros(batch + (1,), jnp.float32)
    if coef is not None:
        cr, ci = (jnp.broadcast_to(c, batch + c.shape) for c in (cr, ci))
    else:
        cr = ci = dummy
    flags = (bound, gate is not None, coef is not None)
    return _torus(theta, x, G, dummy if gate is None else jnp.asarray(gate), cr, ci, flags)


def xla_sphere_step(
    x: Float[ArrayLike, "*batch T n k"],
    G: Float[ArrayLike, "*batch T n k"],
    gate: Float[ArrayLike, "*batch T k"] | None,
    bound: float,
) -> Float[Array, "*batch T k n"]:
    r"""The plain XLA composition of `sphere_step`:

    $$u_j = v_j (I - z_j z_j^\top) G_j,\quad f = \frac{\tanh\rho}{\rho},\ \rho =
      \frac{1}{\beta}\Big(\frac1k\sum_j\|u_j\|^2\Big)^{1/2},\quad
      z'_j = \cos(f\|u_j\|)\, z_j + \frac{\sin(f\|u_j\|)}{\|u_j\|}\, u_j$$

    ($z_j$ the columns of the lift `x`; $z'_j = z_j$ where $u_j = 0$), the states
    returned `(..., T, k, n)`.
    """
    z, G = jnp.asarray(x), jnp.asarray(G)
    u = G - jnp.sum(z * G, -2, keepdims=True) * z
    if gate is not None:
        u = jnp.asarray(gate)[..., None, :] * u
    sq_j = jnp.sum(u * u, -2)
    f = _bounded(u, bound, (-1, -2))
    nsq = sq_j * f * f
    p = nsq > 0
    nrm = jnp.sqrt(jnp.where(p, nsq, 1.0))
    sn, cs = sincos(nrm)
    c = jnp.where(p, cs, 1.0)
    sinc = jnp.where(p, sn / nrm, 1.0) * f
    y = c[..., None, :] * z + sinc[..., None, :] * u
    return jnp.swapaxes(y, -1, -2)


@partial(jax.custom_vjp, nondiff_argnums=(3,))
def _sphere(x, G, gate, flags):
    bound, has_gate = flags
    out = jax.ShapeDtypeStruct(x.shape[:-2] + (x.shape[-1], x.shape[-2]), jnp.float32)
    attrs = dict(bound=np.float32(bound), has_gate=np.int32(has_gate))
    return _call(_library.SPHERE_FORWARD, (x, G, gate), out, **attrs)


def _sphere_fwd(x, G, gate, flags):
    return _sphere(x, G, gate, flags), (x, G, gate)


def _sphere_bwd(flags, res, dy):
    bound, has_gate = flags
    out = tuple(jax.ShapeDtypeStruct(a.shape, jnp.float32) for a in res)
    attrs = dict(bound=np.float32(bound), has_gate=np.int32(has_gate))
    return tuple(_call(_library.SPHERE_BACKWARD, (*res, dy), out, **attrs))


_sphere.defvjp(_sphere_fwd, _sphere_bwd)


def sphere_step(
    x: Float[ArrayLike, "*batch T n k"],
    G: Float[ArrayLike, "*batch T n k"],
    gate: Float[ArrayLike, "*batch T k"] | None,
    bound: float,
) -> Float[Array, "*batch T k n"]:
    r"""The sphere layer's move by the fused CPU kernel where `kernel_enabled`, else
    `xla_sphere_step`:

    $$z'_j = \operatorname{Exp}_{z_j}\big(f\,u_j\big) = \cos(f\|u_j\|)\,z_j +
      \frac{\sin(f\|u_j\|)}{\|u_j\|}\,u_j,\qquad u_j = v_j(I - z_jz_j^\top)G_j,\qquad
      f = \frac{\tanh\rho}{\rho}$$

    with $\rho = \operatorname{rms}_j\|u_j\|/\beta$; read from the coordinate-major lift
    `x` (the states $z_j$ as its columns) and written as states `(..., T, k, n)`. The
    VJP is the kernel's (the chain rule through $\cos$, $\sin s/s$ (by its series below
    $s = 1/2$), $f$ and the projection).

    Args:
        x: the lift `(..., T, n, k)` of unit vectors $z_j$.
        G: the attention average `(..., T, n, k)`.
        gate: the value gate $v$ `(..., T, k)`, or None ($v = 1$).
        bound: $\beta > 0$.

    Returns:
        The states $z'$ `(..., T, k, n)`.

    Raises:
        ValueError: shapes that do not agree, a bad `bound`.
    """
    bound = _check_bound(bound)
    x, G = jnp.asarray(x), jnp.asarray(G)
    if (
        x.ndim < 3
        or G.shape != x.shape
        or (gate is not None and jnp.shape(gate) != x.shape[:-2] + x.shape[-1:])
    ):
        raise ValueError(
            "x and G (..., T, n, k) and gate (..., T, k) must agree; got "
            f"{x.shape}, {G.shape}, {None if gate is None else jnp.shape(gate)}."
        )
    args = [x, G] + ([] if gate is None else [jnp.asarray(gate)])
    if len({a.dtype for a in args}) != 1 or not kernel_enabled(x.dtype):
        return xla_sphere_step(x, G, gate, bound)
    dummy = jnp.zeros(x.shape[:-3] + (1,), jnp.float32)
    flags = (bound, gate is not None)
    return _sphere(x, G, dummy if gate is None else jnp.asarray(gate), flags)


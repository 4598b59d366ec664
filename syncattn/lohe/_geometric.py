r"""The Kuramoto-Lohe flow on any geometry, through the contract only.

$$\dot s_j = \operatorname{velocity}\Bigl(s_j,\ P_{s_j}\Bigl(\sum_k K_{jk}\,
  \operatorname{unembed}(\operatorname{embed}(s_k))\Bigr)\Bigr)$$

([`syncattn.geometry.Geometry`][]: the torus gives Kuramoto, the sphere Lohe, $SO(n)$ /
$U(n)$ the Lohe matrix flow with its $\frac12$, the Stiefel manifold the projection
form of the Markdahl-Thunberg-Goncalves model), and the Markdahl form on
$St(p, n)$, $\dot X_j = \sum_k K_{jk}(X_k - X_jX_k^\top X_j)$.

Conventions: states `(*batch, N, *fiber)`; a scalar coupling means all-to-all
$K_{jk} = K/N$; row $j$ of an `(N, N)` coupling lists whom oscillator $j$ listens to.
Theory: docs/theory/stiefel.md.
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .. import _simulate as driver
from .._checks import check_finite, is_concrete
from .._simulate import Solution
from .._types import Array, ArrayLike, ScalarLike
from ..geometry import Geometry


FORMS = ("projection", "markdahl")


def _check_states(geo: Geometry, s, name: str):
    if not isinstance(geo, Geometry):
        raise TypeError(
            f"geo must be a syncattn.geometry.Geometry; got {type(geo).__name__}."
        )
    s = jnp.asarray(s)
    want = jnp.complexfloating if geo.complex else jnp.floating
    if not jnp.issubdtype(s.dtype, want):
        kind = "complex" if geo.complex else "real floating"
        raise TypeError(f"{name} must be a {kind} array for {geo}; got {s.dtype}.")
    nf = geo.fiber_ndim
    if s.ndim < 1 + nf or s.shape[s.ndim - nf :] != geo.fiber or s.shape[-1 - nf] == 0:
        raise ValueError(
            f"{name} must have shape (*batch, N, *{geo.fiber}) with N >= 1; got "
            f"{s.shape}."
        )
    check_finite(s, name)
    return s


def _check_coupling(coupling, N: int, dtype):
    K = jnp.asarray(coupling)
    if K.ndim != 0 and K.shape != (N, N):
        raise ValueError(
            f"coupling must be a scalar K (all-to-all K/N) or an (N, N)=({N}, {N}) "
            f"matrix; got shape {K.shape}."
        )
    check_finite(K, "coupling")
    return K.astype(jnp.real(jnp.zeros((), dtype)).dtype)


def _pull(x, K):
    r"""$\sum_k K_{jk} x_k$ over axis $-2$ of `x` $(\dots, N, m)$ (scalar: $K$ times the
    mean)."""
    return K * jnp.mean(x, -2, keepdims=True) if K.ndim == 0 else K @ x


def _projection_field(geo: Geometry, s, K):
    x = geo.embed(s)
    G = geo.unembed(jnp.broadcast_to(_pull(x, K), x.shape))
    return geo.velocity(s, geo.project(s, G))


def _markdahl_field(X, K):
    N, n, p = X.shape[-3:]
    flat = X.reshape(X.shape[:-2] + (n * p,))
    G = jnp.broadcast_to(_pull(flat, K), flat.shape).reshape(X.shape)
    return G - X @ jnp.swapaxes(G, -1, -2) @ X


def geometric_field(
    geo: Geometry, states: ArrayLike, coupling: ScalarLike | ArrayLike
) -> Array:
    r"""The projection-form Kuramoto-Lohe field on the geometry `geo`.

    $$\dot s_j = \operatorname{velocity}\bigl(s_j, P_{s_j}(G_j)\bigr), \qquad G_j =
      \sum_k K_{jk}\,\operatorname{unembed}(\operatorname{embed}(s_k)),$$

    the gradient of $\frac12\sum_{jk}K_{jk}\langle s_j, s_k\rangle_{\mathbb{R}^m}$ in the
    embedded metric (for symmetric $K$). Torus: $\dot\theta_j = \sum_k K_{jk}
    \sin(\theta_k - \theta_j)$; sphere: $\sum_k K_{jk}(x_k - \langle x_j, x_k\rangle
    x_j)$; $SO(n)$/$U(n)$: $\frac12\sum_k K_{jk}(U_k - U_jU_k^HU_j)$; $St(p, n)$:
    $G_j - X_j\operatorname{sym}(X_j^\top G_j)$ (see [`markdahl_field`][syncattn.lohe.markdahl_field]).

    Args:
        geo: a [`syncattn.geometry.Geometry`][].
        states: `(*batch, N, *geo.fiber)`.
        coupling: a scalar $K$ (all-to-all $K/N$) or an `(N, N)` matrix.

    Returns:
        $\dot s$, the shape of `states`.

    Raises:
        TypeError: `geo` not a geometry; the wrong dtype kind.
        ValueError: shapes; NaN/inf.
    """
    s = _check_states(geo, states, "states")
    K = _check_coupling(coupling, s.shape[s.ndim - geo.fiber_ndim - 1], s.dtype)
    return _projection_field(geo, s, K)


def markdahl_field(X: ArrayLike, coupling: ScalarLike | ArrayLike) -> Array:
    r"""The Markdahl-Thunberg-Goncalves Kuramoto field on $St(p, n)$.

    $$\dot X_j = \sum_k K_{jk}\bigl(X_k - X_jX_k^\top X_j\bigr) = G_j - X_jG_j^\top X_j,
      \qquad G_j = \sum_k K_{jk}X_k.$$

    On the manifold it is tangent ($X^\top F + F^\top X = 0$) and, with $G_j =
    X_jA + (I - X_jX_j^\top)G_j$, $A = X_j^\top G_j$:

    $$G_j - X_jG_j^\top X_j = (I - X_jX_j^\top)G_j + 2X_j\operatorname{skew}(X_j^\top G_j)
      = P_{X_j}(G_j) + X_j\operatorname{skew}(X_j^\top G_j),$$

    the gradient of $\frac12\sum_{jk}K_{jk}\operatorname{tr}(X_j^\top X_k)$ in the
    *canonical* metric $\operatorname{tr}(\Delta^\top(I - \frac12XX^\top)\Delta)$ of
    Edelman-Arias-Smith, where [`geometric_field`][syncattn.lohe.geometric_field] is
    its gradient in the embedded metric: they agree at $p = 1$ (no skew part) and
    differ by the factor 2 on the "vertical" part $X\operatorname{skew}(X^\top G)$
    otherwise; at $p = n$ the Markdahl field is twice the projection field.

    Args:
        X: `(*batch, N, n, p)` real frames.
        coupling: a scalar $K$ (all-to-all $K/N$) or an `(N, N)` matrix.
    """
    X = jnp.asarray(X)
    if not jnp.issubdtype(X.dtype, jnp.floating) or X.ndim < 3 or X.shape[-3] == 0:
        raise ValueError(
            f"X must be a real floating array (*batch, N, n, p) with N >= 1; got "
            f"{X.dtype} {X.shape}."
        )
    check_finite(X, "X")
    return _markdahl_field(X, _check_coupling(coupling, X.shape[-3], X.dtype))


class _Field(eqx.Module):
    """The right-hand side $(t, s, K) \\mapsto \\dot s$ (hashable: diffrax's jit cache)."""

    geo: Geometry = eqx.field(static=True)
    form: str = eqx.field(static=True)

    def __call__(self, t, s, K):
        if self.form == "markdahl":
            return _markdahl_field(s, K)
        return _projection_field(self.geo, s, K)


class _Order(eqx.Module):
    """$Z = \\frac1N\\sum_j\\operatorname{embed}(s_j)$, $r = \\sqrt c\\,\\|Z\\|$."""

    geo: Geometry = eqx.field(static=True)

    def __call__(self, s):
        Z = jnp.mean(self.geo.embed(s), -2)
        return Z, jnp.sqrt(self.geo.norm_scale * jnp.sum(Z * Z, -1))


def _check_start(geo, s0, form):
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}; got {form!r}.")
    s0 = _check_states(geo, s0, "s0")
    if geo.complex:
        raise ValueError(
            f"geometric_simulate integrates real states; for {geo} use "
            "syncattn.lohe.matrix_simulate."
        )
    if form == "markdahl" and (geo.complex or geo.fiber_ndim != 2):
        raise ValueError(
            f"form='markdahl' needs real matrix states (St(p, n), SO(n)); got {geo}."
        )
    if is_concrete(s0):
        dev = float(np.max(np.asarray(geo.residual(s0)), initial=0.0))
        if dev > np.sqrt(np.finfo(np.dtype(s0.dtype)).eps):
            raise ValueError(
                f"s0 must lie on the manifold of {geo} (residual {dev:.3g}); perhaps "
                "apply geo.nearest first?"
            )
    return s0


def geometric_simulate(
    geo: Geometry,
    s0: ArrayLike,
    coupling: ScalarLike | ArrayLike,
    t1: ScalarLike,
    *,
    form: str = "projection",
    saveat: int | ArrayLike | None = 101,
    solver: str | diffrax.AbstractSolver = "dopri5",
    rtol: float | None = 1e-8,
    atol: float = 1e-10,
    dt0: float | None = None,
    max_steps: int = 2**20,
) -> Solution:
    r"""Integrate the Kuramoto-Lohe flow on `geo` from $s(0) = s_0$ to $t_1$.

    `form="projection"`: [`geometric_field`][syncattn.lohe.geometric_field];
    `form="markdahl"` (real matrix states): [`markdahl_field`][syncattn.lohe.markdahl_field].
    The ODE $\dot s = f(s)$ is solved in the state's own coordinates by diffrax through
    the library's driver (`solver`, default Dopri5 with a PID controller at
    `rtol`/`atol`; `rtol=None` with `dt0`: constant steps), every step ending with the
    retraction `geo.nearest` (polar factor, normalisation); the saved states (dense
    output between steps) are retracted too, so every state lies on the manifold to
    rounding. The order parameter is $Z = \frac1N\sum_j\operatorname{embed}(s_j)$,
    $r = \sqrt c\,\|Z\|$ (`geo.order_parameter`: $\|\frac1N\sum_jX_j\|_F/\sqrt p$ on
    $St(p, n)$).

    Args:
        geo: a [`syncattn.geometry.Geometry`][].
        s0: `(*batch, N, *geo.fiber)` on the manifold.
        coupling: a scalar $K$ (all-to-all $K/N$) or an `(N, N)` matrix.
        t1: final time $\ge 0$.
        form: `"projection"` or `"markdahl"`.
        saveat, solver, rtol, atol, dt0, max_steps: as [`syncattn.lohe.simulate`][].

    Returns:
        [`syncattn.lohe.Solution`][]: `ts`, `states (S, *batch, N, *fiber)`, `order`
        $Z$ `(S, *batch, m)`, `r (S, *batch)`, `final`, `num_steps`.

    Raises:
        ValueError: as `geometric_field`; `s0` off the manifold; a complex geometry
            ($U(n)$: [`syncattn.lohe.matrix_simulate`][]); a bad `form` (or
            `"markdahl"` on vector states), `t1`, `saveat` or options.
    """
    s0 = _check_start(geo, s0, form)
    K = _check_coupling(coupling, s0.shape[s0.ndim - geo.fiber_ndim - 1], s0.dtype)
    t1, t1_np = driver.check_t1(t1, s0.dtype)
    ts, _ = driver.save_times(saveat, t1, t1_np, s0.dtype)
    solver, controller = driver.check_options(
        solver=solver, rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps
    )
    sol = driver.solve(
        _Field(geo, form),
        _Order(geo),
        s0,
        K,
        t1,
        ts,
        solver,
        controller,
        dt0,
        int(max_steps),
        True,
        retract=geo.nearest,
    )
    states = geo.nearest(sol.states)
    Z, r = _Order(geo)(states)
    return Solution(sol.ts, states, Z, r, sol.final, sol.num_steps)


__all__ = ["FORMS", "geometric_field", "markdahl_field", "geometric_simulate"]

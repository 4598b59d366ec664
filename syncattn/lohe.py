r"""The Lohe flow on $S^{d-1}$ and fixed-query oscillator attention.

Conventions: a configuration `x` has shape `(*batch, n, d)`; axis `-2` indexes the
`n` oscillators, the last axis the coordinates of $S^{d-1} \subset \mathbb{R}^d$.
A dense coupling's row $i$ lists whom oscillator $i$ listens to ($K_{ij}$ weighs the
pull of $x_j$ on $x_i$). Saved trajectories put time first, `(t, *batch, n, d)`, as
diffrax does. Angles are radians in $[0, \pi]$. Value checks (NaN, ranges, skew
symmetry, unit norms) run on concrete inputs only; shape checks always run.

The fixed-query flow $\dot z = (I - z z^\top) h$ is the Lohe flow of one oscillator
pulled by a frozen drive $h = \sum_j w_j r_j$. It is the gradient flow of
$V(z) = -\langle z, h\rangle$ on the sphere and is solved in closed form by
$\tan(\varphi/2) = \tan(\varphi_0/2)\, e^{-\|h\| t}$, $\varphi = \angle(z, h)$.
"""

from __future__ import annotations

import functools
import math

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from . import sphere
from ._misc import (
    as_float,
    check_dim,
    check_finite,
    check_nonempty,
    check_scalar_range,
    eps_for,
    is_concrete,
    safe_norm,
)
from ._types import Array, Bool, Float, PRNGKeyArray, ScalarLike


__all__ = [
    "Solution",
    "vector_field",
    "simulate",
    "fixed_query_field",
    "drive",
    "fixed_query_weights",
    "equilibrium",
    "exact_angle",
    "time_to_converge",
    "lyapunov",
    "tangent_basis",
    "jacobian_spectrum",
    "readout",
    "antipodal_probability",
    "finite_time_failure_probability",
    "degenerate_probability",
]


# ------------------------------------------------------------------------ Lohe flow
def _check_field_args(x, Omega, coupling, xname: str):
    x = as_float(x, xname)
    if x.ndim < 2:
        raise ValueError(f"{xname} must have shape (*batch, n, d); got {x.shape}.")
    check_nonempty(x, xname, axis=-2)
    n, d = x.shape[-2:]
    if d < 2:
        raise ValueError(f"{xname} must have d >= 2 (points of S^(d-1)); got d={d}.")
    check_finite(x, xname)
    if Omega is not None:
        Omega = as_float(Omega, "Omega")
        if Omega.ndim < 3 or Omega.shape[-3:] != (n, d, d):
            raise ValueError(
                f"Omega must have shape (n, d, d)=({n}, {d}, {d}) or be None; "
                f"got {Omega.shape}."
            )
        check_finite(Omega, "Omega")
        if is_concrete(Omega):
            O = np.asarray(Omega, dtype=np.float64)
            asym = float(np.max(np.abs(O + np.swapaxes(O, -1, -2)), initial=0.0))
            if asym > eps_for(Omega.dtype) * max(1.0, float(np.max(np.abs(O)))):
                raise ValueError(
                    "Omega must be skew-symmetric (Omega_i^T = -Omega_i); got "
                    f"max|Omega + Omega^T| = {asym:.3g}. Perhaps use (A - A^T) / 2?"
                )
        Omega = Omega.astype(x.dtype)
    K = as_float(coupling, "coupling")
    if K.ndim != 0 and (K.ndim < 2 or K.shape[-2:] != (n, n)):
        raise ValueError(
            f"coupling must be a scalar K or an (n, n)=({n}, {n}) matrix; "
            f"got shape {K.shape}."
        )
    check_finite(K, "coupling")
    return x, Omega, K.astype(x.dtype)


@functools.partial(jax.jit, static_argnames="conserve")
def _field(x, Omega, K, conserve=False):
    # sum_j K_ij (x_j - <x_i, x_j> x_i) = m_i - <x_i, m_i> x_i, m_i = sum_j K_ij x_j;
    # scalar K (K_ij = K/n): m_i = K mean_j x_j, an O(n d) mean field.
    m = K * jnp.mean(x, axis=-2, keepdims=True) if K.ndim == 0 else K @ x
    c = jnp.sum(x * m, axis=-1, keepdims=True)
    # conserve: |x_i|^2 m_i - <x_i, m_i> x_i, equal on the sphere and orthogonal to
    # x_i everywhere, so |x_i| is an exact invariant of the ambient ODE (see simulate)
    f = (jnp.sum(x * x, axis=-1, keepdims=True) * m if conserve else m) - c * x
    return f if Omega is None else f + (Omega @ x[..., None])[..., 0]


def vector_field(
    x: Float[Array, "*batch n d"],
    Omega: Float[Array, "n d d"] | None,
    coupling: ScalarLike | Float[Array, "n n"],
) -> Float[Array, "*batch n d"]:
    r"""Lohe vector field on $(S^{d-1})^n$.

    $$\dot x_i = \Omega_i x_i + \sum_{j=1}^n K_{ij}\bigl(x_j - \langle x_i, x_j\rangle
      x_i\bigr)$$

    $x$ = `x`, $\Omega_i$ = `Omega[i]` (skew-symmetric; `None` means 0), $K$ =
    `coupling`: a scalar means all-to-all $K_{ij} = K/n$, computed in $O(nd)$ as
    $K(m - \langle x_i, m\rangle x_i)$ with $m = \frac1n\sum_j x_j$; an `(n, n)`
    matrix means row $i$ = whom $x_i$ listens to. For $d = 2$, $x_i = (\cos\theta_i,
    \sin\theta_i)$ and $\Omega_i = \omega_i [[0, -1], [1, 0]]$ this is Kuramoto.

    Args:
        x: unit vectors, shape `(*batch, n, d)`.
        Omega: skew-symmetric `(n, d, d)` or `None`.
        coupling: scalar $K$ or `(n, n)` matrix.

    Returns:
        $\dot x$, same shape and dtype as `x`.

    Raises:
        ValueError: wrong shapes, $d < 2$, NaN/inf, `Omega` not skew-symmetric.

    Example:
        >>> vector_field(jnp.eye(2), None, 2.0)  # [[0, 1], [1, 0]]
    """
    return _field(*_check_field_args(x, Omega, coupling, "x"))


class Solution(eqx.Module):
    r"""Output of [`simulate`][]: save times, states, order parameter.

    Attributes:
        ts: save times, shape `(t,)`.
        x: states, shape `(t, *batch, n, d)`.
        rho: $\rho = \|\frac1n\sum_i x_i\|$, shape `(t, *batch)`.
    """

    ts: Float[Array, " t"]
    x: Float[Array, "t *batch n d"]
    rho: Float[Array, "t *#batch"]


def _check_count(v, name: str) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise ValueError(f"{name} must be a positive int; got {v!r}.")


def _save_times(saveat, t1, t1_np):
    """Save times (jnp) and, when concrete, a float64 numpy copy (else None)."""
    if saveat is None:
        return jnp.reshape(t1, (1,)), None if t1_np is None else np.array([t1_np])
    if isinstance(saveat, (int, np.integer)) and not isinstance(saveat, bool):
        if saveat < 2:
            raise ValueError(f"saveat as an int must be >= 2; got {saveat}.")
        if t1_np is None:
            return jnp.linspace(0.0, 1.0, int(saveat), dtype=t1.dtype) * t1, None
        ts_np = np.linspace(0.0, t1_np, int(saveat))
        return jnp.asarray(ts_np, t1.dtype), ts_np
    concrete = is_concrete(saveat)
    ts = as_float(saveat, "saveat").astype(t1.dtype)
    if ts.ndim != 1 or ts.shape[0] == 0:
        raise ValueError(
            f"saveat must be None, an int or a 1-D array of times; got {ts.shape}."
        )
    check_finite(ts, "saveat")
    if not (concrete and t1_np is not None):
        return ts, None
    ts_np = np.asarray(saveat, np.float64)
    slack = 4 * float(jnp.finfo(ts.dtype).eps) * max(1.0, t1_np)  # rounding of ts
    if (
        ts_np.min() < -slack
        or ts_np.max() > t1_np + slack
        or np.any(np.diff(ts_np) < 0)
    ):
        raise ValueError(
            f"saveat times must be non-decreasing in [0, t1={t1_np}]; got {ts_np}."
        )
    ts_np = np.clip(ts_np, 0.0, t1_np)
    return jnp.asarray(ts_np, ts.dtype), ts_np


def _ode_rhs(t, y, args):  # module level: diffrax's jit cache then hits across calls
    return _field(y, *args, conserve=True)


@functools.partial(jax.jit, static_argnames="m")
def _geodesic(x0, Omega, K, steps, m):
    # Lie-Euler: m steps of length h per save interval, x <- exp_x(h P_x f(x))
    def interval(x, h):
        def step(y, _):
            v = h * sphere.project_tangent(y, _field(y, Omega, K))
            return sphere.exp_map(y, v), None

        x, _ = jax.lax.scan(step, x, None, length=m)
        return x, x

    return jax.lax.scan(interval, x0, steps)[1]


def simulate(
    x0: Float[Array, "*batch n d"],
    Omega: Float[Array, "n d d"] | None,
    coupling: ScalarLike | Float[Array, "n n"],
    t1: ScalarLike,
    *,
    saveat: int | Float[Array, " t"] | None = None,
    method: str = "diffrax",
    dt: float | None = None,
    rtol: float = 1e-8,
    atol: float = 1e-10,
    solver: diffrax.AbstractSolver | None = None,
    max_steps: int = 2**16,
) -> Solution:
    r"""Integrate the Lohe flow from $x(0) = x_0$ to $t_1$.

    $$\dot x_i = \Omega_i x_i + \sum_j K_{ij}(x_j - \langle x_i, x_j\rangle x_i),
      \qquad \rho(t) = \Bigl\|\frac1n\sum_i x_i(t)\Bigr\|$$

    Symbols as in [`vector_field`][]; $x_0$ = `x0`, $t_1$ = `t1`.
    `method="diffrax"` solves the ambient ODE adaptively (`solver`, default
    `diffrax.Dopri5()`, PID controller at `rtol`/`atol`; `dt` = first step, `None` =
    automatic) for the extension $\|x_i\|^2 m_i - \langle x_i, m_i\rangle x_i +
    \Omega_i x_i$, $m_i = \sum_j K_{ij} x_j$: equal to the Lohe field on the sphere
    and orthogonal to $x_i$ everywhere, so $\|x_i\|$ is an exact invariant (with the
    literal formula a norm error grows like $e^{2\|m_i\| t}$ where $x_i$ opposes
    $m_i$). Norms then stay 1 up to the solver's accumulated local error, which
    grows with the integration time and the rotation speed $\|\Omega_i\|$: measured
    5.9e-5 at `rtol=1e-6` over $t = 20$ ($n = 60$, $d = 3$, $K = 0$), i.e. tens of
    times `rtol`; the tests reach 1e-10 with `rtol=1e-11`. Use `method="geodesic"`
    when norms must hold to rounding. `method="geodesic"` is the first-order
    Lie-Euler scheme $x_{k+1} = \exp_{x_k}(\Delta t\, P_{x_k} f(x_k))$
    (`sphere.exp_map`, `sphere.project_tangent`): it stays on the sphere to rounding
    with no projection step, where project-after-Euler drifts. Each interval between save times takes the
    same number of equal steps of at most `dt` (default 1e-2), so `t1` and `saveat`
    must be concrete (close over them under `jit`). Both methods are jit-able,
    vmap-able over `x0` and differentiable (diffrax's checkpointed adjoint;
    `lax.scan`).

    Args:
        x0: unit vectors, shape `(*batch, n, d)`.
        Omega: skew-symmetric `(n, d, d)` or `None`.
        coupling: scalar $K$ (all-to-all $K/n$) or `(n, n)` matrix.
        t1: final time $\ge 0$.
        saveat: `None` (save at `t1` only), an int $k \ge 2$ ($k$ equally spaced
            times in $[0, t_1]$), or non-decreasing times in $[0, t_1]$.
        method: `"diffrax"` or `"geodesic"`.
        dt: first step (diffrax) or largest step (geodesic), $> 0$.
        rtol, atol: diffrax tolerances; solver, max_steps: diffrax settings.

    Returns:
        [`Solution`][] with `ts (t,)`, `x (t, *batch, n, d)`, `rho (t, *batch)`.

    Raises:
        ValueError: as [`vector_field`][]; `x0` off the unit sphere; `t1 < 0`; bad
            `saveat`, `method`, `dt`, `rtol`, `atol`, `max_steps`.

    Example:
        >>> x0 = sphere.sample_uniform(jax.random.key(0), (8,), 3)
        >>> simulate(x0, None, 1.0, 10.0, saveat=5).rho[-1]  # ~1: synchronised
    """
    x0, Omega, K = _check_field_args(x0, Omega, coupling, "x0")
    t1_np = float(np.asarray(t1)) if is_concrete(t1) and np.ndim(t1) == 0 else None
    if is_concrete(x0):
        dev = np.max(np.abs(np.linalg.norm(np.asarray(x0, np.float64), axis=-1) - 1))
        if dev > eps_for(x0.dtype):
            raise ValueError(
                f"x0 must lie on the unit sphere (||x0_i|| = 1); max deviation "
                f"{dev:.3g}. Perhaps apply sphere.normalize first?"
            )
    t1 = as_float(t1, "t1")
    if t1.ndim != 0:
        raise ValueError(f"t1 must be a scalar; got shape {t1.shape}.")
    check_scalar_range(t1 if t1_np is None else t1_np, "t1", low=0.0)
    t1 = t1.astype(x0.dtype)
    if method not in ("diffrax", "geodesic"):
        raise ValueError(f"method must be 'diffrax' or 'geodesic'; got {method!r}.")
    check_scalar_range(dt, "dt", low=0.0, low_inclusive=False)
    ts, ts_np = _save_times(saveat, t1, t1_np)
    if method == "geodesic":
        if ts_np is None:
            raise ValueError(
                "method='geodesic' needs concrete t1 and saveat (they fix the number "
                "of steps); under jit, close over them instead of passing them in."
            )
        gaps = np.diff(ts_np, prepend=0.0)
        m = max(1, math.ceil(float(gaps.max()) / (1e-2 if dt is None else dt) - 1e-9))
        xs = _geodesic(x0, Omega, K, jnp.asarray(gaps / m, dtype=x0.dtype), m)
    else:
        check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=False)
        check_scalar_range(atol, "atol", low=0.0, low_inclusive=False)
        _check_count(max_steps, "max_steps")
        xs = diffrax.diffeqsolve(
            diffrax.ODETerm(_ode_rhs),
            diffrax.Dopri5() if solver is None else solver,
            t0=jnp.zeros((), x0.dtype),
            t1=t1,
            dt0=dt,
            y0=x0,
            args=(Omega, K),
            saveat=diffrax.SaveAt(ts=ts),
            stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol),
            max_steps=max_steps,
        ).ys
    return Solution(ts=ts, x=xs, rho=safe_norm(jnp.mean(xs, axis=-2)))


# ----------------------------------------------------------------- fixed-query flow
def _vec_pair(z, h, zname="z", hname="h"):
    z, h = as_float(z, zname), as_float(h, hname)
    for a, name in ((z, zname), (h, hname)):
        check_nonempty(a, name)
        check_finite(a, name)
    try:
        if z.shape[-1] != h.shape[-1]:
            raise ValueError
        np.broadcast_shapes(z.shape, h.shape)
    except ValueError:
        raise ValueError(
            f"{zname} and {hname} must share the last axis d and broadcast; "
            f"got {z.shape} and {h.shape}."
        ) from None
    return z, h


def fixed_query_field(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch d"]:
    r"""Fixed-query vector field $\dot z = P_z h$.

    $$f(z) = (I - z z^\top) h = h - \langle z, h\rangle z$$

    $z$ = `z` (unit query), $h$ = `h` (drive, see [`drive`][]).

    Args:
        z: unit vectors, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        $\dot z$, the broadcast shape.

    Raises:
        ValueError: mismatched `d`, non-broadcastable, empty or NaN/inf input.

    Example:
        >>> fixed_query_field(jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0]))  # [0, 1]
    """
    return sphere.project_tangent(*_vec_pair(z, h))


def drive(
    w: Float[Array, "*batch n m"], r: Float[Array, "*batch m d"]
) -> Float[Array, "*batch n d"]:
    r"""Drive of fixed-query attention: a weighted sum of anchors.

    $$h_i = \sum_{j=1}^m w_{ij}\, r_j$$

    $w$ = `w` (e.g. [`fixed_query_weights`][]), $r_j$ = `r[..., j, :]` (anchors).

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


def fixed_query_weights(
    e: Float[Array, "*batch n d_model"],
    F: Float[Array, "d_h d_model"],
    G: Float[Array, "d_h d_model"],
) -> Float[Array, "*batch n n"]:
    r"""Coupling weights of fixed-query attention (the seed paper's $w_{ij}$).

    $$w_{ij} = \operatorname{softplus}\Bigl(\frac{(F e_i)^\top (G e_j)}{\sqrt{d_h}}
      \Bigr), \qquad \operatorname{softplus}(s) = \log(1 + e^s) > 0$$

    $e_i$ = `e[..., i, :]` (token embeddings), $F$ = `F`, $G$ = `G` (query and key
    maps $\mathbb{R}^{d_\mathrm{model}} \to \mathbb{R}^{d_h}$). Positive weights make
    $h_i = \sum_j w_{ij} r_j$ a conic combination of the anchors.

    Args:
        e: embeddings, shape `(*batch, n, d_model)`.
        F: query map, shape `(d_h, d_model)`.
        G: key map, shape `(d_h, d_model)`.

    Returns:
        $w$, shape `(*batch, n, n)`; row $i$ holds token $i$'s weights.

    Raises:
        ValueError: shape mismatch or NaN/inf.

    Example:
        >>> fixed_query_weights(jnp.eye(2), jnp.eye(2), jnp.eye(2))  # softplus(I/√2)
    """
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
    q, k = e @ F.T, e @ G.T
    return jax.nn.softplus(q @ jnp.swapaxes(k, -1, -2) / math.sqrt(F.shape[0]))


@jax.jit
def _equilibrium(h, tol):
    norm = safe_norm(h)
    degenerate = norm <= tol
    e1 = jnp.zeros(h.shape[-1], h.dtype).at[0].set(1)
    # double where: the division only ever sees a vector of norm > tol (or e_1)
    h_safe = jnp.where(degenerate[..., None], e1, h)
    z = h_safe / safe_norm(h_safe, keepdims=True)
    return jnp.where(degenerate[..., None], e1, z), degenerate


def equilibrium(
    h: Float[Array, "*batch d"], tol: float | None = None
) -> tuple[Float[Array, "*batch d"], Bool[Array, "*batch"]]:
    r"""Stable equilibrium $h/\|h\|$ of the fixed-query flow, and a degeneracy flag.

    $$z^\star = \begin{cases} h/\|h\| & \|h\| > \mathrm{tol} \\
      e_1 = (1, 0, \dots, 0) & \|h\| \le \mathrm{tol}\ \text{(degenerate)}\end{cases}$$

    $h$ = `h`, tol = `tol`: absolute, default $\sqrt{\varepsilon}$ of the dtype (1.5e-8
    in float64, 3.5e-4 in float32); pass your own when $h$ lives on another scale. For
    $\|h\| \le$ tol the field nearly vanishes and no direction is preferred; $e_1$ is a
    documented finite choice with zero gradient (double-`where`), never NaN.

    Args:
        h: drive, shape `(*batch, d)`.
        tol: degeneracy threshold $\ge 0$.

    Returns:
        `(z_star, degenerate)`: shape `(*batch, d)` and a bool array `(*batch,)`.

    Raises:
        ValueError: empty or NaN/inf `h`; negative or NaN `tol`.

    Example:
        >>> equilibrium(jnp.array([3.0, 4.0]))  # ([0.6, 0.8], False)
    """
    h = as_float(h, "h")
    check_nonempty(h, "h")
    check_finite(h, "h")
    check_scalar_range(tol, "tol", low=0.0)
    return _equilibrium(h, eps_for(h.dtype) if tol is None else tol)


def _angles(phi0, norm_h, c, name, *, open_low=False, high=None):
    phi0, a, c = as_float(phi0, "phi0"), as_float(norm_h, "norm_h"), as_float(c, name)
    check_scalar_range(phi0, "phi0", low=0.0, high=math.pi)
    check_scalar_range(a, "norm_h", low=0.0)
    check_scalar_range(c, name, low=0.0, low_inclusive=not open_low, high=high)
    dtype = jnp.result_type(phi0, a, c)
    return phi0.astype(dtype), a.astype(dtype), c.astype(dtype)


@jax.jit
def _exact_angle(phi0, a, t):
    phi = 2 * jnp.arctan2(jnp.sin(phi0 / 2) * jnp.exp(-a * t), jnp.cos(phi0 / 2))
    return jnp.where(phi0 >= jnp.pi, jnp.asarray(jnp.pi, phi.dtype), phi)


def exact_angle(
    phi0: ScalarLike, norm_h: ScalarLike, t: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Closed-form angle $\varphi(t) = \angle(z(t), h)$ under $\dot z = P_z h$.

    $$\tan\frac{\varphi(t)}2 = \tan\frac{\varphi_0}2\, e^{-\|h\| t},
      \qquad \text{solving}\quad \dot\varphi = -\|h\|\sin\varphi$$

    $\varphi_0$ = `phi0`, $\|h\|$ = `norm_h`, $t$ = `t`; broadcasts. Evaluated as
    $2\,\mathrm{atan2}(\sin\frac{\varphi_0}2 e^{-\|h\|t}, \cos\frac{\varphi_0}2)$. The
    antipode $\varphi_0 = \pi$ is an equilibrium and stays $\pi$; $\|h\| = 0$ gives
    $\varphi(t) = \varphi_0$.

    Args:
        phi0: initial angle(s) in $[0, \pi]$.
        norm_h: $\|h\| \ge 0$.
        t: time(s) $\ge 0$.

    Returns:
        $\varphi(t) \in [0, \pi]$, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments.

    Example:
        >>> exact_angle(jnp.pi / 2, 1.0, 0.8813735870195429)  # pi/4
    """
    return _exact_angle(*_angles(phi0, norm_h, t, "t"))


@jax.jit
def _time_to_converge(phi0, a, delta):
    done = phi0 <= delta
    never = ~done & ((phi0 >= jnp.pi) | (a <= 0))
    ok = ~done & ~never
    # double where: log and division only see safe values off the regular set
    p, dl = jnp.where(ok, phi0, jnp.pi / 2), jnp.where(ok, delta, jnp.pi / 4)
    T = (jnp.log(jnp.tan(p / 2)) - jnp.log(jnp.tan(dl / 2))) / jnp.where(ok, a, 1)
    return jnp.where(done, 0.0, jnp.where(never, jnp.inf, T)).astype(T.dtype)


def time_to_converge(
    phi0: ScalarLike, norm_h: ScalarLike, delta: ScalarLike
) -> Float[Array, "*batch"]:
    r"""First time the angle to $h$ falls to $\delta$ under the fixed-query flow.

    $$T = \frac{1}{\|h\|}\log\frac{\tan(\varphi_0/2)}{\tan(\delta/2)}$$

    $\varphi_0$ = `phi0`, $\|h\|$ = `norm_h`, $\delta$ = `delta`; broadcasts.
    Conventions: $T = 0$ if $\varphi_0 \le \delta$; $T = \infty$ if $\varphi_0 >
    \delta$ and $\varphi_0 = \pi$ (the antipode never moves) or $\|h\| = 0$.
    Gradients are finite (zero) in those cases.

    Args:
        phi0: initial angle(s) in $[0, \pi]$.
        norm_h: $\|h\| \ge 0$.
        delta: target angle(s) in $(0, \pi]$.

    Returns:
        $T \in [0, \infty]$, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments.

    Example:
        >>> time_to_converge(jnp.pi / 2, 1.0, jnp.pi / 4)  # 0.8813...
    """
    args = _angles(phi0, norm_h, delta, "delta", open_low=True, high=math.pi)
    return _time_to_converge(*args)


def lyapunov(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch"]:
    r"""Lyapunov function of the fixed-query flow.

    $$V(z) = -\langle z, h\rangle, \qquad \dot V = -\|P_z h\|^2 \le 0 \text{ on }
      S^{d-1}$$

    $z$ = `z`, $h$ = `h`; the flow is the Riemannian gradient flow of $V$.

    Args:
        z: points, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        $V$, shape `(*batch,)`.

    Raises:
        ValueError: mismatched or non-broadcastable shapes, empty or NaN/inf input.

    Example:
        >>> lyapunov(jnp.array([1.0, 0.0]), jnp.array([2.0, 5.0]))  # -2
    """
    z, h = _vec_pair(z, h)
    return -jnp.sum(z * h, axis=-1)


@jax.jit
def _tangent_basis(z):
    d = z.shape[-1]
    u = sphere.normalize(z)
    s = jnp.where(u[..., :1] >= 0, 1, -1).astype(u.dtype)
    v = u + s * jnp.eye(d, dtype=u.dtype)[0]
    vv = jnp.sum(v * v, axis=-1)[..., None, None]  # = 2 (1 + |u_1|) >= 2, or 1 at z = 0
    return (jnp.eye(d, dtype=u.dtype) - 2 * v[..., :, None] * v[..., None, :] / vv)[
        ..., :, 1:
    ]


def tangent_basis(z: Float[Array, "*batch d"]) -> Float[Array, "*batch d d-1"]:
    r"""Orthonormal basis of the tangent space $T_z S^{d-1} = z^\perp$ (Householder).

    $$H = I - 2\frac{v v^\top}{v^\top v},\quad v = u + \operatorname{sign}(u_1) e_1,
      \quad u = \frac{z}{\|z\|},\qquad B = (H e_2, \dots, H e_d)$$

    $z$ = `z`. $H$ is an orthogonal reflection with $H e_1 = -\operatorname{sign}(u_1)
    u$, so $B$ spans $u^\perp$; $v^\top v = 2(1 + |u_1|) \ge 2$ keeps it jit-friendly
    and well conditioned. At $z = 0$ it returns $e_2, \dots, e_d$.

    Args:
        z: points, shape `(*batch, d)`, $d \ge 2$.

    Returns:
        $B$, shape `(*batch, d, d-1)`: $B^\top B = I$, $B^\top z = 0$.

    Raises:
        ValueError: $d < 2$ or NaN/inf.

    Example:
        >>> tangent_basis(jnp.array([0.0, 0.0, 1.0]))  # spans the xy-plane
    """
    z = as_float(z, "z")
    if z.ndim < 1 or z.shape[-1] < 2:
        raise ValueError(f"z must have shape (*batch, d) with d >= 2; got {z.shape}.")
    check_finite(z, "z")
    return _tangent_basis(z)


@jax.jit
def _jacobian_spectrum(z, h):
    z, h = jnp.broadcast_arrays(z, h)
    B = _tangent_basis(z)
    zh = jnp.sum(z * h, axis=-1)[..., None, None]
    J = -(z[..., :, None] * h[..., None, :] + zh * jnp.eye(z.shape[-1], dtype=z.dtype))
    M = jnp.swapaxes(B, -1, -2) @ J @ B
    return jnp.linalg.eigvalsh(0.5 * (M + jnp.swapaxes(M, -1, -2)))


def jacobian_spectrum(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch d-1"]:
    r"""Eigenvalues of the fixed-query Jacobian restricted to $T_z S^{d-1}$.

    $$J = \partial_z\bigl(h - \langle z,h\rangle z\bigr) = -\bigl(z h^\top +
      \langle z,h\rangle I\bigr),\qquad \operatorname{spec}(B^\top J B) =
      \{-\langle z, h\rangle\}^{d-1}$$

    $z$ = `z`, $h$ = `h`, $B$ = [`tangent_basis`][]`(z)`. Since $B^\top z = 0$ the
    rank-one part drops out: $B^\top J B$ is symmetric with all $d - 1$ eigenvalues
    $-\langle z, h\rangle$, i.e. $-\|h\|$ at the stable equilibrium $h/\|h\|$ and
    $+\|h\|$ at the antipode. At an equilibrium this is the linearisation of the flow
    on the sphere; elsewhere the ambient Jacobian compressed to the tangent space.
    The matrix is formed and diagonalised (`eigvalsh`), following the definition.

    Args:
        z: unit vectors, shape `(*batch, d)`.
        h: drive, broadcastable against `z`.

    Returns:
        real eigenvalues in ascending order, shape `(*batch, d-1)`.

    Raises:
        ValueError: $d < 2$, mismatched shapes, NaN/inf.

    Example:
        >>> jacobian_spectrum(jnp.array([1.0, 0, 0]), jnp.array([2.0, 0, 0]))  # [-2, -2]
    """
    z, h = _vec_pair(z, h)
    if z.shape[-1] < 2:
        raise ValueError(f"z must have d >= 2; got shape {z.shape}.")
    return _jacobian_spectrum(z, h)


@jax.jit
def _readout(z, r, mask, p):
    base = jnp.maximum(0.0, 1.0 + z @ jnp.swapaxes(r, -1, -2))
    pos = base > 0
    u = jnp.where(pos, jnp.where(pos, base, 1.0) ** p, 0.0)  # double where: 0^p safe
    u = jnp.where(mask, u, 0.0)
    den = jnp.sum(u, -1, keepdims=True)
    cnt = jnp.sum(mask, -1, keepdims=True).astype(u.dtype)
    uniform = jnp.where(mask, 1.0, 0.0).astype(u.dtype) / jnp.maximum(cnt, 1.0)
    return jnp.where(den > 0, u / jnp.where(den > 0, den, 1.0), uniform).astype(u.dtype)


def readout(
    z: Float[Array, "*batch n d"],
    r: Float[Array, "*batch m d"],
    *,
    mask: Bool[Array, "*batch n m"] | None = None,
    p: float = 1,
) -> Float[Array, "*batch n m"]:
    r"""Readout weights of fixed-query attention.

    $$a_{ij} = \frac{\mu_{ij}\max(0, 1 + z_i\cdot r_j)^p}
      {\sum_k \mu_{ik}\max(0, 1 + z_i\cdot r_k)^p}$$

    $z_i$ = `z[..., i, :]` (settled queries), $r_j$ = `r[..., j, :]`, $\mu$ = `mask`
    (True = attend; `None` = all), $p$ = `p`. If all unmasked weights of row $i$ vanish
    (only when $z_i = -r_j$ for every unmasked $j$) the row falls back to uniform
    weights over its unmasked entries. A row with nothing unmasked raises for a
    concrete mask and gives zeros under `jit`. Values and gradients are finite
    (double-`where`).

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.
        mask: bool, broadcastable to `(*batch, n, m)`.
        p: exponent $\ge 1$.

    Returns:
        $a$, shape `(*batch, n, m)`, rows non-negative and summing to 1.

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`, a fully masked row.
        TypeError: non-boolean `mask`.

    Example:
        >>> readout(jnp.array([[1.0, 0.0]]), jnp.eye(2))  # [[2/3, 1/3]]
    """
    z, r = as_float(z, "z"), as_float(r, "r")
    if z.ndim < 2 or r.ndim < 2 or z.shape[-1] != r.shape[-1]:
        raise ValueError(
            f"z must have shape (*batch, n, d) and r (m, d) or (*batch, m, d); "
            f"got {z.shape} and {r.shape}."
        )
    check_finite(z, "z")
    check_finite(r, "r")
    check_scalar_range(p, "p", low=1.0)
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
    if is_concrete(mask) and not np.all(np.any(np.asarray(mask), axis=-1)):
        raise ValueError("mask must leave at least one unmasked j in every row i.")
    return _readout(z, r, mask, p)


# -------------------------------------------------------------------- failure odds
def antipodal_probability(alpha: ScalarLike, d: int) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start lies within angle $\alpha$ of the antipode.

    $$P\bigl(\angle(z, -h) < \alpha\bigr) = \tfrac12 I_{\sin^2\alpha}\bigl(\tfrac{d-1}2,
      \tfrac12\bigr)\ (\alpha \le \tfrac\pi2), \qquad z \sim \mathrm{Unif}(S^{d-1})$$

    $\alpha$ = `alpha`, $d$ = `d`; equals `sphere.cap_probability(alpha, d)` (all
    $\alpha \in [0, \pi]$). These starts are the slowest to converge to $h/\|h\|$.

    Args:
        alpha: angle(s) in $[0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, shape of `alpha`.

    Raises:
        ValueError: $d < 2$, `alpha` out of range. TypeError: non-int `d`.

    Example:
        >>> antipodal_probability(jnp.pi / 2, 3)  # 0.5
    """
    return sphere.cap_probability(alpha, check_dim(d))


def finite_time_failure_probability(
    norm_h: ScalarLike, T: ScalarLike, delta: ScalarLike, d: int
) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start is still farther than $\delta$ from $h$ at $T$.

    $$P(\varphi(T) > \delta) = P(\varphi_0 > \varphi_c) = P\bigl(\angle(z_0, -h) <
      \pi - \varphi_c\bigr), \qquad \tan\frac{\varphi_c}2 = \tan\frac\delta2\,
      e^{\|h\|T}$$

    $\|h\|$ = `norm_h`, $T$ = `T`, $\delta$ = `delta`, $d$ = `d`; this is
    [`antipodal_probability`][] at $\pi - \varphi_c = 2\,\mathrm{atan2}(\cos\frac
    \delta2 e^{-\|h\|T}, \sin\frac\delta2)$, a form that never overflows
    ($\varphi_c$ saturates at $\pi$).

    Args:
        norm_h: $\|h\| \ge 0$.
        T: horizon $\ge 0$.
        delta: tolerance angle in $(0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, broadcast shape.

    Raises:
        ValueError: out-of-range or NaN arguments, $d < 2$.

    Example:
        >>> finite_time_failure_probability(0.0, 1.0, jnp.pi / 2, 3)  # 0.5
    """
    d = check_dim(d)
    a, T, delta = (
        as_float(v, k) for v, k in ((norm_h, "norm_h"), (T, "T"), (delta, "delta"))
    )
    check_scalar_range(a, "norm_h", low=0.0)
    check_scalar_range(T, "T", low=0.0)
    check_scalar_range(delta, "delta", low=0.0, high=math.pi, low_inclusive=False)
    alpha = 2 * jnp.arctan2(jnp.cos(delta / 2) * jnp.exp(-a * T), jnp.sin(delta / 2))
    return antipodal_probability(alpha, d)


@functools.partial(jax.jit, static_argnums=(3, 4, 5, 6))
def _degenerate_hits(key, eps, scale, d, m, chunk, n_samples):
    def hits(args):
        k, i = args
        k_r, k_g = jax.random.split(k)
        r = sphere.sample_uniform(k_r, (chunk, m), d)
        g = scale * jax.random.normal(k_g, (chunk, m), r.dtype)
        h = jnp.einsum("sj,sjd->sd", jax.nn.softplus(g), r)
        valid = i * chunk + jnp.arange(chunk) < n_samples  # the last chunk may overhang
        return jnp.sum((safe_norm(h) < eps) & valid)

    n_chunks = -(-n_samples // chunk)
    keys = jax.random.split(key, n_chunks)
    return jnp.sum(jax.lax.map(hits, (keys, jnp.arange(n_chunks))))


def degenerate_probability(
    key: PRNGKeyArray,
    d: int,
    n_anchors: int,
    eps: float,
    n_samples: int = 100_000,
    scale: float = 1.0,
    *,
    chunk_size: int = 8192,
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    r"""Monte Carlo estimate of $P(\|h\| < \varepsilon)$ for a random drive.

    $$h = \sum_{j=1}^{m} \operatorname{softplus}(g_j)\, r_j, \qquad
      r_j \overset{iid}\sim \mathrm{Unif}(S^{d-1}),\quad g_j \overset{iid}\sim
      \mathcal N(0, s^2),\quad r \perp g$$

    $m$ = `n_anchors`, $d$ = `d`, $\varepsilon$ = `eps`, $s$ = `scale`, $N$ =
    `n_samples`: one row of [`fixed_query_weights`][] with iid Gaussian scores,
    driving [`drive`][] over random unit anchors. Returns $\hat p = \#\{\|h\| <
    \varepsilon\}/N$ and its binomial standard error $\sqrt{\hat p(1-\hat p)/N}$ (0
    when there are no hits: raise $N$). Samples are drawn `chunk_size` at a time.

    Args:
        key: PRNG key.
        d: ambient dimension, an int $\ge 2$.
        n_anchors: $m \ge 1$.
        eps: threshold $> 0$.
        n_samples: $N \ge 1$.
        scale: score standard deviation $s > 0$.
        chunk_size: samples per chunk (memory about `chunk_size * m * d`).

    Returns:
        `(estimate, standard_error)`, scalars in the default float dtype.

    Raises:
        ValueError: $d < 2$, non-positive counts, `eps` or `scale` $\le 0$.

    Example:
        >>> p, se = degenerate_probability(jax.random.key(0), 3, 4, 0.5, 10_000)
    """
    d = check_dim(d)
    for v, name in ((n_anchors, "n_anchors"), (n_samples, "n_samples")):
        _check_count(v, name)
    _check_count(chunk_size, "chunk_size")
    check_scalar_range(eps, "eps", low=0.0, low_inclusive=False)
    check_scalar_range(scale, "scale", low=0.0, low_inclusive=False)
    chunk = int(min(chunk_size, n_samples))
    count = _degenerate_hits(key, eps, scale, d, int(n_anchors), chunk, int(n_samples))
    p_hat = count / n_samples
    return p_hat, jnp.sqrt(p_hat * (1 - p_hat) / n_samples)


# scale-free degenerate events and the finite-time threshold (moves into lohe/_failure.py)
from ._scale_free import (  # noqa: E402
    HullOdds,
    finite_time_threshold,
    hull_degenerate_probability,
    relative_degenerate_bound,
    relative_degenerate_probability,
)


__all__ += [
    "HullOdds",
    "hull_degenerate_probability",
    "relative_degenerate_bound",
    "relative_degenerate_probability",
    "finite_time_threshold",
]

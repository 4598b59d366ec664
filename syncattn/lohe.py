r"""The Lohe flow on $S^{d-1}$ and fixed-query oscillator attention.

Conventions: a configuration `x` has shape `(*batch, n, d)`; axis `-2` indexes the
`n` oscillators and the last axis the ambient coordinates of $S^{d-1} \subset
\mathbb{R}^d$. Dense couplings follow the "row $i$ = whom $i$ listens to" rule:
$K_{ij}$ weighs the pull of $x_j$ on $x_i$. Saved trajectories put time first,
`(t, *batch, n, d)`, as diffrax does. Angles are in radians, in $[0, \pi]$.

The fixed-query flow $\dot z = (I - z z^\top) h$ is the one-oscillator Lohe flow
driven by a frozen field $h_i = \sum_j w_{ij} r_j$; it is a gradient flow of
$V(z) = -\langle z, h\rangle$ and is solved in closed form by
$\tan(\varphi/2) = \tan(\varphi_0/2)\, e^{-\|h\| t}$, with $\varphi$ the angle
between $z$ and $h$.
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


# --------------------------------------------------------------------------- Lohe flow
def _check_field_args(x, Omega, coupling, xname: str):
    x = as_float(x, xname)
    if x.ndim < 2:
        raise ValueError(
            f"{xname} must have shape (*batch, n, d); got shape {x.shape}."
        )
    check_nonempty(x, xname, axis=-2)
    n, d = x.shape[-2:]
    if d < 2:
        raise ValueError(f"{xname} must have d >= 2 (points of S^(d-1)); got d={d}.")
    check_finite(x, xname)
    if Omega is not None:
        Omega = as_float(Omega, "Omega")
        if Omega.ndim < 3 or Omega.shape[-3:] != (n, d, d):
            raise ValueError(
                f"Omega must have shape (n, d, d)=({n}, {d}, {d}) or None; got {Omega.shape}."
            )
        check_finite(Omega, "Omega")
        if is_concrete(Omega):
            O = np.asarray(Omega, dtype=np.float64)
            asym = float(np.max(np.abs(O + np.swapaxes(O, -1, -2)), initial=0.0))
            scale = max(1.0, float(np.max(np.abs(O), initial=0.0)))
            if asym > eps_for(Omega.dtype) * scale:
                raise ValueError(
                    f"Omega must be skew-symmetric (Omega_i^T = -Omega_i); got "
                    f"max|Omega + Omega^T| = {asym:.3g}. Perhaps use (A - A^T) / 2?"
                )
        Omega = Omega.astype(x.dtype)
    K = as_float(coupling, "coupling")
    if K.ndim != 0 and (K.ndim < 2 or K.shape[-2:] != (n, n)):
        raise ValueError(
            f"coupling must be a scalar K or an (n, n)=({n}, {n}) matrix; got shape {K.shape}."
        )
    check_finite(K, "coupling")
    return x, Omega, K.astype(x.dtype)


@jax.jit
def _field(x, Omega, K):
    # sum_j K_ij (x_j - <x_i, x_j> x_i) = m_i - <x_i, m_i> x_i with m_i = sum_j K_ij x_j;
    # for scalar K (K_ij = K/n) m_i = K * mean_j x_j, an O(n d) mean field.
    m = K * jnp.mean(x, axis=-2, keepdims=True) if K.ndim == 0 else K @ x
    f = m - jnp.sum(x * m, axis=-1, keepdims=True) * x
    if Omega is not None:
        f = f + (Omega @ x[..., None])[..., 0]
    return f


def vector_field(
    x: Float[Array, "*batch n d"],
    Omega: Float[Array, "n d d"] | None,
    coupling: ScalarLike | Float[Array, "n n"],
) -> Float[Array, "*batch n d"]:
    r"""Lohe vector field on $(S^{d-1})^n$.

    $$\dot x_i = \Omega_i x_i + \sum_{j=1}^n K_{ij}\bigl(x_j - \langle x_i, x_j\rangle x_i\bigr)$$

    Symbols: $x$ = `x`, $\Omega_i$ = `Omega[i]` (skew-symmetric natural rotation;
    `None` means 0), $K$ = `coupling`. A scalar $K$ means all-to-all $K_{ij} = K/n$,
    computed in $O(nd)$ as $K(m - \langle x_i, m\rangle x_i)$ with
    $m = \frac1n\sum_j x_j$; a matrix means row $i$ = whom $x_i$ listens to. For
    $d = 2$, $x_i = (\cos\theta_i, \sin\theta_i)$ and
    $\Omega_i = \omega_i\bigl[\begin{smallmatrix}0&-1\\1&0\end{smallmatrix}\bigr]$
    this is the Kuramoto model.

    Args:
        x: points on the sphere, shape `(*batch, n, d)`.
        Omega: `(n, d, d)` skew-symmetric matrices, or `None`.
        coupling: scalar $K$ or `(n, n)` matrix $K_{ij}$.

    Returns:
        $\dot x$, same shape and dtype as `x`.

    Raises:
        ValueError: wrong shapes, $d < 2$, NaN/inf, or `Omega` not skew-symmetric
            (checked for concrete inputs only).

    Example:
        >>> x = jnp.array([[1.0, 0.0], [0.0, 1.0]])
        >>> vector_field(x, None, 2.0)  # [[0, 1], [1, 0]] * 2/2
    """
    x, Omega, K = _check_field_args(x, Omega, coupling, "x")
    return _field(x, Omega, K)


class Solution(eqx.Module):
    r"""Output of [`simulate`][]: saved times, states and the order parameter.

    Attributes:
        ts: save times, shape `(t,)`.
        x: states, shape `(t, *batch, n, d)`.
        rho: $\rho = \|\frac1n \sum_i x_i\|$, shape `(t, *batch)`.
    """

    ts: Float[Array, " t"]
    x: Float[Array, "t *batch n d"]
    rho: Float[Array, "t *#batch"]


def _save_times(saveat, t1, t1_np):
    """Save times as a jnp array, plus a float64 numpy copy when they are concrete."""
    if saveat is None:
        return jnp.reshape(t1, (1,)), None if t1_np is None else np.array([t1_np])
    if isinstance(saveat, (int, np.integer)) and not isinstance(saveat, bool):
        if saveat < 2:
            raise ValueError(
                f"saveat as an int must be >= 2 (points in [0, t1]); got {saveat}."
            )
        if t1_np is None:
            return jnp.linspace(0.0, 1.0, int(saveat), dtype=t1.dtype) * t1, None
        ts_np = np.linspace(0.0, t1_np, int(saveat))
        return jnp.asarray(ts_np, t1.dtype), ts_np
    concrete = is_concrete(saveat)
    ts = as_float(saveat, "saveat").astype(t1.dtype)
    if ts.ndim != 1 or ts.shape[0] == 0:
        raise ValueError(
            f"saveat must be None, an int, or a 1-D array of times; got shape {ts.shape}."
        )
    check_finite(ts, "saveat")
    if not (concrete and t1_np is not None):
        return ts, None
    ts_np = np.asarray(saveat, np.float64)
    if ts_np.min() < 0 or ts_np.max() > t1_np or np.any(np.diff(ts_np) < 0):
        raise ValueError(
            f"saveat times must be non-decreasing and lie in [0, t1={t1_np}]; got {ts_np}."
        )
    return ts, ts_np


def _ode_rhs(t, y, args):
    # module-level so that diffrax's filter_jit cache hits across calls
    return _field(y, *args)


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

    `method="diffrax"` (default) solves the ambient ODE with an adaptive diffrax
    solver (`solver`, default `diffrax.Dopri5()`, with a PID controller at
    `rtol`/`atol`; `dt` is the initial step, `None` = automatic). The sphere is
    invariant and, once oscillators align, attracting, so norms stay 1 to about
    `atol`. `method="geodesic"` is the first-order Lie-Euler integrator
    $x_{k+1} = \exp_{x_k}(\Delta t\, P_{x_k} f(x_k))$ (`sphere.exp_map`, $P_x$ =
    `sphere.project_tangent`) that stays on the sphere to rounding; unlike
    Euler-then-normalise it has no drift to correct. Each interval between save
    times gets the same number of equal steps, each at most `dt` (default 1e-2),
    so `t1`, `saveat` and `dt` must be concrete (close over them under `jit`).

    Both methods are jit-able, vmap-able over `x0` and differentiable (diffrax
    through its default checkpointed adjoint, geodesic through `lax.scan`).

    Args:
        x0: initial points, unit vectors, shape `(*batch, n, d)`.
        Omega: `(n, d, d)` skew-symmetric matrices or `None`.
        coupling: scalar $K$ (all-to-all $K/n$) or `(n, n)` matrix.
        t1: final time $\ge 0$.
        saveat: `None` (save at `t1` only), an int $k \ge 2$ (k equally spaced
            times in $[0, t_1]$), or a 1-D non-decreasing array of times in
            $[0, t_1]$.
        method: `"diffrax"` or `"geodesic"`.
        dt: initial step (diffrax) or maximal step (geodesic).
        rtol, atol: diffrax tolerances.
        solver: a diffrax solver (diffrax method only).
        max_steps: diffrax step budget.

    Returns:
        [`Solution`][] with `ts (t,)`, `x (t, *batch, n, d)`, `rho (t, *batch)`.

    Raises:
        ValueError: bad shapes or values (see [`vector_field`][]), `x0` off the
            unit sphere, `t1 < 0`, bad `saveat`, `method`, `dt`, `rtol`, `atol`.

    Example:
        >>> x0 = sphere.sample_uniform(jax.random.key(0), (8,), 3)
        >>> sol = simulate(x0, None, 1.0, 10.0, saveat=5)
        >>> sol.rho[-1]  # close to 1: synchronised
    """
    x0, Omega, K = _check_field_args(x0, Omega, coupling, "x0")
    t1_np = float(np.asarray(t1)) if is_concrete(t1) and np.ndim(t1) == 0 else None
    if is_concrete(x0):
        dev = float(
            np.max(np.abs(np.linalg.norm(np.asarray(x0, np.float64), axis=-1) - 1))
        )
        if dev > eps_for(x0.dtype):
            raise ValueError(
                f"x0 must lie on the unit sphere (||x0_i|| = 1); max deviation {dev:.3g}. "
                "Perhaps apply sphere.normalize first?"
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
    if method == "diffrax":
        check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=False)
        check_scalar_range(atol, "atol", low=0.0, low_inclusive=False)
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, int)
            or max_steps < 1
        ):
            raise ValueError(f"max_steps must be a positive int; got {max_steps!r}.")
        term = diffrax.ODETerm(_ode_rhs)
        sol = diffrax.diffeqsolve(
            term,
            diffrax.Dopri5() if solver is None else solver,
            t0=jnp.zeros((), x0.dtype),
            t1=t1,
            dt0=dt,
            y0=x0,
            args=(Omega, K),
            saveat=diffrax.SaveAt(ts=ts),
            stepsize_controller=diffrax.PIDController(rtol=rtol, atol=atol),
            max_steps=max_steps,
        )
        xs = sol.ys
    else:
        if ts_np is None:
            raise ValueError(
                "method='geodesic' needs concrete t1 and saveat (they fix the number of "
                "steps); under jit, close over them instead of passing them as arguments."
            )
        dt = 1e-2 if dt is None else float(dt)
        gaps = np.diff(ts_np, prepend=0.0)
        m = max(1, math.ceil(float(gaps.max()) / dt - 1e-9))
        xs = _geodesic(x0, Omega, K, jnp.asarray(gaps / m, dtype=x0.dtype), m)
    rho = safe_norm(jnp.mean(xs, axis=-2))
    return Solution(ts=ts, x=xs, rho=rho)


# --------------------------------------------------------------------- fixed-query flow
def _vec_pair(z, h, zname="z", hname="h"):
    z, h = as_float(z, zname), as_float(h, hname)
    for a, name in ((z, zname), (h, hname)):
        check_nonempty(a, name)
        check_finite(a, name)
    if z.shape[-1] != h.shape[-1]:
        raise ValueError(
            f"{zname} and {hname} must share the last axis d; got {z.shape} and {h.shape}."
        )
    try:
        np.broadcast_shapes(z.shape, h.shape)
    except ValueError:
        raise ValueError(
            f"{zname} {z.shape} and {hname} {h.shape} must broadcast over leading axes."
        ) from None
    return z, h


def fixed_query_field(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch d"]:
    r"""Fixed-query flow $\dot z = (I - z z^\top) h$.

    $$f(z) = h - \langle z, h\rangle z = P_z h$$

    Symbols: $z$ = `z` (a unit query), $h$ = `h` (the drive, see [`drive`][]).

    Args:
        z: points on $S^{d-1}$, shape `(*batch, d)`.
        h: drive, broadcastable to `z`.

    Returns:
        $\dot z$, shape of `z` broadcast with `h`.

    Raises:
        ValueError: mismatched `d`, non-broadcastable shapes, empty or NaN/inf input.

    Example:
        >>> fixed_query_field(jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0]))  # [0, 1]
    """
    z, h = _vec_pair(z, h)
    return sphere.project_tangent(z, h)


def drive(
    w: Float[Array, "*batch n m"], r: Float[Array, "*batch m d"]
) -> Float[Array, "*batch n d"]:
    r"""Drive field of fixed-query attention.

    $$h_i = \sum_{j=1}^m w_{ij}\, r_j$$

    Symbols: $w$ = `w` (coupling weights, e.g. [`fixed_query_weights`][]),
    $r_j$ = `r[..., j, :]` (anchors / values).

    Args:
        w: weights, shape `(*batch, n, m)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.

    Returns:
        $h$, shape `(*batch, n, d)`.

    Raises:
        ValueError: `w` or `r` not at least 2-D, `m` mismatch, NaN/inf.

    Example:
        >>> drive(jnp.ones((1, 2)), jnp.eye(2))  # [[1, 1]]
    """
    w, r = as_float(w, "w"), as_float(r, "r")
    if w.ndim < 2 or r.ndim < 2 or w.shape[-1] != r.shape[-2]:
        raise ValueError(
            f"w must have shape (*batch, n, m) and r (m, d); got {w.shape} and {r.shape}."
        )
    try:
        np.broadcast_shapes(w.shape[:-2], r.shape[:-2])
    except ValueError:
        raise ValueError(
            f"batch axes of w {w.shape} and r {r.shape} must broadcast."
        ) from None
    check_finite(w, "w")
    check_finite(r, "r")
    return w @ r


def fixed_query_weights(
    e: Float[Array, "*batch n d_model"],
    F: Float[Array, "d_h d_model"],
    G: Float[Array, "d_h d_model"],
) -> Float[Array, "*batch n n"]:
    r"""Coupling weights of fixed-query oscillator attention (the seed paper's $w_{ij}$).

    $$w_{ij} = \operatorname{softplus}\!\Bigl(\frac{(F e_i)^\top (G e_j)}{\sqrt{d_h}}\Bigr),
      \qquad \operatorname{softplus}(s) = \log(1 + e^s)$$

    Symbols: $e_i$ = `e[..., i, :]` (token embeddings), $F$ = `F`, $G$ = `G`
    (query and key maps $\mathbb{R}^{d_\text{model}} \to \mathbb{R}^{d_h}$).
    The weights are positive, so $h_i = \sum_j w_{ij} r_j$ is a conic combination.

    Args:
        e: embeddings, shape `(*batch, n, d_model)`.
        F: query map, shape `(d_h, d_model)`.
        G: key map, shape `(d_h, d_model)`.

    Returns:
        $w$, shape `(*batch, n, n)`, row $i$ = the weights token $i$ gives to $j$.

    Raises:
        ValueError: shape mismatch or NaN/inf.

    Example:
        >>> fixed_query_weights(jnp.eye(2), jnp.eye(2), jnp.eye(2))  # softplus(I/sqrt 2)
    """
    e, F, G = as_float(e, "e"), as_float(F, "F"), as_float(G, "G")
    if e.ndim < 2:
        raise ValueError(f"e must have shape (*batch, n, d_model); got {e.shape}.")
    for M, name in ((F, "F"), (G, "G")):
        if M.ndim != 2 or M.shape[1] != e.shape[-1] or M.shape[0] == 0:
            raise ValueError(
                f"{name} must have shape (d_h, d_model={e.shape[-1]}); got {M.shape}."
            )
        check_finite(M, name)
    if F.shape != G.shape:
        raise ValueError(
            f"F and G must have the same shape (d_h, d_model); got {F.shape} and {G.shape}."
        )
    check_finite(e, "e")
    q, k = e @ F.T, e @ G.T
    return jax.nn.softplus(q @ jnp.swapaxes(k, -1, -2) / math.sqrt(F.shape[0]))


def equilibrium(
    h: Float[Array, "*batch d"], tol: float | None = None
) -> tuple[Float[Array, "*batch d"], Bool[Array, "*batch"]]:
    r"""Stable equilibrium $z^\star = h/\|h\|$ of the fixed-query flow, and a degeneracy flag.

    $$z^\star = \begin{cases} h/\|h\| & \|h\| > \text{tol} \\ e_1 & \|h\| \le \text{tol}
      \ \text{(degenerate)} \end{cases}$$

    Symbols: $h$ = `h`, tol = `tol` (absolute; default $\sqrt{\varepsilon}$ of the
    dtype, 1.5e-8 in float64, 3.5e-4 in float32 - pass your own when $h$ is on
    another scale). When $\|h\| \le$ tol every point is (nearly) an equilibrium;
    we return the first basis vector $e_1$, a finite, documented choice, with zero
    gradient (double-`where`), never NaN.

    Args:
        h: drive, shape `(*batch, d)`.
        tol: degeneracy threshold $\ge 0$.

    Returns:
        `(z_star, degenerate)`: `z_star` shape `(*batch, d)`, `degenerate` bool `(*batch,)`.

    Raises:
        ValueError: empty/NaN `h`, negative or non-finite `tol`.

    Example:
        >>> equilibrium(jnp.array([3.0, 4.0]))  # ([0.6, 0.8], False)
    """
    h = as_float(h, "h")
    check_nonempty(h, "h")
    check_finite(h, "h")
    check_scalar_range(tol, "tol", low=0.0)
    tol = eps_for(h.dtype) if tol is None else tol
    norm = safe_norm(h)
    degenerate = norm <= tol
    e1 = jnp.zeros(h.shape[-1], h.dtype).at[0].set(1)
    # double where: the division only ever sees a vector of norm > tol (or e_1)
    h_safe = jnp.where(degenerate[..., None], e1, h)
    z = h_safe / safe_norm(h_safe, keepdims=True)
    return jnp.where(degenerate[..., None], e1, z), degenerate


def _angles(phi0, norm_h, third, third_name, third_low_open=False, third_high=None):
    phi0, a, c = (
        as_float(phi0, "phi0"),
        as_float(norm_h, "norm_h"),
        as_float(third, third_name),
    )
    check_scalar_range(phi0, "phi0", low=0.0, high=math.pi)
    check_scalar_range(a, "norm_h", low=0.0)
    check_scalar_range(
        c, third_name, low=0.0, low_inclusive=not third_low_open, high=third_high
    )
    dtype = jnp.result_type(phi0, a, c)
    return phi0.astype(dtype), a.astype(dtype), c.astype(dtype)


def exact_angle(
    phi0: ScalarLike, norm_h: ScalarLike, t: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Closed-form angle $\varphi(t)$ between $z(t)$ and $h$ under $\dot z = P_z h$.

    $$\tan\frac{\varphi(t)}2 = \tan\frac{\varphi_0}2\, e^{-\|h\| t}
      \quad\Longleftarrow\quad \dot\varphi = -\|h\|\sin\varphi$$

    Symbols: $\varphi_0$ = `phi0` $\in [0, \pi]$, $\|h\|$ = `norm_h`, $t$ = `t` $\ge 0$.
    Evaluated as $2\,\mathrm{atan2}(\sin\frac{\varphi_0}2 e^{-\|h\|t}, \cos\frac{\varphi_0}2)$;
    the antipode $\varphi_0 = \pi$ is an equilibrium and stays $\pi$; $\|h\| = 0$
    gives $\varphi(t) = \varphi_0$. Broadcasts over all arguments.

    Args:
        phi0: initial angle(s) in $[0, \pi]$.
        norm_h: $\|h\| \ge 0$.
        t: time(s) $\ge 0$.

    Returns:
        $\varphi(t)$ in $[0, \pi]$, broadcast shape.

    Raises:
        ValueError: arguments out of range or NaN.

    Example:
        >>> exact_angle(jnp.pi / 2, 1.0, jnp.log(1 / jnp.tan(jnp.pi / 8)))  # pi/4
    """
    phi0, a, t = _angles(phi0, norm_h, t, "t")
    phi = 2 * jnp.arctan2(jnp.sin(phi0 / 2) * jnp.exp(-a * t), jnp.cos(phi0 / 2))
    return jnp.where(phi0 >= jnp.pi, jnp.asarray(jnp.pi, phi.dtype), phi)


def time_to_converge(
    phi0: ScalarLike, norm_h: ScalarLike, delta: ScalarLike
) -> Float[Array, "*batch"]:
    r"""First time the angle to $h$ drops to $\delta$ under the fixed-query flow.

    $$T(\varphi_0, \delta) = \frac{1}{\|h\|}\log\frac{\tan(\varphi_0/2)}{\tan(\delta/2)}$$

    Symbols: $\varphi_0$ = `phi0` $\in [0, \pi]$, $\|h\|$ = `norm_h`,
    $\delta$ = `delta` $\in (0, \pi]$. Conventions: $T = 0$ if $\varphi_0 \le \delta$;
    $T = \infty$ if $\varphi_0 > \delta$ and either $\varphi_0 = \pi$ (the antipode
    never moves) or $\|h\| = 0$. Gradients are finite (zero) in those cases.

    Args:
        phi0: initial angle(s).
        norm_h: $\|h\| \ge 0$.
        delta: target angle(s).

    Returns:
        $T \in [0, \infty]$, broadcast shape.

    Raises:
        ValueError: arguments out of range or NaN.

    Example:
        >>> time_to_converge(jnp.pi / 2, 1.0, jnp.pi / 4)  # log(1/tan(pi/8)) ~ 0.881
    """
    phi0, a, delta = _angles(phi0, norm_h, delta, "delta", True, math.pi)
    done = phi0 <= delta
    never = ~done & ((phi0 >= jnp.pi) | (a <= 0))
    ok = ~done & ~never
    # double where: the log and division only see safe values off the regular set
    p = jnp.where(ok, phi0, jnp.pi / 2)
    dl = jnp.where(ok, delta, jnp.pi / 4)
    a_s = jnp.where(ok, a, 1)
    T = (jnp.log(jnp.tan(p / 2)) - jnp.log(jnp.tan(dl / 2))) / a_s
    return jnp.where(done, 0.0, jnp.where(never, jnp.inf, T)).astype(T.dtype)


def lyapunov(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch"]:
    r"""Lyapunov function of the fixed-query flow.

    $$V(z) = -\langle z, h\rangle, \qquad \dot V = -\|P_z h\|^2 \le 0 \ \text{on}\ S^{d-1}$$

    Symbols: $z$ = `z`, $h$ = `h`.

    Args:
        z: points, shape `(*batch, d)`.
        h: drive, broadcastable to `z`.

    Returns:
        $V$, shape `(*batch,)`.

    Raises:
        ValueError: shape mismatch, empty or NaN/inf input.

    Example:
        >>> lyapunov(jnp.array([1.0, 0.0]), jnp.array([2.0, 5.0]))  # -2
    """
    z, h = _vec_pair(z, h)
    return -jnp.sum(z * h, axis=-1)


def tangent_basis(z: Float[Array, "*batch d"]) -> Float[Array, "*batch d d-1"]:
    r"""Orthonormal basis of the tangent space $T_z S^{d-1} = z^\perp$ (Householder).

    $$H = I - 2\frac{v v^\top}{v^\top v},\quad v = u + \operatorname{sign}(u_1) e_1,
      \quad u = z/\|z\|,\qquad B = H_{:, 2:d}$$

    $H$ is orthogonal with $H e_1 = -\operatorname{sign}(u_1) u$, so its last
    $d-1$ columns span $u^\perp$. $v^\top v = 2(1 + |u_1|) \ge 2$: no division
    by a small number, jit-friendly. At $z = 0$ this returns $e_2, \dots, e_d$.

    Args:
        z: points, shape `(*batch, d)`, $d \ge 2$.

    Returns:
        $B$, shape `(*batch, d, d-1)`, with $B^\top B = I$ and $B^\top z = 0$.

    Raises:
        ValueError: $d < 2$, NaN/inf.

    Example:
        >>> tangent_basis(jnp.array([0.0, 0.0, 1.0]))  # columns span the xy-plane
    """
    z = as_float(z, "z")
    if z.ndim < 1 or z.shape[-1] < 2:
        raise ValueError(f"z must have shape (*batch, d) with d >= 2; got {z.shape}.")
    check_finite(z, "z")
    d = z.shape[-1]
    u = sphere.normalize(z)
    s = jnp.where(u[..., :1] >= 0, 1.0, -1.0).astype(u.dtype)
    v = u + s * jnp.eye(d, dtype=u.dtype)[0]
    H = (
        jnp.eye(d, dtype=u.dtype)
        - 2
        * v[..., :, None]
        * v[..., None, :]
        / jnp.sum(v * v, axis=-1)[..., None, None]
    )
    return H[..., :, 1:]


def jacobian_spectrum(
    z: Float[Array, "*batch d"], h: Float[Array, "*batch d"]
) -> Float[Array, "*batch d-1"]:
    r"""Eigenvalues of the fixed-query Jacobian restricted to $T_z S^{d-1}$.

    $$J = \frac{\partial}{\partial z}\bigl(h - \langle z,h\rangle z\bigr)
      = -\bigl(z h^\top + \langle z,h\rangle I\bigr),\qquad
      \operatorname{spec}(B^\top J B) = \{-\langle z, h\rangle\}^{d-1}$$

    Symbols: $z$ = `z`, $h$ = `h`, $B$ = [`tangent_basis`][]`(z)`. Because
    $B^\top z = 0$ the rank-one part drops out, $B^\top J B$ is symmetric and all
    $d-1$ eigenvalues are real and equal $-\langle z,h\rangle$: $-\|h\|$ at the
    stable equilibrium $h/\|h\|$, $+\|h\|$ at the antipode. At an equilibrium this
    is the linearisation of the flow on the sphere; elsewhere it is the ambient
    Jacobian compressed to the tangent space. The matrix is formed and
    diagonalised (`eigvalsh` of its symmetric part) so that the code follows the
    definition, not the identity.

    Args:
        z: points on $S^{d-1}$, shape `(*batch, d)`.
        h: drive, broadcastable to `z`.

    Returns:
        eigenvalues sorted ascending, shape `(*batch, d-1)`.

    Raises:
        ValueError: $d < 2$, shape mismatch, NaN/inf.

    Example:
        >>> jacobian_spectrum(jnp.array([1.0, 0, 0]), jnp.array([2.0, 0, 0]))  # [-2, -2]
    """
    z, h = _vec_pair(z, h)
    z, h = jnp.broadcast_arrays(z, h)
    B = tangent_basis(z)
    d = z.shape[-1]
    zh = jnp.sum(z * h, axis=-1)[..., None, None]
    J = -(z[..., :, None] * h[..., None, :] + zh * jnp.eye(d, dtype=z.dtype))
    M = jnp.swapaxes(B, -1, -2) @ J @ B
    return jnp.linalg.eigvalsh(0.5 * (M + jnp.swapaxes(M, -1, -2)))


def readout(
    z: Float[Array, "*batch n d"],
    r: Float[Array, "*batch m d"],
    *,
    mask: Bool[Array, "*batch n m"] | None = None,
    p: float = 1,
) -> Float[Array, "*batch n m"]:
    r"""Readout weights of fixed-query attention.

    $$a_{ij} = \frac{\mu_{ij}\,\max(0, 1 + z_i\cdot r_j)^p}{\sum_k \mu_{ik}\max(0, 1 + z_i\cdot r_k)^p}$$

    Symbols: $z_i$ = `z[..., i, :]` (settled queries), $r_j$ = `r[..., j, :]`,
    $\mu_{ij}$ = `mask` (True = attend; `None` = all), $p$ = `p` $\ge 1$. If every
    unmasked weight of row $i$ is zero (only when $z_i = -r_j$ for all unmasked
    $j$) the row falls back to uniform weights over its unmasked $j$. A row with
    no unmasked entry raises for concrete masks; under `jit` it returns zeros.
    All branches use the double-`where` pattern: finite values and gradients.

    Args:
        z: queries, shape `(*batch, n, d)`.
        r: anchors, shape `(m, d)` or `(*batch, m, d)`.
        mask: boolean, broadcastable to `(*batch, n, m)`.
        p: exponent $\ge 1$.

    Returns:
        $a$, shape `(*batch, n, m)`; rows are non-negative and sum to 1.

    Raises:
        ValueError: shape mismatch, NaN/inf, `p < 1`, a fully masked row.
        TypeError: non-boolean `mask`.

    Example:
        >>> readout(jnp.array([[1.0, 0.0]]), jnp.eye(2))  # [[2/3, 1/3]]
    """
    z, r = as_float(z, "z"), as_float(r, "r")
    if z.ndim < 2 or r.ndim < 2 or z.shape[-1] != r.shape[-1]:
        raise ValueError(
            f"z must have shape (*batch, n, d) and r (m, d); got {z.shape} and {r.shape}."
        )
    check_finite(z, "z")
    check_finite(r, "r")
    check_scalar_range(p, "p", low=1.0)
    s = z @ jnp.swapaxes(r, -1, -2)
    base = jnp.maximum(0.0, 1.0 + s)
    pos = base > 0
    u = jnp.where(
        pos, jnp.where(pos, base, 1.0) ** p, 0.0
    )  # double where: 0^p safe for traced p
    if mask is None:
        mask = jnp.ones(s.shape[-1:], bool)
    mask = jnp.asarray(mask)
    if mask.dtype != jnp.bool_:
        raise TypeError(
            f"mask must be boolean (True = attend); got dtype {mask.dtype}."
        )
    try:
        shape = np.broadcast_shapes(mask.shape, s.shape)
    except ValueError:
        raise ValueError(
            f"mask {mask.shape} must broadcast to (*batch, n, m)={s.shape}."
        ) from None
    mask = jnp.broadcast_to(mask, shape)
    if is_concrete(mask) and not np.all(np.any(np.asarray(mask), axis=-1)):
        raise ValueError("mask must leave at least one unmasked j in every row i.")
    u = jnp.where(mask, u, 0.0)
    den, cnt = (
        jnp.sum(u, -1, keepdims=True),
        jnp.sum(mask, -1, keepdims=True).astype(u.dtype),
    )
    uniform = jnp.where(mask, 1.0, 0.0) / jnp.maximum(cnt, 1.0)
    return jnp.where(den > 0, u / jnp.where(den > 0, den, 1.0), uniform).astype(u.dtype)


# ---------------------------------------------------------------------- failure odds
def antipodal_probability(alpha: ScalarLike, d: int) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start lies within angle $\alpha$ of the antipode $-h/\|h\|$.

    $$P = \sigma\bigl(\{z : \angle(z, -h) < \alpha\}\bigr) = \frac12 I_{\sin^2\alpha}
      \Bigl(\frac{d-1}2, \frac12\Bigr) \quad (\alpha \le \pi/2)$$

    Symbols: $\alpha$ = `alpha` $\in [0, \pi]$, $d$ = `d` (sphere $S^{d-1}$),
    $\sigma$ the uniform measure; equals `sphere.cap_probability(alpha, d)`.
    Starts in this cap are those slowest to converge; the antipode itself never does.

    Args:
        alpha: cap angle(s) in $[0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, shape of `alpha`.

    Raises:
        ValueError: $d < 2$ or `alpha` out of range. TypeError: non-int `d`.

    Example:
        >>> antipodal_probability(jnp.pi / 2, 3)  # 0.5
    """
    check_dim(d)
    return sphere.cap_probability(alpha, d)


def finite_time_failure_probability(
    norm_h: ScalarLike, T: ScalarLike, delta: ScalarLike, d: int
) -> Float[Array, "*batch"]:
    r"""Probability that a uniform start is still farther than $\delta$ from $h/\|h\|$ at time $T$.

    $$P\bigl(\varphi(T) > \delta\bigr) = P(\varphi_0 > \varphi_c) = \sigma(\text{cap of angle }
      \pi - \varphi_c \text{ at } -h),\quad \tan\frac{\varphi_c}2 = \tan\frac\delta2\, e^{\|h\|T}$$

    Symbols: $\|h\|$ = `norm_h`, $T$ = `T`, $\delta$ = `delta` $\in (0, \pi]$, $d$ =
    `d`. Uses $\pi - \varphi_c = 2\,\mathrm{atan2}(\cos\frac\delta2 e^{-\|h\|T},
    \sin\frac\delta2)$, which never overflows ($\varphi_c$ clips to $\pi$).

    Args:
        norm_h: $\|h\| \ge 0$.
        T: horizon $\ge 0$.
        delta: tolerance angle in $(0, \pi]$.
        d: ambient dimension, an int $\ge 2$.

    Returns:
        probabilities, broadcast shape.

    Raises:
        ValueError: out-of-range arguments, $d < 2$.

    Example:
        >>> finite_time_failure_probability(0.0, 1.0, jnp.pi / 2, 3)  # 0.5
    """
    check_dim(d)
    a, T, delta = (
        as_float(v, name)
        for v, name in ((norm_h, "norm_h"), (T, "T"), (delta, "delta"))
    )
    check_scalar_range(a, "norm_h", low=0.0)
    check_scalar_range(T, "T", low=0.0)
    check_scalar_range(delta, "delta", low=0.0, high=math.pi, low_inclusive=False)
    alpha = 2 * jnp.arctan2(jnp.cos(delta / 2) * jnp.exp(-a * T), jnp.sin(delta / 2))
    return antipodal_probability(alpha, d)


def degenerate_probability(
    key: PRNGKeyArray,
    d: int,
    n_anchors: int,
    eps: float,
    n_samples: int = 100_000,
    *,
    scale: float = 1.0,
    chunk_size: int = 8192,
) -> tuple[Float[Array, ""], Float[Array, ""]]:
    r"""Monte Carlo estimate of $P(\|h\| < \varepsilon)$ for a random drive.

    $$h = \sum_{j=1}^{m} w_j r_j,\quad r_j \overset{iid}\sim \mathrm{Unif}(S^{d-1}),\quad
      w_j = \operatorname{softplus}(g_j),\quad g_j \overset{iid}\sim \mathcal N(0, s^2)$$

    with $r$ and $g$ independent. Symbols: $m$ = `n_anchors`, $d$ = `d`,
    $\varepsilon$ = `eps`, $s$ = `scale`, $N$ = `n_samples`. This is one row of
    [`fixed_query_weights`][] with scores modelled as iid Gaussians, driving
    [`drive`][] over random unit anchors. Returns $\hat p = \#\{\|h\| < \varepsilon\}/N$
    and its binomial standard error $\sqrt{\hat p(1-\hat p)/N}$ (0 when no hits:
    increase $N$). Samples are drawn in chunks of `chunk_size` with `lax.map`.

    Args:
        key: PRNG key.
        d: ambient dimension, an int $\ge 2$.
        n_anchors: $m \ge 1$.
        eps: threshold $> 0$.
        n_samples: $N \ge 1$.
        scale: score standard deviation $s > 0$.
        chunk_size: samples per chunk (memory $\approx$ chunk $\cdot m d$).

    Returns:
        `(estimate, standard_error)`, scalars in the default float dtype.

    Raises:
        ValueError/TypeError: $d < 2$, non-positive counts, `eps` or `scale` $\le 0$.

    Example:
        >>> p, se = degenerate_probability(jax.random.key(0), 3, 4, 0.5, 10_000)
    """
    d = check_dim(d)
    for v, name in (
        (n_anchors, "n_anchors"),
        (n_samples, "n_samples"),
        (chunk_size, "chunk_size"),
    ):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive int; got {v!r}.")
    check_scalar_range(eps, "eps", low=0.0, low_inclusive=False)
    check_scalar_range(scale, "scale", low=0.0, low_inclusive=False)
    chunk = int(min(chunk_size, n_samples))
    n_chunks = -(-int(n_samples) // chunk)
    keys = jax.random.split(key, n_chunks)

    def hits(args):
        k, i = args
        k_r, k_g = jax.random.split(k)
        r = sphere.sample_uniform(k_r, (chunk, n_anchors), d)
        g = scale * jax.random.normal(k_g, (chunk, n_anchors), r.dtype)
        h = jnp.einsum("sj,sjd->sd", jax.nn.softplus(g), r)
        valid = i * chunk + jnp.arange(chunk) < n_samples
        return jnp.sum((safe_norm(h) < eps) & valid)

    count = jnp.sum(jax.lax.map(hits, (keys, jnp.arange(n_chunks))))
    p_hat = count / n_samples
    return p_hat, jnp.sqrt(p_hat * (1 - p_hat) / n_samples)

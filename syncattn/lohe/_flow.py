r"""The general Lohe flow on $(S^{d-1})^n$ and its simulation."""

from __future__ import annotations

import functools
import math

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_count,
    check_finite,
    check_nonempty,
    check_scalar_range,
    is_concrete,
)
from .._numerics import eps_for, safe_norm
from .._types import (
    Array,
    Float,
    ScalarLike,
)
from ..sphere import _exp_map, _project_tangent


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
            v = h * _project_tangent(y, _field(y, Omega, K))
            return _exp_map(y, v), None

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
        check_count(max_steps, "max_steps")
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

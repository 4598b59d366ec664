r"""The general Lohe flow on $(S^{d-1})^n$ and its simulation."""

from __future__ import annotations

import functools
import math

import diffrax
import jax
import jax.numpy as jnp
import numpy as np

from .. import _simulate as driver
from .._checks import (
    as_float,
    check_finite,
    check_nonempty,
    check_scalar_range,
    is_concrete,
)
from .._numerics import eps_for, mean_field
from .._simulate import Solution
from .._types import (
    Array,
    ArrayLike,
    Float,
    PRNGKeyArray,
    ScalarLike,
)
from ..geometry import Sphere


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
    m = K * mean_field(x, -2, True) if K.ndim == 0 else K @ x
    if conserve:
        # |x_i|^2 m_i - <x_i, m_i> x_i, equal on the sphere and orthogonal to x_i
        # everywhere, so |x_i| is an exact invariant of the ambient ODE (see simulate)
        c = jnp.sum(x * m, axis=-1, keepdims=True)
        f = jnp.sum(x * x, axis=-1, keepdims=True) * m - c * x
    else:  # the sphere's tangent projection (I - x_i x_i^T) m_i
        f = Sphere(x.shape[-1]).project(x, jnp.broadcast_to(m, x.shape))
    return f if Omega is None else f + (Omega @ x[..., None])[..., 0]


def vector_field(
    x: Float[ArrayLike, "*batch n d"],
    Omega: Float[ArrayLike, "n d d"] | None,
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


def _ode_rhs(t, y, args):  # module level: diffrax's jit cache then hits across calls
    return _field(y, *args, conserve=True)


def _order(x):
    """Order parameter $Z = \\frac1n\\sum_i x_i$ and $\\rho = \\|Z\\|$ (the sphere
    geometry's order parameter over the oscillator axis)."""
    return mean_field(x, -2), Sphere(x.shape[-1]).order_parameter(x, axis=-1)


@functools.partial(jax.jit, static_argnames="m")
def _geodesic(x0, Omega, K, steps, m):
    # Lie-Euler: m steps of length h per save interval, x <- exp_x(h P_x f(x))
    geo = Sphere(x0.shape[-1])

    def interval(x, h):
        def step(y, _):
            v = h * geo.project(y, _field(y, Omega, K))
            return geo.exp(y, v), None

        x, _ = jax.lax.scan(step, x, None, length=m)
        return x, x

    return jax.lax.scan(interval, x0, steps)[1]


def simulate(
    x0: Float[ArrayLike, "*batch n d"],
    Omega: Float[ArrayLike, "n d d"] | None,
    coupling: ScalarLike | Float[Array, "n n"],
    t1: ScalarLike,
    *,
    saveat: int | Float[ArrayLike, " S"] | None = 101,
    solver: str | diffrax.AbstractSolver | None = "dopri5",
    rtol: float | None = 1e-8,
    atol: float = 1e-10,
    dt0: float | None = None,
    max_steps: int = 2**20,
    method: str = "diffrax",
    dt: float | None = None,
    noise: ScalarLike | None = None,
    key: PRNGKeyArray | None = None,
) -> Solution:
    r"""Integrate the Lohe flow from $x(0) = x_0$ to $t_1$.

    $$\dot x_i = \Omega_i x_i + \sum_j K_{ij}(x_j - \langle x_i, x_j\rangle x_i),
      \qquad Z(t) = \frac1n\sum_i x_i(t),\quad \rho(t) = \|Z(t)\|$$

    Symbols as in [`syncattn.lohe.vector_field`][], $x_0$ = `x0`, $t_1$ = `t1`; one
    driver serves this and [`syncattn.kuramoto.simulate`][].

    `method="diffrax"` solves the ambient ODE (`solver`, default Dopri5) for the
    extension $\|x_i\|^2 m_i - \langle x_i, m_i\rangle x_i + \Omega_i x_i$,
    $m_i = \sum_j K_{ij} x_j$: equal to the Lohe field on the sphere and orthogonal
    to $x_i$ everywhere, so $\|x_i\|$ is an exact invariant (with the literal formula
    a norm error grows like $e^{2\|m_i\| t}$ where $x_i$ opposes $m_i$). Norms then
    stay 1 up to the solver's local error, accumulated over time and faster with
    $\|\Omega_i\|$: hence defaults tighter than Kuramoto's `rtol=1e-6, atol=1e-8`,
    where $\max_i |\|x_i\| - 1|$ reached 4.3e-5 to 5.8e-5 (about 300 steps) against
    3.1e-7 to 4.4e-7 (about 850) at the defaults ($n = 60$, $d = 3$, random skew
    $\Omega_i$, $K \in \{0, 1\}$, $t_1 = 20$; `tests/test_simulate.py`).

    `method="geodesic"`, for norms that must hold to rounding, is the first-order
    Lie-Euler scheme $x_{k+1} = \exp_{x_k}(\Delta t\, P_{x_k} f(x_k))$
    ([`syncattn.sphere.exp_map`][], [`syncattn.sphere.project_tangent`][]): it stays on
    the sphere to rounding with no projection step, where project-after-Euler drifts.
    Each interval between save times (and from the last one to $t_1$) takes the same
    number of equal steps of at most `dt0` (default 1e-2), so `t1` and `saveat` must
    be concrete. Both methods are jit-able, vmap-able over `x0` and differentiable
    (diffrax's checkpointed adjoint; `lax.scan`).

    **Noise.** With `noise` $= \sigma > 0$ and a PRNG `key` (`method="diffrax"` only),
    the Stratonovich SDE with noise projected on each tangent space,

    $$dx_i = f_i(x)\,dt + \sigma\,(I - x_i x_i^\top)\circ dW_i,$$

    $f$ the Lohe field above, $W_i$ independent Brownian motions in $\mathbb{R}^d$ (Itô
    drift $f_i - \frac{(d-1)\sigma^2}{2}x_i$, [`syncattn.lohe.ito_drift`][]), is solved
    as the noisy [`syncattn.kuramoto.simulate`][] (solvers, constant steps of `dt0`;
    $\sigma = 0$ is the ODE bit for bit), the noise through $P_x = I - xx^\top/\|x\|^2$
    (orthogonal to $x$ everywhere), every step ending with $x_i \mapsto x_i/\|x_i\|$
    (Heun alone adds $\frac14\|\sigma(P_{x} - P_{\tilde x})\Delta W\|^2$ per step, an
    outward norm drift of order $\sigma^4 d^2 t_1\,dt$: 1.4e-2 at $\sigma = 0.5$,
    $d = 3$, $t_1 = 20$, $dt = 0.01$): saved states at step times are unit vectors to
    rounding, between steps interpolated (`tests/lohe/test_noise.py`). Measured orders
    against a same-path reference (`benchmarks/sde_convergence.py`): strong 0.56, weak
    0.91 (the non-commutative noise's 1/2 and 1).

    Args:
        x0: unit vectors, shape `(*batch, n, d)`.
        Omega: skew-symmetric `(n, d, d)` or `None`.
        coupling: scalar $K$ (all-to-all $K/n$) or `(n, n)` matrix.
        t1: final time $\ge 0$.
        saveat: `None` (save at `t1` only), an int $S \ge 2$ ($S$ equally spaced
            times in $[0, t_1]$), or non-decreasing times in $[0, t_1]$.
        solver: `"dopri5"`, `"tsit5"`, `"dopri8"`, `"bosh3"`, `"heun"`, `"euler"` or a
            diffrax solver instance (`method="diffrax"`).
        rtol, atol: tolerances (> 0); `rtol=None` with `dt0` gives constant steps.
        dt0: first step (adaptive), the step (constant steps), or the largest step
            (geodesic); $> 0$.
        max_steps: step budget of the diffrax solve.
        method: `"diffrax"` or `"geodesic"`.
        dt: old name of `dt0`.
        noise: $\sigma \ge 0$, a scalar; `None` or 0: no noise.
        key: PRNG key of the Brownian path (keyword; required when $\sigma > 0$).

    Returns:
        [`syncattn.lohe.Solution`][]: `ts (S,)`, `states (S, *batch, n, d)` (also `x`),
        `order (S, *batch, d)` = $Z$, `r (S, *batch)` = $\rho$ (also `rho`),
        `final (*batch, n, d)`, `num_steps`.

    Raises:
        ValueError: as [`syncattn.lohe.vector_field`][]; `x0` off the unit sphere; bad
            `t1`, `saveat`, `method`, `dt0`, `rtol`, `atol`, `max_steps`, `noise`.

    Example:
        >>> x0 = sphere.sample_uniform(jax.random.key(0), (8,), 3)
        >>> simulate(x0, None, 1.0, 10.0, saveat=5).rho[-1]  # ~1: synchronised
    """
    x0, Omega, K, dt0 = _checked_states(x0, Omega, coupling, dt0, dt)
    t1, t1_np, ts, ts_np = _checked_times(t1, saveat, method, x0.dtype)
    steps = _stepping(method, solver, rtol, atol, dt0, max_steps, noise, key, x0.dtype)
    if steps is None:
        return _geodesic_solution(x0, Omega, K, t1_np, ts, ts_np, dt0)
    return driver.solve(_ode_rhs, _order, x0, (Omega, K), t1, ts, *steps)


def _checked_states(x0, Omega, coupling, dt0, dt):
    """`(x0, Omega, K, dt0)`: the field's arguments checked as in `vector_field`, `x0`
    on the unit sphere (when concrete), and `dt` (the old name) folded into `dt0`."""
    x0, Omega, K = _check_field_args(x0, Omega, coupling, "x0")
    if dt is not None:
        if dt0 is not None:
            raise ValueError("pass dt0 only (dt is its old name), not both.")
        dt0 = dt
    if is_concrete(x0):
        dev = np.max(np.abs(np.linalg.norm(np.asarray(x0, np.float64), axis=-1) - 1))
        if dev > eps_for(x0.dtype):
            raise ValueError(
                f"x0 must lie on the unit sphere (||x0_i|| = 1); max deviation "
                f"{dev:.3g}. Perhaps apply sphere.normalize first?"
            )
    return x0, Omega, K, dt0


def _checked_times(t1, saveat, method, dtype):
    """`(t1, t1_np, ts, ts_np)`: the final time and the save times in `dtype` (and as
    NumPy values when concrete); `method` is checked in between."""
    t1, t1_np = driver.check_t1(t1, dtype)
    if method not in ("diffrax", "geodesic"):
        raise ValueError(f"method must be 'diffrax' or 'geodesic'; got {method!r}.")
    ts, ts_np = driver.save_times(saveat, t1, t1_np, dtype)
    return t1, t1_np, ts, ts_np


def _stepping(method, solver, rtol, atol, dt0, max_steps, noise, key, dtype):
    """The last arguments of `driver.solve` (`solver, controller, dt0, max_steps,
    save_states, noise`): with noise, its Stratonovich solver and constant step;
    without, the checked ODE solver (`None`: Dopri5) and its controller. `None` for
    the deterministic `method="geodesic"`."""
    noisy, sde_solver, sde_dt0 = driver.check_noise(
        noise,
        key,
        solver=solver,
        dt0=dt0,
        max_steps=max_steps,
        dtype=dtype,
        project=driver.project_sphere,
        retract=driver.retract_sphere,
    )
    if noisy is not None and method != "diffrax":
        raise ValueError(
            "noise needs method='diffrax' (the geodesic scheme is deterministic)."
        )
    if noisy is not None:
        return sde_solver, None, sde_dt0, int(max_steps), True, noisy
    if method != "diffrax":
        return None
    solver, controller = driver.check_options(
        solver="dopri5" if solver is None else solver,
        rtol=rtol,
        atol=atol,
        dt0=dt0,
        max_steps=max_steps,
    )
    return solver, controller, dt0, int(max_steps), True, None


def _geodesic_solution(x0, Omega, K, t1_np, ts, ts_np, dt0) -> Solution:
    """The `method="geodesic"` solve: per save interval (and one more to `t1` when the
    last save time is earlier) the same number of equal Lie-Euler steps, of at most
    `dt0` (default 1e-2)."""
    dt0 = check_scalar_range(dt0, "dt0", low=0.0, low_inclusive=False)
    if ts_np is None or t1_np is None:
        raise ValueError(
            "method='geodesic' needs concrete t1 and saveat (they fix the number "
            "of steps); under jit, close over them instead of passing them in."
        )
    # one extra interval to t1 when the last save time is earlier
    tail = t1_np > ts_np[-1]
    gaps = np.diff(np.append(ts_np, t1_np) if tail else ts_np, prepend=0.0)
    m = max(1, math.ceil(float(gaps.max()) / (1e-2 if dt0 is None else dt0) - 1e-9))
    xs = _geodesic(x0, Omega, K, jnp.asarray(gaps / m, dtype=x0.dtype), m)
    final = xs[-1]
    xs = xs[:-1] if tail else xs
    Z, r = _order(xs)
    return Solution(ts, xs, Z, r, final, jnp.asarray(m * gaps.size))

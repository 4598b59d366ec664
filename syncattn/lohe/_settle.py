r"""The one integrator of the fixed-query flow $\dot z = (I - z z^\top) h$."""

from __future__ import annotations

import diffrax
import equinox as eqx
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
from .._numerics import eps_for, safe_norm
from .._simulate import Solution
from .._types import Array, ArrayLike, Float, Int, PRNGKeyArray, ScalarLike


def _field(z, h, Omega):
    # |z|^2 h - <z, h> z (+ Omega z): the fixed-query field (with the query's own
    # frequency), orthogonal to z everywhere (Omega skew), so |z| is an exact invariant
    dz = jnp.sum(z * z, -1, keepdims=True) * h - jnp.sum(z * h, -1, keepdims=True) * z
    return dz if Omega is None else dz + jnp.einsum("...de,...e->...d", Omega, z)


def _drift(t, z, args):  # the noisy path's drift; the batch is one SDE state
    return _field(z, *args)


def _unit(z):
    return z, safe_norm(z)


def _rhs(t, y, args):
    # y = [z, tau]: z' = |z|^2 h - <z, h> z (the fixed-query field on the sphere,
    # orthogonal to z everywhere, so |z| is an exact invariant), tau' = 1 (the clock
    # that records the stopping time)
    h, _, Omega = args
    dz = _field(y[..., :-1], h, Omega)
    return jnp.concatenate([dz, jnp.ones_like(y[..., -1:])], -1)


def _order(y):
    z = y[..., :-1]
    return z, safe_norm(z)


def _stop(t, y, args, **kwargs):  # crosses 0 when the angle to h falls to delta
    h, cos_delta, _ = args
    return jnp.sum(y[..., :-1] * h, -1) - cos_delta * safe_norm(h)


def _setup(z0, h, t1, saveat, solver, rtol, atol, dt0, max_steps):
    z0, h = as_float(z0, "z0"), as_float(h, "h")
    for a, name in ((z0, "z0"), (h, "h")):
        check_nonempty(a, name)
        check_finite(a, name)
    try:
        if z0.ndim < 1 or z0.shape[-1] < 2:
            raise ValueError
        if np.broadcast_shapes(z0.shape, h.shape) != z0.shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"z0 must have shape (*batch, d), d >= 2, and h broadcast to it; "
            f"got {z0.shape} and {h.shape}."
        ) from None
    dtype = jnp.result_type(z0.dtype, h.dtype)
    z0, h = z0.astype(dtype), jnp.broadcast_to(h, z0.shape).astype(dtype)
    if is_concrete(z0):
        dev = np.max(np.abs(np.linalg.norm(np.asarray(z0, np.float64), axis=-1) - 1))
        if dev > eps_for(dtype):
            raise ValueError(
                f"z0 must lie on the unit sphere; max | ||z0|| - 1 | = {dev:.3g}. "
                "Perhaps apply sphere.normalize first?"
            )
    t1, t1_np = driver.check_t1(t1, dtype)
    ts, _ = driver.save_times(saveat, t1, t1_np, dtype)
    solver, controller = driver.check_options(
        solver=solver, rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps
    )
    return z0, h, t1, ts, solver, controller


@eqx.filter_jit
def _integrate(
    z0, h, c, t1, ts, solver, controller, dt0, max_steps, event, save, Omega=None
):
    """vmap over the flattened batch of one diffrax solve each, through the driver."""
    d = z0.shape[-1]
    y0 = jnp.concatenate([z0, jnp.zeros_like(z0[..., :1])], -1).reshape(-1, d + 1)

    def one(y0_i, h_i, O_i):
        return driver.solve(
            _rhs,
            _order,
            y0_i,
            (h_i, c, O_i),
            t1,
            ts,
            solver,
            controller,
            dt0,
            max_steps,
            save,
            event=event,
        )

    O = None if Omega is None else Omega.reshape(-1, d, d)
    return jax.vmap(one)(y0, h.reshape(-1, d), O)


def settle(
    z0: Float[ArrayLike, "*batch d"],
    h: Float[ArrayLike, "*#batch d"],
    t1: ScalarLike,
    *,
    saveat: int | Float[ArrayLike, " S"] | None = None,
    solver: str | diffrax.AbstractSolver = "dopri5",
    rtol: float | None = 1e-8,
    atol: float = 1e-10,
    dt0: float | None = None,
    max_steps: int = 16_384,
    noise: ScalarLike | None = None,
    key: PRNGKeyArray | None = None,
    Omega: Float[ArrayLike, "*#batch d d"] | None = None,
) -> Solution:
    r"""Integrate the fixed-query flow of every query from $z(0) = z_0$ to $t_1$.

    $$\dot z = (I - z z^\top)\, h, \qquad
      \tan\frac{\varphi(t)}2 = \tan\frac{\varphi_0}2\, e^{-\|h\|t},\quad
      \varphi = \angle(z, h)$$

    $z_0$ = `z0`, $h$ = `h` (frozen drive, e.g. [`syncattn.lohe.drive`][]), $t_1$ =
    `t1`. The closed form is [`syncattn.lohe.exact_angle`][]; this is the numerical
    solve, through the simulation driver of [`syncattn.lohe.simulate`][]. Each query is
    its own diffrax solve (`vmap`), so it keeps its own adaptive steps: one query's
    drive never changes another's result. The field integrated is the extension
    $\|z\|^2 h - \langle z, h\rangle z$, equal on the sphere and orthogonal to $z$, so
    $\|z\|$ is invariant. Jit-able, vmap-able and differentiable in `z0` and `h`
    (diffrax's checkpointed adjoint). The first-passage time to a given angle is
    [`syncattn.lohe.settle_time`][] (same solve, with an event).

    **Frequency disorder.** With `Omega` (skew-symmetric, shape `(*batch, d, d)` or
    broadcastable), each query has its own frequency:
    $\dot z = \Omega z + (I - zz^\top)h$ (the extension adds $\Omega z$, orthogonal to
    $z$, so $\|z\|$ stays invariant). Its locked state is
    [`syncattn.lohe.locked_state`][]; with noise, $\Omega z$ joins the drift.

    **Noise.** With `noise` $= \sigma > 0$ and a PRNG `key`, the Stratonovich SDE with
    tangent-projected noise (the library's convention, [`syncattn.lohe.simulate`][])

    $$dz = (I - zz^\top)\,h\,dt + \sigma\,(I - zz^\top)\circ dW_t,$$

    whose stationary law is von Mises-Fisher with mean direction $h/\|h\|$ and
    $\kappa = 2\|h\|/\sigma^2$ ([`syncattn.lohe.vmf_moments`][]), is solved as the noisy
    [`syncattn.lohe.simulate`][] (same solvers, $\lceil t_1/dt_0\rceil$ constant steps
    of `dt0`, default 1e-2, the retraction $z \mapsto z/\|z\|$ after every step; a
    concrete $\sigma = 0$ is the ODE bit for bit), on one `diffrax.VirtualBrownianTree`
    of shape `(*batch, d)` from `key`: independent paths for the queries, the same key
    and batch shape give the same paths, eagerly and under `jit`.

    The retraction biases the stationary law towards $h/\|h\|$ at finite steps:
    measured at $d = 3$, $\sigma = 1$ (issue 19's robustness experiment, Monte Carlo
    of the resultant), the sampled concentration exceeds $\kappa$ by about 16 % at
    $dt_0 = 0.0625$ for $\|h\| = 0.5$ and 2 (34 % at $\|h\| = 8$), and by about 7 %
    at $dt_0/4$ for $\|h\| = 2$; the bias shrinks with $dt_0$. Choose $dt_0 \ll
    1/\|h\|$ and $dt_0 \ll 1/((d-1)\sigma^2)$ where the stationary law matters.

    Args:
        z0: unit starts, shape `(*batch, d)`, $d \ge 2$.
        h: drives, broadcastable to `z0`.
        t1: horizon $t_1 \ge 0$ (the paper's $T$).
        saveat: `None` ($t_1$ only), an int $S \ge 2$ or times in $[0, t_1]$.
        solver, rtol, atol, dt0, max_steps: as [`syncattn.lohe.simulate`][].
        noise: $\sigma \ge 0$, a scalar; `None` or 0: the ODE.
        key: PRNG key of the Brownian path (keyword; required when $\sigma > 0$).
        Omega: skew-symmetric frequencies, broadcastable to `(*batch, d, d)`, or
            `None` (0).

    Returns:
        [`syncattn.lohe.Solution`][]: `ts (S,)`, `states (S, *batch, d)`, `order` =
        `states` (one oscillator: $Z = z$), `r (S, *batch)` = $\|z\|$, `final
        (*batch, d)`, `num_steps` (the most steps any query took).

    Raises:
        ValueError: shapes, $d < 2$, NaN/inf, `z0` off the sphere, `t1 < 0`, bad
            solver options; `noise` negative, NaN or not a scalar, `noise > 0`
            without `key`, a non-Stratonovich solver with noise, `max_steps` below
            the noisy path's $\lceil t_1/dt_0\rceil$ steps; `Omega` of the wrong
            shape, NaN/inf or not skew-symmetric.
        TypeError: `key` not a PRNG key.

    Example:
        >>> settle(jnp.array([0.0, 1.0]), jnp.array([2.0, 0.0]), 30.0).final  # ~[1, 0]
    """
    if noise is not None:
        sde = _noisy(z0, h, t1, saveat, solver, dt0, max_steps, noise, key, Omega)
        if sde is not None:
            return sde
        solver = "dopri5" if solver is None else solver
    return _ode_solution(z0, h, t1, saveat, solver, rtol, atol, dt0, max_steps, Omega)


def _ode_solution(z0, h, t1, saveat, solver, rtol, atol, dt0, max_steps, Omega):
    """The deterministic path of `settle`: one diffrax solve per query (`_integrate`),
    the results put back in the batch shape, time first."""
    z0, h, t1, ts, solver, controller = _setup(
        z0, h, t1, saveat, solver, rtol, atol, dt0, max_steps
    )
    Omega = _check_omega(Omega, z0)
    batch, d, S = z0.shape[:-1], z0.shape[-1], ts.shape[0]
    c = jnp.ones((), z0.dtype)  # unused without an event
    sol = _integrate(
        z0, h, c, t1, ts, solver, controller, dt0, int(max_steps), None, True, Omega
    )
    states = jnp.moveaxis(sol.states[..., :-1], 0, 1).reshape(S, *batch, d)
    return Solution(
        ts,
        states,
        states,
        jnp.moveaxis(sol.r, 0, 1).reshape(S, *batch),
        sol.final[..., :-1].reshape(*batch, d),
        jnp.max(sol.num_steps),
    )


def _check_omega(Omega, z0):
    """`Omega` broadcast to `(*batch, d, d)`: skew-symmetric (checked when concrete), or None."""
    if Omega is None:
        return None
    Omega = as_float(Omega, "Omega")
    check_finite(Omega, "Omega")
    d = z0.shape[-1]
    shape = z0.shape + (d,)
    try:
        if Omega.ndim < 2 or np.broadcast_shapes(Omega.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise ValueError(
            f"Omega must broadcast to (*batch, d, d) = {shape}; got {Omega.shape}."
        ) from None
    if is_concrete(Omega):
        O = np.asarray(Omega, np.float64)
        asym = float(np.max(np.abs(O + np.swapaxes(O, -1, -2)), initial=0.0))
        if asym > eps_for(Omega.dtype) * max(
            1.0, float(np.max(np.abs(O), initial=0.0))
        ):
            raise ValueError(
                "Omega must be skew-symmetric (Omega^T = -Omega); got "
                f"max|Omega + Omega^T| = {asym:.3g}. Perhaps use (A - A^T) / 2?"
            )
    return jnp.broadcast_to(Omega, shape).astype(z0.dtype)


def _noisy(
    z0, h, t1, saveat, solver, dt0, max_steps, noise, key, Omega
) -> Solution | None:
    """The SDE path of `settle`, or None when `noise` is a concrete 0 (the ODE)."""
    sde_solver = None if solver is None or solver == "dopri5" else solver
    z0c, hc, t1c, ts, _, _ = _setup(
        z0, h, t1, saveat, "dopri5", 1e-8, 1e-10, None, max_steps
    )
    Omega = _check_omega(Omega, z0c)
    noisy, sde_solver, sde_dt0 = driver.check_noise(
        noise,
        key,
        solver=sde_solver,
        dt0=dt0,
        max_steps=max_steps,
        dtype=z0c.dtype,
        project=driver.project_sphere,
        retract=driver.retract_sphere,
    )
    if noisy is None:
        return None
    if is_concrete(t1):
        need = int(np.ceil(float(np.asarray(t1)) / sde_dt0 - 1e-9))
        if need > int(max_steps):
            raise ValueError(
                f"max_steps={int(max_steps)} is below the {need} constant steps of "
                f"dt0={sde_dt0} that the noisy path takes to t1; raise max_steps."
            )
    return driver.solve(
        _drift,
        _unit,
        z0c,
        (hc, Omega),
        t1c,
        ts,
        sde_solver,
        None,
        sde_dt0,
        int(max_steps),
        True,
        noisy,
    )


def settle_time(
    z0: Float[ArrayLike, "*batch d"],
    h: Float[ArrayLike, "*#batch d"],
    delta: ScalarLike,
    t1: ScalarLike,
    *,
    solver: str | diffrax.AbstractSolver = "dopri5",
    rtol: float | None = 1e-8,
    atol: float = 1e-10,
    dt0: float | None = None,
    max_steps: int = 16_384,
) -> tuple[Float[Array, "*batch"], Float[Array, "*batch d"], Int[Array, "*batch"]]:
    r"""First time the fixed-query flow brings each query within angle $\delta$ of $h$.

    $$\tau = \inf\{t \in [0, t_1] : \angle(z(t), h) \le \delta\},\qquad
      \dot z = (I - z z^\top) h$$

    measured: the solve of [`syncattn.lohe.settle`][] with a diffrax event on
    $\langle z, h\rangle - \cos\delta\,\|h\|$ (root located by Newton to
    $\varepsilon^{3/2}$). Its closed form is [`syncattn.lohe.time_to_converge`][]. A
    query already within $\delta$ at $t = 0$ is not detected (the event fires on a
    crossing): compare $\angle(z_0, h)$ first.

    Args:
        z0: unit starts, shape `(*batch, d)`.
        h: drives, broadcastable to `z0`.
        delta: target angle $\delta \in (0, \pi)$.
        t1: horizon $t_1 \ge 0$.
        solver, rtol, atol, dt0, max_steps: as [`syncattn.lohe.simulate`][].

    Returns:
        `(tau, z_tau, steps)`: $\tau$ `(*batch,)`, $+\infty$ where the angle stayed
        above $\delta$ up to $t_1$; $z(\min(\tau, t_1))$ `(*batch, d)`; and the
        accepted solver steps of each query `(*batch,)`.

    Raises:
        ValueError: as [`syncattn.lohe.settle`][]; $\delta \notin (0, \pi)$.

    Example:
        >>> settle_time(jnp.array([0.0, 1.0]), jnp.array([1.0, 0.0]), 0.1, 10.0)[0]
    """
    import optimistix as optx

    z0, h, t1, ts, solver, controller = _setup(
        z0, h, t1, None, solver, rtol, atol, dt0, max_steps
    )
    delta = check_scalar_range(
        delta, "delta", low=0.0, high=np.pi, low_inclusive=False, high_inclusive=False
    )
    tol = float(eps_for(z0.dtype)) ** 1.5  # 1.8e-12 in float64
    cos_delta = jnp.cos(jnp.asarray(delta, z0.dtype))
    event = diffrax.Event(_stop, optx.Newton(rtol=tol, atol=tol))
    sol = _integrate(
        z0, h, cos_delta, t1, ts, solver, controller, dt0, int(max_steps), event, False
    )
    batch, d = z0.shape[:-1], z0.shape[-1]
    y = sol.final.reshape(*batch, d + 1)
    z, tau = y[..., :-1], y[..., -1]
    # the event stopped the solve before the horizon; the clock tau is integrated, so
    # a solve that ran to t1 can read t1 less a few rounding errors
    slack = 1024 * float(jnp.finfo(z0.dtype).eps)
    hit = tau < t1 * (1 - slack)
    return jnp.where(hit, tau, jnp.inf), z, sol.num_steps.reshape(batch)

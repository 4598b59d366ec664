r"""Integration of the Kuramoto flow (through the shared driver `syncattn._simulate`)."""

from __future__ import annotations

import diffrax
import jax.numpy as jnp
from jax.experimental import sparse as jsparse

from .. import _simulate as driver
from .._numerics import mean_field, safe_norm
from .._simulate import Solution
from .._types import ArrayLike, Float, PRNGKeyArray, ScalarLike
from ..geometry import Torus
from ._coupling import (
    EdgeList,
    _check_coupling,
    _check_omega,
    _check_theta,
    _kind,
)
from ._daido import _harmonic_drift, _lag_parts
from ._field import _daido_harmonics


def _rhs(t, theta, args):  # module level: the jit cache hits across calls
    # the Sakaguchi flow is the M = 1 harmonic flow with a_1 cos alpha_1 = cos alpha,
    # a_1 sin alpha_1 = sin alpha: one right-hand side serves both
    omega, K, cal, sal = args
    return omega + _harmonic_drift(theta, K, _kind(K), cal, sal)


def _order(theta):
    """Order parameter $Z = R e^{i\\psi}$ and $R$: the mean of the torus geometry's
    embedding $(\\cos\\theta_j, \\sin\\theta_j)$ over the oscillators."""
    xy = mean_field(Torus().embed(theta), -2)
    return jnp.asarray(xy[..., 0] + 1j * xy[..., 1]), safe_norm(xy)


def simulate(
    theta0: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    t1: ScalarLike,
    *,
    saveat: int | Float[ArrayLike, " S"] | None = 101,
    solver: str | diffrax.AbstractSolver | None = "dopri5",
    rtol: float | None = 1e-6,
    atol: float = 1e-8,
    dt0: float | None = None,
    max_steps: int = 2**20,
    frustration: float = 0.0,
    save_phases: bool = True,
    noise: ScalarLike | None = None,
    key: PRNGKeyArray | None = None,
    harmonics=None,
) -> Solution:
    r"""Integrate the Kuramoto flow with diffrax (adaptive Dormand-Prince 5(4) by default).

    $$\dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i - \alpha),\qquad
      \theta(0) = \theta_0,\ t\in[0, t_1]$$

    and records $Z(t) = R(t) e^{i\psi(t)} = \frac1N\sum_j e^{i\theta_j(t)}$
    ([`syncattn.torus.order_parameter`][]) at the save times. Jit-able (static `saveat`,
    `solver`, `max_steps`), differentiable (diffrax's checkpointed adjoint), vmap-able
    over `theta0`; leading batch axes of `theta0` are solved together (one step size).

    Shared with [`syncattn.lohe.simulate`][] (one driver): the argument set, the save-time
    rule, the [`syncattn.kuramoto.Solution`][], `saveat=101`, `max_steps=2**20`,
    `dt0=None` and Dopri5 (with heavy-tailed frequencies it needed 1.5-2.4x fewer steps
    than Tsit5 at equal accuracy: `benchmarks/flows.py`, docs/benchmarks.md; any diffrax
    solver can be passed). `rtol=1e-6, atol=1e-8` are looser than Lohe's 1e-8, 1e-10
    (which keep $\|x_i\| = 1$): phases carry no constraint, and in that benchmark
    ($N$ = 100 to $10^5$) the time-averaged $R$ was within 2e-3 of a tight reference
    already at `rtol` = 1e-3 to 3e-5 (a margin of 30x or more).

    **Harmonics (Kuramoto-Daido).** With `harmonics` (complex $c_m$ or a
    [`syncattn.kuramoto.HarmonicCoupling`][]) the flow is
    $\dot\theta_i = \omega_i + \sum_j K_{ij}H(\theta_j - \theta_i)$ with
    $H(\varphi) = \sum_m a_m\sin(m\varphi - \alpha_m)$ ([`syncattn.kuramoto.daido_coupling`][]);
    `frustration` must then be 0; `jax.grad` reaches the coefficients (traced arguments).

    **Noise.** With `noise` $= \sigma > 0$ and a PRNG `key`: the SDE
    $d\theta_i = (\text{the drift above})\,dt + \sigma\, dW_i$ (noise on the tangent
    space, the library's convention; additive, so Itô and Stratonovich coincide and the
    frequencies are not shifted), by Heun (or `"midpoint"`, `"reversible_heun"`, a
    `diffrax.AbstractStratonovichSolver`) in constant steps of `dt0` (default 1e-2; no
    tolerances) on a `diffrax.VirtualBrownianTree` of resolution `dt0/2` from `key`: the
    same key, the same path, eagerly and under `jit` (there to rounding), at every step
    $t_1/2^k$. Measured strong order 1.00, weak 1.73 (`benchmarks/sde_convergence.py`);
    $\sigma = 0$ (concrete) is the deterministic path bit for bit. Theory:
    [`syncattn.kuramoto.noisy_order_parameter`][],
    [`syncattn.kuramoto.noisy_critical_coupling`][].

    Args:
        theta0: initial phases `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta0`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        t1: final time $t_1 \ge 0$.
        saveat: `None` ($t_1$ only), an int $S \ge 2$ (equally spaced times in
            $[0, t_1]$), or a 1-D array of non-decreasing times in $[0, t_1]$.
        solver: `"dopri5"`, `"tsit5"`, `"dopri8"`, `"bosh3"`, `"heun"`, `"euler"` or a
            diffrax solver instance.
        rtol, atol: adaptive step tolerances (> 0); `rtol=None` with `dt0`: constant steps.
        dt0: initial (or, for constant steps, the) step size; `None` = automatic.
        max_steps: step budget (diffrax raises if exceeded).
        frustration: Sakaguchi phase lag $\alpha$.
        save_phases: store the phases at every save time (memory $S \cdot N$); set
            `False` for very large $N$ to keep only $Z$, $R$ and the final phases.
        noise: $\sigma \ge 0$, a scalar; `None` or 0: no noise.
        key: PRNG key of the Brownian path (keyword; required when $\sigma > 0$).
        harmonics: `None` (the sine) or the coupling function's harmonics.

    Returns:
        A [`syncattn.kuramoto.Solution`][]: `ts (S,)`, `states (S, *batch, N)` (also
        `theta`), `order (S, *batch)` complex, `r (S, *batch)`, `psi`,
        `final (*batch, N)` (also `theta_final`), `num_steps`.

    Raises:
        ValueError: negative `t1`, non-positive tolerances, unknown solver, shape errors;
            negative or NaN `noise`, `noise > 0` without `key`, a non-Stratonovich
            solver with noise.

    Example:
        >>> sol = simulate(jnp.array([0.0, 1.0]), 0.0, 4.0, 5.0, saveat=3)
        >>> float(sol.r[-1]) > 0.99
        True
    """
    theta0, omega, K = _checked_inputs(theta0, omega, coupling)
    t1, t1_np = driver.check_t1(t1, theta0.dtype)
    noisy, solver, controller, dt0 = _stepping(
        solver, rtol, atol, dt0, max_steps, noise, key, theta0.dtype
    )
    ts, _ = driver.save_times(saveat, t1, t1_np, theta0.dtype)
    args = _flow_args(omega, K, frustration, harmonics, theta0)
    options = (t1, ts, solver, controller, dt0, int(max_steps), bool(save_phases))
    return driver.solve(_rhs, _order, theta0, args, *options, noisy)


def _checked_inputs(theta0, omega, coupling):
    """`(theta0, omega, K)` checked: phases `(*batch, N)`, frequencies broadcastable to
    them, a coupling of `N` oscillators and that batch (the flows' common first step)."""
    theta0 = _check_theta(theta0, "theta0")
    omega = _check_omega(omega, theta0, "theta0")
    return theta0, omega, _check_coupling(coupling, theta0.shape[-1], theta0.shape[:-1])


def _stepping(solver, rtol, atol, dt0, max_steps, noise, key, dtype):
    """`(noise or None, solver, step controller or None, dt0)`: the checked noise and,
    with noise, its Stratonovich solver and constant step; without, the checked ODE
    solver and its controller."""
    noisy, sde_solver, sde_dt0 = driver.check_noise(
        noise,
        key,
        solver=solver,
        dt0=dt0,
        max_steps=max_steps,
        dtype=dtype,
        project=driver.project_none,
    )
    if noisy is not None:
        return noisy, sde_solver, None, sde_dt0
    return None, *_ode_options(solver, rtol, atol, dt0, max_steps), dt0


def _ode_options(solver, rtol, atol, dt0, max_steps):
    """`(solver, step controller)` checked (`solver=None`: Dopri5)."""
    return driver.check_options(
        solver="dopri5" if solver is None else solver,
        rtol=rtol,
        atol=atol,
        dt0=dt0,
        max_steps=max_steps,
    )


def _flow_args(omega, K, frustration, harmonics, theta0) -> tuple:
    """`_rhs`'s arguments in `theta0`'s dtype: `(omega, K, a_m cos alpha_m, a_m sin
    alpha_m)`, the sine (`harmonics=None`) as the one harmonic of lag `frustration`."""
    dtype = theta0.dtype
    omega, K = _in_dtype(omega, K, theta0)
    if harmonics is None:
        alpha = jnp.asarray(frustration, dtype)[None]
        return (omega, K, jnp.cos(alpha), jnp.sin(alpha))
    return (omega, K, *_lag_parts(_daido_harmonics(harmonics, frustration), dtype))


def _in_dtype(omega, K, theta0):
    """`(omega, K)` in `theta0`'s dtype, `omega` broadcast to `theta0` unless a scalar (a
    sparse coupling keeps its own)."""
    dtype = theta0.dtype
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(dtype)
    omega = (
        jnp.broadcast_to(omega.astype(dtype), theta0.shape)
        if jnp.ndim(omega)
        else omega.astype(dtype)
    )
    return omega, K

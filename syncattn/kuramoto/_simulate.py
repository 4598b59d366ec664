r"""Integration of the Kuramoto flow (through the shared driver `syncattn._simulate`)."""

from __future__ import annotations

import diffrax
import jax.numpy as jnp
from jax.experimental import sparse as jsparse

from .. import _simulate as driver
from .._numerics import safe_norm
from .._simulate import Solution
from .._types import ArrayLike, Float, PRNGKeyArray, ScalarLike
from ..torus import _mean_xy
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
    """Order parameter $Z = R e^{i\\psi}$ and $R$, via the torus core."""
    x, y = _mean_xy(theta, None, -1)
    return jnp.asarray(x + 1j * y), safe_norm(jnp.stack([x, y], axis=-1))


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
    ([`syncattn.torus.order_parameter`][]) at the save times.

    The argument set, the save-time rule and the [`syncattn.kuramoto.Solution`][] are
    those of [`syncattn.lohe.simulate`][] (one driver serves both). Defaults that
    differ, and why:

    * `rtol=1e-6, atol=1e-8` (Lohe: 1e-8, 1e-10). Phases carry no constraint, so the
      tolerance only sets the accuracy of $\theta$ and $R$. In `benchmarks/flows.py`
      (Lorentzian frequencies, $N$ = 100 to $10^5$) the time-averaged $R$ was within
      2e-3 of a tight reference already at `rtol` = 1e-3 to 3e-5
      (docs/benchmarks.md), so 1e-6 leaves a margin of 30x or more. The Lohe flow
      needs tighter ones to keep $\|x_i\| = 1$ (measured in
      [`syncattn.lohe.simulate`][]).
    * `saveat=101`, `max_steps=2**20`, Dopri5 and `dt0=None` are shared with Lohe.
    * Why Dopri5: with heavy-tailed (Lorentzian) frequencies the fastest oscillators
      dominate the local error; measured in `benchmarks/flows.py`, Dopri5 reached the
      reference order parameter with 1.5-2.4x fewer steps than Tsit5 at equal
      accuracy (docs/benchmarks.md). Any diffrax solver can be passed.

    **Harmonics (Kuramoto-Daido).** With `harmonics` (a
    [`syncattn.kuramoto.HarmonicCoupling`][] or complex $c_m$) the flow is
    $\dot\theta_i = \omega_i + \sum_j K_{ij}H(\theta_j - \theta_i)$,
    $H(\varphi) = \sum_m a_m\sin(m\varphi - \alpha_m)$
    ([`syncattn.kuramoto.daido_coupling`][]); `frustration` must then be 0. The
    coefficients are traced arguments: `jax.grad` reaches them.

    **Noise.** With `noise` $= \sigma > 0$ and a PRNG `key`, the Stratonovich SDE

    $$d\theta_i = \Bigl(\omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i - \alpha)\Bigr)dt
      + \sigma\, dW_i$$

    (the library's convention: noise on the tangent space, here additive, so Itô and
    Stratonovich coincide and the natural frequencies are not shifted) is solved with
    diffrax: Heun (or `solver` among `"heun"`, `"midpoint"`, `"reversible_heun"`, or a
    `diffrax.AbstractStratonovichSolver`), constant steps of `dt0` (default 1e-2; the
    tolerances are not used), the Brownian path a `diffrax.VirtualBrownianTree` of
    resolution `dt0/2` drawn from `key`. The same key gives the same path, eagerly and
    under `jit` (there to rounding), and the same path at every step size $t_1/2^k$. Additive noise:
    measured strong order 1.00, weak 1.73 (`benchmarks/sde_convergence.py`). $\sigma = 0$ (concrete)
    is the deterministic path bit for bit. Theory: [`syncattn.kuramoto.noisy_order_parameter`][],
    [`syncattn.kuramoto.noisy_critical_coupling`][].

    Jit-able (wrap in `jax.jit` with static `saveat`/`solver`/`max_steps`),
    differentiable (`jax.grad` through diffrax's checkpointed adjoint) and vmap-able
    over `theta0`; leading batch axes of `theta0` are also solved together (sharing
    one adaptive step size).

    Args:
        theta0: initial phases `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta0`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        t1: final time $t_1 \ge 0$.
        saveat: `None` ($t_1$ only), an int $S \ge 2$ (equally spaced times in
            $[0, t_1]$), or a 1-D array of non-decreasing times in $[0, t_1]$.
        solver: `"dopri5"`, `"tsit5"`, `"dopri8"`, `"bosh3"`, `"heun"`, `"euler"` or a
            diffrax solver instance.
        rtol, atol: adaptive step tolerances (> 0). `rtol=None` with `dt0` gives
            constant steps.
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
        `theta`), `order (S, *batch)` complex, `r (S, *batch)`, `psi`, `final (*batch, N)`
        (also `theta_final`), `num_steps`.

    Raises:
        ValueError: negative `t1`, non-positive tolerances, unknown solver, shape errors;
            negative or NaN `noise`, `noise > 0` without `key`, a non-Stratonovich
            solver with noise.

    Example:
        >>> sol = simulate(jnp.array([0.0, 1.0]), 0.0, 4.0, 5.0, saveat=3)
        >>> float(sol.r[-1]) > 0.99
        True
    """
    theta0 = _check_theta(theta0, "theta0")
    n = theta0.shape[-1]
    omega = _check_omega(omega, theta0, "theta0")
    K = _check_coupling(coupling, n, theta0.shape[:-1])
    dtype = theta0.dtype
    t1, t1_np = driver.check_t1(t1, dtype)
    noisy, sde_solver, sde_dt0 = driver.check_noise(
        noise, key, solver=solver, dt0=dt0, max_steps=max_steps, dtype=dtype,
        project=driver.project_none,
    )
    if noisy is None:
        solver, controller = driver.check_options(
            solver="dopri5" if solver is None else solver,
            rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps,
        )
    else:
        solver, controller, dt0 = sde_solver, None, sde_dt0
    ts, _ = driver.save_times(saveat, t1, t1_np, dtype)
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(dtype)
    omega = (
        jnp.broadcast_to(omega.astype(dtype), theta0.shape)
        if jnp.ndim(omega)
        else omega.astype(dtype)
    )
    if harmonics is None:
        alpha = jnp.asarray(frustration, dtype)[None]
        args = (omega, K, jnp.cos(alpha), jnp.sin(alpha))
    else:
        args = (omega, K, *_lag_parts(_daido_harmonics(harmonics, frustration), dtype))
    return driver.solve(
        _rhs, _order, theta0, args, t1, ts, solver, controller, dt0, int(max_steps),
        bool(save_phases), noisy,
    )

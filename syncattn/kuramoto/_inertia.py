r"""The Kuramoto flow with inertia (second order): vector field, energy, integration.

$$m\ddot\theta_i + \dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i - \alpha)$$

written as the first-order system $\dot\theta = v$, $m\dot v = \omega + F(\theta) - v$ on
$\mathbb{T}^N \times \mathbb{R}^N$ and integrated with diffrax through the shared driver
(`syncattn._simulate`). $m = 0$ is the first-order Kuramoto flow.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
from jax.experimental import sparse as jsparse

from .. import _simulate as driver
from .._checks import as_float, check_finite, check_scalar_range, is_concrete
from .._numerics import sincos
from .._types import Array, ArrayLike, Float, Inexact, Int, ScalarLike
from ._coupling import (
    EdgeList,
    _check_coupling,
    _check_omega,
    _check_theta,
    _kind,
    _listen,
    _shift,
)
from ._field import _energy
from ._simulate import (
    _checked_inputs,
    _in_dtype,
    _ode_options,
    _order,
    _rhs as _first_order_rhs,
)


class InertialSolution(eqx.Module):
    r"""Result of [`syncattn.kuramoto.inertial_simulate`][]: phases, velocities, order parameter.

    Attributes:
        ts: save times `(S,)`.
        theta: phases at `ts`, `(S, *batch, N)`, or `None` (`save_phases=False`).
        velocity: $v = \dot\theta$ at `ts`, `(S, *batch, N)`, or `None`.
        order: $Z = R e^{i\psi} = \frac1N\sum_j e^{i\theta_j}$ at `ts`, complex `(S, *batch)`.
        r: $R = |Z|$, `(S, *batch)`.
        final: phases at $t_1$, `(*batch, N)`.
        final_velocity: velocities at $t_1$, `(*batch, N)`.
        num_steps: accepted solver steps.
    """

    ts: Float[Array, " S"]
    theta: Float[Array, "S *batch n"] | None
    velocity: Float[Array, "S *batch n"] | None
    order: Inexact[Array, " S *batch"]
    r: Float[Array, " S *batch"]
    final: Float[Array, "*batch n"]
    final_velocity: Float[Array, "*batch n"]
    num_steps: Int[Array, ""]

    @property
    def states(self):
        """The phases (the name [`syncattn.kuramoto.Solution`][] uses)."""
        return self.theta

    @property
    def psi(self):
        r"""Mean phase $\psi = \arg Z$."""
        return jnp.angle(self.order)


def _check_mass(mass, allow_zero=True):
    m = as_float(mass, "mass")
    if m.ndim != 0:
        raise ValueError(f"mass must be a scalar m >= 0; got shape {m.shape}.")
    return check_scalar_range(m, "mass", low=0.0, low_inclusive=allow_zero)


def _drift(theta, K, alpha):
    s, c = sincos(theta)
    Kc, Ks = _listen(K, _kind(K), c, s)
    ca, sa = _shift(c, s, alpha)
    return ca * Ks - sa * Kc


def inertial_vector_field(
    theta: Float[ArrayLike, "*batch n"],
    velocity: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    mass: ScalarLike,
    *,
    frustration: float | Float[Array, ""] = 0.0,
) -> tuple[Float[Array, "*batch n"], Float[Array, "*batch n"]]:
    r"""The first-order form of the Kuramoto flow with inertia.

    $$\dot\theta_i = v_i,\qquad
      \dot v_i = \frac1m\Bigl(\omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i - \alpha) - v_i\Bigr)$$

    Symbols: $\theta$ = `theta`, $v$ = `velocity`, $\omega$ = `omega`, $K$ = `coupling`,
    $m$ = `mass`, $\alpha$ = `frustration`.

    Args:
        theta: phases `(*batch, N)`.
        velocity: $v = \dot\theta$, the shape of `theta`.
        omega: natural frequencies, broadcastable to `theta`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        mass: $m > 0$ (at $m = 0$ the flow is first order:
            [`syncattn.kuramoto.vector_field`][]).
        frustration: phase lag $\alpha$.

    Returns:
        $(\dot\theta, \dot v)$, each the shape and dtype of `theta`.

    Raises:
        ValueError: `mass` not a finite scalar $> 0$; `velocity` of another shape; the
            checks of [`syncattn.kuramoto.vector_field`][].

    Example:
        >>> inertial_vector_field(jnp.array([0.0, jnp.pi / 2]), jnp.zeros(2), 0.0, 2.0, 0.5)
        (Array([0., 0.], dtype=float32), Array([ 2., -2.], dtype=float32))
    """
    theta = _check_theta(theta)
    v = _check_velocity(velocity, theta, "velocity")
    omega = _check_omega(omega, theta, "theta")
    K = _check_coupling(coupling, theta.shape[-1], theta.shape[:-1])
    m = _check_mass(mass, allow_zero=False)
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(theta.dtype)
    F = jnp.broadcast_to(omega.astype(theta.dtype), theta.shape) + jnp.broadcast_to(
        _drift(theta, K, jnp.asarray(frustration, theta.dtype)), theta.shape
    )
    return v, (F - v) / jnp.asarray(m, theta.dtype)


def _check_velocity(velocity, theta, name):
    v = as_float(velocity, name)
    if v.shape != theta.shape:
        raise ValueError(
            f"{name} must have the phases' shape {theta.shape} (one velocity per "
            f"oscillator); got {v.shape}."
        )
    check_finite(v, name)
    return v.astype(theta.dtype)


def _initial_velocity(velocity0, theta0):
    """`velocity0` checked; `None`: at rest, $v_0 = 0$."""
    if velocity0 is None:
        return jnp.zeros_like(theta0)
    return _check_velocity(velocity0, theta0, "velocity0")


def inertial_energy(
    theta: Float[ArrayLike, "*batch n"],
    velocity: Float[ArrayLike, "*batch n"],
    coupling,
    mass: ScalarLike,
) -> Float[Array, "*batch"]:
    r"""Energy of the Kuramoto flow with inertia: non-increasing when $\omega = 0$, $K = K^\top$.

    $$E = \frac m2\sum_i v_i^2 + \frac12\sum_{i,j}K_{ij}\bigl(1 - \cos(\theta_j - \theta_i)\bigr),
      \qquad \frac{dE}{dt} = -\sum_i v_i^2 \le 0$$

    along [`syncattn.kuramoto.inertial_simulate`][] with $\omega = 0$, $\alpha = 0$ and a
    symmetric coupling (proved in `proofs/proof_inertia.py`). For scalar $K$
    ($K_{ij} = K/N$) the potential is $\frac{KN}2(1 - R^2)$. The potential is
    $\frac12\sum_{ij}K_{ij}$ plus [`syncattn.kuramoto.coherence_energy`][] (one coupling
    product; near synchrony it cancels to a few ulps of $\sum_{ij}|K_{ij}|$).

    Args:
        theta: phases `(*batch, N)`.
        velocity: $v = \dot\theta$, the shape of `theta`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        mass: $m \ge 0$.

    Returns:
        $E$, shape `(*batch,)`.

    Example:
        >>> inertial_energy(jnp.zeros(2), jnp.ones(2), 1.0, 2.0)  # (m/2) |v|^2
        Array(2., dtype=float32)
    """
    theta = _check_theta(theta)
    v = _check_velocity(velocity, theta, "velocity")
    K = _check_coupling(coupling, theta.shape[-1], theta.shape[:-1])
    m = _check_mass(mass)
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(theta.dtype)
    ones = jnp.ones_like(theta)
    rows, _ = _listen(K, _kind(K), ones, jnp.zeros_like(theta))  # sum_j K_ij
    total = 0.5 * jnp.sum(jnp.broadcast_to(rows, theta.shape), axis=-1)
    kinetic = 0.5 * jnp.asarray(m, theta.dtype) * jnp.sum(v * v, axis=-1)
    return kinetic + total + _energy(theta, K)


def _rhs(t, y, args):  # module level: the jit cache hits across calls
    omega, K, alpha, m = args
    theta, v = y[0], y[1]
    return jnp.stack([v, (omega + _drift(theta, K, alpha) - v) / m])


def _order2(y):
    return _order(y[0])


def _mass_or_zero(mass):
    """The checked mass and whether it is a concrete 0 (the first-order flow); a traced
    mass must be > 0."""
    m = _check_mass(mass)
    zero_mass = is_concrete(m) and float(m) == 0.0
    if not zero_mass and not is_concrete(m):
        m = eqx.error_if(
            m,
            m <= 0,
            "a traced mass must be > 0 (m = 0 is the first-order flow: "
            "pass a concrete 0, or use kuramoto.simulate).",
        )
    return m, zero_mass


def _first_order_solution(theta0, omega, K, alpha, options) -> InertialSolution:
    """m = 0: the first-order flow solved as such, with v = theta' from its field."""
    # the first-order right side takes the lag as the M = 1 harmonic's cos, sin
    first = (omega, K, jnp.cos(alpha)[None], jnp.sin(alpha)[None])
    sol = driver.solve(_first_order_rhs, _order, theta0, first, *options)

    def vel(th):
        return _first_order_rhs(None, th, first)

    return InertialSolution(
        sol.ts,
        sol.states,
        None if sol.states is None else jax.vmap(vel)(sol.states),
        sol.order,
        sol.r,
        sol.final,
        vel(sol.final),
        sol.num_steps,
    )


def inertial_simulate(
    theta0: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    t1: ScalarLike,
    *,
    mass: ScalarLike,
    velocity0: Float[ArrayLike, "*batch n"] | None = None,
    saveat: int | Float[ArrayLike, " S"] | None = 101,
    solver: str | object | None = "dopri5",
    rtol: float | None = 1e-6,
    atol: float = 1e-8,
    dt0: float | None = None,
    max_steps: int = 2**20,
    frustration: float = 0.0,
    save_phases: bool = True,
) -> InertialSolution:
    r"""Integrate the Kuramoto flow with inertia with diffrax (Dopri5 by default).

    $$m\ddot\theta_i + \dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i - \alpha),
      \qquad \theta(0) = \theta_0,\ \dot\theta(0) = v_0$$

    as $\dot\theta = v$, $m\dot v = \omega + F(\theta) - v$
    ([`syncattn.kuramoto.inertial_vector_field`][]). The arguments `saveat`, `solver`,
    `rtol`, `atol`, `dt0`, `max_steps` and their defaults are those of
    [`syncattn.kuramoto.simulate`][] (one driver), with every coupling form: scalar
    (mean field, $O(N)$), dense, [`syncattn.kuramoto.EdgeList`][], `BCOO`.

    $m = 0$ (concrete) is the first-order flow, solved as such
    ([`syncattn.kuramoto.simulate`][], bit for bit), with $v = \dot\theta$ from the field.
    For small $m > 0$ the velocity relaxes on the time scale $m$ (a stiff system):
    the explicit default then needs steps of order $m$; pass an implicit solver instance
    (e.g. `diffrax.Kvaerno5()`) for $m \ll 10^{-2}$. With $\omega = 0$ and symmetric
    $K$, [`syncattn.kuramoto.inertial_energy`][] never increases.

    Jit-able (static `saveat`/`solver`/`max_steps`; a traced `mass` must be $> 0$),
    differentiable and vmap-able over `theta0`, `velocity0` and `mass`.

    Args:
        theta0: initial phases `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta0`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        t1: final time $t_1 \ge 0$.
        mass: $m \ge 0$ (keyword), a scalar.
        velocity0: initial velocities $v_0$ (the shape of `theta0`); `None`: at rest,
            $v_0 = 0$.
        saveat, solver, rtol, atol, dt0, max_steps: as in [`syncattn.kuramoto.simulate`][].
        frustration: Sakaguchi phase lag $\alpha$.
        save_phases: keep phases and velocities at the save times.

    Returns:
        An [`syncattn.kuramoto.InertialSolution`][].

    Raises:
        ValueError: `mass` negative, NaN or not a scalar (traced: not $> 0$);
            `velocity0` of another shape or not finite; the checks of
            [`syncattn.kuramoto.simulate`][].

    Example:
        >>> sol = inertial_simulate(jnp.array([0.0, 1.0]), 0.0, 4.0, 10.0, mass=0.5, saveat=None)
        >>> float(sol.r[-1]) > 0.99
        True

    References:
        H.-A. Tanaka, A. J. Lichtenberg and S. Oishi, *Phys. Rev. Lett.* 78, 2104 (1997);
        F. Dörfler and F. Bullo, *SIAM J. Control Optim.* 50, 1616 (2012).
    """
    theta0, omega, K = _checked_inputs(theta0, omega, coupling)
    dtype = theta0.dtype
    m, zero_mass = _mass_or_zero(mass)
    v0 = _initial_velocity(velocity0, theta0)
    t1, t1_np = driver.check_t1(t1, dtype)
    solver, controller = _ode_options(solver, rtol, atol, dt0, max_steps)
    ts, _ = driver.save_times(saveat, t1, t1_np, dtype)
    omega, K = _in_dtype(omega, K, theta0)
    alpha = jnp.asarray(frustration, dtype)
    options = (t1, ts, solver, controller, dt0, int(max_steps), bool(save_phases))
    if zero_mass:
        return _first_order_solution(theta0, omega, K, alpha, options)
    args = (omega, K, alpha, jnp.asarray(m, dtype))
    return _second_order_solution(theta0, v0, args, options)


def _second_order_solution(theta0, v0, args, options) -> InertialSolution:
    """m > 0: the state `(theta, v)` stacked on a leading axis of 2, solved, unstacked."""
    sol = driver.solve(_rhs, _order2, jnp.stack([theta0, v0]), args, *options)
    states = sol.states
    return InertialSolution(
        sol.ts,
        None if states is None else states[:, 0],
        None if states is None else states[:, 1],
        sol.order,
        sol.r,
        sol.final[0],
        sol.final[1],
        sol.num_steps,
    )

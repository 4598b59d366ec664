r"""The one simulation driver behind [`syncattn.kuramoto.simulate`][] and [`syncattn.lohe.simulate`][].

Both flows are autonomous ODEs $\dot y = f(y)$ on a product of spheres (circles for
Kuramoto). This module holds everything they share, written once:

* the argument set: `solver` (a name or a diffrax instance), `rtol`, `atol`, `dt0`,
  `saveat`, `max_steps`, and its checks (`check_options`, `check_t1`);
* the save-time rule (`save_times`);
* the diffrax set-up: solver, step-size controller, `SaveAt` (`solve`);
* the result type [`syncattn.kuramoto.Solution`][] (the same class as
  [`syncattn.lohe.Solution`][]): times, states, order parameter;
* the noisy (SDE) path: drift plus tangent-projected Stratonovich noise
  $dy = f(y)\,dt + \sigma\,P_y \circ dW_t$ (`Noise`, `check_noise`), solved by a
  diffrax Stratonovich solver on a `diffrax.VirtualBrownianTree`.

Noise convention (the library's, for every flow): Stratonovich noise projected on
the tangent space of the state manifold. On $S^{d-1}$,
$P_y = I - yy^\top/\|y\|^2$ (equal to $I - yy^\top$ on the sphere and orthogonal to
$y$ everywhere, so the exact ambient SDE keeps $\|y\|$); on the torus $P = I$
(additive noise, where Itô and Stratonovich agree). The Itô drift of the sphere's
SDE is $f(y) - \tfrac{(d-1)\sigma^2}{2}y$ ([`syncattn.lohe.ito_drift`][]).
"""

from __future__ import annotations

from collections.abc import Callable

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ._checks import (
    as_float,
    check_count,
    check_finite,
    check_scalar_range,
    is_concrete,
)
from ._types import Array, Float, Inexact, Int


__all__ = [
    "Solution",
    "SOLVERS",
    "SDE_SOLVERS",
    "Noise",
    "check_options",
    "check_noise",
    "save_times",
    "solve",
    "project_sphere",
    "project_none",
    "retract_sphere",
]

SOLVERS = {
    "dopri5": diffrax.Dopri5,
    "tsit5": diffrax.Tsit5,
    "dopri8": diffrax.Dopri8,
    "bosh3": diffrax.Bosh3,
    "heun": diffrax.Heun,
    "euler": diffrax.Euler,
}
_NO_ERROR_ESTIMATE = (diffrax.Euler, diffrax.Heun)
# Stratonovich solvers for the noisy path (the convention is Stratonovich)
SDE_SOLVERS = {
    "heun": diffrax.Heun,
    "midpoint": diffrax.Midpoint,
    "reversible_heun": diffrax.ReversibleHeun,
}
SDE_DT0 = 1e-2  # default constant step of the noisy path


class Solution(eqx.Module):
    r"""Result of [`syncattn.kuramoto.simulate`][] and [`syncattn.lohe.simulate`][].

    $$Z(t) = \frac1n\sum_{j=1}^n x_j(t), \qquad r(t) = |Z(t)|$$

    with $x_j = e^{i\theta_j}$ for Kuramoto ($Z = R e^{i\psi}$, complex) and
    $x_j \in S^{d-1}$ for Lohe ($Z \in \mathbb{R}^d$).

    Attributes:
        ts: save times, shape `(S,)`.
        states: states at `ts`, shape `(S, *batch, n)` (phases) or `(S, *batch, n, d)`
            (unit vectors); `None` when the flow was asked not to keep them.
        order: the order parameter $Z$ at `ts`: complex `(S, *batch)` for Kuramoto,
            real `(S, *batch, d)` for Lohe, the mean matrix `(S, *batch, n, n)` for
            the matrix Lohe flow ([`syncattn.lohe.matrix_simulate`][]).
        r: its modulus $r = |Z|$ ($R$ for Kuramoto, $\rho$ for Lohe), `(S, *batch)`.
        final: the state at $t_1$, shape `(*batch, n)` or `(*batch, n, d)`.
        num_steps: accepted solver steps (exp-map stepping: the steps taken).

    Old names: `theta` and `x` are `states`, `theta_final` is `final`, `rho` is `r`,
    `psi` is $\arg Z$ (Kuramoto).
    """

    ts: Float[Array, " S"]
    states: Array | None
    # Kuramoto (S, *batch) complex, Lohe (S, *batch, d), matrix Lohe (S, *batch, n, n):
    # one loose annotation (a union would bind *batch to the first alternative that fits)
    order: Inexact[Array, " S ..."]
    r: Float[Array, " S *batch"]
    final: Array
    num_steps: Int[Array, ""]

    @property
    def theta(self):
        """Kuramoto name of `states`."""
        return self.states

    @property
    def x(self):
        """Lohe name of `states`."""
        return self.states

    @property
    def theta_final(self):
        """Kuramoto name of `final`."""
        return self.final

    @property
    def rho(self):
        """Lohe name of `r`."""
        return self.r

    @property
    def psi(self):
        r"""Mean phase $\psi = \arg Z$ (Kuramoto; complex `order` only)."""
        if not jnp.iscomplexobj(self.order):
            raise AttributeError("psi is defined for a complex (Kuramoto) order parameter.")
        return jnp.angle(self.order)


def check_options(
    *, solver, rtol, atol, dt0, max_steps
) -> tuple[diffrax.AbstractSolver, diffrax.AbstractStepSizeController]:
    """Check the shared solver options; return the solver and its step-size controller.

    `rtol=None` (with `dt0`) or a solver without an error estimate (Euler, Heun) means
    constant steps of `dt0`; otherwise a PID controller at `rtol`/`atol`.

    Raises:
        ValueError: unknown solver name, non-positive `rtol`/`atol`/`dt0`, a fixed-step
            request without `dt0`, `max_steps` not a positive int.
        TypeError: `solver` neither a name nor a diffrax solver.
    """
    if isinstance(solver, str):
        if solver.lower() not in SOLVERS:
            raise ValueError(
                f"solver must be one of {sorted(SOLVERS)} or a diffrax solver; got {solver!r}."
            )
        solver = SOLVERS[solver.lower()]()
    elif not isinstance(solver, diffrax.AbstractSolver):
        raise TypeError(
            f"solver must be a name in {sorted(SOLVERS)} or a diffrax solver instance; "
            f"got {type(solver).__name__}."
        )
    if rtol is None and dt0 is None:
        raise ValueError("rtol=None asks for fixed steps: pass dt0 (the step size) too.")
    if isinstance(solver, _NO_ERROR_ESTIMATE) and dt0 is None:
        raise ValueError(
            f"solver {type(solver).__name__} has no error estimate: pass dt0 (a fixed step)."
        )
    if rtol is not None:
        check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=False)
        check_scalar_range(atol, "atol", low=0.0, low_inclusive=False)
    if dt0 is not None:
        check_scalar_range(dt0, "dt0", low=0.0, low_inclusive=False)
    check_count(max_steps, "max_steps")
    if rtol is None or isinstance(solver, _NO_ERROR_ESTIMATE):
        return solver, diffrax.ConstantStepSize()
    return solver, diffrax.PIDController(rtol=rtol, atol=atol)


def project_sphere(y, w):
    r"""Tangent projection on spheres along the last axis: $P_y w = w - \frac{y\cdot w}{y\cdot y}y$.

    Orthogonal to $y$ for every $y \ne 0$ (not only on the sphere), so noise through
    it cannot change $\|y\|$ in the exact ambient SDE.
    """
    c = jnp.sum(y * w, axis=-1, keepdims=True)
    n2 = jnp.sum(y * y, axis=-1, keepdims=True)
    return w - c / jnp.where(n2 > 0, n2, 1.0) * y


def retract_sphere(y):
    r"""Retraction onto the unit spheres along the last axis: $y/\|y\|$."""
    n = jnp.sqrt(jnp.sum(y * y, axis=-1, keepdims=True))
    return y / jnp.where(n > 0, n, 1.0)


def project_none(y, w):
    r"""No projection: additive noise (the torus, whose phases live in $\mathbb{R}^n$)."""
    return w


class Noise(eqx.Module):
    r"""The noisy path's data: $\sigma P_y \circ dW_t$ with $W$ a `VirtualBrownianTree`.

    Attributes:
        sigma: noise strength $\sigma > 0$ (a scalar array).
        key: PRNG key of the Brownian path.
        project: $P_y$, a module-level function `(y, w) -> P_y w` (static).
        tol: the tree's resolution (`dt0 / 2`, diffrax's advice for constant steps).
        retract: `None`, or a map onto the manifold (e.g. `retract_sphere`) applied
            after every solver step (static). Heun's own norm error is outward,
            $\frac14\|\sigma(P_{y_0} - P_{\tilde y})\Delta W\|^2$ per step (an $O(dt)$ drift of
            $\|y\|$ over a fixed time); retracting removes it without changing the
            scheme's order (a projection method).
    """

    sigma: Array
    key: Array
    project: Callable = eqx.field(static=True)
    tol: float = eqx.field(static=True)
    retract: Callable | None = eqx.field(static=True, default=None)


class _Retracted(diffrax.AbstractWrappedSolver):
    """A diffrax solver whose every step ends with `retract` (isinstance checks forward)."""

    solver: diffrax.AbstractSolver
    retract: Callable = eqx.field(static=True)

    @property
    def term_structure(self):
        return self.solver.term_structure

    @property
    def interpolation_cls(self):  # pyright: ignore
        return self.solver.interpolation_cls

    @property
    def term_compatible_contr_kwargs(self):
        return self.solver.term_compatible_contr_kwargs

    def order(self, terms):
        return self.solver.order(terms)

    def strong_order(self, terms):
        return self.solver.strong_order(terms)

    def init(self, terms, t0, t1, y0, args):
        return self.solver.init(terms, t0, t1, y0, args)

    def step(self, terms, t0, t1, y0, args, solver_state, made_jump):
        y1, err, dense, state, result = self.solver.step(
            terms, t0, t1, y0, args, solver_state, made_jump
        )
        y1 = self.retract(y1)
        if isinstance(dense, dict) and "y1" in dense:
            dense = {**dense, "y1": y1}
        return y1, err, dense, state, result

    def func(self, terms, t0, y0, args):
        return self.solver.func(terms, t0, y0, args)


class _TangentNoise(diffrax.AbstractTerm):
    r"""Control term $\sigma P_y\,dW$: `vf` is the state, `prod` projects the increment."""

    sigma: Array
    path: diffrax.AbstractBrownianPath
    project: Callable = eqx.field(static=True)

    def vf(self, t, y, args):
        return y

    def contr(self, t0, t1, **kwargs):
        return self.path.evaluate(t0, t1, **kwargs)

    def prod(self, vf, control):
        return self.sigma * self.project(vf, control)


def check_noise(
    noise, key, *, solver, dt0, max_steps, dtype, project, retract=None
) -> tuple[Noise | None, diffrax.AbstractSolver | None, float | None]:
    r"""Check the noise arguments of a flow; `(None, None, None)` means the deterministic path.

    `noise=None` or a concrete $\sigma = 0$ take the deterministic path, so $\sigma = 0$
    equals it bit for bit. Otherwise the SDE is solved with constant steps of `dt0`
    (default `SDE_DT0` = 1e-2) by `solver` (`None` or a name in `SDE_SOLVERS`, default
    Heun, or a `diffrax.AbstractStratonovichSolver` instance).

    Returns:
        `(Noise, solver, dt0)` for the noisy path.

    Raises:
        ValueError: `noise` not a finite scalar $\ge 0$; `key` missing while
            $\sigma > 0$ (or traced); an unknown or non-Stratonovich solver.
        TypeError: `key` not a PRNG key.
    """
    if noise is None:
        return None, None, None
    sigma = as_float(noise, "noise")
    if sigma.ndim != 0:
        raise ValueError(f"noise must be a scalar sigma >= 0; got shape {sigma.shape}.")
    sigma = check_scalar_range(sigma, "noise", low=0.0)
    if is_concrete(sigma) and float(np.asarray(sigma)) == 0.0:
        return None, None, None
    if key is None:
        raise ValueError(
            "noise > 0 needs a PRNG key for its Brownian path: pass "
            "key=jax.random.key(seed) (the same key gives the same path)."
        )
    key = jnp.asarray(key) if not isinstance(key, jax.Array) else key
    if not (
        jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
        or (key.dtype == jnp.uint32 and key.shape == (2,))
    ):
        raise TypeError(
            f"key must be a PRNG key (jax.random.key(seed)); got dtype {key.dtype}, "
            f"shape {key.shape}."
        )
    if solver is None or solver == "dopri5":  # dopri5: the ODE default, not an SDE solver
        solver = "heun"
    if isinstance(solver, str):
        if solver.lower() not in SDE_SOLVERS:
            raise ValueError(
                f"with noise, solver must be one of {sorted(SDE_SOLVERS)} or a diffrax "
                f"Stratonovich solver instance; got {solver!r}."
            )
        solver = SDE_SOLVERS[solver.lower()]()
    elif not isinstance(solver, diffrax.AbstractStratonovichSolver):
        raise ValueError(
            "with noise, solver must be a Stratonovich solver (the noise convention is "
            f"Stratonovich): one of {sorted(SDE_SOLVERS)} or a "
            f"diffrax.AbstractStratonovichSolver; got {type(solver).__name__}."
        )
    dt0 = SDE_DT0 if dt0 is None else dt0
    dt0 = float(check_scalar_range(dt0, "dt0", low=0.0, low_inclusive=False))
    check_count(max_steps, "max_steps")
    return Noise(sigma.astype(dtype), key, project, dt0 / 2, retract), solver, dt0


def save_times(
    saveat, t1, t1_np, dtype
) -> tuple[Float[Array, " S"], np.ndarray | None]:
    r"""The save-time rule of both flows.

    * `None`: $t_1$ only;
    * an int $S \ge 2$: $S$ equally spaced times $t_k = k\,t_1/(S-1)$, $k = 0..S-1$;
    * a 1-D array: those times, non-decreasing in $[0, t_1]$ (rounding slack of 4 ulp is
      clipped).

    Args:
        saveat: as above.
        t1: final time, a scalar (checked $\ge 0$ and finite by `check_t1`).
        t1_np: the same as a Python float, or `None` when traced.
        dtype: floating dtype of the times.

    Returns:
        `(ts, ts_np)`: the times as a `dtype` array, and a float64 numpy copy when `t1`
        and `saveat` are concrete (else `None`).

    Raises:
        ValueError: an int below 2, a non-1-D or empty array, NaN/inf, times out of
            order or outside $[0, t_1]$.
    """
    t1 = jnp.asarray(t1, dtype)
    if saveat is None:
        return jnp.reshape(t1, (1,)), None if t1_np is None else np.array([t1_np])
    if isinstance(saveat, (int, np.integer)) and not isinstance(saveat, bool):
        if saveat < 2:
            raise ValueError(
                "saveat must be an int >= 2 (equally spaced times), an array of times, "
                f"or None (t1 only); got {saveat}."
            )
        if t1_np is None:
            return jnp.linspace(0.0, 1.0, int(saveat), dtype=dtype) * t1, None
        ts_np = np.linspace(0.0, t1_np, int(saveat))
        return jnp.asarray(ts_np, dtype), ts_np
    concrete = is_concrete(saveat)
    ts = as_float(saveat, "saveat").astype(dtype)
    if ts.ndim != 1 or ts.shape[0] == 0:
        raise ValueError(
            f"saveat must be None, an int or a 1-D non-empty array of times; got shape {ts.shape}."
        )
    check_finite(ts, "saveat")
    if not (concrete and t1_np is not None):
        return ts, None
    ts_np = np.asarray(saveat, np.float64)
    slack = 4 * float(jnp.finfo(dtype).eps) * max(1.0, t1_np)  # rounding of ts
    if ts_np.min() < -slack or ts_np.max() > t1_np + slack or np.any(np.diff(ts_np) < 0):
        raise ValueError(
            f"saveat times must be non-decreasing within [0, t1={t1_np}]; got {ts_np}."
        )
    ts_np = np.clip(ts_np, 0.0, t1_np)
    return jnp.asarray(ts_np, dtype), ts_np


@eqx.filter_jit
def solve(
    rhs, order, y0, args, t1, ts, solver, controller, dt0, max_steps, save_states,
    noise: Noise | None = None,
    event=None,
    retract=None,
):
    r"""Integrate $\dot y = $ `rhs(t, y, args)` from $y(0) = y_0$ to $t_1$ with diffrax.

    With `retract` (a hashable map onto the manifold, e.g. a geometry's `nearest`), every
    solver step of the deterministic path ends with it (a projection method; the noisy
    path takes `Noise.retract`).

    With `noise` ([`Noise`][syncattn._simulate.Noise]), the Stratonovich SDE
    $dy = $ `rhs` $dt + \sigma P_y \circ dW_t$ instead, $W$ a
    `diffrax.VirtualBrownianTree` on $[0, \max(t_1, dt_0)]$ of the state's shape,
    with constant steps (`controller` is then ignored).

    Saves, at `ts`, the state (if `save_states`) and `order(y) = (Z, r)`; and the state
    at $t_1$ (or at the time a diffrax `event`, if given, stops the solve: then
    `final` is the state there). `rhs` and `order` should be module-level functions,
    so that the jit cache hits across calls. Arguments are assumed checked
    (`check_options`, `check_noise`, `save_times`).
    """
    t0 = jnp.zeros((), y0.dtype)
    if noise is None:
        terms = diffrax.ODETerm(rhs)
        if retract is not None:
            solver = _Retracted(solver, retract)
    else:
        path = diffrax.VirtualBrownianTree(
            t0,
            jnp.maximum(t1, dt0),
            tol=noise.tol,
            shape=jax.ShapeDtypeStruct(y0.shape, y0.dtype),
            key=noise.key,
        )
        terms = diffrax.MultiTerm(
            diffrax.ODETerm(rhs), _TangentNoise(noise.sigma, path, noise.project)
        )
        if noise.retract is not None:
            solver = _Retracted(solver, noise.retract)
        controller = diffrax.ConstantStepSize()

    def save(t, y, args):
        Z, r = order(y)
        return (y if save_states else None, Z, r)

    sol = diffrax.diffeqsolve(
        terms,
        solver,
        t0=t0,
        t1=t1,
        dt0=dt0,
        y0=y0,
        args=args,
        saveat=diffrax.SaveAt(
            subs=[diffrax.SubSaveAt(ts=ts, fn=save), diffrax.SubSaveAt(t1=True)]
        ),
        stepsize_controller=controller,
        max_steps=max_steps,
        event=event,
    )
    (ys, Z, r), final = sol.ys
    return Solution(sol.ts[0], ys, Z, r, final[0], sol.stats["num_accepted_steps"])


def check_t1(t1, dtype) -> tuple[Float[Array, ""], float | None]:
    """The final time as a `dtype` scalar, and as a Python float when concrete.

    The float is read from the argument itself (under `jit` every `jnp` result is
    traced, even of a constant). `ValueError` unless a scalar $t_1 \\ge 0$.
    """
    t1_np = float(np.asarray(t1)) if is_concrete(t1) and np.ndim(t1) == 0 else None
    t1 = as_float(t1, "t1")
    if t1.ndim != 0:
        raise ValueError(f"t1 must be a scalar; got shape {t1.shape}.")
    check_scalar_range(t1 if t1_np is None else t1_np, "t1", low=0.0)
    return t1.astype(dtype), t1_np

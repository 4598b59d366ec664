r"""The Kuramoto flow with time delays: vector field, a method-of-steps integrator, locked branches.

$$\dot\theta_i(t) = \omega_i + \sum_j K_{ij}\sin\bigl(\theta_j(t - \tau_{ij}) - \theta_i(t) - \alpha\bigr),
  \qquad \theta(t) = \theta^{h}\ \ (t < 0),\quad \theta(0) = \theta_0$$

One delay $\tau$ (a scalar: every coupling form, the mean field in $O(N)$) or a delay
matrix $\tau_{ij}$ (a dense or scalar coupling, $O(N^2)$). diffrax has no delay solver;
the integrator (`_delay_rk4.py`) is the classical Runge-Kutta method of order 4 on a fixed grid
$t_n = n\,\Delta t$ with every delay a whole number of steps, the delayed states read from
a ring buffer of past grid values and slopes by cubic Hermite interpolation (order 4 too,
so the scheme has order 4: measured in `tests/kuramoto/test_delay.py`).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse as jsparse

from .._checks import as_float, check_finite, check_scalar_range, is_concrete
from .._numerics import sincos
from .._simulate import Solution
from .._types import Array, ArrayLike, Float, ScalarLike
from ._coupling import (
    EdgeList,
    _check_coupling,
    _check_omega,
    _check_theta,
    _kind,
    _listen,
    _shift,
)
from ._delay_rk4 import _integrate
from ._simulate import _checked_inputs, _order


# a delay (or t1) within this relative distance of a whole number of steps counts as one
_WHOLE_STEPS_RTOL = 1e-9


def delay_vector_field(
    theta: Float[ArrayLike, "*batch n"],
    theta_delayed: Float[ArrayLike, "*batch n"] | Float[ArrayLike, "*batch n n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    *,
    frustration: float | Float[Array, ""] = 0.0,
) -> Float[Array, "*batch n"]:
    r"""The right side of the delayed Kuramoto flow, given the delayed phases.

    $$\dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\tilde\theta_{ij} - \theta_i - \alpha),\qquad
      \tilde\theta_{ij} = \theta_j(t - \tau_{ij})$$

    One delay: `theta_delayed` $= \theta(t - \tau)$ has the shape of `theta`
    ($\tilde\theta_{ij} = \tilde\theta_j$) and any coupling form works (the scalar $K$
    in $O(N)$: $\omega_i + K\tilde R\sin(\tilde\psi - \theta_i - \alpha)$ with
    $\tilde R e^{i\tilde\psi}$ the delayed order parameter). A delay matrix:
    `theta_delayed` has one more axis, entry `[..., i, j]` $= \theta_j(t - \tau_{ij})$,
    and the coupling is a scalar ($K_{ij} = K/N$) or dense.

    Symbols: $\theta$ = `theta`, $\tilde\theta$ = `theta_delayed`, $\omega$ = `omega`,
    $K$ = `coupling`, $\alpha$ = `frustration`.

    Args:
        theta: current phases `(*batch, N)`.
        theta_delayed: delayed phases `(*batch, N)` or `(*batch, N, N)`.
        omega: natural frequencies, broadcastable to `theta`.
        coupling: as in [`syncattn.kuramoto.vector_field`][] (scalar or dense for a
            `(*batch, N, N)` `theta_delayed`).
        frustration: phase lag $\alpha$.

    Returns:
        $\dot\theta$, the shape and dtype of `theta`.

    Raises:
        ValueError: `theta_delayed` of another shape, a sparse coupling with per-pair
            delayed phases, non-finite inputs.

    Example:
        >>> delay_vector_field(jnp.zeros(2), jnp.array([0.0, jnp.pi / 2]), 0.0, 2.0)
        Array([1., 1.], dtype=float32)
    """
    theta = _check_theta(theta)
    n, batch = theta.shape[-1], theta.shape[:-1]
    delayed = as_float(theta_delayed, "theta_delayed")
    check_finite(delayed, "theta_delayed")
    pairwise = delayed.ndim == theta.ndim + 1
    want = theta.shape + ((n,) if pairwise else ())
    if delayed.shape != want:
        raise ValueError(
            f"theta_delayed must have theta's shape {theta.shape} (one delay) or "
            f"{theta.shape + (n,)} (entry [..., i, j] = theta_j(t - tau_ij)); got {delayed.shape}."
        )
    omega = _check_omega(omega, theta, "theta")
    K = _check_coupling(coupling, n, batch)
    if pairwise and _kind(K) in ("edges", "bcoo"):
        raise ValueError(
            "per-pair delayed phases need a scalar or dense coupling; for a sparse graph "
            "use one delay (theta_delayed of theta's shape)."
        )
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(theta.dtype)
    alpha = jnp.asarray(frustration, theta.dtype)
    drift = _drift(theta, delayed.astype(theta.dtype), K, alpha, pairwise)
    return jnp.broadcast_to(omega.astype(theta.dtype), theta.shape) + drift


def _drift(theta, delayed, K, alpha, pairwise):
    """$\\sum_j K_{ij}\\sin(\\tilde\\theta_{ij} - \\theta_i - \\alpha)$ (shapes checked)."""
    kind = _kind(K)
    if not pairwise:
        s, c = sincos(theta)
        sd, cd = sincos(delayed)
        Kc, Ks = _listen(K, kind, cd, sd)
        ca, sa = _shift(c, s, alpha)
        # sin(x_j - theta_i - alpha) = sin x_j cos(theta_i + alpha) - cos x_j sin(theta_i + alpha)
        return jnp.broadcast_to(ca * Ks - sa * Kc, theta.shape)
    terms = jnp.sin(delayed - theta[..., :, None] - alpha)
    if kind == "scalar":
        return K * jnp.mean(terms, axis=-1)
    return jnp.sum(jnp.broadcast_to(K, terms.shape) * terms, axis=-1)


# ------------------------------------------------------------------ the integrator
def _whole_steps(x, dt, name):
    """`x / dt` as whole numbers of steps (numpy int array), or a ValueError naming the fix."""
    ratio = np.asarray(x, np.float64) / dt
    steps = np.rint(ratio)
    off = np.abs(ratio - steps) > _WHOLE_STEPS_RTOL * np.maximum(1.0, np.abs(ratio))
    if np.any(off):
        bad = float(np.asarray(x, np.float64).ravel()[np.argmax(off.ravel())])
        k = max(1, math.ceil(bad / dt))
        raise ValueError(
            f"{name} must be a whole number of steps dt: {name}={bad:.6g} is "
            f"{bad / dt:.6g} steps of dt={dt:.6g}. Choose dt = {name}/k for a whole k "
            f"(e.g. dt={bad / k:.6g})"
            + (" dividing every entry" if np.ndim(x) else "")
            + "."
        )
    return steps.astype(np.int64)


def _check_delay(delay, n):
    """A concrete, finite, non-negative scalar or `(N, N)` delay, as a float64 numpy array."""
    if not is_concrete(delay):
        raise ValueError(
            "delay must be concrete (it sets the ring buffer's length and the step "
            "count): close over it, or mark it static under jax.jit."
        )
    tau = np.asarray(delay, np.float64)
    if tau.ndim not in (0, 2) or (tau.ndim == 2 and tau.shape != (n, n)):
        raise ValueError(
            f"delay must be a scalar tau or an (N, N)=({n}, {n}) matrix tau_ij (the delay "
            f"with which oscillator i hears j); got shape {tau.shape}."
        )
    if not np.all(np.isfinite(tau)):
        raise ValueError("delay must be finite; got NaN/inf.")
    if np.any(tau < 0):
        raise ValueError(
            f"delay must be >= 0 (a delay looks into the past); got min {tau.min():.6g}."
        )
    return tau


def _check_history(history, theta0):
    """The constant past: `theta0` when `history` is None, else a finite array of its shape."""
    if history is None:
        return theta0
    hist = as_float(history, "history")
    if hist.shape != theta0.shape:
        raise ValueError(
            f"history must be the constant past state, of theta0's shape {theta0.shape}; "
            f"got {hist.shape}. Pass history=None to start from theta0 at rest in the past."
        )
    check_finite(hist, "history")
    return hist.astype(theta0.dtype)


def _save_grid(saveat, n_steps):
    """(number of save intervals, steps between saves) for `saveat` (None: t1 only)."""
    if saveat is None:
        return 1, n_steps
    if not isinstance(saveat, (int, np.integer)) or isinstance(saveat, bool):
        raise ValueError(
            f"saveat must be None or an int >= 2 (equally spaced grid times); got {saveat!r}."
        )
    if saveat < 2:
        raise ValueError(f"saveat must be None or an int >= 2; got {saveat}.")
    n_save = int(saveat) - 1
    if n_steps % n_save:
        ok = [s + 1 for s in range(1, min(n_steps, 1000) + 1) if n_steps % s == 0]
        near = sorted(ok, key=lambda s: abs(s - saveat))[:3]
        raise ValueError(
            f"saveat - 1 must divide the step count t1/dt = {n_steps} (saves fall on the "
            f"grid); got saveat={saveat}. Try saveat in {sorted(near)} or None."
        )
    return n_save, n_steps // n_save


def _solution(outs, final, theta0, saveat, stride, n_steps, dt) -> Solution:
    """The scan's records as a `Solution` of `theta0`'s batch shape."""
    batch, dtype = theta0.shape[:-1], theta0.dtype
    states, Z, r = outs
    S = Z.shape[0]
    ts = jnp.asarray(
        np.arange(S) * stride * dt if saveat is not None else [n_steps * dt], dtype
    )
    if saveat is None:  # t1 only: drop the t = 0 record
        states = None if states is None else states[1:]
        Z, r = Z[1:], r[1:]
    S = Z.shape[0]
    return Solution(
        ts,
        None if states is None else states.reshape((S,) + theta0.shape),
        Z.reshape((S,) + batch),
        r.reshape((S,) + batch),
        final.reshape(theta0.shape),
        jnp.asarray(n_steps, jnp.int32),
    )


def delay_simulate(
    theta0: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    delay: ScalarLike | Float[ArrayLike, "n n"],
    t1: ScalarLike,
    *,
    dt: float,
    history: Float[ArrayLike, "*batch n"] | None = None,
    saveat: int | None = 101,
    frustration: float = 0.0,
    save_phases: bool = True,
) -> Solution:
    r"""Integrate the delayed Kuramoto flow from a constant history (RK4, order 4).

    $$\dot\theta_i(t) = \omega_i + \sum_j K_{ij}\sin\bigl(\theta_j(t - \tau_{ij}) - \theta_i(t) - \alpha\bigr),
      \quad t \in [0, t_1];\qquad \theta(t) = \theta^h\ (t < 0),\ \ \theta(0) = \theta_0$$

    with $\tau_{ij} = \tau$ for one delay. Fixed steps $\Delta t$ = `dt`; every delay
    and $t_1$ must be whole numbers of steps, so the breaking points $k\tau$ of the
    solution (where its derivatives jump) fall on the grid. The scheme
    (classical Runge-Kutta with cubic Hermite interpolation of the past, a ring buffer
    of $\max_{ij}\tau_{ij}/\Delta t + 1$ grid values and slopes) has order 4: the global
    error is $O(\Delta t^4)$, measured on a linear delay equation with a known solution
    and on the Kuramoto flow (`tests/kuramoto/test_delay.py`). One compiled `lax.scan`;
    jit-able with static `delay`, `dt`, `t1`, `saveat`, and differentiable in
    `theta0`, `omega`, `coupling`.

    One delay works with every coupling form (the scalar $K$ in $O(N)$ per step, through
    the delayed order parameter); a delay matrix needs a scalar or dense coupling.
    Theory: [`syncattn.kuramoto.delay_locked_frequencies`][] (the in-phase locked
    branches of Yeung and Strogatz and their stability).

    Args:
        theta0: initial phases `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta0`.
        coupling: as in [`syncattn.kuramoto.vector_field`][].
        delay: $\tau \ge 0$, a scalar or an `(N, N)` matrix $\tau_{ij}$ (concrete).
        t1: final time $t_1 \ge 0$, a whole number of steps (concrete).
        dt: the step $\Delta t > 0$; it must divide every delay and $t_1$.
        history: the constant history $\theta^h$ (the shape of `theta0`); `None`:
            $\theta^h = \theta_0$.
        saveat: `None` ($t_1$ only) or an int $S \ge 2$: $S$ equally spaced grid times
            $k\,t_1/(S-1)$; $S - 1$ must divide the step count $t_1/\Delta t$.
        frustration: Sakaguchi phase lag $\alpha$.
        save_phases: keep the phases at the save times (else only $Z$, $R$ and the
            final phases).

    Returns:
        A [`syncattn.kuramoto.Solution`][]: `ts (S,)`, `states (S, *batch, N)`,
        `order (S, *batch)` complex, `r`, `final (*batch, N)`, `num_steps` $= t_1/\Delta t$.

    Raises:
        ValueError: a negative, NaN or non-concrete `delay`, of neither shape; `dt` not
            positive or not dividing a delay or `t1`; `history` of another shape or not
            finite; `saveat - 1` not dividing the step count; a sparse coupling with a
            delay matrix; the checks of [`syncattn.kuramoto.simulate`][].

    Example:
        >>> sol = delay_simulate(jnp.array([0.0, 1.0]), 0.0, 2.0, 0.5, 10.0, dt=0.05, saveat=None)
        >>> float(sol.r[-1]) > 0.99  # K cos(0) > 0: the in-phase state is stable
        True

    References:
        M. K. S. Yeung and S. H. Strogatz, *Phys. Rev. Lett.* 82, 648 (1999);
        M. G. Earl and S. H. Strogatz, *Phys. Rev. E* 67, 036204 (2003).
    """
    theta0, omega, K = _checked_inputs(theta0, omega, coupling)
    tau = _check_delay(delay, theta0.shape[-1])
    dt, lags, n_steps = _step_counts(dt, t1, tau)
    pairwise = tau.ndim == 2
    if pairwise and _kind(K) in ("edges", "bcoo"):
        raise ValueError(
            "a delay matrix needs a scalar or dense coupling; for a sparse graph pass "
            "one scalar delay."
        )
    hist = _check_history(history, theta0)
    n_save, stride = _save_grid(saveat, n_steps)
    y0, hist, om, K = _flat(theta0, hist, omega, K, pairwise)
    outs, final = _run(
        y0,
        hist,
        om,
        K,
        jnp.asarray(frustration, theta0.dtype),
        lags=tuple(map(tuple, lags.tolist())) if pairwise else int(lags),
        dt=dt,
        n_save=n_save,
        stride=stride,
        save_states=bool(save_phases),
    )
    return _solution(outs, final, theta0, saveat, stride, n_steps, dt)


def _step_counts(dt, t1, tau: np.ndarray) -> tuple[float, np.ndarray | np.integer, int]:
    """`(dt, lags, n_steps)`: the checked step, the delays and `t1` in whole steps."""
    if not is_concrete(dt) or not is_concrete(t1):
        raise ValueError("dt and t1 must be concrete (they set the step count).")
    dt = float(
        check_scalar_range(float(np.asarray(dt)), "dt", low=0.0, low_inclusive=False)
    )
    t1_f = float(check_scalar_range(float(np.asarray(t1)), "t1", low=0.0))
    return dt, _whole_steps(tau, dt, "delay"), int(_whole_steps(t1_f, dt, "t1"))


def _flat(theta0, hist, omega, K, pairwise: bool):
    """`(y0, hist, omega, K)` with the batch axes flattened to one, `(B, N)` (a dense
    coupling `(B, N, N)` when batched, `(1, N, N)` for a delay matrix), in `theta0`'s
    dtype: the integrator's layout."""
    n, batch, dtype = theta0.shape[-1], theta0.shape[:-1], theta0.dtype
    B = math.prod(batch)
    om = jnp.broadcast_to(omega.astype(dtype), theta0.shape).reshape(B, n)
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(dtype)
        if K.ndim > 2:
            K = jnp.broadcast_to(K, batch + (n, n)).reshape(B, n, n)
        elif K.ndim == 2 and pairwise:
            K = K[None]
    return theta0.reshape(B, n), hist.reshape(B, n), om, K


@functools.partial(
    jax.jit, static_argnames=("lags", "dt", "n_save", "stride", "save_states")
)
def _run(y0, hist, omega, K, alpha, *, lags, dt, n_save, stride, save_states):
    pairwise = not isinstance(lags, int)
    if pairwise:
        lags = np.asarray(lags, np.int64)

    def field(y, D):
        return omega + _drift(y, D, K, alpha, pairwise)

    def save(y):
        Z, r = _order(y)
        return (y if save_states else None, Z, r)

    return _integrate(field, y0, hist, lags, dt, n_save, stride, save)


# ------------------------------------------------------------------ theory

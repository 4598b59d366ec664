r"""The Runge-Kutta-Munthe-Kaas integrators on any geometry with a Lie algebra.

A geometry that declares `has_lie_algebra` is a Lie group $G$ whose tangent
representation is its Lie algebra $\mathfrak g$ (left trivialisation: the tangent
$\dot s$ at $s$ is $a = s^{-1}\dot s$), whose `exp(s, a)` is $s\exp(a)$ and whose
`bracket(a, b)` is $[a, b]$: `Group` ($SO(n)$, $U(n)$: the commutator) and `Torus`
(abelian: $[a, b] = 0$, $s\exp(a) = \theta + a$). For a left-trivialised field

$$\dot s = s\,f(t, s), \qquad f(t, s) \in \mathfrak g,$$

one RKMK4 step of size $h$ from $(t, s)$ is the classical RK4 applied to
$\dot\Omega = \operatorname{dexp}^{-1}_{-\Omega} f(t, s e^{\Omega})$, $\Omega(t) = 0$,
with $\operatorname{dexp}^{-1}_{-\Omega}(X) \approx X + \tfrac12[\Omega, X] +
\tfrac1{12}[\Omega, [\Omega, X]]$ (the truncation after the double commutator keeps
order 4):

$$k_1 = hf(t, s),\quad k_2 = h\operatorname{dexp}^{-1}_{-k_1/2} f(t + \tfrac h2,
  se^{k_1/2}),\quad k_3 = h\operatorname{dexp}^{-1}_{-k_2/2} f(t + \tfrac h2,
  se^{k_2/2}),$$
$$k_4 = h\operatorname{dexp}^{-1}_{-k_3} f(t + h, se^{k_3}),\qquad
  s \leftarrow s\exp\bigl(\tfrac16(k_1 + 2k_2 + 2k_3 + k_4)\bigr).$$

Every update is the group's exponential, so the state stays on the group to rounding
(no projection). On an abelian group every bracket vanishes and the step is the
classical RK4 on the coordinates of `exp`. The embedded pair RKMK4(3) adds a fifth
stage at the new point, $k_5 = h\operatorname{dexp}^{-1}_{-\Omega} f(t + h, se^{\Omega})$,
$\Omega = \frac16(k_1 + 2k_2 + 2k_3 + k_4)$: the weights $(\tfrac16, \tfrac13,
\tfrac13, 0, \tfrac16)$ on $(k_1, \dots, k_5)$ give a third-order solution and the
estimate $E = (k_5 - k_4)/6$, $O(h^4)$.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .._checks import check_scalar_range, is_concrete
from .._types import Array, ArrayLike
from ._base import Geometry


class LieSolution(NamedTuple):
    r"""The result of [`rkmk4`][syncattn.geometry.rkmk4] /
    [`rkmk43`][syncattn.geometry.rkmk43]: the save times `ts (S,)`, the states there
    `states (S, *s0.shape)`, `num_steps` (the steps taken; the adaptive form counts the
    accepted ones) and `t`, the time reached ($= t_S$ unless the adaptive form ran
    out of `max_steps`)."""

    ts: Array
    states: Array
    num_steps: Array
    t: Array


Field = Callable[[Array, Array, Any], Array]


def _check_lie(geo, name="geo"):
    if not isinstance(geo, Geometry):
        raise TypeError(
            f"{name} must be a syncattn.geometry.Geometry; got {type(geo).__name__}."
        )
    if not geo.has_lie_algebra:
        raise TypeError(
            f"{name}: {type(geo).__name__} declares no Lie algebra (has_lie_algebra is "
            "False): the RKMK integrators need a Lie group geometry whose exp(s, a) is "
            "s exp(a) and which has a bracket (Group, Torus)."
        )


def _check_start(geo, s0):
    """`s0` of shape (*batch, *fiber), finite and on the group (when concrete)."""
    s0 = jnp.asarray(s0)
    fiber = tuple(geo.fiber)
    if s0.ndim < len(fiber) or tuple(s0.shape[s0.ndim - len(fiber) :]) != fiber:
        raise ValueError(
            f"s0 must have shape (*batch, *{fiber}) for {geo}; got {s0.shape}."
        )
    if is_concrete(s0):
        if not bool(np.all(np.isfinite(np.asarray(s0)))):
            raise ValueError("s0 must be finite; got NaN/inf entries.")
        with jax.ensure_compile_time_eval():  # a constant s0 inside a caller's jit
            dev = float(np.max(np.asarray(geo.residual(s0)), initial=0.0))
        tol = float(np.sqrt(np.finfo(np.asarray(s0).real.dtype).eps))
        if dev > tol:
            raise ValueError(
                f"s0 must lie on {geo} (residual {dev:.3g} > {tol:.3g}; "
                "geo.nearest gives the closest point)."
            )
    return s0


def _dexpinv(geo, om, x):
    # dexp^{-1}_{-om}(x) to the order RKMK4 needs: x + [om, x]/2 + [om, [om, x]]/12
    c1 = geo.bracket(om, x)
    return x + 0.5 * c1 + geo.bracket(om, c1) / 12.0


def _stages(geo, field, t, s, h, args):
    # the four RKMK4 stages: k4 and the Lie algebra increment om
    k1 = h * field(t, s, args)
    k2 = h * _dexpinv(geo, 0.5 * k1, field(t + 0.5 * h, geo.exp(s, 0.5 * k1), args))
    k3 = h * _dexpinv(geo, 0.5 * k2, field(t + 0.5 * h, geo.exp(s, 0.5 * k2), args))
    k4 = h * _dexpinv(geo, k3, field(t + h, geo.exp(s, k3), args))
    return k4, (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0


def _rkmk4_step(geo, field, t, s, h, args):
    r"""One RKMK4 step of size `h` from $(t, s)$ (module docstring)."""
    return geo.exp(s, _stages(geo, field, t, s, h, args)[1])


def _rkmk43_step(geo, field, t, s, h, args):
    r"""The RKMK4 step and its embedded error estimate $E = (k_5 - k_4)/6$."""
    k4, om = _stages(geo, field, t, s, h, args)
    v = geo.exp(s, om)
    k5 = h * _dexpinv(geo, om, field(t + h, v, args))
    return v, (k5 - k4) / 6.0


def _error_norm(E, s, rtol, atol):
    # max |E| against atol + rtol max |s| (over the whole state, batch included)
    return jnp.max(jnp.abs(E)) / (atol + rtol * jnp.max(jnp.abs(s)))


@functools.partial(jax.jit, static_argnames=("geo", "field", "m"))
def _rkmk4_scan(geo, field, s0, args, starts, hs, m):
    # per interval i: m equal steps of hs[i] from starts[i]; the state at each end
    def interval(s, th):
        t0, h = th

        def step(carry, _):
            v, i = carry
            return (_rkmk4_step(geo, field, t0 + i * h, v, h, args), i + 1), None

        (s, _), _ = jax.lax.scan(step, (s, jnp.zeros((), h.dtype)), None, length=m)
        return s, s

    return jax.lax.scan(interval, s0, (starts, hs))[1]


@functools.partial(jax.jit, static_argnames=("geo", "field", "max_steps"))
def _rkmk43_loop(geo, field, s0, args, t0, t_ends, h0, rtol, atol, max_steps):
    real = t_ends.dtype
    tiny = 8 * jnp.finfo(real).eps

    def interval(carry, t_end):
        def cond(c):
            t, _, _, n, _ = c
            return (t_end - t > tiny * jnp.maximum(1.0, jnp.abs(t_end))) & (
                n < max_steps
            )

        def body(c):
            t, s, h, n, ok = c
            h_try = jnp.minimum(h, t_end - t)
            v, E = _rkmk43_step(geo, field, t, s, h_try, args)
            err = _error_norm(E, v, rtol, atol)
            good = err <= 1.0
            fac = jnp.clip(0.9 * jnp.where(err > 0, err, 1e-10) ** -0.25, 0.2, 5.0)
            fac = jnp.where(jnp.isfinite(err), fac, 0.2)
            t = jnp.where(good, jnp.where(h_try == t_end - t, t_end, t + h_try), t)
            return t, jnp.where(good, v, s), h_try * fac, n + 1, ok + good

        t, s, h, n, ok = jax.lax.while_loop(cond, body, carry)
        return (t, s, h, n, ok), s

    zero = jnp.zeros((), jnp.int32)
    (t, _, _, n, ok), states = jax.lax.scan(
        interval, (t0.astype(real), s0, h0.astype(real), zero, zero), t_ends
    )
    return states, t, n, ok


def _checked_times(ts, t0, dtype, concrete: bool):
    """The save times `ts` as a 1-D `dtype` array and (when concrete) a float64 NumPy
    copy, checked finite, non-decreasing and $\\ge t_0$."""
    t0 = check_scalar_range(t0, "t0")
    ts_j = jnp.atleast_1d(jnp.asarray(ts)).astype(dtype)
    if ts_j.ndim != 1 or ts_j.size == 0:
        raise ValueError(
            f"ts must be a non-empty 1-D array of times; got {ts_j.shape}."
        )
    if not is_concrete(ts_j) or not is_concrete(t0):
        if concrete:
            raise ValueError(
                "rkmk4 needs concrete ts and t0 (they fix the number of steps); under "
                "jit, close over them instead of passing them in."
            )
        return ts_j, jnp.asarray(t0, dtype), None
    t0_np = float(np.asarray(t0))
    ts_np = np.asarray(ts, np.float64).reshape(-1)
    if not np.all(np.isfinite(ts_np)) or np.any(np.diff(ts_np) < 0) or ts_np[0] < t0_np:
        raise ValueError(
            f"ts must be finite, non-decreasing times >= t0 = {t0_np}; got "
            f"{ts_np.tolist() if ts_np.size <= 6 else 'other values'}."
        )
    return ts_j, jnp.asarray(t0_np, dtype), (t0_np, ts_np)


def _real_dtype(s0):
    return jnp.finfo(jnp.asarray(s0).dtype).dtype


def rkmk4(
    geo: Geometry,
    field: Field,
    s0: ArrayLike,
    ts: ArrayLike | Sequence[float],
    *,
    args: Any = None,
    dt0: float = 1e-2,
    t0: float = 0.0,
) -> LieSolution:
    r"""Runge-Kutta-Munthe-Kaas of order 4 with fixed steps, on a Lie group geometry.

    $$\dot s = s\,f(t, s), \quad s(t_0) = s_0;\qquad s \leftarrow s\exp\bigl(\tfrac16
      (k_1 + 2k_2 + 2k_3 + k_4)\bigr)$$

    with the stages of the module docstring ($f$ = `field(t, s, args)`, the
    left-trivialised field, in `geo`'s tangent representation: a Lie algebra element
    for `Group`, a rate for `Torus`). Each interval $[t_{i-1}, t_i]$ between save times
    ($t_{-1} = t_0$) takes the same number $m = \lceil \max_i (t_i - t_{i-1}) /
    \texttt{dt0}\rceil$ of equal steps, one `jax.lax.scan`. The state stays on the
    group to rounding. On the torus ($[a, b] = 0$) it is the classical RK4 on the phases.

    `field` is a static argument of a jitted function: pass a module-level function
    (its parameters in `args`, a pytree of arrays) so that repeated calls hit the cache.

    Args:
        geo: a geometry that declares `has_lie_algebra` (`Group`, `Torus`).
        field: `field(t, s, args) -> a`, `a` of the state's shape in the tangent
            representation.
        s0: the initial state, any leading batch shape.
        ts: concrete non-decreasing save times $\ge t_0$ (`float` or 1-D array).
        args: passed to `field`.
        dt0: the largest step ($> 0$).
        t0: the initial time (concrete).

    Returns:
        [`LieSolution`][syncattn.geometry.LieSolution]: `states (S, *s0.shape)` at
        `ts`, `num_steps` $= mS$.

    Raises:
        TypeError: `geo` declares no Lie algebra. ValueError: bad `ts`, `t0`, `dt0`;
            `s0` of the wrong trailing shape, non-finite or off the group (concrete).
    """
    _check_lie(geo)
    s0 = _check_start(geo, s0)
    dt0 = check_scalar_range(dt0, "dt0", low=0.0, low_inclusive=False)
    real = _real_dtype(s0)
    ts_j, _, (t0_np, ts_np) = _checked_times(ts, t0, real, concrete=True)
    starts = np.concatenate([[t0_np], ts_np[:-1]])
    gaps = ts_np - starts
    m = max(1, math.ceil(float(gaps.max()) / float(dt0) - 1e-9))
    states = _rkmk4_scan(
        geo,
        field,
        jnp.asarray(s0),
        args,
        jnp.asarray(starts, real),
        jnp.asarray(gaps / m, dtype=real),
        m,
    )
    return LieSolution(ts_j, states, jnp.asarray(m * gaps.size), ts_j[-1])


def rkmk43(
    geo: Geometry,
    field: Field,
    s0: ArrayLike,
    ts: ArrayLike | Sequence[float],
    *,
    args: Any = None,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    dt0: float = 1e-2,
    t0: float = 0.0,
    max_steps: int = 4096,
    throw: bool = True,
) -> LieSolution:
    r"""The adaptive RKMK4(3): RKMK4 steps with the embedded error estimate.

    $$E = \tfrac16(k_5 - k_4),\qquad e = \frac{\max|E|}{\texttt{atol} + \texttt{rtol}
      \max|s_{\text{new}}|}$$

    ($k_5$ as in the module docstring; the maxima over every entry of the state, batch
    included). A step is accepted when $e \le 1$; the next step is $h\min(5, \max(0.2,
    0.9\,e^{-1/4}))$ (0.2 for a non-finite $e$); steps are clipped to land on every save
    time. The accepted update is the `rkmk4` step. The first step is `dt0`.

    Args:
        geo, field, s0, ts, args, t0: as [`rkmk4`][syncattn.geometry.rkmk4] (here `ts`
            may be traced).
        rtol, atol: the tolerances ($\text{rtol} > 0$, $\text{atol} \ge 0$).
        dt0: the first step ($> 0$).
        max_steps: the cap on step attempts (accepted and rejected), an int $\ge 1$.
        throw: raise (`eqx.error_if`) when `max_steps` attempts end before the last
            save time; with `False` the caller reads `t`.

    Returns:
        [`LieSolution`][syncattn.geometry.LieSolution]; `num_steps` counts the accepted
        steps.

    Raises:
        TypeError: `geo` declares no Lie algebra. ValueError: bad `ts`, `t0`, `dt0`;
            `s0` of the wrong trailing shape, non-finite or off the group (concrete).
            tolerances, `max_steps`; the step cap reached (with `throw`).
    """
    _check_lie(geo)
    s0 = _check_start(geo, s0)
    dt0 = check_scalar_range(dt0, "dt0", low=0.0, low_inclusive=False)
    rtol = check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=False)
    atol = check_scalar_range(atol, "atol", low=0.0)
    if isinstance(max_steps, bool) or not (
        isinstance(max_steps, int) and max_steps >= 1
    ):
        raise ValueError(f"max_steps must be an int >= 1; got {max_steps!r}.")
    real = _real_dtype(s0)
    ts_j, t0_j, _ = _checked_times(ts, t0, real, concrete=False)
    states, t, _, ok = _rkmk43_loop(
        geo,
        field,
        jnp.asarray(s0),
        args,
        t0_j,
        ts_j,
        jnp.asarray(dt0, dtype=real),
        jnp.asarray(rtol, dtype=real),
        jnp.asarray(atol, dtype=real),
        int(max_steps),
    )
    if throw:
        tol = 8 * jnp.finfo(real).eps * jnp.maximum(1.0, jnp.abs(ts_j[-1]))
        states = eqx.error_if(
            states,
            ts_j[-1] - t > tol,
            f"rkmk43: max_steps={max_steps} step attempts reached before the last save "
            "time (raise max_steps or loosen rtol/atol).",
        )
    return LieSolution(ts_j, states, ok, t)

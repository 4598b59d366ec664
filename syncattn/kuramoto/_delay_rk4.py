r"""The delayed flows' integrator: classical Runge-Kutta (order 4) by the method of steps.

$\dot y = f(y, D)$ on the grid $t_n = n\,\Delta t$, $D$ the state delayed by whole
numbers of steps (one lag $m$, or a lag $m_{ij}$ per pair), read from a ring buffer of
past grid values and slopes by cubic Hermite interpolation; the past before $t = 0$ is a
constant history. Used by [`syncattn.kuramoto.delay_simulate`][].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def _hermite_mid(y0, y1, f0, f1, dt):
    r"""The cubic Hermite interpolant of $(y_0, f_0)$, $(y_1, f_1)$ at the midpoint:
    $\frac{y_0 + y_1}2 + \frac{\Delta t}8(f_0 - f_1)$ (exact for cubics)."""
    return 0.5 * (y0 + y1) + (0.125 * dt) * (f0 - f1)


def _one_lag_reader(m_max, hist, dt):
    r"""`(delayed, breaks)` for one lag $m$: `delayed(n, Y, FR, FL, c, ys)` is
    $y(t_n + c\Delta t - m\Delta t)$ (the stage value `ys` itself when $m = 0$, `hist`
    before $t = 0$), `breaks(n)` whether $t_n = m\Delta t$ (where $D$ may jump)."""
    L = m_max + 1

    def delayed(n, Y, FR, FL, c, ys):
        if m_max == 0:
            return ys
        j = n - m_max
        i0, i1 = j % L, (j + 1) % L
        if c == 0:
            v = Y[i0]
        elif c == 1:
            v = Y[i1]
        else:
            v = _hermite_mid(Y[i0], Y[i1], FR[i0], FL[i1], dt)
        return jnp.where(j < 0, hist, v)

    def breaks(n):
        return (n == m_max) & (m_max > 0)

    return delayed, breaks


def _pair_lag_reader(lags, hist, dt):
    r"""`(delayed, breaks)` for a lag $m_{ij}$ per pair: `delayed` gives
    $D_{bij} = y_{bj}(t_n + c\Delta t - m_{ij}\Delta t)$, shape `(B, N, N)` (a lag 0
    reads the stage value `ys`), `breaks(n)` whether $t_n = m_{ij}\Delta t$ for a lag
    $m_{ij} \ge 1$."""
    L = int(np.max(lags)) + 1
    lag = jnp.asarray(lags, jnp.int32)
    cols = jnp.broadcast_to(jnp.arange(lags.shape[1]), lags.shape)
    no_lag = lag == 0
    hist_p = hist[:, None, :]

    def at(slot, B):  # entry [b, i, j] = B[slot[i, j], b, j]
        return jnp.moveaxis(B[slot, :, cols], -1, 0)

    def delayed(n, Y, FR, FL, c, ys):
        j = n - lag  # (N, N)
        i0, i1 = j % L, (j + 1) % L
        if c == 0:
            v = at(i0, Y)
        elif c == 1:
            v = at(i1, Y)
        else:
            v = _hermite_mid(at(i0, Y), at(i1, Y), at(i0, FR), at(i1, FL), dt)
        v = jnp.where(j < 0, hist_p, v)
        return jnp.where(no_lag, ys[:, None, :], v)

    def breaks(n):
        return jnp.any((lag == n) & ~no_lag)

    return delayed, breaks


def _rk4_step(field, delayed, breaks, dt, L):
    r"""One RK4 step on the ring buffer: carry `(n, y, k1, Y, FR, FL)` -> the next.

    `k1` is the slope from the right at $t_n$; the step stores it in `FR`, the new grid
    value in `Y` and its slope from the left in `FL`, and hands on as the next `k1` the
    slope from the right, evaluated anew only at a breaking point (elsewhere the two
    slopes are equal: four field evaluations per step)."""

    def step(carry, _):
        n, y, k1, Y, FR, FL = carry
        FR = FR.at[n % L].set(k1)
        y2 = y + (0.5 * dt) * k1
        k2 = field(y2, delayed(n, Y, FR, FL, 0.5, y2))
        y3 = y + (0.5 * dt) * k2
        k3 = field(y3, delayed(n, Y, FR, FL, 0.5, y3))
        y4 = y + dt * k3
        k4 = field(y4, delayed(n, Y, FR, FL, 1, y4))
        y = y + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        Y = Y.at[(n + 1) % L].set(y)
        left = field(y, delayed(n, Y, FR, FL, 1, y))
        FL = FL.at[(n + 1) % L].set(left)
        right = jax.lax.cond(
            breaks(n + 1),
            lambda: field(y, delayed(n + 1, Y, FR, FL, 0, y)),
            lambda: left,
        )
        return (n + 1, y, right, Y, FR, FL), None

    return step


def _integrate(field, y0, hist, lags, dt, n_save, stride, save):
    r"""Integrate $\dot y = $ `field(y, D)` on the grid $t_n = n\,\Delta t$ by RK4 with delays.

    $D$ is the delayed state: `lags` a Python int $m$ gives $D = y(t - m\Delta t)$ of
    `y0`'s shape `(B, N)`; a `(N, N)` integer array gives $D_{bij} = y_{bj}(t - m_{ij}\Delta t)$,
    shape `(B, N, N)`. A lag 0 reads the stage value itself (no delay).

    Method of steps on the grid: at the RK4 stage times $t_n + c\Delta t$,
    $c \in \{0, \frac12, 1\}$, a delayed time $t_n + c\Delta t - m\Delta t$ lies in the
    grid interval $[t_{n-m}, t_{n-m+1}]$; there $y$ is the cubic Hermite interpolant of
    the stored values and *one-sided* slopes of that interval (its grid values at
    $c = 0, 1$; at $c = \frac12$, `_hermite_mid`). Intervals left of 0 ($n - m < 0$,
    the history) read `hist`, the constant history, also at their right end $t = 0$.
    A jump between `hist` and `y0` makes $\dot y$ jump at $t = m\Delta t$; there the
    slope from the left (the last stage of the step that ends there) and the slope from
    the right (the first stage of the next step) are both kept, so every interpolant and
    every step sees one smooth piece of the solution, and the order stays 4. Elsewhere
    the two slopes are equal and the first stage of a step reuses the last evaluation
    (four field evaluations per step). The ring buffer holds the last $m_{\max} + 1$
    grid values and both slopes.

    Saves `save(y)` at $t_0$ and after each `stride` steps, `n_save` times (`lax.scan`,
    so the whole run is one compiled loop, reverse-mode differentiable).

    Returns:
        `(outputs stacked over the n_save + 1 save points, final y)`.
    """
    pairwise = not isinstance(lags, int)
    L = (int(np.max(lags)) if pairwise else lags) + 1
    if pairwise:
        delayed, breaks = _pair_lag_reader(lags, hist, dt)
    else:
        delayed, breaks = _one_lag_reader(lags, hist, dt)
    step = _rk4_step(field, delayed, breaks, dt, L)

    def interval(carry, _):
        carry, _ = jax.lax.scan(step, carry, None, length=stride)
        return carry, save(carry[1])

    Y = jnp.zeros((L,) + y0.shape, y0.dtype).at[0].set(y0)
    FR = jnp.zeros_like(Y)  # slope from the right at each grid point
    FL = jnp.zeros_like(Y)  # slope from the left
    n0 = jnp.zeros((), jnp.int32)
    k1 = field(y0, delayed(n0, Y, FR, FL, 0, y0))
    carry = (n0, y0, k1, Y, FR, FL)
    carry, outs = jax.lax.scan(interval, carry, None, length=n_save)
    first = save(y0)
    outs = jax.tree_util.tree_map(
        lambda a, b: jnp.concatenate([a[None], b], axis=0), first, outs
    )
    return outs, carry[1]

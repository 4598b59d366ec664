r"""Convergence of the fixed-query flow from uniform starts: the exact prediction and the measurement.

Seed 001's Table 6 integrates $\dot z = (I - zz^\top)h$ for every oscillator of a
trained model from uniform random starts and counts how many reach $z^\star = h/\|h\|$
by $T$. The exact angle law makes that count a function of $\|h\|$ alone:
[`predict_convergence`][syncattn.lohe.predict_convergence] computes it,
[`fixed_query_errors`][syncattn.lohe.fixed_query_errors] measures it with
[`syncattn.lohe.settle`][].
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import gammaln

from .._checks import (
    as_float,
    check_dim,
    check_finite,
    check_nonempty,
    check_scalar_range,
    is_concrete,
)
from .._numerics import eps_for
from .._types import Array, ArrayLike, Float, ScalarLike
from ..sphere import cap_probability
from ._settle import settle


def _error_angle(err):
    """Angle $\\varphi$ with chord $\\|z - z^\\star\\| = 2\\sin(\\varphi/2)$ equal to `err`."""
    return 2 * jnp.arcsin(jnp.minimum(err / 2, 1.0))


@functools.partial(jax.jit, static_argnums=(4, 5))
def _predict(a, T, delta_c, delta_a, d, n_grid):
    dtype = a.dtype
    dd = jnp.asarray(d, dtype)

    def fail(delta):  # P(phi(T) > delta) = cap of angle pi - phi_c about -h
        alpha = 2 * jnp.arctan2(
            jnp.cos(delta / 2) * jnp.exp(-a * T), jnp.sin(delta / 2)
        )
        return cap_probability(alpha, d)

    # mean chord error: s = log tan(phi0/2) has density sech(s)^(d-1) / Z on R,
    # Z = sqrt(pi) Gamma((d-1)/2) / Gamma(d/2), and phi(T) = 2 atan(e^(s - |h| T)),
    # so 2 sin(phi(T)/2) = 2 e^u / sqrt(1 + e^(2u)), u = s - |h| T. The integrand is
    # analytic in a strip of half-width pi/2: the trapezoid rule converges geometrically.
    L = 40.0
    s = jnp.linspace(-L, L, n_grid, dtype=dtype)
    ds = s[1] - s[0]
    log_sech = math.log(2.0) - jnp.abs(s) - jnp.log1p(jnp.exp(-2 * jnp.abs(s)))
    log_z = 0.5 * math.log(math.pi) + gammaln((dd - 1) / 2) - gammaln(dd / 2)
    w = jnp.exp((dd - 1) * log_sech - log_z) * ds

    def mean_err(ai):
        u = s - ai * T
        # e^u / sqrt(1 + e^(2u)) = 1 / sqrt(1 + e^(-2u)), stable for both signs of u
        chord = 2 * jnp.exp(-0.5 * jnp.logaddexp(0.0, -2 * u))
        return jnp.sum(w * chord)

    flat = a.reshape(-1)
    mean = jax.lax.map(mean_err, flat, batch_size=256).reshape(a.shape)
    return 1.0 - fail(delta_c), fail(delta_a), mean


def predict_convergence(
    norm_h: Float[ArrayLike, "*batch"],
    d: int,
    T: ScalarLike = 30.0,
    *,
    converged_tol: float = 0.01,
    antipodal_tol: float = 0.1,
) -> dict[str, Float[Array, "*batch"]]:
    r"""Exact odds that the fixed-query flow from a uniform start has converged by $T$.

    Under $\dot z = (I - zz^\top)h$ the angle $\varphi = \angle(z, h)$ obeys
    $\tan\frac{\varphi(T)}2 = \tan\frac{\varphi_0}2 e^{-\|h\|T}$
    ([`syncattn.lohe.exact_angle`][]) and the error is the chord
    $e(T) = \|z(T) - h/\|h\|\| = 2\sin\frac{\varphi(T)}2$. For
    $z_0 \sim \mathrm{Unif}(S^{d-1})$, with $\delta(\epsilon) = 2\arcsin(\epsilon/2)$:

    $$P(e(T) > \epsilon) = P\bigl(\angle(z_0, -h) < \pi - \varphi_c\bigr),\quad
      \tan\frac{\varphi_c}{2} = \tan\frac{\delta(\epsilon)}{2}\, e^{\|h\|T}$$

    (a cap probability, [`syncattn.lohe.finite_time_failure_probability`][]), so

    $$p_\mathrm{conv} = 1 - P(e(T) > \epsilon_c), \qquad
      p_\mathrm{anti} = P(e(T) > \epsilon_a), \qquad
      \mathbb E\, e(T) = \int_{\mathbb R} \frac{2}{\sqrt{1 + e^{-2(s - \|h\|T)}}}
      \frac{\operatorname{sech}^{d-1} s}{Z_d}\, ds,$$

    where $s = \log\tan(\varphi_0/2)$ has density $\operatorname{sech}^{d-1}(s)/Z_d$,
    $Z_d = \sqrt\pi\,\Gamma(\frac{d-1}2)/\Gamma(\frac d2)$ (from the angle density
    $\sin^{d-2}\varphi_0$). The integral is the trapezoid rule on $|s| \le 40$ with 1,601
    nodes (the integrand is analytic in a strip: error far below float64 rounding).

    $\|h\|$ = `norm_h` (per oscillator), $d$ = `d`, $T$ = `T`, $\epsilon_c$ =
    `converged_tol`, $\epsilon_a$ = `antipodal_tol`. Averaging the returned arrays over
    a model's oscillators predicts the fractions of seed 001's Table 6 (converged:
    error $< 0.01$; antipodal: error $> 0.1$; mean error) before any integration.
    $\|h\| = 0$ is legal: the start does not move ($e(T) = e(0)$).

    Args:
        norm_h: drive norms $\|h\| \ge 0$, any shape.
        d: oscillator dimension, an int $\ge 2$.
        T: horizon $T \ge 0$.
        converged_tol: $\epsilon_c \in (0, 2)$.
        antipodal_tol: $\epsilon_a \in (0, 2)$.

    Returns:
        `{"converged", "antipodal", "mean_error"}`, each of the shape of `norm_h`.

    Raises:
        ValueError: negative, NaN or empty `norm_h`; $d < 2$; $T < 0$; tolerances outside
            $(0, 2)$. TypeError: non-int `d`.

    Example:
        >>> predict_convergence(jnp.array([0.2, 1.0]), 2)["converged"]  # [0.78, 1.0]
    """
    d = check_dim(d)
    a = as_float(norm_h, "norm_h")
    if a.size == 0:
        raise ValueError("norm_h must not be empty.")
    check_finite(a, "norm_h")
    a = check_scalar_range(a, "norm_h", low=0.0)
    T = as_float(T, "T")
    T = check_scalar_range(T, "T", low=0.0)
    if jnp.ndim(T) != 0:
        raise ValueError(f"T must be a scalar; got shape {jnp.shape(T)}.")
    for v, name in ((converged_tol, "converged_tol"), (antipodal_tol, "antipodal_tol")):
        check_scalar_range(
            v, name, low=0.0, high=2.0, low_inclusive=False, high_inclusive=False
        )
    dtype = jnp.result_type(a.dtype, T.dtype)
    a, T = a.astype(dtype), T.astype(dtype)
    dc = _error_angle(jnp.asarray(converged_tol, dtype))
    da = _error_angle(jnp.asarray(antipodal_tol, dtype))
    conv, anti, mean = _predict(a, T, dc, da, d, 1601)
    return {"converged": conv, "antipodal": anti, "mean_error": mean}


def _errors(h, z0, t1, rtol, atol, max_steps, solver):
    from .._numerics import safe_norm
    from ._fixed_query import _equilibrium

    z_star, deg = _equilibrium(h, eps_for(h.dtype))
    # a degenerate drive does not move z: integrate it with h = 0 exactly
    drive = jnp.where(deg[..., None], 0.0, h)
    zT = settle(
        z0, drive, t1, solver=solver, rtol=rtol, atol=atol, max_steps=max_steps
    ).final
    return safe_norm(zT - z_star)


def fixed_query_errors(
    h: Float[ArrayLike, "*batch d"],
    z0: Float[ArrayLike, "*batch d"],
    t1: float = 30.0,
    *,
    solver: str = "dopri5",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    max_steps: int = 65_536,
) -> Float[Array, "*batch"]:
    r"""Distance to the equilibrium after integrating the fixed-query flow to $t_1$.

    $$e = \bigl\|z(t_1) - z^\star\bigr\|,\qquad \dot z = (I - zz^\top)h,\quad
      z(0) = z_0,\quad z^\star = h/\|h\|$$

    $h$ = `h`, $z_0$ = `z0`, $t_1$ = `t1`; $z^\star$ as [`syncattn.lohe.equilibrium`][]
    ($e_1$ for a degenerate drive, which then does not move $z$). The flow is
    integrated by [`syncattn.lohe.settle`][] (diffrax, `solver`, `rtol`/`atol`), the
    library's one fixed-query integrator: every oscillator keeps its own adaptive
    steps. Seed 001's Table 6 used RK45 at rtol = atol = 1e-4;
    the defaults here are tighter, so the measurement is the flow, not the solver.

    Args:
        h: drives, shape `(*batch, d)`, $d \ge 2$.
        z0: unit starts, the shape of `h` (broadcast it yourself, e.g. `(S, n, d)`).
        t1: horizon $t_1 \ge 0$.
        solver, rtol, atol, max_steps: passed to [`syncattn.lohe.settle`][].

    Returns:
        errors $e \in [0, 2]$, shape `(*batch,)`.

    Raises:
        ValueError: shapes differ, $d < 2$, empty or NaN/inf input, `z0` off the unit
            sphere, $t_1 < 0$.

    Example:
        >>> fixed_query_errors(jnp.array([[2.0, 0.0]]), jnp.array([[0.0, 1.0]]), 30.0)
    """
    h, z0 = as_float(h, "h"), as_float(z0, "z0")
    for x, name in ((h, "h"), (z0, "z0")):
        check_nonempty(x, name)
        check_finite(x, name)
    if h.shape != z0.shape:
        raise ValueError(f"z0 must have the shape of h {h.shape}; got {z0.shape}.")
    if h.shape[-1] < 2:
        raise ValueError(f"h must have d >= 2 on its last axis; got shape {h.shape}.")
    if is_concrete(z0):
        dev = np.max(np.abs(np.linalg.norm(np.asarray(z0, np.float64), axis=-1) - 1))
        if dev > eps_for(z0.dtype):
            raise ValueError(
                f"z0 must lie on the unit sphere; max | ||z0|| - 1 | = {dev:.3g}."
            )
    t1 = check_scalar_range(t1, "t1", low=0.0)
    dtype = jnp.result_type(h.dtype, z0.dtype)
    return _errors(
        h.astype(dtype),
        z0.astype(dtype),
        jnp.asarray(t1, dtype),
        float(rtol),
        float(atol),
        int(max_steps),
        solver,
    )

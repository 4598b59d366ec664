r"""Watanabe-Strogatz reduction of identical oscillators (Marvel-Mirollo-Strogatz form).

Identical phase oscillators driven by one common first harmonic,

$$\dot\theta_j = \omega + \operatorname{Im}\bigl(H(t)\,e^{-i\theta_j}\bigr),\qquad
  H = K e^{-i\beta} Z_1 + h(t),\quad Z_1 = \frac1N\sum_k e^{i\theta_k}$$

(Kuramoto-Sakaguchi with identical $\omega$, coupling $K$, phase lag $\beta$, and a
common drive $h$), move by a Moebius map of the unit disk: with constants
$w_j = e^{i\varphi_j}$,

$$e^{i\theta_j(t)} = M_{\alpha(t),\psi(t)}(w_j),\qquad
  M_{\alpha,\psi}(w) = \frac{e^{i\psi}w + \alpha}{1 + \bar\alpha e^{i\psi}w},\quad |\alpha| < 1,$$

$$\dot\alpha = i\omega\alpha + \tfrac12\bigl(H - \bar H\alpha^2\bigr),\qquad
  \dot\psi = \omega + \operatorname{Im}\bigl(H\bar\alpha\bigr).$$

Three real ODEs; the $N$ constants $\varphi_j$ carry $N - 3$ constants of motion.

**Normalisation** (Marvel, Mirollo and Strogatz 2009): [`watanabe_strogatz_reduce`][syncattn.kuramoto.watanabe_strogatz_reduce]
picks $\psi = 0$ and the $\alpha$ for which the constants are centred,
$\sum_j w_j = 0$ (the conformal barycentre of the $e^{i\theta_j}$). It exists and is
unique when no phase is held by $N/2$ or more oscillators (Douady-Earle), which needs
$N \ge 3$. Proved in `proofs/proof_watanabe_strogatz.py`.
"""

from __future__ import annotations

from collections.abc import Callable

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from .. import _simulate as driver
from .._checks import as_float, check_finite, is_concrete
from .._types import Array, ArrayLike, Complex, Float, Inexact, Int, ScalarLike
from ._coupling import _check_theta


def _mobius(alpha, psi, w):
    u = jnp.exp(1j * psi)[..., None] * w
    a = alpha[..., None]
    return (u + a) / (1.0 + jnp.conj(a) * u)


def _check_alpha_psi_phi(alpha, psi, phi):
    alpha = jnp.asarray(alpha)
    if not jnp.issubdtype(alpha.dtype, jnp.complexfloating):
        alpha = as_float(alpha, "alpha")
    check_finite(alpha, "alpha")
    if is_concrete(alpha) and np.size(alpha) and np.max(np.abs(np.asarray(alpha))) >= 1:
        raise ValueError(
            f"alpha must lie in the open unit disk |alpha| < 1; got max |alpha| = "
            f"{np.max(np.abs(np.asarray(alpha)))}."
        )
    psi = as_float(psi, "psi")
    check_finite(psi, "psi")
    phi = _check_theta(phi, "phi")
    batch = phi.shape[:-1]
    for x, name in ((alpha, "alpha"), (psi, "psi")):
        if x.shape != batch:
            raise ValueError(
                f"{name} must have phi's batch shape {batch} (phi: (*batch, N)); got {x.shape}."
            )
    dtype = jnp.result_type(phi.dtype, psi.dtype, jnp.real(alpha).dtype)
    cdtype = jnp.result_type(dtype, jnp.complex64)
    return alpha.astype(cdtype), psi.astype(dtype), phi.astype(dtype)


def watanabe_strogatz_reconstruct(
    alpha: Inexact[ArrayLike, "*batch"] | complex | float,
    psi: Float[ArrayLike, "*batch"] | float,
    phi: Float[ArrayLike, "*batch n"],
) -> Float[Array, "*batch n"]:
    r"""Phases from the group parameters and the constants: $\theta_j = \arg M_{\alpha,\psi}(e^{i\varphi_j})$.

    $$M_{\alpha,\psi}(w) = \frac{e^{i\psi}w + \alpha}{1 + \bar\alpha e^{i\psi}w}$$

    a Moebius map of the unit disk onto itself ($|w| = 1 \Rightarrow |M(w)| = 1$).

    Args:
        alpha: $\alpha$, complex, $|\alpha| < 1$, shape `(*batch,)`.
        psi: $\psi$, real, shape `(*batch,)`.
        phi: constants $\varphi_j$, shape `(*batch, N)`.

    Returns:
        $\theta$ in $(-\pi, \pi]$, shape `(*batch, N)`.

    Raises:
        ValueError: $|\alpha| \ge 1$, NaN/inf, batch shapes that differ.

    Example:
        >>> watanabe_strogatz_reconstruct(0.0, 0.5, jnp.array([0.0, 1.0]))  # a rotation
        Array([0.5, 1.5], dtype=float32)
    """
    alpha, psi, phi = _check_alpha_psi_phi(alpha, psi, phi)
    return jnp.angle(_mobius(alpha, psi, jnp.exp(1j * phi))).astype(phi.dtype)


def _check_identical(theta, name="theta"):
    theta = _check_theta(theta, name)
    n = theta.shape[-1]
    if n < 3:
        raise ValueError(
            f"the Watanabe-Strogatz reduction needs N >= 3 oscillators (3 group parameters); "
            f"{name} has N={n} on its last axis."
        )
    if is_concrete(theta):
        wrapped = np.mod(np.asarray(theta, np.float64), 2 * np.pi).reshape(-1, n)
        worst = max(int(np.unique(row, return_counts=True)[1].max()) for row in wrapped)
        if 2 * worst >= n:
            raise ValueError(
                f"{name}: one phase is held by {worst} of N={n} oscillators; the centring "
                "normalisation (conformal barycentre) needs every phase held by fewer than N/2."
            )
    return theta


@jax.jit
def _reduce(theta):
    z = jnp.exp(1j * theta)
    eps = jnp.finfo(theta.dtype).eps

    def pull(alpha):  # the constants w = M_alpha^{-1}(z) (psi = 0)
        a = alpha[..., None]
        return (z - a) / (1.0 - jnp.conj(a) * z)

    def cond(state):
        k, _, m = state
        return (k < 100) & jnp.any(jnp.abs(m) > 8 * eps)

    def step(state):
        # Newton step for mean(w) = 0: moving the origin to delta changes the mean by
        # -delta + W2 conj(delta) to first order, W2 = mean(w^2); steps capped at 1/2.
        k, alpha, m = state
        w = pull(alpha)
        m = jnp.mean(w, axis=-1)
        W2 = jnp.mean(w * w, axis=-1)
        delta = (m + W2 * jnp.conj(m)) / (1.0 - jnp.abs(W2) ** 2)
        size = jnp.abs(delta)
        delta = jnp.where(size > 0.5, 0.5 * delta / jnp.where(size > 0, size, 1.0), delta)
        alpha = (alpha + delta) / (1.0 + jnp.conj(alpha) * delta)
        return k + 1, alpha, m

    alpha0 = jnp.zeros(theta.shape[:-1], z.dtype)
    m0 = jnp.ones(theta.shape[:-1], z.dtype)
    k, alpha, _ = jax.lax.while_loop(cond, step, (0, alpha0, m0))
    w = pull(alpha)
    return alpha, jnp.angle(w).astype(theta.dtype), jnp.abs(jnp.mean(w, axis=-1))


def watanabe_strogatz_reduce(
    theta: Float[ArrayLike, "*batch n"],
) -> tuple[Complex[Array, "*batch"], Float[Array, "*batch"], Float[Array, "*batch n"]]:
    r"""Group parameters and constants of a phase configuration (MMS normalisation).

    Finds $(\alpha, \psi, \varphi)$ with $e^{i\theta_j} = M_{\alpha,\psi}(e^{i\varphi_j})$,

    $$\psi = 0,\qquad \sum_j e^{i\varphi_j} = 0,\qquad
      e^{i\varphi_j} = \frac{e^{i\theta_j} - \alpha}{1 - \bar\alpha e^{i\theta_j}},$$

    i.e. $\alpha$ is the conformal barycentre of the points $e^{i\theta_j}$, found by a
    damped Newton iteration on $\alpha \mapsto \frac1N\sum_j M_\alpha^{-1}(e^{i\theta_j})$
    (quadratic convergence; to $8\varepsilon$ of the dtype). Not differentiable (a
    `while_loop`).

    Args:
        theta: phases `(*batch, N)`, $N \ge 3$, no phase held by $N/2$ or more
            oscillators.

    Returns:
        `(alpha, psi, phi)`: complex `(*batch,)`, zeros `(*batch,)`, constants
        $\varphi \in (-\pi, \pi]$ `(*batch, N)`.

    Raises:
        ValueError: $N < 3$, NaN/inf, a phase held by $\ge N/2$ oscillators, or no
            convergence (a near-degenerate configuration).

    Example:
        >>> alpha, psi, phi = watanabe_strogatz_reduce(jnp.array([0.0, 2.0, 4.0]))
        >>> bool(abs(jnp.exp(1j * phi).mean()) < 1e-6)
        True
    """
    theta = _check_identical(theta)
    alpha, phi, resid = _reduce(theta)
    if is_concrete(resid) and np.size(resid) and np.max(np.asarray(resid)) > 1e-6:
        raise ValueError(
            f"theta: the centring iteration did not converge (|mean w| = {np.max(np.asarray(resid)):.3g}); "
            "the configuration is too close to one with a phase held by N/2 oscillators."
        )
    return alpha, jnp.zeros(theta.shape[:-1], theta.dtype), phi


def _drive_at(drive, t, dtype):
    h = drive(t) if callable(drive) else drive[0] + 1j * drive[1]
    return jnp.asarray(h, dtype)


def _order_of(alpha, psi, wr, wi):
    r"""$Z_1 = \frac1N\sum_k M_{\alpha,\psi}(w_k)$ in real arithmetic (no complex division).

    With $u_k = e^{i\psi}w_k$, $c = \bar\alpha e^{i\psi}$ and $|w_k| = 1$:
    $M(w_k) = \alpha + (1 - |\alpha|^2)\,e^{i\psi}(w_k + \bar c)\,\rho_k$,
    $\rho_k = 1/|1 + c w_k|^2 = 1/(1 + |c|^2 + 2\operatorname{Re}(c w_k))$: three real
    weighted sums, a Poisson-kernel average.
    """
    e = jnp.exp(1j * psi)
    c = jnp.conj(alpha) * e
    cr, ci = jnp.real(c)[..., None], jnp.imag(c)[..., None]
    rho = 1.0 / (1.0 + (cr * cr + ci * ci) + 2.0 * (cr * wr - ci * wi))
    s0 = jnp.mean(rho, axis=-1)
    sr, si = jnp.mean(rho * wr, axis=-1), jnp.mean(rho * wi, axis=-1)
    S = (sr + 1j * si) + jnp.conj(c) * s0
    return alpha + (1.0 - jnp.abs(alpha) ** 2) * e * S


def _ws_velocity(alpha, psi, w, omega, K, beta, h):
    Z = _order_of(alpha, psi, *w)
    H = K * jnp.exp(-1j * beta) * Z + h
    alpha_dot = 1j * omega * alpha + 0.5 * (H - jnp.conj(H) * alpha**2)
    psi_dot = omega + jnp.imag(H * jnp.conj(alpha))
    return alpha_dot, psi_dot


def _check_model(omega, coupling, frustration, drive):
    out = []
    for x, name in ((omega, "omega"), (coupling, "coupling"), (frustration, "frustration")):
        x = as_float(x, name)
        if x.ndim != 0:
            raise ValueError(
                f"{name} must be a scalar: the Watanabe-Strogatz reduction is for identical "
                f"oscillators with global coupling; got shape {x.shape}."
            )
        check_finite(x, name)
        out.append(x)
    if not callable(drive):
        d = jnp.asarray(drive)
        if d.ndim != 0:
            raise ValueError(
                f"drive must be a complex scalar h or a callable t -> h; got shape {d.shape}."
            )
        check_finite(d, "drive")
        # a (real, imaginary) pair: diffrax's arguments stay real, one compilation for all h
        drive = (jnp.real(d).astype(out[0].dtype), jnp.imag(d).astype(out[0].dtype))
    return (*out, drive)


def watanabe_strogatz_field(
    alpha: Inexact[ArrayLike, "*batch"] | complex | float,
    psi: Float[ArrayLike, "*batch"] | float,
    phi: Float[ArrayLike, "*batch n"],
    omega: ScalarLike,
    coupling: ScalarLike,
    *,
    frustration: ScalarLike = 0.0,
    drive: ScalarLike | Callable = 0.0,
    t: ScalarLike = 0.0,
) -> tuple[Complex[Array, "*batch"], Float[Array, "*batch"]]:
    r"""The three-dimensional Watanabe-Strogatz flow of the group parameters.

    $$\dot\alpha = i\omega\alpha + \tfrac12\bigl(H - \bar H\alpha^2\bigr),\qquad
      \dot\psi = \omega + \operatorname{Im}\bigl(H\bar\alpha\bigr),$$

    $$H = K e^{-i\beta} Z_1 + h(t),\qquad
      Z_1 = \frac1N\sum_k M_{\alpha,\psi}(e^{i\varphi_k}),$$

    under which $e^{i\theta_j} = M_{\alpha,\psi}(e^{i\varphi_j})$ solves
    $\dot\theta_j = \omega + \frac KN\sum_k\sin(\theta_k - \theta_j - \beta)
    + \operatorname{Im}(h e^{-i\theta_j})$ for every $j$. $Z_1$ costs $O(N)$; with
    $K = 0$ (a common drive only) the flow costs $O(1)$.

    Symbols: $\omega$ = `omega`, $K$ = `coupling`, $\beta$ = `frustration`,
    $h$ = `drive`, $\varphi$ = `phi`.

    Args:
        alpha: $\alpha$, complex `(*batch,)`, $|\alpha| < 1$.
        psi: $\psi$, `(*batch,)`.
        phi: constants `(*batch, N)`.
        omega: the common natural frequency (scalar).
        coupling: global coupling $K$ (scalar).
        frustration: Sakaguchi phase lag $\beta$ (scalar).
        drive: common forcing $h$: a complex scalar, or a callable `t -> h`.
        t: time at which a callable `drive` is evaluated.

    Returns:
        `(alpha_dot, psi_dot)`.

    Example:
        >>> a, p = watanabe_strogatz_field(0.0, 0.0, jnp.array([0.0, 2.0, 4.0]), 1.0, 0.0, drive=0.2)
        >>> complex(a), float(p)  # H = h: alpha' = h/2, psi' = omega
        ((0.1+0j), 1.0)
    """
    alpha, psi, phi = _check_alpha_psi_phi(alpha, psi, phi)
    omega, K, beta, drive = _check_model(omega, coupling, frustration, drive)
    dtype = phi.dtype
    h = _drive_at(drive, jnp.asarray(t, dtype), alpha.dtype)
    return _ws_velocity(
        alpha, psi, (jnp.cos(phi), jnp.sin(phi)), omega.astype(dtype), K.astype(dtype),
        beta.astype(dtype), h,
    )


class WatanabeStrogatzSolution(eqx.Module):
    r"""Result of [`watanabe_strogatz_simulate`][syncattn.kuramoto.watanabe_strogatz_simulate].

    Attributes:
        ts: save times `(S,)`.
        alpha: $\alpha(t)$, complex `(S, *batch)`.
        psi: $\psi(t)$, `(S, *batch)`.
        phi: the constants $\varphi$, `(*batch, N)`.
        states: the reconstructed phases `(S, *batch, N)` in $(-\pi, \pi]$, or `None`.
        order: $Z_1(t)$, complex `(S, *batch)`.
        r: $|Z_1(t)|$, `(S, *batch)`.
        final: the phases at $t_1$, `(*batch, N)`.
        num_steps: accepted solver steps.
    """

    ts: Float[Array, " S"]
    alpha: Complex[Array, " S *batch"]
    psi: Float[Array, " S *batch"]
    phi: Float[Array, "*batch n"]
    states: Float[Array, " S *batch n"] | None
    order: Complex[Array, " S *batch"]
    r: Float[Array, " S *batch"]
    final: Float[Array, "*batch n"]
    num_steps: Int[Array, ""]

    @property
    def theta(self):
        """Alias of `states`."""
        return self.states


def _ws_rhs(t, y, args):  # module level: the jit cache hits across calls
    w, omega, K, beta, drive = args
    alpha = y[..., 0] + 1j * y[..., 1]
    h = _drive_at(drive, t, alpha.dtype)
    a_dot, p_dot = _ws_velocity(alpha, y[..., 2], w, omega, K, beta, h)
    return jnp.stack([jnp.real(a_dot), jnp.imag(a_dot), p_dot], axis=-1)


@eqx.filter_jit
def _ws_solve(y0, args, t1, ts, solver, controller, dt0, max_steps, save_states):
    wr, wi = args[0]

    def save(t, y, args):
        alpha, psi = y[..., 0] + 1j * y[..., 1], y[..., 2]
        Z = _order_of(alpha, psi, wr, wi)
        z = _mobius(alpha, psi, wr + 1j * wi) if save_states else None
        return y, Z, (None if z is None else jnp.angle(z))

    sol = diffrax.diffeqsolve(
        diffrax.ODETerm(_ws_rhs),
        solver,
        t0=jnp.zeros((), y0.dtype),
        t1=t1,
        dt0=dt0,
        y0=y0,
        args=args,
        saveat=diffrax.SaveAt(
            subs=[diffrax.SubSaveAt(ts=ts, fn=save), diffrax.SubSaveAt(t1=True)]
        ),
        stepsize_controller=controller,
        max_steps=max_steps,
    )
    (ys, Z, states), final = sol.ys
    return sol.ts[0], ys, Z, states, final[0], sol.stats["num_accepted_steps"]


def watanabe_strogatz_simulate(
    theta0: Float[ArrayLike, "*batch n"],
    omega: ScalarLike,
    coupling: ScalarLike,
    t1: ScalarLike,
    *,
    frustration: ScalarLike = 0.0,
    drive: ScalarLike | Callable = 0.0,
    saveat: int | Float[ArrayLike, " S"] | None = 101,
    solver: str | diffrax.AbstractSolver = "dopri5",
    rtol: float | None = 1e-10,
    atol: float = 1e-12,
    dt0: float | None = None,
    max_steps: int = 2**20,
    save_phases: bool = True,
) -> WatanabeStrogatzSolution:
    r"""Identical oscillators with global coupling, solved through the Watanabe-Strogatz flow.

    $$\dot\theta_j = \omega + \frac KN\sum_k\sin(\theta_k - \theta_j - \beta)
      + \operatorname{Im}(h(t)e^{-i\theta_j}),\qquad \theta(0) = \theta_0,$$

    reduced by [`watanabe_strogatz_reduce`][syncattn.kuramoto.watanabe_strogatz_reduce],
    integrated as the three real ODEs of
    [`watanabe_strogatz_field`][syncattn.kuramoto.watanabe_strogatz_field] (state
    $(\operatorname{Re}\alpha, \operatorname{Im}\alpha, \psi)$, diffrax, error control on
    those three) and reconstructed at the save times. Equal (to the solver's tolerance)
    to [`syncattn.kuramoto.simulate`][] with `omega` and `coupling` scalars, at a cost
    independent of $N$ in the solver and $O(N)$ only in the sum $Z_1$ (measured in
    `tests/kuramoto/test_watanabe_strogatz.py`). Tolerances default to 1e-10/1e-12: the
    reduced state is small, so tight control is cheap.

    Args:
        theta0: initial phases `(*batch, N)` (as for the reduction).
        omega: common natural frequency (scalar).
        coupling: global coupling $K$ (scalar).
        t1: final time $t_1 \ge 0$.
        frustration: phase lag $\beta$ (scalar).
        drive: common forcing $h$: a complex scalar or a callable `t -> h` (traceable).
        saveat, solver, rtol, atol, dt0, max_steps: as in [`syncattn.kuramoto.simulate`][].
        save_phases: reconstruct and keep the phases at every save time.

    Returns:
        A [`syncattn.kuramoto.WatanabeStrogatzSolution`][].

    Raises:
        ValueError: as [`watanabe_strogatz_reduce`][syncattn.kuramoto.watanabe_strogatz_reduce];
            non-scalar `omega`, `coupling`, `frustration`, `drive`; the solver options.

    Example:
        >>> sol = watanabe_strogatz_simulate(jnp.array([0.0, 1.0, 2.0]), 0.0, 1.0, 5.0, saveat=2)
        >>> float(sol.r[-1]) > float(sol.r[0])
        True
    """
    theta0 = _check_identical(theta0, "theta0")
    omega, K, beta, drive = _check_model(omega, coupling, frustration, drive)
    dtype = theta0.dtype
    t1, t1_np = driver.check_t1(t1, dtype)
    solver, controller = driver.check_options(
        solver=solver, rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps
    )
    ts, _ = driver.save_times(saveat, t1, t1_np, dtype)
    alpha, psi, phi = watanabe_strogatz_reduce(theta0)
    y0 = jnp.stack([jnp.real(alpha), jnp.imag(alpha), psi], axis=-1).astype(dtype)
    args = (
        (jnp.cos(phi), jnp.sin(phi)), omega.astype(dtype), K.astype(dtype),
        beta.astype(dtype), drive,
    )
    ts, ys, Z, states, yf, steps = _ws_solve(
        y0, args, t1, ts, solver, controller, dt0, int(max_steps), bool(save_phases)
    )
    final = jnp.angle(_mobius(yf[..., 0] + 1j * yf[..., 1], yf[..., 2], jnp.exp(1j * phi)))
    return WatanabeStrogatzSolution(
        ts, ys[..., 0] + 1j * ys[..., 1], ys[..., 2], phi,
        None if states is None else states.astype(dtype), Z, jnp.abs(Z).astype(dtype),
        final.astype(dtype), steps,
    )

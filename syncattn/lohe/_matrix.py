r"""The Lohe matrix flow on $SO(n)^N$ / $U(n)^N$ and its Runge-Kutta-Munthe-Kaas integrator.

$$\dot U_j = W_j U_j + \tfrac12 \sum_k K_{jk}\bigl(U_k - U_j U_k^H U_j\bigr),
  \qquad W_j = -iH_j \ (U(n)),\quad W_j = \Omega_j \ (SO(n))$$

A scalar coupling $K$ means all-to-all $K_{jk} = K/N$ (Lohe's $\frac{K}{2N}\sum_k$).
States are `(*batch, N, n, n)`; saved trajectories put time first.
"""

from __future__ import annotations

import equinox as eqx
import jax.numpy as jnp
import numpy as np

from .. import _simulate as driver
from .._checks import as_float, check_broadcast, check_scalar_range, is_concrete
from .._numerics import eps_for
from .._simulate import Solution
from .._types import Array, ArrayLike, Inexact, ScalarLike
from ..geometry import Group, rkmk4, rkmk43
from ..group import as_matrix, check_member


def _check_states(U, name):
    U = check_member(U, name)
    if U.ndim < 3 or U.shape[-3] == 0:
        raise ValueError(
            f"{name} must have shape (*batch, N, n, n) with N >= 1 oscillators; got "
            f"{U.shape}."
        )
    return U


def _generator(H, U):
    """The drift generator W_j (skew), broadcast to U's shape; None for H = None."""
    if H is None:
        return None
    H = as_matrix(H, "H")
    N, n = U.shape[-3], U.shape[-1]
    if H.ndim < 3 or H.shape[-3:] not in ((N, n, n), (1, n, n)):
        raise ValueError(
            f"H must have shape (N, n, n)=({N}, {n}, {n}) (or (*batch, N, n, n)); got "
            f"{H.shape}."
        )
    check_broadcast(
        f"H's batch shape {H.shape[:-3]} does not broadcast against U's {U.shape[:-3]}.",
        H.shape[:-3],
        U.shape[:-3],
    )
    cplx = jnp.iscomplexobj(U)
    if jnp.iscomplexobj(H) and not cplx:
        raise TypeError(
            "H is complex but the states are real (SO(n)): pass real skew-symmetric "
            "generators Omega_j (the drift is Omega_j U_j)."
        )
    if is_concrete(H) and H.size:
        X = np.asarray(H.astype(jnp.complex128 if jnp.iscomplexobj(H) else jnp.float64))
        sign = -1.0 if cplx else 1.0  # Hermitian for U(n), skew for SO(n)
        dev = float(np.max(np.abs(X + sign * np.conj(np.swapaxes(X, -1, -2)))))
        tol = eps_for(
            jnp.float32 if H.dtype in (jnp.float16, jnp.bfloat16) else H.dtype
        )
        if dev > tol * max(1.0, float(np.max(np.abs(X)))):
            what = "Hermitian (H^H = H)" if cplx else "real skew-symmetric (H^T = -H)"
            raise ValueError(
                f"H must be {what} for {'U(n)' if cplx else 'SO(n)'} states; got "
                f"max|H {'-' if cplx else '+'} H^H| = {dev:.3g}."
            )
    W = -1j * H.astype(U.dtype) if cplx else H.astype(U.dtype)
    return jnp.broadcast_to(W, U.shape)


def _check_coupling(coupling, N, dtype):
    K = as_float(coupling, "coupling")
    if K.ndim != 0 and K.shape != (N, N):
        raise ValueError(
            f"coupling must be a scalar K (all-to-all K/N) or an (N, N)=({N}, {N}) "
            f"matrix (row j = whom U_j listens to); got shape {K.shape}."
        )
    if is_concrete(K) and K.size and not np.all(np.isfinite(np.asarray(K))):
        raise ValueError("coupling must be finite.")
    return K.astype(jnp.finfo(dtype).dtype)


def _check_field_args(U, H, coupling, name):
    U = _check_states(U, name)
    return U, _generator(H, U), _check_coupling(coupling, U.shape[-3], U.dtype)


def _geometry(U) -> Group:
    """The group of the states: U(n) for complex, SO(n) for real `U` (the dtype names
    the group)."""
    return Group("u" if jnp.iscomplexobj(U) else "so", U.shape[-1])


def _adjoint(M):
    return (
        jnp.conj(jnp.swapaxes(M, -1, -2))
        if jnp.iscomplexobj(M)
        else jnp.swapaxes(M, -1, -2)
    )


def _pull(U, K):
    r"""$M_j = \sum_k K_{jk} U_k$ (scalar $K$: $K \cdot$ mean, one shared $M$)."""
    if K.ndim == 0:
        return K.astype(U.dtype) * jnp.mean(U, axis=-3, keepdims=True)
    return jnp.einsum("jk,...kab->...jab", K.astype(U.dtype), U)


def _field(U, W, K):
    # the literal ambient formula W U + 1/2 (M - U M^H U): the ODE of method="diffrax",
    # defined off the group too (equal there to U xi)
    M = _pull(U, K)
    f = 0.5 * (M - U @ _adjoint(M) @ U)
    return f if W is None else f + W @ U


def _xi(t, U, args):
    # the left-trivialised field U^H f = skew(U^H (M + W U)): the group's tangent
    # projection of the pull plus the drift (exact on the group; autonomous)
    W, K = args
    M = _pull(U, K)
    return _geometry(U).project(U, M if W is None else M + W @ U)


def matrix_vector_field(
    U: Inexact[ArrayLike, "*batch N n n"],
    H: Inexact[ArrayLike, "*#hbatch N n n"] | None,
    coupling: ScalarLike | Inexact[ArrayLike, "N N"],
) -> Inexact[Array, "*batch N n n"]:
    r"""Lohe matrix vector field on $U(n)^N$ or $SO(n)^N$.

    $$\dot U_j = -iH_jU_j + \tfrac12\sum_{k=1}^N K_{jk}\bigl(U_k - U_jU_k^HU_j\bigr)$$

    $U_j$ = `U[..., j, :, :]`; $H_j$ = `H[j]`, Hermitian natural frequencies for
    complex (U(n)) states, or, for real (SO(n)) states, real skew-symmetric generators
    $\Omega_j$ used in place of $-iH_j$ (`None`: no drift); $K$ = `coupling`, a scalar
    for all-to-all $K_{jk} = K/N$ (Lohe's $\frac{K}{2N}\sum_k$) or an `(N, N)` matrix.
    The field is tangent: $U_j^H\dot U_j = \operatorname{skew}(U_j^H(W_jU_j + M_j))$,
    $M_j = \sum_k K_{jk}U_k$, $W_j = -iH_j$. On $U(1)$, $U_j = e^{i\theta_j}$, it is
    the Kuramoto field $\dot\theta_j = -H_j + \sum_k K_{jk}\sin(\theta_k - \theta_j)$.

    Raises:
        ValueError: states not in the group (concrete), `H` not Hermitian / skew,
            shapes, NaN/inf. TypeError: complex `H` with real states.
    """
    U, W, K = _check_field_args(U, H, coupling, "U")
    return _field(U, W, K)


def _order(U):
    # Z = mean_j U_j and R = |Z|_F / sqrt(n): the group geometry's order parameter over
    # the oscillator axis (the last batch axis of the geometry's convention)
    return jnp.mean(U, axis=-3), _geometry(U).order_parameter(U, axis=-1)


def _to_real(U):
    return jnp.stack([jnp.real(U), jnp.imag(U)]) if jnp.iscomplexobj(U) else U


def _from_real(y, cplx):
    return y[0] + 1j * y[1] if cplx else y


def _ode_rhs_real(t, y, args):
    return _field(y, *args)


def _ode_rhs_complex(t, y, args):
    # state and drift travel as (Re, Im) pairs: diffrax sees real arrays only
    W, K = args
    W = None if W is None else _from_real(W, True)
    return _to_real(_field(_from_real(y, True), W, K))


def _order_real(y):
    return _order(y)


def _order_complex(y):
    return _order(_from_real(y, True))


def matrix_simulate(
    U0: Inexact[ArrayLike, "*batch N n n"],
    H: Inexact[ArrayLike, "*#hbatch N n n"] | None,
    coupling: ScalarLike | Inexact[ArrayLike, "N N"],
    t1: ScalarLike,
    *,
    saveat: int | ArrayLike | list | tuple | None = 101,
    dt0: float | None = None,
    method: str = "rkmk4",
    solver: str = "dopri8",
    rtol: float | None = 1e-10,
    atol: float = 1e-12,
    max_steps: int = 2**20,
) -> Solution:
    r"""Integrate the Lohe matrix flow from $U(0) = U_0$ to $t_1$.

    $$\dot U_j = W_jU_j + \tfrac12\sum_k K_{jk}(U_k - U_jU_k^HU_j),\qquad
      R(t) = \frac{1}{\sqrt n}\Bigl\|\frac1N\sum_j U_j(t)\Bigr\|_F$$

    Symbols as in [`syncattn.lohe.matrix_vector_field`][]. `method="rkmk4"` (default)
    is the Runge-Kutta-Munthe-Kaas method of order 4: with $\xi(U)_j = U_j^H\dot U_j$
    (left trivialisation) and $\operatorname{dexp}^{-1}_{-\Omega}(X) \approx X +
    \tfrac12[\Omega, X] + \tfrac1{12}[\Omega,[\Omega, X]]$, one step of size $h$ is

    $$k_1 = h\xi(U),\ k_2 = h\operatorname{dexp}^{-1}_{-k_1/2}\xi(Ue^{k_1/2}),\
      k_3 = h\operatorname{dexp}^{-1}_{-k_2/2}\xi(Ue^{k_2/2}),\
      k_4 = h\operatorname{dexp}^{-1}_{-k_3}\xi(Ue^{k_3}),$$
    $$U \leftarrow U\exp\bigl(\tfrac16(k_1 + 2k_2 + 2k_3 + k_4)\bigr),$$

    the classical RK4 applied to $\dot\Omega = \operatorname{dexp}^{-1}_{-\Omega}
    \xi(U_0e^{\Omega})$ (the truncation after the double commutator keeps order 4):
    the generic `syncattn.geometry.rkmk4` (and `syncattn.geometry.rkmk43`) on
    the group geometry `Group("so" | "u", n)`, with $\xi$ its tangent projection
    `project`$(U, M + WU)$.
    Every update multiplies by the exponential of a Lie algebra element, so the states
    stay in the group to rounding (no projection). Each interval between save times
    (and to $t_1$) takes the same number of equal steps of at most `dt0` (default
    1e-2), one `jax.lax.scan`; `t1` and `saveat` must be concrete.

    `method="rkmk4-adaptive"` takes the same steps with an embedded error estimate
    (RKMK4(3)): a fifth stage at the new point, $k_5 = h\operatorname{dexp}^{-1}_{-\Omega}
    \xi(Ue^{\Omega})$ with $\Omega = \tfrac16(k_1 + 2k_2 + 2k_3 + k_4)$, and the
    third-order weights $(\tfrac16, \tfrac13, \tfrac13, 0, \tfrac16)$ give
    $E = (k_5 - k_4)/6$, $O(h^4)$. A step is accepted when
    $\max_{ij}|E_{ij}| \le$ `atol` $+$ `rtol` $\max_{ij}|U_{ij}|$ (over the whole
    batch), and the next step is $h\min(5, \max(0.2, 0.9\,e^{-1/4}))$ ($e$: that ratio);
    steps are clipped to land on the save times. The first step is `dt0` (default 1e-2).
    `num_steps` counts accepted steps; more than `max_steps` attempts raise.

    `method="diffrax"` solves the ambient ODE with diffrax (`solver`, default Dopri8,
    PID controller at `rtol`/`atol`; complex states as (Re, Im) pairs): the reference
    for the integrator's tests, and a measure of how far an ambient solver drifts off
    the group ([`syncattn.group.defect`][]).

    Args:
        U0: initial states `(*batch, N, n, n)`, real (SO(n)) or complex (U(n)).
        H: natural frequencies (see [`syncattn.lohe.matrix_vector_field`][]) or `None`.
        coupling: scalar $K$ or `(N, N)` matrix.
        t1: final time $\ge 0$.
        saveat: `None`, an int $S \ge 2$, or non-decreasing times in $[0, t_1]$.
        dt0: largest RKMK step (default 1e-2); first step for diffrax and
            `"rkmk4-adaptive"`.
        method: `"rkmk4"`, `"rkmk4-adaptive"` or `"diffrax"`.
        solver: the diffrax solver (`method="diffrax"`).
        rtol, atol, max_steps: tolerances and step cap (`"diffrax"`, `"rkmk4-adaptive"`).

    Returns:
        [`syncattn.lohe.Solution`][]: `ts (S,)`, `states (S, *batch, N, n, n)`,
        `order (S, *batch, n, n)` = $\frac1N\sum_j U_j$, `r (S, *batch)` = $R$,
        `final (*batch, N, n, n)`, `num_steps`.

    Raises:
        ValueError: as [`syncattn.lohe.matrix_vector_field`][]; `t1 < 0`; bad
            `saveat`, `method`, `dt0`; traced `t1`/`saveat` with `method="rkmk4"`.
    """
    U0, W, K = _check_field_args(U0, H, coupling, "U0")
    t1, t1_np, ts, ts_np = _checked_times(t1, saveat, method, U0.dtype)
    if method == "diffrax":
        return _diffrax_solution(U0, W, K, t1, ts, solver, rtol, atol, dt0, max_steps)
    dt0 = _checked_step(dt0, t1_np, ts_np)
    if method == "rkmk4-adaptive":
        return _adaptive(U0, W, K, ts, ts_np, t1_np, dt0, rtol, atol, max_steps)
    return _rkmk4_solution(U0, W, K, ts, ts_np, t1_np, dt0)


_METHODS = ("rkmk4", "rkmk4-adaptive", "diffrax")


def _checked_times(t1, saveat, method, dtype):
    """`(t1, t1_np, ts, ts_np)`: the final time and the save times in the real dtype of
    the states' `dtype` (and as NumPy values when concrete); `method` is checked in
    between."""
    t1, t1_np = driver.check_t1(t1, jnp.finfo(dtype).dtype)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
    ts, ts_np = driver.save_times(saveat, t1, t1_np, jnp.finfo(dtype).dtype)
    return t1, t1_np, ts, ts_np


def _diffrax_solution(U0, W, K, t1, ts, solver, rtol, atol, dt0, max_steps):
    """The `method="diffrax"` solve of the ambient ODE through the driver; complex
    states (and drifts) travel as (Re, Im) pairs and come back complex."""
    slv, controller = driver.check_options(
        solver=solver, rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps
    )
    cplx = bool(jnp.iscomplexobj(U0))
    sol = driver.solve(
        _ode_rhs_complex if cplx else _ode_rhs_real,
        _order_complex if cplx else _order_real,
        _to_real(U0),
        (None if W is None else _to_real(W), K),
        t1,
        ts,
        slv,
        controller,
        dt0,
        int(max_steps),
        True,
    )
    states = sol.states
    if cplx:
        states = jnp.moveaxis(states, 1, 0)
        states = states[0] + 1j * states[1]
    return Solution(
        sol.ts, states, sol.order, sol.r, _from_real(sol.final, cplx), sol.num_steps
    )


def _checked_step(dt0, t1_np, ts_np):
    """The RKMK step bound `dt0` (default 1e-2) checked, and `t1`, `saveat` concrete
    (they fix the step grid)."""
    dt0 = check_scalar_range(
        1e-2 if dt0 is None else dt0, "dt0", low=0.0, low_inclusive=False
    )
    if ts_np is None or t1_np is None:
        raise ValueError(
            "method='rkmk4' needs concrete t1 and saveat (they fix the number of steps); "
            "under jit, close over them instead of passing them in."
        )
    return dt0


def _rkmk4_solution(U0, W, K, ts, ts_np, t1_np, dt0) -> Solution:
    """The `method="rkmk4"` solve: per save interval (and one more to `t1` when the
    last save time is earlier) the same number of equal RKMK4 steps, of at most
    `dt0`."""
    tail = t1_np > ts_np[-1]
    t_ends = np.append(ts_np, t1_np) if tail else ts_np
    sol = rkmk4(_geometry(U0), _xi, U0, t_ends, args=(W, K), dt0=dt0)
    Us, final = sol.states, sol.states[-1]
    Us = Us[:-1] if tail else Us
    Z, r = _order(Us)
    return Solution(ts, Us, Z, r, final, sol.num_steps)


def _adaptive(U0, W, K, ts, ts_np, t1_np, dt0, rtol, atol, max_steps) -> Solution:
    """The `method="rkmk4-adaptive"` solve: RKMK4(3) steps with error control from
    `dt0`, landing on every save time (and on `t1` past the last one)."""
    tail = t1_np > ts_np[-1]
    real = jnp.finfo(U0.dtype).dtype
    if rtol is None:
        raise ValueError("method='rkmk4-adaptive' needs rtol (a number > 0); got None.")
    rtol = check_scalar_range(rtol, "rtol", low=0.0, low_inclusive=False)
    atol = check_scalar_range(atol, "atol", low=0.0)
    if not (isinstance(max_steps, int) and max_steps >= 1):
        raise ValueError(f"max_steps must be an int >= 1; got {max_steps!r}.")
    t_ends = np.append(ts_np, t1_np) if tail else ts_np
    sol = rkmk43(
        _geometry(U0),
        _xi,
        U0,
        t_ends,
        args=(W, K),
        rtol=rtol,
        atol=atol,
        dt0=dt0,
        max_steps=int(max_steps),
        throw=False,
    )
    Us = sol.states
    tol = 8 * jnp.finfo(real).eps * max(1.0, abs(float(t_ends[-1])))
    unfinished = (t_ends[-1] - sol.t) > tol
    Us = eqx.error_if(
        Us,
        unfinished,
        f"matrix_simulate: max_steps={max_steps} step attempts reached before t1 "
        "(raise max_steps or loosen rtol/atol).",
    )
    final = Us[-1]
    Us = Us[:-1] if tail else Us
    Z, r = _order(Us)
    return Solution(ts, Us, Z, r, final, sol.num_steps)

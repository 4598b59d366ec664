r"""Higher-order (simplicial) Kuramoto coupling: pairwise plus triadic interactions.

$$\dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i)
  + \frac{K_2}{N^2}\sum_{j,l}\sin(2\theta_j - \theta_l - \theta_i)$$

(Skardal and Arenas 2019). The triadic sum is evaluated in $O(N)$ through the first
two Daido order parameters $Z_m = \frac1N\sum_k e^{im\theta_k}$:

$$\frac1{N^2}\sum_{j,l}\sin(2\theta_j - \theta_l - \theta_i)
  = \operatorname{Im}\bigl(Z_2\,\overline{Z_1}\,e^{-i\theta_i}\bigr),$$

or, on an explicit hypergraph (a [`TriangleList`][syncattn.kuramoto.TriangleList]),
in $O(N + T)$ with a segment sum over the $T$ triangles. The Ott-Antonsen reduction
for Lorentzian frequencies is the quintic $\dot r = -\gamma r + \frac{K_1}2(r - r^3)
+ \frac{K_2}2(r^3 - r^5)$, with a bistable region and an abrupt transition for
$K_2 > 2\gamma$. Proved in `proofs/proof_higher_order.py`.
"""

from __future__ import annotations

import diffrax
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse as jsparse

from .. import _simulate as driver
from .._checks import as_float, check_finite, check_scalar_range
from .._numerics import mean_field, sincos
from .._simulate import Solution
from .._types import Array, ArrayLike, Float, Int, ScalarLike
from ._coupling import (
    EdgeList,
    _check_coupling,
    _check_omega,
    _check_theta,
    _kind,
    _listen,
)
from ._simulate import _order


class TriangleList(eqx.Module):
    r"""Weighted ordered triangles (2-simplices) $(i_t, j_t, l_t)$ of a hypergraph.

    $$\dot\theta_i \mathrel{+}= \sum_{t:\,i_t = i} w_t
      \sin(2\theta_{j_t} - \theta_{l_t} - \theta_i)$$

    Triangle $t$ acts on oscillator `i[t]` only; list the other orderings of a
    simplex as triangles of their own. All $N^3$ ordered triples with weight
    $K_2/N^2$ give the all-to-all triadic coupling $K_2$
    ([`TriangleList.all_to_all`][syncattn.kuramoto.TriangleList.all_to_all]).

    Args:
        i: `(T,)` receiving oscillators.
        j: `(T,)` the oscillators entering with phase $2\theta_j$.
        l: `(T,)` the oscillators entering with phase $-\theta_l$.
        weights: `(T,)` finite weights $w_t$.
        n: number of oscillators $N$ (static).
    """

    i: Int[Array, " T"]
    j: Int[Array, " T"]
    l: Int[Array, " T"]
    weights: Float[Array, " T"]
    n: int = eqx.field(static=True)

    def __check_init__(self):
        shapes = {jnp.shape(x) for x in (self.i, self.j, self.l, self.weights)}
        if len(shapes) != 1 or jnp.ndim(self.i) != 1:
            raise ValueError(
                "TriangleList i, j, l and weights must be 1-D of equal length T; got shapes "
                f"{[jnp.shape(x) for x in (self.i, self.j, self.l, self.weights)]}."
            )
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"TriangleList n must be a positive int; got {self.n!r}.")
        for name in ("i", "j", "l"):
            idx = getattr(self, name)
            if not jnp.issubdtype(jnp.asarray(idx).dtype, jnp.integer):
                raise TypeError(
                    f"TriangleList {name} must be integer indices; got dtype {jnp.asarray(idx).dtype}."
                )
            if not isinstance(idx, jax.core.Tracer) and np.size(idx):
                arr = np.asarray(idx)
                if arr.min() < 0 or arr.max() >= self.n:
                    raise ValueError(
                        f"TriangleList {name} must lie in [0, n={self.n}); got range "
                        f"[{arr.min()}, {arr.max()}]."
                    )
        check_finite(self.weights, "TriangleList weights")

    @classmethod
    def from_array(
        cls, triangles: Int[ArrayLike, "T 3"], weights: Float[ArrayLike, " T"], n: int
    ) -> TriangleList:
        """From a `(T, 3)` array of rows $(i, j, l)$ and `(T,)` weights."""
        tri = jnp.asarray(triangles)
        if tri.ndim != 2 or tri.shape[-1] != 3:
            raise ValueError(
                f"triangles must have shape (T, 3), rows (i, j, l); got {tri.shape}."
            )
        w = as_float(weights, "weights")
        return cls(tri[:, 0], tri[:, 1], tri[:, 2], w, n)

    @classmethod
    def all_to_all(cls, n: int, K2: float) -> TriangleList:
        """All $N^3$ ordered triples, weight $K_2/N^2$: the mean-field triadic coupling.

        Memory $O(N^3)$: a test and reference object for small $N$.
        """
        i, j, l = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
        w = jnp.full(n**3, K2 / n**2)
        return cls(
            jnp.asarray(i.ravel()), jnp.asarray(j.ravel()), jnp.asarray(l.ravel()), w, n
        )

    def todense(self) -> Float[Array, "n n n"]:
        r"""The tensor $W_{ijl}$ = sum of the weights of triangles $(i, j, l)$."""
        return (
            jnp.zeros((self.n,) * 3, self.weights.dtype)
            .at[self.i, self.j, self.l]
            .add(self.weights)
        )


def _check_triadic(triadic, n: int):
    if isinstance(triadic, TriangleList):
        if triadic.n != n:
            raise ValueError(
                f"triadic TriangleList has n={triadic.n} but theta has N={n} oscillators (last axis)."
            )
        return triadic
    K2 = as_float(triadic, "triadic")
    if K2.ndim != 0:
        raise ValueError(
            "triadic must be a scalar K2 (all-to-all, O(N) mean field) or a TriangleList; "
            f"got an array of shape {K2.shape}."
        )
    check_finite(K2, "triadic")
    return K2


def _triadic(K2, c, s):
    r"""$\sum_{j,l} W_{ijl}\sin(2\theta_j - \theta_l - \theta_i)$ from $c = \cos\theta$, $s = \sin\theta$."""
    c2, s2 = c * c - s * s, 2.0 * s * c  # cos 2theta, sin 2theta
    if isinstance(K2, TriangleList):
        # message of triangle t: w_t e^{i(2 theta_j - theta_l)}, summed into its receiver i
        cj, sj = jnp.take(c2, K2.j, axis=-1), jnp.take(s2, K2.j, axis=-1)
        cl, sl = jnp.take(c, K2.l, axis=-1), jnp.take(s, K2.l, axis=-1)
        w = K2.weights.astype(c.dtype).reshape((1,) * (c.ndim - 1) + (-1,))
        msg = jnp.stack([w * (cj * cl + sj * sl), w * (sj * cl - cj * sl)])
        G = jax.ops.segment_sum(jnp.moveaxis(msg, -1, 0), K2.i, num_segments=K2.n)
        Gr, Gi = jnp.moveaxis(G, 0, -1)
    else:
        # (1/N^2) sum_{j,l} e^{i(2 theta_j - theta_l)} = Z_2 conj(Z_1): O(N)
        x1, y1 = mean_field(c, -1, True), mean_field(s, -1, True)
        x2, y2 = mean_field(c2, -1, True), mean_field(s2, -1, True)
        Gr, Gi = K2 * (x2 * x1 + y2 * y1), K2 * (y2 * x1 - x2 * y1)
    # Im(G e^{-i theta_i}) = cos(theta_i) Im G - sin(theta_i) Re G
    return c * Gi - s * Gr


def _simplicial(theta, omega, K, K2):
    s, c = sincos(theta)
    Kc, Ks = _listen(K, _kind(K), c, s)
    drift = (c * Ks - s * Kc + _triadic(K2, c, s)).astype(theta.dtype)
    return jnp.broadcast_to(omega, theta.shape) + drift


_field = eqx.filter_jit(_simplicial)


def simplicial_field(
    theta: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    triadic,
) -> Float[Array, "*batch n"]:
    r"""Kuramoto vector field with pairwise and triadic (simplicial) coupling.

    $$\dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i)
      + \sum_{j,l} W_{ijl}\sin(2\theta_j - \theta_l - \theta_i)$$

    With scalar couplings $K_{ij} = K_1/N$, $W_{ijl} = K_2/N^2$ this is
    $\omega_i + K_1\operatorname{Im}(Z_1 e^{-i\theta_i})
    + K_2\operatorname{Im}(Z_2\overline{Z_1}e^{-i\theta_i})$, $O(N)$, with
    $Z_m = \frac1N\sum_k e^{im\theta_k}$.

    Symbols: $\theta$ = `theta`, $\omega$ = `omega`, $K$ = `coupling`, $W$ = `triadic`.

    Args:
        theta: phases, shape `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta`.
        coupling: the pairwise coupling, any form of
            [`syncattn.kuramoto.vector_field`][] (scalar $K_1$, dense, `EdgeList`, `BCOO`).
        triadic: a scalar $K_2$ (all-to-all, $W_{ijl} = K_2/N^2$, $O(N)$) or a
            [`syncattn.kuramoto.TriangleList`][] ($O(N + T)$).

    Returns:
        $\dot\theta$, same shape and dtype as `theta`.

    Raises:
        ValueError: shape mismatches, non-finite inputs, a non-scalar `triadic` array,
            a `TriangleList` for another $N$.

    Example:
        >>> simplicial_field(jnp.zeros(3), 1.0, 2.0, 3.0)  # synchrony: every sine is 0
        Array([1., 1., 1.], dtype=float32)
    """
    theta = _check_theta(theta)
    n, batch = theta.shape[-1], theta.shape[:-1]
    omega = _check_omega(omega, theta, "theta")
    K = _check_coupling(coupling, n, batch)
    K2 = _check_triadic(triadic, n)
    if not isinstance(K2, TriangleList):
        K2 = K2.astype(theta.dtype)
    return _field(theta, omega.astype(theta.dtype), K, K2)


def _rhs(t, theta, args):  # module level: the jit cache hits across calls
    omega, K, K2 = args
    return _simplicial(theta, omega, K, K2)


def simplicial_simulate(
    theta0: Float[ArrayLike, "*batch n"],
    omega: Float[ArrayLike, "*#batch #n"] | Float[ArrayLike, ""] | float | int,
    coupling,
    triadic,
    t1: ScalarLike,
    *,
    saveat: int | Float[ArrayLike, " S"] | None = 101,
    solver: str | diffrax.AbstractSolver = "dopri5",
    rtol: float | None = 1e-6,
    atol: float = 1e-8,
    dt0: float | None = None,
    max_steps: int = 2**20,
    save_phases: bool = True,
) -> Solution:
    r"""Integrate the simplicial Kuramoto flow [`simplicial_field`][syncattn.kuramoto.simplicial_field].

    $$\dot\theta_i = \omega_i + \sum_j K_{ij}\sin(\theta_j - \theta_i)
      + \sum_{j,l} W_{ijl}\sin(2\theta_j - \theta_l - \theta_i),\qquad \theta(0) = \theta_0$$

    with the driver, options and [`syncattn.kuramoto.Solution`][] of
    [`syncattn.kuramoto.simulate`][] (no noise). `order` records $Z_1$.

    Args:
        theta0: initial phases `(*batch, N)`.
        omega: natural frequencies, broadcastable to `theta0`.
        coupling: pairwise coupling (as in [`syncattn.kuramoto.vector_field`][]).
        triadic: scalar $K_2$ or a [`syncattn.kuramoto.TriangleList`][].
        t1: final time $t_1 \ge 0$.
        saveat, solver, rtol, atol, dt0, max_steps, save_phases: as in
            [`syncattn.kuramoto.simulate`][].

    Returns:
        A [`syncattn.kuramoto.Solution`][].

    Raises:
        ValueError: as [`simplicial_field`][syncattn.kuramoto.simplicial_field] and
            [`syncattn.kuramoto.simulate`][].

    Example:
        >>> sol = simplicial_simulate(jnp.array([0.0, 0.5, 1.0]), 0.0, 2.0, 1.0, 5.0, saveat=2)
        >>> float(sol.r[-1]) > 0.99
        True
    """
    theta0 = _check_theta(theta0, "theta0")
    n = theta0.shape[-1]
    omega = _check_omega(omega, theta0, "theta0")
    K = _check_coupling(coupling, n, theta0.shape[:-1])
    K2 = _check_triadic(triadic, n)
    dtype = theta0.dtype
    t1, t1_np = driver.check_t1(t1, dtype)
    solver, controller = driver.check_options(
        solver=solver, rtol=rtol, atol=atol, dt0=dt0, max_steps=max_steps
    )
    ts, _ = driver.save_times(saveat, t1, t1_np, dtype)
    if not isinstance(K, (EdgeList, jsparse.BCOO)):
        K = K.astype(dtype)
    if not isinstance(K2, TriangleList):
        K2 = K2.astype(dtype)
    omega = (
        jnp.broadcast_to(omega.astype(dtype), theta0.shape)
        if jnp.ndim(omega)
        else omega.astype(dtype)
    )
    return driver.solve(
        _rhs, _order, theta0, (omega, K, K2), t1, ts, solver, controller, dt0,
        int(max_steps), bool(save_phases),
    )


# ------------------------------------------------------------------ Ott-Antonsen theory
def _theory_args(**named):
    out = []
    for name, x in named.items():
        x = as_float(x, name)
        check_finite(x, name)
        out.append(x)
    return out


def simplicial_ott_antonsen_rhs(r, K1, K2, gamma):
    r"""Ott-Antonsen equation of the simplicial Kuramoto model (Lorentzian frequencies).

    $$\dot r = -\gamma r + \frac{K_1}{2}(r - r^3) + \frac{K_2}{2}(r^3 - r^5)
      = -\tfrac12\, r\, p(r^2),\quad p(u) = K_2u^2 + (K_1 - K_2)u + 2\gamma - K_1$$

    for $r = |Z_1|$ with $g(\omega) = \gamma/(\pi(\omega^2 + \gamma^2))$ (on the
    Ott-Antonsen manifold $Z_2 = Z_1^2$). $K_2 = 0$ gives
    [`syncattn.kuramoto.ott_antonsen_rhs`][].

    Symbols: $K_1$ = `K1` (pairwise), $K_2$ = `K2` (triadic), $\gamma$ = `gamma`.

    Example:
        >>> simplicial_ott_antonsen_rhs(0.5, 1.0, 8.0, 1.0)  # -0.5 + 0.1875 + 0.375
        Array(0.0625, dtype=float32, weak_type=True)
    """
    r, K1, K2, gamma = _theory_args(r=r, K1=K1, K2=K2, gamma=gamma)
    r2 = r * r
    return -gamma * r + 0.5 * K1 * r * (1 - r2) + 0.5 * K2 * r * r2 * (1 - r2)


@jax.jit
def _branches(K1, K2, gamma):
    a, b, c = K2, K1 - K2, 2.0 * gamma - K1  # p(u) = a u^2 + b u + c
    D = b * b - 4.0 * a * c
    real = D >= 0
    sq = jnp.sqrt(jnp.where(real, D, 0.0))
    # cancellation-free roots: q = -(b + sign(b) sqrt D)/2, roots q/a and c/q. The
    # stable root is the one with p'(u) = +sqrt(D) > 0, i.e. (-b + sqrt D)/(2a).
    pos = b >= 0
    q = jnp.where(pos, -0.5 * (b + sq), 0.5 * (-b + sq))
    q_safe = jnp.where(q == 0, 1.0, q)
    a_safe = jnp.where(a == 0, 1.0, a)
    by_c = jnp.where(q == 0, jnp.where(c == 0, 0.0, jnp.inf), c / q_safe)
    by_a = jnp.where(a == 0, jnp.inf, q / a_safe)
    u_stable = jnp.where(pos, by_c, by_a)
    u_unstable = jnp.where(pos, by_a, by_c)

    def r_of(u):  # a branch exists where its root is real and r^2 = u lies in (0, 1]
        ok = real & (u > 0) & (u <= 1)
        return jnp.where(ok, jnp.sqrt(jnp.where(ok, u, 1.0)), jnp.nan)

    return r_of(u_stable), r_of(u_unstable)


def simplicial_fixed_points(K1, K2, gamma):
    r"""The non-zero stationary states of [`simplicial_ott_antonsen_rhs`][syncattn.kuramoto.simplicial_ott_antonsen_rhs].

    $r^2 = u$ with $p(u) = K_2u^2 + (K_1 - K_2)u + 2\gamma - K_1 = 0$:

    $$u_\pm = \frac{K_2 - K_1 \pm \sqrt{\Delta}}{2K_2},\qquad
      \Delta = (K_1 + K_2)^2 - 8\gamma K_2,$$

    and the linearisation at $r_\pm = \sqrt{u_\pm}$ is $f'(r_\pm) = -u_\pm p'(u_\pm) =
    \mp u_\pm\sqrt\Delta$: $r_+$ is stable, $r_-$ unstable (for $K_2 = 0$ the one
    root $u = 1 - 2\gamma/K_1$ is $r_+$). $r = 0$ is always stationary, stable iff
    $K_1 < 2\gamma$. Roots are computed without cancellation ($q = -(b +
    \operatorname{sign}(b)\sqrt\Delta)/2$, roots $q/a$, $c/q$).

    Args:
        K1: pairwise coupling $K_1$ (real).
        K2: triadic coupling $K_2$ (real).
        gamma: Lorentzian half width $\gamma \ge 0$.

    Returns:
        `(r_stable, r_unstable)`, each $\in (0, 1]$ where that branch exists ($\Delta
        \ge 0$ and $u \in (0, 1]$) and NaN elsewhere. For $K_2 > 0$, `r_stable` is the
        upper branch.

    Example:
        >>> [round(float(x), 4) for x in simplicial_fixed_points(1.5, 8.0, 1.0)]  # bistable
        [0.8523, 0.2933]
    """
    K1, K2 = _theory_args(K1=K1, K2=K2)
    gamma = check_scalar_range(as_float(gamma, "gamma"), "gamma", low=0.0)
    dtype = jnp.result_type(K1, K2, gamma)
    K1, K2, gamma = jnp.broadcast_arrays(
        K1.astype(dtype), K2.astype(dtype), jnp.asarray(gamma, dtype)
    )
    return _branches(K1, K2, gamma)


def simplicial_transition(K2, gamma):
    r"""Forward and backward transition couplings of the simplicial model (hysteresis in $K_1$).

    $$K_f = 2\gamma,\qquad K_b = \begin{cases}\sqrt{8\gamma K_2} - K_2 & K_2 > 2\gamma\\
      2\gamma & K_2 \le 2\gamma\end{cases}$$

    Increasing $K_1$, incoherence ($r = 0$) loses stability at $K_f$; decreasing it, the
    synchronous branch disappears in a saddle-node at $K_b$ ($\Delta = 0$). For $K_2 >
    2\gamma$, $K_b < K_f$: in $K_b < K_1 < K_f$ both $r = 0$ and $r_+$ are stable
    (bistability), and the transition is abrupt: $r$ jumps to $\sqrt{1 - 2\gamma/K_2}$
    at $K_f$ and falls from $\sqrt{1 - \sqrt{2\gamma/K_2}}$ at $K_b$. For $K_2 \le
    2\gamma$ it is continuous at $K_1 = 2\gamma$.

    Args:
        K2: triadic coupling $K_2 \ge 0$.
        gamma: Lorentzian half width $\gamma \ge 0$.

    Returns:
        `(K_forward, K_backward)`.

    Example:
        >>> [float(x) for x in simplicial_transition(8.0, 1.0)]
        [2.0, 0.0]
    """
    K2 = check_scalar_range(as_float(K2, "K2"), "K2", low=0.0)
    gamma = check_scalar_range(as_float(gamma, "gamma"), "gamma", low=0.0)
    dtype = jnp.result_type(K2, gamma)
    K2, gamma = jnp.broadcast_arrays(jnp.asarray(K2, dtype), jnp.asarray(gamma, dtype))
    above = K2 > 2.0 * gamma
    K_b = jnp.where(above, jnp.sqrt(8.0 * gamma * K2) - K2, 2.0 * gamma)
    return 2.0 * gamma, K_b

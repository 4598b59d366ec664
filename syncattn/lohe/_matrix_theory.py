r"""Theory of the identical Lohe matrix flow: the gradient structure and complete synchronisation.

For identical frequencies ($H_j = H$) and all-to-all coupling $K > 0$, the co-rotating
states $V_j = e^{iHt}U_j$ follow $\dot V_j = \frac{K}{2}(M - V_jM^HV_j)$,
$M = \frac1N\sum_k V_k$: the gradient flow of $\frac{K}{2N}\|\sum_j V_j\|_F^2$ for the
Frobenius metric, so $R$ never decreases (statement 19), and the ensemble diameter
contracts when it starts below $N/(N-1)$ (statement 20).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import (
    as_float,
    check_count,
    check_finite,
    check_scalar_range,
    is_concrete,
)
from .._types import Array, ArrayLike, Float, Inexact, ScalarLike
from ..group import check_member
from ._matrix import _geometry


def _states(U, name="U"):
    U = check_member(U, name)
    if U.ndim < 3 or U.shape[-3] == 0:
        raise ValueError(
            f"{name} must have shape (*batch, N, n, n) with N >= 1; got {U.shape}."
        )
    return U


@jax.jit
def _order_rate(U, K):
    N, n = U.shape[-3], U.shape[-1]
    M = jnp.mean(U, axis=-3, keepdims=True)
    S = _geometry(U).project(U, M)  # skew(U_j^H M)
    sq = jnp.sum(jnp.abs(S) ** 2, axis=(-3, -2, -1))
    return 2.0 * K * sq / (n * N)


def matrix_order_rate(
    U: Inexact[ArrayLike, "*batch N n n"], coupling: ScalarLike
) -> Float[Array, "*batch"]:
    r"""Exact rate of change of $R^2$ along the identical-frequency Lohe matrix flow.

    $$\frac{d R^2}{dt} = \frac{2K}{nN}\sum_{j=1}^N
      \bigl\|\operatorname{skew}(U_j^H M)\bigr\|_F^2 \;\ge 0, \qquad
      M = \frac1N\sum_k U_k,\quad R^2 = \frac{\|M\|_F^2}{n}$$

    for $\dot U_j = -iHU_j + \frac{K}{2N}\sum_k(U_k - U_jU_k^HU_j)$ with one common
    $H$ (any Hermitian $H$, or a common skew generator on $SO(n)$; $H$ drops out:
    $\operatorname{Re}\operatorname{tr}(M^H(-iH)M) = 0$). Derivation: $\dot M =
    \frac{K}{2}(M - \frac1N\sum_jU_jM^HU_j)$ in the co-rotating frame, and with
    $B_j = U_j^HM$, $\|M\|_F^2 = \operatorname{tr}B_j^HB_j$ and
    $\operatorname{tr}B^HB - \operatorname{Re}\operatorname{tr}B^2 =
    2\|\operatorname{skew}B\|_F^2$ (statement 19). Zero exactly at equilibria
    ($U_j^HM$ Hermitian for every $j$).

    Args:
        U: states `(*batch, N, n, n)` in $U(n)$ or $SO(n)$.
        coupling: the scalar all-to-all coupling $K$.

    Returns:
        $dR^2/dt$, shape `*batch`.

    Raises:
        ValueError: states not in the group (concrete), a non-scalar coupling.
    """
    U = _states(U)
    K = as_float(coupling, "coupling")
    if K.ndim != 0:
        raise ValueError(
            "coupling must be the scalar all-to-all K (the rate formula needs the mean "
            f"field); got shape {K.shape}."
        )
    K = check_scalar_range(K, "coupling")
    return _order_rate(U, K.astype(jnp.finfo(U.dtype).dtype))


@jax.jit
def _diameter(U):
    d = U[..., :, None, :, :] - U[..., None, :, :, :]
    return jnp.sqrt(jnp.max(jnp.sum(jnp.abs(d) ** 2, axis=(-2, -1)), axis=(-2, -1)))


def ensemble_diameter(U: Inexact[ArrayLike, "*batch N n n"]) -> Float[Array, "*batch"]:
    r"""Ensemble diameter: the largest Frobenius distance between two oscillators.

    $$D(U) = \max_{i,j}\|U_i - U_j\|_F \in [0, 2\sqrt n]$$

    Invariant under a common left or right multiplication by a group element (so
    the same in the original and the co-rotating frame). On $U(1)$ it is the longest
    chord $2\sin(\Delta/2)$ of the phases' spread $\Delta \le \pi$.

    Raises:
        ValueError: states not in the group (concrete), shapes.
    """
    return _diameter(_states(U))


def matrix_sync_threshold(N: int) -> float:
    r"""The hypothesis of statement 20: complete synchronisation is guaranteed for $D(0) < N/(N-1)$.

    $$D^* = \frac{N}{N-1}\quad (N \ge 2), \qquad D^* = \infty \quad (N = 1)$$
    """
    N = check_count(N, "N")
    return float("inf") if N == 1 else N / (N - 1)


def matrix_sync_bound(
    D0: Float[ArrayLike, "*shape"],
    coupling: ScalarLike,
    N: int,
    t: Float[ArrayLike, "*tshape"],
) -> Float[Array, "*rshape"]:
    r"""Upper bound on the ensemble diameter of identical Lohe matrix oscillators.

    $$D(t) \le \frac{D_0\,e^{-Kt}}{1 - cD_0 + cD_0\,e^{-Kt}}
      \le \frac{D_0}{1 - cD_0}\,e^{-Kt}, \qquad c = \frac{N-1}{N},$$

    for $\dot U_j = -iHU_j + \frac{K}{2N}\sum_k(U_k - U_jU_k^HU_j)$ (one common $H$,
    $K > 0$) whenever $D_0 = D(U(0)) < 1/c$ = [`matrix_sync_threshold`][syncattn.lohe.matrix_sync_threshold]:
    the solution of the logistic comparison equation $\dot y = -Ky(1 - cy)$. Complete
    synchronisation ($D \to 0$) at the exponential rate $K$, which is sharp: it is
    the rate of the linearisation at the synchronised state. Proof in
    `proofs/proof_matrix_sync.py` (statement 20).

    Args:
        D0: initial diameters $D_0 \in [0, N/(N-1))$.
        coupling: $K > 0$ (scalar).
        N: number of oscillators.
        t: times $\ge 0$ (broadcast against `D0`).

    Returns:
        The bound, broadcast shape of `D0` and `t`.

    Raises:
        ValueError: a concrete `D0` outside the hypothesis, $K \le 0$, $t < 0$.
    """
    N = check_count(N, "N")
    c = (N - 1) / N
    D0 = as_float(D0, "D0")
    t = as_float(t, "t")
    K = check_scalar_range(
        as_float(coupling, "coupling"), "coupling", low=0.0, low_inclusive=False
    )
    if is_concrete(D0) and D0.size:
        d = np.asarray(D0, np.float64)
        if np.any(~np.isfinite(d)) or np.any(d < 0) or np.any(c * d >= 1):
            raise ValueError(
                f"D0 must lie in [0, N/(N-1)) = [0, {matrix_sync_threshold(N):.6g}) (the "
                f"theorem's hypothesis); got {d.tolist() if d.size <= 6 else d.max()}."
            )
    t = check_scalar_range(t, "t", low=0.0)
    D0, t = jnp.broadcast_arrays(D0, t.astype(D0.dtype))
    e = jnp.exp(-K.astype(D0.dtype) * t)
    return D0 * e / (1.0 - c * D0 + c * D0 * e)


def matrix_sync_time(
    D0: Float[ArrayLike, "*shape"], delta: ScalarLike, coupling: ScalarLike, N: int
) -> Float[Array, "*shape"]:
    r"""The time at which [`matrix_sync_bound`][syncattn.lohe.matrix_sync_bound] reaches $\delta$.

    $$t_\delta = \frac1K \log\frac{D_0\,(1 - c\delta)}{\delta\,(1 - cD_0)},
      \qquad c = \frac{N-1}{N},$$

    the predicted synchronisation time to diameter $\delta$ (0 when $D_0 \le \delta$).
    Same hypothesis as the bound: $0 \le D_0 < N/(N-1)$, $0 < \delta$, $K > 0$.

    Raises:
        ValueError: a concrete `D0` outside the hypothesis, $\delta \le 0$, $K \le 0$.
    """
    N = check_count(N, "N")
    c = (N - 1) / N
    D0 = as_float(D0, "D0")
    if is_concrete(D0) and D0.size:
        d = np.asarray(D0, np.float64)
        if np.any(~np.isfinite(d)) or np.any(d < 0) or np.any(c * d >= 1):
            raise ValueError(
                f"D0 must lie in [0, N/(N-1)) = [0, {matrix_sync_threshold(N):.6g}); "
                f"got {d.tolist() if d.size <= 6 else d.max()}."
            )
    delta = check_scalar_range(
        as_float(delta, "delta"), "delta", low=0.0, low_inclusive=False
    )
    K = check_scalar_range(
        as_float(coupling, "coupling"), "coupling", low=0.0, low_inclusive=False
    )
    delta = delta.astype(D0.dtype)
    ratio = D0 * (1.0 - c * delta) / (delta * (1.0 - c * D0))
    return jnp.where(D0 > delta, jnp.log(jnp.maximum(ratio, 1.0)), 0.0) / K.astype(
        D0.dtype
    )


@jax.jit
def _sphere_diameter(x):
    d = x[..., :, None, :] - x[..., None, :, :]
    return jnp.sqrt(jnp.max(jnp.sum(d * d, axis=-1), axis=(-2, -1)))


def sphere_diameter(x: Float[ArrayLike, "*batch N d"]) -> Float[Array, "*batch"]:
    r"""Ensemble diameter on the sphere: $D(x) = \max_{i,j}\|x_i - x_j\|$.

    For the identical Lohe flow on $S^{d-1}$ ($\dot x_i = \Omega x_i + \frac KN
    \sum_j (x_j - \langle x_i, x_j\rangle x_i)$) the comparison argument of statement
    19 gives the same bound: with $\Delta = x_i - x_j$,
    $\frac{d}{dt}\|\Delta\|^2 = -K\|\Delta\|^2\langle x_i + x_j, m\rangle$ and
    $\langle x_i, m\rangle \ge 1 - cD$, so [`matrix_sync_bound`][syncattn.lohe.matrix_sync_bound]
    applies (checked numerically in `tests/lohe/test_matrix_theory.py`).

    Raises:
        ValueError: shapes, NaN/inf.
    """
    x = as_float(x, "x")
    if x.ndim < 2 or x.shape[-2] == 0:
        raise ValueError(
            f"x must have shape (*batch, N, d) with N >= 1; got {x.shape}."
        )
    check_finite(x, "x")
    return _sphere_diameter(x)

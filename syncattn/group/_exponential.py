r"""The tangent spaces and the exponential: the projection onto $T_U G$, the matrix
exponential (Rodrigues on $SO(3)$), the exponential map and the geodesic distance."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._checks import check_broadcast
from .._types import Array, ArrayLike, Float, Inexact
from ._matrices import _LOW_PRECISION, _check_algebra, _h, _pair, _skew, check_member


@jax.jit
def _project_tangent(U, M):
    return U @ _skew(_h(U) @ M)


def project_tangent(
    U: Inexact[ArrayLike, "*#batch n n"], M: Inexact[ArrayLike, "*#batch n n"]
) -> Inexact[Array, "*rbatch n n"]:
    r"""Orthogonal projection of an ambient matrix onto the tangent space $T_U G$.

    $$P_U M = U \operatorname{skew}(U^H M) = \tfrac12 (M - U M^H U)$$

    $U$ = `U` (in the group), $M$ = `M` (any matrix of the same field). $P_U$ is
    idempotent and orthogonal for $\operatorname{Re}\operatorname{tr}(X^H Y)$.

    Raises:
        ValueError: `U` not in the group, shapes, NaN/inf. TypeError: complex `M`
            with real `U`.

    Example:
        >>> project_tangent(jnp.eye(2), jnp.array([[1.0, 2.0], [0.0, 1.0]])).tolist()
        [[0.0, 1.0], [-1.0, 0.0]]
    """
    U, M = _pair(U, M, "U", "M")
    return _project_tangent(U, M)


def _rodrigues(xi):
    # exp of a real skew 3x3: I + (sin t / t) xi + ((1 - cos t) / t^2) xi^2,
    # t^2 = |xi|_F^2 / 2; series below t^2 = 1e-4 (truncation < 1e-16, finite grads)
    t2 = 0.5 * jnp.sum(xi * xi, axis=(-2, -1))[..., None, None]
    small = t2 < 1e-4
    t2s = jnp.where(small, jnp.ones_like(t2), t2)
    t = jnp.sqrt(t2s)
    a = jnp.where(small, 1 - t2 / 6 + t2 * t2 / 120, jnp.sin(t) / t)
    b = jnp.where(
        small, 0.5 - t2 / 24 + t2 * t2 / 720, 2.0 * jnp.sin(0.5 * t) ** 2 / t2s
    )
    eye = jnp.eye(3, dtype=xi.dtype)[(None,) * (xi.ndim - 2)]
    return eye + a * xi + b * (xi @ xi)


def _exp2(xi):
    # exp of a 2x2 skew(-Hermitian) xi = phi I + eta, phi = tr(xi)/2 (0 when real),
    # eta traceless with eta^2 = -t^2 I, t^2 = |eta|_F^2 / 2:
    # e^phi (cos t I + (sin t / t) eta); series below t^2 = 1e-4 as in _rodrigues
    phi = 0.5 * (xi[..., 0, 0] + xi[..., 1, 1])[..., None, None]
    eye = jnp.eye(2, dtype=xi.dtype)[(None,) * (xi.ndim - 2)]
    eta = xi - phi * eye
    t2 = 0.5 * jnp.sum(jnp.real(eta * jnp.conj(eta)), axis=(-2, -1))[..., None, None]
    small = t2 < 1e-4
    t2s = jnp.where(small, jnp.ones_like(t2), t2)
    t = jnp.sqrt(t2s)
    # series to t^6: truncation below (1e-4)^4 / 8! (with t^4 only, cos erred by 1e-15)
    a = jnp.where(small, 1 - t2 / 6 + t2 * t2 / 120 - t2 * t2 * t2 / 5040, jnp.sin(t) / t)
    c = jnp.where(small, 1 - t2 / 2 + t2 * t2 / 24 - t2 * t2 * t2 / 720, jnp.cos(t))
    out = c.astype(xi.dtype) * eye + a.astype(xi.dtype) * eta
    return jnp.exp(phi) * out if jnp.iscomplexobj(xi) else out


def _expm(xi):
    n = xi.shape[-1]
    if xi.dtype in _LOW_PRECISION:
        return _expm(xi.astype(jnp.float32)).astype(xi.dtype)
    if n == 1:
        return jnp.exp(xi)
    if n == 2:
        return _exp2(xi)
    if n == 3 and not jnp.iscomplexobj(xi):
        return _rodrigues(xi)
    return jax.scipy.linalg.expm(xi)


def expm(xi: Inexact[ArrayLike, "*batch n n"]) -> Inexact[Array, "*batch n n"]:
    r"""The group exponential of a Lie algebra element.

    $$\exp(\xi) = \sum_{k \ge 0} \frac{\xi^k}{k!}; \qquad
      SO(3):\ \exp(\xi) = I + \frac{\sin t}{t}\xi + \frac{1 - \cos t}{t^2}\xi^2,\ \
      t = \tfrac{1}{\sqrt2}\|\xi\|_F$$
    $$U(2), SO(2):\ \exp(\xi) = e^{\phi}\Big(\cos t\, I + \frac{\sin t}{t}\eta\Big),
      \quad \phi = \tfrac12 \operatorname{tr}\xi,\ \eta = \xi - \phi I,\
      t = \tfrac{1}{\sqrt2}\|\eta\|_F$$

    $\xi$ = `xi` (skew-symmetric or skew-Hermitian). Real $3 \times 3$ uses the closed
    Rodrigues form and every $2 \times 2$ (real or complex) the closed form above
    ($\eta^2 = -t^2 I$ for traceless skew-Hermitian $2 \times 2$); both switch to a
    Taylor series for $t^2 < 10^{-4}$, so value and gradient are finite at $\xi = 0$,
    and both hold on the Lie algebra only (their derivative is exact along it);
    $1 \times 1$ uses the scalar exponential; every other size
    `jax.scipy.linalg.expm` (Padé with scaling and squaring). All are differentiable.
    float16/bfloat16 are computed in float32 and cast back.

    Raises:
        ValueError: `xi` not skew (concrete input), shapes, NaN/inf.

    Example:
        >>> expm(jnp.array([[0.0, -jnp.pi / 2], [jnp.pi / 2, 0.0]])).round(6).tolist()
        [[0.0, -1.0], [1.0, 0.0]]
    """
    xi = _check_algebra(xi, "xi")
    return _expm(xi)


@jax.jit
def _exp_map(U, xi):
    return U @ _expm(xi)


def exp_map(
    U: Inexact[ArrayLike, "*#batch n n"], xi: Inexact[ArrayLike, "*#batch n n"]
) -> Inexact[Array, "*rbatch n n"]:
    r"""Exponential map at $U$ in the left trivialisation: follow the geodesic $U e^{s\xi}$.

    $$\exp_U(\xi) = U \exp(\xi), \qquad \xi \in \mathfrak{g}$$

    $U$ = `U`, $\xi$ = `xi` (a Lie algebra element, the tangent vector $U\xi$ at
    $U$; use `skew` first for an arbitrary matrix). For the bi-invariant metric
    $s \mapsto U e^{s\xi}$ is a geodesic, so the result lies at distance
    $\|\xi\|_F$ from $U$ when $\xi$'s eigenvalues $i\phi$ have $|\phi| \le \pi$.
    The result is in the group to rounding. See [`expm`][syncattn.group.expm].

    Raises:
        ValueError: `U` not in the group or `xi` not skew (concrete input), shapes,
            NaN/inf. TypeError: complex `xi` with real `U`.

    Example:
        >>> exp_map(jnp.eye(2), jnp.array([[0.0, -1.0], [1.0, 0.0]])).shape
        (2, 2)
    """
    U = check_member(U, "U")
    xi = _check_algebra(xi, "xi", like=U)
    check_broadcast(
        f"U {U.shape} and xi {xi.shape} must have broadcastable batch shapes.",
        U.shape[:-2],
        xi.shape[:-2],
    )
    return _exp_map(*jnp.broadcast_arrays(U, xi.astype(U.dtype)))


def _distance(U, V):
    W = _h(U) @ V
    W = W.astype(
        jnp.complex128 if W.dtype in (jnp.float64, jnp.complex128) else jnp.complex64
    )
    lam = jnp.linalg.eigvals(W)
    return jnp.sqrt(jnp.sum(jnp.angle(lam) ** 2, axis=-1))


def distance(
    U: Inexact[ArrayLike, "*#batch n n"], V: Inexact[ArrayLike, "*#batch n n"]
) -> Float[Array, "*rbatch"]:
    r"""Geodesic distance of the bi-invariant Frobenius metric.

    $$d(U, V) = \|\log(U^H V)\|_F = \Bigl(\sum_{k=1}^n \phi_k^2\Bigr)^{1/2},
      \qquad \operatorname{spec}(U^H V) = \{e^{i\phi_k}\},\ \phi_k \in (-\pi, \pi]$$

    $U$ = `U`, $V$ = `V` (both in the same group), $\log$ the principal logarithm.
    Computed from the eigenvalues of $U^H V$ (`jnp.linalg.eigvals`, a CPU kernel in
    JAX: meant for diagnostics and tests, not inner loops). At an eigenvalue $-1$
    the geodesic is not unique and $d$ counts $\phi = \pi$.

    Raises:
        ValueError: `U` or `V` not in the group, shapes, NaN/inf.

    Example:
        >>> round(float(distance(jnp.eye(2), -jnp.eye(2))), 6)  # two angles pi
        4.442883
    """
    U, V = _pair(U, V, "U", "V")
    check_member(V, "V")
    return _distance(U, V).astype(jnp.finfo(U.dtype).dtype)

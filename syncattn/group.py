r"""Geometry of the compact matrix groups $SO(n)$ and $U(n)$.

Conventions:

* a group element is an `(n, n)` matrix in the last two axes; every leading axis
  is a batch axis and broadcasts;
* **the dtype names the group**: a real floating array (float16, bfloat16, float32,
  float64) is an element of $SO(n)$, $n \ge 2$; a complex array (complex64 or
  complex128 only) is an element of $U(n)$, $n \ge 1$. Integer input is promoted
  to the default float (an $SO(n)$ element);
* $M^H$ is the conjugate transpose ($M^\top$ for real $M$); the Lie algebra is
  $\mathfrak{so}(n) = \{\xi^\top = -\xi\}$ or $\mathfrak{u}(n) = \{\xi^H = -\xi\}$;
  tangent vectors at $U$ are $U\xi$ (left trivialisation);
* the metric is the Frobenius one, $\langle X, Y\rangle = \operatorname{Re}
  \operatorname{tr}(X^H Y)$, bi-invariant; the normalised inner product
  $\frac1n\operatorname{Re}\operatorname{tr}(U^H V) \in [-1, 1]$ ([`inner`][syncattn.group.inner])
  is the group analogue of $\cos(\theta_u - \theta_t)$;
* functions that need a group element check it on concrete input
  ($\|U^H U - I\|_F$ within $n\sqrt{\varepsilon}$ of the dtype, and $\det U = +1$ for
  $SO(n)$), raising `ValueError` naming the argument; traced input is not checked
  (see `syncattn._checks`). Shapes and dtypes are always checked.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np

from ._checks import check_broadcast, check_count, check_finite, is_concrete
from ._numerics import default_floating_dtype, eps_for
from ._types import Array, ArrayLike, Float, Inexact, PRNGKeyArray


__all__ = [
    "parse_group",
    "as_matrix",
    "skew",
    "defect",
    "check_member",
    "project_tangent",
    "expm",
    "exp_map",
    "distance",
    "sample_haar",
    "order_parameter",
    "inner",
    "lift",
]

_LOW_PRECISION = (jnp.float16, jnp.bfloat16)


def parse_group(name: str) -> tuple[str, int]:
    r"""Read a group name: `"so3"` $\to$ `("so", 3)`, `"u2"` $\to$ `("u", 2)`.

    $SO(n)$ needs $n \ge 2$, $U(n)$ needs $n \ge 1$ (`"u1"` is the circle, the
    Kuramoto case).

    Raises:
        ValueError: an unknown name or a too small $n$.

    Example:
        >>> parse_group("so3")
        ('so', 3)
    """
    m = re.fullmatch(r"(so|u)(\d+)", str(name).strip().lower())
    if m is None:
        raise ValueError(
            f"group must be 'so<n>' (n >= 2) or 'u<n>' (n >= 1), e.g. 'so3', 'u2'; "
            f"got {name!r}."
        )
    kind, n = m.group(1), int(m.group(2))
    if n < (2 if kind == "so" else 1):
        raise ValueError(
            f"group {name!r}: SO(n) needs n >= 2 and U(n) needs n >= 1; got n={n}."
        )
    return kind, n


def as_matrix(U, name: str, *, square: bool = True):
    r"""`U` as an inexact array of shape `(*batch, n, n)`; shape and dtype checked.

    Real floating $\to$ $SO(n)$ ($n \ge 2$); complex64/complex128 $\to$ $U(n)$
    ($n \ge 1$); integers become the default float; other dtypes raise `TypeError`.
    NaN/inf in concrete input raise `ValueError`.
    """
    try:
        arr = jnp.asarray(U)
    except TypeError as e:
        raise TypeError(
            f"{name} must be a numeric array; got {type(U).__name__}."
        ) from e
    if jnp.issubdtype(arr.dtype, jnp.complexfloating):
        if arr.dtype not in (jnp.complex64, jnp.complex128):  # pragma: no cover
            raise TypeError(
                f"{name}: U(n) elements must be complex64 or complex128; got {arr.dtype}."
            )
    elif jnp.issubdtype(arr.dtype, jnp.floating):
        pass
    elif jnp.issubdtype(arr.dtype, jnp.integer) or arr.dtype == jnp.bool_:
        arr = arr.astype(default_floating_dtype())
    else:
        raise TypeError(f"{name} must be a real or complex array; got {arr.dtype}.")
    if square and (arr.ndim < 2 or arr.shape[-1] != arr.shape[-2]):
        raise ValueError(
            f"{name} must have shape (*batch, n, n) (square matrices in the last two "
            f"axes); got {arr.shape}."
        )
    if arr.ndim >= 2:
        n = arr.shape[-1]
        real = not jnp.iscomplexobj(arr)
        if real and n < 2:
            raise ValueError(
                f"{name} is real, so an SO(n) element, which needs n >= 2; got n={n}. "
                "(U(1) elements are complex 1x1 matrices.)"
            )
        if n < 1:
            raise ValueError(f"{name} must have n >= 1; got shape {arr.shape}.")
    check_finite(arr, name)
    return arr


def _h(M):
    """Conjugate transpose of the last two axes."""
    return (
        jnp.conj(jnp.swapaxes(M, -1, -2))
        if jnp.iscomplexobj(M)
        else jnp.swapaxes(M, -1, -2)
    )


def _skew(M):
    return 0.5 * (M - _h(M))


def skew(M: Inexact[ArrayLike, "*batch n n"]) -> Inexact[Array, "*batch n n"]:
    r"""Skew-Hermitian part: the orthogonal projection onto the Lie algebra.

    $$\operatorname{skew}(M) = \tfrac12 (M - M^H)$$

    $M$ = `M`, real (projection onto $\mathfrak{so}(n)$) or complex (onto
    $\mathfrak{u}(n)$). Idempotent; $\operatorname{skew}(M)^H = -\operatorname{skew}(M)$.

    Raises:
        ValueError: `M` not square in its last two axes, or NaN/inf.
        TypeError: a non-numeric dtype.

    Example:
        >>> skew(jnp.array([[0.0, 2.0], [0.0, 0.0]])).tolist()
        [[0.0, 1.0], [-1.0, 0.0]]
    """
    M = as_matrix(M, "M")
    return _skew(M)


def _defect(U):
    n = U.shape[-1]
    E = _h(U) @ U - jnp.eye(n, dtype=U.dtype)[(None,) * (U.ndim - 2)]
    return jnp.sqrt(jnp.sum(jnp.abs(E) ** 2, axis=(-2, -1)))


def defect(U: Inexact[ArrayLike, "*batch n n"]) -> Float[Array, "*batch"]:
    r"""Distance from the group: $\|U^H U - I\|_F$ (0 exactly on $O(n)$ / $U(n)$).

    $$\operatorname{defect}(U) = \Bigl(\sum_{a,b} |(U^H U - I)_{ab}|^2\Bigr)^{1/2}$$

    Jit-able; used to measure an integrator's drift off the group.

    Example:
        >>> float(defect(2.0 * jnp.eye(2)))  # |4 I - I|_F = 3 sqrt 2
        4.242640687119285
    """
    U = as_matrix(U, "U")
    return _defect(U)


def check_member(U, name: str = "U", *, tol: float | None = None):
    r"""`U` checked as a group element (concrete input only); returns the array.

    $$\|U^H U - I\|_F \le \mathrm{tol}, \qquad \det U > 0 \ \text{(real: } SO(n))$$

    `tol` defaults to $n\sqrt{\varepsilon}$ of the dtype (1.5e-8 n for float64,
    3.5e-4 n for float32). Shapes and dtypes as [`as_matrix`][syncattn.group.as_matrix].

    Raises:
        ValueError: naming `name`, with the largest defect, if a concrete `U` is not
            unitary/orthogonal, or a real `U` has $\det U < 0$.
    """
    U = as_matrix(U, name)
    if not is_concrete(U) or U.size == 0:
        return U
    n = U.shape[-1]
    work = np.complex128 if np.iscomplexobj(U) else np.float64
    X = np.asarray(
        U.astype(jnp.complex128 if np.iscomplexobj(U) else jnp.float64), work
    )
    E = np.conj(np.swapaxes(X, -1, -2)) @ X - np.eye(n)
    dev = float(np.max(np.sqrt(np.sum(np.abs(E) ** 2, axis=(-2, -1)))))
    tol = (
        n * eps_for(U.dtype if U.dtype not in _LOW_PRECISION else jnp.float32)
        if (tol is None)
        else float(tol)
    )
    if U.dtype in _LOW_PRECISION:
        tol = max(tol, n * 2.0**-7)
    group = f"U({n})" if np.iscomplexobj(U) else f"SO({n})"
    if dev > tol:
        raise ValueError(
            f"{name} must be in {group} (U^H U = I); max ||U^H U - I||_F = {dev:.3g} "
            f"> tol {tol:.3g}."
        )
    if not np.iscomplexobj(U):
        det = np.linalg.det(X)
        if np.any(det < 0):
            raise ValueError(
                f"{name} must be in SO({n}) (det = +1); got a matrix with det = -1 "
                "(a reflection, in O(n) only)."
            )
    return U


def _check_algebra(xi, name: str, like=None):
    xi = as_matrix(xi, name)
    if like is not None:
        if jnp.iscomplexobj(like) and not jnp.iscomplexobj(xi):
            xi = xi.astype(like.dtype)
        elif jnp.iscomplexobj(xi) and not jnp.iscomplexobj(like):
            raise TypeError(
                f"{name} is complex but the group element is real (SO(n)): pass a real "
                "skew-symmetric matrix."
            )
        if xi.shape[-1] != like.shape[-1]:
            raise ValueError(
                f"{name} must be (*batch, n, n) with n={like.shape[-1]} like the group "
                f"element; got {xi.shape}."
            )
    if is_concrete(xi) and xi.size:
        X = np.asarray(
            xi.astype(jnp.complex128 if jnp.iscomplexobj(xi) else jnp.float64)
        )
        asym = float(np.max(np.abs(X + np.conj(np.swapaxes(X, -1, -2)))))
        scale = max(1.0, float(np.max(np.abs(X))))
        dt = xi.dtype if xi.dtype not in _LOW_PRECISION else jnp.float32
        if asym > eps_for(dt) * scale * (
            1.0 if xi.dtype not in _LOW_PRECISION else 1e3
        ):
            kind = (
                "skew-Hermitian (xi^H = -xi)"
                if jnp.iscomplexobj(xi)
                else ("skew-symmetric (xi^T = -xi)")
            )
            raise ValueError(
                f"{name} must be in the Lie algebra, {kind}; got max|xi + xi^H| = "
                f"{asym:.3g}. Perhaps apply group.skew first?"
            )
    return xi


def _pair(U, M, uname, mname):
    U = check_member(U, uname)
    M = as_matrix(M, mname)
    if jnp.iscomplexobj(M) and not jnp.iscomplexobj(U):
        raise TypeError(f"{mname} is complex but {uname} is real (SO(n)).")
    if M.shape[-1] != U.shape[-1]:
        raise ValueError(
            f"{mname} must be (*batch, n, n) with n={U.shape[-1]} like {uname}; got "
            f"{M.shape}."
        )
    check_broadcast(
        f"{uname} {U.shape} and {mname} {M.shape} must have broadcastable batch shapes.",
        U.shape[:-2],
        M.shape[:-2],
    )
    return jnp.broadcast_arrays(U, M.astype(U.dtype))


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


def _expm(xi):
    n = xi.shape[-1]
    if xi.dtype in _LOW_PRECISION:
        return _expm(xi.astype(jnp.float32)).astype(xi.dtype)
    if n == 1:
        return jnp.exp(xi)
    if n == 3 and not jnp.iscomplexobj(xi):
        return _rodrigues(xi)
    return jax.scipy.linalg.expm(xi)


def expm(xi: Inexact[ArrayLike, "*batch n n"]) -> Inexact[Array, "*batch n n"]:
    r"""The group exponential of a Lie algebra element.

    $$\exp(\xi) = \sum_{k \ge 0} \frac{\xi^k}{k!}; \qquad
      SO(3):\ \exp(\xi) = I + \frac{\sin t}{t}\xi + \frac{1 - \cos t}{t^2}\xi^2,\ \
      t = \tfrac{1}{\sqrt2}\|\xi\|_F$$

    $\xi$ = `xi` (skew-symmetric or skew-Hermitian). Real $3 \times 3$ uses the closed
    Rodrigues form above (a Taylor series for $t^2 < 10^{-4}$, so value and gradient
    are finite at $\xi = 0$); $1 \times 1$ uses the scalar exponential; every other
    size `jax.scipy.linalg.expm` (Padé with scaling and squaring). All are
    differentiable. float16/bfloat16 are computed in float32 and cast back.

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


def _haar(key, shape, n, kind, dtype):
    if kind == "u":
        real = jnp.finfo(dtype).dtype
        kr, ki = jax.random.split(key)
        Z = (
            jax.random.normal(kr, (*shape, n, n), real)
            + 1j * jax.random.normal(ki, (*shape, n, n), real)
        ).astype(dtype) * float(np.sqrt(0.5))
    else:
        work = jnp.float32 if dtype in _LOW_PRECISION else dtype
        Z = jax.random.normal(key, (*shape, n, n), work)
    Q, R = jnp.linalg.qr(Z)
    d = jnp.diagonal(R, axis1=-2, axis2=-1)
    ad = jnp.abs(d)
    phase = d / jnp.where(ad > 0, ad, jnp.ones_like(ad))  # R's diagonal made positive
    Q = Q * phase[..., None, :]
    if kind == "so":
        # Haar on O(n); flipping column 0 where det = -1 maps O^- onto SO(n) and
        # preserves Haar measure (right multiplication by a fixed reflection)
        s = jnp.sign(jnp.linalg.det(Q))
        Q = Q.at[..., :, 0].multiply(s[..., None])
        Q = Q.astype(dtype)
    return Q


def sample_haar(
    key: PRNGKeyArray,
    shape: int | tuple[int, ...],
    n: int,
    kind: str = "u",
    *,
    dtype=None,
) -> Inexact[Array, "*shape n n"]:
    r"""Independent Haar-distributed elements of $U(n)$ or $SO(n)$.

    $$Z = QR,\quad Z_{ab} \sim \mathcal{N}_{\mathbb{C}}(0, 1)\ (\mathcal{N}(0, 1)),
      \qquad U = Q\,\operatorname{diag}\Bigl(\frac{R_{aa}}{|R_{aa}|}\Bigr)$$

    Mezzadri's recipe: the QR factor of a Ginibre matrix with the phases of $R$'s
    diagonal moved into $Q$ is Haar on $U(n)$ (real Ginibre: on $O(n)$). For
    $SO(n)$ the first column is negated where $\det U = -1$, a Haar-preserving map
    of $O(n)^-$ onto $SO(n)$. Moments: $E\operatorname{tr}U = 0$,
    $E|\operatorname{tr}U|^2 = 1$ on $U(n)$; on $SO(n)$, $E\operatorname{tr}U = 0$ and
    $E(\operatorname{tr}U)^2 = 1$ for $n \ge 3$ (2 for $n = 2$).

    Args:
        key: a JAX PRNG key.
        shape: batch shape (an int or a tuple).
        n: matrix size ($\ge 1$ for `"u"`, $\ge 2$ for `"so"`).
        kind: `"u"` ($U(n)$) or `"so"` ($SO(n)$).
        dtype: complex64/complex128 for `"u"` (default complex128 with x64, else
            complex64); a real float for `"so"` (default float64 with x64).

    Returns:
        `shape + (n, n)` matrices.

    Raises:
        ValueError: unknown `kind`, too small `n`, negative shape, or a `dtype` of
            the wrong field for `kind`.

    Example:
        >>> sample_haar(jax.random.key(0), 4, 3, "so").shape
        (4, 3, 3)
    """
    if kind not in ("u", "so"):
        raise ValueError(f"kind must be 'u' (U(n)) or 'so' (SO(n)); got {kind!r}.")
    n = check_count(n, "n")
    if kind == "so" and n < 2:
        raise ValueError(f"SO(n) needs n >= 2; got n={n}.")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"shape must have non-negative entries; got {shape}.")
    real_default = default_floating_dtype()
    if dtype is None:
        dtype = (
            (jnp.complex128 if real_default == jnp.float64 else jnp.complex64)
            if kind == "u"
            else real_default
        )
    dtype = jnp.dtype(dtype)
    if kind == "u" and dtype not in (jnp.complex64, jnp.complex128):
        raise ValueError(
            f"U(n) samples need complex64 or complex128; got dtype={dtype}."
        )
    if kind == "so" and not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(
            f"SO(n) samples need a real floating dtype; got dtype={dtype}."
        )
    return _haar_jit(key, shape, n, kind, dtype)


_haar_jit = jax.jit(_haar, static_argnums=(1, 2, 3, 4))


def _order_parameter(U, axis):
    n = U.shape[-1]
    m = jnp.mean(U, axis=axis)
    return jnp.sqrt(jnp.sum(jnp.abs(m) ** 2, axis=(-2, -1)) / n)


def order_parameter(
    U: Inexact[ArrayLike, "*batch N n n"], axis: int = -3
) -> Float[Array, "*rest"]:
    r"""Order parameter of a population of group elements.

    $$R = \frac{1}{\sqrt n}\Bigl\|\frac1N\sum_{j=1}^N U_j\Bigr\|_F \in [0, 1]$$

    $U_j$ = `U` indexed along `axis` (default: the axis before the matrix axes).
    $R = 1$ exactly when all $U_j$ are equal ($\|U_j\|_F = \sqrt n$, equality in the
    triangle inequality), and $R^2 = \frac{1}{N^2}\sum_{j,k}\frac1n\operatorname{Re}
    \operatorname{tr}(U_j^H U_k)$. On $U(1)$, $U_j = e^{i\theta_j}$, it is Kuramoto's
    $R$.

    Raises:
        ValueError: `U` not in the group, `axis` not a batch axis, empty population.

    Example:
        >>> float(order_parameter(jnp.stack([jnp.eye(2), -jnp.eye(2)])))
        0.0
    """
    U = check_member(U, "U")
    ax = axis - U.ndim if axis >= 0 else axis
    if U.ndim < 3 or not -U.ndim <= ax <= -3:
        raise ValueError(
            f"U must have shape (*batch, N, n, n) and axis must index a batch axis; got "
            f"shape {U.shape}, axis={axis}."
        )
    if U.shape[ax] == 0:
        raise ValueError(
            f"U must hold N >= 1 elements along axis {axis}; got {U.shape}."
        )
    return _order_parameter(U, ax)


def _inner(U, V):
    n = U.shape[-1]
    return jnp.real(jnp.sum(jnp.conj(U) * V, axis=(-2, -1))) / n


def inner(
    U: Inexact[ArrayLike, "*#batch n n"], V: Inexact[ArrayLike, "*#batch n n"]
) -> Float[Array, "*rbatch"]:
    r"""Normalised real inner product, the group's "cosine".

    $$\langle U, V\rangle_n = \frac1n \operatorname{Re}\operatorname{tr}(U^H V)
      = \frac1n \langle \operatorname{lift}(U), \operatorname{lift}(V)\rangle$$

    $U$ = `U`, $V$ = `V`. For group elements it lies in $[-1, 1]$, equals 1 iff
    $U = V$, and on $U(1)$ it is $\cos(\theta_V - \theta_U)$. Defined for any
    matrices (no membership check).

    Example:
        >>> float(inner(jnp.eye(2), -jnp.eye(2)))
        -1.0
    """
    U, V = as_matrix(U, "U"), as_matrix(V, "V")
    if jnp.iscomplexobj(U) != jnp.iscomplexobj(V) or U.shape[-1] != V.shape[-1]:
        raise ValueError(
            f"U and V must be matrices of one group (same n, both real or both complex); "
            f"got {U.shape} {U.dtype} and {V.shape} {V.dtype}."
        )
    check_broadcast(
        f"U {U.shape} and V {V.shape} must have broadcastable batch shapes.",
        U.shape[:-2],
        V.shape[:-2],
    )
    return _inner(*jnp.broadcast_arrays(U, V))


def _lift(U):
    flat = U.reshape(*U.shape[:-2], -1)
    if jnp.iscomplexobj(U):
        return jnp.concatenate([jnp.real(flat), jnp.imag(flat)], axis=-1)
    return flat


def lift(U: Inexact[ArrayLike, "*batch n n"]) -> Float[Array, "*batch m"]:
    r"""Ambient real coordinates of a matrix: $\mathbb{R}^{n^2}$ ($SO(n)$) or $\mathbb{R}^{2n^2}$ ($U(n)$).

    $$\operatorname{lift}(U) = \operatorname{vec}(U)\ \text{(real)}, \qquad
      \operatorname{lift}(U) = (\operatorname{vec}\operatorname{Re}U,
      \operatorname{vec}\operatorname{Im}U)\ \text{(complex)}$$

    row-major `vec`. An isometry for $\operatorname{Re}\operatorname{tr}(X^H Y)$:
    $\langle\operatorname{lift}U, \operatorname{lift}V\rangle = \operatorname{Re}
    \operatorname{tr}(U^H V)$, so group elements lift to the sphere of radius
    $\sqrt n$. Defined for any matrices (no membership check).

    Example:
        >>> lift(jnp.eye(2)).tolist()
        [1.0, 0.0, 0.0, 1.0]
    """
    U = as_matrix(U, "U")
    return _lift(U)

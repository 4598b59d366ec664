r"""The Stiefel manifold $St(p, n)$: orthonormal $p$-frames $X \in \mathbb{R}^{n\times p}$.

$$St(p, n) = \{X \in \mathbb{R}^{n \times p} : X^\top X = I_p\}, \qquad
  \dim St(p, n) = np - \tfrac{p(p+1)}{2}.$$

It contains the sphere ($p = 1$: $St(1, n) = S^{n-1}$) and the orthogonal group ($p = n$:
$St(n, n) = O(n)$). The metric is the **embedded** (Euclidean) one, scaled by
`norm_scale` $c = 1/p$ so that $\langle X, X\rangle = 1$ on the manifold (the sphere's
$c = 1$ at $p = 1$, the group's $c = 1/n$ at $p = n$):

$$\langle \Delta_1, \Delta_2\rangle_X = \tfrac1p \operatorname{tr}(\Delta_1^\top\Delta_2).$$

Theory, the exponential's derivation and the flow: docs/theory/stiefel.md.
"""

from __future__ import annotations

import dataclasses
import re

import jax
import jax.numpy as jnp
import numpy as np

from .. import group
from .._checks import check_finite, is_concrete
from .._numerics import sincos
from .._types import PRNGKeyArray
from ._base import Geometry, drift_dtype, positions, turn_planes
from ._checks import check_states
from ._drift import check_drift, plane_generator


_NAME = re.compile(r"^stiefel(\d+)(?:x(\d+))?$")


def _t(M):
    return jnp.swapaxes(M, -1, -2)


def _sym(M):
    return (M + _t(M)) / 2


def _skew(M):
    return (M - _t(M)) / 2


def _wide(dtype):
    """At least float32 for the matrix exponentials and the SVD."""
    return jnp.promote_types(dtype, jnp.float32)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


@dataclasses.dataclass(frozen=True)
class Stiefel(Geometry):
    r"""$St(p, n)$, an $n \times p$ matrix $X$ with $X^\top X = I_p$ per oscillator.

    * **Embedding**: the entries of $X$, row-major, $m = np$; `norm_scale` $c = 1/p$.
    * **Tangents** (ambient, like the sphere's): $T_XSt = \{\Delta \in
      \mathbb{R}^{n\times p} : X^\top\Delta + \Delta^\top X = 0\}$, i.e. $\Delta = XA +
      X_\perp B$ with $A \in \mathfrak{so}(p)$.
    * **Projection** (orthogonal for the embedded metric):
      $P_X(V) = V - X\operatorname{sym}(X^\top V)$, $\operatorname{sym}M = (M +
      M^\top)/2$.
    * **Exponential** (the exact geodesic of the embedded metric, Edelman, Arias and
      Smith 1998, eq. 2.45), with $A = X^\top\Delta$ (skew) and $S = \Delta^\top\Delta$:

      $$\operatorname{Exp}_X(\Delta) = \begin{bmatrix} X & \Delta\end{bmatrix}
        \exp\begin{bmatrix} A & -S \\ I_p & A\end{bmatrix}
        \begin{bmatrix} I_p \\ 0\end{bmatrix} e^{-A}.$$

      Derivation: geodesics of the embedded metric solve $\ddot Y + Y\dot Y^\top\dot Y
      = 0$; then $A = Y^\top\dot Y$ is constant and $S(t) = \dot Y^\top\dot Y$ obeys
      $\dot S = [A, S]$, so $S(t) = e^{At}S(0)e^{-At}$, and $[P, Q] = [Ye^{At},
      \dot Ye^{At}]$ solves the linear system $[P, Q]' = [P, Q]
      \bigl[\begin{smallmatrix} A & -S(0) \\ I & A\end{smallmatrix}\bigr]$; at $t = 1$
      this is the formula. At $p = 1$ ($A = 0$, $S = \|\delta\|^2$) it is the sphere's
      $\cos\|\delta\|\,x + \sin\|\delta\|\,\delta/\|\delta\|$; at $p = n$ ($X$
      orthogonal, $\Delta = X\xi$) it is the group's $X e^{\xi}$.
    * **Velocity** $\dot X = \Delta$; **nearest** the polar factor $WV^\top$ of $X =
      W\Sigma V^\top$ (thin SVD); **residual** $\|X^\top X - I_p\|_F$.
    * **Random**: $X = Q\operatorname{diag}(\operatorname{sign} R_{ii})$ for the thin QR
      $G = QR$ of a Gaussian $G \in \mathbb{R}^{n\times p}$ (uniform, i.e. invariant
      under $O(n)$); parameters: a Gaussian $n\times p$ matrix, mapped by the polar factor.
    * **Drift** $e^{-t\Omega_j}X$, $\Omega_j \in \mathfrak{so}(n)$ acting on the left (on
      the rows): `"planes"` the sphere's $\lfloor n/2\rfloor$ plane rates, $\omega$ $(k,
      \lfloor n/2\rfloor)$; `"full"` $\omega$ $(k, n, n)$ used through its skew part;
      `"none"`. An isometry of the embedding for every $t$.
    * **Symmetry** $X \mapsto QX$, $Q \in O(n)$ (the whole orthogonal group).

    Reductions. $p = 1$: every fact, `project`, `exp`, `nearest` and the drift equal
    [`Sphere`][syncattn.geometry.Sphere]`(n)`'s on the column $x = X_{:,0}$. $p = n$:
    $St(n, n) = O(n) \supset SO(n)$; [`Group`][syncattn.geometry.Group]`("so", n)`
    has the same embedding, `norm_scale` $1/n$, `dim`, drift and symmetry, but
    left-trivialised tangents: a Stiefel tangent $\Delta$ is the group's $\xi = X^\top
    \Delta$ ($\Delta = X\xi$), `project` gives $X\operatorname{skew}(X^\top V)$ (the
    group's $\operatorname{skew}(X^\top V)$, times $X$), `exp` gives $Xe^{\xi}$.

    Name: `"stiefel<p>x<n>"` (or `"stiefel<p>"` with `n`), see `from_name`.
    """

    p: int
    n: int
    drift: str = "planes"

    def __post_init__(self):
        if not _is_int(self.n) or self.n < 2:
            raise ValueError(f"n must be an integer >= 2 (St(p, n)); got {self.n!r}.")
        if not _is_int(self.p) or not 1 <= self.p <= self.n:
            raise ValueError(
                f"p must be an integer with 1 <= p <= n={self.n} (St(p, n)); got "
                f"{self.p!r}."
            )
        check_drift(self.drift)

    @classmethod
    def from_name(cls, space: str, n: int | None = None, drift: str = "planes"):
        """`"stiefel<p>x<n>"`, or `"stiefel<p>"` with `n` (the ambient dimension)."""
        m = _NAME.match(str(space).strip().lower())
        if m is None or (m.group(2) is None and n is None):
            raise ValueError(
                "space must be 'stiefel<p>x<n>' (e.g. 'stiefel2x5': 2-frames in R^5) or "
                f"'stiefel<p>' with n; got {space!r}."
            )
        return cls(int(m.group(1)), int(m.group(2) or n), drift)

    # ------------------------------------------------------------------ facts
    @property
    def fiber(self):
        return (self.n, self.p)

    @property
    def m(self):
        return self.n * self.p

    @property
    def dim(self):
        return self.n * self.p - self.p * (self.p + 1) // 2

    @property
    def norm_scale(self):
        return 1.0 / self.p

    @property
    def space(self) -> str:
        return f"stiefel{self.p}x{self.n}"

    # ------------------------------------------------------------------ points
    def check(self, X, k, name):
        doc = f"(T, k={k}, n={self.n}, p={self.p})"
        X = check_states(X, name, doc, (k, self.n, self.p))
        if is_concrete(X):
            check_finite(X, name)
            err = float(np.max(np.asarray(self.residual(X.astype(jnp.float64)))))
            tol = float(np.sqrt(np.finfo(np.dtype(X.dtype)).eps)) * self.p
            if err > tol:
                raise ValueError(
                    f"{name} must lie on the Stiefel manifold St({self.p}, {self.n}) "
                    f"(X^T X = I; use Stiefel.nearest); got ||X^T X - I||_F up to "
                    f"{err:.3g}."
                )
        return X

    def embed(self, X):
        return X.reshape(X.shape[:-2] + (self.m,))

    def unembed(self, x):
        return x.reshape(x.shape[:-1] + (self.n, self.p))

    def residual(self, X):
        G = _t(X) @ X
        E = G - jnp.broadcast_to(jnp.eye(self.p, dtype=X.dtype), G.shape)
        return jnp.sqrt(jnp.sum(E * E, (-2, -1)))

    def random(self, key: PRNGKeyArray, shape, dtype=None):
        G = jax.random.normal(key, tuple(shape) + (self.n, self.p), dtype or float)
        Q, R = jnp.linalg.qr(G)
        d = jnp.sign(jnp.diagonal(R, axis1=-2, axis2=-1))
        return Q * jnp.where(d == 0, 1, d)[..., None, :]

    def init_params(self, key, shape):
        return jax.random.normal(key, tuple(shape) + (self.n, self.p))

    def from_params(self, raw):
        return self.nearest(raw)

    # ------------------------------------------------------------------ tangents
    def project(self, X, V):
        V = V.astype(X.dtype)
        return V - X @ _sym(_t(X) @ V)

    def ambient_tangent(self, X, D):
        return self.embed(D)

    def velocity(self, X, D):
        return D

    def nearest(self, X):
        r"""The polar factor $WV^\top$ of the thin SVD $X = W\Sigma V^\top$: the closest
        point of $St(p, n)$ in the Frobenius norm (for $X$ of full rank $p$)."""
        W, _, Vh = jnp.linalg.svd(X.astype(_wide(X.dtype)), full_matrices=False)
        return (W @ Vh).astype(X.dtype)

    def exp(self, X, D):
        r"""$\operatorname{Exp}_X(\Delta) = [X\ \Delta]\exp\bigl[\begin{smallmatrix} A &
        -S \\ I & A\end{smallmatrix}\bigr][\begin{smallmatrix} I \\ 0
        \end{smallmatrix}]e^{-A}$, $A = \operatorname{skew}(X^\top\Delta)$, $S =
        \Delta^\top\Delta$ (the class docstring derives it), in at least float32."""
        wdt = _wide(D.dtype)
        Xw, Dw = X.astype(wdt), D.astype(wdt)
        p = self.p
        A = _skew(_t(Xw) @ Dw)
        S = _t(Dw) @ Dw
        eye = jnp.broadcast_to(jnp.eye(p, dtype=wdt), A.shape)
        M = jnp.concatenate(
            [jnp.concatenate([A, -S], -1), jnp.concatenate([eye, A], -1)], -2
        )
        E = jax.scipy.linalg.expm(M)[..., :p]  # (.., 2p, p)
        Y = Xw @ E[..., :p, :] + Dw @ E[..., p:, :]
        return (Y @ jax.scipy.linalg.expm(-A)).astype(X.dtype)

    # ------------------------------------------------------------------ drift
    @property
    def drift_planes(self):
        return 0 if self.drift == "none" else self.n // 2

    def omega_from_rates(self, rates):
        return rates if self.drift == "planes" else plane_generator(rates, self.n)

    def omega_shape(self, k):
        return (k, self.n // 2) if self.drift == "planes" else (k, self.n, self.n)

    def generator(self, omega):
        r"""$\Omega_j \in \mathfrak{so}(n)$ $(k, n, n)$ from the parameter (None: none)."""
        if omega is None:
            return None
        if self.drift == "planes":
            return plane_generator(omega, self.n)
        return _skew(omega)

    def drifted_lift(self, X, omega):
        r"""$(T, m, k)$: $\frac{1}{\sqrt p}\operatorname{embed}(e^{-t\Omega_j}X_{tj})$
        (the rows turned; an orthogonal map of $\mathbb{R}^{n\times p}$)."""
        scale = 1.0 / np.sqrt(self.p)
        if omega is None:
            return self.lift(X) * jnp.asarray(scale, X.dtype)
        wdt = drift_dtype(X.dtype)
        pos = positions(X.shape[0], wdt)
        Xw = X.astype(wdt)
        if self.drift == "planes":
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])  # (T, k, P)
            Y = turn_planes(Xw, sn[..., None], c[..., None], -2)
        else:
            Om = self.generator(omega.astype(wdt))  # (k, n, n)
            Y = jax.scipy.linalg.expm(-pos[:, None, None, None] * Om[None]) @ Xw
        return (self.lift(Y) * scale).astype(X.dtype)

    # ------------------------------------------------------------------ symmetry
    def random_symmetry(self, key, dtype):
        Q = group.sample_haar(key, (), self.n, "so", dtype=dtype)
        return Q.at[0].multiply(-1)  # det -1: the whole orthogonal group acts

    def act(self, Q, X):
        return jnp.einsum("ab,...bp->...ap", Q, X)


__all__ = ["Stiefel"]

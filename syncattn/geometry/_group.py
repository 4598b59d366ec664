r"""The matrix groups $SO(n)$ (real) and $U(n)$ (complex), left-trivialised."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from .. import group
from .._numerics import sincos
from .._types import PRNGKeyArray
from ._base import Geometry, drift_dtype, positions, turn_planes
from ._checks import check_states
from ._drift import check_drift, plane_generator


def _h(M):
    return (
        jnp.conj(jnp.swapaxes(M, -1, -2))
        if jnp.iscomplexobj(M)
        else jnp.swapaxes(M, -1, -2)
    )


@dataclasses.dataclass(frozen=True)
class Group(Geometry):
    r"""$SO(n)$ (`kind="so"`) or $U(n)$ (`kind="u"`), a matrix $U$ per oscillator.

    Embedding the entries of $U$ ($U(n)$: real and imaginary parts, [`syncattn.group.lift`][]),
    $m = n^2$ or $2n^2$, with the metric $\langle A, B\rangle = \frac1n\operatorname{Re}
    \operatorname{tr}(A^H B)$ (`norm_scale` $1/n$; the drifted lift carries $1/\sqrt n$).
    Tangents left-trivialised: $\xi = U^H\dot U \in \mathfrak g$ (skew(-Hermitian));
    projection $P_U V = \operatorname{skew}(U^H V)$ (for $V = G = \sum_u A_{tu}U_u$ the
    Lohe coupling $U\xi = \frac12\sum_u A_{tu}(U_u - UU_u^HU)$,
    [`syncattn.lohe.matrix_tangent_update`][]); $\operatorname{Exp}_U\xi = U\exp\xi$;
    drift $e^{-t\Omega_j}U$ with $\Omega_j \in \mathfrak g$ (`"planes"`: SO(n) the
    sphere's plane rotations of the rows, U(n) $\Omega_j = -i\operatorname{diag}
    (\omega_j)$, $\omega$ $(k, n)$; `"full"`: $\omega$ $(k, n, n)$ used as its
    skew(-Hermitian) part; `"none"`); symmetry left multiplication $U \mapsto VU$.
    A Lie group (`has_lie_algebra`): `bracket` is the commutator, so the RKMK
    integrators ([`syncattn.geometry.rkmk4`][]) run on it.
    """

    kind: str
    n: int
    drift: str = "planes"
    arg_name = "U"
    has_lie_algebra = True

    def __post_init__(self):
        group.parse_group(f"{self.kind}{self.n}")  # the group's own error
        check_drift(self.drift)

    @property
    def complex(self):
        return self.kind == "u"

    @property
    def fiber(self):
        return (self.n, self.n)

    @property
    def m(self):
        return (2 if self.complex else 1) * self.n * self.n

    @property
    def dim(self):
        return self.n * self.n if self.complex else self.n * (self.n - 1) // 2

    @property
    def norm_scale(self):
        return 1.0 / self.n

    @property
    def space(self) -> str:
        return f"{self.kind}{self.n}"

    def check(self, U, k, name):
        n, doc = self.n, f"(T, k={k}, n={self.n}, n={self.n})"
        U = jnp.asarray(U)
        if not self.complex and not jnp.issubdtype(U.dtype, jnp.floating):
            raise TypeError(
                f"{name} must be a real floating array for SO({n}) {doc}; got dtype {U.dtype}."
            )
        where = f"for U({n}) {doc}" if self.complex else doc
        U = check_states(U, name, where, (k, n, n), complex_=self.complex or None)
        return group.check_member(U, name)  # finite, U^H U = I, det U = +1 (SO(n))

    def embed(self, U):
        return group.lift(U)

    def unembed(self, x):
        n = self.n
        if not self.complex:
            return x.reshape(x.shape[:-1] + (n, n))
        # U(n) states are complex64/complex128, so the lifts are float32/float64
        return jax.lax.complex(x[..., : n * n], x[..., n * n :]).reshape(
            x.shape[:-1] + (n, n)
        )

    def residual(self, U):
        return group.defect(U)

    def random(self, key: PRNGKeyArray, shape, dtype=None):
        return group.sample_haar(key, tuple(shape), self.n, self.kind, dtype=dtype)

    def init_params(self, key, shape):
        raw = jax.random.normal(key, tuple(shape) + (self.n, self.n)) * math.pi / 2
        if self.complex:
            k2 = jax.random.fold_in(key, 1)
            raw = raw + 1j * jax.random.normal(k2, raw.shape) * math.pi / 2
        return raw

    def from_params(self, raw):
        return group.expm(group.skew(raw))

    def project(self, U, V):
        return group.skew(_h(U) @ V.astype(U.dtype))

    def ambient_tangent(self, U, xi):
        return group.lift(U @ xi)

    def velocity(self, U, xi):
        return U @ xi

    def nearest(self, X):
        r"""The polar factor $W V^H$ of $X = W\Sigma V^H$ (SO(n): a negative determinant
        flips the last singular pair)."""
        W, _, Vh = jnp.linalg.svd(X)
        if not self.complex:
            d = jnp.sign(jnp.linalg.det(W @ Vh))
            W = W.at[..., -1].multiply(d[..., None])
        return W @ Vh

    def exp(self, U, xi):
        # U exp(xi) (group.exp_map's formula; SO(3): Rodrigues), the product in at
        # least float32
        wdt = jnp.promote_types(xi.dtype, jnp.float32)
        return (U.astype(wdt) @ group.expm(xi.astype(wdt))).astype(U.dtype)

    def bracket(self, a, b):
        r"""The matrix commutator $[a, b] = ab - ba$ of $\mathfrak{so}(n)$ /
        $\mathfrak u(n)$."""
        return a @ b - b @ a

    @property
    def drift_planes(self):
        if self.drift == "none":
            return 0
        return self.n if self.complex else self.n // 2

    def omega_from_rates(self, rates):
        if self.drift == "planes":
            return rates
        if self.complex:  # the u(n) parameter -i diag(rates)
            return -1j * jnp.einsum(
                "...a,ab->...ab", rates, jnp.eye(self.n, dtype=rates.dtype)
            )
        return plane_generator(rates, self.n)

    def omega_shape(self, k):
        if self.drift == "full":
            return (k, self.n, self.n)
        return (k, self.n) if self.complex else (k, self.n // 2)

    def generator(self, omega):
        if omega is None:
            return None
        if self.drift == "full":
            return group.skew(omega)
        if self.complex:
            return -1j * jnp.einsum(
                "...a,ab->...ab", omega, jnp.eye(self.n, dtype=omega.dtype)
            )
        return plane_generator(omega, self.n)

    def drifted_lift(self, U, omega):
        rdt = self.real_dtype(U)
        scale = 1.0 / np.sqrt(self.n)
        if omega is None:
            return (self.lift(U) * scale).astype(rdt)
        wdt = drift_dtype(rdt)
        cdt = jnp.promote_types(wdt, jnp.complex64) if self.complex else wdt
        pos = positions(U.shape[0], wdt)
        Uw = U.astype(cdt)
        if self.drift == "planes" and self.complex:  # row a turned by e^{i omega_a t}
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])  # (T, k, n)
            y = jax.lax.complex(c, sn)[..., None] * Uw
        elif self.drift == "planes":
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])
            y = turn_planes(Uw, sn[..., None], c[..., None], -2)
        else:
            Om = self.generator(omega.astype(cdt))
            R = group.expm(-pos[:, None, None, None].astype(cdt) * Om[None])
            y = R @ Uw
        return (self.lift(y) * scale).astype(rdt)

    def random_symmetry(self, key, dtype):
        return group.sample_haar(key, (), self.n, self.kind, dtype=dtype)

    def act(self, V, U):
        return V @ U

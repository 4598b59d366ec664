r"""The sphere $S^{n-1} \subset \mathbb{R}^n$: unit vectors $z$."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from .. import group, sphere
from .._checks import check_finite, is_concrete
from .._kernels import kernel_enabled, sphere_step, swap_minor
from .._numerics import sincos
from .._types import PRNGKeyArray
from ._base import Geometry, drift_dtype, positions, turn_planes
from ._checks import check_states
from ._drift import DRIFTS, check_drift, plane_generator


def _unit_tolerance(dtype):
    return float(np.sqrt(np.finfo(np.dtype(dtype)).eps))


@dataclasses.dataclass(frozen=True)
class Sphere(Geometry):
    r"""$S^{n-1}$, a unit vector $z \in \mathbb{R}^n$ per oscillator.

    Embedding $z$ itself; tangents $a \perp z$; projection $P_z v = (I - zz^\top)v$
    (for $v = G = \sum_u A_{tu}z_u$ the Lohe coupling $\sum_u A_{tu}(z_u - \langle z_u,
    z\rangle z)$, [`syncattn.lohe.sphere_tangent_update`][]); $\operatorname{Exp}_z a =
    \cos\|a\|\,z + \sin\|a\|\,a/\|a\|$ ([`syncattn.sphere.exp_map`][]); drift
    $e^{-t\Omega_j}z$, $\Omega_j \in \mathfrak{so}(n)$ (`"planes"`: $\lfloor n/2\rfloor$
    rates per oscillator, $\omega$ $(k, \lfloor n/2\rfloor)$; `"full"`: $\omega$
    $(k, n, n)$ used through its skew part; `"none"`); symmetry $z \mapsto Qz$, $Q \in O(n)$.
    Declares a fused layer step (`fused_step`).
    """

    n: int
    drift: str = "planes"
    has_fused_step = True

    def __post_init__(self):
        if (
            isinstance(self.n, bool)
            or not isinstance(self.n, (int, np.integer))
            or self.n < 2
        ):
            raise ValueError(f"n must be an integer >= 2 (S^(n-1)); got {self.n!r}.")
        check_drift(self.drift)

    @property
    def fiber(self):
        return (self.n,)

    @property
    def m(self):
        return self.n

    @property
    def dim(self):
        return self.n - 1

    @property
    def space(self) -> str:
        return "sphere"

    def check(self, z, k, name):
        z = check_states(z, name, f"(T, k={k}, n={self.n})", (k, self.n))
        if is_concrete(z):
            check_finite(z, name)
            norms = np.linalg.norm(np.asarray(z, np.float64), axis=-1)
            err = float(np.max(np.abs(norms - 1.0)))
            if err > _unit_tolerance(z.dtype):
                raise ValueError(
                    f"{name} must lie on the unit sphere S^{self.n - 1} (|z_tj| = 1; use "
                    f"syncattn.sphere.normalize); got | |z| - 1 | up to {err:.3g}."
                )
        return z

    def embed(self, z):
        return z

    def unembed(self, x):
        return x

    def residual(self, z):
        return jnp.abs(jnp.linalg.norm(z, axis=-1) - 1)

    def random(self, key: PRNGKeyArray, shape, dtype=None):
        return sphere.sample_uniform(key, tuple(shape), self.n, dtype=dtype)

    def init_params(self, key, shape):
        return jax.random.normal(key, tuple(shape) + (self.n,))

    def from_params(self, raw):
        return sphere.normalize(raw)

    def project(self, z, v):
        return sphere.project_tangent(z, v.astype(z.dtype))

    def ambient_tangent(self, z, a):
        return a

    def velocity(self, z, a):
        return a

    def nearest(self, x):
        return x / jnp.linalg.norm(x, axis=-1, keepdims=True)

    def exp(self, z, a):
        return sphere.exp_map(z, a)

    @property
    def drift_planes(self):
        return 0 if self.drift == "none" else self.n // 2

    def omega_from_rates(self, rates):
        return rates if self.drift == "planes" else plane_generator(rates, self.n)

    def omega_shape(self, k):
        return (k, self.n // 2) if self.drift == "planes" else (k, self.n, self.n)

    def generator(self, omega):
        """$\\Omega_j$ $(k, n, n)$ from the parameter (None for no drift)."""
        if omega is None:
            return None
        if self.drift == "planes":
            return plane_generator(omega, self.n)
        return (omega - jnp.swapaxes(omega, -1, -2)) / 2

    def drifted_lift(self, z, omega):
        if omega is None:
            return self.lift(z)
        wdt = drift_dtype(z.dtype)
        pos = positions(z.shape[0], wdt)
        if self.drift == "planes":
            # turned where the lift lies, coordinate-major (T, n, k): the angles are
            # formed as (T, P, k), so no (k, n) <-> (n, k) transpose of the states
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt).T[None])  # (T, P, k)
            y = turn_planes(jnp.swapaxes(z.astype(wdt), 1, 2), sn, c, -2)
            return y.astype(z.dtype)
        Om = self.generator(omega.astype(wdt))  # (k, n, n)
        R = group.expm(-pos[:, None, None, None] * Om[None])  # (T, k, n, n)
        y = jnp.einsum("tkab,tkb->tka", R, z.astype(wdt))
        return y.astype(z.dtype).transpose(0, 2, 1)

    def fused_step(self, z, G, gate, bound):
        r"""`exp(z, bounded(gated(gate, tangent(z, G))))` in one pass over the
        coordinate-major layout $(T, n, k)$ of `G` (the reductions over $n$ run across
        rows, not along a minor axis of length $n$): with $u_{tj} = v_{tj}(I -
        z_{tj}z_{tj}^\top)G_{tj}$, $f_t = \tanh\rho_t/\rho_t$, $\rho_t = (\frac1k\sum_j
        \|u_{tj}\|^2)^{1/2}/\beta$ and $\Delta = f_t u$, $z' = \cos\|\Delta_{tj}\|\,
        z_{tj} + \frac{\sin\|\Delta_{tj}\|}{\|\Delta_{tj}\|}\Delta_{tj}$ (both
        `where`-guarded at 0 as in the plain path; `gate` None: $v = 1$). Tested equal
        to the plain composition (tests/nn/test_sphere_attention.py)."""
        wdt = drift_dtype(z.dtype)
        zc = z.astype(wdt).transpose(0, 2, 1)  # (T, n, k)
        Gw = G.astype(z.dtype).astype(wdt)
        u = Gw - jnp.sum(zc * Gw, 1, keepdims=True) * zc
        if gate is not None:
            u = gate.astype(z.dtype).astype(wdt)[:, None, :] * u
        sq_j = jnp.sum(u * u, 1)  # (T, k)
        sq = jnp.mean(sq_j, -1, keepdims=True)
        pos = sq > 0
        rho = jnp.sqrt(jnp.where(pos, sq, 1.0)) / bound
        f = jnp.where(pos, jnp.tanh(rho) / rho, 1.0)  # (T, 1)
        nsq = sq_j * (f * f)  # |Delta_tj|^2
        p = nsq > 0
        nrm = jnp.sqrt(jnp.where(p, nsq, 1.0))
        sin_n, cos_n = sincos(nrm)  # |Delta| <= sqrt(k) beta: the vectorised pair
        c = jnp.where(p, cos_n, 1.0)
        sinc = jnp.where(p, sin_n / nrm, 1.0) * f
        y = c[:, None, :] * zc + sinc[:, None, :] * u
        return y.transpose(0, 2, 1).astype(z.dtype)

    def lift(self, z):
        r"""$(T, k, n) \to (T, n, k)$, the states coordinate-major: `swapaxes(embed)`, by
        the swap kernel (`syncattn._kernels.swap_minor`) in float32 on the CPU."""
        return swap_minor(z)

    def plane_rates(self, omega):
        return omega.T if omega is not None and self.drift == "planes" else None

    def kernel_step(self, z, lift, G, gate, bound):
        r"""`fused_step` by `syncattn._kernels.sphere_step` (read from the lift, written as
        states) in float32 on the CPU (else None)."""
        if not kernel_enabled(z.dtype):
            return None
        return sphere_step(lift, G, gate, bound)

    def random_symmetry(self, key, dtype):
        Q = group.sample_haar(key, (), self.n, "so", dtype=dtype)
        return Q.at[0].multiply(-1)  # det -1: the whole orthogonal group acts

    def act(self, Q, z):
        return jnp.einsum("ab,...b->...a", Q, z)


__all__ = ["Sphere", "DRIFTS"]

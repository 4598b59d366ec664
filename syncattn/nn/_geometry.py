r"""Geometries for the synchronisation-attention core (`_sync_attention.SyncAttention`).

After jax-md's `space`: a geometry supplies a few primitives, and the core is written
once in terms of them. A state holds $k$ oscillators per token, shape
$(T, k, *\text{fiber})$ (torus: fiber $()$, the phases $\theta_{tj}$; sphere $S^{n-1}$:
$(n,)$; group: $(n, n)$). The primitives:

* `lift(s)` $\to (T, m, k)$: the ambient coordinates $x_{tj} \in \mathbb{R}^m$ of each
  oscillator, coordinate-major (torus $(\cos\theta, \sin\theta)$, sphere $z$);
* `drifted_lift(s, omega)`: the lift of $e^{-t\Omega_j} s_{tj}$, the rotary drift, so
  that $\langle \tilde x_{tj}, \tilde x_{uj}\rangle = \langle x_{tj},
  e^{(t-u)\Omega_j} x_{uj}\rangle$ ($\Omega_j$ skew: $e^{s\Omega}$ is orthogonal and a
  one-parameter group);
* `tangent(s, G)`: the increment $a_{tj} \in T_{s_{tj}}$ from the attention average
  $G_{tj}$ of the lifts (the Kuramoto / Lohe coupling);
* `gated(v, a)`: the value gate $v_{tj}$ times $a_{tj}$; `fiber_ndim` for the bound;
* `retract(s, Delta)`: the exponential map $\operatorname{Exp}_s(\Delta)$;
* `orders(s, G, w)`: the diagnostics `local_order`, `global_order`, `coherence`;
* `check(s, k, name)`: the input's checks (shape at trace time, values when concrete).

Geometries are frozen dataclasses (hashable: a static field of the layer).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from .. import entropic, group, kuramoto, lohe, sphere, torus
from .._checks import check_finite, is_concrete
from .._numerics import sincos
from ._common import check_input


def _lift_parts(theta):
    """(cos theta, sin theta), each of theta's shape (the fused sin/cos kernel)."""
    sn, c = sincos(theta)
    return c, sn


def _positions(T, dtype):
    return jnp.arange(T, dtype=dtype)


@dataclasses.dataclass(frozen=True)
class Torus:
    r"""$\mathbb{T}^k$: phases $\theta_{tj}$; lift $(\cos\theta, \sin\theta)$; drift
    $\theta \mapsto \theta + \omega_j t$ (statement 2: RoPE); increment
    [`syncattn.kuramoto.tangent_update`][]; retraction $\theta + \Delta$."""

    m: int = 2
    fiber_ndim: int = 0
    norm_scale = 1.0  # a class attribute, not a field

    def real_dtype(self, theta):
        return theta.dtype

    def check(self, theta, k, name):
        return check_input(theta, name, f"(T, k={k})", k)

    def lift(self, theta):
        c, sn = _lift_parts(theta)
        return jnp.stack([c, sn], 1)

    def drifted_lift(self, theta, omega):
        # angles in at least float32: bfloat16 would lose omega t for t in the hundreds
        wdt = jnp.promote_types(theta.dtype, jnp.float32)
        pos = _positions(theta.shape[0], wdt)[:, None]
        drift = theta.astype(wdt) + pos * omega.astype(wdt)[None, :]
        return jnp.stack([a.astype(theta.dtype) for a in _lift_parts(drift)], 1)

    def tangent(self, theta, G):
        return kuramoto.tangent_update(theta, (G[:, 0], G[:, 1]))  # the Kuramoto coupling

    def gated(self, v, a):
        return v * a

    def retract(self, theta, inc):
        return theta + inc

    def orders(self, theta, G, w):
        cdt = jnp.promote_types(theta.dtype, jnp.float32)
        Gc = jax.lax.complex(G[:, 0].astype(cdt), G[:, 1].astype(cdt))
        w = None if w is None else w.astype(theta.dtype)[:, None]
        return {
            "local_order": jnp.abs(Gc).astype(theta.dtype),
            "global_order": jnp.abs(torus.order_parameter(theta, w, axis=0)).astype(
                theta.dtype
            ),
            "coherence": entropic.local_coherence(theta.astype(cdt), Gc).astype(
                theta.dtype
            ),
        }


def plane_generator(rates, n: int):
    r"""The skew generator of the plane rotations: rates $\omega_{jp}$ $(\dots, P)$ to
    $\Omega_j = \sum_{p < P} \omega_{jp}\,(e_{2p} e_{2p+1}^\top - e_{2p+1} e_{2p}^\top)$
    $(\dots, n, n)$, so that $e^{-t\Omega_j}$ turns the plane $(2p, 2p+1)$ by
    $+\omega_{jp} t$ (at $n = 2$ the torus drift $\theta \mapsto \theta + \omega t$)."""
    P = rates.shape[-1]
    Om = jnp.zeros(rates.shape[:-1] + (n, n), rates.dtype)
    idx = np.arange(P)
    Om = Om.at[..., 2 * idx, 2 * idx + 1].set(rates)
    return Om.at[..., 2 * idx + 1, 2 * idx].set(-rates)


def _unit_tolerance(dtype):
    return float(np.sqrt(np.finfo(np.dtype(dtype)).eps))


@dataclasses.dataclass(frozen=True)
class Sphere:
    r"""$(S^{n-1})^k$: unit vectors $z_{tj}$; lift $z$; drift $e^{-t\Omega_j} z$ with
    $\Omega_j \in \mathfrak{so}(n)$ (`"planes"`: $\lfloor n/2\rfloor$ rates per
    oscillator, $\omega$ of shape $(k, \lfloor n/2\rfloor)$; `"full"`: a generator
    $\omega$ $(k, n, n)$, used through its skew part; `"none"`); increment the Lohe
    coupling $(I - z z^\top) G$; retraction [`syncattn.sphere.exp_map`][]."""

    n: int
    drift: str = "planes"

    @property
    def m(self):
        return self.n

    fiber_ndim: int = 1
    norm_scale = 1.0

    def real_dtype(self, z):
        return z.dtype

    def check(self, z, k, name):
        z = jnp.asarray(z)
        doc = f"(T, k={k}, n={self.n})"
        if not jnp.issubdtype(z.dtype, jnp.floating):
            raise TypeError(f"{name} must be a floating array {doc}; got dtype {z.dtype}.")
        if z.ndim != 3 or z.shape[1:] != (k, self.n):
            raise ValueError(
                f"{name} must have shape {doc} (unbatched; vmap over a batch); got {z.shape}."
            )
        if z.shape[0] == 0:
            raise ValueError(f"{name} must hold at least one token (T >= 1); got {z.shape}.")
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

    def lift(self, z):
        return z.transpose(0, 2, 1)

    def generator(self, omega):
        """$\\Omega_j$ $(k, n, n)$ from the parameter (None for no drift)."""
        if omega is None:
            return None
        if self.drift == "planes":
            return plane_generator(omega, self.n)
        return (omega - jnp.swapaxes(omega, -1, -2)) / 2

    def drifted_lift(self, z, omega):
        if omega is None:
            return z.transpose(0, 2, 1)
        wdt = jnp.promote_types(z.dtype, jnp.float32)
        T = z.shape[0]
        pos = _positions(T, wdt)
        zw = z.astype(wdt)
        if self.drift == "planes":
            P = omega.shape[-1]
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])  # (T, k, P)
            za, zb = zw[..., 0 : 2 * P : 2], zw[..., 1 : 2 * P : 2]
            turned = jnp.stack([c * za - sn * zb, sn * za + c * zb], -1)
            y = jnp.concatenate([turned.reshape(za.shape[:-1] + (2 * P,)), zw[..., 2 * P :]], -1)
        else:
            Om = self.generator(omega.astype(wdt))  # (k, n, n)
            R = group.expm(-pos[:, None, None, None] * Om[None])  # (T, k, n, n)
            y = jnp.einsum("tkab,tkb->tka", R, zw)
        return y.astype(z.dtype).transpose(0, 2, 1)

    def tangent(self, z, G):
        # the Lohe coupling: (I - z z^T) G = sum_u A_tu (z_u - <z_u, z_t> z_t)
        return lohe.sphere_tangent_update(z, G.transpose(0, 2, 1))

    def fused_step(self, z, G, gate, bound):
        r"""`retract(z, bounded_tangent(gated(gate, tangent(z, G)), bound, 1))` in one
        pass over the coordinate-major layout $(T, n, k)$ of `G` (the reductions over
        $n$ run across rows, not along a minor axis of length $n$): with
        $u_{tj} = v_{tj}(I - z_{tj}z_{tj}^\top)G_{tj}$, $f_t = \tanh\rho_t/\rho_t$,
        $\rho_t = (\frac1k\sum_j\|u_{tj}\|^2)^{1/2}/\beta$ and $\Delta = f_t u$,
        $z' = \cos\|\Delta_{tj}\|\, z_{tj} + \frac{\sin\|\Delta_{tj}\|}{\|\Delta_{tj}\|}
        \Delta_{tj}$ (both `where`-guarded at 0 as in the plain path; `gate` None: $v = 1$).
        Tested equal to the plain composition (tests/nn/test_sphere_attention.py)."""
        wdt = jnp.promote_types(z.dtype, jnp.float32)
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
        c = jnp.where(p, jnp.cos(nrm), 1.0)
        sinc = jnp.where(p, jnp.sin(nrm) / nrm, 1.0) * f
        y = c[:, None, :] * zc + sinc[:, None, :] * u
        return y.transpose(0, 2, 1).astype(z.dtype)

    def gated(self, v, a):
        return v[..., None] * a

    def retract(self, z, inc):
        return sphere.exp_map(z, inc)

    def orders(self, z, G, w):
        Gz = G.transpose(0, 2, 1)  # (T, k, n)
        if w is None:
            mean = jnp.mean(z, 0)
        else:
            wz = w.astype(z.dtype)
            mean = jnp.einsum("t,tkn->kn", wz, z) / jnp.sum(wz)
        return {
            "local_order": jnp.linalg.norm(Gz, axis=-1),
            "global_order": jnp.linalg.norm(mean, axis=-1),
            "coherence": jnp.sum(z * Gz, -1),
        }


@dataclasses.dataclass(frozen=True)
class Group:
    r"""$G^k$ for $G = SO(n)$ (real) or $U(n)$ (complex): matrices $U_{tj}$; lift the
    entries ($U(n)$: real and imaginary parts), $m = n^2$ or $2n^2$; the scores use
    $\frac1n\operatorname{Re}\operatorname{tr}(A^H B)$, so the drifted lift carries
    $1/\sqrt n$; drift $e^{-t\Omega_j} U$ with $\Omega_j$ in the Lie algebra
    (`"planes"`: SO(n) as the sphere's plane rotations, U(n) $\Omega_j = -i
    \operatorname{diag}(\omega_j)$, $\omega$ $(k, n)$; `"full"`: $\omega$ $(k, n, n)$
    used as its skew(-Hermitian) part; `"none"`); increment the left-trivialised Lohe
    coupling $\xi = \operatorname{skew}(U^H G)$; retraction $U \exp(\Delta)$; tangent
    norm $\|\xi\|^2 = \frac1n\|\xi\|_F^2$ (the scores' metric)."""

    kind: str
    n: int
    drift: str = "planes"
    fiber_ndim: int = 2

    @property
    def complex(self):
        return self.kind == "u"

    @property
    def m(self):
        return (2 if self.complex else 1) * self.n * self.n

    @property
    def norm_scale(self):
        return 1.0 / self.n

    def real_dtype(self, U):
        return jnp.real(U[:0]).dtype

    def check(self, U, k, name):
        U = jnp.asarray(U)
        n, doc = self.n, f"(T, k={k}, n={self.n}, n={self.n})"
        if self.complex and not jnp.issubdtype(U.dtype, jnp.complexfloating):
            raise TypeError(
                f"{name} must be complex (complex64 or complex128) for U({n}) {doc}; got "
                f"dtype {U.dtype}."
            )
        if not self.complex and not jnp.issubdtype(U.dtype, jnp.floating):
            raise TypeError(f"{name} must be a real floating array for SO({n}) {doc}; got dtype {U.dtype}.")
        if U.ndim != 4 or U.shape[1:] != (k, n, n):
            raise ValueError(f"{name} must have shape {doc} (unbatched; vmap over a batch); got {U.shape}.")
        if U.shape[0] == 0:
            raise ValueError(f"{name} must hold at least one token (T >= 1); got {U.shape}.")
        return group.check_member(U, name)  # finite, U^H U = I, det U = +1 (SO(n))

    def _real(self, U):
        """(T, k, n, n) -> (T, m, k), coordinate-major ([`syncattn.group.lift`][])."""
        return group.lift(U).transpose(0, 2, 1)

    def lift(self, U):
        return self._real(U)

    def generator(self, omega):
        if omega is None:
            return None
        if self.drift == "full":
            return group.skew(omega)
        if self.complex:
            return -1j * jnp.einsum("...a,ab->...ab", omega, jnp.eye(self.n, dtype=omega.dtype))
        return plane_generator(omega, self.n)

    def drifted_lift(self, U, omega):
        rdt = self.real_dtype(U)
        scale = 1.0 / np.sqrt(self.n)
        if omega is None:
            return (self._real(U) * scale).astype(rdt)
        wdt = jnp.promote_types(rdt, jnp.float32)
        cdt = jnp.promote_types(wdt, jnp.complex64) if self.complex else wdt
        pos = _positions(U.shape[0], wdt)
        Uw = U.astype(cdt)
        if self.drift == "planes" and self.complex:  # row a turned by e^{i omega_a t}
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])  # (T, k, n)
            y = jax.lax.complex(c, sn)[..., None] * Uw
        elif self.drift == "planes":
            P = omega.shape[-1]
            sn, c = sincos(pos[:, None, None] * omega.astype(wdt)[None])
            sn, c = sn[..., None], c[..., None]
            ua, ub = Uw[..., 0 : 2 * P : 2, :], Uw[..., 1 : 2 * P : 2, :]
            turned = jnp.stack([c * ua - sn * ub, sn * ua + c * ub], -2)
            turned = turned.reshape(ua.shape[:-2] + (2 * P, self.n))
            y = jnp.concatenate([turned, Uw[..., 2 * P :, :]], -2)
        else:
            Om = self.generator(omega.astype(cdt))
            R = group.expm(-pos[:, None, None, None].astype(cdt) * Om[None])
            y = R @ Uw
        return (self._real(y) * scale).astype(rdt)

    def _matrix(self, G):
        """(T, m, k) -> (T, k, n, n), complex for U(n)."""
        T, _, k = G.shape
        n = self.n
        Gk = G.transpose(0, 2, 1)
        if not self.complex:
            return Gk.reshape(T, k, n, n)
        # U(n) states are complex64/complex128, so G is float32/float64
        return jax.lax.complex(Gk[..., : n * n], Gk[..., n * n :]).reshape(T, k, n, n)

    def tangent(self, U, G):
        # the left-trivialised Lohe coupling: U xi = (1/2) sum_u A_tu (U_u - U_t U_u^H U_t)
        return lohe.matrix_tangent_update(U, self._matrix(G).astype(U.dtype))

    def gated(self, v, a):
        return v.astype(a.dtype)[..., None, None] * a

    def retract(self, U, inc):
        # U exp(Delta) (group.exp_map's formula; SO(3): Rodrigues), the product in at
        # least float32
        wdt = jnp.promote_types(inc.dtype, jnp.float32)
        return (U.astype(wdt) @ group.expm(inc.astype(wdt))).astype(U.dtype)

    def orders(self, U, G, w):
        rdt = self.real_dtype(U)
        Gm = self._matrix(G).astype(U.dtype)
        if w is None:
            mean = jnp.mean(U, 0)
        else:
            wz = w.astype(U.dtype)
            mean = jnp.einsum("t,tkab->kab", wz, U) / jnp.sum(wz)
        rn = np.sqrt(self.n)
        fro = lambda M: jnp.sqrt(jnp.sum(jnp.abs(M) ** 2, (-2, -1)))  # noqa: E731
        return {
            "local_order": (fro(Gm) / rn).astype(rdt),
            "global_order": (fro(mean) / rn).astype(rdt),
            "coherence": (jnp.sum(jnp.real(jnp.conj(U) * Gm), (-2, -1)) / self.n).astype(rdt),
        }

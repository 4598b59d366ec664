r"""The circle $\mathbb{T}^1$: phases $\theta$, embedded as $(\cos\theta, \sin\theta)$."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from .._kernels import kernel_enabled, torus_lift, torus_step
from .._numerics import sincos
from .._types import Array, PRNGKeyArray
from ._base import Geometry, drift_dtype, positions
from ._checks import check_states


@jax.jit
def _project(theta, re, im):
    # compiled as one kernel (as kuramoto.tangent_update's core): eager callers get
    # the same rounding as a jit-compiled layer
    st, ct = sincos(theta)
    return (-st * re + ct * im).astype(theta.dtype)


@dataclasses.dataclass(frozen=True)
class Torus(Geometry):
    r"""$\mathbb{T}^1 = \mathbb{R}/2\pi\mathbb{Z}$, a phase $\theta$ per oscillator.

    Embedding $x = (\cos\theta, \sin\theta)$; tangents are rates $a \in \mathbb{R}$
    (ambient $a(-\sin\theta, \cos\theta)$); projection of an ambient $v$:
    $P_\theta v = -\sin\theta\, v_1 + \cos\theta\, v_2 = \operatorname{Im}(e^{-i\theta}
    (v_1 + i v_2))$ (for $v = G = \sum_u A_{tu}e^{i\theta_u}$ the Kuramoto coupling
    $\sum_u A_{tu}\sin(\theta_u - \theta_t)$, [`syncattn.kuramoto.tangent_update`][]);
    $\operatorname{Exp}_\theta a = \theta + a$; drift $\theta \mapsto \theta + \omega_j t$
    (statement 2: RoPE); symmetry the shifts $\theta \mapsto \theta + g$. An abelian
    Lie group (`has_lie_algebra`, `bracket` 0, $\theta\exp(a) = \theta + a$).
    """

    arg_name = "theta"
    has_lie_algebra = True

    @property
    def fiber(self):
        return ()

    @property
    def m(self):
        return 2

    @property
    def dim(self):
        return 1

    @property
    def space(self) -> str:
        return "torus"

    def check(self, theta, k, name):
        return check_states(theta, name, f"(T, k={k})", (k,))

    def embed(self, theta):
        sn, c = sincos(theta)
        return jnp.stack([c, sn], -1)

    def lift(self, theta):
        r"""$(T, k) \to (T, 2, k)$: $(\cos\theta, \sin\theta)$ coordinate-major, by the
        fused CPU kernel in float32 on the CPU (`syncattn._kernels.torus_lift`: the same
        sine and cosine), else `swapaxes(embed)`."""
        if kernel_enabled(theta.dtype):
            return torus_lift(theta)
        return super().lift(theta)

    def unembed(self, x):
        return x

    def residual(self, theta):
        return jnp.zeros(theta.shape, theta.dtype)

    def random(self, key: PRNGKeyArray, shape, dtype=None):
        return jax.random.uniform(
            key, shape, dtype or jnp.result_type(float), minval=-math.pi, maxval=math.pi
        )

    def init_params(self, key, shape):
        return jax.random.uniform(key, shape, minval=-math.pi, maxval=math.pi)

    def from_params(self, raw):
        return raw

    def project(self, theta, v):
        return _project(
            theta, v[..., 0].astype(theta.dtype), v[..., 1].astype(theta.dtype)
        )

    def ambient_tangent(self, theta, a):
        st, ct = sincos(theta)
        return jnp.stack([-st * a, ct * a], -1)

    def velocity(self, theta, a):
        return a

    def nearest(self, theta):
        return theta

    def exp(self, theta, a):
        return theta + a

    def bracket(self, a, b):
        r"""$[a, b] = 0$: the circle is abelian (so RKMK4 is the classical RK4 on the
        phases)."""
        return jnp.zeros(
            jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b)), jnp.result_type(a, b)
        )

    @property
    def drift_planes(self):
        return 1

    def omega_from_rates(self, rates):
        return rates.reshape(-1)

    def omega_shape(self, k):
        return (k,)

    def generator(self, omega):
        return omega

    def drifted_lift(self, theta, omega: Array | None):
        if omega is None:
            return self.lift(theta)
        wdt = drift_dtype(theta.dtype)
        pos = positions(theta.shape[0], wdt)[:, None]
        drift = theta.astype(wdt) + pos * omega.astype(wdt)[None, :]
        sn, c = sincos(drift)
        return jnp.stack([c.astype(theta.dtype), sn.astype(theta.dtype)], 1)

    def plane_rates(self, omega):
        return None if omega is None else omega[None, :]

    def kernel_step(self, theta, lift, G, gate, bound):
        r"""$\theta + \mathcal B_\beta(v \odot P_\theta G)$ by
        `syncattn._kernels.torus_step` in float32 on the CPU (else None)."""
        if not kernel_enabled(theta.dtype):
            return None
        return torus_step(theta, lift, G, gate, bound)

    def random_symmetry(self, key, dtype):
        return jax.random.uniform(key, (), dtype, minval=-math.pi, maxval=math.pi)

    def act(self, g, theta):
        return theta + g

r"""The abstract geometry: the one contract every oscillator space implements.

After jax-md's `space` (a space is a few functions with one stated contract) and
diffrax's `AbstractSolver` (abstract methods; optional abilities declared as class
attributes, never discovered with `getattr`). A geometry is a Riemannian manifold
$M \subset \mathbb{R}^m$ (a torus $\mathbb{T}^1$, a sphere $S^{n-1}$, a matrix group,
a Stiefel manifold), embedded isometrically up to the constant `norm_scale`:

$$\langle a, b\rangle_M = c\,\operatorname{Re}\sum a^* b, \qquad c = \texttt{norm\_scale}.$$

A state of $k$ oscillators per token has shape $(T, k, *\texttt{fiber})$ (torus: phases
$(T, k)$; sphere: $(T, k, n)$; group: $(T, k, n, n)$). The contract:

* facts: `space` (its name), `fiber` (one oscillator's shape), `m` (the ambient
  dimension of `embed`), `dim` (the manifold's dimension), `complex`, `norm_scale`,
  `arg_name`;
* points: `embed` $s \mapsto x \in \mathbb{R}^m$ (and `lift`, the layers' layout
  $(T, m, k)$), `check`, `residual` (the distance to the manifold, 0 on it),
  `random` (the uniform / Haar law), `from_params` / `init_params` (learned points);
* tangents, in the geometry's own representation (torus: a rate $\dot\theta$; sphere: a
  vector $\perp z$; group: the left-trivialised $\xi = U^H\dot U \in \mathfrak g$):
  `project` (the orthogonal projection of an ambient vector), `ambient_tangent` (the
  tangent as an ambient vector), `inner` (the metric), `exp` (the exponential map);
* the rotary drift: `generator`, `drifted_lift` ($\operatorname{embed}(e^{-t\Omega_j}s_{tj})$,
  an isometry of the embedding for every $t$);
* the symmetry: `random_symmetry`, `act` (an isometry $g$ of $M$ with
  $\operatorname{embed}(g\cdot s) = R_g \operatorname{embed}(s)$, $R_g$ orthogonal).

Written once here from those: `unlift`/`tangent` (the Kuramoto-Lohe coupling
$P_s(G)$ from the layers' attention average), `gated`, `norm_sq`, `order_parameter`
and `orders` (the layers' diagnostics). The optional abilities are declared: `fused_step`
by `has_fused_step`; the layers' fused CPU kernels by `plane_rates` (a drift that turns
coordinate planes) and `kernel_step` (a fused move), both None by default; a Lie group structure by `has_lie_algebra` (the tangent
representation is the Lie algebra, `exp(s, a)` is $s\exp(a)$, `bracket` is $[a, b]$),
which the Runge-Kutta-Munthe-Kaas integrators `rkmk4` / `rkmk43` need. Geometries are
frozen dataclasses: hashable, a static field of a layer. The conformance test
(tests/geometry/test_conformance.py) checks every registered geometry against this
contract.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import jax
import jax.numpy as jnp

from .._types import Array, PRNGKeyArray


class Geometry(abc.ABC):
    r"""A product of oscillator spaces $M^k$ (see the module for the contract)."""

    # optional abilities, declared (diffrax-style), never discovered
    has_fused_step: ClassVar[bool] = False
    has_lie_algebra: ClassVar[bool] = False
    arg_name: ClassVar[str] = "state"  # the layers' name of the state argument

    # ------------------------------------------------------------------ facts
    @property
    @abc.abstractmethod
    def fiber(self) -> tuple[int, ...]:
        r"""One oscillator's state shape: () torus, (n,) sphere, (n, n) group."""

    @property
    @abc.abstractmethod
    def m(self) -> int:
        r"""The real dimension of the embedding `embed`."""

    @property
    @abc.abstractmethod
    def dim(self) -> int:
        r"""The manifold's dimension (of one oscillator's space)."""

    @property
    @abc.abstractmethod
    def space(self) -> str:
        r"""The space's name: its `REGISTRY` key and the parameters the name carries
        (`"torus"`, `"sphere"`, `"so3"`, `"u2"`); for logs and `models.describe`."""

    @property
    def complex(self) -> bool:
        r"""Whether states are complex arrays (U(n))."""
        return False

    @property
    def norm_scale(self) -> float:
        r"""$c$ in $\langle a, b\rangle = c\,\operatorname{Re}\sum a^* b$."""
        return 1.0

    @property
    def fiber_ndim(self) -> int:
        return len(self.fiber)

    def real_dtype(self, state: Array):
        r"""The real dtype of a state (U(n): complex64 -> float32)."""
        return jnp.real(jnp.zeros((), state.dtype)).dtype

    # ------------------------------------------------------------------ points
    @abc.abstractmethod
    def check(self, state, k: int, name: str) -> Array:
        r"""A layer's input $(T, k, *\text{fiber})$: dtype and shape at trace time,
        membership when concrete; returns it as an array."""

    @abc.abstractmethod
    def embed(self, state: Array) -> Array:
        r"""$(\dots, *\text{fiber}) \to (\dots, m)$, real: the ambient coordinates."""

    @abc.abstractmethod
    def unembed(self, x: Array) -> Array:
        r"""$(\dots, m) \to$ an ambient vector in the form `project` takes (the inverse
        of `embed` on ambient coordinates; complex for U(n))."""

    @abc.abstractmethod
    def residual(self, state: Array) -> Array:
        r"""$(\dots, *\text{fiber}) \to (\dots)$: the distance to the manifold's
        defining equations (0 on it; torus: always 0)."""

    @abc.abstractmethod
    def random(self, key: PRNGKeyArray, shape: tuple[int, ...], dtype=None) -> Array:
        r"""Points $(*\text{shape}, *\text{fiber})$ from the uniform (Haar) law."""

    @abc.abstractmethod
    def init_params(self, key: PRNGKeyArray, shape: tuple[int, ...]) -> Array:
        r"""Unconstrained parameters of learned points (embeddings, prototypes)."""

    @abc.abstractmethod
    def from_params(self, raw: Array) -> Array:
        r"""Parameters to points (torus: the phases; sphere: normalised; group:
        $\exp\operatorname{skew}$)."""

    # ------------------------------------------------------------------ tangents
    @abc.abstractmethod
    def project(self, state: Array, v: Array) -> Array:
        r"""The orthogonal projection $P_s v$ of an ambient vector `v` (`unembed`'s form)
        onto $T_sM$, in the tangent representation."""

    @abc.abstractmethod
    def ambient_tangent(self, state: Array, a: Array) -> Array:
        r"""A tangent (representation) as an ambient vector $(\dots, m)$ (the
        differential of `embed`)."""

    @abc.abstractmethod
    def velocity(self, state: Array, a: Array) -> Array:
        r"""A tangent (representation) as the derivative of the state array: the
        $\dot s$ of a curve through $s$ with velocity $a$ (torus $a$; sphere $a$;
        group $U\xi$). A flow $\dot s = $ `velocity(s, a(s))` integrates in the
        state's own coordinates."""

    @abc.abstractmethod
    def nearest(self, x: Array) -> Array:
        r"""The closest point of the manifold to an array of the state's shape near it
        (torus: itself; sphere: $x/\|x\|$; group and Stiefel: the polar factor):
        the retraction of a flow integrated in the state's coordinates."""

    @abc.abstractmethod
    def exp(self, state: Array, a: Array) -> Array:
        r"""The exponential map $\operatorname{Exp}_s(a)$ (the layers' retraction)."""

    def bracket(self, a: Array, b: Array) -> Array:
        r"""The Lie bracket $[a, b]$ of two tangents in the (left-trivialised) tangent
        representation, where the geometry declares `has_lie_algebra`: then the
        representation is the Lie algebra $\mathfrak g$ of a Lie group, and `exp(s, a)`
        is $s\exp(a)$ (the RKMK integrators, `syncattn.geometry.rkmk4`)."""
        raise NotImplementedError(
            f"{type(self).__name__} declares no Lie algebra (has_lie_algebra is False)"
        )

    def inner(self, a: Array, b: Array) -> Array:
        r"""The metric of two tangents (or ambient vectors) of one oscillator:
        $\langle a, b\rangle = c\,\operatorname{Re}\sum_{\text{fiber}} a^* b$, over the
        last `fiber_ndim` axes (the torus: $ab$)."""
        axes = tuple(range(-self.fiber_ndim, 0))
        prod = jnp.real(jnp.conj(a) * b) if jnp.iscomplexobj(a) else a * b
        out = jnp.sum(prod, axes) if axes else prod
        return out * self.norm_scale if self.norm_scale != 1.0 else out

    def norm_sq(self, a: Array) -> Array:
        r"""$\|a\|^2 = \langle a, a\rangle$ per oscillator."""
        return self.inner(a, a)

    # ------------------------------------------------------------------ drift
    @property
    @abc.abstractmethod
    def drift_planes(self) -> int:
        r"""$P$: the rotation planes of one oscillator's drift, each given a rotary
        frequency at initialisation (0: no drift)."""

    @abc.abstractmethod
    def omega_from_rates(self, rates: Array) -> Array:
        r"""The drift parameter $\omega$ from rates $(k, P)$, one per plane (the
        layers' rotary initialisation)."""

    @abc.abstractmethod
    def omega_shape(self, k: int) -> tuple[int, ...]:
        r"""The shape of the drift parameter $\omega$ of $k$ oscillators."""

    @abc.abstractmethod
    def generator(self, omega: Array | None) -> Array | None:
        r"""The drift generators $\Omega_j$ from the layer's parameter (None: none)."""

    @abc.abstractmethod
    def drifted_lift(self, state: Array, omega: Array | None) -> Array:
        r"""$(T, m, k)$: the lift of $e^{-t\Omega_j} s_{tj}$ at token $t$, scaled by
        $\sqrt c$ so that dot products of drifted lifts are the metric."""

    # ------------------------------------------------------------------ symmetry
    @abc.abstractmethod
    def random_symmetry(self, key: PRNGKeyArray, dtype) -> Array:
        r"""A random isometry $g$ of $M$ (torus: a shift; sphere: $O(n)$; group: left
        multiplication by a group element)."""

    @abc.abstractmethod
    def act(self, g: Array, state: Array) -> Array:
        r"""$g \cdot s$, for states of any leading shape."""

    # ------------------------------------------------------------------ written once
    def lift(self, state: Array) -> Array:
        r"""$(T, k, *\text{fiber}) \to (T, m, k)$: `embed`, coordinate-major (the
        attention layers' layout)."""
        return jnp.swapaxes(self.embed(state), -1, -2)

    def unlift(self, G: Array) -> Array:
        r"""$(T, m, k) \to$ ambient vectors $(T, k, \dots)$ in `unembed`'s form."""
        return self.unembed(jnp.swapaxes(G, -1, -2))

    def tangent(self, state: Array, G: Array) -> Array:
        r"""The coupling $P_s(G)$ of the attention average $G$ $(T, m, k)$ (the Kuramoto
        / Lohe increment: `project` of `unlift`)."""
        return self.project(state, self.unlift(G))

    def gated(self, v: Array, a: Array) -> Array:
        r"""The value gate $v_{tj}$ $(T, k)$ times the tangent $a_{tj}$."""
        return v.astype(a.dtype).reshape(v.shape + (1,) * self.fiber_ndim) * a

    def fused_step(self, state, G, gate, bound):
        r"""`exp(state, bounded(gated(gate, tangent(state, G))))` in one pass, where the
        geometry declares `has_fused_step` (the sphere)."""
        raise NotImplementedError(f"{type(self).__name__} declares no fused step")

    def plane_rates(self, omega: Array | None) -> Array | None:
        r"""The drift as rates $w$ $(P, k)$ when it turns coordinate planes: $e^{-t\Omega_j}$
        turns the planes $(x_{2p}, x_{2p+1})$ of the lift of oscillator $j$ by $t\,w_{pj}$
        (the layers' fused CPU features, `syncattn._kernels.sync_features`); None (the
        default) for another drift, or none."""
        return None

    def kernel_step(
        self, state: Array, lift: Array, G: Array, gate: Array | None, bound: float
    ) -> Array | None:
        r"""`fused_step`'s value (the layer's move from the attention average $G$) by a
        fused CPU kernel, given the lift $(T, m, k)$ of `state`; None (the default) where
        the geometry has no such kernel or it does not apply (`kernel_enabled` false:
        not float32 on the CPU). Tested equal to the plain composition."""
        return None

    def order_parameter(
        self, state: Array, weights: Array | None = None, axis: int = 0
    ):
        r"""$R = \sqrt c\,\bigl\|\sum_i w_i x_i / \sum_i w_i\bigr\|$ over `axis` of the
        states ($x = $ `embed`; $w = 1$ by default): the Kuramoto $|\langle
        e^{i\theta}\rangle|$, the sphere's $\|\langle z\rangle\|$, the group's
        $\|\langle U\rangle\|_F/\sqrt n$. 1 when all states agree, in $[0, 1]$; the
        gradient at $R = 0$ is 0 (double `where`)."""
        x = self.embed(state)
        axis = axis % (state.ndim - self.fiber_ndim)
        if weights is None:
            mean = jnp.mean(x, axis)
        else:
            w = weights.astype(x.dtype)
            w = w.reshape(w.shape + (1,) * (x.ndim - w.ndim))
            mean = jnp.sum(w * x, axis) / jnp.sum(w, axis)
        sq = self.norm_scale * jnp.sum(mean * mean, -1)
        pos = sq > 0  # double where: a finite gradient (0) at R = 0
        return jnp.where(pos, jnp.sqrt(jnp.where(pos, sq, 1.0)), 0.0)

    def orders(self, state: Array, G: Array, w: Array | None) -> dict[str, Array]:
        r"""The attention layers' diagnostics from the average $G$ $(T, m, k)$:
        `local_order` $\sqrt c\|G_{tj}\|$, `global_order` (`order_parameter` over
        tokens, weights `w`), `coherence` $c\langle x_{tj}, G_{tj}\rangle$."""
        rdt = self.real_dtype(state)
        x = self.lift(state).astype(rdt)
        G = G.astype(rdt)
        c = self.norm_scale
        return {
            "local_order": jnp.sqrt(c * jnp.sum(G * G, 1)),
            "global_order": self.order_parameter(state, w, axis=0).astype(rdt),
            "coherence": c * jnp.sum(x * G, 1),
        }


def positions(T: int, dtype) -> Array:
    r"""Token positions $0, \dots, T-1$."""
    return jnp.arange(T, dtype=dtype)


def drift_dtype(dtype):
    r"""Angles $\omega t$ in at least float32 (bfloat16 loses $\omega t$ at $t$ in the
    hundreds)."""
    return jnp.promote_types(dtype, jnp.float32)


def turn_planes(y: Array, sn: Array, c: Array, axis: int) -> Array:
    r"""Turn the coordinate planes $(2p, 2p+1)$, $p < P$, of axis `axis` of `y` by the
    angles whose sines and cosines are `sn`, `c` (broadcast against the pairs):
    $(y_{2p}, y_{2p+1}) \mapsto (c\,y_{2p} - s\,y_{2p+1},\ s\,y_{2p} + c\,y_{2p+1})$;
    the coordinates past $2P$ are left as they are."""
    P = sn.shape[-1] if axis == -1 else sn.shape[-2]
    ya = jax.lax.slice_in_dim(y, 0, 2 * P, 2, axis)
    yb = jax.lax.slice_in_dim(y, 1, 2 * P, 2, axis)
    turned = jnp.stack([c * ya - sn * yb, sn * ya + c * yb], axis)
    shape = list(ya.shape)
    shape[axis] = 2 * P
    rest = jax.lax.slice_in_dim(y, 2 * P, y.shape[axis], 1, axis)
    return jnp.concatenate([turned.reshape(shape), rest], axis)

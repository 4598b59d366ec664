r"""Coupling forms of the Kuramoto flow and the sums $\sum_j K_{ij} e^{i\theta_j}$ they define.

A coupling is a scalar $K$ (all-to-all, $K_{ij} = K/N$, an $O(N)$ mean field), a dense
`(N, N)` matrix (row $i$ = whom oscillator $i$ listens to), an
[`EdgeList`][syncattn.kuramoto.EdgeList] or a `jax.experimental.sparse.BCOO` matrix.
"""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse as jsparse

from .._checks import (
    as_float,
    check_broadcast,
    check_finite,
    check_nonempty,
)
from .._numerics import mean_field
from .._types import (
    Array,
    ArrayLike,
    Float,
    Int,
)


class EdgeList(eqx.Module):
    r"""A weighted directed graph, edge $e$: oscillator `receivers[e]` listens to `senders[e]`.

    $$\dot\theta_i \mathrel{+}= \sum_{e:\,\mathrm{receivers}[e]=i} w_e \sin(\theta_{\mathrm{senders}[e]} - \theta_i - \alpha)$$

    Args:
        senders: `(E,)` integer indices $j$.
        receivers: `(E,)` integer indices $i$.
        weights: `(E,)` couplings $K_{ij}$.
        n: number of oscillators $N$ (static).
    """

    senders: Int[Array, " E"]
    receivers: Int[Array, " E"]
    weights: Float[Array, " E"]
    n: int = eqx.field(static=True)

    def __check_init__(self):
        shapes = {
            jnp.shape(self.senders),
            jnp.shape(self.receivers),
            jnp.shape(self.weights),
        }
        if len(shapes) != 1 or jnp.ndim(self.senders) != 1:
            raise ValueError(
                "EdgeList senders, receivers and weights must be 1-D of equal length E; got shapes "
                f"{jnp.shape(self.senders)}, {jnp.shape(self.receivers)}, {jnp.shape(self.weights)}."
            )
        if not isinstance(self.n, (int, np.integer)) or self.n < 1:
            raise ValueError(f"EdgeList n must be a positive int; got {self.n!r}.")
        for name in ("senders", "receivers"):
            idx = getattr(self, name)
            if not jnp.issubdtype(jnp.asarray(idx).dtype, jnp.integer):
                raise TypeError(
                    f"EdgeList {name} must be integer indices; got dtype {jnp.asarray(idx).dtype}."
                )
            if not isinstance(idx, jax.core.Tracer) and np.size(idx):
                arr = np.asarray(idx)
                if arr.min() < 0 or arr.max() >= self.n:
                    raise ValueError(
                        f"EdgeList {name} must lie in [0, n={self.n}); got range [{arr.min()}, {arr.max()}]."
                    )
        check_finite(self.weights, "EdgeList weights")

    @classmethod
    def from_dense(cls, K: ArrayLike) -> EdgeList:
        """The non-zero entries of a concrete dense `(N, N)` matrix as an edge list."""
        K = np.asarray(K)
        rec, sen = np.nonzero(K)
        return cls(
            jnp.asarray(sen),
            jnp.asarray(rec),
            jnp.asarray(K[rec, sen]),
            int(K.shape[0]),
        )

    def todense(self) -> Float[Array, "n n"]:
        """The dense matrix $K$ with $K_{ij}$ = sum of weights of edges $j \\to i$."""
        return (
            jnp.zeros((self.n, self.n), self.weights.dtype)
            .at[self.receivers, self.senders]
            .add(self.weights)
        )


def _kind(coupling) -> str:
    if isinstance(coupling, EdgeList):
        return "edges"
    if isinstance(coupling, jsparse.BCOO):
        return "bcoo"
    return "scalar" if jnp.ndim(coupling) == 0 else "dense"


def _check_coupling(coupling, n: int, batch_shape: tuple[int, ...]):
    """Validate the coupling against N and the batch shape; return it as an array/graph."""
    kind = _kind(coupling)
    if kind == "edges":
        if coupling.n != n:
            raise ValueError(
                f"coupling EdgeList has n={coupling.n} but theta has N={n} oscillators (last axis)."
            )
        return coupling
    if kind == "bcoo":
        if coupling.shape != (n, n):
            raise ValueError(
                f"coupling BCOO matrix must have shape (N, N)=({n}, {n}); got {coupling.shape}."
            )
        check_finite(coupling.data, "coupling")
        return coupling
    K = as_float(coupling, "coupling")
    check_finite(K, "coupling")
    if kind == "dense":
        if K.ndim < 2 or K.shape[-2:] != (n, n):
            raise ValueError(
                f"coupling must be a scalar or a square (N, N)=({n}, {n}) matrix (row i = the oscillators i "
                f"listens to); got shape {K.shape}."
            )
        check_broadcast(
            f"coupling batch shape {K.shape[:-2]} does not broadcast against theta's batch shape {batch_shape}.",
            K.shape[:-2],
            batch_shape,
        )
    return K


def _shift(c, s, alpha):
    """(cos(theta + alpha), sin(theta + alpha)) from cos/sin theta by the addition formulas."""
    return _rotate(c, s, jnp.cos(alpha), jnp.sin(alpha))


def _rotate(c, s, cal, sal):
    """(c cal - s sal, s cal + c sal): the rotation of (c, s) by the angle whose (cos, sin) is (cal, sal)."""
    return c * cal - s * sal, s * cal + c * sal


def _check_omega(omega, theta, theta_name):
    """Natural frequencies: finite, broadcastable to theta, N entries (or 1) on the last axis."""
    omega = as_float(omega, "omega")
    check_finite(omega, "omega")
    n = theta.shape[-1]
    check_broadcast(
        f"omega must broadcast to {theta_name}'s shape {theta.shape}; got {omega.shape}.",
        omega.shape,
        theta.shape,
    )
    if jnp.ndim(omega) > 0 and omega.shape[-1] not in (1, n):
        raise ValueError(
            f"omega must have N={n} entries on its last axis; got shape {omega.shape}."
        )
    return omega


def _check_theta(theta, name="theta"):
    theta = as_float(theta, name)
    check_nonempty(theta, name)
    check_finite(theta, name)
    return theta


# From N = 1000 one (N, 2) product beats two matrix-vector products (1.3-1.9x at
# N = 1000-3000); at N = 300 it is 2.6x slower (XLA:CPU's matrix-vector path):
# benchmarks/flows.py, coupling forms, the two "(diagnostic)" product rows.
_ONE_PRODUCT_MIN_N = 1000


def _listen(coupling, kind, c, s):
    """Return ($\\sum_j K_{ij} \\cos\\theta_j$, $\\sum_j K_{ij} \\sin\\theta_j$) for every i."""
    if kind == "scalar":
        # K_ij = K/N: both sums are K times the order parameter's components (O(N)).
        return coupling * mean_field(c, -1, True), coupling * mean_field(s, -1, True)
    if kind == "dense":
        K = coupling.astype(c.dtype)
        if c.shape[-1] >= _ONE_PRODUCT_MIN_N:
            # a large dense product is memory-bound: one product with the stacked
            # (cos, sin) reads the N x N matrix once per evaluation, not once per sum
            out = jnp.einsum("...ij,...jk->...ik", K, jnp.stack([c, s], axis=-1))
            return out[..., 0], out[..., 1]
        return jnp.einsum("...ij,...j->...i", K, c), jnp.einsum(
            "...ij,...j->...i", K, s
        )
    batch, n = c.shape[:-1], c.shape[-1]
    cs = jnp.stack([c.reshape(-1, n), s.reshape(-1, n)])  # (2, B, N)
    if kind == "bcoo":
        flat = cs.reshape(-1, n).T  # (N, 2B)
        out = (coupling.astype(c.dtype) @ flat).T.reshape(cs.shape)
    else:  # edge list: gather senders, scatter-add into receivers
        w = coupling.weights.astype(c.dtype)
        msgs = jnp.take(cs, coupling.senders, axis=-1) * w[None, None, :]
        out = jax.ops.segment_sum(
            jnp.moveaxis(msgs, -1, 0), coupling.receivers, num_segments=n
        )
        out = jnp.moveaxis(out, 0, -1)
    return out[0].reshape(*batch, n), out[1].reshape(*batch, n)

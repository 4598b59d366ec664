r"""The attention identities on $S^{n-1}$ and on $SO(n)$ / $U(n)$.

The torus identity ([`syncattn.kuramoto.tangent_update`][] = [`syncattn.kuramoto.coupling_term`][])
says that projecting the aggregated phasor $G = \sum_u A_{tu} e^{i\theta_u}$ on the
tangent space at $\theta_t$ gives the Kuramoto coupling. The same holds on the
sphere and on the matrix groups, with the Lohe coupling:

* sphere: $(I - z_t z_t^\top) G = \sum_u A_{tu}(z_u - \langle z_u, z_t\rangle z_t)$,
  $G = \sum_u A_{tu} z_u$ (proved in `proofs/proof_lohe_identities.py`);
* group: $U_t \operatorname{skew}(U_t^H G) = \tfrac12\sum_u A_{tu}(U_u - U_t U_u^H U_t)$,
  $G = \sum_u A_{tu} U_u$, for real weights and unitary $U_t$.

Shapes mirror the Kuramoto pair: queries `(*batch, T, k, n)` (sphere) or
`(*batch, T, k, n, n)` (group), keys with `U` in place of `T`, weights `(*batch, T, U)`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._checks import as_float, check_broadcast, check_finite
from .._types import Array, ArrayLike, Float, Inexact
from ..geometry import Sphere
from ..group import as_matrix, check_member
from ._matrix import _adjoint, _geometry


def sphere_tangent_update(
    z: Float[ArrayLike, "*batch n"], G: Float[ArrayLike, "*#batch n"]
) -> Float[Array, "*batch n"]:
    r"""Tangent projection of an aggregated value on the sphere (the left side of the identity).

    $$a = (I - z z^\top) G = G - \langle z, G\rangle z$$

    $z$ = `z` (unit vectors), $G$ = `G`. This is [`syncattn.sphere.project_tangent`][]
    under the attention names; for $G_t = \sum_u A_{tu} z_u$ it equals
    [`syncattn.lohe.sphere_coupling`][].

    Raises:
        ValueError: shapes that do not broadcast or differ in $n$, NaN/inf.

    Example:
        >>> sphere_tangent_update(jnp.array([1.0, 0.0]), jnp.array([2.0, 3.0])).tolist()
        [0.0, 3.0]
    """
    z, G = as_float(z, "z"), as_float(G, "G")
    if z.ndim < 1 or G.ndim < 1 or z.shape[-1] != G.shape[-1]:
        raise ValueError(
            f"z and G must have shape (*batch, n) with the same n; got {z.shape}, {G.shape}."
        )
    check_broadcast(
        f"G must broadcast against z; got z {z.shape}, G {G.shape}.", z.shape, G.shape
    )
    check_finite(z, "z")
    check_finite(G, "G")
    z, G = jnp.broadcast_arrays(z, G.astype(z.dtype))
    return Sphere(z.shape[-1]).project(z, G)


def _check_tokens(x_t, x_u, A, names, tail: int):
    qt, ku = names
    shape = "(*batch, T, k, n)" if tail == 2 else "(*batch, T, k, n, n)"
    if x_t.ndim < tail + 1 or x_u.ndim < tail + 1:
        raise ValueError(
            f"{qt} and {ku} must have shape {shape} and {shape.replace('T', 'U')}; got "
            f"{x_t.shape}, {x_u.shape}."
        )
    T, U = x_t.shape[-tail - 1], x_u.shape[-tail - 1]
    if x_u.shape[-tail:] != x_t.shape[-tail:]:
        raise ValueError(
            f"{ku} must have the banks and coordinates {x_t.shape[-tail:]} of {qt}; got "
            f"{x_u.shape}."
        )
    A = as_float(A, "A")
    if A.ndim < 2 or A.shape[-2:] != (T, U):
        raise ValueError(
            f"A must have shape (*batch, T, U)=(..., {T}, {U}); got {A.shape}."
        )
    if T == 0 or U == 0:
        raise ValueError(
            f"{qt} and {ku} must be non-empty sequences; got T={T}, U={U}."
        )
    check_broadcast(
        f"batch shapes of {qt} {x_t.shape}, {ku} {x_u.shape} and A {A.shape} must "
        "broadcast.",
        x_t.shape[: -tail - 1],
        x_u.shape[: -tail - 1],
        A.shape[:-2],
    )
    check_finite(A, "A")
    return A


def sphere_coupling(
    z_t: Float[ArrayLike, "*batch T k n"],
    z_u: Float[ArrayLike, "*batch U k n"],
    A: Float[ArrayLike, "*batch T U"],
) -> Float[Array, "*batch T k n"]:
    r"""Lohe coupling of queries to keys on $S^{n-1}$, per bank (the right side of the identity).

    $$a_{tj} = \sum_u A_{tu}\bigl(z_{uj} - \langle z_{uj}, z_{tj}\rangle z_{tj}\bigr)$$

    computed term by term: the pairwise inner products $\langle z_{uj}, z_{tj}\rangle$
    (a `(T, U, k)` array), then the two weighted sums. With $G_{tj} = \sum_u A_{tu}
    z_{uj}$ it equals [`syncattn.lohe.sphere_tangent_update`][] `(z_t, G)`; at
    $n = 2$, $z = (\cos\theta, \sin\theta)$, its component along $(-\sin\theta_t,
    \cos\theta_t)$ is [`syncattn.kuramoto.coupling_term`][].

    Args:
        z_t: query states, `(*batch, T, k, n)` ($k$ banks of unit vectors).
        z_u: key/value states, `(*batch, U, k, n)`.
        A: real weights $A_{tu}$, `(*batch, T, U)`.

    Returns:
        `(*batch, T, k, n)` tangent vectors at $z_{tj}$, dtype of `z_t`.

    Raises:
        ValueError: shapes, NaN/inf.
    """
    z_t, z_u = as_float(z_t, "z_t"), as_float(z_u, "z_u")
    A = _check_tokens(z_t, z_u, A, ("z_t", "z_u"), 2)
    check_finite(z_t, "z_t")
    check_finite(z_u, "z_u")
    return _sphere_coupling(z_t, z_u.astype(z_t.dtype), A.astype(z_t.dtype))


@jax.jit
def _sphere_coupling(z_t, z_u, A):
    c = jnp.einsum("...ukn,...tkn->...tuk", z_u, z_t)  # <z_uj, z_tj>
    pull = jnp.einsum("...tu,...ukn->...tkn", A, z_u)
    return pull - jnp.einsum("...tu,...tuk->...tk", A, c)[..., None] * z_t


def matrix_tangent_update(
    U: Inexact[ArrayLike, "*batch n n"], G: Inexact[ArrayLike, "*#batch n n"]
) -> Inexact[Array, "*batch n n"]:
    r"""Left-trivialised tangent projection of an aggregated value on $SO(n)$ / $U(n)$.

    $$\xi = \operatorname{skew}(U^H G) = \tfrac12 (U^H G - G^H U) \in \mathfrak g$$

    $U$ = `U` (group elements), $G$ = `G` (any matrices of the same field). $U\xi$
    is [`syncattn.group.project_tangent`][] `(U, G)`; for $G_t = \sum_u A_{tu}U_u$
    with real $A$, $U_t\xi_t$ = [`syncattn.lohe.matrix_coupling`][] (the Lohe
    matrix coupling). On $U(1)$, $U = e^{i\theta_t}$: $\xi = i\,\operatorname{Im}(e^{-i\theta_t}G)$,
    $i$ times [`syncattn.kuramoto.tangent_update`][].

    Raises:
        ValueError: `U` not in the group (concrete), shapes, NaN/inf. TypeError:
            complex `G` with real `U`.

    Example:
        >>> matrix_tangent_update(jnp.eye(2), jnp.array([[0.0, 2.0], [0.0, 0.0]])).tolist()
        [[0.0, 1.0], [-1.0, 0.0]]
    """
    U = check_member(U, "U")
    G = as_matrix(G, "G")
    if jnp.iscomplexobj(G) and not jnp.iscomplexobj(U):
        raise TypeError("G is complex but U is real (SO(n)): pass real values.")
    if G.shape[-1] != U.shape[-1]:
        raise ValueError(
            f"G must be (*batch, n, n) with n={U.shape[-1]}; got {G.shape}."
        )
    check_broadcast(
        f"G must broadcast against U; got U {U.shape}, G {G.shape}.", U.shape, G.shape
    )
    return _matrix_tangent_update(U, G.astype(U.dtype))


@jax.jit
def _matrix_tangent_update(U, G):
    return _geometry(U).project(U, G)  # skew(U^H G)


def matrix_coupling(
    U_t: Inexact[ArrayLike, "*batch T k n n"],
    U_u: Inexact[ArrayLike, "*batch U k n n"],
    A: Float[ArrayLike, "*batch T U"],
) -> Inexact[Array, "*batch T k n n"]:
    r"""Lohe matrix coupling of queries to keys (the right side of the group identity).

    $$C_{tj} = \tfrac12 \sum_u A_{tu}\bigl(U_{uj} - U_{tj} U_{uj}^H U_{tj}\bigr)
      \in T_{U_{tj}} G$$

    the coupling term of the Lohe matrix model $\dot U_j = -iH_jU_j +
    \frac{K}{2N}\sum_k (U_k - U_j U_k^H U_j)$ with weights $A_{tu}$ in place of
    $K/N$. Computed as the two weighted sums $\sum_u A_{tu}U_{uj}$ and
    $U_{tj}(\sum_u A_{tu}U_{uj}^H)U_{tj}$. For unitary $U_{tj}$ and real $A$,
    $C_{tj} = U_{tj}\,$[`matrix_tangent_update`][syncattn.lohe.matrix_tangent_update]$(U_{tj}, G_{tj})$
    with $G_{tj} = \sum_u A_{tu}U_{uj}$.

    Args:
        U_t: query states, `(*batch, T, k, n, n)` ($k$ banks of group elements).
        U_u: key/value states, `(*batch, U, k, n, n)`.
        A: real weights, `(*batch, T, U)`.

    Returns:
        `(*batch, T, k, n, n)`, the ambient tangent vectors $C_{tj}$.

    Raises:
        ValueError: states not in the group (concrete), shapes, NaN/inf.
    """
    U_t, U_u = check_member(U_t, "U_t"), check_member(U_u, "U_u")
    if jnp.iscomplexobj(U_t) != jnp.iscomplexobj(U_u):
        raise TypeError("U_t and U_u must both be real (SO(n)) or both complex (U(n)).")
    A = _check_tokens(U_t, U_u, A, ("U_t", "U_u"), 3)
    return _matrix_coupling(U_t, U_u.astype(U_t.dtype), A.astype(U_t.real.dtype))


@jax.jit
def _matrix_coupling(U_t, U_u, A):
    A = A.astype(U_t.dtype)
    pull = jnp.einsum("...tu,...ukab->...tkab", A, U_u)
    back = jnp.einsum("...tu,...ukab->...tkab", A, _adjoint(U_u))
    return 0.5 * (pull - U_t @ back @ U_t)

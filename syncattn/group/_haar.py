r"""Haar measure: independent uniformly distributed elements of $U(n)$ and $SO(n)$."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._checks import check_count
from .._numerics import default_floating_dtype
from .._types import Array, Inexact, PRNGKeyArray
from ._matrices import _LOW_PRECISION


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

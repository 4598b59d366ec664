"""The layers' input checks shared by the geometries (trace-time shapes and dtypes)."""

from __future__ import annotations

import jax.numpy as jnp


def check_states(
    x, name: str, doc: str, trailing: tuple[int, ...], complex_: bool | None = False
):
    """A state $(T, *\\text{trailing})$: a floating (or, `complex_`, complex; None:
    either) array of that rank and trailing shape with $T \\ge 1$."""
    x = jnp.asarray(x)
    if complex_ and not jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise TypeError(
            f"{name} must be complex (complex64 or complex128) {doc}; got dtype {x.dtype}."
        )
    if complex_ is False and not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(f"{name} must be a floating array {doc}; got dtype {x.dtype}.")
    if x.ndim != 1 + len(trailing) or x.shape[1:] != tuple(trailing):
        raise ValueError(
            f"{name} must have shape {doc} (unbatched; vmap over a batch); got {x.shape}."
        )
    if x.shape[0] == 0:
        raise ValueError(
            f"{name} must hold at least one token (T >= 1); got {x.shape}."
        )
    return x

r"""Pytrees of parameters: the one floating-point cast and the one parameter count.

A leaf: it imports only JAX, equinox and NumPy, so that `nn`, `models` and
`training` share these two functions instead of writing their own.
"""

from __future__ import annotations

from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


__all__ = ["cast_floating", "count_parameters", "float_dtype"]

_DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16, "float64": jnp.float64}


def float_dtype(dtype):
    """The JAX dtype named by `dtype` ("float32", "bfloat16", "float64"), or `dtype` itself."""
    if isinstance(dtype, str):
        try:
            return _DTYPES[dtype]
        except KeyError:
            raise ValueError(
                f"dtype must be one of {sorted(_DTYPES)} or a dtype; got {dtype!r}."
            ) from None
    return dtype


def cast_floating(tree: Any, dtype, *, complex_too: bool = False) -> Any:
    r"""`tree` with every real floating-point array leaf cast to `dtype`.

    $$x \mapsto \operatorname{round}_{\text{dtype}}(x) \text{ for each leaf } x
      \text{ with a real floating dtype; every other leaf unchanged}$$

    Integer, boolean and complex arrays and non-array leaves (static fields, Python
    numbers) are kept as they are; a leaf already of `dtype` is returned as is. With
    `complex_too`, complex leaves follow to the complex type of the same precision
    (float32: complex64, float64: complex128; bfloat16 and float16, which have none,
    leave them as they are).

    Args:
        tree: any pytree (a model, its gradients).
        dtype: a floating dtype, or its name ("float32", "bfloat16", "float64").
        complex_too: also cast complex leaves (a $U(n)$ model's parameters).
    """
    dtype = float_dtype(dtype)
    cdt = None
    if complex_too and jnp.dtype(dtype) in (jnp.dtype(jnp.float32), jnp.dtype(jnp.float64)):
        cdt = jnp.promote_types(dtype, jnp.complex64)

    def cast(x):
        if eqx.is_array(x) and jnp.issubdtype(x.dtype, jnp.floating):
            return x.astype(dtype)
        if cdt is not None and eqx.is_array(x) and jnp.iscomplexobj(x):
            return x.astype(cdt)
        return x

    return jax.tree.map(cast, tree)


def _is_parameter(x) -> bool:
    if isinstance(x, jax.ShapeDtypeStruct):
        return bool(jnp.issubdtype(x.dtype, jnp.inexact))
    return eqx.is_inexact_array(x)


def count_parameters(tree: Any) -> int:
    r"""The number of trainable scalars of `tree`: $\sum_x \prod_i n_i(x)$ over its
    floating-point (and complex) array leaves $x$ of shape $(n_1, \dots)$.

    Also counts the ``jax.ShapeDtypeStruct`` leaves of
    ``equinox.filter_eval_shape(build, config, key=key)``, so that a model's size is
    known without allocating it. Integer and boolean arrays are not parameters.
    """
    leaves = jax.tree.leaves(tree)
    return int(sum(int(np.prod(x.shape, dtype=np.int64)) for x in leaves if _is_parameter(x)))

r"""A linear map frozen at its random initialisation: the frozen-$W_V$ ablation (seed 001)."""

from __future__ import annotations

import equinox as eqx
import jax
import jax.numpy as jnp

from .._types import Array, Float, PRNGKeyArray
from ._common import check_int


class FrozenLinear(eqx.Module):
    r"""A bias-free linear map $y = W_0 x$ whose matrix is its random initialisation.

    $$W_0 = \texttt{equinox.nn.Linear}(d_\mathrm{in}, d_\mathrm{out},
      \texttt{use\_bias=False}, \texttt{key})\texttt{.weight}, \qquad
      (W_0)_{ab} \sim \mathcal U\bigl(-d_\mathrm{in}^{-1/2}, d_\mathrm{in}^{-1/2}\bigr)$$

    the very matrix an `eqx.nn.Linear` built from the same `key` starts from. The module
    stores the key's raw bits (an unsigned-integer array), not $W_0$: $W_0$ is drawn again
    on every use, so it is no floating leaf of the model. No gradient reaches it, no
    optimiser step (Adam, its weight decay) moves it, and it does not count as a
    trainable parameter ([`syncattn.models.count_params`][]): what seed 001's frozen-$W_V$
    ablation does with ``requires_grad_(False)`` and an optimiser over the trainable
    parameters only.

    Attributes:
        weight: $W_0$, shape ``(out_features, in_features)``, in the default floating
            dtype (float64 under x64); `at` casts it.
        bias: always ``None``.
    """

    key_data: Array
    in_features: int = eqx.field(static=True)
    out_features: int = eqx.field(static=True)

    def __init__(self, in_features: int, out_features: int, *, key: PRNGKeyArray):
        self.in_features = check_int(in_features, "in_features")
        self.out_features = check_int(out_features, "out_features")
        typed = jax.dtypes.issubdtype(jnp.asarray(key).dtype, jax.dtypes.prng_key)
        self.key_data = jax.random.key_data(key) if typed else jnp.asarray(key)

    @property
    def weight(self) -> Float[Array, "out_features in_features"]:
        key = jax.random.wrap_key_data(self.key_data)
        return eqx.nn.Linear(
            self.in_features, self.out_features, use_bias=False, key=key
        ).weight

    @property
    def bias(self) -> None:
        return None

    def at(self, dtype) -> _Fixed:
        """$W_0$ cast to `dtype`, as a weight holder for the layers' stacked products."""
        return _Fixed(self.weight.astype(dtype))

    def __call__(
        self, x: Float[Array, "... in_features"]
    ) -> Float[Array, "... out_features"]:
        """$y = W_0 x$ on the last axis, in the dtype of `x`."""
        return x @ self.weight.astype(x.dtype).T


class _Fixed(eqx.Module):
    weight: Array
    bias: None = None


def value_weights(layer, dtype):
    """The value projection of a layer, in `dtype`: an `eqx.nn.Linear` as it is (already
    cast by the layer), a [`FrozenLinear`][syncattn.nn.FrozenLinear] as its $W_0$ in `dtype`."""
    return layer.at(dtype) if isinstance(layer, FrozenLinear) else layer


__all__ = ["FrozenLinear", "value_weights"]

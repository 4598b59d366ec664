r"""The softmax analogue of a substrate's non-idealities (issue 19's softmax reference).

A [`Substrate`][syncattn.nn.Substrate] perturbs fixed-query oscillator attention; two of
its non-idealities mean something for [`syncattn.nn.SoftmaxAttention`][] too, and
[`perturbed_softmax`][syncattn.nn.perturbed_softmax] applies them with the substrate's
own draws: the coupling mismatch (on the unnormalised weights) and the readout precision
(on the query's direction).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ._common import attention_weights, cast, check_key_mask, linear
from ._softmax_attention import SoftmaxAttention, softmax_projections
from ._substrate import _MISMATCH, mismatch_normals, quantise


def perturbed_softmax(
    layer, x, key, *, mismatch: float = 0.0, bits: int | None = None, mask=None
):
    r"""[`syncattn.nn.SoftmaxAttention`][] with the softmax analogue of a substrate's
    coupling mismatch and/or readout precision.

    With the layer's scaled, rotated queries $q_i$, keys $k_j$ and values $v_j$ per head
    ([`syncattn.nn.softmax_projections`][], the arrays the layer itself attends with),
    its weights $a_{ij} = e^{q_i\cdot k_j}/\sum_l e^{q_i\cdot k_l}$ (over the allowed
    keys), and $y = W_o\,[\sum_j \tilde a_{ij} v_j]_{\text{heads}}$:

    * mismatch $\varepsilon$: the unnormalised weights carry the oscillator's
      multiplicative mismatch, $e^{q_i\cdot k_j}(1 + \varepsilon\,\xi_{ij})$, so
      $$\tilde a_{ij} = \frac{a_{ij}(1 + \varepsilon\xi_{ij})}{\sum_l a_{il}(1 + \varepsilon\xi_{il})}$$
      with $\xi_{hij} \sim \mathcal N(0, 1)$ drawn as the substrate draws the
      oscillator's (from the mismatch stream of `key`: a function of key, head and
      positions). For $\varepsilon \gtrsim 1/3$ the denominator can come near 0, as a
      mismatched device's normaliser would;
    * bits $b$: the query's direction is read with the substrate's $b$-bit quantiser
      $Q$ (per coordinate on $[-1, 1]$, shrunk into the unit ball), its length kept:
      $\tilde q_i = \|q_i\|\,Q(q_i/\|q_i\|)$, and
      $\tilde a = \operatorname{softmax}(\tilde q_i\cdot k_j)$.

    With $\varepsilon = 0$ and no `bits` it is the layer.

    Args:
        layer: the [`SoftmaxAttention`][syncattn.nn.SoftmaxAttention] layer.
        x: one sequence, shape `(T, d_model)`.
        key: the device's key (the substrate key of the mismatch draw).
        mismatch: $\varepsilon \ge 0$.
        bits: $b \ge 1$, or ``None`` (exact queries).
        mask: a key-padding mask, bool `(T,)` (True = a real token), or ``None``.

    Returns:
        $y$, shape `(T, d_model)`, in the dtype of `x`.

    Raises:
        TypeError: `layer` not a [`SoftmaxAttention`][syncattn.nn.SoftmaxAttention].
        ValueError: $\varepsilon$ negative or not finite, `bits` not an int $\ge 1$, a
            bad `mask`.
    """
    check_analogue(layer, mismatch, bits)
    # the layer's own q / sqrt(d_h), k, v, rotated
    q, k, v = softmax_projections(layer, x)
    s = cast(layer, q.dtype)
    T, H = x.shape[0], layer.n_heads
    mask = check_key_mask(mask, T)
    if bits is not None:
        n = jnp.linalg.norm(q, axis=-1, keepdims=True)
        q = n * quantise(q / jnp.where(n > 0, n, 1.0), int(bits))
    a = attention_weights(q, k, layer.causal, mask)  # (H, T, T)
    if mismatch > 0:
        xi = mismatch_normals(jax.random.fold_in(key, _MISMATCH), H, T, a.dtype)
        a = a * (1.0 + mismatch * xi)
        a = a / jnp.sum(a, -1, keepdims=True)
    return linear(s.wo, jnp.einsum("htu,uhd->thd", a, v).reshape(T, layer.d_model))


def check_analogue(layer, mismatch, bits) -> None:
    """The arguments of [`perturbed_softmax`][syncattn.nn.perturbed_softmax]: a
    [`SoftmaxAttention`][syncattn.nn.SoftmaxAttention], a finite $\\varepsilon \\ge 0$,
    ``bits`` an int $\\ge 1$ or ``None``.

    Raises:
        TypeError, ValueError: as [`perturbed_softmax`][syncattn.nn.perturbed_softmax].
    """
    if not isinstance(layer, SoftmaxAttention):
        raise TypeError(
            f"layer must be a syncattn.nn.SoftmaxAttention; got {type(layer).__name__}."
        )
    if (
        isinstance(mismatch, bool)
        or not isinstance(mismatch, (int, float))
        or not math.isfinite(mismatch)
        or mismatch < 0
    ):
        raise ValueError(f"mismatch must be a finite number >= 0; got {mismatch!r}.")
    if bits is not None and (
        isinstance(bits, bool) or not isinstance(bits, int) or bits < 1
    ):
        raise ValueError(f"bits must be an int >= 1 or None; got {bits!r}.")

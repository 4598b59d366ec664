r"""Fused kernels behind the library's numerics: the causal softmax attention on XLA:CPU.

`causal_attention` is softmax attention per head, $(T, H, D)$ queries and keys and
$(T, H, E)$ values with any leading batch axes, computed on the CPU backend by a C++
kernel (`attention.cc`, called through `jax.ffi`: a flash-style blocked online
softmax, forward and backward, threaded over batch x heads) and everywhere else by
its plain XLA composition `xla_attention`; `causal_attention_lse` also returns the
row log-sum-exp $L$ as a differentiable output (and may leave out the diagonal's
value), against `xla_attention_lse`; `grouped_attention` takes features laid out in
groups before the head axis, $(T, G, H, D_g)$, where they lie. The kernel is built from source on first
use (or at install, where the build environment has jaxlib) with the C++ compiler
found on the PATH; without one the pure-XLA path serves, after a one-line warning.
`pair_map` is the same for the two pair maps of fixed-query attention (the drive's
softplus coupling and the readout kernel), against `xla_pair_map`; `sync_features`,
`torus_step` and `sphere_step` are the elementwise maps around the synchronisation
layers' attention (the gates and drifted lift; the layer's move on the torus and on the
sphere), against `xla_sync_features`, `xla_torus_step` and `xla_sphere_step`;
`torus_lift` and `bounded_add` the torus lift and the bounded increment added, against
`xla_torus_lift` and `xla_bounded_add`; `gated_silu` and `rms_norm` the models'
feed-forward activation and normalisation, against `xla_gated_silu` and `xla_rms_norm`;
`swap_axes` and `swap_minor` two axes swapped (the sphere's lift, the oscillator's heads).
``SYNCATTN_ATTENTION_KERNEL=0`` switches the kernels off (read at trace time).
"""

from ._attention import (
    allowed_keys,
    causal_attention,
    causal_attention_lse,
    grouped_attention,
    grouped_heads,
    kernel_enabled,
    ungrouped_heads,
    xla_attention,
    xla_attention_lse,
)
from ._blocks import (
    gated_silu,
    rms_norm,
    swap_axes,
    swap_minor,
    xla_gated_silu,
    xla_rms_norm,
)
from ._library import status
from ._pairs import pair_map, xla_pair_map
from ._phases import bounded_add, torus_lift, xla_bounded_add, xla_torus_lift
from ._sync import (
    sphere_step,
    sync_features,
    torus_step,
    xla_sphere_step,
    xla_sync_features,
    xla_torus_step,
)


__all__ = [
    "allowed_keys",
    "bounded_add",
    "causal_attention",
    "causal_attention_lse",
    "gated_silu",
    "grouped_attention",
    "grouped_heads",
    "kernel_enabled",
    "pair_map",
    "rms_norm",
    "sphere_step",
    "status",
    "swap_axes",
    "swap_minor",
    "sync_features",
    "torus_lift",
    "torus_step",
    "ungrouped_heads",
    "xla_attention",
    "xla_attention_lse",
    "xla_bounded_add",
    "xla_gated_silu",
    "xla_pair_map",
    "xla_rms_norm",
    "xla_sphere_step",
    "xla_sync_features",
    "xla_torus_lift",
    "xla_torus_step",
]

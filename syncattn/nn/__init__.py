r"""Attention layers built from the verified primitives (equinox Modules, unbatched inputs).

* [`KuramotoAttention`][syncattn.nn.KuramotoAttention]: phase attention whose value
  update is [`syncattn.kuramoto.tangent_update`][] (seed 000);
* [`SphereAttention`][syncattn.nn.SphereAttention]: the same layer on $(S^{n-1})^k$,
  its update the Lohe coupling and a geodesic step (issue 28; `from_kuramoto`: $n = 2$
  is the torus layer), and [`GroupAttention`][syncattn.nn.GroupAttention] on $SO(n)$,
  $U(n)$: each is [`SyncAttention`][syncattn.nn.SyncAttention], the one
  synchronisation-attention layer, on its geometry ([`syncattn.geometry`][]; any
  geometry of that contract works);
* [`FrustratedAttention`][syncattn.nn.FrustratedAttention]: Kuramoto attention with a
  learned Daido series per head and a delayed coupling to each key's successor (issue 40;
  syncattn's own formulation of arXiv 2606.18694's abstract), and
  [`CollectiveModes`][syncattn.nn.CollectiveModes], its mean-field block (coupling to
  learned collective modes, in place of the feed-forward);
* [`OscillatorAttention`][syncattn.nn.OscillatorAttention]: fixed-query oscillator
  attention from [`syncattn.lohe`][] (seed 001), with its physical
  [`Substrate`][syncattn.nn.Substrate] (noise, mismatch, disorder, finite settling,
  quantised readout; [`with_substrate`][syncattn.nn.with_substrate]; a model block
  calls it through [`call_in_model`][syncattn.nn.call_in_model]);
* [`SoftmaxAttention`][syncattn.nn.SoftmaxAttention], [`SwiGLU`][syncattn.nn.SwiGLU],
  [`RMSNorm`][syncattn.nn.RMSNorm]: the RoPE + SwiGLU baseline
  ([`softmax_projections`][syncattn.nn.softmax_projections]: its rotated q, k, v;
  [`perturbed_softmax`][syncattn.nn.perturbed_softmax]: the softmax analogue of a
  substrate's mismatch and readout bits);
* [`PhaseEmbedding`][syncattn.nn.PhaseEmbedding], [`AngleSwiGLU`][syncattn.nn.AngleSwiGLU],
  [`PrototypeReadout`][syncattn.nn.PrototypeReadout]: the phase model's other pieces;
* [`FrozenLinear`][syncattn.nn.FrozenLinear]: a linear map frozen at its random
  initialisation (the layers' `freeze_values`, seed 001's frozen-$W_V$ ablation);
* [`LiftSwiGLU`][syncattn.nn.LiftSwiGLU], [`StateEmbedding`][syncattn.nn.StateEmbedding],
  [`AlignmentReadout`][syncattn.nn.AlignmentReadout] (and the readouts
  [`VonMisesReadout`][syncattn.nn.VonMisesReadout],
  [`LiftLinearReadout`][syncattn.nn.LiftLinearReadout]): the same pieces for any geometry
  (torus, sphere, group), the feed-forward acting on the lift as a tangent step;
* [`rope`][syncattn.nn.rope], [`rope_frequencies`][syncattn.nn.rope_frequencies]: rotary
  positions, shared.

Every layer takes one sequence, shape `(T, ...)`; `jax.vmap` it over a batch. Its dtype
follows the input (float32, bfloat16 or float64; parameters are cast). Attention layers
take `diagnostics=False`; with `True` they return `(output, aux)` and the output is
unchanged.
"""

from ._blocks import RMSNorm as RMSNorm, SwiGLU as SwiGLU
from ._collective_modes import CollectiveModes as CollectiveModes
from ._frozen import FrozenLinear as FrozenLinear
from ._frustrated_attention import (
    FrustratedAttention as FrustratedAttention,
    harmonic_lift as harmonic_lift,
)
from ._geometric_blocks import (
    AlignmentReadout as AlignmentReadout,
    LiftLinearReadout as LiftLinearReadout,
    LiftSwiGLU as LiftSwiGLU,
    StateEmbedding as StateEmbedding,
    VonMisesReadout as VonMisesReadout,
)
from ._group_attention import GroupAttention as GroupAttention
from ._kuramoto_attention import (
    KuramotoAttention as KuramotoAttention,
    bounded_increment as bounded_increment,
)
from ._oscillator_attention import OscillatorAttention as OscillatorAttention
from ._phase_blocks import (
    AngleSwiGLU as AngleSwiGLU,
    PhaseEmbedding as PhaseEmbedding,
    PrototypeReadout as PrototypeReadout,
)
from ._rope import rope as rope, rope_frequencies as rope_frequencies
from ._softmax_analogue import perturbed_softmax as perturbed_softmax
from ._softmax_attention import (
    SoftmaxAttention as SoftmaxAttention,
    softmax_projections as softmax_projections,
)
from ._sphere_attention import SphereAttention as SphereAttention
from ._substrate import (
    Substrate as Substrate,
    call_in_model as call_in_model,
    with_substrate as with_substrate,
)
from ._sync_attention import SyncAttention as SyncAttention


__all__ = [
    "SyncAttention",
    "KuramotoAttention",
    "SphereAttention",
    "GroupAttention",
    "FrustratedAttention",
    "CollectiveModes",
    "harmonic_lift",
    "OscillatorAttention",
    "FrozenLinear",
    "Substrate",
    "with_substrate",
    "call_in_model",
    "perturbed_softmax",
    "SoftmaxAttention",
    "softmax_projections",
    "SwiGLU",
    "RMSNorm",
    "PhaseEmbedding",
    "AngleSwiGLU",
    "PrototypeReadout",
    "LiftSwiGLU",
    "StateEmbedding",
    "AlignmentReadout",
    "VonMisesReadout",
    "LiftLinearReadout",
    "bounded_increment",
    "rope",
    "rope_frequencies",
]

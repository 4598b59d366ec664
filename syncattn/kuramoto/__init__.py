r"""The Kuramoto flow on the torus $\mathbb{T}^N$, its attention identity, and its theory.

Conventions:

* the last axis of `theta` indexes oscillators; leading axes are batch axes;
* `coupling` is one of

    - a scalar $K$: all-to-all coupling $K_{ij} = K/N$, evaluated in $O(N)$ through
      the order parameter (mean field);
    - a dense `(N, N)` matrix $K$ (or `(*batch, N, N)`). **Row $i$ lists the
      oscillators that oscillator $i$ listens to**: $\dot\theta_i$ gets
      $K_{ij}\sin(\theta_j - \theta_i - \alpha)$;
    - a sparse graph: an [`syncattn.kuramoto.EdgeList`][] (edge $j \to i$ =
      `senders[e] = j`, `receivers[e] = i`, weight $K_{ij}$) or a
      `jax.experimental.sparse.BCOO` matrix with the dense convention above;
      memory is $O(N + E)$, for $N$ far beyond dense memory;

* the coupling function is $\sin(\varphi - \alpha)$ (Kuramoto-Sakaguchi) or, with
  `harmonics=`, a Kuramoto-Daido series
  $H(\varphi) = \sum_{m=1}^M a_m\sin(m\varphi - \alpha_m) = \sum_m\operatorname{Im}(c_m e^{im\varphi})$,
  $c_m = a_m e^{-i\alpha_m}$ ([`syncattn.kuramoto.HarmonicCoupling`][]), with its
  Daido order parameters $Z_m$, local order parameters, phase-locking values and the
  in-phase / two-cluster stability theory;
* phases are not wrapped by the flow ([`syncattn.torus.wrap`][] them if needed);
* every function is pure and works under `jax.jit`, `jax.vmap` and `jax.grad`; the
  floating dtype of `theta` is preserved.

Files: `_coupling.py` (coupling forms and the sums they define), `_field.py` (vector
field, energy), `_attention.py` (the attention identity), `_simulate.py` (diffrax
integration), `_theory.py` (mean-field theory), `_daido.py` (harmonic coupling functions and
their observables), `_daido_theory.py` (their in-phase and two-cluster theory), `_delay.py`
(time delays: the delayed field and flow), `_delay_rk4.py` (its method-of-steps RK4
integrator), `_delay_theory.py` (the locked branches),
`_inertia.py` (the second-order flow with inertia, its energy), `_higher_order.py`
(triadic, simplicial coupling and its Ott-Antonsen theory), `_watanabe_strogatz.py` (the
exact three-dimensional reduction of identical oscillators).
"""

from ._attention import coupling_term as coupling_term, tangent_update as tangent_update
from ._coupling import EdgeList as EdgeList
from ._daido import (
    HarmonicCoupling as HarmonicCoupling,
    daido_coupling as daido_coupling,
    daido_order_parameters as daido_order_parameters,
    daido_update as daido_update,
    local_order_parameter as local_order_parameter,
    phase_locking_value as phase_locking_value,
)
from ._daido_theory import (
    in_phase_exponents as in_phase_exponents,
    two_cluster_drift as two_cluster_drift,
    two_cluster_exponents as two_cluster_exponents,
)
from ._delay import (
    delay_simulate as delay_simulate,
    delay_vector_field as delay_vector_field,
)
from ._delay_theory import delay_locked_frequencies as delay_locked_frequencies
from ._field import coherence_energy as coherence_energy, vector_field as vector_field
from ._higher_order import (
    TriangleList as TriangleList,
    simplicial_field as simplicial_field,
    simplicial_fixed_points as simplicial_fixed_points,
    simplicial_ott_antonsen_rhs as simplicial_ott_antonsen_rhs,
    simplicial_simulate as simplicial_simulate,
    simplicial_transition as simplicial_transition,
)
from ._inertia import (
    InertialSolution as InertialSolution,
    inertial_energy as inertial_energy,
    inertial_simulate as inertial_simulate,
    inertial_vector_field as inertial_vector_field,
)
from ._simulate import Solution as Solution, simulate as simulate
from ._theory import (
    critical_coupling as critical_coupling,
    lorentzian_frequencies as lorentzian_frequencies,
    lorentzian_order_parameter as lorentzian_order_parameter,
    noisy_critical_coupling as noisy_critical_coupling,
    noisy_order_parameter as noisy_order_parameter,
    ott_antonsen as ott_antonsen,
    ott_antonsen_rhs as ott_antonsen_rhs,
    sample_lorentzian as sample_lorentzian,
    self_consistent_order_parameter as self_consistent_order_parameter,
)
from ._watanabe_strogatz import (
    WatanabeStrogatzSolution as WatanabeStrogatzSolution,
    watanabe_strogatz_field as watanabe_strogatz_field,
    watanabe_strogatz_reconstruct as watanabe_strogatz_reconstruct,
    watanabe_strogatz_reduce as watanabe_strogatz_reduce,
    watanabe_strogatz_simulate as watanabe_strogatz_simulate,
)


__all__ = [
    "EdgeList",
    "Solution",
    "vector_field",
    "coupling_term",
    "tangent_update",
    "coherence_energy",
    "simulate",
    "critical_coupling",
    "lorentzian_order_parameter",
    "ott_antonsen_rhs",
    "ott_antonsen",
    "lorentzian_frequencies",
    "sample_lorentzian",
    "self_consistent_order_parameter",
    "noisy_critical_coupling",
    "noisy_order_parameter",
    "HarmonicCoupling",
    "daido_coupling",
    "daido_update",
    "daido_order_parameters",
    "local_order_parameter",
    "phase_locking_value",
    "in_phase_exponents",
    "two_cluster_drift",
    "two_cluster_exponents",
    "delay_vector_field",
    "delay_simulate",
    "delay_locked_frequencies",
    "InertialSolution",
    "inertial_vector_field",
    "inertial_energy",
    "inertial_simulate",
    "TriangleList",
    "simplicial_field",
    "simplicial_simulate",
    "simplicial_ott_antonsen_rhs",
    "simplicial_fixed_points",
    "simplicial_transition",
    "WatanabeStrogatzSolution",
    "watanabe_strogatz_reduce",
    "watanabe_strogatz_reconstruct",
    "watanabe_strogatz_field",
    "watanabe_strogatz_simulate",
]

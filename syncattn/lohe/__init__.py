r"""The Lohe flow on $S^{d-1}$ and fixed-query oscillator attention.

Conventions: a configuration `x` has shape `(*batch, n, d)`; axis `-2` indexes the
`n` oscillators, the last axis the coordinates of $S^{d-1} \subset \mathbb{R}^d$.
A dense coupling's row $i$ lists whom oscillator $i$ listens to ($K_{ij}$ weighs the
pull of $x_j$ on $x_i$). Saved trajectories put time first, `(t, *batch, n, d)`, as
diffrax does. Angles are radians in $[0, \pi]$. Value checks (NaN, ranges, skew
symmetry, unit norms) run on concrete inputs only; shape checks always run.

The fixed-query flow $\dot z = (I - z z^\top) h$ is the Lohe flow of one oscillator
pulled by a frozen drive $h = \sum_j w_j r_j$. It is the gradient flow of
$V(z) = -\langle z, h\rangle$ on the sphere and is solved in closed form by
$\tan(\varphi/2) = \tan(\varphi_0/2)\, e^{-\|h\| t}$, $\varphi = \angle(z, h)$.

Files: `_flow.py` (general Lohe flow and its simulation), `_fixed_query.py` (fixed-query
flow, equilibrium, exact solution, Jacobian), `_settle.py` (its one numerical
integrator, [`syncattn.lohe.settle`][]), `_attention.py` (couplings, drive, readout
kernel, row normalisation, readout), `_identities.py` (the attention identities on
spheres and matrix groups), `_matrix.py` (the Lohe matrix flow on SO(n)/U(n), integrated
by `syncattn.geometry`'s RKMK4), `_matrix_theory.py` (its gradient structure and
synchronisation bound), `_geometric.py` (the flow on any
[`syncattn.geometry.Geometry`][], the Markdahl form on $St(p, n)$), `_fused.py` (the
masked drive and readout sums
with memory-light VJPs), `_failure.py` (failure odds, the finite-time threshold), `_convergence.py` (predicted and
measured convergence from uniform starts), `_scale_free.py`
(scale-free degenerate events: the convex-hull law, the relative threshold), `_noise.py`
(the noisy flow: von Mises-Fisher law, Itô drift), `_locking.py` (frequency disorder:
locking).
"""

from ..sphere import tangent_basis as tangent_basis
from ._attention import (
    COUPLINGS as COUPLINGS,
    RELU_EPS as RELU_EPS,
    coupling_weights as coupling_weights,
    drive as drive,
    elu1_feature_map as elu1_feature_map,
    fixed_query_weights as fixed_query_weights,
    normalize_readout as normalize_readout,
    readout as readout,
    readout_features as readout_features,
    readout_kernel as readout_kernel,
)
from ._convergence import (
    fixed_query_errors as fixed_query_errors,
    predict_convergence as predict_convergence,
)
from ._failure import (
    antipodal_probability as antipodal_probability,
    degenerate_probability as degenerate_probability,
    degenerate_probability_exact as degenerate_probability_exact,
    finite_time_failure_probability as finite_time_failure_probability,
    finite_time_threshold as finite_time_threshold,
    weight_norm_probability as weight_norm_probability,
)
from ._fixed_query import (
    equilibrium as equilibrium,
    exact_angle as exact_angle,
    fixed_query_field as fixed_query_field,
    jacobian_spectrum as jacobian_spectrum,
    lyapunov as lyapunov,
    time_to_converge as time_to_converge,
)
from ._flow import (
    Solution as Solution,
    simulate as simulate,
    vector_field as vector_field,
)
from ._fused import (
    masked_drive as masked_drive,
    readout_sums as readout_sums,
)
from ._geometric import (
    geometric_field as geometric_field,
    geometric_simulate as geometric_simulate,
    markdahl_field as markdahl_field,
)
from ._identities import (
    matrix_coupling as matrix_coupling,
    matrix_tangent_update as matrix_tangent_update,
    sphere_coupling as sphere_coupling,
    sphere_tangent_update as sphere_tangent_update,
)
from ._locking import (
    LockedState as LockedState,
    Locking as Locking,
    adler_locking as adler_locking,
    locked_state as locked_state,
)
from ._matrix import (
    matrix_simulate as matrix_simulate,
    matrix_vector_field as matrix_vector_field,
)
from ._matrix_theory import (
    ensemble_diameter as ensemble_diameter,
    matrix_order_rate as matrix_order_rate,
    matrix_sync_bound as matrix_sync_bound,
    matrix_sync_threshold as matrix_sync_threshold,
    matrix_sync_time as matrix_sync_time,
    sphere_diameter as sphere_diameter,
)
from ._noise import (
    ito_drift as ito_drift,
    mean_resultant as mean_resultant,
    vmf_concentration as vmf_concentration,
    vmf_moments as vmf_moments,
    vmf_readout as vmf_readout,
    vmf_scores as vmf_scores,
)
from ._scale_free import (
    HullOdds as HullOdds,
    hull_contains_origin as hull_contains_origin,
    hull_degenerate_probability as hull_degenerate_probability,
    relative_degenerate_bound as relative_degenerate_bound,
    relative_degenerate_probability as relative_degenerate_probability,
)
from ._settle import (
    settle as settle,
    settle_time as settle_time,
)


__all__ = [
    "Solution",
    "vector_field",
    "simulate",
    "fixed_query_field",
    "drive",
    "fixed_query_weights",
    "equilibrium",
    "exact_angle",
    "time_to_converge",
    "lyapunov",
    "tangent_basis",
    "jacobian_spectrum",
    "readout",
    "COUPLINGS",
    "RELU_EPS",
    "coupling_weights",
    "elu1_feature_map",
    "readout_features",
    "readout_kernel",
    "normalize_readout",
    "matrix_vector_field",
    "matrix_simulate",
    "geometric_field",
    "geometric_simulate",
    "markdahl_field",
    "matrix_order_rate",
    "ensemble_diameter",
    "matrix_sync_threshold",
    "matrix_sync_bound",
    "matrix_sync_time",
    "sphere_diameter",
    "sphere_tangent_update",
    "sphere_coupling",
    "matrix_tangent_update",
    "matrix_coupling",
    "masked_drive",
    "readout_sums",
    "settle",
    "settle_time",
    "antipodal_probability",
    "finite_time_failure_probability",
    "degenerate_probability",
    "weight_norm_probability",
    "finite_time_threshold",
    "predict_convergence",
    "fixed_query_errors",
    "HullOdds",
    "hull_contains_origin",
    "hull_degenerate_probability",
    "relative_degenerate_bound",
    "relative_degenerate_probability",
    "vmf_concentration",
    "mean_resultant",
    "vmf_moments",
    "vmf_scores",
    "vmf_readout",
    "ito_drift",
    "adler_locking",
    "Locking",
    "locked_state",
    "LockedState",
]

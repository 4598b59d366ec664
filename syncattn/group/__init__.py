r"""Geometry of the compact matrix groups $SO(n)$ and $U(n)$.

Conventions:

* a group element is an `(n, n)` matrix in the last two axes; every leading axis
  is a batch axis and broadcasts;
* **the dtype names the group**: a real floating array (float16, bfloat16, float32,
  float64) is an element of $SO(n)$, $n \ge 2$; a complex array (complex64 or
  complex128 only) is an element of $U(n)$, $n \ge 1$. Integer input is promoted
  to the default float (an $SO(n)$ element);
* $M^H$ is the conjugate transpose ($M^\top$ for real $M$); the Lie algebra is
  $\mathfrak{so}(n) = \{\xi^\top = -\xi\}$ or $\mathfrak{u}(n) = \{\xi^H = -\xi\}$;
  tangent vectors at $U$ are $U\xi$ (left trivialisation);
* the metric is the Frobenius one, $\langle X, Y\rangle = \operatorname{Re}
  \operatorname{tr}(X^H Y)$, bi-invariant; the normalised inner product
  $\frac1n\operatorname{Re}\operatorname{tr}(U^H V) \in [-1, 1]$ ([`inner`][syncattn.group.inner])
  is the group analogue of $\cos(\theta_u - \theta_t)$;
* functions that need a group element check it on concrete input
  ($\|U^H U - I\|_F$ within $n\sqrt{\varepsilon}$ of the dtype, and $\det U = +1$ for
  $SO(n)$), raising `ValueError` naming the argument; traced input is not checked
  (see `syncattn._checks`). Shapes and dtypes are always checked.

Files: `_matrices.py` (names, checks, membership, `skew`), `_exponential.py` (tangent
projection, `expm`, `exp_map`, `distance`), `_haar.py` (`sample_haar`),
`_observables.py` (`order_parameter`, `inner`, `lift`).
"""

from ._exponential import (
    _expm as _expm,
    distance as distance,
    exp_map as exp_map,
    expm as expm,
    project_tangent as project_tangent,
)
from ._haar import sample_haar as sample_haar
from ._matrices import (
    _h as _h,
    _skew as _skew,
    as_matrix as as_matrix,
    check_member as check_member,
    defect as defect,
    parse_group as parse_group,
    skew as skew,
)
from ._observables import (
    _order_parameter as _order_parameter,
    inner as inner,
    lift as lift,
    order_parameter as order_parameter,
)


__all__ = [
    "parse_group",
    "as_matrix",
    "skew",
    "defect",
    "check_member",
    "project_tangent",
    "expm",
    "exp_map",
    "distance",
    "sample_haar",
    "order_parameter",
    "inner",
    "lift",
]

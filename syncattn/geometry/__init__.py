r"""Where the oscillators live: one declared contract ([`Geometry`][syncattn.geometry.Geometry])
and its implementations, [`Torus`][syncattn.geometry.Torus],
[`Sphere`][syncattn.geometry.Sphere], [`Group`][syncattn.geometry.Group] ($SO(n)$,
$U(n)$) and [`Stiefel`][syncattn.geometry.Stiefel] ($St(p, n)$).

The attention layers ([`syncattn.nn.SyncAttention`][] and its constructors), the geometry-native blocks and
the flows take a geometry object and call only its contract. Adding a geometry is one
new module that subclasses `Geometry` and one line in `REGISTRY` (docs: "Adding a
geometry"). On a geometry that declares `has_lie_algebra` (`Group`, `Torus`) the
Runge-Kutta-Munthe-Kaas integrators [`rkmk4`][syncattn.geometry.rkmk4] and
[`rkmk43`][syncattn.geometry.rkmk43] integrate any left-trivialised field.

Example:
    >>> from syncattn import geometry
    >>> geo = geometry.from_space("so3")
    >>> geo.m, geo.dim, geo.norm_scale == 1 / 3
    (9, 3, True)
"""

from __future__ import annotations

import re

from ._base import Geometry as Geometry
from ._drift import DRIFTS as DRIFTS, plane_generator as plane_generator
from ._group import Group as Group
from ._lie import LieSolution as LieSolution, rkmk4 as rkmk4, rkmk43 as rkmk43
from ._sphere import Sphere as Sphere
from ._stiefel import Stiefel as Stiefel
from ._torus import Torus as Torus


__all__ = [
    "Geometry",
    "Torus",
    "Sphere",
    "Group",
    "Stiefel",
    "REGISTRY",
    "from_space",
    "plane_generator",
    "DRIFTS",
    "rkmk4",
    "rkmk43",
    "LieSolution",
]


def _group(space, n, drift):
    from .. import group

    kind, m = group.parse_group(space)
    return Group(kind, m, drift)


# space name -> constructor(space, n, drift); a group's name carries its n
REGISTRY = {
    "torus": lambda space, n, drift: Torus(),
    "sphere": lambda space, n, drift: Sphere(n, drift),
    "so": _group,
    "u": _group,
    "stiefel": Stiefel.from_name,
}


def from_space(space: str, n: int | None = None, drift: str = "planes") -> Geometry:
    """The geometry named `space`: `"torus"`, `"sphere"` (with `n`), a group `"so<n>"` /
    `"u<n>"`, a Stiefel manifold `"stiefel<p>x<n>"`, or any name in `REGISTRY` (its
    leading letters; the rest, e.g. the group's n, is parsed by the constructor)."""
    name = str(space).strip().lower()
    key = re.match(r"[a-z]*", name).group()
    if key not in REGISTRY or (key != name and key in ("torus", "sphere")):
        raise ValueError(
            f"space must be 'torus', 'sphere' (with n), a group 'so<n>' / 'u<n>' or a "
            f"Stiefel manifold 'stiefel<p>x<n>'; got {space!r}."
        )
    if key == "sphere" and n is None:
        raise ValueError("space 'sphere' needs n, the ambient dimension (n >= 2).")
    return REGISTRY[key](name, n, drift)

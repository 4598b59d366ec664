"""syncattn: attention as synchronisation of coupled oscillators, verified.

Submodules are imported lazily so that `import syncattn` stays fast and does
not touch JAX's global configuration (float64 is *not* switched on here; tests
and proofs switch it on themselves).

- [`syncattn.torus`][]    geometry of the torus $\\mathbb{T}^k$
- [`syncattn.sphere`][]   geometry of the sphere $S^{d-1}$
- [`syncattn.group`][]    geometry of the matrix groups $SO(n)$ and $U(n)$
- [`syncattn.kuramoto`][] the Kuramoto flow and its theory
- [`syncattn.lohe`][]     the Lohe flow and fixed-query oscillator attention
- [`syncattn.entropic`][] softmax as the entropy-regularised argmax
"""

import importlib
from typing import TYPE_CHECKING


__version__ = "0.1.0"

_SUBMODULES = (
    "torus",
    "sphere",
    "group",
    "kuramoto",
    "lohe",
    "entropic",
    "nn",
    "studies",
    "verify",
    "data",
    "models",
    "training",
)

if TYPE_CHECKING:  # pragma: no cover
    from . import (
        entropic as entropic,
        group as group,
        kuramoto as kuramoto,
        lohe as lohe,
        sphere as sphere,
        torus as torus,
    )


def __getattr__(name: str):
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'syncattn' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_SUBMODULES])

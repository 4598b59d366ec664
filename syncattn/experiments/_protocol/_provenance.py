"""What made a cell: the code's commit and the versions of the packages its numbers depend on.

Re-running a committed cell at later code gives other numbers (docs/experiments.md,
"Reproducibility"), so each cell trained through the protocol's fetcher records, in its
``result.json``, the commit and versions of the run that trained it
([`provenance`][syncattn.experiments._protocol.provenance]); the cells committed
before this record existed have none, and their ``config.json`` names only the revision
of the run that last wrote it.
"""

from __future__ import annotations

import functools
import platform
from importlib import metadata


PACKAGES = (
    "jax",
    "jaxlib",
    "numpy",
    "scipy",
    "equinox",
    "optax",
    "diffrax",
    "jaxtyping",
)
"""The packages whose versions a cell records (those its training and scores call)."""


def provenance() -> dict:
    """The record of this process: ``commit`` (the git revision, ``+dirty`` with local
    changes, [`revision`][syncattn._outputs.revision]), ``syncattn``, ``python``,
    ``packages`` (``{name: version}`` of [`PACKAGES`][syncattn.experiments._protocol.PACKAGES],
    ``None`` where not installed), ``platform``, the JAX ``backend`` and whether 64-bit
    floats are on (``x64``)."""
    import jax

    from ... import __version__
    from ..._outputs import revision

    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "commit": revision(),
        "syncattn": __version__,
        "python": platform.python_version(),
        "packages": versions,
        "platform": platform.platform(),
        "backend": jax.default_backend(),
        "x64": bool(jax.config.jax_enable_x64),
    }


def _stamped(fn, record: dict, cell, folder) -> dict:
    result = dict(fn(cell, folder))
    name = f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"
    return result | {"provenance": record | {"cell_function": name}}


def stamping(fn):
    """The cell function `fn` whose result carries ``provenance``: this process's record
    ([`provenance`][syncattn.experiments._protocol.provenance], taken once, now) and the
    cell function's name (a module-level callable, so Ray can send it to its workers)."""
    return functools.partial(_stamped, fn, provenance())

"""The registry of ``syncattn experiment NAME``: the built-in experiments by module, and
any other [`Experiment`][syncattn.experiments.Experiment] registered at run time."""

from __future__ import annotations

from .._commands import registered_module
from ._protocol._experiment import Experiment


BUILT_IN = {
    "table": "table",
    "ablations": "ablations",
    "dynamics": "dynamics",
    "agreement": "agreement",
    "scaling": "scaling",
    "convergence": "convergence",
    "linear": "linear",
    "kws": "kws",
    "robustness": "robustness",
    "ladder": "ladder",
    "dosc_law": "dosc_law",
    "geometry": "geometry",
    "frustrated": "frustrated",
}
"""Built-in experiment name -> its module of `syncattn.experiments` (which defines
``EXPERIMENT``), imported on first use."""

_REGISTERED: dict[str, Experiment] = {}


def register(exp: Experiment, *, replace: bool = False) -> Experiment:
    """Make `exp` known to [`experiment`][syncattn.experiments.experiment] and to the
    command line (``syncattn experiment NAME``) under ``exp.name``; returns it.

    Raises:
        TypeError: `exp` is not an `Experiment`.
        ValueError: the name is a built-in experiment's, or registered already (unless
            `replace`).
    """
    if not isinstance(exp, Experiment):
        raise TypeError(f"register takes an Experiment; got {type(exp).__name__}.")
    if exp.name in BUILT_IN or (exp.name in _REGISTERED and not replace):
        raise ValueError(f"an experiment named {exp.name!r} exists already; choose another "
                         "name (or replace=True for one registered before).")
    _REGISTERED[exp.name] = exp
    return exp


def unregister(name: str) -> None:
    """Forget the experiment registered as `name` (built-in ones stay)."""
    _REGISTERED.pop(name, None)


def names() -> list[str]:
    """Every experiment's name: the built-in ones, then the registered ones."""
    return [*BUILT_IN, *_REGISTERED]


def experiment(name: str) -> Experiment:
    """The [`Experiment`][syncattn.experiments.Experiment] named `name`.

    Raises:
        ValueError: an unknown name (listing the known ones).
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in BUILT_IN:
        raise ValueError(f"unknown experiment {name!r}; choose one of {sorted(names())}.")
    return registered_module(BUILT_IN, name, __package__, "experiment").EXPERIMENT

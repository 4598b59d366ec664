"""Every experiment is an app on the shared protocol (issue 41, section 3): no module of an
experiment imports another experiment, no shared module (``syncattn.experiments._*``)
imports an experiment, and every registered name is an `Experiment` whose tables and
plots come from its walk alone.

The imports are read from the source with `ast` (tests/test_import_graph.py), at module
level and inside functions, so a lazy import counts too."""

import dataclasses

import pytest

from syncattn import experiments
from syncattn.experiments import Experiment

from ..test_import_graph import imports


PACKAGE = "syncattn.experiments"
APPS = {name: f"{PACKAGE}.{module}" for name, module in experiments.EXPERIMENTS.items()}


def _app_of(module: str) -> str | None:
    """The experiment whose module (or package) holds `module`; ``None``: shared."""
    for name, root in APPS.items():
        if module == root or module.startswith(root + "."):
            return name
    return None


def test_the_scan_sees_every_app_and_a_known_import():
    mods = {m for m, *_ in imports()}
    assert all(root in mods for root in APPS.values())
    # the scan reads imports inside functions as well: the ladder's lazy one of _dynamics
    assert any(m == f"{PACKAGE}.ladder._items" and t == f"{PACKAGE}._dynamics"
               for m, t, *_ in imports())


def test_no_experiment_imports_another():
    crossing = sorted({(m, t, line) for m, t, _, line in imports()
                       if _app_of(m) and _app_of(t) and _app_of(m) != _app_of(t)})
    assert not crossing, "an experiment imports another (move what they share into a "\
        f"shared module of {PACKAGE}, e.g. _protocol): {crossing}"


def test_no_shared_module_imports_an_experiment():
    shared = [(m, t, line) for m, t, _, line in imports()
              if m.startswith(PACKAGE + ".") and _app_of(m) is None and _app_of(t)]
    assert not shared, f"a shared module imports an experiment: {shared}"


@pytest.mark.parametrize("name", list(APPS))
def test_every_registered_name_is_an_experiment_object(name):
    exp = experiments.experiment(name)
    assert isinstance(exp, Experiment) and exp.name == name
    assert exp.config is experiments.get(name).Config
    assert name in experiments.names()
    assert (name in experiments.rebuildable()) == exp.rebuildable


def test_register_refuses_a_taken_name_and_forgets_on_request():
    from syncattn.experiments._registry import unregister

    ladder = experiments.experiment("ladder")
    with pytest.raises(ValueError, match="exists already"):
        experiments.register(ladder)
    other = dataclasses.replace(ladder, name="ladder_copy")
    try:
        assert experiments.register(other) is experiments.experiment("ladder_copy")
        with pytest.raises(ValueError, match="exists already"):
            experiments.register(other)
        experiments.register(other, replace=True)
    finally:
        unregister("ladder_copy")
    with pytest.raises(ValueError, match="unknown experiment 'ladder_copy'"):
        experiments.experiment("ladder_copy")
    with pytest.raises(TypeError, match="takes an Experiment"):
        experiments.register(experiments.get("ladder"))


def test_an_experiment_names_its_sizes():
    @dataclasses.dataclass(frozen=True)
    class NoSizes:
        steps: int = 1

    with pytest.raises(ValueError, match="smoke, default and full"):
        Experiment("x", NoSizes, walk=lambda c, ctx: None, tables=lambda c, w, ctx: ({}, {}))
    with pytest.raises(ValueError, match="letters, digits"):
        Experiment("a b", experiments.get("table").Config, walk=None, tables=None)

"""Test configuration (issue 7, section 5).

* float64 everywhere (`jax_enable_x64`), and no implicit rank promotion: an
  `(n,)` array meeting a `(b, n)` one must be broadcast on purpose
  (`jax_numpy_rank_promotion="raise"`, per test, see `RANK_PROMOTION_PENDING`), so
  axis mix-ups fail loudly.
* Runtime shape checks: the modules in `TYPECHECKED` (the maths core, the models,
  the data, the training code and the nn layers) are imported through jaxtyping's import hook
  with beartype, so every annotated argument and return shape
  (`Float[Array, "*batch n"]`, ...) is checked on every call in the tests (at
  trace time under `jit`), not just written down. They are imported lazily by
  `syncattn`, so the hook is in place before they load.
* Bad-input tests check the package's own errors, which are what a user (who
  runs without the hook) gets: inside `pytest.raises` the type checker is off.
* Tolerances come from `tests/helpers.py` (keyed by dtype).
"""

import os
import sys
from pathlib import Path

import jax
import jaxtyping
import pytest
from hypothesis import settings


jax.config.update("jax_enable_x64", True)


def pytest_configure(config):
    """Issue 31 (the default run under 5 minutes on 2 cores): in the default run only
    (`-m "not slow"`), XLA's backend optimisation level 0. That run is mostly XLA
    compiling small programs, for which LLVM's optimisation buys nothing and costs about
    a quarter of the time (tests/models + tests/nn, two runs each, 2026-12-03: 260-276 s
    CPU at the default level, 188-212 s at 0). It is not rounding-neutral in float32
    (`tests/test_sphere.py::test_cap_float32`: 6.8e-7 -> 1.3e-6), and in CI's slow line
    twelve slow cases failed with it, so every other selection (`-m slow`, `-m
    hypothesis`) keeps XLA's default level. XLA reads the flag when its first backend
    starts, after this hook; the processes the tests start inherit it. An XLA_FLAGS that
    sets the level wins."""
    flags = os.environ.get("XLA_FLAGS", "")
    if config.option.markexpr == "not slow" and "xla_backend_optimization_level" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_backend_optimization_level=0").strip()


TESTS = Path(__file__).resolve().parent
# Test folders whose code still relies on implicit rank promotion: they run with it
# allowed until their owners clear them (remove the entry; the rest raise).
RANK_PROMOTION_PENDING = ()


@pytest.fixture(autouse=True)
def _no_implicit_rank_promotion(request):
    parts = Path(request.node.path).resolve().relative_to(TESTS).parts
    if len(parts) > 1 and parts[0] in RANK_PROMOTION_PENDING:
        # ... and without the runtime shape checks of the maths modules they call,
        # until cleared the same way
        old = jaxtyping.config.jaxtyping_disable
        jaxtyping.config.update("jaxtyping_disable", True)
        try:
            yield
        finally:
            jaxtyping.config.update("jaxtyping_disable", old)
        return
    with jax.numpy_rank_promotion("raise"):
        yield


@pytest.fixture(scope="module", autouse=True)
def _under_the_mapping_limit(request):
    """After each test module: a worker that has compiled thousands of programs drops
    JAX's caches before it nears ``vm.max_map_count`` (`syncattn._mappings`; CI's slow
    run lost a worker to a segfault in XLA's compiler at about 95 %, 2026-12-05, and
    pytest-xdist then hung until CI's time limit). Per module, not per test: reading
    the count costs milliseconds at tens of thousands of mappings, and one module adds
    a few thousand at most (tests/geometry/test_lie.py: 5,000, the most measured), far
    inside the half of the limit left. The default run ("not slow") clears at half, the
    other runs at relieve's default third: a clear cost 4-10 s per worker in the default
    run (plus the recompiles after it), and a worker of the default run crossed a third
    of the limit about half-way through; the slow tests compile more per module."""
    yield
    from syncattn._mappings import relieve  # here: after the shape-check hook is in

    default_run = request.config.getoption("markexpr", "") == "not slow"
    relieve(fraction=1 / 2 if default_run else 1 / 3)


TYPECHECKED = (
    "syncattn.torus",
    "syncattn.sphere",
    "syncattn.group",
    "syncattn.kuramoto",
    "syncattn.lohe",
    "syncattn.entropic",
    "syncattn._simulate",
    "syncattn.geometry",
    "syncattn.nn",
    "syncattn.models",
    "syncattn.data",
    "syncattn.training",
)
_already = [m for m in TYPECHECKED if m in sys.modules]
assert not _already, f"imported before the jaxtyping hook: {_already}"
_HOOK = jaxtyping.install_import_hook(TYPECHECKED, "beartype.beartype")


class _PackageErrorsOnly:
    """A `pytest.raises` context with jaxtyping's runtime checks switched off inside."""

    def __init__(self, ctx):
        self._ctx = ctx

    def __enter__(self):
        self._old = jaxtyping.config.jaxtyping_disable
        jaxtyping.config.update("jaxtyping_disable", True)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        try:
            return self._ctx.__exit__(*exc)
        finally:
            jaxtyping.config.update("jaxtyping_disable", self._old)


_pytest_raises = pytest.raises


def _raises(expected, *args, **kwargs):
    if args:  # the callable form: pytest.raises(E, f, *args)
        old = jaxtyping.config.jaxtyping_disable
        jaxtyping.config.update("jaxtyping_disable", True)
        try:
            return _pytest_raises(expected, *args, **kwargs)
        finally:
            jaxtyping.config.update("jaxtyping_disable", old)
    return _PackageErrorsOnly(_pytest_raises(expected, **kwargs))


pytest.raises = _raises

settings.register_profile("default", deadline=None, max_examples=25)
settings.register_profile("ci", deadline=None, max_examples=25, derandomize=True)
# CI's extra pass over the property tests only (.ci/run: `-m hypothesis`, every
# @given test carries hypothesis's marker), with four times the examples
settings.register_profile("thorough", deadline=None, max_examples=100, derandomize=True)
settings.load_profile(os.getenv("HYPOTHESIS_PROFILE", "default"))


# ------------------------------------------------------------------ the default run's budget
# Issue 16: the default run (`pytest -n 2`) stays under 5 minutes on two cores. The cases
# listed in tests/slow_cases.txt (node ids, one per line; `#` comments say what each group
# checks and which case of it stays in the default run) cost the most to compile and run,
# and are marked `slow` here; CI runs every slow test (.ci/run). In a whole run (no paths
# given), a listed id that is not collected is reported by the test
# tests/test_suite.py::test_slow_cases_list_matches_the_tests, so the list cannot silently
# drift from the tests. Issue 31: ids in files skipped at collection (an optional extra
# missing: librosa, ...) are not stale, and a stale list fails that one test, never the
# whole run (an error raised here crashed pytest-xdist: no test ran at all).
SLOW_CASES = TESTS / "slow_cases.txt"
STALE_SLOW_CASES = pytest.StashKey[list]()
_SKIPPED_AT_COLLECTION: set[Path] = set()


def _slow_case_ids() -> set[str]:
    ids = set()
    for line in SLOW_CASES.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            ids.add(line)
    return ids


def pytest_collectreport(report):
    # a module skipped as a whole (`pytest.importorskip` at import: an optional extra)
    if report.skipped and report.nodeid and "::" not in report.nodeid:
        _SKIPPED_AT_COLLECTION.add((TESTS.parent / report.nodeid).resolve())


@pytest.hookimpl(tryfirst=True)  # before `-m 'not slow'` deselects
def pytest_collection_modifyitems(config, items):
    wanted = _slow_case_ids()
    root = TESTS.parent
    matched = set()
    for item in items:
        try:
            path = Path(item.path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        nodeid = path + ("::" + item.nodeid.split("::", 1)[1] if "::" in item.nodeid else "")
        if nodeid in wanted:
            item.add_marker(pytest.mark.slow)
            matched.add(nodeid)
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if not whole or config.getoption("keyword") or config.getoption("deselect"):
        return  # a partial run cannot tell a stale id from an unselected one
    ignored = [Path(p).resolve() for p in (config.getoption("ignore") or [])]
    not_collected = ignored + sorted(_SKIPPED_AT_COLLECTION)
    config.stash[STALE_SLOW_CASES] = sorted(
        i for i in wanted - matched
        if not any(
            g == (f := (root / i.split("::", 1)[0]).resolve()) or g in f.parents
            for g in not_collected
        )
    )

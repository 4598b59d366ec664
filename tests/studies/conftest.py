"""The studies' end-to-end runs are slow tests.

A test that reads one of the study output fixtures of `test_studies.py` (the failure,
convergence, lohe and Kuramoto studies at smoke size: 10-15 s each of compiling and simulating on
two cores) is marked `slow` here, where the fixtures' cost is known; CI runs them
(`.ci/run`). The studies' maths is tested by default in tests/lohe, tests/test_stats.py
and the fast tests of `test_studies.py`.
"""

from pathlib import Path

import pytest


HERE = Path(__file__).resolve().parent
SLOW_FIXTURES = {"failure_out", "conv", "loh", "kur"}


@pytest.hookimpl(tryfirst=True)  # before `-m 'not slow'` deselects
def pytest_collection_modifyitems(config, items):
    for item in items:  # the hook sees the whole session's items: only ours
        if HERE in Path(item.path).resolve().parents and SLOW_FIXTURES & set(
            getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.slow)

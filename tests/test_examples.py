"""Every example runs end to end in smoke mode (``SYNCATTN_SMOKE=1``), as a script."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest


EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("[0-9]*.py"))


def test_examples_exist():
    names = {p.name for p in EXAMPLES}
    assert {"01_kuramoto_sync.py", "02_lohe_sphere.py", "03_failure_odds.py"} <= names


# 03 (~12 s: Monte Carlo odds and their plots) is slow; CI runs it (.ci/run)
SLOW_EXAMPLES = {"03_failure_odds"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.stem in SLOW_EXAMPLES else p for p in EXAMPLES],
    ids=[p.stem for p in EXAMPLES],
)
def test_example_runs_in_smoke_mode(path, tmp_path):
    env = {**os.environ, "SYNCATTN_SMOKE": "1", "MPLBACKEND": "Agg"}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    # smoke runs take well under 20 s on an idle 2-core machine; the bound leaves room for load
    assert elapsed < 90, f"{path.name} took {elapsed:.0f} s"

"""The documentation runs as written: every ```python block of a page, concatenated in
order, runs in a fresh Python process (default float32, as a new user has it) from an
unrelated folder, and its own checks (``assert`` lines) hold.

* docs/getting-started.md: the flows (seconds);
* docs/building.md: two language models built from `syncattn.nn` and `syncattn.models`,
  trained 100 steps each on the embedded corpus and sampled (about a minute: slow,
  CI runs it).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.M | re.S)


def run_page(name: str, folder: Path, min_blocks: int) -> str:
    """Run the Python blocks of ``docs/name`` in `folder`; their standard output."""
    blocks = python_blocks((DOCS / name).read_text(encoding="utf-8"))
    assert len(blocks) >= min_blocks
    script = folder / (Path(name).stem.replace("-", "_") + ".py")
    script.write_text("\n".join(blocks))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def test_getting_started_runs_as_written(tmp_path):
    out = run_page("getting-started.md", tmp_path, min_blocks=4)
    assert "Ott-Antonsen R = 0.707" in out


@pytest.mark.slow
def test_building_models_runs_as_written(tmp_path):
    out = run_page("building.md", tmp_path, min_blocks=5)
    assert "validation BPC" in out and "And God said" in out
    # both models trained into their run folders, 100 steps each
    for run in ("nn-oscillator", "kuramoto-tiny"):
        assert (tmp_path / "runs" / run / "checkpoints" / "step_00000100").is_dir()

"""The documentation runs as written: every ```python block of docs/getting-started.md,
concatenated in order, runs in a fresh Python process (default float32, as a new user
has it) from an unrelated folder, and its own checks (``assert`` lines) hold."""

import re
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"


def python_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown, flags=re.M | re.S)


def test_getting_started_runs_as_written(tmp_path):
    blocks = python_blocks(PAGE.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    script = tmp_path / "getting_started.py"
    script.write_text("\n".join(blocks))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Ott-Antonsen R = 0.707" in proc.stdout

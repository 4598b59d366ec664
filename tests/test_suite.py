"""The test suite and CI keep the README's promises (issue 31).

* tests/slow_cases.txt names only tests that exist (checked in a whole run; files skipped
  at collection because an optional extra is missing do not count as stale);
* `.ci/run` runs the README's set-up commands exactly as the README writes them, each in
  a fresh virtual environment, before it installs anything else.
"""

import re
from pathlib import Path

import pytest

from tests.conftest import STALE_SLOW_CASES


ROOT = Path(__file__).resolve().parents[1]


def test_slow_cases_list_matches_the_tests(request):
    stale = request.config.stash.get(STALE_SLOW_CASES, None)
    if stale is None:
        pytest.skip("only a whole run (no paths, -k or --deselect) can tell a stale id")
    assert not stale, (
        f"tests/slow_cases.txt lists {len(stale)} test id(s) that their files no longer "
        "collect (renamed or removed? update the list): " + ", ".join(stale[:10])
    )


def readme_setup_lines(readme: str) -> list[str]:
    """The command lines of the README's "Set-up: two commands" block, comments cut."""
    section = readme.split("## Set-up: two commands", 1)[1]
    block = re.search(r"^```bash\n(.*?)^```", section, flags=re.M | re.S)
    assert block, "README: no ```bash block under 'Set-up: two commands'"
    lines = []
    for line in block.group(1).splitlines():
        command = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if command:
            lines.append(command)
    return lines


def test_readme_setup_block_has_the_two_commands():
    lines = readme_setup_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(lines) >= 2
    assert "syncattn verify" in lines[0] and "pytest" in lines[1]
    assert all(line.startswith("python3 -m venv .venv &&") for line in lines[:2])


def test_ci_runs_the_readme_lines_literally_first():
    lines = readme_setup_lines((ROOT / "README.md").read_text(encoding="utf-8"))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    # every README line appears as a whole line of .ci/run, in the README's order
    where = []
    for line in lines:
        hits = [i for i, c in enumerate(ci) if c.strip() == line]
        assert hits, f".ci/run does not run the README's line literally: {line}"
        where.append(hits[0])
    assert where == sorted(where), ".ci/run runs the README's lines out of order"
    # ... each of the two set-up commands in a fresh venv: .venv removed before it
    for i in where[:2]:
        assert any(c.strip() == "rm -rf .venv" for c in ci[max(0, i - 3) : i]), (
            f".ci/run line {i + 1}: no `rm -rf .venv` just before a set-up command"
        )
    # ... and nothing installed before the first of them
    before = "\n".join(ci[: where[0]])
    assert "pip install" not in before and "apt-get install" not in before, (
        ".ci/run installs something before the README's first command"
    )

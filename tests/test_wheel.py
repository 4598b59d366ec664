"""The built wheel verifies itself: ``pip install`` (not editable), then ``syncattn verify``.

Builds the wheel from this source tree, installs it with ``--no-deps`` into a
fresh virtual environment that sees the running interpreter's installed
dependencies (jax, sympy, ...) through a ``.pth`` line, and runs
``syncattn verify --quick`` from an unrelated working directory. A ``.pth``
line adds the parent's site-packages to ``sys.path`` without running the
``.pth`` files inside it, so an editable install of syncattn in the parent
environment (CI's ``.venv``) is not visible: the child imports only the wheel.
(``venv --system-site-packages`` would not do: from a virtual environment it
inherits the base interpreter's packages, not the virtual environment's.)

The install-and-verify test is marked slow (about 40 s of CPU, 90 s of wall time
on the loaded 2-core development machine), so the default suite skips it;
``.ci/run`` runs it with a second call, ``pytest -m slow -k wheel``. Building needs
the build backend (hatchling): the ``test`` extra installs it, otherwise pip
fetches it into an isolated build environment as ``pip install .`` does.
"""

import importlib.util
import json
import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, (
        f"{' '.join(map(str, cmd))} exited {proc.returncode}\n"
        f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
    )
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # the test extra installs hatchling, so CI builds offline; elsewhere pip fetches it
    isolation = (
        []
        if importlib.util.find_spec("hatchling") is None
        else ["--no-build-isolation"]
    )
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "-q",
            "-w",
            str(out),
            *isolation,
        ]
    )
    (whl,) = out.glob("syncattn-*.whl")
    return whl


def test_wheel_ships_the_proofs_inside_the_package_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"syncattn", f"{wheel.name.split('-py3')[0]}.dist-info"}, top
    source = sorted(p.name for p in (ROOT / "proofs").glob("proof_*.py"))
    shipped = sorted(
        n.removeprefix("syncattn/_proofs/")
        for n in names
        if n.startswith("syncattn/_proofs/proof_")
    )
    assert shipped == source and len(source) >= 9
    assert {"syncattn/_proofs/__init__.py", "syncattn/_proofs/_harness.py"} <= set(
        names
    )
    # the Coq proofs ship as sources only (docs/coq.md), never their build products
    coq = ROOT / "proofs" / "coq"
    coq_source = sorted(p.name for p in coq.glob("*.v")) + ["_CoqProject", "build.sh"]
    coq_shipped = [
        n.removeprefix("syncattn/_proofs/coq/")
        for n in names
        if n.startswith("syncattn/_proofs/coq/")
    ]
    assert sorted(coq_shipped) == sorted(coq_source) and len(coq_source) >= 11
    assert not [n for n in names if n.endswith((".vo", ".glob", ".pyc"))]


@pytest.mark.slow
def test_installed_wheel_runs_verify_quick_from_another_cwd(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False, symlinks=os.name != "nt")
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    child_site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    (child_site / "_parent_deps.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ]
    )

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    where = _run(
        [
            python,
            "-c",
            "import syncattn, importlib.util as u; print(syncattn.__file__); "
            "print(u.find_spec('proofs'))",
        ],
        cwd=work,
        env=env,
    ).stdout.split()
    assert Path(where[0]).is_relative_to(env_dir), where  # the wheel, not the checkout
    assert where[1] == "None"  # no top-level `proofs` package anywhere

    script = env_dir / ("Scripts/syncattn.exe" if os.name == "nt" else "bin/syncattn")
    proc = _run(
        [script, "verify", "--quick", "--no-progress", "--out", "report"],
        cwd=work,
        env=env,
    )
    assert "all checks passed" in proc.stdout
    report = json.loads((work / "report" / "report.json").read_text())
    assert report["summary"]["ok"] and report["summary"]["failed"] == 0
    assert report["summary"]["statements"] >= 9 and report["summary"]["passed"] > 0
    assert Path(report["config"]["proofs_dir"]).is_relative_to(env_dir)
    assert Path(report["config"]["proofs_dir"]).name == "_proofs"

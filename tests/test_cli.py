"""The package entry points: lazy import, CLI dispatch, the demo."""

import subprocess
import sys

from syncattn import cli


def test_import_is_lazy_and_leaves_x64_alone():
    code = (
        "import sys, syncattn\n"
        "assert 'jax' not in sys.modules, 'import syncattn must not import jax'\n"
        "import jax\n"
        "assert not jax.config.jax_enable_x64\n"
        "syncattn.torus\n"
        "assert not jax.config.jax_enable_x64, 'using a submodule must not switch on float64'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_help_and_unknown_command(capsys):
    assert cli.main(["--help"]) == 0
    assert "verify" in capsys.readouterr().out
    assert cli.main(["nonsense"]) == 2
    assert "unknown command 'nonsense'" in capsys.readouterr().err


def test_demo_runs_and_agrees_with_theory(capsys):
    assert cli.main(["demo", "--n", "500"]) == 0
    out = capsys.readouterr().out
    rows = [
        line.split()
        for line in out.splitlines()
        if line.strip().startswith(("1.50", "3.00"))
    ]
    assert len(rows) == 2
    for _, sim, theory in rows:  # N = 500: finite-size error is a few percent
        assert abs(float(sim) - float(theory)) < 0.08


def test_kws_smoke_without_espeak_says_how_to_install(tmp_path, monkeypatch, capsys):
    """Issue 31: the docs' kws command on a machine without espeak-ng (or without the
    `kws` extra) stops with exit 2 and an install hint, not a traceback."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no espeak-ng on PATH
    monkeypatch.setenv("SYNCATTN_CACHE", str(tmp_path / "cache"))  # no cached set
    code = cli.main(["experiment", "kws", "--smoke", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    assert "apt-get install -y espeak-ng" in err or "pip install 'syncattn[kws]'" in err

"""``syncattn verify``: listing, selection, reports, exit codes (run in-process on cheap statements)."""

import importlib
import json
import re

import pytest

from syncattn import cli, verify


CHEAP = "rotary_phase_drift"  # a statement whose checks take about a second
NAMES = (
    "kuramoto_identity",
    "rotary_phase_drift",
    "entropic_selection",
    "coherence_gradient",
    "lohe_fixed_query",
    "failure_odds",
    "readout",
    "lohe_general",
    "ott_antonsen",
    "delay_locking",
    "inertia",
)


def _module(name):
    verify.load_statements(verify.find_proofs())  # puts the proofs package on sys.path
    return importlib.import_module(f"proofs.proof_{name}")


def test_list_names_every_statement_in_order(capsys):
    assert verify.main(["--list"]) == 0
    out = capsys.readouterr().out
    positions = [out.index(name) for name in NAMES]
    assert positions == sorted(positions)
    assert "symbolic" in out and "mutation" in out


def test_cli_dispatches_to_verify(capsys):
    assert cli.main(["verify", "--list"]) == 0
    assert "ott_antonsen" in capsys.readouterr().out


def test_only_one_statement_passes_and_writes_both_reports(tmp_path, capsys):
    out = tmp_path / "report"
    assert (
        verify.main(
            ["--only", CHEAP, "--out", str(out), "--no-progress", "--seed", "3"]
        )
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["ok"] is True and report["summary"]["failed"] == 0
    assert [s["name"] for s in report["statements"]] == [CHEAP]
    statement = report["statements"][0]
    assert statement["kind"] == "symbolic+numeric"
    assert {c["kind"] for c in statement["checks"]} == {
        "symbolic",
        "numeric",
        "mutation",
    }
    assert all(c["result"] == "pass" for c in statement["checks"])
    assert report["config"]["seed"] == 3 and report["config"]["float64"] is True
    assert report["config"]["only"] == [CHEAP]
    md = (out / "report.md").read_text()
    assert "all checks passed" in md and CHEAP in md
    printed = capsys.readouterr().out
    assert re.search(rf"{CHEAP}\s+symbolic\+numeric\s+\d+/\d+\s+pass", printed)


def test_default_out_is_a_fresh_timestamped_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert verify.main(["--only", "2", "--no-progress", "--jobs", "1"]) == 0  # by number
    (folder,) = tmp_path.iterdir()
    assert re.fullmatch(r"syncattn-verify-\d{8}-\d{6}", folder.name)
    assert {p.name for p in folder.iterdir()} == {"report.json", "report.md"}


def test_a_failing_check_makes_the_exit_code_nonzero(tmp_path, monkeypatch, capsys):
    mod = _module(CHEAP)

    def broken():
        raise AssertionError("deliberately broken proof")

    monkeypatch.setattr(mod, "test_rope_symbolic", broken)
    out = tmp_path / "r"
    args = ["--only", CHEAP, "--out", str(out), "--no-progress", "--jobs", "1"]
    assert verify.main(args) == 1
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["ok"] is False and report["summary"]["failed"] == 1
    failed = [c for c in report["statements"][0]["checks"] if c["result"] == "FAIL"]
    assert [c["check"] for c in failed] == ["rope_symbolic"]
    assert "deliberately broken proof" in failed[0]["error"]
    assert "FAILED" in (out / "report.md").read_text()
    assert "deliberately broken proof" in capsys.readouterr().out


def test_quick_skips_slow_checks(tmp_path, monkeypatch):
    mod = _module(CHEAP)

    def slow_and_broken():
        raise AssertionError("must not run under --quick")

    slow_and_broken.check_kind, slow_and_broken.slow = "numeric", True
    monkeypatch.setattr(mod, "test_zz_slow_simulation", slow_and_broken, raising=False)
    out = tmp_path / "q"
    assert (
        verify.main(["--only", CHEAP, "--quick", "--out", str(out), "--no-progress"])
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    skipped = [c for c in report["statements"][0]["checks"] if c["result"] == "skipped"]
    assert [c["check"] for c in skipped] == ["zz_slow_simulation"]
    assert report["config"]["quick"] is True


def test_parallel_jobs_give_the_same_report(tmp_path):
    """Two statements over two spawned workers: results come back complete and in order."""
    only = ["--only", "entropic_selection", "--only", CHEAP]
    out = tmp_path / "p"
    assert verify.main([*only, "--jobs", "2", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert [s["name"] for s in report["statements"]] == [CHEAP, "entropic_selection"]
    assert report["config"]["jobs"] == 2
    assert all(c["result"] == "pass" for s in report["statements"] for c in s["checks"])
    assert report["summary"]["checks"] == 8


def test_jobs_must_be_positive(capsys):
    assert verify.main(["--jobs", "0", "--only", CHEAP]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_markdown_cells_escape_norm_bars():
    assert verify._cell("equilibria +-h/||h||") == "equilibria +-h/\\|\\|h\\|\\|"


def test_unknown_statement_is_a_usage_error(capsys):
    assert verify.main(["--only", "no_such_statement"]) == 2
    err = capsys.readouterr().err
    assert "no_such_statement" in err and "kuramoto_identity" in err


def test_missing_proofs_folder_is_a_usage_error(tmp_path, capsys):
    assert verify.main(["--proofs", str(tmp_path), "--list"]) == 2
    assert "no proofs found" in capsys.readouterr().err


def test_bad_option_is_a_usage_error(capsys):
    assert verify.main(["--seed", "not-an-int"]) == 2
    assert "invalid int value" in capsys.readouterr().err


@pytest.mark.parametrize("name", NAMES)
def test_every_statement_has_symbolic_numeric_and_mutation_checks(name):
    from proofs import _harness

    mod = _module(name)
    kinds = {c.kind for c in _harness.collect(mod)}
    assert kinds == {"symbolic", "numeric", "mutation"}
    doc = mod.__doc__
    for section in (
        "Statement",
        "Proof idea:",
        "What is symbolic and what is numeric:",
        "Mirrors:",
        "Source:",
    ):
        assert section in doc, f"{name}: docstring lacks {section!r}"
    for mirrored in mod.MIRRORS:
        module_name, _, attr = mirrored.rpartition(".")
        assert hasattr(importlib.import_module(module_name), attr), mirrored


def test_find_proofs_prefers_the_copy_shipped_in_the_package(tmp_path, monkeypatch):
    """An installed wheel has syncattn/_proofs; a checkout has only proofs/ next to the package."""
    import syncattn

    package = tmp_path / "site" / "syncattn"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.setattr(syncattn, "__file__", str(package / "__init__.py"))
    with pytest.raises(FileNotFoundError, match="no proofs found"):
        verify.find_proofs()
    checkout = tmp_path / "site" / "proofs"
    checkout.mkdir()
    (checkout / "__init__.py").write_text("")
    (checkout / "proof_x.py").write_text("")
    assert verify.find_proofs() == checkout.resolve()
    shipped = package / "_proofs"
    shipped.mkdir()
    (shipped / "__init__.py").write_text("")
    (shipped / "proof_x.py").write_text("")
    assert verify.find_proofs() == shipped.resolve()
    assert verify._package_name(shipped.resolve()) == verify.WHEEL_PACKAGE
    assert verify._package_name(checkout.resolve()) == "proofs"

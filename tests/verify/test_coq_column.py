"""The Coq column of ``syncattn verify`` on a small proofs package of its own (issue 38 §1).

A toy statement with two Coq parts and one measured part, its pinned specification and
its proofs, on the real shared core (``CoreSpec.v``, ``Core.v``). With ``coqc``: the
column reads "2/3 parts"; a tautology in place of a theorem, a weakened definition, a
changed shared core and a dropped hypothesis each fail the run. Without ``coqc`` (a
stand-in on PATH or none): "not installed" and the pins still checked.
"""

import hashlib
import itertools
import json
import shutil
import stat
from pathlib import Path

import pytest

from syncattn import verify
from syncattn.verify import _coq


ROOT = Path(__file__).resolve().parents[2]
PROOFS = ROOT / "proofs"
NO_COQC = shutil.which("coqc") is None
needs_coqc = pytest.mark.skipif(NO_COQC, reason="coqc not on PATH (docs/coq.md)")
_names = itertools.count()

SPEC = """From Syncattn Require Import CoreSpec.
(** The toy specification: the Kuramoto identity, and a claim with a hypothesis. *)
Definition identity_spec : Prop :=
  forall th w, - sin th * re_G w + cos th * im_G w = coupling th w.
Definition positive_spec : Prop := forall x : R, 0 < x -> 0 < x * x.
"""
PROOF = """From Syncattn Require Import Core toy_spec.
Theorem identity : identity_spec.
Proof. intros th w. apply update_is_coupling. Qed.
Theorem positive : positive_spec.
Proof. intros x Hx. nra. Qed.
Print Assumptions identity.
"""
MODULE = '''"""Statement 1: a toy."""
from ._harness import check
from ._parts import Part

NUMBER = 1
TITLE = "toy"
MIRRORS = ()
PARTS = (
    Part("a", "the Kuramoto identity", "coq", coq="identity"),
    Part("b", "squares of positive numbers are positive", "coq", coq="positive"),
    Part("c", "something measured", "measured", why="a simulation"),
)
COQ_SPEC_SHA256 = "{pin}"


@check("symbolic")
def test_trivial():
    assert 1 + 1 == 2
'''


def toy(tmp_path: Path, spec=SPEC, proof=PROOF, core=None, pin=None) -> Path:
    """A proofs package (importable under a fresh name) holding the toy statement."""
    folder = tmp_path / f"toyproofs{next(_names)}"
    (folder / "coq").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name in ("_harness.py", "_parts.py"):
        shutil.copy(PROOFS / name, folder / name)
    shutil.copy(PROOFS / "coq" / "Core.v", folder / "coq" / "Core.v")
    core_text = (PROOFS / "coq" / "CoreSpec.v").read_text()
    (folder / "coq" / "CoreSpec.v").write_text(core(core_text) if core else core_text)
    (folder / "coq" / "toy_spec.v").write_text(spec)
    (folder / "coq" / "toy.v").write_text(proof)
    pin = pin or hashlib.sha256(SPEC.encode()).hexdigest()
    (folder / "proof_toy.py").write_text(MODULE.format(pin=pin))
    return folder


def run(folder: Path, *extra) -> tuple[int, dict]:
    out = (
        folder.parent
        / f"report-{folder.name}-{len(list(folder.parent.glob('report-*')))}"
    )
    rc = verify.main(
        [
            "--proofs",
            str(folder),
            "--out",
            str(out),
            "--no-progress",
            "--jobs",
            "1",
            *extra,
        ]
    )
    return rc, json.loads((out / "report.json").read_text())


def fake_coqc(folder: Path) -> Path:
    """A stand-in ``coqc``: compiles anything; an audit prints each part and an axiom."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "coqc"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "The Coq Proof Assistant, version fake"; exit 0; fi\n'
        'for f; do last="$f"; done\n'
        f'echo "$last" >> "{folder}/calls"\n'
        'case "$last" in syncattn_audit*)\n'
        '  grep -o \'idtac "[^"]*"\' "$last" | sed \'s/idtac "//; s/"$//\' | while read -r line; do\n'
        '    echo "$line"; echo "Axioms:"; echo "Classical_Prop.classic : forall P : Prop, P \\/ ~ P"\n'
        "  done;;\n"
        "esac\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNCATTN_COQ_CACHE", str(tmp_path / "cache"))


# --------------------------------------------------------------------------- without coqc
def test_without_coqc_the_column_says_not_installed_and_nothing_fails(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rc, report = run(toy(tmp_path))
    assert rc == 0 and report["summary"]["ok"]
    row = report["statements"][0]
    assert row["coq"] == "not installed (2/3 parts in Coq)"
    assert [p["result"] for p in row["parts"]] == [
        "not installed",
        "not installed",
        "-",
    ]
    assert "coq: not installed" in capsys.readouterr().out


def test_coq_flag_requires_coqc(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert (
        verify.main(
            ["--proofs", str(toy(tmp_path)), "--coq", "--out", str(tmp_path / "r")]
        )
        == 2
    )
    assert "--coq needs coqc" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_no_coq_skips_the_column(tmp_path, monkeypatch):
    bin_ = fake_coqc(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")  # the stand-in first
    rc, report = run(toy(tmp_path), "--no-coq")
    assert rc == 0 and report["statements"][0]["coq"] == "skipped"
    assert not (bin_ / "calls").exists()


def test_the_pins_are_checked_without_coqc(tmp_path, monkeypatch, capsys):
    """A changed specification fails before anything compiles, naming the file and the fix."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    weak = SPEC.replace("0 < x * x.", "0 <= x * x.")
    rc, report = run(toy(tmp_path, spec=weak))
    assert rc == 1 and report["statements"][0]["coq_result"] == "FAIL"
    error = report["statements"][0]["coq_error"]
    assert "specification changed: proofs/coq/toy_spec.v" in error
    assert "review it, then update the pin" in error and "COQ_SPEC_SHA256" in error
    assert "FAIL coq toy" in capsys.readouterr().out


def test_a_changed_shared_core_fails_every_statement(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    zero = lambda text: text.replace(
        "  fold_right (fun p acc => fst p * sin (snd p - th) + acc) 0 w.", "  0."
    )
    assert zero(SPEC) == SPEC  # the toy spec itself is untouched
    rc, report = run(toy(tmp_path, core=zero))
    assert rc == 1
    assert (
        "specification changed: proofs/coq/CoreSpec.v"
        in report["statements"][0]["coq_error"]
    )
    assert "CORE_SPEC_SHA256" in report["statements"][0]["coq_error"]


def test_forbidden_words_fail_before_compiling(tmp_path, monkeypatch):
    bin_ = fake_coqc(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")  # the stand-in first
    cheat = PROOF.replace("Proof. intros x Hx. nra. Qed.", "Proof. Admitted.")
    rc, report = run(toy(tmp_path, proof=cheat))
    assert (
        rc == 1
        and "forbidden in source: proofs/coq/toy.v: Admitted"
        in report["statements"][0]["coq_error"]
    )
    assert not (bin_ / "calls").exists()


def test_the_audit_and_its_cache_with_a_stand_in_coqc(tmp_path, monkeypatch):
    """Every needed file compiled once in dependency order, then one audit; a second run
    is served from the cache (the stand-in is not called again)."""
    bin_ = fake_coqc(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{bin_}:/usr/bin:/bin")  # the stand-in first
    folder = toy(tmp_path)
    rc, report = run(folder, "--coq")
    assert rc == 0, report["statements"][0].get("coq_error")
    row = report["statements"][0]
    assert row["coq"] == "2/3 parts" and row["coq_parts"] == "2/3"
    assert [p["result"] for p in row["parts"]] == ["checked", "checked", "-"]
    calls = (bin_ / "calls").read_text().split()
    assert calls == [
        "CoreSpec.v",
        "toy_spec.v",
        "Core.v",
        "toy.v",
        "syncattn_audit.v",
    ] or calls == ["CoreSpec.v", "Core.v", "toy_spec.v", "toy.v", "syncattn_audit.v"]
    assert report["summary"]["parts"] == dict(
        total=3, coq=2, coq_checked=2, sympy=0, measured=1
    )
    rc, report = run(folder, "--coq")
    assert rc == 0 and (bin_ / "calls").read_text().split() == calls


def test_the_closure_orders_dependencies_first_and_names_a_missing_file(tmp_path):
    folder = toy(tmp_path) / "coq"
    files = _coq.coq_files(folder.parent)
    order = _coq.closure("toy", files)
    assert order.index("CoreSpec") < order.index("Core") < order.index("toy")
    assert order.index("toy_spec") < order.index("toy")
    (folder / "toy.v").write_text(
        PROOF.replace("Core toy_spec", "Core toy_spec Missing")
    )
    with pytest.raises(
        FileNotFoundError,
        match=r"proofs/coq/Missing.v not found \(required by proofs/coq/toy.v\)",
    ):
        _coq.closure("toy", _coq.coq_files(folder.parent))


def test_pins_flag_prints_the_hashes(tmp_path, capsys):
    assert verify.main(["--proofs", str(toy(tmp_path)), "--pins"]) == 0
    out = capsys.readouterr().out
    assert "toy_spec.v  " + hashlib.sha256(SPEC.encode()).hexdigest() + "  ok" in out
    assert "CoreSpec.v" in out
    assert verify.main(["--proofs", str(toy(tmp_path, pin="0" * 64)), "--pins"]) == 1
    assert "PINNED " + "0" * 64 in capsys.readouterr().out


# --------------------------------------------------------------------------- with coqc
@needs_coqc
def test_a_tautology_in_place_of_a_theorem_fails(tmp_path):
    """The referee's trial: the theorem replaced by `coupling 0 [] = coupling 0 []`
    still compiles, but its type is not the specification, and the run fails."""
    folder = toy(tmp_path)
    rc, report = run(folder, "--coq")
    assert rc == 0 and report["statements"][0]["coq"] == "2/3 parts"
    cheat = PROOF.replace(
        "Theorem identity : identity_spec.\nProof. intros th w. apply update_is_coupling. Qed.",
        "Theorem identity : coupling 0 [] = coupling 0 [].\nProof. reflexivity. Qed.",
    )
    assert cheat != PROOF
    rc, report = run(toy(tmp_path, proof=cheat), "--coq")
    row = report["statements"][0]
    assert rc == 1 and row["coq_result"] == "FAIL" and row["coq"] == "FAIL (1/3 parts)"
    assert (
        "part a (identity): the theorem's type is not its specification identity_spec"
        in row["coq_error"]
    )
    assert [p["result"] for p in row["parts"]] == ["FAIL", "checked", "-"]


@needs_coqc
@pytest.mark.slow
def test_a_dropped_hypothesis_fails(tmp_path):
    """A theorem that drops the spec's hypothesis (and proves a different statement)
    does not have the specification's type."""
    cheat = PROOF.replace(
        "Theorem positive : positive_spec.\nProof. intros x Hx. nra. Qed.",
        "Theorem positive : forall x : R, 0 < x * x + 1.\nProof. intros x. nra. Qed.",
    )
    assert cheat != PROOF
    rc, report = run(toy(tmp_path, proof=cheat), "--coq")
    row = report["statements"][0]
    assert (
        rc == 1
        and "part b (positive): the theorem's type is not its specification"
        in row["coq_error"]
    )


@needs_coqc
@pytest.mark.slow
def test_an_unprovable_specification_does_not_compile(tmp_path):
    """With the pin updated to a false specification, the proof no longer compiles."""
    false = SPEC.replace("0 < x * x.", "x * x < 0.")
    pin = hashlib.sha256(false.encode()).hexdigest()
    rc, report = run(toy(tmp_path, spec=false, pin=pin), "--coq")
    assert (
        rc == 1
        and "coqc exit 1 on proofs/coq/toy.v" in report["statements"][0]["coq_error"]
    )

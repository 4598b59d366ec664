"""The parts registry (issue 38 §1, §2): every statement says what proves each of its claims.

Without ``coqc``: every statement declares its parts, at least one of them in Coq; at
least three quarters of all parts are in Coq; every Coq part names a theorem whose
specification exists in the statement's pinned ``<name>_spec.v`` and whose proof file
states ``Theorem <thm> : <thm>_spec``; specification files hold definitions only; the
pins are current; ``docs/coq.md``'s coverage section is the registry's.
"""

import re
from pathlib import Path

import pytest

from syncattn import verify
from syncattn.verify import _coq, _coverage


ROOT = Path(__file__).resolve().parents[2]
COQ = ROOT / "proofs" / "coq"
STATEMENTS = verify.load_statements(verify.find_proofs(ROOT / "proofs"))
NAMES = [s.name for s in STATEMENTS]
BY_NAME = {s.name: s for s in STATEMENTS}


def parts(name):
    return _coq.declared(BY_NAME[name]).parts


@pytest.mark.parametrize("name", NAMES)
def test_every_statement_declares_its_parts_and_one_is_in_coq(name):
    ps = parts(name)
    assert ps, f"proofs/proof_{name}.py declares no PARTS"
    labels = [p.label for p in ps]
    assert len(set(labels)) == len(labels), f"{name}: duplicate part labels {labels}"
    assert any(p.kind == "coq" for p in ps), f"{name}: no part is proved in Coq"
    for p in ps:
        if p.kind != "coq":
            assert p.why and len(p.why.split()) >= 2, (
                name,
                p.label,
                "says why not in Coq",
            )


def test_three_quarters_of_all_parts_are_in_coq():
    every = [p for n in NAMES for p in parts(n)]
    coq = sum(p.kind == "coq" for p in every)
    assert coq >= 0.75 * len(every), f"{coq} of {len(every)} parts in Coq"


@pytest.mark.parametrize("name", NAMES)
def test_each_coq_part_has_its_specification_and_its_theorem(name):
    theorems = [p.coq for p in parts(name) if p.kind == "coq"]
    spec = _coq.strip_comments((COQ / f"{name}_spec.v").read_text())
    proof = _coq.strip_comments((COQ / f"{name}.v").read_text())
    assert re.search(r"From Syncattn Require Import CoreSpec\b", spec), name
    assert re.search(rf"From Syncattn Require Import [^.]*\b{name}_spec\b", proof), name
    specified = set(re.findall(r"Definition\s+(\w+)_spec\s*:\s*Prop\s*:=", spec))
    for thm in theorems:
        assert thm in specified, f"{name}_spec.v has no `Definition {thm}_spec : Prop`"
        assert re.search(rf"(Theorem|Lemma)\s+{thm}\s*:\s*{thm}_spec\s*\.", proof), (
            f"{name}.v has no `Theorem {thm} : {thm}_spec.`"
        )
    unclaimed = specified - set(theorems)
    assert not unclaimed, (
        f"{name}_spec.v specifies {sorted(unclaimed)} that no part claims"
    )


@pytest.mark.parametrize(
    "path", sorted(p.name for p in COQ.glob("*_spec.v")) + ["CoreSpec.v"]
)
def test_specifications_hold_definitions_only(path):
    """What a reviewer must trust is definitions: no lemma, no proof, no assumption."""
    src = _coq.strip_comments((COQ / path).read_text())
    assert not re.search(
        r"\b(Lemma|Theorem|Proof|Qed|Defined|Admitted|Axiom|Parameter|Hypothesis|Variable|Instance|Ltac)\b",
        src,
    ), path
    assert _coq.forbidden_words(src) == []


def test_every_coq_file_is_in_the_coq_project():
    project = (COQ / "_CoqProject").read_text().split()
    assert project[:3] == ["-Q", ".", _coq.LOGICAL_PREFIX]
    listed = [Path(p).stem for p in project[3:]]
    assert set(listed) == {p.stem for p in COQ.glob("*.v")}
    for name in NAMES:  # specifications before proofs
        assert listed.index(f"{name}_spec") < listed.index(name), name
    assert listed[:2] == ["CoreSpec", "Core"]


@pytest.mark.parametrize("name", NAMES)
def test_the_pins_are_current(name):
    """A reviewed specification is pinned; changing it needs a new review (and pin)."""
    pin = getattr(BY_NAME[name].module, "COQ_SPEC_SHA256", None)
    assert pin == _coq.sha256_file(COQ / f"{name}_spec.v"), (
        f"proofs/coq/{name}_spec.v changed: review it, then update COQ_SPEC_SHA256 in "
        f"proofs/proof_{name}.py (`syncattn verify --pins`)"
    )


def test_the_core_pin_is_current():
    assert _coq.sha256_file(COQ / "CoreSpec.v") == _coq_check_core_pin()


def _coq_check_core_pin():
    from syncattn.verify._coq_check import core_pin_of

    return core_pin_of(STATEMENTS)


def test_docs_coverage_section_is_generated_from_the_registry():
    text = (ROOT / "docs" / "coq.md").read_text()
    assert _coverage.BEGIN in text and _coverage.END in text
    section = text[
        text.index(_coverage.BEGIN) : text.index(_coverage.END) + len(_coverage.END)
    ]
    assert section + "\n" == _coverage.coverage_markdown(STATEMENTS), (
        "docs/coq.md's coverage section is stale: run `syncattn verify --write-coverage docs/coq.md`"
    )

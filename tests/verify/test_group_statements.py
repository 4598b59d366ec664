"""Statements 16-19 (issue 28): registered in ``syncattn verify``, with the anatomy of a proof file."""

import importlib

import pytest

from syncattn import verify


NEW = {
    16: "lohe_identities",
    17: "matrix_lohe",
    18: "matrix_gradient",
    19: "matrix_sync",
}


def test_verify_lists_the_group_statements_after_the_first_fifteen():
    statements = verify.load_statements(verify.find_proofs())
    numbers = {s.name: s.number for s in statements}
    for number, name in NEW.items():
        assert numbers[name] == number
    assert max(n for n in numbers.values() if n < 16) == 15


@pytest.mark.parametrize("name", sorted(NEW.values()))
def test_group_statement_anatomy(name):
    verify.load_statements(verify.find_proofs())
    from proofs import _harness

    mod = importlib.import_module(f"proofs.proof_{name}")
    assert {c.kind for c in _harness.collect(mod)} == {
        "symbolic",
        "numeric",
        "mutation",
    }
    for section in (
        "Statement",
        "Proof idea",
        "What is symbolic and what is numeric:",
        "Mirrors:",
        "Source",
    ):
        assert section in mod.__doc__, (name, section)
    for mirrored in mod.MIRRORS:
        module_name, _, attr = mirrored.rpartition(".")
        assert hasattr(importlib.import_module(module_name), attr), mirrored

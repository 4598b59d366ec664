"""Every core dependency declared in pyproject.toml is imported by the package, and every
third-party module the package (or a proof it ships) imports is declared.

A static check (the ``import`` statements, read with ``ast``): CI installs only what
pyproject declares, so an undeclared import breaks a fresh install, and a declared but
unused package burdens every user.
"""

import ast
import re
import sys
import tomllib
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
IMPORT_NAME = {
    "jax": "jax"
}  # distribution -> import name, where they differ (none today)
# declared for a room that is still being built (none now: optax arrived with training/)
PENDING: set[str] = set()


def _requirement_name(req: str) -> str:
    return (
        re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].strip().lower().replace("-", "_")
    )


def _third_party_imports(files) -> set[str]:
    stdlib = set(sys.stdlib_module_names)
    found = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in stdlib and top not in {
                    "syncattn",
                    "proofs",
                    "__future__",
                }:
                    found.add(top)
    return found


# optional imports of the package (inside the function that needs them), each
# declared in an extra: import name -> extra
OPTIONAL = {"ray": "cluster", "librosa": "kws"}


def test_optional_imports_are_declared_in_their_extra():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = meta["optional-dependencies"]
    for module, extra in OPTIONAL.items():
        names = {IMPORT_NAME.get(n, n) for n in map(_requirement_name, extras[extra])}
        assert module in names, f"{module} is not declared in the {extra!r} extra"


def test_core_dependencies_are_exactly_what_the_package_imports():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {
        IMPORT_NAME.get(n, n) for n in map(_requirement_name, meta["dependencies"])
    }
    shipped = [*(ROOT / "syncattn").rglob("*.py"), *(ROOT / "proofs").glob("*.py")]
    used = _third_party_imports(shipped) - set(OPTIONAL)
    assert used - declared == set(), (
        f"imported but not declared in pyproject: {used - declared}"
    )
    assert declared - PENDING - used == set(), (
        f"declared but never imported (move to an extra or drop): {declared - PENDING - used}"
    )

"""No function in syncattn/ is over 100 lines (issue 41 §4): a long one is split into the
steps it does, each a named function with its docstring.

A function's length is its `def` line to its last line (docstring and comments included,
decorators not), read from the source with `ast`; methods and nested functions count on
their own. `ALLOWED` names the functions that other branches are splitting now: the lead
empties it as those land (an entry naming no function fails
`test_the_allow_list_names_existing_functions`, so a renamed one is seen).
"""

import ast
import functools
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "syncattn"
LIMIT = 100

# (file under syncattn/, qualified name): being split on other branches (session 18)
ALLOWED: set[tuple[str, str]] = set()


def function_lengths(source: str) -> dict[str, tuple[int, int]]:
    """`{qualified name: (first line, length in lines)}` of every function in `source`."""
    out = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                out[name] = (child.lineno, child.end_lineno - child.lineno + 1)
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


@functools.cache
def package_lengths() -> dict[tuple[str, str], tuple[int, int]]:
    """`{(file under syncattn/, qualified name): (first line, length)}` over the package."""
    return {
        (path.relative_to(PACKAGE).as_posix(), name): where
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, where in function_lengths(path.read_text()).items()
    }


def test_the_measure_finds_planted_long_functions():
    def body(indent):
        return "\n".join(f"{' ' * indent}x{i} = {i}" for i in range(LIMIT))

    source = (
        f"def long():\n{body(4)}\n\n\n"
        f"class A:\n    def method(self):\n        def inner():\n{body(12)}\n"
        "\n\ndef short():\n    return 1\n"
    )
    lengths = function_lengths(source)
    assert lengths["long"] == (1, LIMIT + 1)
    assert lengths["A.method.inner"][1] == LIMIT + 1
    assert lengths["A.method"][1] == LIMIT + 2
    assert lengths["short"][1] == 2


def test_no_function_over_100_lines():
    long = {
        key: where
        for key, where in package_lengths().items()
        if where[1] > LIMIT and key not in ALLOWED
    }
    assert not long, (
        f"functions over {LIMIT} lines (split each into the steps it does, named "
        "functions with docstrings): "
        + "; ".join(
            f"syncattn/{path}:{line} {name} ({n} lines)"
            for (path, name), (line, n) in sorted(long.items())
        )
    )


def test_the_allow_list_names_existing_functions():
    lengths = package_lengths()
    gone = sorted(key for key in ALLOWED if key not in lengths)
    assert not gone, (
        f"ALLOWED in {Path(__file__).name} names functions that no longer exist; "
        "remove them: " + ", ".join(f"syncattn/{path} {name}" for path, name in gone)
    )

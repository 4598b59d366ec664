"""The package's import graph (issue 16): no cycles, and nothing inside imports the CLI.

The graph is read from the source with `ast` (every ``import`` and ``from ... import``,
at module level or inside functions), so the test needs no import side effects. A
``from .pkg import name`` counts as importing the submodule ``pkg.name`` when that
is a module, else ``pkg`` itself.
"""

import ast
from pathlib import Path

import syncattn


ROOT = Path(syncattn.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    mods = {}
    for p in ROOT.rglob("*.py"):
        if "_proofs" in p.parts:
            continue
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


def import_graph() -> dict[str, set[str]]:
    """``{module: the syncattn modules it imports}``."""
    mods = _modules()
    graph = {}
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        out = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    out.add(sub if sub in mods else target)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
        graph[name] = {m for m in out if m in mods and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_planted_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycles():
    graph = import_graph()
    assert "syncattn.lohe._fixed_query" in graph  # the walk found the modules
    assert "syncattn.sphere" in graph["syncattn.lohe._fixed_query"]  # and their imports
    assert cycles(graph) == []


def test_nothing_imports_the_command_line_entry_point():
    """`syncattn.cli` only dispatches: no module of the package imports it (the shared
    helpers live in the leaf `syncattn._commands`)."""
    graph = import_graph()
    assert "syncattn._commands" in graph["syncattn.verify"]
    assert [m for m, deps in graph.items() if "syncattn.cli" in deps] == []

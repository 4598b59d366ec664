"""The package's import graph (issues 16 and 31): no cycles, nothing inside imports the
CLI, every import goes downward in the layer order of the house (LAYERS below), no package
reaches into another package's private ``_module`` or a public module's private ``_name``
(PRIVATE_CORES: the documented exceptions, none since issue 41), and no file is over 500
lines.

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


def imports() -> list[tuple[str, str, str | None, int]]:
    """Every import of a syncattn module by another: ``(module, target, name, line)``,
    `name` the private ``_name`` taken from `target` by ``from target import _name``
    (not a submodule), else ``None``."""
    mods = _modules()
    out = []
    for name, path in mods.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    if sub in mods:
                        out.append((name, sub, None, node.lineno))
                    else:
                        private = a.name.startswith("_") and not a.name.startswith("__")
                        out.append((name, target, a.name if private else None, node.lineno))
            elif isinstance(node, ast.Import):
                out.extend((name, a.name, None, node.lineno) for a in node.names)
    return [(m, t, n, line) for m, t, n, line in out if t in mods and t != m]


def import_graph() -> dict[str, set[str]]:
    """``{module: the syncattn modules it imports}``."""
    graph = {name: set() for name in _modules()}
    for module, target, _, _ in imports():
        graph[module].add(target)
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


# --------------------------------------------------------------------------- the layers

# The house of ../shared/ARCHITECTURE.md, bottom to top, as the code follows it: a module
# may import from its own room and from rooms of a *lower* row only (two rooms of one row
# do not import each other). A room is the first name under `syncattn`: a subpackage
# (`nn`, `experiments`, ...) or a top-level module (`torus`, `_checks`, ...).
LAYERS = (
    # 0. leaves: they import nothing of the package. NumPy/JAX numerics, shapes, pytrees;
    #    the apps' shared helpers (writing results, key=value overrides, the CLI's
    #    failure handling and subcommand registry) and host statistics, which the
    #    architecture's sketch does not draw: none of them imports a room above.
    ("_numerics", "_types", "_trees", "_outputs", "_overrides", "_failures", "_commands",
     "_mappings", "stats"),
    ("_checks", "_kernels"),  # 1. argument checks (on _numerics); the fused CPU kernels
    ("torus", "sphere", "group", "_simulate"),  # 2. the spaces' maths, the simulation driver
    ("geometry",),  # 3. the declared Geometry contract and its implementations
    ("kuramoto", "lohe", "entropic"),  # 4. the flows and their theory
    ("nn",),  # 5. equinox layers
    ("models",),  # 6. LMs and classifiers from nn blocks
    ("data",),  # 7. corpora (imports no model: the sketch's order, kept)
    ("training",),  # 8. train step, checkpoints, run folders
    ("verify",),  # 9. runs the proof files
    ("experiments", "studies", "_demo"),  # 10. the apps (`_demo`: the `demo` subcommand)
    ("cli",),  # 11. the one entry point (dispatches by name, imports no app)
)  # fmt: skip
RANK = {room: r for r, rooms in enumerate(LAYERS) for room in rooms}

# Exceptions to "no private _name of another package": {public module: the packages
# that may take its private names}. Empty since issue 41 §1: the flows call the
# geometry objects (`syncattn.geometry`) and the spaces' public functions, whose checks
# are shape checks at trace time inside jit (value checks only on concrete input).
PRIVATE_CORES: dict[str, tuple[str, ...]] = {}


def room(module: str) -> str | None:
    """The room of ``syncattn.ROOM[.rest]``; ``None`` for the package root itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def layer_violations(edges) -> list[str]:
    """The imports of `edges` ``(module, target, name, line)`` that do not go downward."""
    bad = []
    for module, target, _, line in edges:
        a, b = room(module), room(target)
        if a is None or b is None or a == b:
            continue  # the root: see test_the_package_root_loads_nothing
        if a not in RANK or b not in RANK:
            bad.append(f"{module} (line {line}) imports {target}: room "
                       f"{a if a not in RANK else b!r} is not in LAYERS")  # fmt: skip
        elif RANK[b] >= RANK[a]:
            bad.append(f"{module} (line {line}) imports {target}: room {b!r} (row "
                       f"{RANK[b]}) is not below room {a!r} (row {RANK[a]})")  # fmt: skip
    return list(dict.fromkeys(bad))  # one line per import, not per name


def _owner(module: str) -> str | None:
    """The package that owns a private module: the name before its first ``_part``."""
    parts = module.split(".")
    for i, p in enumerate(parts[1:], start=1):
        if p.startswith("_") and not p.startswith("__"):
            return ".".join(parts[:i])
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def private_violations(edges) -> list[str]:
    """Imports of another package's private ``_module``, or of a public module's private
    ``_name`` (outside PRIVATE_CORES)."""
    bad = []
    for module, target, name, line in edges:
        owner = _owner(target)
        if owner is not None and not _inside(module, owner):
            what = f"{target}.{name}" if name else target
            bad.append(f"{module} (line {line}) imports {what}: a private module of "
                       f"{owner}; import it from {owner}'s public names")  # fmt: skip
        elif owner is None and name is not None and not any(
            _inside(module, p) for p in PRIVATE_CORES.get(target, ())
        ) and not _inside(module, target):
            bad.append(f"{module} (line {line}) imports {target}.{name}: a private name "
                       f"of the public module {target}")  # fmt: skip
    return list(dict.fromkeys(bad))  # one line per import, not per name


def test_layer_and_private_checks_find_planted_violations():
    edges = [
        ("syncattn.nn._blocks", "syncattn.models._config", None, 3),  # up, and private
        ("syncattn.training._run", "syncattn.studies", None, 4),  # up
        ("syncattn.studies.x", "syncattn.experiments", None, 5),  # sideways (one row)
        ("syncattn.experiments.a", "syncattn.experiments.ladder._report", None, 6),
        ("syncattn.experiments.a", "syncattn.experiments.scaling", "_plot", 7),
        ("syncattn.nn._x", "syncattn.sphere", "_exp_map", 8),  # a private core
        ("syncattn.newroom", "syncattn.nn", None, 9),
        ("syncattn.kuramoto._simulate", "syncattn.torus", "_mean_xy", 10),  # likewise
    ]
    assert layer_violations(edges) == [
        "syncattn.nn._blocks (line 3) imports syncattn.models._config: room 'models' "
        "(row 6) is not below room 'nn' (row 5)",
        "syncattn.training._run (line 4) imports syncattn.studies: room 'studies' (row 10) "
        "is not below room 'training' (row 8)",
        "syncattn.studies.x (line 5) imports syncattn.experiments: room 'experiments' "
        "(row 10) is not below room 'studies' (row 10)",
        "syncattn.newroom (line 9) imports syncattn.nn: room 'newroom' is not in LAYERS",
    ]
    assert private_violations(edges) == [
        "syncattn.nn._blocks (line 3) imports syncattn.models._config: a private module "
        "of syncattn.models; import it from syncattn.models's public names",
        "syncattn.experiments.a (line 6) imports syncattn.experiments.ladder._report: a "
        "private module of syncattn.experiments.ladder; import it from "
        "syncattn.experiments.ladder's public names",
        "syncattn.experiments.a (line 7) imports syncattn.experiments.scaling._plot: a "
        "private name of the public module syncattn.experiments.scaling",
        "syncattn.nn._x (line 8) imports syncattn.sphere._exp_map: a private name of the "
        "public module syncattn.sphere",
        "syncattn.kuramoto._simulate (line 10) imports syncattn.torus._mean_xy: a private "
        "name of the public module syncattn.torus",
    ]
    # allowed: inside a package, its private modules and their private names; the
    # root's private leaves from anywhere; public names of the spaces and the geometry
    ok = [
        ("syncattn.lohe._flow", "syncattn.lohe._fixed_query", "_equilibrium", 1),
        ("syncattn.data.kws", "syncattn.data._audio", "_librosa", 2),
        ("syncattn.experiments.x", "syncattn._outputs", None, 3),
        ("syncattn.lohe._flow", "syncattn.geometry", None, 4),
        ("syncattn.kuramoto._simulate", "syncattn.torus", None, 5),
    ]
    assert private_violations(ok) == [] and layer_violations(ok) == []


def test_every_room_is_in_the_layer_table():
    rooms = {room(m) for m in _modules()} - {None}
    assert rooms - set(RANK) == set(), "add the new room to LAYERS"
    assert set(RANK) - rooms == set(), "a room of LAYERS no longer exists"


def test_every_import_goes_downward():
    """A module imports only from its own room and rooms of a lower row of LAYERS."""
    bad = layer_violations(imports())
    assert not bad, "imports against the layer order:\n  " + "\n  ".join(bad)


def test_no_package_imports_another_packages_private_module():
    """``pkg._module`` (and ``_name``s of public modules) only from inside ``pkg``;
    the exceptions are PRIVATE_CORES (none)."""
    bad = private_violations(imports())
    assert not bad, "imports of private modules or names:\n  " + "\n  ".join(bad)


def test_the_package_root_loads_nothing():
    """Any module may import the root `syncattn` (for ``__version__``): it imports its
    rooms lazily (``__getattr__``) and otherwise only for type checkers."""
    tree = ast.parse((ROOT / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"syncattn/__init__.py line {node.lineno} imports a room")
        if isinstance(node, ast.If):
            assert ast.unparse(node.test) == "TYPE_CHECKING", ast.unparse(node.test)


def test_no_file_over_500_lines():
    """No file of the package is over 500 lines (split by topic, re-export the names)."""
    long = {str(p.relative_to(ROOT.parent)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 500}  # fmt: skip
    assert long == {}, f"files over 500 lines: {long}"

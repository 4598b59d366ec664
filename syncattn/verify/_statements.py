"""The statements of ``syncattn verify``: the proof modules, found, imported and selected."""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
import sys
from pathlib import Path
from types import ModuleType


@dataclasses.dataclass
class Statement:
    """One proof module: ``proofs/proof_<name>.py``."""

    number: int
    name: str
    title: str
    path: Path
    mirrors: tuple[str, ...]
    source: str
    module: ModuleType | None
    import_error: str | None = None


@dataclasses.dataclass
class CheckResult:
    statement: str
    check: str
    kind: str
    result: str  # "pass" | "FAIL" | "skipped"
    seconds: float
    error: str | None = None


def _one_line(e: BaseException) -> str:
    msg = " ".join(str(e).split())
    if len(msg) > 600:
        msg = msg[:600] + " ..."
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


# --------------------------------------------------------------------------- discovery
WHEEL_PACKAGE = (
    "syncattn._proofs"  # where the wheel ships the proofs (see pyproject.toml)
)


def _is_proofs_dir(path: Path) -> bool:
    return (path / "__init__.py").is_file() and any(path.glob("proof_*.py"))


def find_proofs(proofs_dir: str | os.PathLike | None = None) -> Path:
    """The folder of proof modules that ``syncattn verify`` runs.

    ``proofs_dir`` if given; otherwise the copy shipped inside the installed
    package (``syncattn/_proofs``, which the wheel build maps from the
    repository's ``proofs/``), and failing that the ``proofs/`` folder of a
    source checkout next to the package (an editable install, or ``PYTHONPATH``
    pointing at a clone).

    Raises:
        FileNotFoundError: naming the folders searched and how to get a checkout.
    """
    if proofs_dir is not None:
        candidates = [Path(proofs_dir).resolve()]
    else:
        import syncattn

        package = Path(syncattn.__file__).resolve().parent
        candidates = [package / "_proofs", package.parent / "proofs"]
    for candidate in candidates:
        if _is_proofs_dir(candidate):
            return candidate
    searched = " or ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"no proofs found in {searched}. The syncattn wheel ships them as "
        "syncattn/_proofs; reinstall it (`pip install --force-reinstall syncattn`), or "
        "run from a source checkout (`pip install -e .`), or pass --proofs PATH/TO/proofs."
    )


def _package_name(proofs_dir: Path) -> str:
    """The import name of ``proofs_dir``: ``syncattn._proofs`` for the shipped copy,
    otherwise the folder's own name, imported with its parent on ``sys.path``."""
    import syncattn

    if proofs_dir == Path(syncattn.__file__).resolve().parent / "_proofs":
        return WHEEL_PACKAGE
    if not proofs_dir.name.isidentifier():
        raise ImportError(
            f"the proofs folder {proofs_dir} cannot be imported as a package: its name "
            f"{proofs_dir.name!r} is not a Python identifier."
        )
    return proofs_dir.name


def _import_proofs_package(proofs_dir: Path) -> str:
    """Import the proofs package of ``proofs_dir``; return its import name.

    The proof modules import their shared machinery relatively
    (``from ._harness import ...``), so they work under either name.
    """
    name = _package_name(proofs_dir)
    loaded = sys.modules.get(name)
    if loaded is not None:
        where = Path(getattr(loaded, "__file__", "") or "").resolve().parent
        if where != proofs_dir:
            raise ImportError(
                f"a different `{name}` package is already imported (from {where}); expected {proofs_dir}."
            )
        return name
    if name != WHEEL_PACKAGE:
        root = str(proofs_dir.parent)
        if root not in sys.path:
            sys.path.insert(0, root)
    importlib.import_module(name)
    return name


def _harness_of(package: str) -> ModuleType:
    return importlib.import_module(f"{package}._harness")


def _source_paragraph(doc: str) -> str:
    m = re.search(r"^Source:(.*?)(?:\n\s*\n|\Z)", doc or "", flags=re.S | re.M)
    return " ".join(m.group(1).split()) if m else ""


def load_statements(proofs_dir: Path) -> list[Statement]:
    """Import every ``proof_*.py`` module of ``proofs_dir``, ordered by ``NUMBER``.

    A module that fails to import becomes a statement with ``import_error`` set
    (reported as a failure), so one broken file does not hide the others.
    """
    package = _import_proofs_package(proofs_dir)
    out = []
    for path in sorted(proofs_dir.glob("proof_*.py")):
        name = path.stem.removeprefix("proof_")
        try:
            module = importlib.import_module(f"{package}.{path.stem}")
        except Exception as e:  # report, do not crash
            out.append(
                Statement(
                    10**6,
                    name,
                    "(module failed to import)",
                    path,
                    (),
                    "",
                    None,
                    _one_line(e),
                )
            )
            continue
        out.append(
            Statement(
                number=int(getattr(module, "NUMBER", 10**6)),
                name=name,
                title=str(
                    getattr(
                        module,
                        "TITLE",
                        (module.__doc__ or name).strip().splitlines()[0],
                    )
                ),
                path=path,
                mirrors=tuple(getattr(module, "MIRRORS", ())),
                source=_source_paragraph(module.__doc__ or ""),
                module=module,
            )
        )
    return sorted(out, key=lambda s: (s.number, s.name))


def _select(statements: list[Statement], only: list[str] | None) -> list[Statement]:
    if not only:
        return statements
    keys = {}
    for s in statements:
        for k in (s.name, f"proof_{s.name}", f"proof_{s.name}.py", str(s.number)):
            keys[k] = s
    unknown = [o for o in only if o not in keys]
    if unknown:
        known = ", ".join(f"{s.number}:{s.name}" for s in statements)
        raise KeyError(
            f"unknown statement {', '.join(map(repr, unknown))}; choose from {known}."
        )
    chosen = {keys[o].name for o in only}
    return [s for s in statements if s.name in chosen]


# --------------------------------------------------------------------------- running

"""The Coq column of ``syncattn verify``: pinned specifications, compiled proofs, audited parts.

The Coq development in ``proofs/coq`` separates what a reader must trust from what Coq
checks (as CompCert and seL4 do):

* ``CoreSpec.v`` (shared definitions) and ``<name>_spec.v`` (one per statement
  ``proofs/proof_<name>.py``): definitions mirroring the library's formulas and one
  ``Definition <thm>_spec : Prop`` per Coq-proved part. These are *pinned*: their
  SHA-256 must equal ``CORE_SPEC_SHA256`` (``proofs/_parts.py``) and the statement's
  ``COQ_SPEC_SHA256``; otherwise the statement fails with "specification changed:
  review it, then update the pin".
* ``Core.v`` and ``<name>.v``: lemmas and the proofs ``Theorem <thm> : <thm>_spec``.

A statement's Coq parts (its ``PARTS`` entries of kind ``"coq"``) are *checked* when
every file they need compiles with ``coqc`` in a fresh temporary folder (no build
products land beside the sources, so an installed read-only copy works), no file has
``Admitted``, ``admit``, ``Axiom`` (or another way to assume) outside comments, an audit
file compiles ``Check (<name>.<thm> : <name>_spec.<thm>_spec).`` for each part (the
theorem's type is exactly its pinned specification: a tautology or a weakened theorem in
its place fails here), and each theorem's ``Print Assumptions`` lists only allowed axioms
(:data:`REAL_AXIOMS`; :data:`PRIMITIVE_PREFIXES` too where a file uses Interval). A
success is cached by the hash of every file involved, the ``coqc`` version and the
allowlist, in ``$SYNCATTN_COQ_CACHE`` or ``~/.cache/syncattn/coq``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path


# The standard library's axioms of the real numbers (Coq 8.16: ClassicalDedekindReals
# builds R from Dedekind cuts with these two, and the stdlib's Reals use functional
# extensionality and excluded middle). Nothing else may appear in Print Assumptions
# (one exception: PRIMITIVE_PREFIXES below).
REAL_AXIOMS = frozenset(
    {
        "ClassicalDedekindReals.sig_forall_dec",
        "ClassicalDedekindReals.sig_not_dec",
        "FunctionalExtensionality.functional_extensionality_dep",
        "Classical_Prop.classic",
    }
)
# The exception: in files that use the Interval library, the primitive 63-bit integers of the
# kernel and the standard library's specification axioms of them (Interval computes
# its enclosures by reflection on these machine integers).
PRIMITIVE_PREFIXES = ("PrimInt63.", "Uint63.")
_PRIMITIVE_USERS = re.compile(r"From\s+Interval\s+Require", re.M)

COQ_SUBDIR = "coq"
LOGICAL_PREFIX = "Syncattn"  # the -Q name of the files (see proofs/coq/_CoqProject)
CORE_SPEC = "CoreSpec"
_FORBIDDEN = re.compile(
    r"\b(Admitted|admit|Axiom|Axioms|Parameter|Parameters|Hypothesis|Hypotheses|"
    r"Conjecture|Variable|Variables)\b"
)
_COMMENT = re.compile(r"\(\*.*?\*\)", re.S)
_REQUIRE = re.compile(
    r"From\s+" + LOGICAL_PREFIX + r"\s+Require\s+(?:Import\s+|Export\s+)?([^.]*)\.",
    re.M,
)
_MARK = "@@syncattn-part "
_TIMEOUT_S = 1200
PIN_HINT = "review it, then update the pin"


@dataclasses.dataclass
class PartResult:
    """The Coq check of one part: ``Check (<name>.<theorem> : <name>_spec.<theorem>_spec)``."""

    label: str
    theorem: str
    result: str  # "checked" | "FAIL" | "not installed" | "skipped"
    axioms: tuple[str, ...] = ()
    error: str | None = None


@dataclasses.dataclass
class CoqResult:
    """The Coq column of one statement.

    ``result`` is "checked" when every declared Coq part checked, "FAIL" when one did
    not (or a pin, a forbidden word or a compile failed), "not installed" without
    ``coqc``, "skipped" with ``--no-coq`` and "-" when the statement has no Coq part.
    ``parts`` and ``coq_parts`` count the statement's parts and those declared Coq.
    """

    name: str
    files: tuple[str, ...]
    result: str
    parts: int = 0
    coq_parts: int = 0
    part_results: tuple[PartResult, ...] = ()
    seconds: float = 0.0
    cached: bool = False
    error: str | None = None

    @property
    def checked(self) -> int:
        return sum(p.result == "checked" for p in self.part_results)

    @property
    def axioms(self) -> tuple[str, ...]:
        return tuple(sorted({a for p in self.part_results for a in p.axioms}))

    def cell(self) -> str:
        """The report's cell: "checked" only when every part of the statement is in Coq
        and checked; otherwise "k/m parts" (k checked of m) or the failure."""
        if self.result in ("-", "skipped"):
            return self.result
        if self.result == "not installed":
            return f"not installed ({self.coq_parts}/{self.parts} parts in Coq)"
        if self.result == "FAIL":
            return f"FAIL ({self.checked}/{self.parts} parts)"
        if self.checked == self.parts:
            return "checked"
        return f"{self.checked}/{self.parts} parts"


def coq_dir(proofs_dir: Path) -> Path:
    return Path(proofs_dir) / COQ_SUBDIR


def coq_files(proofs_dir: Path) -> dict[str, Path]:
    """Every Coq file of ``proofs/coq``, by module name (``kuramoto_identity_spec``)."""
    folder = coq_dir(proofs_dir)
    return {p.stem: p for p in sorted(folder.glob("*.v"))} if folder.is_dir() else {}


def find_coqc() -> str | None:
    return shutil.which("coqc")


def cache_dir() -> Path:
    env = os.environ.get("SYNCATTN_COQ_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "syncattn" / "coq"


def strip_comments(source: str) -> str:
    """The source without ``(* ... *)`` comments (Coq's comments nest; ours do not)."""
    return _COMMENT.sub(" ", source)


def forbidden_words(source: str) -> list[str]:
    """``Admitted``, ``admit``, ``Axiom`` (and the other ways to assume) outside comments."""
    return sorted(set(_FORBIDDEN.findall(strip_comments(source))))


def requires(source: str) -> list[str]:
    """The project's modules a file requires (``From Syncattn Require Import A B.``)."""
    names: list[str] = []
    for group in _REQUIRE.findall(strip_comments(source)):
        names += group.split()
    return names


def closure(name: str, files: dict[str, Path]) -> list[str]:
    """``name`` and every project file it needs, dependencies first.

    Raises:
        FileNotFoundError: a required module has no file in ``proofs/coq``.
    """
    order: list[str] = []
    seen: set[str] = set()

    def visit(n: str, via: str) -> None:
        if n in seen:
            return
        if n not in files:
            raise FileNotFoundError(
                f"proofs/coq/{n}.v not found (required by {via}); every "
                f"`From {LOGICAL_PREFIX} Require` names a file of proofs/coq."
            )
        seen.add(n)
        for dep in requires(files[n].read_text()):
            visit(dep, f"proofs/coq/{n}.v")
        order.append(n)

    visit(name, "the statement")
    return order


def parse_assumptions(output: str) -> list[str]:
    """The names listed by every ``Print Assumptions`` in ``coqc``'s output."""
    names: list[str] = []
    inside = False
    for line in output.splitlines():
        if line.startswith("Axioms:"):
            inside = True
            continue
        if "Closed under the global context" in line:
            inside = False
            continue
        if inside:
            if not line.strip():
                continue
            if line[0].isspace():  # continuation of a type
                continue
            name = line.split()[0]
            if re.fullmatch(r"[A-Za-z_][\w.']*", name):
                names.append(name)
            else:
                inside = False
    return names


def disallowed_axioms(axioms: list[str], primitive_ok: bool) -> list[str]:
    return sorted(
        {
            a
            for a in axioms
            if a not in REAL_AXIOMS
            and not (primitive_ok and a.startswith(PRIMITIVE_PREFIXES))
        }
    )


def uses_interval(sources: list[str]) -> bool:
    return any(_PRIMITIVE_USERS.search(strip_comments(s)) for s in sources)


def coqc_version(coqc: str) -> str:
    try:
        out = subprocess.run(
            [coqc, "--version"], capture_output=True, text=True, timeout=60
        )
        return " ".join(out.stdout.split())
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({type(e).__name__})"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _run_coqc(coqc: str, folder: Path, file: str, timeout: float) -> tuple[int, str]:
    try:
        out = subprocess.run(
            [coqc, "-q", "-Q", ".", LOGICAL_PREFIX, file],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return 124, f"coqc timed out after {timeout} s"
    return out.returncode, out.stdout + out.stderr


def compile_file(path: Path, coqc: str, timeout: float = _TIMEOUT_S) -> tuple[int, str]:
    """Compile ``path`` with the project's files it needs (found beside it) in a fresh
    temporary folder; return (exit status, output of ``path``'s own compile); 124 when
    it runs past ``timeout`` seconds."""
    path = Path(path)
    files = {p.stem: p for p in path.parent.glob("*.v")}
    files[path.stem] = path
    with tempfile.TemporaryDirectory(prefix="syncattn-coq-") as tmp:
        order = closure(path.stem, files)
        for n in order:
            shutil.copy2(files[n], Path(tmp) / f"{n}.v")
        for n in order:
            rc, output = _run_coqc(coqc, Path(tmp), f"{n}.v", timeout)
            if rc != 0 or n == path.stem:
                return rc, output
    raise AssertionError("unreachable")


def audit_source(name: str, theorems: list[str]) -> str:
    """The audit file of statement ``name``: each theorem against its specification."""
    lines = [f"From {LOGICAL_PREFIX} Require {name}_spec {name}."]
    for thm in theorems:
        lines += [
            f'Goal True. idtac "{_MARK}{thm}". Abort.',
            f"Check ({LOGICAL_PREFIX}.{name}.{thm} : {LOGICAL_PREFIX}.{name}_spec.{thm}_spec).",
            f"Print Assumptions {LOGICAL_PREFIX}.{name}.{thm}.",
        ]
    lines.append(f'Goal True. idtac "{_MARK}end". Abort.')
    return "\n".join(lines) + "\n"


def _split_audit(output: str) -> dict[str, str]:
    parts: dict[str, str] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(_MARK):
            current = line[len(_MARK) :].strip()
            parts[current] = ""
        elif current is not None:
            parts[current] += line + "\n"
    return parts


def _tail(output: str) -> str:
    return " ".join(output.split())[-600:]


@dataclasses.dataclass
class _Declared:
    """What a statement declares: its parts, its Coq theorems and its pin."""

    name: str
    parts: list  # the module's PARTS
    theorems: list[tuple[str, str]]  # (label, theorem) of the coq parts
    pin: str | None


def declared(statement) -> _Declared:
    module = statement.module
    parts = list(getattr(module, "PARTS", ()) or ())
    theorems = [(p.label, p.coq) for p in parts if p.kind == "coq"]
    return _Declared(
        statement.name, parts, theorems, getattr(module, "COQ_SPEC_SHA256", None)
    )


def spec_pin(name: str, package: str | None) -> str | None:
    """``COQ_SPEC_SHA256`` of statement ``name`` in the proofs package ``package``."""
    if not package:
        return None
    import importlib

    try:
        module = importlib.import_module(f"{package}.proof_{name}")
    except ImportError:
        return None
    return getattr(module, "COQ_SPEC_SHA256", None)


def pin_errors(
    decl: _Declared,
    files: dict[str, Path],
    core_pin: str | None,
    order: list[str] = (),
    package: str | None = None,
) -> list[str]:
    """What is wrong with the trusted base of a statement: the pins of its specification,
    of every other specification it needs (``order``: its files; another statement's
    specification is pinned by that statement, found in ``package``) and of the shared
    core; and a specification that requires anything but specifications."""
    errors = []
    spec = files.get(f"{decl.name}_spec")
    if spec is None:
        return [
            f"proofs/coq/{decl.name}_spec.v not found: a statement with Coq parts has a specification file"
        ]
    if decl.pin is None:
        errors.append(
            f"proofs/proof_{decl.name}.py has Coq parts but no COQ_SPEC_SHA256 "
            f"(the pin of proofs/coq/{decl.name}_spec.v: {sha256_file(spec)})"
        )
    elif sha256_file(spec) != decl.pin:
        errors.append(
            f"specification changed: proofs/coq/{decl.name}_spec.v (sha256 "
            f"{sha256_file(spec)}, pinned {decl.pin}): {PIN_HINT} "
            f"(COQ_SPEC_SHA256 in proofs/proof_{decl.name}.py)"
        )
    for other in order:
        if not other.endswith("_spec") or other == f"{decl.name}_spec":
            continue
        owner = other.removesuffix("_spec")
        pin = spec_pin(owner, package)
        if pin != sha256_file(files[other]):
            errors.append(
                f"specification changed: proofs/coq/{other}.v (sha256 {sha256_file(files[other])}, "
                f"pinned {pin}), which proofs/coq/{decl.name}_spec.v needs: {PIN_HINT} "
                f"(COQ_SPEC_SHA256 in proofs/proof_{owner}.py)"
            )
    for name in [n for n in order if n.endswith("_spec")] or [f"{decl.name}_spec"]:
        untrusted = [
            r
            for r in requires(files[name].read_text())
            if r != CORE_SPEC and not r.endswith("_spec")
        ]
        if untrusted:
            errors.append(
                f"proofs/coq/{name}.v requires {', '.join(untrusted)}: a specification may require "
                f"only {CORE_SPEC} and other specifications (definitions a reviewer reads)"
            )
    core = files.get(CORE_SPEC)
    if core is not None and core_pin is not None and sha256_file(core) != core_pin:
        errors.append(
            f"specification changed: proofs/coq/{CORE_SPEC}.v (sha256 {sha256_file(core)}, "
            f"pinned {core_pin}): {PIN_HINT} (CORE_SPEC_SHA256 in proofs/_parts.py)"
        )
    return errors


def _key(paths: list[Path], audit: str, version: str) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(audit.encode())
    h.update(version.encode())
    h.update(json.dumps(sorted(REAL_AXIOMS) + list(PRIMITIVE_PREFIXES)).encode())
    return h.hexdigest()


def _fail(decl, rel, error, seconds=0.0, results=()) -> CoqResult:
    return CoqResult(
        decl.name,
        rel,
        "FAIL",
        len(decl.parts),
        len(decl.theorems),
        tuple(results),
        seconds,
        error=error,
    )

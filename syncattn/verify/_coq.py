"""The Coq column of ``syncattn verify``: compile ``proofs/coq/<name>.v`` and audit its axioms.

Each statement ``proofs/proof_<name>.py`` may have a machine-checked companion
``proofs/coq/<name>.v`` (files without a sympy statement, such as the float32 kernel's
``sincos_float32.v``, are reported on their own rows). A file is *checked* when
``coqc`` compiles it in a fresh temporary folder (so an installed, read-only copy
works and no build products land next to the sources), its source contains no
``Admitted``, ``admit`` or ``Axiom``, and every axiom its ``Print Assumptions``
lists is allowed (:data:`REAL_AXIOMS`, plus :data:`PRIMITIVE_PREFIXES` in files that
use Interval). A success is cached by the hash of the file, the ``coqc`` version and
the allowlist, in ``$SYNCATTN_COQ_CACHE`` or ``~/.cache/syncattn/coq``.
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
import time
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
# The library files whose proofs may use PRIMITIVE_PREFIXES.
_PRIMITIVE_USERS = re.compile(r"From\s+Interval\s+Require", re.M)

COQ_SUBDIR = "coq"
LOGICAL_PREFIX = "Syncattn"  # the -Q name of the files (see proofs/coq/_CoqProject)
_FORBIDDEN = re.compile(
    r"\b(Admitted|admit|Axiom|Axioms|Parameter|Hypothesis|Conjecture)\b"
)
_COMMENT = re.compile(r"\(\*.*?\*\)", re.S)
_TIMEOUT_S = 1200


@dataclasses.dataclass
class CoqResult:
    name: str
    file: str
    result: str  # "checked" | "FAIL" | "not installed" | "skipped"
    seconds: float = 0.0
    cached: bool = False
    axioms: tuple[str, ...] = ()
    error: str | None = None


def coq_dir(proofs_dir: Path) -> Path:
    return Path(proofs_dir) / COQ_SUBDIR


def coq_files(proofs_dir: Path) -> dict[str, Path]:
    """The Coq files, by name (``kuramoto_identity`` for ``coq/kuramoto_identity.v``)."""
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


def disallowed_axioms(axioms: list[str], source: str) -> list[str]:
    primitive_ok = bool(_PRIMITIVE_USERS.search(strip_comments(source)))
    return sorted(
        {
            a
            for a in axioms
            if a not in REAL_AXIOMS
            and not (primitive_ok and a.startswith(PRIMITIVE_PREFIXES))
        }
    )


def coqc_version(coqc: str) -> str:
    try:
        out = subprocess.run(
            [coqc, "--version"], capture_output=True, text=True, timeout=60
        )
        return " ".join(out.stdout.split())
    except (OSError, subprocess.SubprocessError) as e:
        return f"unknown ({type(e).__name__})"


def _key(path: Path, version: str) -> str:
    h = hashlib.sha256()
    h.update(path.read_bytes())
    h.update(version.encode())
    h.update(json.dumps(sorted(REAL_AXIOMS) + list(PRIMITIVE_PREFIXES)).encode())
    return h.hexdigest()


def compile_file(path: Path, coqc: str, timeout: float = _TIMEOUT_S) -> tuple[int, str]:
    """Compile ``path`` alone in a fresh temporary folder; return (exit status, output);
    124 when it runs past ``timeout`` seconds."""
    with tempfile.TemporaryDirectory(prefix="syncattn-coq-") as tmp:
        shutil.copy2(path, Path(tmp) / path.name)
        try:
            out = subprocess.run(
                [coqc, "-q", "-Q", ".", LOGICAL_PREFIX, path.name],
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return 124, f"coqc timed out after {timeout} s"
        return out.returncode, out.stdout + out.stderr


def check_file(
    name: str, path: Path, coqc: str, *, version: str | None = None, use_cache=True
) -> CoqResult:
    """Check one Coq file: compiles, no forbidden words, only allowed axioms."""
    t0 = time.perf_counter()
    rel = f"proofs/{COQ_SUBDIR}/{path.name}"
    source = path.read_text()
    bad_words = forbidden_words(source)
    if bad_words:
        return CoqResult(
            name, rel, "FAIL", 0.0, error=f"forbidden in source: {', '.join(bad_words)}"
        )
    version = version or coqc_version(coqc)
    key = _key(path, version)
    stamp = cache_dir() / f"{key}.json"
    if use_cache and stamp.is_file():
        try:
            axioms = tuple(json.loads(stamp.read_text())["axioms"])
            return CoqResult(name, rel, "checked", 0.0, cached=True, axioms=axioms)
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache entry: compile again
    rc, output = compile_file(path, coqc)
    seconds = time.perf_counter() - t0
    if rc != 0:
        tail = " ".join(output.split())[-600:]
        return CoqResult(name, rel, "FAIL", seconds, error=f"coqc exit {rc}: {tail}")
    axioms = parse_assumptions(output)
    if "Axioms:" not in output and "Closed under the global context" not in output:
        return CoqResult(
            name, rel, "FAIL", seconds, error="no Print Assumptions in the output"
        )
    bad = disallowed_axioms(axioms, source)
    if bad:
        return CoqResult(
            name,
            rel,
            "FAIL",
            seconds,
            axioms=tuple(axioms),
            error=f"axioms outside the allowlist: {', '.join(bad)}",
        )
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps(dict(file=rel, version=version, axioms=axioms)))
    except OSError:
        pass  # an unwritable cache only costs a recompile
    return CoqResult(name, rel, "checked", seconds, axioms=tuple(sorted(set(axioms))))


def check_all(
    files: dict[str, Path], *, jobs: int = 1, use_cache: bool = True
) -> dict[str, CoqResult]:
    """Check ``files`` (name -> path) with ``coqc`` from PATH, ``jobs`` at a time;
    every result is "not installed" when there is no ``coqc``."""
    coqc = find_coqc()
    if coqc is None:
        return {
            n: CoqResult(n, f"proofs/{COQ_SUBDIR}/{p.name}", "not installed")
            for n, p in files.items()
        }
    version = coqc_version(coqc)
    if jobs <= 1 or len(files) <= 1:
        return {
            n: check_file(n, p, coqc, version=version, use_cache=use_cache)
            for n, p in files.items()
        }
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(jobs) as ex:
        futures = {
            n: ex.submit(check_file, n, p, coqc, version=version, use_cache=use_cache)
            for n, p in files.items()
        }
        return {n: f.result() for n, f in futures.items()}

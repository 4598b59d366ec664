"""Hatch build hook: ship the repository's ``proofs/`` inside the wheel as ``syncattn/_proofs``.

``syncattn verify`` runs the proof modules; an installed wheel must carry them,
but not as a generic top-level ``proofs`` package in site-packages. The proofs
import each other relatively (``from ._harness import ...``), so they work as
``proofs`` in the source tree and as ``syncattn._proofs`` when installed;
``syncattn.verify.find_proofs`` looks in ``syncattn/_proofs`` first. Only
standard wheels get the copy: an editable install reads ``proofs/`` from the
checkout, so no stale copy lands in site-packages. The Coq sources
(``proofs/coq/*.v``, ``_CoqProject``, ``build.sh``) ship with them; build products of
an in-place Coq or Python run (``*.vo``, ``*.glob``, ``Makefile.coq``, ``__pycache__``,
...) do not.
"""

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


_BUILD_SUFFIXES = (".vo", ".vok", ".vos", ".glob", ".aux", ".pyc", ".cache")
_BUILD_NAMES = ("Makefile.coq", "Makefile.coq.conf", ".Makefile.coq.d")


def _shipped(path: Path, root: Path) -> bool:
    rel = path.relative_to(root)
    return (
        path.is_file()
        and "__pycache__" not in rel.parts
        and not path.name.endswith(_BUILD_SUFFIXES)
        and path.name not in _BUILD_NAMES
        and path.name != ".gitignore"
    )


class ProofsInWheel(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name == "wheel" and version == "standard":
            root = Path(self.root) / "proofs"
            for path in sorted(root.rglob("*")):
                if _shipped(path, root):
                    target = "syncattn/_proofs/" + path.relative_to(root).as_posix()
                    build_data["force_include"][str(path)] = target

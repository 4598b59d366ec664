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

It also builds the fused CPU kernels (``syncattn/_kernels/*.cc``: the attention, the pair
maps, the sync layers' and the blocks' elementwise maps; issue 42) when the build environment has a C++ compiler and jaxlib (whose FFI headers it
compiles against; e.g. ``pip install --no-build-isolation``): a standard wheel ships the
library (tagged ``py3-none-<platform>``: a C library loaded by ctypes, no Python ABI), an
editable install puts it in the kernel cache the package looks in. Without a compiler or
jaxlib the build goes on with a one-line notice: the package then builds the kernel on
first use where it can, and uses the pure-XLA paths where it cannot.
"""

import importlib.util
import sysconfig
import tempfile
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


def _kernel_build_module(root: Path):
    """``syncattn/_kernels/_build.py`` loaded by path (it imports the standard library only)."""
    spec = importlib.util.spec_from_file_location(
        "_syncattn_kernel_build", root / "syncattn" / "_kernels" / "_build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _jaxlib() -> tuple[str, str] | None:
    """``(version, FFI include dir)`` of the build environment's jaxlib, or None."""
    spec = importlib.util.find_spec("jaxlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    from importlib.metadata import version

    include = Path(list(spec.submodule_search_locations)[0]) / "include"
    return (version("jaxlib"), str(include)) if include.is_dir() else None


class ProofsInWheel(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name == "wheel":
            self._kernel(version, build_data)
        if self.target_name == "wheel" and version == "standard":
            root = Path(self.root) / "proofs"
            for path in sorted(root.rglob("*")):
                if _shipped(path, root):
                    target = "syncattn/_proofs/" + path.relative_to(root).as_posix()
                    build_data["force_include"][str(path)] = target

    def _kernel(self, version: str, build_data: dict) -> None:
        """Build the CPU attention kernel if it can be; a notice (never a failure) if not."""
        build = _kernel_build_module(Path(self.root))
        jaxlib = _jaxlib()
        if build.compiler() is None or jaxlib is None:
            why = "no C++ compiler" if build.compiler() is None else "no jaxlib here"
            self.app.display_info(
                f"syncattn: fused CPU kernels not built at install ({why}); "
                "built on first use where possible, else the pure-XLA paths."
            )
            return
        name = build.library_name(jaxlib[0])
        try:
            if version == "standard":
                target = Path(tempfile.mkdtemp(prefix="syncattn-kernel-")) / name
                build.build(target, jaxlib[1])
                build_data["force_include"][str(target)] = f"syncattn/_kernels/{name}"
                build_data["pure_python"] = False
                platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
                build_data["tag"] = f"py3-none-{platform}"
            else:
                build.build(build.cache_dir() / name, jaxlib[1])
        except Exception as err:  # a notice, never an install failure
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            self.app.display_warning(
                f"syncattn: fused CPU kernels not built ({first}); "
                "the pure-XLA paths serve."
            )

"""Compiling the CPU kernels (`attention.cc`, `sync.cc`, `blocks.cc`, their `simd.h`) into one
shared library.

Shared by the install hook (`hatch_build.py`, which loads this file by path: it
imports nothing from syncattn) and the lazy build of `syncattn._kernels` on first use.
The library's name carries a key: the SHA-256 of the source, the compiler flags and
the jaxlib version (whose headers it is compiled against), so a changed source or an
upgraded jaxlib never loads a stale build. A build writes to a temporary name and
renames it into place (atomic), under a file lock, so two processes that build at once
(pytest-xdist workers) do not read a half-written library.

Flags: ``-O3`` and no ``-march=native`` (a wheel or a shared cache must run on any
x86-64): the hot loops are GCC vector code whose entry points the source clones for
AVX-512, AVX2+FMA and the baseline (``target_clones``, picked when the library loads).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path


SOURCES = tuple(Path(__file__).with_name(n) for n in ("attention.cc", "sync.cc", "blocks.cc"))
HEADERS = (Path(__file__).with_name("simd.h"),)
FLAGS = (
    "-std=c++17",
    "-O3",
    "-fPIC",
    "-shared",
    "-fvisibility=hidden",
    "-fno-math-errno",
    "-fno-tree-vectorize",  # the hot loops are vector code already: the auto-vectoriser repacks them badly
    "-Wno-psabi",
    "-Wno-attributes",
)
CACHE_ENV = "SYNCATTN_KERNEL_CACHE"


def compiler() -> str | None:
    """The C++ compiler: ``$CXX``, else ``c++`` or ``g++`` on the PATH; None if none."""
    for name in (os.environ.get("CXX"), "c++", "g++"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def key(jaxlib_version: str) -> str:
    """The library's key: sources, header, flags and jaxlib version, hashed (12 hex digits)."""
    h = hashlib.sha256()
    for path in SOURCES + HEADERS:
        h.update(path.read_bytes())
    h.update(" ".join(FLAGS).encode())
    h.update(jaxlib_version.encode())
    return h.hexdigest()[:12]


def library_name(jaxlib_version: str) -> str:
    return f"_attention-{key(jaxlib_version)}.so"


def cache_dir() -> Path:
    """``$SYNCATTN_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/syncattn/kernels`` (``~/.cache``)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "syncattn" / "kernels"


def build(target: Path, include_dir: str, cxx: str | None = None) -> Path:
    """Compile the sources to `target` (atomic rename): one compiler process per source,
    at once, then one link; returns `target`.

    Raises:
        RuntimeError: no compiler, or the compiler failed (its message included).
    """
    cxx = cxx or compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler (set CXX, or install g++)")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
    os.close(fd)
    with tempfile.TemporaryDirectory(dir=target.parent) as objdir:
        objects = [str(Path(objdir) / (src.stem + ".o")) for src in SOURCES]
        # -isystem: jaxlib's FFI headers are not ours to warn about (-Wreturn-type in api.h)
        compiles = [
            [cxx, *FLAGS, "-c", "-isystem", include_dir, str(src), "-o", obj]
            for src, obj in zip(SOURCES, objects)
        ]
        link = [cxx, *FLAGS, *objects, "-o", tmp]
        procs: list[subprocess.Popen] = []
        try:
            for cmd in compiles:
                procs.append(
                    subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                )
            for cmd, proc in zip(compiles, procs):
                _, err = proc.communicate(timeout=600)
                if proc.returncode != 0:
                    raise RuntimeError(f"{' '.join(cmd)} failed:\n{err[-4000:]}")
            done = subprocess.run(link, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(link)} failed:\n{done.stderr[-4000:]}")
            os.replace(tmp, target)
        finally:
            for proc in procs:  # a failure or timeout: no compiler left running
                if proc.poll() is None:
                    proc.kill()
            if os.path.exists(tmp):
                os.unlink(tmp)
    return target

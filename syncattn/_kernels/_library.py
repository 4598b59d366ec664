"""Finding, building and registering the CPU attention library (`attention.cc`).

`library()` returns the loaded library with its nineteen targets (forward and backward
of the attention, the pair maps, the sync layers' features, their torus and sphere steps,
the torus lift, the bounded increment, the gated SiLU and RMSNorm; the swap of the last
two axes) registered with
`jax.ffi.register_ffi_target` (platform "cpu"), or None, in this order:

1. ``SYNCATTN_ATTENTION_KERNEL=0`` (or ``off``/``false``): None, the pure-XLA path
   (read on every call, so a test or a user can switch it at any time before a trace);
2. a library shipped in the package (a wheel built where a compiler and jaxlib were
   present: ``hatch_build.py``), named by its key (`_build.key`);
3. one in the cache directory (`_build.cache_dir`, where an editable install's hook
   and earlier lazy builds put it);
4. a build into that cache now, under a file lock (once per source, flags and
   jaxlib version; about 40 s on the project's CI-sized machine: three sources compiled at once, three CPU clones each).

A failure (no compiler, a compiler error, an unwritable cache) is reported once, as a
one-line warning, and the pure-XLA path serves from then on. Why lazy and cached rather
than only at install: jaxlib's FFI headers live in the runtime environment, which an
isolated build environment does not have, and a checkout run with ``PYTHONPATH`` (or an
editable install whose source changed) needs a build that matches its source.
"""

from __future__ import annotations

import ctypes
import os
import threading
import warnings
from pathlib import Path

from . import _build


ENV = "SYNCATTN_ATTENTION_KERNEL"
FORWARD, BACKWARD = "syncattn_attention_forward", "syncattn_attention_backward"
PAIR_FORWARD, PAIR_BACKWARD = "syncattn_pair_forward", "syncattn_pair_backward"
FEATURES_FORWARD, FEATURES_BACKWARD = "syncattn_features_forward", "syncattn_features_backward"
TORUS_FORWARD, TORUS_BACKWARD = "syncattn_torus_forward", "syncattn_torus_backward"
SPHERE_FORWARD, SPHERE_BACKWARD = "syncattn_sphere_forward", "syncattn_sphere_backward"
LIFT_FORWARD, LIFT_BACKWARD = "syncattn_lift_forward", "syncattn_lift_backward"
BOUND_FORWARD, BOUND_BACKWARD = "syncattn_bound_forward", "syncattn_bound_backward"
SILU_FORWARD, SILU_BACKWARD = "syncattn_silu_forward", "syncattn_silu_backward"
RMS_FORWARD, RMS_BACKWARD = "syncattn_rms_forward", "syncattn_rms_backward"
SWAP = "syncattn_swap"

_lock = threading.Lock()
_state: dict = {}


def disabled() -> bool:
    """True when ``SYNCATTN_ATTENTION_KERNEL`` switches the kernel off."""
    return os.environ.get(ENV, "").strip().lower() in ("0", "off", "false", "no")


def _find_or_build() -> Path:
    import jaxlib
    from filelock import FileLock

    name = _build.library_name(jaxlib.__version__)
    shipped = Path(__file__).with_name(name)
    if shipped.exists():
        return shipped
    cached = _build.cache_dir() / name
    if cached.exists():
        return cached
    import jax

    cached.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cached) + ".lock"):
        if not cached.exists():
            _build.build(cached, jax.ffi.include_dir())
    return cached


def _load():
    import jax

    path = _find_or_build()
    lib = ctypes.cdll.LoadLibrary(str(path))
    for name, symbol in (
        (FORWARD, "SyncattnAttentionForward"),
        (BACKWARD, "SyncattnAttentionBackward"),
        (PAIR_FORWARD, "SyncattnPairForward"),
        (PAIR_BACKWARD, "SyncattnPairBackward"),
        (FEATURES_FORWARD, "SyncattnFeaturesForward"),
        (FEATURES_BACKWARD, "SyncattnFeaturesBackward"),
        (TORUS_FORWARD, "SyncattnTorusForward"),
        (TORUS_BACKWARD, "SyncattnTorusBackward"),
        (SPHERE_FORWARD, "SyncattnSphereForward"),
        (SPHERE_BACKWARD, "SyncattnSphereBackward"),
        (LIFT_FORWARD, "SyncattnLiftForward"),
        (LIFT_BACKWARD, "SyncattnLiftBackward"),
        (BOUND_FORWARD, "SyncattnBoundForward"),
        (BOUND_BACKWARD, "SyncattnBoundBackward"),
        (SILU_FORWARD, "SyncattnSiluForward"),
        (SILU_BACKWARD, "SyncattnSiluBackward"),
        (RMS_FORWARD, "SyncattnRmsForward"),
        (RMS_BACKWARD, "SyncattnRmsBackward"),
        (SWAP, "SyncattnSwapForward"),
    ):
        jax.ffi.register_ffi_target(
            name, jax.ffi.pycapsule(getattr(lib, symbol)), platform="cpu"
        )
    return lib, path


def library():
    """The registered CPU attention library, or None (switched off, or unavailable)."""
    if disabled():
        return None
    with _lock:
        if "lib" not in _state:
            try:
                _state["lib"], _state["path"] = _load()
            except Exception as err:  # any failure: the pure-XLA path, said once
                _state["lib"], _state["path"] = None, None
                _state["error"] = f"{type(err).__name__}: {err}".splitlines()[0]
                warnings.warn(
                    "syncattn: the fused CPU kernels are unavailable "
                    f"({_state['error']}); using the pure-XLA paths.",
                    RuntimeWarning,
                    stacklevel=3,
                )
    return _state["lib"]


def status() -> dict:
    """Where the kernel stands: ``{"enabled", "path", "error"}`` (loads it if needed)."""
    lib = library()
    return {
        "enabled": lib is not None,
        "path": None if lib is None else str(_state["path"]),
        "error": "switched off by " + ENV if disabled() else _state.get("error"),
    }

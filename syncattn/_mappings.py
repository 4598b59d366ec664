r"""Keeping a long-lived process under the kernel's limit on memory mappings.

XLA:CPU turns every compiled program into machine code in memory regions of its own
(about eight per program, `tests/test_mappings.py`), and holds them as long as JAX's
caches hold the program. Linux bounds the mappings of one process by
``vm.max_map_count`` (65,530 by default); a process that compiles thousands of
programs (a test worker, a grid of training cells in one process) crosses it, and then
LLVM's next allocation in a compile fails and the process dies with a segmentation
fault (seen in CI's slow run, 2026-12-05: a pytest worker at about 95 % of the run).

[`relieve`][syncattn._mappings.relieve] is the remedy: where the process holds more
than a fraction of the limit, it drops JAX's compiled-program caches
(``jax.clear_caches()``), which unmaps them; the next call of a function recompiles
it. Below the threshold it only reads a count, so it is cheap to call between cells
or tests.
"""

from __future__ import annotations

import gc
from pathlib import Path


_MAPS = Path("/proc/self/maps")
_LIMIT = Path("/proc/sys/vm/max_map_count")
DEFAULT_LIMIT = 65_530
"""Linux's default ``vm.max_map_count``, used where the limit cannot be read."""


def mapping_count() -> int | None:
    """The number of memory mappings of this process (lines of ``/proc/self/maps``),
    or ``None`` where there is no such file (not Linux)."""
    try:
        return _MAPS.read_bytes().count(b"\n")
    except OSError:
        return None


def mapping_limit() -> int:
    """``vm.max_map_count``: the most mappings one process may hold
    ([`DEFAULT_LIMIT`][syncattn._mappings.DEFAULT_LIMIT] where it cannot be read)."""
    try:
        return int(_LIMIT.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return DEFAULT_LIMIT


def relieve(fraction: float = 1 / 3) -> bool:
    r"""Drop JAX's compiled programs if this process holds more than
    $\text{fraction} \times$ ``vm.max_map_count`` memory mappings.

    Args:
        fraction: the share of the limit above which the caches are cleared, in
            $(0, 1]$.

    Returns:
        True when the caches were cleared, False otherwise (below the threshold, or
        the count cannot be read).

    Raises:
        ValueError: `fraction` outside $(0, 1]$.
    """
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must lie in (0, 1]; got {fraction!r}.")
    count = mapping_count()
    if count is None or count <= fraction * mapping_limit():
        return False
    import jax

    jax.clear_caches()
    gc.collect()
    return True

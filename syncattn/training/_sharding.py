r"""Data parallelism with `jax.sharding`, and `jax.distributed` for several hosts.

One host: a 1-D mesh over the local devices, axis ``"data"``. The batch is sharded
on its axis 0, so each device holds ``batch_size / n_devices`` rows; parameters and
optimiser state are replicated. The compiled step is the same program as on one
device (XLA inserts the gradient all-reduce), so the loss curve matches the
single-device run up to the order of floating-point sums.

Several hosts: call [`syncattn.training.initialize_distributed`][] before any other
JAX call (the CLI does it when `--coordinator-address`, `--num-processes` and
`--process-id` or the ``SYNCATTN_COORDINATOR_ADDRESS`` / ``SYNCATTN_NUM_PROCESSES``
/ ``SYNCATTN_PROCESS_ID`` environment variables are given). Then `jax.devices()`
lists the devices of every host, the mesh spans them all, and each process feeds
only its own rows of the global batch (the sampler is a pure function of
(seed, step), so every process computes the same global batch and keeps its
slice). Only process 0 writes checkpoints and logs; when a run resumes, every
process takes process 0's restored state ([`syncattn.training.broadcast_from_main`][]),
so the other hosts need not see the run folder (a node-local disk is enough).

Tested for real (tests/training/test_multihost.py): two processes on 127.0.0.1 with
one CPU device each give the same losses and the same checkpoint bytes as one
process with two devices. Bitwise, not merely to round-off: each device runs the
same partitioned program on the same rows, and the only cross-device reductions
are two-term all-reduces, where $a + b = b + a$ exactly whatever transport sums
them. With three or more processes the all-reduce may add in another order, so
expect agreement to float round-off there.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import equinox as eqx
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


__all__ = [
    "data_mesh",
    "replicate",
    "shard_batch",
    "initialize_distributed",
    "is_main_process",
    "broadcast_from_main",
]

_ENV = {
    "coordinator_address": "SYNCATTN_COORDINATOR_ADDRESS",
    "num_processes": "SYNCATTN_NUM_PROCESSES",
    "process_id": "SYNCATTN_PROCESS_ID",
}


def data_mesh(devices: Sequence[jax.Device] | None = None) -> Mesh:
    """A 1-D mesh with axis ``"data"`` over `devices` (default: `jax.devices()`, every
    device of every process)."""
    devices = list(jax.devices() if devices is None else devices)
    if not devices:
        raise ValueError("devices must not be empty.")
    return Mesh(np.asarray(devices, dtype=object), ("data",))


def replicate(tree, mesh: Mesh):
    """Every array leaf of `tree` placed on all devices of `mesh` (replicated)."""
    sharding = NamedSharding(mesh, P())
    arrays, static = eqx.partition(tree, eqx.is_array)
    arrays = jax.tree.map(lambda x: jax.device_put(x, sharding), arrays)
    return eqx.combine(arrays, static)


def shard_batch(batch: np.ndarray, mesh: Mesh) -> jax.Array:
    """The global batch `batch` ``(B, ...)`` as one array sharded on axis 0 over `mesh`.

    Each process passes the same global batch and contributes its own block of
    rows (in one process: all of them).

    Raises:
        ValueError: if ``B`` is not a multiple of the mesh size.
    """
    n = mesh.devices.size
    b = batch.shape[0]
    if b % n:
        raise ValueError(
            f"batch_size ({b}) must be a multiple of the number of devices ({n}); "
            f"set batch_size={max(n, (b // n) * n)} or use fewer devices."
        )
    sharding = NamedSharding(mesh, P("data"))
    nproc = jax.process_count()
    if nproc == 1:
        return jax.device_put(batch, sharding)
    rows = b // nproc
    pid = jax.process_index()
    local = batch[pid * rows : (pid + 1) * rows]
    return jax.make_array_from_process_local_data(sharding, local, batch.shape)


def is_main_process() -> bool:
    """True on process 0 (the only one that writes files)."""
    return jax.process_index() == 0


def broadcast_from_main(tree):
    r"""`tree` with every array leaf replaced by process 0's value.

    $$x_p \leftarrow \sum_{q} [q = 0]\, x_q \quad\text{for every process } p,$$

    one `jax.experimental.multihost_utils.broadcast_one_to_all` over the array
    leaves (non-array leaves are kept). Adding zeros is exact, so the values arrive
    bit for bit (except that $-0$ becomes $+0$). Every process must call it with
    leaves of the same shapes and dtypes. In a single-process run it returns
    `tree` unchanged, without any computation.

    [`syncattn.training.fit`][] calls it on the (possibly restored) training state,
    so that a resumed multi-host run needs the checkpoint on process 0's disk only.
    """
    if jax.process_count() == 1:
        return tree
    from jax.experimental import multihost_utils

    arrays, static = eqx.partition(tree, eqx.is_array)
    leaves, treedef = jax.tree.flatten(arrays)
    dtypes = [np.asarray(x).dtype for x in leaves]
    out = multihost_utils.broadcast_one_to_all(leaves)
    out = [np.asarray(x).astype(d, copy=False) for x, d in zip(out, dtypes, strict=True)]
    return eqx.combine(jax.tree.unflatten(treedef, out), static)


def initialize_distributed(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
) -> bool:
    r"""Join a multi-host run via `jax.distributed.initialize`, when asked to.

    Arguments left ``None`` are read from ``SYNCATTN_COORDINATOR_ADDRESS``,
    ``SYNCATTN_NUM_PROCESSES`` and ``SYNCATTN_PROCESS_ID``. With none of the three
    given, nothing happens (a single-host run). Must be called before any other JAX
    computation. Every process runs the same `syncattn train` command with its own
    `process_id` in ``0 .. num_processes - 1``; process 0's host serves as
    coordinator (``host:port``).

    Returns:
        True if `jax.distributed.initialize` was called.

    Raises:
        ValueError: if only some of the three are given, or they are out of range.
    """
    values = {
        "coordinator_address": coordinator_address,
        "num_processes": num_processes,
        "process_id": process_id,
    }
    for name, env in _ENV.items():
        if values[name] is None and os.environ.get(env):
            values[name] = os.environ[env]
    given = [k for k, v in values.items() if v is not None]
    if not given:
        return False
    if len(given) < 3:
        missing = sorted(set(values) - set(given))
        raise ValueError(
            f"a multi-host run needs coordinator_address, num_processes and process_id; "
            f"missing {missing} (flags --coordinator-address/--num-processes/--process-id "
            f"or the {', '.join(_ENV.values())} environment variables)."
        )
    num, pid = int(values["num_processes"]), int(values["process_id"])
    if num < 1 or not 0 <= pid < num:
        raise ValueError(
            f"need num_processes >= 1 and 0 <= process_id < num_processes; got {num}, {pid}."
        )
    jax.distributed.initialize(
        coordinator_address=str(values["coordinator_address"]),
        num_processes=num,
        process_id=pid,
    )
    return True

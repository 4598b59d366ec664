"""Data parallelism: 2 forced CPU devices give the single-device loss curve."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from syncattn.training import initialize_distributed

from ..helpers import assert_close


ROOT = Path(__file__).resolve().parents[2]


def test_two_devices_match_one_device(tmp_path):
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        XLA_FLAGS="--xla_force_host_platform_device_count=2",  # before jax starts
    )
    out = subprocess.run(
        [sys.executable, "-m", "tests.training._train_script", str(tmp_path),
         "--steps", "20", "--compare"],
        check=True, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    curves = json.loads(out.stdout.strip().splitlines()[-1])
    assert curves["n_devices"] == 2
    one, two = np.array(curves["one"]), np.array(curves["all"])
    assert len(one) == len(two) == 20
    assert one[-1] < one[0] - 0.2  # it learns
    # the same maths; only the order of the float32 sums differs, and 20 training
    # steps compound that rounding (scale=20)
    assert_close(two, one, np.float32, scale=20)
    assert_close(curves["all_eval"], curves["one_eval"], np.float32, scale=20)
    assert "multiple of the number of devices (2)" in curves["uneven_batch_error"]


def test_distributed_needs_all_three_settings(monkeypatch):
    for var in ("SYNCATTN_COORDINATOR_ADDRESS", "SYNCATTN_NUM_PROCESSES", "SYNCATTN_PROCESS_ID"):
        monkeypatch.delenv(var, raising=False)
    assert initialize_distributed() is False  # nothing given: single host
    with pytest.raises(ValueError, match="missing"):
        initialize_distributed(coordinator_address="localhost:1234")
    monkeypatch.setenv("SYNCATTN_NUM_PROCESSES", "2")
    monkeypatch.setenv("SYNCATTN_PROCESS_ID", "2")
    with pytest.raises(ValueError, match="process_id"):
        initialize_distributed(coordinator_address="localhost:1234")


def test_shard_batch_places_rows_and_rejects_uneven_batches():
    import jax

    from syncattn.training import data_mesh, shard_batch

    mesh = data_mesh(jax.devices()[:1])
    batch = np.arange(12, dtype=np.int32).reshape(4, 3)
    arr = shard_batch(batch, mesh)
    assert np.array_equal(np.asarray(arr), batch)
    assert arr.sharding.spec == jax.sharding.PartitionSpec("data")
    with pytest.raises(ValueError, match="devices must not be empty"):
        data_mesh([])

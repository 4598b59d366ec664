"""Checkpoints: exact round trip, last k kept, a torn or corrupt latest one falls back."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from syncattn.training import (
    CheckpointError,
    list_checkpoints,
    restore_checkpoint,
    save_checkpoint,
)


def _state(seed):
    rng = np.random.default_rng(seed)
    return {
        "w": jnp.asarray(rng.normal(size=(3, 4)), jnp.float32),
        "m": jnp.asarray(rng.normal(size=5)),
        "count": jnp.asarray(seed, jnp.int32),
        "key": jax.random.PRNGKey(seed),
    }


def _equal(a, b):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(la) == len(lb) and all(
        x.dtype == y.dtype and np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
        for x, y in zip(la, lb)
    )


def test_round_trip_is_exact_and_keeps_last_k(tmp_path):
    for step in (10, 20, 30, 40):
        save_checkpoint(tmp_path, step, _state(step), keep=2)
    assert [s for s, _ in list_checkpoints(tmp_path)] == [40, 30]
    state, step, path = restore_checkpoint(tmp_path, _state(0))
    assert step == 40 and path.name == "step_00000040"
    assert _equal(state, _state(40))
    # an unfinished write (a crash before the rename) is invisible
    (tmp_path / ".tmp-step_00000050-123").mkdir()
    assert restore_checkpoint(tmp_path, _state(0))[1] == 40
    # saving a step again replaces it
    save_checkpoint(tmp_path, 40, _state(41), keep=2)
    assert _equal(restore_checkpoint(tmp_path, _state(0))[0], _state(41))
    assert restore_checkpoint(tmp_path / "none", _state(0)) is None


@pytest.mark.parametrize("damage", ["truncate", "flip", "no_meta", "bad_meta"])
def test_damaged_latest_falls_back_with_a_message(tmp_path, damage):
    save_checkpoint(tmp_path, 1, _state(1), keep=3)
    latest = save_checkpoint(tmp_path, 2, _state(2), keep=3)
    blob = latest / "state.eqx"
    data = blob.read_bytes()
    if damage == "truncate":
        blob.write_bytes(data[: len(data) // 2])
    elif damage == "flip":
        blob.write_bytes(data[:-3] + bytes([data[-3] ^ 0xFF]) + data[-2:])
    elif damage == "no_meta":
        (latest / "meta.json").unlink()
    else:
        (latest / "meta.json").write_text("{not json")
    messages = []
    state, step, _ = restore_checkpoint(tmp_path, _state(0), quarantine=True, log=messages.append)
    assert step == 1 and _equal(state, _state(1))
    assert len(messages) == 1
    assert "step_00000002" in messages[0] and "Falling back to step_00000001" in messages[0]
    assert (tmp_path / "corrupt-step_00000002").is_dir()  # kept for inspection
    assert [s for s, _ in list_checkpoints(tmp_path)] == [1]


def test_shape_change_and_all_corrupt_are_clear_errors(tmp_path):
    save_checkpoint(tmp_path, 1, _state(1), keep=3)
    other = dict(_state(0), w=jnp.zeros((2, 2), jnp.float32))
    messages = []
    with pytest.raises(CheckpointError, match="no readable checkpoint.*new --out"):
        restore_checkpoint(tmp_path, other, log=messages.append)
    assert "step_00000001" in messages[0]
    meta = json.loads((tmp_path / "step_00000001" / "meta.json").read_text())
    assert meta["step"] == 1 and len(meta["sha256"]) == 64
    with pytest.raises(ValueError, match="keep"):
        save_checkpoint(tmp_path, 2, _state(2), keep=0)

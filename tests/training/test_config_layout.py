"""A run folder whose config.json holds the model in the flat layout of before issue 41
(the oscillator and synchronisation fields at the top of ``model``) still loads, evaluates
and resumes; a new run writes the nested layout (``model.osc``, ``model.sync``)."""

import json

import jax.numpy as jnp
import numpy as np
import pytest

from syncattn import cli, nn
from syncattn.training import load_run, read_config


ARGS = (
    "steps=2",
    "batch_size=2",
    "seq_len=16",
    "eval_every=2",
    "ckpt_every=2",
    "eval_batches=1",
    "log_every=1",
)
MOVED_TO_SYNC = ("value", "gates", "gate_norm", "tau", "bound", "readout_scale")


def _train(out, path):
    return cli.main(
        [
            "train",
            "--model",
            "oscillator",
            "--config",
            "tiny",
            "--data",
            "text",
            "--data-path",
            str(path),
            "--out",
            str(out),
            "--quiet",
            "d_osc=4",
            "osc.p=2",
            *ARGS,
        ]
    )


def _flatten(model: dict) -> dict:
    osc, sync = model.pop("osc"), model.pop("sync")
    return model | osc | {k: sync.pop(k) for k in MOVED_TO_SYNC} | {"sync": sync}


@pytest.mark.parametrize(
    "real", [False, pytest.param(True, marks=pytest.mark.slow, id="real-model")]
)
def test_old_flat_run_folder_loads_and_resumes(
    tmp_path, small_text, capsys, request, real
):
    """By default with the stand-in model (the config path is the point); the slow case
    builds the oscillator LM and checks its layers and logits."""
    if not real:
        request.getfixturevalue("tiny_models")
    run = tmp_path / "run"
    assert _train(run, small_text) == 0, capsys.readouterr().err
    raw = json.loads((run / "config.json").read_text())
    assert raw["model"]["osc"]["d_osc"] == 4 and raw["model"]["osc"]["p"] == 2
    assert "d_osc" not in raw["model"] and raw["model"]["sync"]["tau"] == 1.0
    spec, _, model, step = load_run(run)
    want = np.asarray(model(jnp.arange(8)))

    raw["model"] = _flatten(raw["model"])  # as a run folder written before the split
    (run / "config.json").write_text(json.dumps(raw, indent=2) + "\n")
    old_spec, _, old_model, old_step = load_run(run)
    assert old_spec.model == spec.model and old_step == step == 2
    assert old_spec.model.osc.d_osc == 4 and old_spec.model.osc.p == 2
    np.testing.assert_array_equal(np.asarray(old_model(jnp.arange(8))), want)
    if real:
        blocks = old_model.encoder.blocks
        assert all(isinstance(b.attention, nn.OscillatorAttention) for b in blocks)
        assert all(b.attention.d_osc == 4 and b.attention.p == 2 for b in blocks)
    # the same command resumes it (the configs compare equal across the layouts)
    assert _train(run, small_text) == 0, capsys.readouterr().err
    assert read_config(run).model == spec.model

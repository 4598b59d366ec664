"""Every model family keeps its parameter names and its float64 outputs across refactors
(issue 41: "checkpoints of every existing model load unchanged").

The pins (tests/models/data/pins) were written by `make_pins.py` on the code before the
geometry refactor: one tiny model per attention family and per geometry-dependent
option (sphere drifts and readouts, SO(n), U(n), learned values, the lift feed-forward,
the frustrated models), built from a fixed key. A checkpoint is the flattened array
leaves of the model (`training` saves `eqx.tree_serialise_leaves`), so equal names in
the same order and equal outputs mean every saved checkpoint of these families loads
into today's classes and computes what it computed. Outputs are compared to 1e-12
relative (float64 rounding across CPUs; the same machine reproduces them bit for bit).
"""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from syncattn import models


PINS = Path(__file__).resolve().parent / "data" / "pins"
_spec = importlib.util.spec_from_file_location("make_pins", PINS / "make_pins.py")
make_pins = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_pins)

NAMES = json.loads((PINS / "names.json").read_text())
LOGITS = np.load(PINS / "logits.npz")


def test_the_pins_cover_every_attention():
    pinned = {make_pins.CASES[c]["attention"] for c in make_pins.CASES}
    assert pinned == set(models.ATTENTIONS)
    assert set(NAMES) == set(make_pins.CASES) == set(LOGITS.files)


@pytest.mark.parametrize("case", sorted(make_pins.CASES))
def test_parameter_names_and_outputs_are_pinned(case):
    model = make_pins.build(case)
    assert make_pins.names(model) == NAMES[case]
    got = make_pins.logits(model)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, LOGITS[case], rtol=1e-12, atol=1e-12)


def test_a_changed_model_fails_the_pin():
    """The comparison can fail: another key gives other logits."""
    import jax

    cfg = models.get_config("tiny", attention="kuramoto")
    other = models.cast(models.build(cfg, key=jax.random.key(8)), np.float64)
    assert not np.allclose(make_pins.logits(other), LOGITS["kuramoto"], rtol=1e-6)
